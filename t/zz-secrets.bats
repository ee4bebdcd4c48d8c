#!/usr/bin/env bats
# Runs last: across the whole suite, no nonce or digest that was issued
# ever reached standard error (diagnostics, warnings, usage).
load helper

@test "no nonce or digest issued anywhere in the suite reached standard error" {
	[ -n "${ARC_STDERR_LOG:-}" ] || { echo "run the suite through t/run-tests"; false; }
	[ -s "$ARC_SECRETS_LOG" ]	# the suite issued secrets...
	[ -s "$ARC_STDERR_LOG" ]	# ...and wrote diagnostics
	sort -u "$ARC_SECRETS_LOG" | grep -v '^0*$' >"$BATS_TEST_TMPDIR/secrets"
	echo "$(wc -l <"$BATS_TEST_TMPDIR/secrets") secrets, $(wc -l <"$ARC_STDERR_LOG") lines of stderr"
	run grep -F -f "$BATS_TEST_TMPDIR/secrets" "$ARC_STDERR_LOG"
	[ "$status" -eq 1 ] || { echo "leaked: $output"; false; }
}
