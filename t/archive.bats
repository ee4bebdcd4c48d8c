#!/usr/bin/env bats
# The journal's history, arc-journal(5)'s "Archive segments": compressed
# once closed, rotated by age and by size, and read back by arc-status
# --history --since/--until.
load helper

# segments: the archive segments beside the journal, one a line
segments() {
	ls "$ARC_JOURNAL".history.* 2>/dev/null | sed "s|^$ARC_JOURNAL||"
}

# no_plain_segment: every segment is compressed
no_plain_segment() {
	! segments | grep -qvE '\.zst$' || false
}

# settle_at WHEN KEY: KEY opened and resolved with the journal's clock at WHEN
settle_at() {
	{ information "$2"; resolved "$2"; } | ARC_NOW=$1 apply >/dev/null
}

# two_segments: a and c settled into a compressed segment each, b after
two_segments() {
	settle_at 2026-08-26T01:16:00Z a
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-08-27T12:00:00Z c
	ARC_NOW=2026-08-27T13:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-08-28T00:00:00Z b
}

# flip_segment_byte FILE OFFSET: one bit of FILE flipped at OFFSET
flip_segment_byte() {
	python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1)
f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0x10]))' "$1" "$2"
}

@test "--compact compresses the segment it leaves: zstdcat | jq reads every record, each with its CRC; the name tells its time span" {
	settle_at 2026-08-26T01:16:00Z a
	settle_at 2026-08-27T09:00:00Z b
	local size; size=$(wc -c <"$ARC_JOURNAL")
	ARC_NOW=2026-09-30T00:00:00Z run --separate-stderr arc-apply --compact
	[ "$status" -eq 0 ]
	[ "$(segments)" = ".history.000000000004.20260826T011600Z-20260827T090000Z.zst" ]
	[ "$(zstdcat "$ARC_JOURNAL".history.* | wc -c)" -eq "$size" ]
	[ "$(zstdcat "$ARC_JOURNAL".history.* | jq -r 'select(.event.type == "request.resolved") | .notification.key' | tr '\n' ' ')" = "a b " ]
	# each record keeps its frame: the CRC-32C of the bytes before it
	zstdcat "$ARC_JOURNAL".history.* | /usr/bin/python3 -c 'import sys, crc32c
for l in sys.stdin.buffer:
    body, crc = l.rstrip(b"\n").rsplit(b",\"crc\":\"", 1)
    assert int(crc[:8], 16) == crc32c.crc32c(body)
print("ok")'
	[ "$(stat -c %a "$ARC_JOURNAL".history.*)" = 600 ]
	# and zcat-style tools that know zstd read it as it is
	zstd -t -q "$ARC_JOURNAL".history.*
}

@test "an automatic compaction hands compression to a detached child: the writer's result first, the segment compressed after" {
	for i in $(seq 30); do information "n$i"; resolved "n$i"; done | apply >/dev/null
	ARC_COMPACT_FLOOR=4096 ARC_NOW=2026-09-30T00:00:00Z arc-apply <<<"$(information fresh)" >"$BATS_TEST_TMPDIR/out"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/out")" = 201 ]
	segments | grep -q .
	# the child holds a shared lock on the folder until it is done
	archive_quiet "$ARC_JOURNAL"
	no_plain_segment
	[ "$(zstdcat "$ARC_JOURNAL".history.* | jq -r 'select(.event.type == "request.resolved") | .notification.key' | wc -l)" -eq 30 ]
	# no temporary of it is left
	! ls "$ARC_JOURNAL".compress.* 2>/dev/null || false
}

@test "--history --since finds an answer given long before the retention period, from a compressed segment, the same record" {
	local q; q=$(apply <<<"$(created deploy)")
	ARC_NOW=2026-08-26T01:17:00Z arc-answer deploy allow >/dev/null
	settle_at 2026-08-26T01:18:00Z other
	ARC_NOW=2026-08-27T00:00:00Z arc-status --history --json >"$BATS_TEST_TMPDIR/live"
	[ "$(jq -r .key "$BATS_TEST_TMPDIR/live" | tr '\n' ' ')" = "deploy other " ]
	ARC_NOW=2026-08-27T00:00:00Z arc-status --history >"$BATS_TEST_TMPDIR/words"
	# weeks later the live journal has let it go, into a compressed segment
	ARC_NOW=2026-10-20T00:00:00Z arc-apply --compact
	no_plain_segment
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history --since 60d --json
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/live")" ]
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history --since 2026-08-26T00:00:00Z --until 2026-08-26T23:59:59Z
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/words")" ]
	[[ "$output" == *"deploy  answered Allow (allow)"* ]]
	# a date alone is its midnight UTC, as journalctl and git take one
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history --since 2026-08-26 --until 2026-08-27
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/words")" ]
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history --since 2026-08-27
	[ -z "$output" ]
	# a range that misses it, a key, an agent
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history --since 30d
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history --since 60d --key deploy --json
	[ "$(jq -r .key <<<"$output")" = deploy ]
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history --since 60d --agent nobody
	[ -z "$output" ]
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history --since 60d --agent codex
	[ "${#lines[@]}" -eq 2 ]
}

@test "--history lists every settled condition, each lifecycle of a key used again too, oldest first, before and after compaction" {
	local q
	for c in allow:1 deny:3; do
		q=$(ARC_NOW=2026-08-26T01:1${c#*:}:00Z apply <<<"$(created k)")
		ARC_NOW=2026-08-26T01:1${c#*:}:00Z apply <<<"$(answer k "$q" ${c%:*})" >/dev/null
		ARC_NOW=2026-08-26T01:1$((${c#*:} + 1)):00Z apply <<<"$(information other)" >/dev/null
		ARC_NOW=2026-08-26T01:1$((${c#*:} + 1)):30Z apply <<<"$(resolved other)" >/dev/null
	done
	ARC_NOW=2026-08-27T00:00:00Z run --separate-stderr arc-status --history --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.key, (.interaction.response.choice_id // .notification.outcome // "-")] | join(":")' <<<"$output" | tr '\n' ' ')" = "k:allow other:- k:deny other:- " ]
	ARC_NOW=2026-08-27T00:00:00Z run --separate-stderr arc-status --history --key k
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"answered Allow (allow)"* ]]
	[[ "${lines[1]}" == *"answered Deny (deny)"* ]]
	# weeks later, from the compressed segment
	ARC_NOW=2026-10-20T00:00:00Z arc-apply --compact
	ARC_NOW=2026-10-20T00:00:00Z run --separate-stderr arc-status --history --since 60d --key k
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"answered Allow (allow)"* ]]
	[[ "${lines[1]}" == *"answered Deny (deny)"* ]]
}

@test "--history's order is the instant each was settled (every digit of its fraction, 0.5 the same as 0.50), then the key, byte by byte: in the live journal and from a compressed segment alike" {
	settle_at 2026-08-26T01:16:00.1234567890Z zz-2
	settle_at 2026-08-26T01:16:00.1234567891Z aa-1
	{ information samekey-b; resolved samekey-b; information samekey-a
	  resolved samekey-a; information abc; resolved abc; information ab
	  resolved ab; } | ARC_NOW=2026-08-26T01:16:00.5Z apply >/dev/null
	settle_at 2026-08-26T01:16:00.50Z a5
	local want="zz-2 aa-1 a5 ab abc samekey-a samekey-b "
	ARC_NOW=2026-08-27T00:00:00Z run arc-status --history --since 10d
	[ "$(awk '{ print $2 }' <<<"$output" | tr '\n' ' ')" = "$want" ]
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact --retain 1h
	no_plain_segment
	[ "$(segments | wc -l)" -eq 1 ]
	ARC_NOW=2026-08-27T00:00:00Z run arc-status --history --since 10d
	[ "$(awk '{ print $2 }' <<<"$output" | tr '\n' ' ')" = "$want" ]
	ARC_NOW=2026-08-27T00:00:00Z run arc-status --history --since 10d --json
	[ "$(jq -r .key <<<"$output" | tr '\n' ' ')" = "$want" ]
}

@test "--history: a range reads only the segments that meet it" {
	settle_at 2026-08-26T01:16:00Z a
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-09-10T00:00:00Z b
	ARC_NOW=2026-09-11T00:00:00Z arc-apply --compact --retain 1h
	[ "$(segments | wc -l)" -eq 2 ]
	# the older segment damaged: a range after it never opens it
	local old; old=$(ls "$ARC_JOURNAL".history.* | head -1)
	flip_segment_byte "$old" 20
	ARC_NOW=2026-09-12T00:00:00Z run --separate-stderr arc-status --history --since 2026-09-05T00:00:00Z
	[ "$status" -eq 0 ]
	[[ "$output" == *"  b  resolved"* ]]
	[[ "$output" != *"  a  "* ]]
	# a range that meets it does, and says so
	ARC_NOW=2026-09-12T00:00:00Z run --separate-stderr arc-status --history --since 30d
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"${old##*/}: a damaged compressed segment"* ]]
}

@test "a bit flip in a compressed segment is reported, not skipped: the rest is still shown, and the exit is 3" {
	settle_at 2026-08-26T01:16:00Z a
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-08-28T00:00:00Z b
	local seg; seg=$(ls "$ARC_JOURNAL".history.*)
	local n; n=$(stat -c %s "$seg")
	flip_segment_byte "$seg" $((n / 2))
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr arc-status --history --since 10d
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"${seg##*/}: a damaged compressed segment"* ]]
	[[ "$output" == *"  b  resolved"* ]]
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr arc-status --history --since 10d --json
	[ "$status" -eq 3 ]
	[ "$(jq -r .key <<<"$output")" = b ]
}

@test "a compressed segment unpacks within what it declares: a bomb, a segment cut short, one of no journal, each skipped with its name while the rest prints" {
	two_segments
	local segs; segs=($(ls "$ARC_JOURNAL".history.*))
	[ "${#segs[@]}" -eq 2 ]
	local dir=${ARC_JOURNAL%/*} before
	# the older segment: 1 GiB of zeros, in a 33 KB frame that says so
	head -c $((1 << 30)) /dev/zero | zstd -q --stream-size=$((1 << 30)) >"$BATS_TEST_TMPDIR/bomb"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/bomb")" -lt 100000 ]
	cp "$BATS_TEST_TMPDIR/bomb" "${segs[0]}"
	before=$(df --output=used -B1M "$dir" | tail -1)
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr arc-status --history --since 10d
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"${segs[0]##*/}: a damaged compressed segment (it claims more than a segment can hold); skipped"* ]]
	[[ "$output" == *"  c  resolved"* ]]
	[[ "$output" == *"  b  resolved"* ]]
	[ $(( $(df --output=used -B1M "$dir" | tail -1) - before )) -lt 64 ]
	# a frame that declares no size; one of no journal; one cut short
	printf 'x%.0s' {1..5000} | zstd -q --no-content-size >"${segs[0]}"
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr arc-status --history --since 10d
	[[ "$stderr" == *"${segs[0]##*/}: a damaged compressed segment (no frame that declares its size); skipped"* ]]
	[[ "$output" == *"  c  resolved"* ]]
	printf 'x%.0s' {1..5000} | zstd -q --stream-size=5000 >"${segs[0]}"
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr arc-status --history --since 10d
	[[ "$stderr" == *"${segs[0]##*/}: a damaged compressed segment (not a journal inside); skipped"* ]]
	[[ "$output" == *"  c  resolved"* ]]
	# a sound segment with bytes after its frame
	zstdcat "${segs[1]}" >"$BATS_TEST_TMPDIR/plain"
	zstd -q -c "$BATS_TEST_TMPDIR/plain" >"$BATS_TEST_TMPDIR/whole"
	{ cat "$BATS_TEST_TMPDIR/whole"; printf 'tail'; } >"${segs[0]}"
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr arc-status --history --since 10d
	[[ "$stderr" == *"${segs[0]##*/}: a damaged compressed segment (bytes after its frame); skipped"* ]]
	[[ "$output" == *"  c  resolved"* ]]
	head -c $(( $(stat -c %s "${segs[1]}") * 2 / 3 )) "${segs[1]}" >"$BATS_TEST_TMPDIR/cut"
	cp "$BATS_TEST_TMPDIR/cut" "${segs[1]}"
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr arc-status --history --since 10d
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"${segs[1]##*/}: a damaged compressed segment (it ends early); skipped"* ]]
	[[ "$output" == *"  b  resolved"* ]]
}

@test "a frame that declares a byte less than it holds is skipped and named, decompressed into memory or into a file" {
	settle_at 2026-08-26T01:16:00Z a
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-08-28T00:00:00Z b
	local seg; seg=$(ls "$ARC_JOURNAL".history.*.zst)
	# RFC 8878 3.1.1.1: the content size, after the descriptor, the
	# window byte (unless single segment) and the dictionary id
	python3 - "$seg" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
assert b[:4] == b'\x28\xb5\x2f\xfd'
fhd = b[4]
single = fhd >> 5 & 1
at = 5 + (0 if single else 1) + [0, 1, 2, 4][fhd & 3]
size = [1 if single else 0, 2, 4, 8][fhd >> 6]
base = 256 if size == 2 else 0	# a two-byte size counts from 256
assert size in (2, 4, 8)
n = int.from_bytes(b[at:at + size], 'little') + base
b[at:at + size] = (n - 1 - base).to_bytes(size, 'little')
open(sys.argv[1], 'wb').write(bytes(b))
PY
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr arc-status --history --since 10d
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"${seg##*/}: a damaged compressed segment (more than its frame declares); skipped"* ]]
	[[ "$output" == *"  b  resolved"* ]]
	ARC_NOW=2026-08-29T00:00:00Z LD_PRELOAD="$BATS_TEST_DIRNAME/smallmem/phys.so" \
	    ARC_TEST_PHYS_PAGES=1 run --separate-stderr arc-status --history --since 10d
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"${seg##*/}: a damaged compressed segment ("*"); skipped"* ]]
	[[ "$output" == *"  b  resolved"* ]]
}

@test "--history reads each compressed segment, never syncing a copy, in workers of its own, one a core, that it reaps, SIGCHLD ignored or not: the answer is the same" {
	needs strace
	two_segments
	no_plain_segment
	[ "$(segments | wc -l)" -eq 2 ]
	ARC_NOW=2026-08-29T00:00:00Z ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e signal=none \
	    -e trace=fsync,fdatasync,sync_file_range,syncfs -o "$BATS_TEST_TMPDIR/trace" \
	    "$ARC_BIN/arc-status" --history --since 10d >"$BATS_TEST_TMPDIR/out"
	[ ! -s "$BATS_TEST_TMPDIR/trace" ]
	# oldest first, whichever worker ended first
	[ "$(awk '{ print $2 }' "$BATS_TEST_TMPDIR/out" | tr '\n' ' ')" = "a c b " ]
	# as many workers as segments, up to one a core, each reaped
	local workers=$(segments | wc -l)
	[ "$(nproc)" -lt "$workers" ] && workers=$(nproc)
	ARC_NOW=2026-08-29T00:00:00Z ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e signal=none \
	    -e trace=clone,clone3,fork,vfork,wait4 -o "$BATS_TEST_TMPDIR/forks" \
	    "$ARC_BIN/arc-status" --history --since 10d >/dev/null
	[ "$(grep -cE ' (clone|clone3|fork|vfork)\(' "$BATS_TEST_TMPDIR/forks")" -eq "$workers" ]
	[ "$(grep -cE ' wait4\(.*= [0-9]+$' "$BATS_TEST_TMPDIR/forks")" -eq "$workers" ]
	# started with SIGCHLD ignored (which would reap the children
	# before it could learn how they ended): the same
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])' arc-status --history --since 10d
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/out")" ]
	grep -q '  b  resolved' "$BATS_TEST_TMPDIR/out"
	# and no file of its own is left beside the journal
	[ "$(ls "${ARC_JOURNAL%/*}" | grep -cv -e '^journal$' -e '^journal\.history\.' -e '^journal\.wake$' -e '^journal\.checkpoint$')" -eq 0 ]
}

# three_segments: a, then c and e, then d settled into a compressed
# segment each (the second the largest), b after
three_segments() {
	settle_at 2026-08-26T01:16:00Z a
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-08-27T12:00:00Z c
	settle_at 2026-08-27T12:30:00Z e
	ARC_NOW=2026-08-27T13:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-08-27T18:00:00Z d
	ARC_NOW=2026-08-27T19:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-08-28T00:00:00Z b
	archive_quiet "$ARC_JOURNAL"
}

# largest_segment: the compressed segment of the most bytes
largest_segment() {
	ls -S "$ARC_JOURNAL".history.*.zst | head -n 1
}

# declared SEGMENT: the plain bytes its zstd frame declares
declared() {
	zstd -lv "$1" | sed -n 's/.*Decompressed Size:.*(\([0-9]*\) B).*/\1/p'
}

# sized_maps TRACE SIZE: the anonymous mappings of SIZE bytes made or
# grown to it, in an strace of mmap and mremap
sized_maps() {
	grep -E "(mmap\(NULL, $2, PROT_READ\|PROT_WRITE, MAP_PRIVATE\|MAP_ANONYMOUS\|MAP_NORESERVE, -1, 0|mremap\(0x[0-9a-f]+, [0-9]+, $2, MREMAP_MAYMOVE)\)" "$1"
}

@test "--history on one core: one worker reads every segment, the largest first, into the one mapping it made for it" {
	needs strace taskset
	three_segments
	no_plain_segment
	[ "$(segments | wc -l)" -eq 3 ]
	ARC_NOW=2026-08-29T00:00:00Z arc-status --history --since 10d >"$BATS_TEST_TMPDIR/cores"
	ARC_NOW=2026-08-29T00:00:00Z ASAN_OPTIONS=detect_leaks=0 taskset -c 0 strace -f -qq \
	    -e signal=none -e trace=clone,clone3,fork,vfork,openat,mmap,mremap \
	    -o "$BATS_TEST_TMPDIR/trace" "$ARC_BIN/arc-status" --history --since 10d >"$BATS_TEST_TMPDIR/one"
	cmp "$BATS_TEST_TMPDIR/cores" "$BATS_TEST_TMPDIR/one"
	[ "$(awk '{ print $2 }' "$BATS_TEST_TMPDIR/one" | tr '\n' ' ')" = "a c e d b " ]
	[ "$(grep -cE ' (clone|clone3|fork|vfork)\(' "$BATS_TEST_TMPDIR/trace")" -eq 1 ]
	# the segments opened in the worker, the largest first
	local worker; worker=$(grep -E ' (clone|clone3|fork|vfork)\(' "$BATS_TEST_TMPDIR/trace" | grep -oE '= [0-9]+$' | tr -dc 0-9)
	[ "$(grep "^$worker " "$BATS_TEST_TMPDIR/trace" | grep -oE 'history\.[^"]*\.zst' | head -n 1)" = "$(basename "$(largest_segment)" | sed 's/^journal\.//')" ]
	# one mapping for the plain bytes, the largest's size, kept for the
	# rest: none made or grown to the size of another
	local most seg
	most=$(declared "$(largest_segment)")
	[ "$(sized_maps "$BATS_TEST_TMPDIR/trace" "$most" | grep -cE "^$worker +mmap\(")" -eq 1 ]
	for seg in "$ARC_JOURNAL".history.*.zst; do
		[ "$(declared "$seg")" -eq "$most" ] ||
		    ! sized_maps "$BATS_TEST_TMPDIR/trace" "$(declared "$seg")" || false
	done
}

@test "--history: a worker that ends in the middle of a segment fails that one alone; one started in its place reads the rest" {
	needs taskset
	three_segments
	no_plain_segment
	# the largest, read first: a record whose frame is sound but whose
	# text is not (a control byte in a title), which ends its worker
	local seg; seg=$(largest_segment)
	zstd -dq "$seg" -o "$BATS_TEST_TMPDIR/plain"
	/usr/bin/python3 - "$BATS_TEST_TMPDIR/plain" <<'PY'
import sys, crc32c
lines = open(sys.argv[1], 'rb').read().split(b"\n")
for i, l in reversed(list(enumerate(lines))):	# the key's last word
    if b'"title":"' in l and b'"notification":{' in l:
        at = l.index(b'"title":"', l.index(b'"notification":{')) + 9
        body = l[:at] + b"\x01" + l[at + 1:l.rindex(b',"crc":"')]
        lines[i] = body + b',"crc":"%08x"}' % crc32c.crc32c(body)
        break
else:
    sys.exit("no record with a title")
open(sys.argv[1], 'wb').write(b"\n".join(lines))
PY
	zstd -q -f "$BATS_TEST_TMPDIR/plain" -o "$seg"
	ARC_NOW=2026-08-29T00:00:00Z run --separate-stderr taskset -c 0 arc-status --history --since 10d
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"${seg##*/}: a damaged record at byte "*" (its text does not parse)"* ]]
	# the other segments and the live journal, all there; of the
	# largest (c and e), nothing
	local keys; keys=$(awk '{ print $2 }' <<<"$output" | tr '\n' ' ')
	[ "$keys" = "a d b " ]
}

@test "--history: a worker that takes no segment, or answers what was not asked, hangs nothing: the segment is read by the command itself, or named and skipped" {
	needs taskset
	three_segments
	ARC_NOW=2026-08-29T00:00:00Z arc-status --history --since 10d >"$BATS_TEST_TMPDIR/all"
	# the first send fails: a worker told nothing, the segment read here
	ARC_NOW=2026-08-29T00:00:00Z LD_PRELOAD="$BATS_TEST_DIRNAME/fanout/socket.so" \
	    ARC_TEST_SEND_FAIL=1 run --separate-stderr timeout 60 taskset -c 0 \
	    arc-status --history --since 10d
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/all")" ]
	# each worker's first answer names another segment: it is ended, the
	# segment named and skipped, the next worker reads the next
	ARC_NOW=2026-08-29T00:00:00Z LD_PRELOAD="$BATS_TEST_DIRNAME/fanout/socket.so" \
	    ARC_TEST_BAD_HEAD=1 run --separate-stderr timeout 60 taskset -c 0 \
	    arc-status --history --since 10d
	[ "$status" -eq 3 ]
	[ "$(grep -c ': what its worker sent is not what was asked; skipped$' <<<"$stderr")" -eq 3 ]
	[ "$output" = "$(grep '  b  ' "$BATS_TEST_TMPDIR/all")" ]
}

@test "--history decompresses a segment into memory of its declared size, or, where that would be more than a sixteenth of the machine's memory, into a file of no name beside it: the same lines" {
	needs strace
	two_segments
	no_plain_segment
	local form dir=${ARC_JOURNAL%/*} most seg
	most=$(declared "$(largest_segment)")
	for form in "" --json; do
		# each process's calls in a file of its own (-ff), whole
		rm -f "$BATS_TEST_TMPDIR"/*.trace.*
		ARC_NOW=2026-08-29T00:00:00Z ASAN_OPTIONS=detect_leaks=0 strace -ff -qq \
		    -e trace=openat,mmap,mremap,madvise -o "$BATS_TEST_TMPDIR/memory.trace" \
		    "$ARC_BIN/arc-status" --history --since 10d $form >"$BATS_TEST_TMPDIR/memory"
		cat "$BATS_TEST_TMPDIR"/memory.trace.* >"$BATS_TEST_TMPDIR/memory.trace"
		# in memory: a mapping of the largest's declared size, left out
		# of a core dump; no file for it
		sized_maps "$BATS_TEST_TMPDIR/memory.trace" "$most" | grep -q .
		grep -qE "^madvise\(0x[0-9a-f]+, $most, MADV_DONTDUMP\)" "$BATS_TEST_TMPDIR/memory.trace"
		! grep -q O_TMPFILE "$BATS_TEST_TMPDIR/memory.trace" || false
		# a machine of one page: a sixteenth of it holds no segment
		ARC_NOW=2026-08-29T00:00:00Z ASAN_OPTIONS=detect_leaks=0 \
		    LD_PRELOAD="$BATS_TEST_DIRNAME/smallmem/phys.so" ARC_TEST_PHYS_PAGES=1 \
		    strace -ff -qq -e trace=openat,mmap,mremap,madvise -o "$BATS_TEST_TMPDIR/file.trace" \
		    "$ARC_BIN/arc-status" --history --since 10d $form >"$BATS_TEST_TMPDIR/file"
		cat "$BATS_TEST_TMPDIR"/file.trace.* >"$BATS_TEST_TMPDIR/file.trace"
		[ "$(grep -c "^openat(AT_FDCWD, \"$dir\", O_RDWR|O_CLOEXEC|O_TMPFILE" "$BATS_TEST_TMPDIR/file.trace")" -eq 2 ]
		for seg in "$ARC_JOURNAL".history.*.zst; do
			! sized_maps "$BATS_TEST_TMPDIR/file.trace" "$(declared "$seg")" || false
		done
		cmp "$BATS_TEST_TMPDIR/memory" "$BATS_TEST_TMPDIR/file"
		[ "$(wc -l <"$BATS_TEST_TMPDIR/memory")" -eq 3 ]
	done
}

@test "a damaged plain segment is not compressed: --archive names the byte and leaves it as it is" {
	settle_at 2026-08-26T01:16:00Z a
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact --retain 1h
	local seg; seg=$(ls "$ARC_JOURNAL".history.*)
	zstd -dq --rm "$seg" -o "${seg%%.2026*}"
	seg=${seg%%.2026*}
	flip_segment_byte "$seg" 100
	cp "$seg" "$BATS_TEST_TMPDIR/before"
	ARC_NOW=2026-08-27T00:00:00Z run --separate-stderr arc-apply --archive
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"${seg##*/}: a damaged record at byte "* ]]
	cmp "$seg" "$BATS_TEST_TMPDIR/before"
	[ "$(segments)" = "${seg#"$ARC_JOURNAL"}" ]
}

@test "rotation by age: segments older than --keep-history (ARC_KEEP_HISTORY, 90 days by default) go, oldest first" {
	settle_at 2026-08-26T01:16:00Z a
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-09-20T00:00:00Z b
	ARC_NOW=2026-09-21T00:00:00Z arc-apply --compact --retain 1h
	settle_at 2026-10-20T00:00:00Z c
	ARC_NOW=2026-10-21T00:00:00Z arc-apply --compact --retain 1h
	[ "$(segments | wc -l)" -eq 3 ]
	# 90 days after the first: nothing is old enough yet
	ARC_NOW=2026-11-20T00:00:00Z arc-apply --archive
	[ "$(segments | wc -l)" -eq 3 ]
	# the clock moves: the first is past 90 days, the others are not
	ARC_NOW=2026-12-01T00:00:00Z arc-apply --archive
	[ "$(segments | cut -d. -f3 | tr '\n' ' ')" = "000000000005 000000000008 " ]
	# a shorter period, from the environment or the option
	ARC_KEEP_HISTORY=60d ARC_NOW=2026-12-01T00:00:00Z arc-apply --archive
	[ "$(segments | cut -d. -f3 | tr '\n' ' ')" = "000000000008 " ]
	ARC_NOW=2026-12-01T00:00:00Z arc-apply --archive --keep-history forever
	[ "$(segments | wc -l)" -eq 1 ]
	ARC_NOW=2026-12-01T00:00:00Z arc-apply --archive --keep-history 1w
	[ -z "$(segments)" ]
	# the live journal is whole: what it holds was never in a segment
	ARC_NOW=2026-12-01T00:00:00Z run --separate-stderr arc-status --json
	[ "$status" -eq 0 ]
}

@test "rotation by size: past --keep-history-bytes (ARC_KEEP_HISTORY_BYTES) the oldest segments go first" {
	local when
	for when in 2026-08-26 2026-08-27 2026-08-28; do
		settle_at "${when}T01:16:00Z" "k$when"
		ARC_NOW=${when}T02:00:00Z arc-apply --compact --retain 1h
	done
	[ "$(segments | wc -l)" -eq 3 ]
	local s2 s3
	s2=$(stat -c %s "$(ls "$ARC_JOURNAL".history.* | sed -n 2p)")
	s3=$(stat -c %s "$(ls "$ARC_JOURNAL".history.* | sed -n 3p)")
	local newest; newest=$(segments | tail -2 | tr '\n' ' ')
	ARC_KEEP_HISTORY_BYTES=$((s2 + s3)) ARC_NOW=2026-08-29T00:00:00Z arc-apply --archive
	[ "$(segments | tr '\n' ' ')" = "$newest" ]
	ARC_NOW=2026-08-29T00:00:00Z arc-apply --archive --keep-history-bytes "$s3"
	[ "$(segments | wc -l)" -eq 1 ]
	run --separate-stderr arc-apply --archive --keep-history-bytes lots
	[ "$status" -eq 2 ]
	run --separate-stderr arc-apply --keep-history 1d <<<"$(information x)"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--keep-history goes with --compact or --archive"* ]]
}

@test "a second name of the live journal (a compaction cut between link and rename) is never compressed nor removed" {
	settle_at 2026-08-26T01:16:00Z a
	ln "$ARC_JOURNAL" "$ARC_JOURNAL.history.000000000099"
	ARC_NOW=2026-12-30T00:00:00Z run --separate-stderr arc-apply --archive --keep-history 1d --keep-history-bytes 1
	[ "$status" -eq 0 ]
	[ "$(segments)" = ".history.000000000099" ]
	[ "$(stat -c %i "$ARC_JOURNAL")" = "$(stat -c %i "$ARC_JOURNAL.history.000000000099")" ]
}

@test "a compressor's stale temporary is removed; --since and --until take RFC 3339 times, dates or durations, and go with --history only" {
	printf 'x\n' >"$BATS_TEST_TMPDIR/x"
	mkdir -p "${ARC_JOURNAL%/*}"
	cp "$BATS_TEST_TMPDIR/x" "$ARC_JOURNAL.compress.999999999"
	cp "$BATS_TEST_TMPDIR/x" "$ARC_JOURNAL.compress.$$"
	arc-apply --archive
	[ ! -e "$ARC_JOURNAL.compress.999999999" ]
	[ -e "$ARC_JOURNAL.compress.$$" ]	# a live process's
	rm "$ARC_JOURNAL.compress.$$"
	run --separate-stderr arc-status --history --since last-week
	[ "$status" -eq 2 ]
	# the refusal names both forms a time can take
	[ "${stderr_lines[0]}" = "arc-status: --since last-week: neither a time (2026-05-01, 2026-05-01T09:00:00Z, today, yesterday) nor a duration ago (90s, 10m, 2h, 1d, 1w, 1h30m)" ]
	run --separate-stderr arc-status --since 1d
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"go with --history"* ]]
	run --separate-stderr arc-status --history --until 2026-08-26T01:16:00Z
	[ "$status" -eq 0 ]
}

@test "a compaction's copies and its record of events seen are left out of the next compressed segment: --history --json the same, every record still framed; rotation takes what only the older segment held" {
	settle_at 2026-08-26T01:16:00Z a
	apply <<<"$(created open)" >/dev/null
	ARC_NOW=2026-08-27T00:00:00Z arc-apply --compact --retain 365d
	settle_at 2026-08-28T00:00:00Z b
	ARC_NOW=2026-08-29T00:00:00Z arc-apply --compact --retain 365d
	settle_at 2026-08-30T00:00:00Z c
	ARC_NOW=2026-08-31T00:00:00Z arc-status --history --json >"$BATS_TEST_TMPDIR/live"
	[ "$(jq -r .key "$BATS_TEST_TMPDIR/live" | sort | tr '\n' ' ')" = "a b c open " ]
	ARC_NOW=2026-08-31T00:00:00Z arc-apply --compact --retain 1h
	[ "$(segments | wc -l)" -eq 3 ]
	no_plain_segment
	local s1 s2 s3
	s1=$(ls "$ARC_JOURNAL".history.* | sed -n 1p)
	s2=$(ls "$ARC_JOURNAL".history.* | sed -n 2p)
	s3=$(ls "$ARC_JOURNAL".history.* | sed -n 3p)
	# the second begins past the copies of a and open the first holds,
	# and past the compaction's record of the events it saw (the live
	# journal's idempotency, no history): its header names the last
	# record left out, its records follow on
	local last1; last1=$(zstdcat "$s1" | tail -1 | jq .seq)
	local head2; head2=$(zstdcat "$s2" | head -1 | jq .seq)
	[ "$head2" -eq $((last1 + 3)) ]
	! zstdcat "$s2" "$s3" | grep -q '"seen":' || false
	grep -q '"seen":' "$ARC_JOURNAL"	# the live journal keeps its own
	[ "$(zstdcat "$s2" | sed -n 2p | jq .seq)" -eq $((head2 + 1)) ]
	! zstdcat "$s2" | jq -r 'select(.durable == '"$last1"') | .index.key // empty' | grep -qx -e a -e open || false
	# the third leaves out its copy of b (the second holds it), and of a
	# and open too: the second left them out, the first holds them
	local last2; last2=$(zstdcat "$s2" | tail -1 | jq .seq)
	[ "$(zstdcat "$s3" | head -1 | jq .seq)" -eq $((last2 + 4)) ]
	for s in "$s1" "$s2" "$s3"; do
		zstdcat "$s" | jq -e . >/dev/null
		zstdcat "$s" | /usr/bin/python3 -c 'import sys, crc32c
for l in sys.stdin.buffer:
    body, crc = l.rstrip(b"\n").rsplit(b",\"crc\":\"", 1)
    assert int(crc[:8], 16) == crc32c.crc32c(body)'
		# each reads alone, as a journal: every seq follows the one before
		zstdcat "$s" | jq -s '[.[].seq] | . as $s | [range(1; length) | select($s[.] != $s[. - 1] + 1)] | length' | grep -qx 0
	done
	ARC_NOW=2026-08-31T00:00:00Z run --separate-stderr arc-status --history --since 400d --json
	[ "$status" -eq 0 ]
	[ "$(jq -S . <<<"$output" | sort)" = "$(jq -S . "$BATS_TEST_TMPDIR/live" | sort)" ]
	# a range that meets only the second still finds b there
	ARC_NOW=2026-08-31T00:00:00Z run --separate-stderr arc-status --history --since 2026-08-27T12:00:00Z --until 2026-08-28T12:00:00Z --json
	[ "$(jq -r .key <<<"$output")" = b ]
	# the oldest gone by age: a and open, whose last change only it
	# held, older than what is kept, go with it; b and c stay as they were
	ARC_NOW=2026-09-28T00:00:00Z arc-apply --archive --keep-history 32d
	[ "$(segments | wc -l)" -eq 2 ]
	ARC_NOW=2026-09-28T00:00:00Z run --separate-stderr arc-status --history --since 400d --json
	[ "$status" -eq 0 ]
	[ "$(jq -S . <<<"$output" | sort)" = "$(jq -S 'select(.key == "b" or .key == "c")' "$BATS_TEST_TMPDIR/live" | sort)" ]
	# by size, the same, oldest first
	ARC_NOW=2026-09-28T00:00:00Z arc-apply --archive --keep-history forever --keep-history-bytes "$(stat -c %s "$s3")"
	[ "$(segments | wc -l)" -eq 1 ]
	ARC_NOW=2026-09-28T00:00:00Z run --separate-stderr arc-status --history --since 400d --json
	[ "$status" -eq 0 ]
	[ "$(jq -S . <<<"$output" | sort)" = "$(jq -S 'select(.key == "c")' "$BATS_TEST_TMPDIR/live" | sort)" ]
}
