#!/usr/bin/env bats
# arc-answer: answer an open question from a shell or a script, through
# the same rules as arc-apply.
load helper

setup_question() {
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(created deploy)" >/dev/null
}

@test "answers with a choice: the same result line as arc-apply, exit 0" {
	setup_question
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer deploy allow
	[ "$status" -eq 0 ]
	[ "$(field '[.line, .status, .key, .interaction.status, .interaction.response.choice_id, .interaction.response.source] | join("|")')" = "1|200|deploy|answered|allow|cli" ]
	[[ "$(field .interaction.response.response_id)" == resp_* ]]
}

@test "--text answers a text question, within its bound" {
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(text_question name 5)" >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer name --text "toolong"
	[ "$status" -eq 1 ]
	[ "$(field .error.code)" = invalid_answer ]
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer name --text "main"
	[ "$(field .interaction.response.text)" = main ]
}

@test "--response-id, --source and --device-id are carried in the answer" {
	setup_question
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer --response-id r-42 --source phone --device-id pixel deploy deny
	[ "$(field '.interaction.response | [.response_id, .source, .device_id] | join("|")')" = "r-42|phone|pixel" ]
}

@test "a script that retries with its own --response-id gets the acceptance replayed" {
	setup_question
	ARC_NOW=2026-08-26T01:17:00Z arc-answer --response-id r-1 deploy allow >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer --response-id r-1 deploy allow
	[ "$status" -eq 0 ]
	[ "$(field '[.status, .replayed] | join("|")')" = "200|true" ]
}

@test "a rejected answer: exit 1 (unknown choice, no question)" {
	setup_question
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer deploy maybe
	[ "$status" -eq 1 ]
	[ "$(field .error.code)" = invalid_answer ]
	run --separate-stderr arc-answer nowhere allow
	[ "$status" -eq 1 ]
	[ "$(field .error.code)" = not_found ]
}

@test "--emit prints the response.submitted event instead of applying it" {
	setup_question
	run --separate-stderr arc-answer --emit deploy allow
	[ "$status" -eq 0 ]
	[ "$(field '[.event_type, .request.key, .response.choice_id] | join("|")')" = "response.submitted|deploy|allow" ]
	[ "$(field .response.digest)" = "$(tail -1 "$ARC_JOURNAL" | jq -r .interaction.digest)" ]
	arc-validate <<<"$output" >/dev/null
	run arc-status --json
	ARC_NOW=2026-08-26T01:17:00Z run arc-status --json
	[ "$(field .pending)" -eq 1 ]
}

@test "8 concurrent answers to one question: exactly one accepted, the others conflict" {
	setup_question
	local i
	for i in $(seq 8); do
		ARC_NOW=2026-08-26T01:17:00Z arc-answer deploy allow >"$BATS_TEST_TMPDIR/a$i" 2>/dev/null &
	done
	wait
	[ "$(cat "$BATS_TEST_TMPDIR"/a* | jq -s 'map(select(.status == 200)) | length')" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR"/a* | jq -s 'map(select(.error.code == "conflict")) | length')" -eq 7 ]
}

@test "asks on a terminal: shows title, prompt, choices with details, then applies" {
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(created deploy '.request.response.expires_at = "2099-01-01T00:00:00Z"')" >/dev/null
	run bash -c 'printf "2\n" | script -qec "arc-answer deploy" /dev/null'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Codex needs permission"* ]]
	[[ "$output" == *"May I deploy?"* ]]
	[[ "$output" == *"2) Deny - Stops here"* ]]
	[[ "$output" == *'"choice_id":"deny"'* ]]
}

@test "asks on a terminal: a text answer over its bound is asked again" {
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(text_question name 3 | jq -c '.request.response.expires_at = "2099-01-01T00:00:00Z"')" >/dev/null
	run bash -c 'printf "abcd\nabc\n" | script -qec "arc-answer name" /dev/null'
	[ "$status" -eq 0 ]
	[[ "$output" == *"That is 4 characters; 3 at most."* ]]
	[[ "$output" == *'"text":"abc"'* ]]
}

@test "without an answer and without a terminal: usage error, exit 2" {
	setup_question
	run --separate-stderr arc-answer deploy </dev/null
	[ "$status" -eq 2 ]
	run --separate-stderr arc-answer deploy allow --text x
	[ "$status" -eq 2 ]
}
