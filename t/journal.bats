#!/usr/bin/env bats
# The journal's life (arc-journal(5)): framed records, retention, automatic
# compaction into archive segments, the version 1 upgrade, salvage, and a
# mirror of another host's conditions.
load helper

T0=2026-08-26T01:16:00Z
LATER=2026-09-10T00:00:00Z	# past the 7-day retention of what T0 settled

# Debian's python3-crc32c, an implementation that is not ours.
crc_ok() {
	/usr/bin/python3 -c 'import sys, crc32c
for n, l in enumerate(open(sys.argv[1], "rb"), 1):
    body, crc = l.rstrip(b"\n").rsplit(b",\"crc\":\"", 1)
    assert crc[8:] == b"\"}", n
    assert int(crc[:8], 16) == crc32c.crc32c(body), n
print("ok")' "$1"
}

@test "every record, the header too, carries the CRC-32C of its bytes, as python3-crc32c computes it" {
	local q; q=$(apply <<<"$(created a)")
	{ updated a; answer a "$(apply <<<"$(updated a)")" allow; information n; resolved n; } |
	    apply >/dev/null 2>&1 || true
	[ "$(wc -l <"$ARC_JOURNAL")" -ge 5 ]
	run crc_ok "$ARC_JOURNAL"
	[ "$output" = ok ]
}

@test "seq grows by one from the header's, and durable names a record before" {
	{ created a; created b; information c; } >"$BATS_TEST_TMPDIR/three"
	apply "$BATS_TEST_TMPDIR/three" >/dev/null	# one batch, one sync
	apply <<<"$(created d)" >/dev/null
	[ "$(jq -s 'map(.seq)' "$ARC_JOURNAL" | jq -c .)" = '[0,1,2,3,4]' ]
	[ "$(tail -n +2 "$ARC_JOURNAL" | jq -s 'map(.durable)' | jq -c .)" = '[0,0,0,3]' ]
}

@test "recorded time never runs backwards: an earlier clock records the latest time" {
	ARC_NOW=2026-08-26T05:00:00Z arc-apply <<<"$(information a)" >/dev/null
	run --separate-stderr env ARC_NOW=2026-08-26T01:00:00Z arc-apply <<<"$(information b)"
	[ "$(field .notification.created_at)" = 2026-08-26T05:00:00Z ]
	[ "$(tail -1 "$ARC_JOURNAL" | jq -r .at)" = 2026-08-26T05:00:00Z ]
}

@test "the first and last instants a clock can give are handled" {
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

# A journal with settled history at T0 and one question still pending.
history() {
	local i
	for i in $(seq 30); do information "n$i"; resolved "n$i"; done | apply >/dev/null
	apply <<<"$(created waiting '.request.response.expires_at = "2026-12-31T00:00:00Z"')" >/dev/null
}

@test "retention: a settled condition leaves the live journal, into an archive segment; a pending one stays" {
	history
	local size; size=$(wc -c <"$ARC_JOURNAL")
	ARC_NOW=$LATER run --separate-stderr arc-apply --compact
	[ "$status" -eq 0 ]
	[ "$(wc -c <"$ARC_JOURNAL")" -lt $((size / 5)) ]
	[ "$(jq -r '.notification.key // empty' "$ARC_JOURNAL" | sort -u)" = waiting ]
	# nothing was dropped: the archive holds the whole history, readable by jq
	local seg; seg=$(ls "$ARC_JOURNAL".history.*)
	[ "$(cmp "$seg" <(head -c "$size" "$seg") && echo same)" = same ]
	[ "$(jq -r 'select(.event.type == "request.resolved") | .notification.key' "$seg" | wc -l)" -eq 30 ]
	run crc_ok "$seg"
	[ "$output" = ok ]
	# the pending question is still answerable
	run --separate-stderr env ARC_NOW=$LATER arc-answer waiting allow
	[ "$status" -eq 0 ]
}

@test "retention: --retain keeps what is younger; a keyless request is forgotten with its window" {
	history
	ARC_NOW=$LATER arc-apply --compact --retain 30d
	[ "$(jq -r '.notification.key // empty' "$ARC_JOURNAL" | sort -u | wc -l)" -eq 31 ]
	ARC_NOW=$LATER arc-apply --compact --retain 1d
	[ "$(jq -r '.notification.key // empty' "$ARC_JOURNAL" | sort -u | wc -l)" -eq 1 ]
	[ "$(ls "$ARC_JOURNAL".history.* | wc -l)" -eq 2 ]
}

@test "automatic compaction: a writer past the floor with mostly dead bytes compacts on its own" {
	history
	local size; size=$(wc -c <"$ARC_JOURNAL")
	# below the floor nothing happens
	ARC_NOW=$LATER arc-apply <<<"$(information fresh1)" >/dev/null
	[ "$(wc -c <"$ARC_JOURNAL")" -gt "$size" ]
	! ls "$ARC_JOURNAL".history.* 2>/dev/null
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
	ls "$ARC_JOURNAL".history.*
	# the replay of an event inside the window is still a replay
	run --separate-stderr apply <<<"$ev"
	[ "$(field .replayed)" = true ]
	# the question as last updated is answerable with its digest and nonce
	q=$(apply <<<"$(updated keep '.request.message = "m40"')")
	run --separate-stderr apply <<<"$(answer keep "$q" allow)"
	[ "$(field .status)" = 200 ]
	[ "$(field .interaction.response.choice_id)" = allow ]
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

@test "a version 1 journal is read as it is, then upgraded by the first writer" {
	mkdir -p "${ARC_JOURNAL%/*}"
	cp "$FIXTURES/fuzz/fuzz_journal/five-kinds-v1" "$ARC_JOURNAL"
	chmod 600 "$ARC_JOURNAL"
	local before; before=$(ARC_NOW=$T0 arc-status --json)
	[ "$(head -1 "$ARC_JOURNAL")" = '{"arc_journal":1}' ]
	run --separate-stderr apply <<<"$(information new)"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"upgrading a version 1 journal"* ]]
	[ "$(head -1 "$ARC_JOURNAL" | jq .arc_journal)" = 2 ]
	run crc_ok "$ARC_JOURNAL"
	[ "$output" = ok ]
	cmp "$FIXTURES/fuzz/fuzz_journal/five-kinds-v1" "$ARC_JOURNAL".history.*
	apply <<<"$(resolved new)" >/dev/null
	[ "$(ARC_NOW=$T0 arc-status --json)" = "$before" ]
}

@test "salvage: the readable records of a damaged journal go to a new one; the old is only read" {
	{ created a; information b; created c; information d; } | apply >/dev/null
	sed -i '3s/"at":"/"at":"X/' "$ARC_JOURNAL"	# b's record
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/damaged"
	run --separate-stderr arc-status
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"damaged record at byte"* ]]
	run --separate-stderr arc-apply --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"skipping a damaged record at byte $(head -2 "$ARC_JOURNAL" | wc -c)"* ]]
	cmp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/damaged"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/new")" = 600 ]
	ARC_NOW=$T0 run --separate-stderr arc-status -j "$BATS_TEST_TMPDIR/new" --list
	[ "$status" -eq 0 ]
	[ "$(cut -f1 <<<"$output" | sort | tr '\n' ' ')" = "a c d " ]
	# the salvaged journal is a journal: it takes new events
	run --separate-stderr apply -j "$BATS_TEST_TMPDIR/new" <<<"$(information e)"
	[ "$status" -eq 0 ]
	# and it never overwrites
	run --separate-stderr arc-apply --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -eq 3 ]
}

@test "a stale temporary file of a killed compaction is removed by the next writer" {
	apply <<<"$(information a)" >/dev/null
	printf '{"nonce":"left-behind"}\n' >"$ARC_JOURNAL.compact.999999"
	run --separate-stderr apply <<<"$(information b)"
	[ "$status" -eq 0 ]
	[ ! -e "$ARC_JOURNAL.compact.999999" ]
	[[ "$stderr" == *"removed a stale temporary file"* ]]
}

@test "a mirror: another host's conditions, as it prints them, with their nonce and digest" {
	local host="$BATS_TEST_TMPDIR/host" r
	r=$(apply -j "$host" <<<"$(created deploy)")
	jq -c '{notification, interaction}' <<<"$r" | apply -j "$ARC_JOURNAL" --mirror >/dev/null
	ARC_NOW=$T0 run arc-status --json
	[ "$(field .pending)" -eq 1 ]
	# an answer built from the mirror is accepted by the host
	ARC_NOW=$T0 arc-answer --emit deploy allow | apply -j "$host" >"$BATS_TEST_TMPDIR/res"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/res")" = 200 ]
	# the host's new state replaces the mirrored one; removal resolves it
	jq -c '{notification, interaction}' "$BATS_TEST_TMPDIR/res" | apply --mirror >/dev/null
	[ "$(ARC_NOW=$T0 arc-status --json | jq .pending)" -eq 0 ]
	apply --mirror <<<'{"key":"deploy","removed":true}' >/dev/null
	[ "$(ARC_NOW=$T0 arc-status --json | jq .active)" -eq 0 ]
	# what is not a condition is refused, naming the line
	run --separate-stderr apply --mirror <<<'{"notification":{"key":"x"}}'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"-:1: x: /notification"* ]]
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

@test "a mirror records a condition once, however often the broker redelivers it" {
	local host="$BATS_TEST_TMPDIR/host" cond
	cond=$(apply -j "$host" <<<"$(created deploy)" | jq -c '{notification, interaction}')
	for i in 1 2 3; do echo "$cond"; done | apply --mirror >/dev/null
	[ "$(tail -n +2 "$ARC_JOURNAL" | wc -l)" -eq 1 ]
	apply -j "$host" <<<"$(updated deploy '.request.message = "Now?"')" |
	    jq -c '{notification, interaction}' | apply --mirror >/dev/null
	[ "$(tail -n +2 "$ARC_JOURNAL" | wc -l)" -eq 2 ]
}

@test "salvage keeps the events it read: a retry against the salvaged journal is a replay" {
	local ev; ev=$(information a)
	{ echo "$ev"; information b; information c; } | apply >/dev/null
	run --separate-stderr arc-apply --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -eq 0 ]
	run --separate-stderr apply -j "$BATS_TEST_TMPDIR/new" <<<"$ev"
	[ "$(field .replayed)" = true ]
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

@test "a FIFO in the journal's place is refused at once, by readers and writers" {
	mkdir -p "${ARC_JOURNAL%/*}"
	mkfifo -m 600 "$ARC_JOURNAL"
	run timeout 5 arc-status
	[ "$status" -eq 3 ]
	run timeout 5 arc-apply <<<"$(information a)"
	[ "$status" -eq 3 ]
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
