#!/usr/bin/env bats
# The pure functions of the lower layers (L0-L3) against their standards:
# t/unit.c (built by make test-helpers), one TAP line a check.  Here: all
# of them pass, and each failing one is named.
load helper

@test "t/unit: CRC-32C, canonical JSON, RFC 3339 times, durations, the safe-text rule, the cut at a character and the record codec, against their standards" {
	run "$BATS_TEST_DIRNAME/unit"
	grep '^not ok' <<<"$output" || true
	[ "$status" -eq 0 ]
	# every check ran: its plan is the count of its lines
	local plan; plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$output")
	[ "$plan" -gt 40 ]
	[ "$(grep -c '^ok ' <<<"$output")" -eq "$plan" ]
}
