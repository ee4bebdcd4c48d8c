#!/usr/bin/env bats
# make check-slow: crashes, full disks, read-only file systems, and many
# processes on one journal.  Needs root for its mounts (CI runs as root).
load ../helper

BENCH="$BATS_TEST_DIRNAME/../../bench"

teardown() {
	local m
	for m in "$BATS_TEST_TMPDIR"/mnt*; do
		mountpoint -q "$m" 2>/dev/null || continue
		# a compressor a writer handed on holds the folder's lock while
		# it works (arc-journal(5)): its end first, then the unmount
		timeout 20 flock "$m" true 2>/dev/null || true
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	arc_teardown
}

# fs SIZE [OPTS]: a small tmpfs of our own, printed
fs() {
	local m; m=$(mktemp -d "$BATS_TEST_TMPDIR/mntXXXX")
	mount -t tmpfs -o "size=$1${2:+,$2}" tmpfs "$m"
	echo "$m"
}

@test "200 SIGKILLs at random moments: nothing acknowledged is lost, nothing stored twice" {
	run "$BATS_TEST_DIRNAME/../crash-test" 200
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"200 kills survived"* ]]
}

@test "a full disk: exit 3 with a clear error; what was acknowledged is stored" {
	local m; m=$(fs 256k)
	"$BENCH/gen-events" 2000 >"$BATS_TEST_TMPDIR/stream"
	run --separate-stderr arc-apply --batch 20 -j "$m/journal" "$BATS_TEST_TMPDIR/stream"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"cannot store records: No space left on device"* ]]
	[[ "$stderr" == *"were not applied"* ]]
	[ "${#lines[@]}" -gt 0 ]
	# the journal ends with a whole record, and holds every acknowledged event
	[ "$(tail -c 1 "$m/journal" | od -An -c | tr -d ' ')" = '\n' ]
	run arc-status -j "$m/journal" --json
	[ "$status" -eq 0 ]
	local acked stored
	acked=$(arc-apply -j "$m/journal" --batch 20 "$BATS_TEST_TMPDIR/stream" 2>/dev/null | jq -r 'select(.replayed) | .event_id' | wc -l || true)
	[ "$acked" -ge 20 ]
}

@test "a full disk under a long batch written ahead as it grows: exit 3, nothing of the batch acknowledged, the file cut back to where the batch began" {
	local m size; m=$(fs 1m)
	"$BENCH/gen-events" 2000 >"$BATS_TEST_TMPDIR/stream"
	head -n 5 "$BATS_TEST_TMPDIR/stream" >"$BATS_TEST_TMPDIR/first"
	arc-apply -q -j "$m/journal" "$BATS_TEST_TMPDIR/first" >/dev/null
	size=$(stat -c %s "$m/journal")
	arc-status -j "$m/journal" --list >"$BATS_TEST_TMPDIR/before"
	# one batch of 1,995 events: some 2.6 MB of records, a quarter of a
	# MiB at a time written ahead of its append (arc-journal(5))
	tail -n +6 "$BATS_TEST_TMPDIR/stream" >"$BATS_TEST_TMPDIR/rest"
	run --separate-stderr arc-apply -j "$m/journal" "$BATS_TEST_TMPDIR/rest"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"cannot store records: No space left on device"* ]]
	[ -z "$output" ]
	[ "$(stat -c %s "$m/journal")" -eq "$size" ]
	# the five before it stand, and none of the rest is stored
	run arc-apply -j "$m/journal" "$BATS_TEST_TMPDIR/first"
	[ "$status" -eq 0 ]
	[ "$(jq -s 'map(select(.replayed)) | length' <<<"$output")" -eq 5 ]
	arc-status -j "$m/journal" --list >"$BATS_TEST_TMPDIR/after"
	cmp "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
}

@test "a journal on a read-only file system: exit 3 with a clear error, nothing printed" {
	local m; m=$(fs 64k ro)
	# ARC_JOURNAL's folders are made, as the usual journal's: mkdir meets
	# the read-only file system (a -j folder that is not there is refused
	# before, t/bind.bats)
	ARC_JOURNAL="$m/arc/journal" run --separate-stderr arc-apply <<<"$(created a)"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	[[ "$stderr" == *"Read-only file system"* ]]
}

@test "a journal made read-only later: writers exit 3, readers still read" {
	local m; m=$(fs 64k)
	apply -j "$m/journal" <<<"$(created a)" >/dev/null
	mount -o remount,ro "$m"
	run --separate-stderr apply -j "$m/journal" <<<"$(created b)"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-status -j "$m/journal" --json
	[ "$status" -eq 0 ]
	[ "$(field .pending)" -eq 1 ]
}

# streams N: N disjoint streams of 300 events (whole conditions each)
streams() {
	mkdir -p "$BATS_TEST_TMPDIR/parts" "$BATS_TEST_TMPDIR/outs"
	"$BENCH/gen-events" $(($1 * 300)) >"$BATS_TEST_TMPDIR/all"
	split -l 300 -d -a 2 "$BATS_TEST_TMPDIR/all" "$BATS_TEST_TMPDIR/parts/"
}

# same_as_one_process: the state equals one process applying every part
same_as_one_process() {
	cat "$BATS_TEST_TMPDIR"/parts/* | ARC_NOW=2026-08-26T01:16:00Z arc-apply -q -j "$BATS_TEST_TMPDIR/single" >/dev/null
	diff <(ARC_NOW=2026-08-26T01:16:00Z arc-status --list | sort) \
	    <(ARC_NOW=2026-08-26T01:16:00Z arc-status -j "$BATS_TEST_TMPDIR/single" --list | sort)
	diff <(ARC_NOW=2026-08-26T01:16:00Z arc-status --json) \
	    <(ARC_NOW=2026-08-26T01:16:00Z arc-status -j "$BATS_TEST_TMPDIR/single" --json)
}

@test "8 processes applying disjoint streams: the state equals a single-process replay" {
	streams 8
	local p pids=()
	for p in "$BATS_TEST_TMPDIR"/parts/*; do
		ARC_NOW=2026-08-26T01:16:00Z arc-apply -q --batch $((RANDOM % 9 + 1)) "$p" >"$BATS_TEST_TMPDIR/outs/${p##*/}" &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	[ "$(cat "$BATS_TEST_TMPDIR"/outs/* | jq -s 'map(select(.status >= 300)) | length')" -eq 0 ]
	# every event once, in the live journal or (compacted out) an archive
	archive_quiet "$ARC_JOURNAL"
	[ "$(zstdcat -qf "$ARC_JOURNAL".history.* "$ARC_JOURNAL" 2>/dev/null | grep -c '"event":{')" -eq 2400 ]
	[ "$(tail -n +2 "$ARC_JOURNAL" | jq -r .seq | sort -n | uniq -d | wc -l)" -eq 0 ]
	same_as_one_process
}

@test "16 processes answering one question with different response ids: exactly one wins" {
	apply <<<"$(created deploy)" >/dev/null
	local i pids=()
	for i in $(seq 16); do
		ARC_NOW=2026-08-26T01:17:00Z arc-answer --response-id "r$i" deploy allow >"$BATS_TEST_TMPDIR/a$i" 2>/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	[ "$(cat "$BATS_TEST_TMPDIR"/a* | jq -s 'map(select(.status == 200)) | length')" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR"/a* | jq -s 'map(select(.error.code == "conflict")) | length')" -eq 15 ]
	[ "$(tail -n +2 "$ARC_JOURNAL" | grep -c '"type":"response.submitted"')" -eq 1 ]
}

@test "compaction running while 4 writers append: no record lost" {
	streams 4
	local p i pids=()
	for p in "$BATS_TEST_TMPDIR"/parts/*; do
		ARC_NOW=2026-08-26T01:16:00Z arc-apply -q --batch 3 "$p" >"$BATS_TEST_TMPDIR/outs/${p##*/}" &
		pids+=($!)
	done
	for i in $(seq 25); do ARC_NOW=2026-08-26T01:16:00Z arc-apply --compact; sleep 0.02; done
	wait "${pids[@]}" || true
	[ "$(cat "$BATS_TEST_TMPDIR"/outs/* | jq -s 'map(select(.status >= 300)) | length')" -eq 0 ]
	same_as_one_process
}

@test "SIGKILL during automatic compactions: the journal reopens, nothing stored is lost or doubled" {
	local prep="$BATS_TEST_TMPDIR/prep" k d ids
	mkdir -p "$prep"
	"$BENCH/gen-events" 8000 | ARC_JOURNAL="$prep/journal" ARC_NOW=2026-08-26T01:16:00Z arc-apply -q >/dev/null
	ids() { # the event ids stored, each file once (a killed compaction may leave a second name)
		archive_quiet "$1"
		ls -i "$1".history.* "$1" 2>/dev/null | sort -u -k1,1 | awk '{ print $2 }' |
		    xargs zstdcat -qf | grep -F '"event":{' | awk -F'"event_id":"' '{ split($2, v, "\""); print v[1] }' | sort
	}
	ids "$prep/journal" >"$BATS_TEST_TMPDIR/before"
	local pending; pending=$(ARC_JOURNAL="$prep/journal" ARC_NOW=2026-09-10T00:00:00Z arc-status --json | jq .pending)
	for k in $(seq 30); do
		d="$BATS_TEST_TMPDIR/r$k"
		mkdir -p "$d"
		cp -p "$prep"/journal* "$d/"
		# settled conditions are past retention: this writer compacts
		created "new$k" '.request.response.expires_at = "2027-01-01T00:00:00Z"' |
		    ARC_JOURNAL="$d/journal" ARC_NOW=2026-09-10T00:00:00Z arc-apply -q >/dev/null 2>&1 &
		sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
		kill -KILL $! 2>/dev/null || true
		wait $! 2>/dev/null || true
		ARC_JOURNAL="$d/journal" ARC_NOW=2026-09-10T00:00:00Z arc-apply -q </dev/null
		ARC_JOURNAL="$d/journal" ARC_NOW=2026-09-10T00:00:00Z arc-apply -q <<<"$(information "after$k")" >/dev/null
		[ -z "$(ls "$d" | grep '[.]compact[.]')" ]
		# every event stored before is stored still, and none twice
		ids "$d/journal" >"$d/after"
		[ -z "$(comm -23 "$BATS_TEST_TMPDIR/before" "$d/after")" ]
		[ -z "$(uniq -d "$d/after")" ]
		# the pending questions are all there, with or without the new one
		local now; now=$(ARC_JOURNAL="$d/journal" ARC_NOW=2026-09-10T00:00:00Z arc-status --json | jq .pending)
		[ "$now" -ge "$pending" ] && [ "$now" -le $((pending + 1)) ]
	done
	ls "$BATS_TEST_TMPDIR"/r*/journal.history.* | wc -l
}

@test "a journal rewritten in place under a reader (a restore, copytruncate): the bar says unreadable, exit 3, never SIGBUS" {
	export ARC_CHECKPOINT_FLOOR=999999999999 ARC_COMPACT_FLOOR=999999999999
	"$BENCH/gen-events" 60000 | arc-apply >/dev/null
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/backup"
	local i rc shrunk=0 out
	for i in $(seq 80); do
		out=$BATS_TEST_TMPDIR/bar.$i
		arc-status >"$out" 2>/dev/null &
		sleep 0.0$((i % 9 + 1))
		cp "$BATS_TEST_TMPDIR/backup" "$ARC_JOURNAL"	# truncates, then writes
		rc=0
		wait $! || rc=$?
		[ "$rc" -ne 135 ] || { echo "run $i: killed by SIGBUS"; false; }
		[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { echo "run $i: exit $rc"; false; }
		if [ "$rc" -eq 3 ]; then
			[ "$(cat "$out")" = "arc: journal unreadable" ]
			shrunk=$((shrunk + 1))
		fi
		[ "$shrunk" -lt 3 ] || break
	done
	echo "# $shrunk of $i reads saw the journal shrink under them" >&3
	[ "$shrunk" -ge 1 ]
}

@test "a compaction that does not fit on the disk is not tried again by the next writer until the journal has grown by a quarter" {
	local m; m=$(fs 8m)
	export ARC_JOURNAL="$m/journal"
	# 400 conditions, each updated four times: four fifths of it dead
	jq -nc --arg msg "$(printf '%*s' 900 '' | tr ' ' m)" 'range(400) as $k | range(5) as $u |
	    {arc_version:"0.2", event_id:"e\($k)-\($u)", event_type:(if $u == 0 then "request.created" else "request.updated" end),
	     occurred_at:"2026-08-26T01:15:00Z", sender:{id:"codex"},
	     request:{key:"k\($k)", kind:"information", message:"\($u) \($msg)"}}' >"$BATS_TEST_TMPDIR/events"
	ARC_COMPACT_FLOOR=999999999 apply "$BATS_TEST_TMPDIR/events" >/dev/null
	local size; size=$(stat -c %s "$ARC_JOURNAL")
	# the disk nearly full: room for a few records, not for the live ones
	dd if=/dev/zero of="$m/filler" bs=4k count=$(( ($(stat -f -c '%a' "$m") * $(stat -f -c '%S' "$m") - 200000) / 4096 )) 2>/dev/null || true
	export ARC_COMPACT_FLOOR=100000
	run --separate-stderr apply <<<"$(information one)"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"No space left on device"* ]]
	ls "$m" | grep -qx "journal.nospace.[0-9]*"
	# the next writers do not try: no temporary file, no warning
	for k in two three; do
		ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat -o "$BATS_TEST_TMPDIR/trace.$k" \
		    arc-apply <<<"$(information $k)" >/dev/null 2>"$BATS_TEST_TMPDIR/err.$k"
		! grep -q 'journal\.compact\.' "$BATS_TEST_TMPDIR/trace.$k" || false
		[ ! -s "$BATS_TEST_TMPDIR/err.$k" ]
	done
	# room again, and the journal a quarter larger: the next writer compacts
	rm "$m/filler"
	jq -nc --arg msg "$(printf '%*s' 900 '' | tr ' ' m)" 'range(800) as $k |
	    {arc_version:"0.2", event_id:"g\($k)", event_type:"request.created",
	     occurred_at:"2026-08-26T01:15:00Z", sender:{id:"codex"},
	     request:{key:"g\($k)", kind:"information", message:$msg}}' | apply >/dev/null
	[ "$(stat -c %s "$ARC_JOURNAL")" -lt "$size" ]	# compacted
	! ls "$m" | grep -q "journal.nospace." || false
	ls "$m" | grep -q "journal.history."
}
