# Shared by the bats files: where the commands and fixtures are, and
# assertions that read like the rules they check.  (bench/mqtt sources it
# too, outside bats, for eventually.)
if [ -n "${BATS_TEST_DIRNAME:-}" ]; then
	bats_require_minimum_version 1.5.0
	export PATH="${ARC_WRAP_BIN:+$ARC_WRAP_BIN:}$ARC_BIN:$PATH"
	# Debian puts the servers the tests run (lighttpd, mosquitto) in
	# /usr/sbin, which is on no ordinary user's PATH
	case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac
	FIXTURES="$BATS_TEST_DIRNAME/fixtures"
fi

# needs PROGRAM...: for a file's setup_file: fails at once, naming each
# program that is not installed, rather than each test after a timeout.
needs() {
	local c missing=
	for c in "$@"; do command -v "$c" >/dev/null || missing+=" $c"; done
	[ -z "$missing" ] ||
	    { echo "not installed:$missing (t/README: What each file runs)" >&2; return 1; }
}

# arc_setup: what every test starts from: a journal of its own, the real
# clock.  A file with a setup() of its own calls it first.
arc_setup() {
	export ARC_JOURNAL="$BATS_TEST_TMPDIR/state/journal"
	unset ARC_NOW
}

# arc_teardown: every nonce and digest the test saw (journals, outputs)
# goes to the log that t/zz-secrets.bats reads.  A file with a teardown()
# of its own calls it last (t/suite.bats checks that each one does).
arc_teardown() {
	[ -n "${ARC_SECRETS_LOG:-}" ] || return 0
	# compressed archive segments (arc-journal(5)) are read through zstd
	{ grep -rhoaE '"(nonce|digest)":"[A-Za-z0-9_-]{16,}"' "$BATS_TEST_TMPDIR" 2>/dev/null
	  find "$BATS_TEST_TMPDIR" -name '*.zst' -type f -exec zstdcat -q {} + 2>/dev/null |
	      grep -oaE '"(nonce|digest)":"[A-Za-z0-9_-]{16,}"'; } |
	    sed 's/^"[a-z]*":"//; s/"$//' >>"$ARC_SECRETS_LOG" || true
}

# owned_by USER FILE...: gives files to another user, as the cases that
# need two users must: chown as root, or through sudo -n as the ordinary
# user the suite runs as (CI's fresh root allows its user that).
owned_by() {
	if [ "$(id -u)" -eq 0 ]; then
		chown "$@"
	else
		sudo -n chown "$@" || {
			echo "owned_by: giving a file to $1 needs root, or sudo without a password" >&2
			return 1
		}
	fi
}

setup() { arc_setup; }
teardown() { arc_teardown; }

# session DIR NAME CMD...: CMD in a session of its own (setsid), its output
# in DIR/NAME.out and .err, its id in DIR/NAME.pid; stop_sessions DIR
# stops each such session (TERM to the whole group) and waits for it.
session() {
	local dir=$1 name=$2
	shift 2
	setsid "$@" >"$dir/$name.out" 2>"$dir/$name.err" </dev/null 3>&- &
	echo $! >"$dir/$name.pid"
}
stop_sessions() {
	local f ended=0
	for f in "$1"/*.pid; do
		[ -f "$f" ] || continue
		kill -TERM -- "-$(cat "$f")" 2>/dev/null || kill -TERM "$(cat "$f")" 2>/dev/null || true
		ends_within 20 "$(cat "$f")" || ended=1
	done
	return "$ended"
}

# ends_within SECS PID: a child of the test, sent a signal, has ended
# within SECS seconds; else it is killed (its group too) and this fails,
# naming it: a program that goes on after TERM is a failure, not a hang.
ends_within() {
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		if ! kill -0 "$2" 2>/dev/null; then
			wait "$2" 2>/dev/null || true
			return 0
		fi
		sleep 0.05
	done
	echo "pid $2 ($(tr '\0' ' ' </proc/"$2"/cmdline 2>/dev/null)) had not ended $1 s after its signal: killed" >&2
	kill -KILL -- "-$2" 2>/dev/null || kill -KILL "$2" 2>/dev/null || true
	wait "$2" 2>/dev/null || true
	return 1
}

# says_gave_up KEY FAILURE: arc-status --show and --list say that a sink
# failed delivering KEY with FAILURE ("exec failed: exit status 7"), and
# gave up after 3 tries.
says_gave_up() {
	eventually eval "arc-status --show '$1' | grep -q 'gave up'"
	run arc-status --show "$1"
	grep -qx "delivery: $2 (3 tries, gave up, last at .*)" <<<"$output"
	run arc-status --list
	[ "$(cut -f1 <<<"$output")" = "$1" ]
	[[ "$(cut -f8 <<<"$output")" == "$2 (3 tries, gave up"* ]]
}

# eventually CMD...: true once CMD is, trying for up to 20 seconds (when
# each try is quick).
eventually() {
	local i end=$((SECONDS + 120))
	# 400 tries, 50 ms apart; and never past two minutes, however long
	# each try blocks (a D-Bus call to a server that does not answer)
	for ((i = 0; i < 400 && SECONDS < end; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	echo "never came true: $*" >&2
	return 1
}

# archive_quiet JOURNAL: waits until no compressor handed on by a writer
# is at the journal's archive segments (each holds a shared flock(2) on
# the folder while it works: arc-journal(5)).
archive_quiet() {
	flock "$(dirname "$1")" true
}

# on_tty INPUT COMMAND: runs COMMAND with a terminal on both ends (script(1)),
# INPUT typed into it; the terminal's output in $output.
on_tty() {
	run bash -c 'printf "$1" | script -qec "$2" /dev/null' _ "$1" "$2"
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

# ---- events for arc-apply, arc-answer and arc-wait ----
# Every builder prints one event on one line; ids are fresh on each call.
fresh() { echo "evt_${SRANDOM}${SRANDOM}"; }

# created KEY [JQ]: a permission question (allow/deny) under KEY.
# (One jq, or two with a filter: the suite makes some thousands.)
created() {
	if [ -n "${2:-}" ]; then created "$1" | jq -c "$2"; return; fi
	jq -nc --arg id "$(fresh)" --arg key "$1" '{arc_version:"0.2",
	    event_id:$id, event_type:"request.created",
	    occurred_at:"2026-08-26T01:15:00Z",
	    sender:{id:"codex", name:"Codex"},
	    context:{session_id:"s-1", cwd:"/work/agent-notify"},
	    request:{key:$key, kind:"permission", message:"May I deploy?",
	      response:{kind:"permission", choices:[{id:"allow", label:"Allow"},
	        {id:"deny", label:"Deny", detail:"Stops here"}],
	      expires_at:"2026-08-26T02:00:00Z"}}}'
}

# created_keys PREFIX N: N such questions, under PREFIX1 .. PREFIXN
created_keys() {
	created "${1}0" | jq -c --arg p "$1" --argjson n "$2" \
	    '. as $e | range(1; $n + 1) | . as $i |
	     $e | .event_id += "_\($i)" | .request.key = "\($p)\($i)"'
}

# text_question KEY [MAX]: a text question under KEY.
text_question() {
	created "$1" ".request.kind = \"question\" | .request.response =
	    {kind:\"text\", text_max_length:${2:-10},
	     expires_at:\"2026-08-26T02:00:00Z\"}"
}

# information KEY: a one-way request under KEY ("" for keyless).
information() {
	created "$1" 'del(.request.response) | .request.kind = "information"'
}

# updated KEY [JQ]
updated() {
	jq -nc --arg id "$(fresh)" --arg key "$1" '{arc_version:"0.2",
	    event_id:$id, event_type:"request.updated",
	    occurred_at:"2026-08-26T01:17:00Z", sender:{id:"codex", name:"Codex"},
	    request:{key:$key, kind:"permission", message:"May I deploy?"}}' |
	    jq -c "${2:-.}"
}

# resolved KEY [OUTCOME]
resolved() {
	jq -nc --arg id "$(fresh)" --arg key "$1" --arg o "${2:-}" '{arc_version:"0.2",
	    event_id:$id, event_type:"request.resolved",
	    occurred_at:"2026-08-26T01:20:00Z", sender:{id:"codex"},
	    request:({key:$key} + if $o == "" then {} else {outcome:$o} end)}'
}

# answer KEY RESULT_LINE CHOICE [JQ]: answers the question a result line
# showed, echoing its digest and nonce.
answer() {
	jq -c --arg id "$(fresh)" --arg key "$1" --arg choice "$3" '{arc_version:"0.2",
	    event_id:$id, event_type:"response.submitted",
	    occurred_at:"2026-08-26T01:19:00Z", sender:{id:"tester"},
	    request:{key:$key},
	    response:{response_id:("r-" + $id), digest:.interaction.digest,
	      nonce:.interaction.nonce, choice_id:$choice, source:"cli"}}' <<<"$2" |
	    jq -c "${4:-.}"
}

# apply: arc-apply on standard input, at a fixed time.
apply() {
	ARC_NOW="${ARC_NOW:-2026-08-26T01:16:00Z}" arc-apply "$@"
}

# field JQ [TEXT]: one value from the last result (or TEXT).
field() {
	jq -r "$1" <<<"${2:-$output}"
}

# Damages the journal's first record so that a later one proves it was
# acknowledged: every command must refuse the journal (exit 3).  Needs at
# least two records.
damage_journal() {
	sed -i '2s/"at":"/"at":"X/' "${1:-$ARC_JOURNAL}"
}
