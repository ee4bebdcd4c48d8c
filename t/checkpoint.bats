#!/usr/bin/env bats
# The checkpoint (arc-journal(5)): a large journal's state kept beside it,
# so that a command replays only the records after it.  A cache: checked
# against the journal, never trusted over it, its records checked by
# their checksums when a command uses them.
load helper

# Every journal here is "large": a writer keeps a checkpoint of any size.
export ARC_CHECKPOINT_FLOOR=0

# history: conditions of every kind, in one writer (which leaves the
# checkpoint), then two more records after it.
history() {
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

# flip FILE OFFSET: one byte changed in place (the file stays the same file).
flip() {
	/usr/bin/python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0x20]))' "$1" "$2"
}

# offset_of TEXT: the byte offset of TEXT's first occurrence in the journal.
offset_of() {
	grep -bo -- "$1" "$ARC_JOURNAL" | head -1 | cut -d: -f1
}

@test "a writer keeps a checkpoint of the journal beside it; every view is the same with it and without it" {
	history
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
	history
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
	flip "$ARC_JOURNAL" "$(( $(offset_of '"durable":0') + 3 ))"
	run --separate-stderr arc-status --list
	[ "$status" -eq 0 ]
	rm "$ARC_JOURNAL.checkpoint"
	run --separate-stderr arc-status --list
	[ "$status" -eq 3 ]
}

@test "a record the checkpoint covers is checked when it is used: damaged, it is exit 3 naming its byte" {
	history
	local at; at=$(offset_of '"message":"again 3"')
	flip "$ARC_JOURNAL" $((at + 12))
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
	history
	local good; good=$(views)
	flip "$ARC_JOURNAL.checkpoint" 100
	cp "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/flipped"
	[ "$(views)" = "$good" ]
	# cut short, or empty, as a crash can leave it
	head -c 50 "$BATS_TEST_TMPDIR/flipped" >"$ARC_JOURNAL.checkpoint"
	[ "$(views)" = "$good" ]
	: >"$ARC_JOURNAL.checkpoint"
	[ "$(views)" = "$good" ]
	apply <<<"$(information later)" >/dev/null
	[ -s "$ARC_JOURNAL.checkpoint" ]
	! cmp -s "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/flipped"
}

@test "a checkpoint of another file, or of records no longer there, is ignored" {
	history
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

@test "after a compaction the old file's checkpoint is removed; a writer makes one of the new file" {
	history
	ARC_NOW=2026-08-26T01:30:00Z arc-apply --compact
	[ ! -e "$ARC_JOURNAL.checkpoint" ]
	apply <<<"$(information later)" >/dev/null
	[ -f "$ARC_JOURNAL.checkpoint" ]
	[ "$(ARC_NOW=2026-08-26T01:30:00Z arc-status --json --show later | jq -r .key)" = later ]
	mv "$ARC_JOURNAL.checkpoint" "$BATS_TEST_TMPDIR/aside"
	local without; without=$(views)
	mv "$BATS_TEST_TMPDIR/aside" "$ARC_JOURNAL.checkpoint"
	[ "$(views)" = "$without" ]
}

@test "a checkpoint through a symbolic link, or one others may write, is not read" {
	history
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

@test "a stale temporary checkpoint of a killed writer is removed by the next writer; a live one's is left" {
	apply <<<"$(information a)" >/dev/null
	printf 'arc checkpoint 2\n' >"$ARC_JOURNAL.checkpoint.999999"
	sleep 60 & local live=$!
	printf 'arc checkpoint 2\n' >"$ARC_JOURNAL.checkpoint.$live"
	run --separate-stderr apply <<<"$(information b)"
	[ "$status" -eq 0 ]
	[ ! -e "$ARC_JOURNAL.checkpoint.999999" ]
	[ -e "$ARC_JOURNAL.checkpoint.$live" ]
	[[ "$stderr" == *"removed a stale temporary file"* ]]
	kill $live
}

@test "idempotency holds through a checkpoint: a retried event is a replay, a reused id a conflict" {
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

@test "a leftover temporary file with our own pid (a dead process's that had it) is replaced, not a failure" {
	{ for i in $(seq 12); do information "k$i"; done; } >"$BATS_TEST_TMPDIR/events"
	mkdir -p "${ARC_JOURNAL%/*}"
	run --separate-stderr bash -c ': >"$ARC_JOURNAL.checkpoint.$$"
	    exec "$ARC_BIN/arc-apply" "$1"' _ "$BATS_TEST_TMPDIR/events"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"File exists"* ]]
	[ -s "$ARC_JOURNAL.checkpoint" ]
	! ls "$ARC_JOURNAL".checkpoint.* 2>/dev/null
}
