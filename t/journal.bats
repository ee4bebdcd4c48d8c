#!/usr/bin/env bats
# The journal's rules (arc-journal(5)), each tested once, under the names
# of the page's sections: Records, Replay, Checkpoint, Concurrency,
# Durability, Recovery, Who may use a journal, Compaction.  Observed
# through the commands, and for durability through an LD_PRELOAD shim
# that records (and kills at) writes, syncs and renames
# (t/powerloss/shim.c).  The exhaustive bit-flip and power-loss runs are
# in t/slow/.
load helper

# built by make test-helpers (t/run-tests, make check)
SHIM="$BATS_TEST_DIRNAME/powerloss/shim.so"
FLIP="$BATS_TEST_DIRNAME/powerloss/flip"

setup_file() {
	[ -f "$SHIM" ] && [ -x "$FLIP" ] || { echo "no $SHIM or $FLIP: make test-helpers"; false; }
}

T0=2026-08-26T01:16:00Z
LATER=2026-09-10T00:00:00Z	# past the 7-day retention of what T0 settled

# crc_ok FILE: every line's CRC-32C holds, as Debian's python3-crc32c (an
# implementation that is not ours) computes it.
crc_ok() {
	/usr/bin/python3 -c 'import sys, crc32c
for n, l in enumerate(open(sys.argv[1], "rb"), 1):
    body, crc = l.rstrip(b"\n").rsplit(b",\"crc\":\"", 1)
    assert crc[8:] == b"\"}", n
    assert int(crc[:8], 16) == crc32c.crc32c(body), n
print("ok")' "$1"
}

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

# ---- Records ----

@test "every record, the header too, carries the CRC-32C of its bytes, as python3-crc32c computes it" {
	local q; q=$(apply <<<"$(created a)")
	{ updated a; answer a "$(apply <<<"$(updated a)")" allow; information n; resolved n; } |
	    apply >/dev/null 2>&1 || true
	[ "$(wc -l <"$ARC_JOURNAL")" -ge 5 ]
	run crc_ok "$ARC_JOURNAL"
	[ "$output" = ok ]
}

@test "a long batch is written ahead of its sync, a quarter of a MiB at a time: the file larger than a process may write cuts back to where the batch began, and nothing of it is acknowledged" {
	"$BATS_TEST_DIRNAME/../bench/gen-events" 2000 >"$BATS_TEST_TMPDIR/stream"
	head -n 5 "$BATS_TEST_TMPDIR/stream" >"$BATS_TEST_TMPDIR/first"
	tail -n +6 "$BATS_TEST_TMPDIR/stream" >"$BATS_TEST_TMPDIR/rest"
	arc-apply -q -j "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/first" >/dev/null
	local size; size=$(stat -c %s "$ARC_JOURNAL")
	arc-status -j "$ARC_JOURNAL" --list >"$BATS_TEST_TMPDIR/before"
	# 1,995 events in one batch, some 2.6 MB of records, past a 1 MiB
	# limit on the file (EFBIG, the signal ignored)
	run --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 1024; exec arc-apply -j "$1" "$2"' sh "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/rest"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"cannot store records: File too large"* ]]
	[ -z "$output" ]
	[ "$(stat -c %s "$ARC_JOURNAL")" -eq "$size" ]
	arc-status -j "$ARC_JOURNAL" --list >"$BATS_TEST_TMPDIR/after"
	cmp "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	# without the limit the same batch is stored whole, and reads back;
	# its pieces went to the disk before its one sync
	# (the command itself, not make check's wrapper around it)
	run strace -qq -o "$BATS_TEST_TMPDIR/trace" -e trace=sync_file_range,fdatasync \
	    "$ARC_BIN/arc-apply" -j "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/rest"
	[ "$status" -eq 0 ]
	# (a sync of what it read may come first: the cut above changed the
	# file since its writer marked it durable, arc-journal(5); and the
	# compaction the batch triggers hands on its own file after it)
	[ "$(awk '/^sync_file_range\(/ { n++ } /^fdatasync\(/ { at = n } END { print at + 0 }' "$BATS_TEST_TMPDIR/trace")" -ge 8 ]
	[ "${#lines[@]}" -eq 1995 ]
	[ "$(jq -s 'map(select(.status < 300)) | length' <<<"$output")" -eq 1995 ]
	run arc-apply -j "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/stream"
	[ "$(jq -s 'map(select(.replayed)) | length' <<<"$output")" -eq 2000 ]
}

@test "seq grows by one from the header's, and durable names a record before" {
	{ created a; created b; information c; } >"$BATS_TEST_TMPDIR/three"
	apply "$BATS_TEST_TMPDIR/three" >/dev/null	# one batch, one sync
	apply <<<"$(created d)" >/dev/null
	[ "$(jq -s 'map(.seq)' "$ARC_JOURNAL" | jq -c .)" = '[0,1,2,3,4]' ]
	[ "$(tail -n +2 "$ARC_JOURNAL" | jq -s 'map(.durable)' | jq -c .)" = '[0,0,0,3]' ]
}

@test "journal: append-only NDJSON that jq reads, one record per accepted change" {
	{ created a; created b; resolved a; updated zzz; } | apply >/dev/null 2>&1 || true
	[ "$(head -1 "$ARC_JOURNAL" | jq -c '{arc_journal, seq}')" = '{"arc_journal":2,"seq":0}' ]
	[ "$(tail -n +2 "$ARC_JOURNAL" | jq -sc 'map(.event.type)')" = '["request.created","request.created","request.resolved"]' ]
	[ "$(tail -n +2 "$ARC_JOURNAL" | jq -sc 'map(.seq)')" = '[1,2,3]' ]
}

@test "recorded time never runs backwards: an earlier clock records the journal's latest time, in results and in records, across a compaction" {
	local late=2026-08-26T01:50:00Z early=2026-08-26T01:10:00Z q
	q=$(ARC_NOW=$late apply <<<"$(created a)")
	[ "$(field .notification.created_at "$q")" = $late ]
	ARC_NOW=$early run --separate-stderr arc-apply <<<"$(updated a)"
	[ "$(field .notification.updated_at)" = $late ]
	ARC_NOW=$early run --separate-stderr arc-apply <<<"$(information b)"
	[ "$(field .notification.created_at)" = $late ]
	[ "$(field .notification.updated_at)" = $late ]
	[ "$(tail -1 "$ARC_JOURNAL" | jq -r .at)" = $late ]
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

@test "a record from a clock far ahead: later changes are recorded at its time, but deadlines follow the clock" {
	ARC_NOW=2099-01-01T00:00:00Z arc-apply <<<"$(information ahead)" >/dev/null
	run --separate-stderr apply <<<"$(created q)"
	[ "$(field .interaction.status)" = pending ]
	[ "$(field .notification.created_at)" = 2099-01-01T00:00:00Z ]
	ARC_NOW=$T0 run --separate-stderr arc-answer --json q allow
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 200 ]
	# and a compaction by the clock keeps what the clock says is live
	ARC_NOW=$T0 arc-apply --compact
	[ "$(jq -r '.notification.key // empty' "$ARC_JOURNAL" | sort | tr '\n' ' ')" = "ahead q " ]
}

@test "the first and the last instants (years 0000 and 9999) are handled, not an internal error" {
	local t j c
	for t in 0000-01-01T00:00:00Z 9999-12-31T23:59:59Z; do
		j="$BATS_TEST_TMPDIR/$t/journal"
		mkdir -m 700 "${j%/journal}"
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
	# the first instant, then the last, in one journal
	run --separate-stderr env ARC_NOW=0000-01-01T00:00:00Z arc-apply <<<"$(information a)"
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 201 ]
	run --separate-stderr env ARC_NOW=9999-12-31T23:59:59Z arc-apply <<<"$(information b)"
	[ "$status" -eq 0 ]
	[ "$(field .notification.created_at)" = 9999-12-31T23:59:59Z ]
	run --separate-stderr env ARC_NOW=9999-12-31T23:59:59Z arc-status --json
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"internal error"* ]]
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

@test "foreign files, large, in lines or JSON, are refused, byte for byte" {
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
	mkdir -p "$(dirname "$ARC_JOURNAL")"
	echo '{"some":"json"}' >"$ARC_JOURNAL.other"
	refuses "$ARC_JOURNAL.other" "not an arc journal"
}

@test "an empty file is a journal never written: it is used" {
	mkdir -p "$BATS_TEST_TMPDIR/d"
	: >"$BATS_TEST_TMPDIR/d/j"
	chmod 600 "$BATS_TEST_TMPDIR/d/j"
	run --separate-stderr apply -j "$BATS_TEST_TMPDIR/d/j" <<<"$(created k)"
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 201 ]
}

@test "a version 1 journal is read as it is, then upgraded by the first writer; what it remembers stands" {
	mkdir -p "${ARC_JOURNAL%/*}"
	cp "$FIXTURES/fuzz/fuzz_journal/five-kinds-v1" "$ARC_JOURNAL"
	chmod 600 "$ARC_JOURNAL"
	local before; before=$(ARC_NOW=$T0 arc-status --json)
	# read as it is: the answer it holds is seen, and nothing is written
	ARC_NOW=2026-08-26T01:30:00Z run --separate-stderr arc-wait -t 1 deploy
	[ "$status" -eq 0 ]
	[ "$(field .response.choice_id)" = allow ]
	[ "$(head -1 "$ARC_JOURNAL")" = '{"arc_journal":1}' ]
	# the first writer upgrades it; the old file stays as an archive segment
	run --separate-stderr apply <<<"$(information new)"
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 201 ]
	[[ "$stderr" == *"upgrading a version 1 journal"* ]]
	[ "$(head -1 "$ARC_JOURNAL" | jq .arc_journal)" = 2 ]
	run crc_ok "$ARC_JOURNAL"
	[ "$output" = ok ]
	cmp "$FIXTURES/fuzz/fuzz_journal/five-kinds-v1" "$ARC_JOURNAL".history.*
	apply <<<"$(resolved new)" >/dev/null
	[ "$(ARC_NOW=$T0 arc-status --json)" = "$before" ]
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

@test "--compact on a version 1 journal upgrades it once: one segment, the old file as it was" {
	mkdir -p "${ARC_JOURNAL%/*}"
	cp "$FIXTURES/fuzz/fuzz_journal/five-kinds-v1" "$ARC_JOURNAL"
	chmod 600 "$ARC_JOURNAL"
	ARC_NOW=2026-08-26T01:30:00Z run --separate-stderr arc-apply --compact
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"upgrading a version 1 journal"* ]]
	[ "$(ls "$ARC_JOURNAL".history.* | wc -l)" -eq 1 ]
	[ "$( (zstdcat "$ARC_JOURNAL".history.* 2>/dev/null || cat "$ARC_JOURNAL".history.*) | head -1)" = '{"arc_journal":1}' ]
	[ "$(head -1 "$ARC_JOURNAL" | jq .arc_journal)" = 2 ]
}

@test "a writer that goes on after its compaction keeps the journal's time: a record after it is never stamped earlier, checkpoint or not" {
	ARC_NOW=2026-08-26T01:00:00Z apply <<<"$(information a)" >/dev/null
	ARC_CHECKPOINT_FLOOR=1 ARC_NOW=2026-08-26T03:00:00Z arc-apply --compact
	[ "$(jq -r '.at // empty' "$ARC_JOURNAL" | sort -u)" = 2026-08-26T03:00:00Z ]
	[ -s "$ARC_JOURNAL.checkpoint" ]
	cp -a "${ARC_JOURNAL%/*}" "$BATS_TEST_TMPDIR/nock"
	rm "$BATS_TEST_TMPDIR/nock/journal.checkpoint"
	ARC_CHECKPOINT_FLOOR=1 ARC_NOW=2026-08-26T02:00:00Z apply <<<"$(information b)" >/dev/null
	ARC_JOURNAL=$BATS_TEST_TMPDIR/nock/journal ARC_CHECKPOINT_FLOOR=1 ARC_NOW=2026-08-26T02:00:00Z \
	    apply <<<"$(information b)" >/dev/null
	[ "$(tail -1 "$ARC_JOURNAL" | jq -r .at)" = 2026-08-26T03:00:00Z ]
	[ "$(tail -1 "$BATS_TEST_TMPDIR/nock/journal" | jq -r .at)" = 2026-08-26T03:00:00Z ]
}

# ---- Replay ----

@test "the whole state is rebuilt from the journal when a process starts" {
	local q; q=$(apply <<<"$(created deploy)")
	# a second process, knowing nothing but the journal, applies the answer
	run --separate-stderr apply <<<"$(answer deploy "$q" allow)"
	[ "$(field .status)" = 200 ]
	run --separate-stderr apply <<<"$(answer deploy "$q" deny)"
	[ "$(field .error.code)" = conflict ]
}

# ---- Checkpoint ----

# checkpointed_history: conditions of every kind, in one writer (which
# leaves the checkpoint), then two more records after it.
checkpointed_history() {
	export ARC_CHECKPOINT_FLOOR=0	# a checkpoint at any size
	local q i
	{
		for i in 1 2 3 4 5 6; do created "q$i"; information "n$i"; done
		for i in 1 2 3; do updated "q$i" ".request.message = \"again $i\""; done
		resolved n1
		resolved q6 cancelled
	} | apply >"$BATS_TEST_TMPDIR/opened"
	q=$(grep '"key":"q2"' "$BATS_TEST_TMPDIR/opened" | tail -1)
	# too few bytes for a new checkpoint: these stay after it
	export ARC_CHECKPOINT_FLOOR=100000000
	apply <<<"$(answer q2 "$q" allow)" >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z arc-answer --source test --dismiss n2 >/dev/null
	apply <<<"$(information after)" >/dev/null
	export ARC_CHECKPOINT_FLOOR=0
}

# views: what commands show of the journal, every view arc-status has.
views() {
	local k
	ARC_NOW=2026-08-26T01:30:00Z arc-status --list
	ARC_NOW=2026-08-26T01:30:00Z arc-status --json
	ARC_NOW=2026-08-26T01:30:00Z arc-status --history
	for k in q1 q2 q3 q6 n1 n2 n5 after; do
		ARC_NOW=2026-08-26T01:30:00Z arc-status --json --show "$k" ||
		    echo "no $k"
	done
}

# flip_byte FILE OFFSET: one byte changed in place (the file stays the
# same file).
flip_byte() {
	/usr/bin/python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0x20]))' "$1" "$2"
}

# offset_of TEXT: the byte offset of TEXT's first occurrence in the journal.
offset_of() {
	grep -bo -- "$1" "$ARC_JOURNAL" | head -1 | cut -d: -f1
}

@test "a writer keeps a checkpoint of the journal beside it; every view is the same with it and without it" {
	checkpointed_history
	[ -f "$ARC_JOURNAL.checkpoint" ]
	[ "$(stat -c %a "$ARC_JOURNAL.checkpoint")" = 600 ]
	local with without
	with=$(views)
	# the records after it (the answer, the dismissal, "after") are in it
	[[ "$with" == *"n2  dismissed by test"* ]]
	[[ "$with" == *'"choice_id":"allow"'* ]]
	[ "$(ARC_NOW=2026-08-26T01:30:00Z arc-status --json --show after | jq -r .key)" = after ]
	mv "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/aside"
	without=$(views)
	[ "$with" = "$without" ]
	# a reader never writes one
	[ ! -e "$ARC_JOURNAL.checkpoint" ]
}

@test "a command that has the checkpoint replays only the records after it" {
	checkpointed_history
	local size; size=$(wc -c <"$ARC_JOURNAL")
	command -v strace >/dev/null || apt-get install -y -qq strace >/dev/null
	ASAN_OPTIONS=detect_leaks=0 strace -e trace=mmap \
	    -o "$BATS_TEST_TMPDIR/trace" "$ARC_BIN/arc-status" >/dev/null
	# the journal is mapped from the page of the checkpoint's end on
	local len; len=$(grep -E 'PROT_READ, MAP_PRIVATE, [0-9]+, (0x[0-9a-f]+|0)\)' \
	    "$BATS_TEST_TMPDIR/trace" | tail -1 | sed -E 's/^.*mmap\(NULL, ([0-9]+),.*$/\1/')
	[ -n "$len" ]
	[ "$len" -lt "$size" ]
	# and a damaged record it covers, which no condition holds, goes unread
	flip_byte "$ARC_JOURNAL" "$(( $(offset_of '"durable":0') + 3 ))"
	run --separate-stderr arc-status --list
	[ "$status" -eq 0 ]
	rm "$ARC_JOURNAL.checkpoint"
	run --separate-stderr arc-status --list
	[ "$status" -eq 3 ]
}

@test "a record the checkpoint covers is checked when it is used: damaged, it is exit 3 naming its byte" {
	checkpointed_history
	local at; at=$(offset_of '"message":"again 3"')
	flip_byte "$ARC_JOURNAL" $((at + 12))
	# the summary needs no record's text
	run --separate-stderr arc-status
	[ "$status" -eq 0 ]
	run --separate-stderr arc-status --show q3
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"damaged record at byte"* ]]
	[ -z "$output" ]
	# an answer to it is not taken: nothing is written
	local size; size=$(wc -c <"$ARC_JOURNAL")
	run --separate-stderr arc-answer q3 allow
	[ "$status" -eq 3 ]
	[ "$(wc -c <"$ARC_JOURNAL")" = "$size" ]
}

@test "a checkpoint that fails its checksum is ignored and replaced by the next writer" {
	checkpointed_history
	local good; good=$(views)
	flip_byte "$ARC_JOURNAL.checkpoint" 100
	cp "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/flipped"
	[ "$(views)" = "$good" ]
	# cut short, or empty, as a crash can leave it
	head -c 50 "$BATS_TEST_TMPDIR/flipped" >"$ARC_JOURNAL.checkpoint"
	[ "$(views)" = "$good" ]
	: >"$ARC_JOURNAL.checkpoint"
	[ "$(views)" = "$good" ]
	apply <<<"$(information later)" >/dev/null
	[ -s "$ARC_JOURNAL.checkpoint" ]
	! cmp -s "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/flipped" || false
}

# reframe CHECKPOINT KEY FIELD VALUE: sets one byte of KEY's condition in
# the checkpoint (arccheckpoint.c's layout: FIELD priority, or the first
# byte of the deadline, deadline) and writes its CRC-32C again, as
# python3-crc32c computes it: a checkpoint no arc wrote, its checksum whole.
reframe() {
	/usr/bin/python3 - "$@" <<'PY'
import struct, sys
from crc32c import crc32c
path, key, field, value = sys.argv[1], sys.argv[2].encode(), sys.argv[3], int(sys.argv[4])
b = bytearray(open(path, "rb").read())
at = 17 + 7 * 8 + 4
at += 4 + struct.unpack_from("<I", b, at)[0]
count = struct.unpack_from("<Q", b, at)[0]; at += 8
for _ in range(count):
    n = struct.unpack_from("<I", b, at)[0]; k = bytes(b[at + 4:at + 4 + n]); at += 4 + n
    at += 4 + struct.unpack_from("<I", b, at)[0]
    fixed = at + 48
    at = fixed + 3 + 8
    opt = at
    for _ in range(4):
        present = b[at]; at += 1
        if present:
            at += 4 + struct.unpack_from("<I", b, at)[0]
    if k == key:
        if field == "priority":
            b[fixed + 1] = value
        elif b[opt] == 1:
            b[opt + 5] = value
        else:
            sys.exit("no deadline")
        break
else:
    sys.exit("no such key")
struct.pack_into("<I", b, len(b) - 4, crc32c(bytes(b[:-4])))
open(path, "wb").write(bytes(b))
PY
}

@test "a checkpoint whose checksum holds but that arc did not write: a reader of that condition stops (exit 3) and removes it, a writer's results stand, and the next command replays the journal, the view the same" {
	checkpointed_history
	local good; good=$(views)
	cp "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/ours"
	for bad in "priority 9" "deadline 120"; do
		cp "$BATS_TEST_TMPDIR/ours" "$ARC_JOURNAL.checkpoint"
		reframe "$ARC_JOURNAL.checkpoint" q4 $bad
		cp "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/reframed"
		# one that reads q1 alone goes on: the checkpoint is read
		ASAN_OPTIONS=detect_leaks=0 ARC_NOW=2026-08-26T01:30:00Z strace -f -qq \
		    -o "$BATS_TEST_TMPDIR/trace" -e trace=openat \
		    "$ARC_BIN/arc-answer" --emit q1 allow >"$BATS_TEST_TMPDIR/emitted"
		grep -q 'journal.checkpoint"' "$BATS_TEST_TMPDIR/trace"
		[ "$(jq -r .response.choice_id "$BATS_TEST_TMPDIR/emitted")" = allow ]
		cmp "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/reframed"
		run --separate-stderr arc-status --json
		[ "$status" -eq 3 ]
		[ -z "$output" ]
		[[ "$stderr" == *"journal.checkpoint: not as arc writes it (byte "*"though its checksum holds: removed"* ]]
		[ ! -e "$ARC_JOURNAL.checkpoint" ]
		[ "$(views)" = "$good" ]
	done
	# a writer reads it all only once its results are out: they stand
	cp "$BATS_TEST_TMPDIR/ours" "$ARC_JOURNAL.checkpoint"
	reframe "$ARC_JOURNAL.checkpoint" q4 priority 9
	local size; size=$(wc -c <"$ARC_JOURNAL")
	run --separate-stderr apply <<<"$(information unrelated)"
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 201 ]
	[ "$(wc -c <"$ARC_JOURNAL")" -gt "$size" ]
	[[ "$stderr" == *"journal.checkpoint: not as arc writes it (byte "*"removed; what was reported stands"* ]]
	[ ! -e "$ARC_JOURNAL.checkpoint" ]
	! compgen -G "$ARC_JOURNAL.checkpoint.*" || false
	run --separate-stderr arc-status --list
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	grep -q unrelated <<<"$output"
}

@test "a checkpoint cut after it is read, while its state still reads it when asked: exit 3 with a word, never SIGBUS; nothing written, and the next command replays" {
	checkpointed_history
	for i in $(seq 100); do information "page$i"; done | apply >/dev/null
	[ "$(stat -c %s "$ARC_JOURNAL.checkpoint")" -gt 8192 ]
	local good size
	good=$(views)
	size=$(wc -c <"$ARC_JOURNAL")
	updated q4 '.request.message = "late"' >"$BATS_TEST_TMPDIR/event"
	head -c 100 "$ARC_JOURNAL.checkpoint" >"$BATS_TEST_TMPDIR/short"
	# stopped at its first read of the event, the checkpoint mapped by then
	ARC_NOW=2026-08-26T01:16:00Z SHRUNK=$ARC_JOURNAL.checkpoint \
	    STOP_ON=$BATS_TEST_TMPDIR/event STOP_AT=read shrink_under 1 \
	    "$BATS_TEST_TMPDIR/short" "$ARC_BIN/arc-apply" "$BATS_TEST_TMPDIR/event"
	[ "$status" -eq 3 ]
	# (cut: a page it reads is gone; or the page left, its bytes zero)
	[[ "$stderr" == *"journal.checkpoint: cut while it was read; run the command again"* ||
	    "$stderr" == *"journal.checkpoint: changed while it was read; run the command again"* ]]
	[ -z "$output" ]
	[ "$(wc -c <"$ARC_JOURNAL")" = "$size" ]
	[ "$(views)" = "$good" ]
}

@test "a waiter goes on reading the checkpoint it loaded when a writer renames a new one over it: the conditions it reads later are the old file's, unchanged" {
	checkpointed_history
	cp "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/loaded"
	ARC_NOW=2026-08-26T01:20:00Z \
	    arc-wait -t 30 q3 >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	local waiter=$!
	eventually compgen -G "$ARC_JOURNAL.wait.*"
	# enough records for a writer to rename a new checkpoint in, then one
	# of q4, which the waiter reads from the checkpoint it loaded
	for i in $(seq 60); do information "later$i"; done | apply >/dev/null
	! cmp -s "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/loaded" || false
	apply <<<"$(updated q4 '.request.message = "later"')" >/dev/null
	ARC_NOW=2026-08-26T01:20:00Z ARC_CHECKPOINT_FLOOR=100000000 arc-answer q3 allow >/dev/null
	wait "$waiter"
	[ "$(jq -r '[.status, .response.choice_id] | join("|")' "$BATS_TEST_TMPDIR/out")" = "answered|allow" ]
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "a checkpoint cut while it is read (a restore over it in place): never SIGBUS; the replay from the start serves, the view the same" {
	checkpointed_history
	local i good
	# pages of it: the cut leaves pages mapped past the file's end
	for i in $(seq 100); do information "page$i"; done | apply >/dev/null
	[ "$(stat -c %s "$ARC_JOURNAL.checkpoint")" -gt 8192 ]
	good=$(ARC_NOW=2026-08-26T01:30:00Z arc-status --json)
	head -c 100 "$ARC_JOURNAL.checkpoint" >"$BATS_TEST_TMPDIR/short"
	# stopped once the checkpoint is mapped, before a byte of it is read
	ARC_NOW=2026-08-26T01:30:00Z SHRUNK=$ARC_JOURNAL.checkpoint \
	    shrink_under 1 "$BATS_TEST_TMPDIR/short" arc-status --json
	[ "$status" -eq 0 ]
	[ "$output" = "$good" ]
	[ -z "$stderr" ]
	cmp "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/short"
}

@test "a checkpoint written over in place while it is read, even with its own bytes: not trusted; the replay from the start serves" {
	checkpointed_history
	local good size trace=$BATS_TEST_TMPDIR/trace pid
	good=$(ARC_NOW=2026-08-26T01:30:00Z arc-status --json)
	size=$(stat -c %s "$ARC_JOURNAL")
	cp "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/same"
	# stopped once the checkpoint is mapped; its maps and the journal's
	ARC_NOW=2026-08-26T01:30:00Z ASAN_OPTIONS=detect_leaks=0 strace -f -qq \
	    -o "$trace" -P "$ARC_JOURNAL.checkpoint" -P "$ARC_JOURNAL" \
	    -e trace=mmap -e inject=mmap:signal=SIGSTOP:when=1 \
	    "$ARC_BIN/arc-status" --json >"$BATS_TEST_TMPDIR/out" &
	eventually grep -qs 'stopped by SIGSTOP' "$trace"
	pid=$(sed -n 's/^\([0-9]*\) .*stopped by SIGSTOP.*/\1/p' "$trace")
	cat "$BATS_TEST_TMPDIR/same" >"$ARC_JOURNAL.checkpoint"
	kill -CONT "$pid"
	wait $!
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = "$good" ]
	# the whole journal was read: its map from byte 0, all of it
	grep -q "mmap(NULL, $size, PROT_READ, MAP_PRIVATE, [0-9]*, 0)" "$trace"
	# left alone, it is trusted: only the records after it are read
	ASAN_OPTIONS=detect_leaks=0 strace -qq -o "$trace" -P "$ARC_JOURNAL" \
	    -e trace=mmap "$ARC_BIN/arc-status" --json >/dev/null
	grep -q mmap "$trace"
	local whole="mmap(NULL, $size, PROT_READ, MAP_PRIVATE, [0-9]*, 0)"
	! grep -q "$whole" "$trace" || false
}

@test "a deadline of any length, a fraction of 25 digits and an offset among them, is the same through a checkpoint, an update and a new lifecycle" {
	export ARC_CHECKPOINT_FLOOR=0
	local long=2026-08-26T02:00:00.1234567890123456789012345-05:30
	{
		created short
		created long ".request.response.expires_at = \"$long\""
		created other ".request.response.expires_at = \"$long\""
	} | apply >/dev/null
	[ -f "$ARC_JOURNAL.checkpoint" ]
	local with without
	with=$(ARC_NOW=2026-08-26T01:30:00Z arc-status --list)
	[[ "$with" == *"long	high	pending	$long	"* ]]
	[[ "$with" == *"short	high	pending	2026-08-26T02:00:00Z	"* ]]
	mv "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/aside"
	without=$(ARC_NOW=2026-08-26T01:30:00Z arc-status --list)
	[ "$with" = "$without" ]
	# a new question under a key keeps the other's deadline; a new
	# lifecycle has its own, the old one kept for the history
	{
		updated long '.request.message = "Again?"'
		resolved other cancelled
		created other
	} | apply >/dev/null
	with=$(ARC_NOW=2026-08-26T01:30:00Z arc-status --list)
	[[ "$with" == *"long	high	pending	$long	"* ]]
	[[ "$with" == *"other	high	pending	2026-08-26T02:00:00Z	"* ]]
	rm -f "$ARC_JOURNAL.checkpoint"
	[ "$(ARC_NOW=2026-08-26T01:30:00Z arc-status --list)" = "$with" ]
	ARC_NOW=2026-08-26T01:30:00Z run arc-status --history
	[ "$status" -eq 0 ]
	[[ "$output" == *"  other  cancelled; resolved (cancelled)"* ]]
}

@test "a checkpoint of another file, or of records no longer there, is ignored" {
	checkpointed_history
	local good; good=$(views)
	# a copy of the journal is another file: its checkpoint is not the copy's
	mkdir "$BATS_TEST_TMPDIR/copy"
	cp "$ARC_JOURNAL" "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/copy/"
	[ "$(ARC_JOURNAL=$BATS_TEST_TMPDIR/copy/journal views)" = "$good" ]
	# the same file cut back before the checkpoint's end (its last record
	# is gone): what the file holds now, as a replay shows it
	head -n -2 "$ARC_JOURNAL" >"$BATS_TEST_TMPDIR/cut"
	cat "$BATS_TEST_TMPDIR/cut" >"$ARC_JOURNAL"	# in place: the same inode
	mv "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/aside"
	local expected; expected=$(views)
	mv "$BATS_TEST_TMPDIR/aside" "$ARC_JOURNAL.checkpoint"
	[ "$expected" != "$good" ]
	[ "$(views)" = "$expected" ]
}

@test "after a compaction the old file's checkpoint is removed; the writer that compacted, going on with the new file, makes one of it" {
	checkpointed_history
	cp "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/old"
	ARC_NOW=2026-08-26T01:30:00Z arc-apply --compact
	# not the old one: a new file's, that names the new journal
	! cmp -s "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/old" || false
	[ "$(ARC_NOW=2026-08-26T01:30:00Z views)" = "$(mv "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/aside"; ARC_NOW=2026-08-26T01:30:00Z views; mv "$BATS_TEST_TMPDIR/aside" "$ARC_JOURNAL.checkpoint")" ]
	apply <<<"$(information later)" >/dev/null
	[ -f "$ARC_JOURNAL.checkpoint" ]
	[ "$(ARC_NOW=2026-08-26T01:30:00Z arc-status --json --show later | jq -r .key)" = later ]
	mv "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/aside"
	local without; without=$(views)
	mv "$BATS_TEST_TMPDIR/aside" "$ARC_JOURNAL.checkpoint"
	[ "$(views)" = "$without" ]
}

@test "a checkpoint through a symbolic link, or one others may write, is not read" {
	checkpointed_history
	local good; good=$(views)
	# a forged state that says nothing is waiting
	mkdir "$BATS_TEST_TMPDIR/other"
	ARC_JOURNAL=$BATS_TEST_TMPDIR/other/journal apply <<<"$(information x)" >/dev/null
	rm "$ARC_JOURNAL.checkpoint"
	ln -s "$BATS_TEST_TMPDIR/other/journal.checkpoint" "$ARC_JOURNAL.checkpoint"
	[ "$(views)" = "$good" ]
	rm "$ARC_JOURNAL.checkpoint"
	apply <<<"$(information later)" >/dev/null
	good=$(views)
	chmod g+w "$ARC_JOURNAL.checkpoint"
	run --separate-stderr arc-status --list
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"writable by group or others; refused"* ]]
	[ "$(views 2>/dev/null)" = "$good" ]
}

@test "idempotency holds through a checkpoint: a retried event is a replay, a reused id a conflict" {
	export ARC_CHECKPOINT_FLOOR=0	# a checkpoint at any size
	local ev; ev=$(information once)
	apply <<<"$ev" >/dev/null
	{ for i in $(seq 20); do information "k$i"; done; } | apply >/dev/null
	[ -f "$ARC_JOURNAL.checkpoint" ]
	run --separate-stderr apply <<<"$ev"
	[ "$(field .replayed)" = true ]
	run --separate-stderr apply <<<"$(jq -c '.request.message = "other"' <<<"$ev")"
	[ "$(field .error.code)" = conflict ]
}

@test "a journal restored in place from a backup, then written anew: the checkpoint of its other past is not used" {
	export ARC_CHECKPOINT_FLOOR=0	# a checkpoint at any size
	{ information n1; information n2; created q1; } | apply >/dev/null
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/backup"
	ARC_NOW=2026-08-26T01:17:00Z arc-answer --source aa --dismiss n2 >/dev/null
	apply </dev/null >/dev/null	# a writer that leaves a checkpoint
	[[ "$(ARC_NOW=2026-08-26T01:30:00Z arc-status --history)" == *"dismissed by aa"* ]]
	cat "$BATS_TEST_TMPDIR/backup" >"$ARC_JOURNAL"	# the same inode
	# a record of the same length and seq where the checkpoint's last was
	ARC_NOW=2026-08-26T01:17:00Z arc-answer --source bb --dismiss n2 >/dev/null
	run --separate-stderr env ARC_NOW=2026-08-26T01:30:00Z arc-status --history
	[[ "$output" == *"dismissed by bb"* ]]
	[[ "$output" != *"dismissed by aa"* ]]
}

# ---- Concurrency ----

@test "two processes racing to answer one question: exactly one wins" {
	local q; q=$(apply <<<"$(created deploy)")
	local i pids=()
	for i in 1 2 3 4; do
		(answer deploy "$q" allow | apply >"$BATS_TEST_TMPDIR/out$i" 2>/dev/null) &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	[ "$(cat "$BATS_TEST_TMPDIR"/out* | jq -s 'map(select(.status == 200)) | length')" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR"/out* | jq -s 'map(select(.error.code == "conflict")) | length')" -eq 3 ]
}

@test "several writers on one journal: nothing lost, nothing duplicated" {
	local w i pids=()
	for w in 1 2 3 4; do
		created_keys "w$w-" 100 >"$BATS_TEST_TMPDIR/in$w"
	done
	for w in 1 2 3 4; do
		apply --batch 7 "$BATS_TEST_TMPDIR/in$w" >/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	[ "$(tail -n +2 "$ARC_JOURNAL" | jq -s 'map(.notification.key) | unique | length')" -eq 400 ]
	[ "$(tail -n +2 "$ARC_JOURNAL" | jq -s 'map(.seq) | . == [range(1; 401)]')" = true ]
	run arc-status --json
	[ "$(field .active)" -eq 400 ]
}

# ---- Durability ----

@test "a result line is printed only after its record is fsync'd" {
	command -v strace >/dev/null || apt-get install -y -qq strace >/dev/null
	created a >"$BATS_TEST_TMPDIR/in"
	ASAN_OPTIONS=detect_leaks=0 ARC_NOW=2026-08-26T01:16:00Z strace -f -e trace=fdatasync,write -o "$BATS_TEST_TMPDIR/trace" \
	    "$ARC_BIN/arc-apply" "$BATS_TEST_TMPDIR/in" >/dev/null
	local sync out
	# the last sync (the record's; a new journal's header has its own before)
	sync=$(grep -n 'fdatasync(' "$BATS_TEST_TMPDIR/trace" | tail -1 | cut -d: -f1)
	out=$(grep -n 'write(1,' "$BATS_TEST_TMPDIR/trace" | head -1 | cut -d: -f1)
	[ -n "$sync" ] && [ -n "$out" ] && [ "$sync" -lt "$out" ]
}

@test "group commit: events read together share one fsync; --batch 1 syncs each" {
	command -v strace >/dev/null || apt-get install -y -qq strace >/dev/null
	created_keys k 50 >"$BATS_TEST_TMPDIR/in"
	ASAN_OPTIONS=detect_leaks=0 ARC_NOW=2026-08-26T01:16:00Z strace -f -e trace=fdatasync -o "$BATS_TEST_TMPDIR/t1" \
	    "$ARC_BIN/arc-apply" -j "$BATS_TEST_TMPDIR/j1" "$BATS_TEST_TMPDIR/in" >/dev/null
	ASAN_OPTIONS=detect_leaks=0 ARC_NOW=2026-08-26T01:16:00Z strace -f -e trace=fdatasync -o "$BATS_TEST_TMPDIR/t2" \
	    "$ARC_BIN/arc-apply" --batch 1 -j "$BATS_TEST_TMPDIR/j2" "$BATS_TEST_TMPDIR/in" >/dev/null
	# both create their journal alike (a synced header); then one sync
	# for the 50 events read together, or one for each
	local one each
	one=$(grep -c 'fdatasync(' "$BATS_TEST_TMPDIR/t1")
	each=$(grep -c 'fdatasync(' "$BATS_TEST_TMPDIR/t2")
	[ "$one" -le 2 ]
	[ $((each - one)) -eq 49 ]
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

# syncs_of LOG FILE: how many times the shim's LOG saw FILE (by inode) synced
syncs_of() {
	local ino; ino=$(stat -c %i "$2")
	awk -F'\t' -v ino="$ino" '($1 == "fsync" || $1 == "fdatasync") && $3 == ino { n++ }
	    END { print n + 0 }' "$1"
}

@test "what its writer synced a reader does not sync again: the bell's mark names the file, its change time and the bytes that end it, and a mark that does not match is not trusted" {
	apply <<<"$(created deploy)" >/dev/null
	logged marked "$ARC_BIN/arc-status" --json >/dev/null
	[ "$(syncs_of "$BATS_TEST_TMPDIR/marked.log" "$ARC_JOURNAL")" -eq 0 ]
	# the mark's bytes changed (its last byte, the record's newline)
	printf 'x' | dd of="$ARC_JOURNAL.wake" bs=1 seek=63 conv=notrunc status=none
	run --separate-stderr logged forged "$ARC_BIN/arc-status" --json
	[ "$status" -eq 0 ] && [ "$(field .pending)" -eq 1 ]
	[ "$(syncs_of "$BATS_TEST_TMPDIR/forged.log" "$ARC_JOURNAL")" -eq 1 ]
	synced_before_output "$BATS_TEST_TMPDIR/forged.log" "$ARC_JOURNAL"
	# the same bytes in another file (a copy put in its place)
	apply <<<"$(created second)" >/dev/null
	cp "$ARC_JOURNAL" "$ARC_JOURNAL.copy" && mv "$ARC_JOURNAL.copy" "$ARC_JOURNAL"
	run --separate-stderr logged copied "$ARC_BIN/arc-status" --json
	[ "$status" -eq 0 ] && [ "$(field .pending)" -eq 2 ]
	[ "$(syncs_of "$BATS_TEST_TMPDIR/copied.log" "$ARC_JOURNAL")" -eq 1 ]
	synced_before_output "$BATS_TEST_TMPDIR/copied.log" "$ARC_JOURNAL"
	# the same bytes written again into the same file, after a writer's
	# mark: the same inode and end, another change time
	apply <<<"$(created third)" >/dev/null
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/again"
	local ino; ino=$(stat -c %i "$ARC_JOURNAL")
	sleep 0.05	# a later tick of the file system's clock
	cat "$BATS_TEST_TMPDIR/again" >"$ARC_JOURNAL"
	[ "$(stat -c %i "$ARC_JOURNAL")" = "$ino" ]
	run --separate-stderr logged again "$ARC_BIN/arc-status" --json
	[ "$status" -eq 0 ] && [ "$(field .pending)" -eq 3 ]
	[ "$(syncs_of "$BATS_TEST_TMPDIR/again.log" "$ARC_JOURNAL")" -eq 1 ]
}

@test "what a reader syncs for another it marks as a writer would: a record left unsynced (a receipt, a writer killed) is synced once, by whoever reads it first" {
	apply <<<"$(created deploy)" >/dev/null
	killed_unsynced "$ARC_BIN/arc-answer" deploy allow
	run --separate-stderr logged first "$ARC_BIN/arc-status" --json
	[ "$status" -eq 0 ] && [ "$(field .pending)" -eq 0 ]
	[ "$(syncs_of "$BATS_TEST_TMPDIR/first.log" "$ARC_JOURNAL")" -eq 1 ]
	synced_before_output "$BATS_TEST_TMPDIR/first.log" "$ARC_JOURNAL"
	run --separate-stderr logged second "$ARC_BIN/arc-status" --json
	[ "$status" -eq 0 ] && [ "$(field .pending)" -eq 0 ]
	[ "$(syncs_of "$BATS_TEST_TMPDIR/second.log" "$ARC_JOURNAL")" -eq 0 ]
	# a writer after them syncs its own record alone
	run --separate-stderr logged writer "$ARC_BIN/arc-apply" <<<"$(created second)"
	[ "$status" -eq 0 ] && [ "$(field .status)" -eq 201 ]
	[ "$(syncs_of "$BATS_TEST_TMPDIR/writer.log" "$ARC_JOURNAL")" -eq 1 ]
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

# ---- Recovery ----

# hold_lock MODE: a process holding the journal's flock (sh or ex) until
# the fd $hold closes; prints nothing, returns once the lock is had.
hold_lock() {
	rm -f "$BATS_TEST_TMPDIR/release" "$BATS_TEST_TMPDIR/held"
	mkfifo "$BATS_TEST_TMPDIR/release"
	python3 -c 'import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_SH if sys.argv[2] == "sh" else fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()' "$ARC_JOURNAL" "$1" <"$BATS_TEST_TMPDIR/release" >"$BATS_TEST_TMPDIR/held" &
	holder=$!
	exec {hold}>"$BATS_TEST_TMPDIR/release"
	local tries=0
	until [ "$(cat "$BATS_TEST_TMPDIR/held")" = held ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 600 ]
		sleep 0.1
	done
}

# waits_for_lock READ|WRITE: until a process waits for that lock on the
# journal (a writer kept out by a reader waits for its exclusive lock; one
# kept out by a writer, for a shared one to read meanwhile)
waits_for_lock() {
	local ino tries=0
	ino=$(stat -c %i "$ARC_JOURNAL")
	until grep -qE -- "-> FLOCK +ADVISORY +$1 +[0-9]+ [0-9a-f:]+:$ino " /proc/locks; do
		tries=$((tries + 1))
		[ "$tries" -lt 600 ]
		sleep 0.1
	done
}

@test "a writer that finds a reader holding the journal reads it meanwhile, and cuts a torn tail once its own lock is had, saying so once" {
	needs strace
	apply <<<"$(created a)" >/dev/null
	local good; good=$(wc -c <"$ARC_JOURNAL")
	printf '{"seq":2,"at":"2026-08-26T01:16:00Z","notifi' >>"$ARC_JOURNAL"
	local holder hold writer
	# a reader's shared lock, held until $hold closes
	hold_lock sh
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e signal=none \
	    -e trace=flock,pread64,mmap -o "$BATS_TEST_TMPDIR/trace" \
	    "$ARC_BIN/arc-apply" <<<"$(created b)" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" {hold}>&- &
	writer=$!
	# the writer blocked on its exclusive lock
	waits_for_lock WRITE
	# it has read the journal meanwhile, and left the tail as it was
	[ "$(wc -c <"$ARC_JOURNAL")" -gt "$good" ]
	exec {hold}>&-
	wait "$holder"
	wait "$writer"
	# refused at once, then a shared lock, the journal read, and only
	# then its own lock waited for
	awk '/LOCK_EX\|LOCK_NB.*EAGAIN/ { s = 1; next }
	     s == 1 && /flock\(.*LOCK_SH\) *= 0/ { s = 2; next }
	     s == 2 && /(pread64|mmap)\(/ { s = 3; next }
	     s == 3 && /flock\(.*LOCK_UN\)/ { s = 4; next }
	     s == 4 && /flock\(.*LOCK_EX\) *= 0/ { s = 5 }
	     END { exit s != 5 }' "$BATS_TEST_TMPDIR/trace"
	[ "$(grep -c 'torn final record' "$BATS_TEST_TMPDIR/err")" -eq 1 ]
	grep -q "dropping a torn final record at byte $good" "$BATS_TEST_TMPDIR/err"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/out")" = 201 ]
	[ "$(wc -l <"$ARC_JOURNAL")" -eq 3 ]
	tail -n +2 "$ARC_JOURNAL" | jq -e . >/dev/null
}

@test "a first look maps the journal; what came since a look is read with one pread at the old end, not mapped" {
	needs strace
	apply <<<"$(created q '.request.response.expires_at = "2099-01-01T00:00:00Z"')" >/dev/null
	local before
	before=$(stat -c %s "$ARC_JOURNAL")
	ASAN_OPTIONS=detect_leaks=0 strace -qq -e signal=none -e trace=mmap,pread64 \
	    -o "$BATS_TEST_TMPDIR/trace" "$ARC_BIN/arc-wait" -t 1m q >"$BATS_TEST_TMPDIR/out" &
	local waiter=$!
	eventually eval '[ "$(arc-status --json --show q | jq -r .waiting)" = true ]'
	arc-answer q allow >/dev/null
	wait "$waiter"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/out")" = answered ]
	# the first look: the journal mapped from its start, all of it
	grep -qE "^mmap\(NULL, $before, PROT_READ, MAP_PRIVATE, [0-9]+, 0\)" "$BATS_TEST_TMPDIR/trace"
	# the answer's records: read whole from the old end, in one call
	grep -E "^pread64\([0-9]+, \"\{\\\\\"seq\\\\\":.*, [0-9]+, $before\) = [0-9]+$" "$BATS_TEST_TMPDIR/trace" |
	    sed -E 's/^.*, ([0-9]+), [0-9]+\) = ([0-9]+)$/\1 \2/' |
	    awk '$1 == $2 && $1 > 500 { ok = 1 } END { exit !ok }' ||
	    { cat "$BATS_TEST_TMPDIR/trace"; false; }
	! grep -qE "^mmap\(NULL, [0-9]+, PROT_READ, MAP_PRIVATE, [0-9]+, $before\)" "$BATS_TEST_TMPDIR/trace" || false
}

@test "a writer kept waiting by a reader removes stale temporary files while it waits; one kept waiting by a compaction leaves its file alone" {
	apply <<<"$(created a)" >/dev/null
	local holder hold writer
	# a reader holds the journal: no compaction can be running
	printf '{"nonce":"left-behind"}\n' >"$ARC_JOURNAL.compact.999999"
	hold_lock sh
	"$ARC_BIN/arc-apply" <<<"$(created b)" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" {hold}>&- &
	writer=$!
	waits_for_lock WRITE
	# gone before the writer has its own lock
	local tries=0
	while [ -e "$ARC_JOURNAL.compact.999999" ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 600 ]
		sleep 0.1
	done
	kill -0 "$writer"
	exec {hold}>&-
	wait "$holder"
	wait "$writer"
	grep -q "removed a stale temporary file" "$BATS_TEST_TMPDIR/err"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/out")" = 201 ]
	# a compaction (the holder of the exclusive lock) writing its file
	hold_lock ex
	printf '{"nonce":"being-written"}\n' >"$ARC_JOURNAL.compact.$holder"
	"$ARC_BIN/arc-apply" <<<"$(created c)" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" {hold}>&- &
	writer=$!
	waits_for_lock READ
	sleep 0.5
	[ -e "$ARC_JOURNAL.compact.$holder" ]
	[ "$(cat "$ARC_JOURNAL.compact.$holder")" = '{"nonce":"being-written"}' ]
	exec {hold}>&-
	wait "$holder"
	wait "$writer"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/out")" = 201 ]
}

# size_of FILE: its size in bytes
size_of() { stat -c %s "$1"; }

@test "a damaged tail is an unfinished write, cut by the next writer under the lock with a warning naming its byte: a torn final record, or zeroed pages of a power cut, even before a complete line" {
	apply <<<"$(created a)" >/dev/null
	local good; good=$(wc -c <"$ARC_JOURNAL")
	printf '{"seq":2,"at":"2026-08-26T01:16:00Z","notifi' >>"$ARC_JOURNAL"
	run --separate-stderr apply <<<"$(created b)"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"dropping a torn final record at byte $good"* ]]
	[ "$(field .status)" = 201 ]
	tail -n +2 "$ARC_JOURNAL" | jq -e . >/dev/null
	[ "$(wc -l <"$ARC_JOURNAL")" -eq 3 ]
	# power loss mid-batch, on a journal of its own
	ARC_JOURNAL="$BATS_TEST_TMPDIR/zeroed/journal"
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

# last_record_bytes: the offsets in the journal of its last record's first
# byte, one in its middle, its first space, its checksum's first digit and
# its closing brace (every byte but its newline: t/slow/bitflip.bats)
last_record_bytes() {
	/usr/bin/python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
at = d.rindex(b"\n", 0, len(d) - 1) + 1
rec = d[at:-1]
print(at, at + len(rec) // 2, at + rec.index(b" "),
      at + rec.rindex(b"\"crc\":\"") + 7, len(d) - 2)' "$1"
}

@test "a whole last record that fails its checksum is damage, not a torn write: an answer acknowledged, one byte changed (a space made a NUL too), is refused by every command, and no second answer can win; what a power cut leaves of it (cut short, sectors of zeros) is still a torn write" {
	journal "$ARC_JOURNAL"
	ARC_NOW=$T0 run --separate-stderr arc-answer --response-id r-1 k allow
	[ "$status" -eq 0 ]
	[ "$(field .interaction.response.choice_id)" = allow ]
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/whole"
	local offs at off
	offs=$(last_record_bytes "$ARC_JOURNAL")
	at=${offs%% *}
	[ "$at" -eq $(($(size_of "$ARC_JOURNAL") - $(tail -1 "$ARC_JOURNAL" | wc -c))) ]
	for off in $offs; do
		cp "$BATS_TEST_TMPDIR/whole" "$ARC_JOURNAL"
		flip_byte "$ARC_JOURNAL" "$off"
		refuses "$ARC_JOURNAL" "damaged record at byte $at" ||
		    { echo "byte $off of the record at $at"; return 1; }
		ARC_NOW=$T0 run --separate-stderr arc-answer --response-id r-2 k deny
		[ "$status" -eq 3 ] || { echo "byte $off: a second answer: exit $status: $output"; return 1; }
		[[ "$stderr" != *torn* ]]
	done
	# --salvage copies what is readable, and never the question the
	# damaged answer settled as pending again: it is left out, named
	run --separate-stderr arc-apply --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"skipping a damaged record at byte $at"* ]]
	[[ "$stderr" == *": k: left out of the copy: "* ]]
	ARC_NOW=$T0 run arc-status -j "$BATS_TEST_TMPDIR/new" --list
	[ -z "$output" ]
	# what a power cut leaves of the same record is a torn write: the
	# record cut short (its newline never written); its sectors zeros
	# (the size persisted, the data not), from its start to a 512-byte
	# boundary, or from a boundary to the end, its newline's place too
	local size next from to from_to
	size=$(size_of "$BATS_TEST_TMPDIR/whole")
	next=$(( (at / 512 + 1) * 512 ))
	[ "$next" -lt $((size - 1)) ]
	for from_to in "cut $((size - 1))" "$at $next" "$next $(( next + 512 < size - 1 ? next + 512 : size - 1 ))" "$next $size"; do
		cp "$BATS_TEST_TMPDIR/whole" "$ARC_JOURNAL"
		read -r from to <<<"$from_to"
		if [ "$from" = cut ]; then
			truncate -s "$to" "$ARC_JOURNAL"
		else
			dd if=/dev/zero of="$ARC_JOURNAL" bs=1 seek="$from" count=$((to - from)) conv=notrunc status=none
		fi
		run --separate-stderr apply </dev/null
		[ "$status" -eq 0 ] || { echo "$from_to: exit $status: $stderr"; return 1; }
		[[ "$stderr" == *"dropping a torn final record at byte $at"* ]]
		[ "$(size_of "$ARC_JOURNAL")" -eq "$at" ]
		ARC_NOW=$T0 run arc-status --list
		[ "$(cut -f1,3 <<<"$output")" = "$(printf 'k\tpending')" ]
	done
}

@test "a damaged record in the middle stops the command with exit 3 and its byte offset" {
	{ created a; created b; } | apply >/dev/null
	local at; at=$(head -1 "$ARC_JOURNAL" | wc -c)
	sed -i '2s/"seq":1/"seq":1,,/' "$ARC_JOURNAL"
	local sum; sum=$(sha256sum <"$ARC_JOURNAL")
	run --separate-stderr apply <<<"$(created c)"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"damaged record at byte $at"* ]]
	[ -z "$output" ]
	[ "$(sha256sum <"$ARC_JOURNAL")" = "$sum" ]
}

@test "a command that stops mid-batch after writing it ahead (a damaged record found when an event of the batch needs it): what went ahead is cut off again at its exit, the journal as it was" {
	export ARC_CHECKPOINT_FLOOR=1
	apply <<<"$(created victim)" >/dev/null
	"$BATS_TEST_DIRNAME/../bench/gen-events" 400 | apply >/dev/null
	[ -e "$ARC_JOURNAL.checkpoint" ]
	# the victim's record, behind the checkpoint: checked only when an
	# event needs it
	local at; at=$(head -1 "$ARC_JOURNAL" | wc -c)
	flip_byte "$ARC_JOURNAL" $((at + 40))
	local sum; sum=$(sha256sum <"$ARC_JOURNAL")
	# 2,000 new conditions first, some 2.6 MB of records written ahead
	{ "$BATS_TEST_DIRNAME/../bench/gen-events" 2000 |
	    sed 's/"key":"/"key":"z-/; s/"event_id":"/"event_id":"z-/'
	  updated victim; } >"$BATS_TEST_TMPDIR/batch"
	run --separate-stderr apply <"$BATS_TEST_TMPDIR/batch"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"damaged record at byte $at"* ]]
	[ -z "$output" ]
	[ "$(sha256sum <"$ARC_JOURNAL")" = "$sum" ]
}

# five_kinds FILE: a journal holding a question, an update, an answer, a
# notice and a resolution, at fixed times
five_kinds() {
	"$BATS_TEST_DIRNAME/powerloss/five-kinds" "$1"
}

# shrink_under N FILE CMD...: runs CMD until just after its Nth mmap of the
# journal (strace injects a SIGSTOP there), copies FILE over the journal
# (truncating it, then writing, as a restore or logrotate's copytruncate
# does), and lets CMD go on reading its map: $status, $output and $stderr
# as run --separate-stderr sets them.
shrink_under() {
	local n=$1 file=$2 trace=$BATS_TEST_TMPDIR/trace pid
	local cut=${SHRUNK:-$ARC_JOURNAL}	# or another file of the journal's
	# or stopped at the Nth STOP_AT (a syscall) on another file, STOP_ON
	local on=${STOP_ON:-$cut} at=${STOP_AT:-mmap}
	shift 2
	rm -f "$trace"
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o "$trace" -P "$on" \
	    -e trace="$at" -e inject="$at":signal=SIGSTOP:when="$n" "$@" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	eventually grep -qs 'stopped by SIGSTOP' "$trace"
	pid=$(sed -n 's/^\([0-9]*\) .*stopped by SIGSTOP.*/\1/p' "$trace")
	cp "$file" "$cut"
	kill -CONT "$pid"
	status=0
	wait $! || status=$?
	[ "$status" -ne 135 ] || echo "killed by SIGBUS"
	output=$(cat "$BATS_TEST_TMPDIR/out")
	stderr=$(cat "$BATS_TEST_TMPDIR/err")
}

# backup_then_pages: a journal of one notice at T0, copied to backup (a
# restore shorter than a page), then pages of notices after it
backup_then_pages() {
	export ARC_NOW=$T0
	# no checkpoint: every reader maps the journal from its start
	export ARC_CHECKPOINT_FLOOR=100000000
	apply <<<"$(information a)" >/dev/null
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/backup"
	for i in $(seq 100); do information "n$i"; done | apply >/dev/null
}

@test "a journal rewritten in place while its damaged tail is read for recovery: exit 3, the journal unreadable, never SIGBUS; nothing cut, nothing stored" {
	backup_then_pages
	# pages of records, then the zeros of a power cut: the recovery maps
	# the journal a second time, from the tail's page on
	{ head -c 100 /dev/zero; echo; } >>"$ARC_JOURNAL"
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/damaged"
	shrink_under 2 "$BATS_TEST_TMPDIR/backup" arc-status
	[ "$status" -eq 3 ]
	[ "$output" = "arc: journal unreadable" ]
	[[ "$stderr" == *"shrank while it was read"* ]]
	# a writer: no result, no record, no cut
	cp "$BATS_TEST_TMPDIR/damaged" "$ARC_JOURNAL"
	shrink_under 2 "$BATS_TEST_TMPDIR/backup" arc-apply <<<"$(information b)"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[[ "$stderr" == *"shrank while it was read"* ]]
	cmp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/backup"
	[ "$(arc-status)" = "1 notice, normal" ]
}

@test "bit flips (1 bit in 13, and every bit of every newline) and deleted records in a journal of five kinds of record: each detected or harmless; deleting any record but the last is refused, and no second, different answer can win" {
	five_kinds "$BATS_TEST_TMPDIR/j/journal"
	mkdir "$BATS_TEST_TMPDIR/work"
	ARC_NOW=2026-08-26T01:30:00Z run "$FLIP" -s 13 "$BATS_TEST_TMPDIR/j/journal" "$BATS_TEST_TMPDIR/work"
	echo "$output"
	grep '^flip: [0-9]' <<<"$output" | sed 's/^/# /' >&3
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 undetected"* ]]
	[[ "$output" == *" 0 not"* ]]
	# deleting a record, as the second answer it would let win sees it
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

@test "salvage: the readable records of a damaged journal go to a new one, mode 0600; the old is only read; it never writes over a file" {
	run arc-apply --help
	[[ "$output" == *--salvage* ]]
	{ created a; information b; created c; information d; } | apply >/dev/null
	sed -i '3s/"at":"/"at":"X/' "$ARC_JOURNAL"	# b's record
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/damaged"
	run --separate-stderr arc-status
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"damaged record at byte"* ]]
	run --separate-stderr arc-status --json
	[ "$status" -eq 3 ]
	run --separate-stderr arc-apply --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"skipping a damaged record at byte $(head -2 "$ARC_JOURNAL" | wc -c)"* ]]
	cmp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/damaged"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/new")" = 600 ]
	# a, a question pending before the damaged record, which could have
	# been its answer, is left out (named); c and d came after it
	[[ "$stderr" == *": a: left out of the copy: "* ]]
	ARC_NOW=$T0 run --separate-stderr arc-status -j "$BATS_TEST_TMPDIR/new" --list
	[ "$status" -eq 0 ]
	[ "$(cut -f1 <<<"$output" | sort | tr '\n' ' ')" = "c d " ]
	# the salvaged journal is a journal: it takes new events
	run --separate-stderr apply -j "$BATS_TEST_TMPDIR/new" <<<"$(information e)"
	[ "$status" -eq 0 ]
	# and it never overwrites
	run --separate-stderr arc-apply --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -eq 3 ]
	ARC_NOW=$T0 run arc-status -j "$BATS_TEST_TMPDIR/new" --list
	[ "$(cut -f1 <<<"$output" | sort | tr '\n' ' ')" = "c d e " ]
}

@test "salvage keeps the events it read: a retry against the salvaged journal is a replay" {
	local ev; ev=$(information a)
	{ echo "$ev"; information b; information c; } | apply >/dev/null
	run --separate-stderr arc-apply --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -eq 0 ]
	run --separate-stderr apply -j "$BATS_TEST_TMPDIR/new" <<<"$ev"
	[ "$(field .replayed)" = true ]
}

# record_bytes FILE N: offsets within the Nth line from the end (1: the
# last): its start, its middle, its first space, the first digit of its
# crc, its last byte before the newline, and its newline.
record_bytes() {
	/usr/bin/python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
ends = [i for i, b in enumerate(d) if b == 10]
end = ends[-int(sys.argv[2])]
at = ends[-int(sys.argv[2]) - 1] + 1
rec = d[at:end]
print(at, at + len(rec) // 2, at + rec.index(b" "),
      at + rec.rindex(b"\"crc\":\"") + 7, end - 1, end)' "$1" "$2"
}

@test "salvage never reopens a settled question: its answer record damaged (any byte, its newline too), the question is left out of the copy, its key named, and a second answer to the copy is refused; one pending before the damage is left out too, one written after it kept" {
	{ created k; created p; } | apply >/dev/null
	ARC_NOW=$T0 arc-answer --response-id r-1 k allow >/dev/null
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/last"	# the answer, last
	apply <<<"$(created after)" >/dev/null
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/mid"	# the answer, then after
	local copy n offs at off new="$BATS_TEST_TMPDIR/new" cases=0
	for copy in last mid; do
		n=1; [ "$copy" = last ] || n=2
		offs=$(record_bytes "$BATS_TEST_TMPDIR/$copy" "$n")
		at=${offs%% *}
		grep -q '"response_id":"r-1"' <(tail -c +"$((at + 1))" "$BATS_TEST_TMPDIR/$copy" | head -1)
		for off in $offs; do
			# a joined newline in the middle takes "after" with it
			[ "$copy" = mid ] && [ "$off" = "${offs##* }" ] && continue
			cases=$((cases + 1))
			cp "$BATS_TEST_TMPDIR/$copy" "$ARC_JOURNAL"
			flip_byte "$ARC_JOURNAL" "$off"
			rm -f "$new"
			run --separate-stderr arc-apply --salvage "$new"
			[ "$status" -eq 0 ] || { echo "$copy, byte $off: exit $status: $stderr"; return 1; }
			[[ "$stderr" == *"skipping a damaged record at byte $at"* ||
			    "$stderr" == *"skipping an unfinished record at byte $at"* ]] ||
			    { echo "$copy, byte $off: $stderr"; return 1; }
			[[ "$stderr" == *": k: left out of the copy: its question was pending before the damaged record at byte $at, which may have settled it"* ]] ||
			    { echo "$copy, byte $off: k not named: $stderr"; return 1; }
			[[ "$stderr" == *": p: left out of the copy: "* ]]
			[[ "$stderr" != *": after: "* ]]
			# the second answer, against the copy: refused, nothing stored
			ARC_NOW=$T0 run --separate-stderr arc-answer -j "$new" --response-id r-2 k deny
			[ "$status" -eq 1 ] || { echo "$copy, byte $off: a second answer: exit $status: $output"; return 1; }
			[ "$(field .status)" = 404 ]
			! grep -q '"r-2"' "$new" || false
			ARC_NOW=$T0 run arc-status -j "$new" --list
			if [ "$copy" = mid ]; then
				[ "$(cut -f1,3 <<<"$output")" = "$(printf 'after\tpending')" ]
			else
				[ -z "$output" ]
			fi
		done
	done
	[ "$cases" -eq 11 ]
}

# ---- Who may use a journal ----

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
	owned_by nobody "$ARC_JOURNAL"
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

@test "a FIFO in the journal's place is refused at once, by readers and writers" {
	mkdir -p "${ARC_JOURNAL%/*}"
	mkfifo -m 600 "$ARC_JOURNAL"
	run timeout 5 arc-status
	[ "$status" -eq 3 ]
	run timeout 5 arc-apply <<<"$(information a)"
	[ "$status" -eq 3 ]
}

@test "journal: created 0600 in folders created 0700, even under umask 000" {
	export ARC_JOURNAL="$BATS_TEST_TMPDIR/deep/er/journal"
	(umask 000; apply <<<"$(created a)" >/dev/null)
	[ "$(stat -c %a "$ARC_JOURNAL")" = 600 ]
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/deep")" = 700 ]
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/deep/er")" = 700 ]
}

@test "temporary files a killed process left (a compaction's, a checkpoint's) are removed by the next writer, a live one's left; a compaction killed before its rename changed nothing" {
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
	# temporaries of processes gone, and a checkpoint's of one alive
	printf '{"nonce":"left-behind"}\n' >"$ARC_JOURNAL.compact.999999"
	printf 'arc checkpoint 3\n' >"$ARC_JOURNAL.checkpoint.999999"
	sleep 60 & local live=$!
	printf 'arc checkpoint 3\n' >"$ARC_JOURNAL.checkpoint.$live"
	run --separate-stderr apply <<<"$(information b)"
	[ "$status" -eq 0 ]
	[ ! -e "$ARC_JOURNAL.compact.999999" ]
	[ ! -e "$ARC_JOURNAL.checkpoint.999999" ]
	[ -e "$ARC_JOURNAL.checkpoint.$live" ]
	[[ "$stderr" == *"removed a stale temporary file"* ]]
	kill $live
}

@test "a leftover temporary file with our own pid (a dead process's that had it) is replaced, not a failure" {
	export ARC_CHECKPOINT_FLOOR=0	# a checkpoint at any size
	{ for i in $(seq 12); do information "k$i"; done; } >"$BATS_TEST_TMPDIR/events"
	mkdir -p "${ARC_JOURNAL%/*}"
	run --separate-stderr bash -c ': >"$ARC_JOURNAL.checkpoint.$$"
	    exec "$ARC_BIN/arc-apply" "$1"' _ "$BATS_TEST_TMPDIR/events"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"File exists"* ]]
	[ -s "$ARC_JOURNAL.checkpoint" ]
	! ls "$ARC_JOURNAL".checkpoint.* 2>/dev/null || false
}

# ---- Compaction ----

# settled_history: a journal with settled history at T0 and one question
# still pending.
settled_history() {
	local i
	for i in $(seq 30); do information "n$i"; resolved "n$i"; done | apply >/dev/null
	apply <<<"$(created waiting '.request.response.expires_at = "2026-12-31T00:00:00Z"')" >/dev/null
}

@test "retention: a settled condition leaves the live journal, into an archive segment; a pending one stays" {
	settled_history
	local size; size=$(wc -c <"$ARC_JOURNAL")
	ARC_NOW=$LATER run --separate-stderr arc-apply --compact
	[ "$status" -eq 0 ]
	[ "$(wc -c <"$ARC_JOURNAL")" -lt $((size / 5)) ]
	[ "$(jq -r '.notification.key // empty' "$ARC_JOURNAL" | sort -u)" = waiting ]
	# nothing was dropped: the archive holds the whole history, compressed
	# (--compact compresses it), readable by zstdcat and jq
	local seg; seg=$(ls "$ARC_JOURNAL".history.*)
	[[ "$seg" == *.history.[0-9]*.[0-9]*T[0-9]*Z-[0-9]*T[0-9]*Z.zst ]]
	zstdcat "$seg" >"$BATS_TEST_TMPDIR/plain"
	[ "$(wc -c <"$BATS_TEST_TMPDIR/plain")" -eq "$size" ]
	[ "$(jq -r 'select(.event.type == "request.resolved") | .notification.key' "$BATS_TEST_TMPDIR/plain" | wc -l)" -eq 30 ]
	run crc_ok "$BATS_TEST_TMPDIR/plain"
	[ "$output" = ok ]
	# the pending question is still answerable
	run --separate-stderr env ARC_NOW=$LATER arc-answer waiting allow
	[ "$status" -eq 0 ]
}

@test "retention: --retain keeps what is younger; a keyless request is forgotten with its window" {
	settled_history
	ARC_NOW=$LATER arc-apply --compact --retain 30d
	[ "$(jq -r '.notification.key // empty' "$ARC_JOURNAL" | sort -u | wc -l)" -eq 31 ]
	ARC_NOW=$LATER arc-apply --compact --retain 1d
	[ "$(jq -r '.notification.key // empty' "$ARC_JOURNAL" | sort -u | wc -l)" -eq 1 ]
	[ "$(ls "$ARC_JOURNAL".history.* | wc -l)" -eq 2 ]
}

@test "automatic compaction: a writer past the floor with mostly dead bytes compacts on its own" {
	settled_history
	local size; size=$(wc -c <"$ARC_JOURNAL")
	# below the floor nothing happens
	ARC_NOW=$LATER arc-apply <<<"$(information fresh1)" >/dev/null
	[ "$(wc -c <"$ARC_JOURNAL")" -gt "$size" ]
	! ls "$ARC_JOURNAL".history.* 2>/dev/null || false
	# past it, the next writer compacts after its result is out
	ARC_COMPACT_FLOOR=4096 ARC_NOW=$LATER arc-apply <<<"$(information fresh2)" >"$BATS_TEST_TMPDIR/out"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/out")" = 201 ]
	[ "$(wc -c <"$ARC_JOURNAL")" -lt $((size / 3)) ]
	ls "$ARC_JOURNAL".history.*
	[ "$(jq -r '.notification.key // empty' "$ARC_JOURNAL" | sort -u | tr '\n' ' ')" = "fresh1 fresh2 waiting " ]
	# and it does not compact again while nothing more has died
	local ino; ino=$(stat -c %i "$ARC_JOURNAL")
	ARC_COMPACT_FLOOR=4096 ARC_NOW=$LATER arc-apply <<<"$(information fresh3)" >/dev/null
	[ "$(stat -c %i "$ARC_JOURNAL")" = "$ino" ]
}

@test "automatic compaction keeps everything a person or a producer relies on" {
	local q; q=$(apply <<<"$(created keep '.request.response.expires_at = "2026-12-31T00:00:00Z"')")
	local ev; ev=$(information once)
	apply <<<"$ev" >/dev/null
	for i in $(seq 40); do updated keep ".request.message = \"m$i\""; done |
	    ARC_COMPACT_FLOOR=4096 apply >/dev/null
	# a segment was made (a name, not a stat: its compressor, detached,
	# may be renaming it to .zst just now)
	compgen -G "$ARC_JOURNAL.history.*" >/dev/null
	# the replay of an event inside the window is still a replay
	run --separate-stderr apply <<<"$ev"
	[ "$(field .replayed)" = true ]
	# the question as last updated is answerable with its digest and nonce
	q=$(apply <<<"$(updated keep '.request.message = "m40"')")
	run --separate-stderr apply <<<"$(answer keep "$q" allow)"
	[ "$(field .status)" = 200 ]
	[ "$(field .interaction.response.choice_id)" = allow ]
}

@test "--compact keeps the state and shrinks the journal; mode stays 0600" {
	local q; q=$(apply <<<"$(created a)")
	{ for i in $(seq 20); do updated a ".request.message = \"m$i\""; done; created b; resolved b; } | apply >/dev/null
	local before; before=$(arc-status --list)
	local size; size=$(wc -c <"$ARC_JOURNAL")
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-apply --compact
	[ "$status" -eq 0 ]
	[ "$(wc -c <"$ARC_JOURNAL")" -lt "$size" ]
	[ "$(stat -c %a "$ARC_JOURNAL")" = 600 ]
	[ "$(arc-status --list)" = "$before" ]
	# the current question is still answerable, with its digest and nonce
	q=$(apply <<<"$(updated a '.request.message = "m20"')")
	[ "$(field .replayed "$q")" = null ]
	run --separate-stderr apply <<<"$(answer a "$q" allow)"
	[ "$(field .status)" = 200 ]
}

@test "--compact keeps event ids inside the idempotency window, forgets older ones" {
	local ev; ev=$(created a)
	apply <<<"$ev" >/dev/null
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact
	run --separate-stderr apply <<<"$ev"
	[ "$(field .replayed)" = true ]
	ARC_NOW=2026-09-30T00:00:00Z arc-apply --compact --window 7d --retain 100d
	run --separate-stderr apply <<<"$ev"
	[ "$(field .replayed)" = null ]
	[ "$(field .status)" = 200 ]
}

@test "--compact while other processes append: no record lost" {
	local w i
	for w in 1 2; do
		created_keys "w$w-" 150 >"$BATS_TEST_TMPDIR/in$w"
	done
	apply --batch 3 "$BATS_TEST_TMPDIR/in1" >/dev/null &
	pids=($!)
	apply --batch 5 "$BATS_TEST_TMPDIR/in2" >/dev/null &
	pids+=($!)
	for i in $(seq 15); do ARC_NOW=2026-08-26T01:16:00Z arc-apply --compact; done
	wait "${pids[@]}" || true
	run arc-status --json
	[ "$(field .active)" -eq 300 ]
	run arc-status --list
	[ "$(cut -f1 <<<"$output" | sort -u | wc -l)" -eq 300 ]
}

@test "tail -F follows the journal across a compaction" {
	apply <<<"$(information before)" >/dev/null
	tail -n +1 -F "$ARC_JOURNAL" >"$BATS_TEST_TMPDIR/seen" 2>/dev/null &
	local tp=$!
	sleep 0.5
	apply --compact
	sleep 1.2
	apply <<<"$(information after)" >/dev/null
	local i
	for i in $(seq 50); do
		grep -q '"key":"after"' "$BATS_TEST_TMPDIR/seen" && break
		sleep 0.1
	done
	kill "$tp"
	grep -q '"key":"after"' "$BATS_TEST_TMPDIR/seen"
}

@test "a writer goes on after its own compactions with the state it had: later events read the moved records, a repeated event is still known, and its checkpoint reads as the file does" {
	needs strace
	local q; q=$(created q1)
	{
		echo "$q"
		information n1
		for i in $(seq 8); do
			updated n1 ".request.kind = \"information\" | .request.message = \"message $i $(printf 'x%.0s' {1..300})\""
		done
		resolved n1
		echo "$q"	# the very first event again
		updated q1 '.request.message = "May I deploy now?"'
	} >"$BATS_TEST_TMPDIR/events"
	# one commit an event, and a compaction after each that may take one
	ARC_COMPACT_FLOOR=1 ARC_CHECKPOINT_FLOOR=1 run --separate-stderr apply --batch 1 "$BATS_TEST_TMPDIR/events"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 13 ]
	# compacted within the call, more than once
	[ "$(ls "$ARC_JOURNAL".history.* | wc -l)" -ge 2 ]
	# after them: the resolution shows the notification as the records
	# the compactions moved hold it, the repeat is known as one, and the
	# update reads the question it replaces
	[ "$(jq -r 'select(.line == 11) | [.status, .notification.status, .notification.message[0:9]] | @tsv' <<<"$output")" = "$(printf '200\tresolved\tmessage 8')" ]
	[ "$(jq -r 'select(.line == 12) | .replayed' <<<"$output")" = true ]
	[ "$(jq -r 'select(.line == 12) | .interaction.id' <<<"$output")" = "$(jq -r 'select(.line == 1) | .interaction.id' <<<"$output")" ]
	[ "$(jq -r 'select(.line == 13) | [.status, .interaction.prompt] | @tsv' <<<"$output")" = "$(printf '200\tMay I deploy now?')" ]
	# what it left: the checkpoint it wrote from that state (it went on
	# with the file it wrote; one that let go of it leaves none) reads as
	# the file read alone does
	[ -s "$ARC_JOURNAL.checkpoint" ]
	local with without
	with=$(ARC_NOW=2026-08-26T01:16:00Z ARC_CHECKPOINT_FLOOR=1 arc-status --show q1 --json)
	without=$(ARC_NOW=2026-08-26T01:16:00Z ARC_CHECKPOINT_FLOOR=100000000 arc-status --show q1 --json)
	[ "$with" = "$without" ]
	[ "$(jq -r .interaction.prompt <<<"$with")" = "May I deploy now?" ]
	[ "$(ARC_NOW=2026-08-26T01:16:00Z ARC_CHECKPOINT_FLOOR=1 arc-status --list | cut -f1,3 | tr '\t\n' ': ')" = "q1:pending " ]
	# and is taken, not refused for a last record it names wrongly: the
	# reader maps the checkpoint, never the journal whole
	local size; size=$(stat -c %s "$ARC_JOURNAL")
	ARC_NOW=2026-08-26T01:16:00Z ARC_CHECKPOINT_FLOOR=1 ASAN_OPTIONS=detect_leaks=0 \
	    strace -qq -e trace=mmap -o "$BATS_TEST_TMPDIR/maps" "$ARC_BIN/arc-status" --list >/dev/null
	grep -q 'MAP_PRIVATE|MAP_POPULATE' "$BATS_TEST_TMPDIR/maps"
	! grep -q "mmap(NULL, $size, PROT_READ, MAP_PRIVATE, " "$BATS_TEST_TMPDIR/maps" || false
	# a later call knows the first event still
	run --separate-stderr apply <<<"$q"
	[ "$(jq -r .replayed <<<"$output")" = true ]
}

@test "an automatic compaction that fails takes back nothing already stored and reported" {
	apply <<<"$(created a)" >/dev/null
	# every archive name it could take is taken by a file that is not the journal
	local n
	for i in $(seq 2 40); do
		printf -v n '%012d' "$i"
		printf 'x\n' >"$ARC_JOURNAL.history.$n"
	done
	for i in $(seq 6); do updated a ".request.message = \"m$i\""; done >"$BATS_TEST_TMPDIR/six"
	# one event a commit: each commit tries, and fails, to compact
	ARC_COMPACT_FLOOR=1 run --separate-stderr apply --batch 1 "$BATS_TEST_TMPDIR/six"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 6 ]
	[[ "$stderr" == *"history.000000000002"* ]]
	[ "$(cat "$ARC_JOURNAL.history.000000000002")" = x ]
	# and the journal it went on appending to is sound, numbered without a gap
	run --separate-stderr arc-status --list
	[ "$status" -eq 0 ]
	[ "$(jq -s '[.[0].seq + range(length)] == map(.seq)' "$ARC_JOURNAL")" = true ]
}

@test "a journal rewritten in place while --compact copies its records: exit 3, never SIGBUS; no temporary file, no archive, the journal as it was written" {
	backup_then_pages
	# the first two reads are the header's and the tail's, the third
	# the compaction's of the first record it keeps
	STOP_AT=pread64 shrink_under 3 "$BATS_TEST_TMPDIR/backup" arc-apply --compact
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[[ "$stderr" == *"shrank while it was read"* ]]
	# (journal.wake is the writers' bell, arc-journal(5): no data)
	[ "$(ls "$(dirname "$ARC_JOURNAL")" | grep -vx journal.wake)" = journal ]
	cmp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/backup"
	[ "$(arc-status)" = "1 notice, normal" ]
}

@test "a dismissal says who dismissed, in --show and --history, across a compaction" {
	apply <<<"$(information build)" >/dev/null
	ARC_NOW=$T0 run --separate-stderr arc-answer --source phone --dismiss build
	[ "$status" -eq 0 ]
	ARC_NOW=$T0 run arc-status --show build
	[[ "$output" == *"dismissed by phone"* ]]
	ARC_NOW=$T0 arc-apply --compact
	ARC_NOW=$T0 run arc-status --history
	[[ "$output" == *"build"*"dismissed by phone"* ]]
	# a new lifecycle under the key is not dismissed
	apply <<<"$(information build)" >/dev/null
	ARC_NOW=$T0 run arc-status --show build
	[[ "$output" != *"dismissed"* ]]
}
