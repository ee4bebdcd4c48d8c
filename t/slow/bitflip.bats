#!/usr/bin/env bats
# make check-slow: every single-bit flip of a journal holding a question,
# an update, an answer, a notice and a resolution is detected (refused
# with its byte offset, or cut as a damaged final record) or provably
# harmless (the compacted state is byte for byte the unflipped one's);
# every deleted record but the last is refused (t/powerloss/flip.c).
# t/journal.bats runs the same on 1 bit in 13 and the newlines.
load ../helper

FLIP="$BATS_TEST_DIRNAME/../powerloss/flip"	# make test-helpers

setup_file() {
	[ -x "$FLIP" ] || { echo "no $FLIP: make test-helpers"; false; }
}

teardown() {
	mountpoint -q "$BATS_TEST_TMPDIR/mnt" 2>/dev/null && umount "$BATS_TEST_TMPDIR/mnt"
	arc_teardown
}

@test "every single-bit flip of a journal of five kinds of record: detected or harmless" {
	local j="$BATS_TEST_TMPDIR/j/journal"
	mkdir "$BATS_TEST_TMPDIR/mnt"
	"$BATS_TEST_DIRNAME/../powerloss/five-kinds" "$j"
	# the flipped copies live on a tmpfs: a harmless flip compacts (syncs)
	mount -t tmpfs -o size=64m,mode=0700 tmpfs "$BATS_TEST_TMPDIR/mnt"
	ARC_NOW=2026-08-26T01:30:00Z run "$FLIP" -s 1 -w 2 "$j" "$BATS_TEST_TMPDIR/mnt"
	grep '^flip: [0-9]' <<<"$output" | sed 's/^/# /' >&3
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 undetected"* ]]
	[[ "$output" == *", 0 not"* ]]
}
