#!/usr/bin/env bats
# arc-apply against an executable model of ARC 0.2 (t/model/arcmodel.py,
# written from the contract's text and sharing nothing with the C): random
# event sequences, every result line compared (t/model/difftest).  make
# check-model runs many more (MODEL_SEQUENCES, default 50,000).
load helper

DIFFTEST="$BATS_TEST_DIRNAME/model/difftest"

@test "arc-apply answers 2,000 random sequences as the model does, every answer rule reached" {
	run "$DIFFTEST" --sequences 2000 --coverage
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "difftest: 2000 sequences (seed 1), "*": arc-apply and the model agree" ]]
}

# A consumer that gets one rule wrong (here: an answered condition reported
# with the outcome cancelled) is caught, shrunk to the two steps that show
# it (a question, its answer), and printed without a digest or a nonce.
# It is the most frequent disagreement of the run, so the one reported.
@test "a disagreement is found, shrunk to its shortest sequence and printed without secrets" {
	mkdir "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/arc-apply" <<WRONG
#!/usr/bin/env bash
set -o pipefail
"$ARC_BIN/arc-apply" "\$@" | sed -u 's/"outcome":"answered"/"outcome":"cancelled"/'
WRONG
	chmod +x "$BATS_TEST_TMPDIR/bin/arc-apply"
	ARC_BIN="$BATS_TEST_TMPDIR/bin" run "$DIFFTEST" --sequences 100 --reports 1
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *": "[1-9]*" disagree with the model" ]]
	# its report: from its heading to the blank line after it
	report=$(awk '/at an answer step, they differ in \/notification\/outcome;/ { on = 1 }
	    on && /^$/ { exit } on' <<<"$output")
	[ -n "$report" ]
	[ "$(grep -c '^  ARC_NOW=' <<<"$report")" -eq 2 ]
	[ "$(grep -c '^    differ at: /notification/outcome$' <<<"$report")" -eq 1 ]
	[[ "$report" == *'arc-apply: {"status": 200, '*'"outcome": "cancelled"'* ]]
	[[ "$report" == *'model:     {"status": 200, '*'"outcome": "answered"'* ]]
	! grep -Eq '"(nonce|digest)": ?"[A-Za-z0-9_-]{16,}"|[0-9a-f]{64}' <<<"$output" || false
}
