#!/usr/bin/env bats
# The journal's integrity (issue 9): files that are not ours are never
# damaged, neighbours are kept out, damage is detected, time never runs
# backwards, and nothing is acted on before it is durable.  Observed
# through the commands only, never through the journal's record layout.
# The exhaustive bit-flip and power-loss runs are in t/slow/.
load helper

setup_file() {
	local w="-std=c11 -Wall -Wextra -Wpedantic -Werror -D_GNU_SOURCE -O2"
	export SHIM="$BATS_FILE_TMPDIR/shim.so" FLIP="$BATS_FILE_TMPDIR/flip"
	cc $w -fPIC -shared -o "$SHIM" "$BATS_TEST_DIRNAME/powerloss/shim.c" -ldl
	cc $w -o "$FLIP" "$BATS_TEST_DIRNAME/powerloss/flip.c"
}

T0=2026-08-26T01:16:00Z

# fingerprint FILE: what must not change: type, mode, owner, bytes
fingerprint() {
	stat -c '%F %a %U' "$1"
	if [ -L "$1" ]; then readlink "$1"; else sha256sum <"$1"; fi
}

# refuses FILE [PATTERN]: every command refuses the journal FILE with exit
# 3 and a message (matching PATTERN), prints no result, and leaves FILE
# (and whatever it points to) as it was.
refuses() {
	local j=$1 pat=${2:-} before c target=
	[ -L "$j" ] && target=$(readlink -f "$j")
	before=$(fingerprint "$j"; [ -z "$target" ] || fingerprint "$target")
	for c in reader json list writer event compact answer wait; do
		case $c in
		reader)	run --separate-stderr timeout 10 arc-status -j "$j" ;;
		json)	run --separate-stderr timeout 10 arc-status -j "$j" --json ;;
		list)	run --separate-stderr timeout 10 arc-status -j "$j" --list ;;
		writer)	run --separate-stderr timeout 10 arc-apply -j "$j" </dev/null ;;
		event)	run --separate-stderr timeout 10 arc-apply -j "$j" <<<"$(created k)" ;;
		compact) run --separate-stderr timeout 10 arc-apply -j "$j" --compact ;;
		answer)	run --separate-stderr timeout 10 arc-answer -j "$j" k allow ;;
		wait)	run --separate-stderr timeout 10 arc-wait -j "$j" -t 1 k ;;
		esac
		[ "$status" -eq 3 ] ||
		    { echo "$c: exit $status, want 3: $stderr"; return 1; }
		# (a status bar may say it cannot read the journal)
		[ -z "$output" ] || [ $c = reader ] || { echo "$c printed: $output"; return 1; }
		[ -n "$stderr" ] || { echo "$c: refused without a word"; return 1; }
		[ -z "$pat" ] || [[ "$stderr" == *$pat* ]] ||
		    { echo "$c: want '$pat' in: $stderr"; return 1; }
		[ "$(fingerprint "$j"; [ -z "$target" ] || fingerprint "$target")" = "$before" ] ||
		    { echo "$c changed $j"; return 1; }
	done
}

# journal FILE: a real journal at FILE, one question under k
journal() {
	mkdir -p "$(dirname "$1")"
	apply -j "$1" <<<"$(created k)" >/dev/null
}

@test "a file without a newline or the header (a token) is refused, byte for byte" {
	mkdir -p "$BATS_TEST_TMPDIR/d"
	printf 'ghp_token' >"$BATS_TEST_TMPDIR/d/f"
	chmod 600 "$BATS_TEST_TMPDIR/d/f"
	run --separate-stderr arc-apply -j "$BATS_TEST_TMPDIR/d/f" </dev/null
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"not an arc journal"* ]]
	[ "$(cat "$BATS_TEST_TMPDIR/d/f")" = ghp_token ]
	refuses "$BATS_TEST_TMPDIR/d/f" "not an arc journal"
}

@test "foreign files, large or in lines, are refused, byte for byte" {
	local f="$BATS_TEST_TMPDIR/d/big"
	mkdir -p "$BATS_TEST_TMPDIR/d"
	head -c 4000000 /dev/urandom | tr -d '\n' >"$f"
	chmod 600 "$f"
	refuses "$f" "not an arc journal"
	printf '#!/bin/sh\necho hello\n' >"$BATS_TEST_TMPDIR/d/script"
	chmod 600 "$BATS_TEST_TMPDIR/d/script"
	refuses "$BATS_TEST_TMPDIR/d/script" "not an arc journal"
	printf '{"arc_journal":1}x\n{}\n' >"$BATS_TEST_TMPDIR/d/almost"
	chmod 600 "$BATS_TEST_TMPDIR/d/almost"
	refuses "$BATS_TEST_TMPDIR/d/almost" "not an arc journal"
}

@test "an empty file is a journal never written: it is used" {
	mkdir -p "$BATS_TEST_TMPDIR/d"
	: >"$BATS_TEST_TMPDIR/d/j"
	chmod 600 "$BATS_TEST_TMPDIR/d/j"
	run --separate-stderr apply -j "$BATS_TEST_TMPDIR/d/j" <<<"$(created k)"
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 201 ]
}

@test "a journal path that is a symbolic link is refused; the file it names is unchanged" {
	journal "$BATS_TEST_TMPDIR/real/journal"
	mkdir -p "$BATS_TEST_TMPDIR/d"
	ln -s "$BATS_TEST_TMPDIR/real/journal" "$BATS_TEST_TMPDIR/d/journal"
	refuses "$BATS_TEST_TMPDIR/d/journal"
	printf 'ghp_token' >"$BATS_TEST_TMPDIR/token"
	ln -s "$BATS_TEST_TMPDIR/token" "$BATS_TEST_TMPDIR/d/tokenlink"
	refuses "$BATS_TEST_TMPDIR/d/tokenlink"
	[ "$(cat "$BATS_TEST_TMPDIR/token")" = ghp_token ]
	# a dangling link is not followed to create a file either
	ln -s "$BATS_TEST_TMPDIR/nowhere" "$BATS_TEST_TMPDIR/d/dangling"
	run --separate-stderr apply -j "$BATS_TEST_TMPDIR/d/dangling" <<<"$(created k)"
	[ "$status" -eq 3 ]
	[ ! -e "$BATS_TEST_TMPDIR/nowhere" ]
}

@test "a journal another user owns is refused (root is not exempt), byte for byte" {
	journal "$ARC_JOURNAL"
	chown nobody "$ARC_JOURNAL"
	refuses "$ARC_JOURNAL"
	[ "$(stat -c %U "$ARC_JOURNAL")" = nobody ]
}

@test "a journal that group or others may write is refused, byte for byte" {
	journal "$ARC_JOURNAL"
	local m
	for m in 666 606 620 660; do
		chmod "$m" "$ARC_JOURNAL"
		refuses "$ARC_JOURNAL" || { echo "mode $m"; return 1; }
	done
	chmod 600 "$ARC_JOURNAL"
	run --separate-stderr arc-status -j "$ARC_JOURNAL" --json
	[ "$status" -eq 0 ]
}

@test "a journal in a folder others may write is refused; none is created there" {
	journal "$ARC_JOURNAL"
	chmod 757 "$(dirname "$ARC_JOURNAL")"
	refuses "$ARC_JOURNAL"
	mkdir "$BATS_TEST_TMPDIR/open"
	chmod 777 "$BATS_TEST_TMPDIR/open"
	run --separate-stderr apply -j "$BATS_TEST_TMPDIR/open/journal" <<<"$(created k)"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/open")" ]
}

@test "a compaction killed before its rename leaves a temporary that the next writer or compaction removes" {
	{ created q; information n; } | apply >/dev/null
	local dir; dir=$(dirname "$ARC_JOURNAL")
	local sum rc=0 tmp
	sum=$(sha256sum <"$ARC_JOURNAL")
	PL_KILL=rename PL_LOG="$BATS_TEST_TMPDIR/log" PL_ROOT="$dir" LD_PRELOAD="$SHIM" \
	    ARC_NOW=$T0 "$ARC_BIN/arc-apply" --compact 2>/dev/null || rc=$?
	[ "$rc" -eq 137 ]
	# killed before the rename: the journal is as it was; the file it was
	# about to rename over it is left behind
	[ "$(sha256sum <"$ARC_JOURNAL")" = "$sum" ]
	tmp=$(awk -F'\t' '$1 == "try-rename" { f = $3 } END { print f }' "$BATS_TEST_TMPDIR/log")
	[ -f "$tmp" ]
	run --separate-stderr apply </dev/null
	[ "$status" -eq 0 ]
	ARC_NOW=$T0 run --separate-stderr arc-apply --compact
	[ "$status" -eq 0 ]
	[ ! -e "$tmp" ]
	[ "$(ARC_NOW=$T0 arc-status --list | cut -f1 | sort | tr '\n' ' ')" = "n q " ]
}

@test "time never runs backwards: an earlier ARC_NOW records the journal's latest time" {
	local late=2026-08-26T01:50:00Z early=2026-08-26T01:10:00Z q
	q=$(ARC_NOW=$late apply <<<"$(created a)")
	[ "$(field .notification.created_at "$q")" = $late ]
	ARC_NOW=$early run --separate-stderr arc-apply <<<"$(updated a)"
	[ "$(field .notification.updated_at)" = $late ]
	ARC_NOW=$early run --separate-stderr arc-apply <<<"$(information b)"
	[ "$(field .notification.created_at)" = $late ]
	[ "$(field .notification.updated_at)" = $late ]
	q=$(ARC_NOW=$early apply <<<"$(created c)")
	ARC_NOW=$early run --separate-stderr arc-answer c allow
	[ "$status" -eq 0 ]
	[ "$(field .interaction.answered_at)" = $late ]
	[ "$(field .interaction.response.accepted_at)" = $late ]
	# and after a compaction, the journal still knows its latest time
	ARC_NOW=$early arc-apply --compact
	ARC_NOW=$early run --separate-stderr arc-apply <<<"$(information d)"
	[ "$(field .notification.created_at)" = $late ]
}

@test "the first and the last instants (years 0000 and 9999) are handled, not an internal error" {
	local t j c
	for t in 0000-01-01T00:00:00Z 9999-12-31T23:59:59Z; do
		j="$BATS_TEST_TMPDIR/$t/journal"
		for c in apply status json list answer wait compact emit; do
			case $c in
			apply)	ARC_NOW=$t run --separate-stderr arc-apply -j "$j" <<<"$(created q; information n)" ;;
			status)	ARC_NOW=$t run --separate-stderr arc-status -j "$j" ;;
			json)	ARC_NOW=$t run --separate-stderr arc-status -j "$j" --json ;;
			list)	ARC_NOW=$t run --separate-stderr arc-status -j "$j" --list ;;
			answer)	ARC_NOW=$t run --separate-stderr arc-answer -j "$j" q allow ;;
			wait)	ARC_NOW=$t run --separate-stderr timeout 10 arc-wait -j "$j" -t 1 q ;;
			compact) ARC_NOW=$t run --separate-stderr arc-apply -j "$j" --compact ;;
			emit)	ARC_NOW=$t run --separate-stderr arc-emit --key e --message m --choice a:A --expires-in 1h ;;
			esac
			[[ "$stderr" != *"internal error"* ]] || { echo "$t $c: $stderr"; return 1; }
			# a verdict (0, 1, or a clear usage error for emit), never a failure
			[ "$status" -le 1 ] || [ "$c" = wait -a "$status" -eq 124 ] ||
			    [ "$c" = emit -a "$status" -eq 2 ] ||
			    { echo "$t $c: exit $status: $stderr"; return 1; }
		done
		ARC_NOW=$t run --separate-stderr arc-status -j "$j" --json
		[ "$(field .active)" -ge 1 ] || { echo "$t: $output"; return 1; }
	done
	# the last instant, then the first: the journal's time stays the last
	j="$BATS_TEST_TMPDIR/9999-12-31T23:59:59Z/journal"
	ARC_NOW=0000-01-01T00:00:00Z run --separate-stderr arc-apply -j "$j" <<<"$(information m)"
	[ "$status" -eq 0 ]
	[ "$(field .notification.created_at)" = 9999-12-31T23:59:59Z ]
}

# synced_before_output LOG FILE: in the shim's LOG, FILE (by inode) was
# synced (or everything was) before anything reached standard output.
synced_before_output() {
	local ino; ino=$(stat -c %i "$2")
	awk -F'\t' -v ino="$ino" '
	    ($1 == "fsync" || $1 == "fdatasync") && $3 == ino && !out { synced = 1 }
	    $1 == "syncall" && !out { synced = 1 }
	    $1 == "out" { out = 1 }
	    END { exit !(synced || !out) }' "$1"
}

# killed_unsynced CMD...: runs CMD under the shim, SIGKILLed at its first
# sync of what it wrote; the journal must have grown (it wrote, unsynced).
killed_unsynced() {
	local size rc=0
	size=$(stat -c %s "$ARC_JOURNAL")
	PL_KILL=unsynced PL_LOG="$BATS_TEST_TMPDIR/killed.log" PL_ROOT="$(dirname "$ARC_JOURNAL")" \
	    LD_PRELOAD="$SHIM" ARC_NOW=$T0 "$@" >"$BATS_TEST_TMPDIR/killed.out" 2>/dev/null || rc=$?
	[ "$rc" -eq 137 ] || { echo "not killed: exit $rc"; return 1; }
	[ ! -s "$BATS_TEST_TMPDIR/killed.out" ] || { echo "acknowledged before its sync"; return 1; }
	[ "$(stat -c %s "$ARC_JOURNAL")" -gt "$size" ] || { echo "nothing written"; return 1; }
}

# logged NAME CMD...: runs CMD under the recording shim, its log in
# NAME.log; the files recorded are those under $ROOT (default: the
# journal's folder).
logged() {
	local name=$1; shift
	PL_LOG="$BATS_TEST_TMPDIR/$name.log" PL_ROOT="${ROOT:-$(dirname "$ARC_JOURNAL")}" \
	    LD_PRELOAD="$SHIM" ARC_NOW=$T0 "$@"
}

@test "an answer killed before its fdatasync: whoever reads it next acts on it only once it has synced it" {
	local first
	for first in status wait retry; do
		ARC_JOURNAL="$BATS_TEST_TMPDIR/$first/journal"
		apply <<<"$(created deploy)" >/dev/null
		killed_unsynced "$ARC_BIN/arc-answer" deploy allow
		case $first in
		status)	# a reader that counts the answer has synced it
			run --separate-stderr logged $first "$ARC_BIN/arc-status" --json
			[ "$status" -eq 0 ]
			[ "$(field .pending)" -eq 1 ] ||
			    synced_before_output "$BATS_TEST_TMPDIR/$first.log" "$ARC_JOURNAL" ;;
		wait)	# a waiter sees no answer, or sees it once durable
			run --separate-stderr logged $first timeout 10 "$ARC_BIN/arc-wait" -t 1 deploy
			[ "$status" -eq 124 ] || [ "$status" -eq 0 ]
			[ "$status" -eq 124 ] || {
				[ "$(field .response.choice_id)" = allow ]
				synced_before_output "$BATS_TEST_TMPDIR/$first.log" "$ARC_JOURNAL"; } ;;
		retry)	# a second answer loses to the first only once it is durable
			run --separate-stderr logged $first "$ARC_BIN/arc-answer" deploy deny
			[ "$status" -eq 0 ] || [ "$status" -eq 1 ]
			[ "$status" -eq 0 ] || {
				[ "$(field .error.code)" = conflict ]
				synced_before_output "$BATS_TEST_TMPDIR/$first.log" "$ARC_JOURNAL"; } ;;
		esac
	done
}

@test "an event retried after a kill before its fdatasync is reported replayed only once durable" {
	apply <<<"$(information first)" >/dev/null
	local ev; ev=$(created deploy)
	killed_unsynced "$ARC_BIN/arc-apply" <<<"$ev"
	run --separate-stderr logged replay "$ARC_BIN/arc-apply" <<<"$ev"
	[ "$status" -eq 0 ]
	# the record is there (a kill keeps the page cache): a replay, once synced
	[ "$(field .replayed)" = true ]
	synced_before_output "$BATS_TEST_TMPDIR/replay.log" "$ARC_JOURNAL"
}

@test "a failed sync is not retried: exit 3, nothing acknowledged, the journal still opens" {
	apply <<<"$(information first)" >/dev/null
	local rc=0 ino; ino=$(stat -c %i "$ARC_JOURNAL")
	PL_FAIL=sync PL_LOG="$BATS_TEST_TMPDIR/log" PL_ROOT="$(dirname "$ARC_JOURNAL")" \
	    LD_PRELOAD="$SHIM" ARC_NOW=$T0 "$ARC_BIN/arc-apply" <<<"$(created deploy)" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
	[ "$rc" -eq 3 ]
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	[ -s "$BATS_TEST_TMPDIR/err" ]
	# no sync of the journal succeeds after the failed one (fsyncgate)
	[ "$(awk -F'\t' -v i="$ino" '$1 ~ /sync$/ && $3 == i' "$BATS_TEST_TMPDIR/log" | wc -l)" -eq 0 ]
	run --separate-stderr arc-status --json
	[ "$status" -eq 0 ]
}

@test "new folders are synced into their parents before anything is acknowledged" {
	local top="$BATS_TEST_TMPDIR/top"
	mkdir "$top"
	ARC_JOURNAL="$top/a/b/journal"
	ROOT=$top run --separate-stderr logged new "$ARC_BIN/arc-apply" -j "$ARC_JOURNAL" <<<"$(created k)"
	[ "$status" -eq 0 ]
	# each folder made, and the journal, synced into its parent after it
	# was made and before the result was printed
	local d
	for d in "$top/a" "$top/a/b" "$top/a/b/journal"; do
		awk -F'\t' -v ino="$(stat -c %i "$(dirname "$d")")" -v made="$d" '
		    ($1 ~ /^(mkdir|link|rename)$/ && $4 == made) ||
		    ($1 == "open" && $8 == made && $6 == 1) { m = 1 }
		    (($1 ~ /sync$/ && $3 == ino) || $1 == "syncall") && m && !out { ok = 1 }
		    $1 == "out" { out = 1 }
		    END { exit !ok }' "$BATS_TEST_TMPDIR/new.log" ||
		    { echo "$d: not synced into its folder before the result"; cut -c1-80 "$BATS_TEST_TMPDIR/new.log"; return 1; }
	done
}

# size_of FILE: its size in bytes
size_of() { stat -c %s "$1"; }

@test "power loss mid-batch: zeroed pages, even before a complete line, are a damaged tail, cut with a warning" {
	apply <<<"$(created q)" >/dev/null
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/j0"
	local n0; n0=$(size_of "$ARC_JOURNAL")
	{ information a; information b; information c; } >"$BATS_TEST_TMPDIR/batch"
	apply <"$BATS_TEST_TMPDIR/batch" >/dev/null
	# the batch's bytes, with its first line zeroed (its page never written)
	tail -c +$((n0 + 1)) "$ARC_JOURNAL" >"$BATS_TEST_TMPDIR/added"
	local first; first=$(head -1 "$BATS_TEST_TMPDIR/added" | wc -c)
	{ cat "$BATS_TEST_TMPDIR/j0"; head -c "$first" /dev/zero; tail -c +$((first + 1)) "$BATS_TEST_TMPDIR/added"; } >"$ARC_JOURNAL"
	run --separate-stderr apply </dev/null
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"byte $n0"* ]]
	cmp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/j0"
	# none of the batch was acknowledged: re-sending applies it anew
	run --separate-stderr apply <"$BATS_TEST_TMPDIR/batch"
	[ "$(jq -s 'map(select(.status == 201 and .replayed != true)) | length' <<<"$output")" -eq 3 ]
	# a tail of zeros alone (the size persisted, the data not)
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/j1"
	head -c 4096 /dev/zero >>"$ARC_JOURNAL"
	run --separate-stderr apply </dev/null
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"byte $(size_of "$BATS_TEST_TMPDIR/j1")"* ]]
	cmp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/j1"
}

@test "a version-1 journal is read and upgraded, not refused; what it remembers stands" {
	mkdir -p "$(dirname "$ARC_JOURNAL")"
	cp "$FIXTURES/fuzz/fuzz_journal/five-kinds-v1" "$ARC_JOURNAL"
	chmod 600 "$ARC_JOURNAL"
	ARC_NOW=2026-08-26T01:30:00Z run --separate-stderr arc-wait -t 1 deploy
	[ "$status" -eq 0 ]
	[ "$(field .response.choice_id)" = allow ]
	ARC_NOW=2026-08-26T01:30:00Z run --separate-stderr arc-apply <<<"$(information x)"
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 201 ]
	# the answer is remembered: its retry is a replay, another answer loses
	ARC_NOW=2026-08-26T01:30:00Z run --separate-stderr arc-answer --response-id r-1 deploy allow
	[ "$status" -eq 0 ]
	[ "$(field .replayed)" = true ]
	ARC_NOW=2026-08-26T01:30:00Z run --separate-stderr arc-answer --response-id r-2 deploy deny
	[ "$status" -eq 1 ]
	ARC_NOW=2026-08-26T01:30:00Z run --separate-stderr arc-status --json
	[ "$status" -eq 0 ]
	[ "$(field .active)" -eq 1 ]
}

# five_kinds FILE: a journal holding a question, an update, an answer, a
# notice and a resolution, at fixed times
five_kinds() {
	"$BATS_TEST_DIRNAME/powerloss/five-kinds" "$1"
}

@test "bit flips (1 bit in 13, and every bit of every newline) in a journal of five kinds of record: each detected or harmless; deleted records detected" {
	five_kinds "$BATS_TEST_TMPDIR/j/journal"
	mkdir "$BATS_TEST_TMPDIR/work"
	ARC_NOW=2026-08-26T01:30:00Z run "$FLIP" -s 13 "$BATS_TEST_TMPDIR/j/journal" "$BATS_TEST_TMPDIR/work"
	echo "$output"
	grep '^flip: [0-9]' <<<"$output" | sed 's/^/# /' >&3
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 undetected"* ]]
	[[ "$output" == *" 0 not"* ]]
}

@test "deleting any record but the last: refused, and no second, different answer can win" {
	five_kinds "$ARC_JOURNAL"
	local n i; n=$(wc -l <"$ARC_JOURNAL")
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/whole"
	for i in $(seq 2 $((n - 1))); do
		sed "${i}d" "$BATS_TEST_TMPDIR/whole" >"$ARC_JOURNAL"
		ARC_NOW=2026-08-26T01:21:00Z run --separate-stderr arc-answer --response-id r-2 deploy deny
		[ "$status" -eq 3 ] || { echo "line $i deleted: exit $status: $output"; return 1; }
		[[ "$stderr" =~ byte\ [0-9]+ ]] || { echo "line $i: $stderr"; return 1; }
	done
}

@test "--salvage copies the readable records of a damaged journal to a new one; the old is untouched" {
	run arc-apply --help
	[[ "$output" == *--salvage* ]]
	local i
	for i in a b c d; do apply <<<"$(information "$i")" >/dev/null; done
	# damage the second record: one byte in the middle of its line
	local at len
	at=$(head -2 "$ARC_JOURNAL" | wc -c)
	len=$(sed -n 3p "$ARC_JOURNAL" | wc -c)
	printf '\001' | dd of="$ARC_JOURNAL" bs=1 seek=$((at + len / 2)) conv=notrunc status=none
	run --separate-stderr arc-status --json
	[ "$status" -eq 3 ]
	local sum; sum=$(sha256sum <"$ARC_JOURNAL")
	run --separate-stderr arc-apply -j "$ARC_JOURNAL" --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -le 1 ]
	[[ "$stderr" == *"byte $at"* ]]
	[ "$(sha256sum <"$ARC_JOURNAL")" = "$sum" ]
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/new")" = 600 ]
	ARC_NOW=$T0 run --separate-stderr arc-status -j "$BATS_TEST_TMPDIR/new" --list
	[ "$status" -eq 0 ]
	[ "$(cut -f1 <<<"$output" | sort | tr '\n' ' ')" = "a c d " ]
	run --separate-stderr apply -j "$BATS_TEST_TMPDIR/new" <<<"$(information e)"
	[ "$status" -eq 0 ]
	# it never writes over an existing file
	run --separate-stderr arc-apply -j "$ARC_JOURNAL" --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -ne 0 ]
	ARC_NOW=$T0 run arc-status -j "$BATS_TEST_TMPDIR/new" --list
	[ "$(cut -f1 <<<"$output" | sort | tr '\n' ' ')" = "a c d e " ]
}
