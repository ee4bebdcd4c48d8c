#!/usr/bin/env bats
# make check-slow: power loss (issue 9).  Each workload runs once for real
# under an LD_PRELOAD shim that records its writes, syncs, renames and
# what it printed (t/powerloss/shim.c); t/powerloss/powerloss then builds
# every state a power loss could have left (t/powerloss/crashstates.py:
# what was synced, plus any subset of what was written after, whole, lost,
# zeroed, garbage or torn at 512- and 4096-byte boundaries, and folder
# entries made or not unless their folder was synced) and checks each
# through the commands: the journal opens or is cut with a warning naming
# the offset, nothing acknowledged is missing, nothing is applied twice.
# The number of states checked is printed for each workload.  What a
# power loss cannot leave (the acknowledged answer's record whole, a byte
# of it changed) is refused by every command (--damage-last).
load ../helper

POWERLOSS="$BATS_TEST_DIRNAME/../powerloss/powerloss"

export PL_SHIM="$BATS_TEST_DIRNAME/../powerloss/shim.so"	# make test-helpers

setup_file() {
	[ -f "$PL_SHIM" ] || { echo "no $PL_SHIM: make test-helpers"; false; }
}

teardown() {
	mountpoint -q "$BATS_TEST_TMPDIR/mnt" 2>/dev/null && umount "$BATS_TEST_TMPDIR/mnt"
	arc_teardown
}

# powerloss [--drop-syncs] WORKLOAD...: on a tmpfs of its own (the checks
# sync thousands of times); the counts go to the TAP stream
powerloss() {
	mkdir "$BATS_TEST_TMPDIR/mnt"
	mount -t tmpfs -o size=512m,mode=0700 tmpfs "$BATS_TEST_TMPDIR/mnt"
	run python3 "$POWERLOSS" --work "$BATS_TEST_TMPDIR/mnt" "$@"
	grep -E '^powerloss: [a-z-]*: ([0-9]|the last)' <<<"$output" | sed 's/^/# /' >&3
	echo "$output"
}

@test "power loss during an arc-apply batch (two events a sync, and all under one sync)" {
	powerloss apply apply-one
	[ "$status" -eq 0 ]
	[[ "$output" == *"apply: "*" states checked, 0 failed"* ]]
	[[ "$output" == *"apply-one: "*" states checked, 0 failed"* ]]
}

@test "power loss during a first arc-apply, into folders that do not exist yet" {
	powerloss apply-new
	[ "$status" -eq 0 ]
	[[ "$output" == *"apply-new: "*" states checked, 0 failed"* ]]
}

@test "power loss during arc-answer; and the answer acknowledged, any byte of its record changed, is refused, never taken for a torn write" {
	powerloss --damage-last answer
	[ "$status" -eq 0 ]
	[[ "$output" == *"answer: "*" states checked, 0 failed"* ]]
	[[ "$output" =~ answer:\ the\ last\ record\'s\ ([0-9]+)\ bytes\ changed,\ ([0-9]+)\ refused,\ 0\ not ]]
	[ "${BASH_REMATCH[1]}" -gt 1000 ]
	[ "${BASH_REMATCH[2]}" -eq "${BASH_REMATCH[1]}" ]
}

@test "power loss between an answer and its receipt (arc-wait hands it over, the receipt unsynced): the answer stands, the receipt may be lost, never a receipt without its answer" {
	powerloss handover
	[ "$status" -eq 0 ]
	[[ "$output" == *"handover: "*" states checked, 0 failed"* ]]
}

@test "power loss during arc-apply --compact" {
	powerloss compact
	[ "$status" -eq 0 ]
	[[ "$output" == *"compact: "*" states checked, 0 failed"* ]]
}

@test "power loss during arc-apply --archive: a segment compressed, an old one removed; no record of the others lost, no segment half there" {
	powerloss archive
	[ "$status" -eq 0 ]
	[[ "$output" == *"archive: "*" states checked, 0 failed"* ]]
}

@test "the checker itself: with every sync of --archive taken as lost, it finds a segment gone or half there" {
	powerloss --drop-syncs archive
	[ "$status" -eq 1 ]
	[[ "$output" == *"does not decompress"* || "$output" == *"records of the young segment are missing"* ]]
}

@test "power loss with a checkpoint beside every journal: written unsynced, torn or lost, it never outweighs the journal" {
	powerloss --checkpoint apply apply-one answer compact
	[ "$status" -eq 0 ]
	local w
	for w in apply apply-one answer compact; do
		[[ "$output" == *"$w: "*" states checked, 0 failed"* ]]
	done
	# the runs wrote checkpoints, so the states held them
	grep -q 'journal\.checkpoint' "$BATS_TEST_TMPDIR"/mnt/apply/log
}

@test "the checker itself: with every sync taken as lost, it finds acknowledged results missing" {
	powerloss --drop-syncs answer apply
	[ "$status" -eq 1 ]
	[[ "$output" == *"the acknowledged answer is missing"* ]]
	[[ "$output" == *"acknowledged b1-created is missing"* ]]
}

@test "power loss after arc-status --follow made the journal's folders, then a writer's first batch: the folders it made are synced" {
	powerloss follow-new
	[ "$status" -eq 0 ]
	[[ "$output" == *"follow-new: "*" states checked, 0 failed"* ]]
}
