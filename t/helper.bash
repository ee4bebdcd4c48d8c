# Shared by the bats files: where the commands and fixtures are, and
# assertions that read like the rules they check.
bats_require_minimum_version 1.5.0
export PATH="$ARC_BIN:$PATH"
FIXTURES="$BATS_TEST_DIRNAME/fixtures"

setup() {
	export ARC_JOURNAL="$BATS_TEST_TMPDIR/state/journal"
	unset ARC_NOW
}

# accepts NAME: the fixture is valid and passes through byte for byte.
accepts() {
	local f="$FIXTURES/valid/$1.json"
	[ -f "$f" ] || { echo "no fixture $f"; return 1; }
	run arc-validate "$f"
	[ "$status" -eq 0 ] || { echo "rejected $1: $output"; return 1; }
	cmp -s <(printf '%s\n' "$(cat "$f")") <(printf '%s\n' "$output") ||
	    { echo "$1 did not pass through unchanged"; return 1; }
}

# rejects NAME PATH [CODE]: invalid, with a problem at PATH (JSON Pointer).
rejects() {
	local f="$FIXTURES/invalid/$1.json" code="${3:-invalid}"
	[ -f "$f" ] || { echo "no fixture $f"; return 1; }
	run --separate-stderr arc-validate --report "$f"
	[ "$status" -eq 1 ] || { echo "accepted $1 ($status): $output"; return 1; }
	jq -e --arg p "$2" --arg c "$code" \
	    '.valid == false and any(.errors[]; .path == $p and .code == $c)' \
	    <<<"$output" >/dev/null ||
	    { echo "$1: want $code at '$2', got: $output"; return 1; }
}
