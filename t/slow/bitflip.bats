#!/usr/bin/env bats
# make check-slow: every single-bit flip of a journal holding a question,
# an update, an answer, a notice and a resolution is detected (refused
# with its byte offset, the last record's too: a whole record that fails
# its check is damage, not a torn write) or provably harmless (the
# compacted state is byte for byte the unflipped one's); every byte of
# its last record, and of a journal's last record that is the answer, set
# to NUL, a newline and its complement is refused, but for a NUL where a
# power cut can leave zeros (cut as a torn write); every deleted record
# but the last is refused (t/powerloss/flip.c).  t/journal.bats runs the
# same on 1 bit in 13 and the newlines.
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
	ARC_NOW=2026-08-26T01:30:00Z run "$FLIP" -l -s 1 -w 2 "$j" "$BATS_TEST_TMPDIR/mnt"
	grep '^flip: [0-9e]' <<<"$output" | sed 's/^/# /' >&3
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 undetected"* ]]
	[[ "$output" == *", 0 wrong"* ]]
	[[ "$output" == *", 0 not"* ]]
}

# answered_on_a_boundary JOURNAL: a notice, a question, and its answer
# last, the notice's message padded so that the answer's newline is the
# first byte of a 512-byte sector (where a power cut may leave a NUL)
answered_on_a_boundary() {
	local j=$1 pad=0 pass size
	for pass in 1 2; do
		rm -rf "$(dirname "$j")"
		mkdir -p "$(dirname "$j")"
		export ARC_NOW=2026-08-26T01:16:00Z
		arc-emit --event-id n-created --key note --kind information \
		    --title Note --message "x$(head -c "$pad" /dev/zero | tr '\0' x)" |
		    arc-apply -j "$j" >/dev/null
		arc-emit --event-id q-created --key deploy --kind permission \
		    --title Deploy --message "May I deploy?" --choice allow:Allow \
		    --choice deny:Deny --expires-in 1h | arc-apply -j "$j" >/dev/null
		arc-answer -j "$j" --response-id r-1 deploy allow >/dev/null
		size=$(stat -c %s "$j")
		pad=$(( ((pad + 1 - size) % 512 + 512) % 512 ))
	done
	unset ARC_NOW
	[ $(( ($(stat -c %s "$j") - 1) % 512 )) -eq 0 ]
}

@test "a journal whose last record is an acknowledged answer: every byte of it changed (NUL, newline, complement) and 1 bit in 7 flipped is refused; only a NUL on its newline, at a sector's start, is a power cut's zeros, cut" {
	local j="$BATS_TEST_TMPDIR/j/journal"
	mkdir "$BATS_TEST_TMPDIR/mnt"
	answered_on_a_boundary "$j"
	mount -t tmpfs -o size=64m,mode=0700 tmpfs "$BATS_TEST_TMPDIR/mnt"
	ARC_NOW=2026-08-26T01:30:00Z run "$FLIP" -l -s 7 -w 2 "$j" "$BATS_TEST_TMPDIR/mnt"
	grep '^flip: [0-9e]' <<<"$output" | sed 's/^/# /' >&3
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 undetected"* ]]
	[[ "$output" == *" refused, 1 cut as a power cut's zeros, 0 wrong"* ]]
	[[ "$output" == *", 0 not"* ]]
}
