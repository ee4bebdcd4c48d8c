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
	# no file name and line: the answer was given on the command line
	[ "$stderr" = "arc-answer: /response/choice_id: choice_id is not one of the offered choices" ]
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
	local i pids=()
	for i in $(seq 8); do
		ARC_NOW=2026-08-26T01:17:00Z arc-answer deploy allow >"$BATS_TEST_TMPDIR/a$i" 2>/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	[ "$(cat "$BATS_TEST_TMPDIR"/a* | jq -s 'map(select(.status == 200)) | length')" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR"/a* | jq -s 'map(select(.error.code == "conflict")) | length')" -eq 7 ]
}

@test "asks on a terminal: shows title, prompt, choices with details, then applies and says so in words" {
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(created deploy '.request.response.expires_at = "2099-01-01T00:00:00Z"')" >/dev/null
	on_tty '2\n' 'arc-answer deploy'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Codex needs permission"* ]]
	[[ "$output" == *"  | May I deploy?"* ]]
	[[ "$output" == *"2) Deny - Stops here"* ]]
	[[ "$output" == *"deploy: Deny (accepted)"* ]]
	[[ "$output" != *'"digest"'* && "$output" != *'"nonce"'* ]]
	[ "$(arc-wait -t 0 deploy | jq -r .response.choice_id)" = deny ]
}

@test "asks on a terminal: a text answer over its bound, or empty, is asked again" {
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(text_question name 3 | jq -c '.request.response.expires_at = "2099-01-01T00:00:00Z"')" >/dev/null
	on_tty '\nabcd\nabc\n' 'arc-answer name'
	[ "$status" -eq 0 ]
	[[ "$output" == *"An empty answer is not sent"* ]]
	[[ "$output" == *"That is 4 characters; 3 at most."* ]]
	[[ "$output" == *'name: "abc" (accepted)'* ]]
	[ "$(arc-wait -t 0 name | jq -r .response.text)" = abc ]
}

@test "--json on a terminal prints the result line; a pipe always gets it" {
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(created deploy '.request.response.expires_at = "2099-01-01T00:00:00Z"')" >/dev/null
	on_tty '' 'arc-answer --json deploy allow'
	[ "$status" -eq 0 ]
	[[ "$output" == *'"choice_id":"allow"'* ]]
	[[ "$output" != *"(accepted)"* ]]
	run --separate-stderr arc-answer deploy allow
	[ "$(field '[.status, .replayed // false, .error.code] | join("|")')" = "409|false|conflict" ]
}

@test "a choice by its number; a number that is one choice's position and another's id is refused as ambiguous, naming both" {
	setup_question
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer deploy 2
	[ "$status" -eq 0 ]
	[ "$(field .interaction.response.choice_id)" = deny ]
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(created swap '.request.response.choices = [{id:"2", label:"Two"}, {id:"1", label:"One"}, {id:"3", label:"Three"}]')" >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer swap 1
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "arc-answer: swap: not answered: that is choice 1 by its number and choice 2 by its id; leave the answer out on a terminal to pick by number" ]
	[ "$(arc-status --show swap --json | jq -r .interaction.status)" = pending ]
	# the third is both "3" by number and by id: one choice, no doubt
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer swap 3
	[ "$status" -eq 0 ]
	[ "$(field .interaction.response.choice_id)" = 3 ]
}

@test "a number past the choices is not one of them: invalid_answer, and stderr names no choice" {
	setup_question
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer deploy 3
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code] | join("|")')" = "400|invalid_answer" ]
	[[ "$stderr" != *Allow* && "$stderr" != *Deny* ]]
	# on a terminal: the valid ones, listed on the terminal
	on_tty '' 'ARC_NOW=2026-08-26T01:17:00Z arc-answer deploy maybe'
	[ "$status" -eq 1 ]
	[[ "$output" == *"deploy: not answered: choice_id is not one of the offered choices"* ]]
	[[ "$output" == *"  1) allow  Allow"* ]]
	[[ "$output" == *"  2) deny   Deny"* ]]
}

@test "a closed question is refused before asking, its state in words" {
	setup_question
	on_tty '' 'ARC_NOW=2026-08-26T02:04:30Z arc-answer deploy'
	[ "$status" -eq 1 ]
	[[ "$output" == *"arc-answer: deploy: expired 4 minutes ago; nothing to answer"* ]]
	[[ "$output" != *"Answer 1-2"* ]]
	ARC_NOW=2026-08-26T01:20:00Z arc-apply <<<"$(resolved deploy)" >/dev/null
	on_tty '' 'ARC_NOW=2026-08-26T01:22:00Z arc-answer deploy'
	[[ "$output" == *"arc-answer: deploy: cancelled 2 minutes ago; nothing to answer"* ]]
	ARC_NOW=2026-08-26T01:21:00Z arc-apply <<<"$(created other)" >/dev/null
	ARC_NOW=2026-08-26T01:23:00Z arc-answer other allow >/dev/null
	on_tty '' 'ARC_NOW=2026-08-26T01:26:00Z arc-answer other'
	[[ "$output" == *"arc-answer: other: answered 3 minutes ago; nothing to answer"* ]]
	on_tty '' 'arc-answer nowhere'
	[[ "$output" == *"arc-answer: nowhere: no question under this key"* ]]
}

@test "on a terminal, a refused answer says why in words on stderr" {
	setup_question
	ARC_NOW=2026-08-26T01:17:00Z arc-answer deploy allow >/dev/null
	on_tty '' 'ARC_NOW=2026-08-26T01:19:00Z arc-answer deploy deny 2>$BATS_TEST_TMPDIR/err'
	[ "$status" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "arc-answer: deploy: not answered: already answered 2 minutes ago" ]
	[[ "$output" != *'"status"'* ]]
	ARC_NOW=2026-08-26T01:17:00Z arc-apply <<<"$(created late)" >/dev/null
	on_tty '' 'ARC_NOW=2026-08-26T02:10:00Z arc-answer late allow 2>$BATS_TEST_TMPDIR/err'
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "arc-answer: late: not answered: expired 10 minutes ago" ]
}

@test "--dismiss: a notice is resolved by a person, and stops counting" {
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(information build)" >/dev/null
	ARC_NOW=2026-08-26T01:20:00Z run arc-status --json
	[ "$(field .active)" -eq 1 ]
	ARC_NOW=2026-08-26T01:20:00Z run --separate-stderr arc-answer --dismiss build
	[ "$status" -eq 0 ]
	[ "$output" = "build: dismissed (a notice, updated 4 minutes ago)" ]
	ARC_NOW=2026-08-26T01:21:00Z run arc-status --json
	[ "$(field .active)" -eq 0 ]
	ARC_NOW=2026-08-26T01:21:00Z run --separate-stderr arc-answer --dismiss build
	[ "$status" -eq 1 ]
	[[ "$stderr" == "arc-answer: build: dismissed by cli 1 minute ago"*"; nothing to dismiss" ]]
	run --separate-stderr arc-answer --dismiss nowhere
	[ "$status" -eq 1 ]
	[ "$stderr" = "arc-answer: nowhere: nothing under this key to dismiss" ]
}

@test "--dismiss refuses a pending question, naming its state" {
	setup_question
	ARC_NOW=2026-08-26T01:20:00Z run --separate-stderr arc-answer --dismiss deploy
	[ "$status" -eq 1 ]
	[ "$stderr" = "arc-answer: deploy: waiting for an answer, 40 minutes left; answer it, or let it expire, before dismissing it" ]
	ARC_NOW=2026-08-26T02:05:00Z run --separate-stderr arc-answer --dismiss deploy
	[ "$status" -eq 0 ]
	[ "$output" = "deploy: dismissed (expired 5 minutes ago)" ]
}

@test "--dismiss-notices: every active condition without a pending question, and nothing else" {
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(information build)" >/dev/null
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(information lint)" >/dev/null
	setup_question
	ARC_NOW=2026-08-26T01:16:00Z arc-apply <<<"$(created soon '.request.response.expires_at = "2026-08-26T01:18:00Z"')" >/dev/null
	ARC_NOW=2026-08-26T01:20:00Z run --separate-stderr arc-answer --dismiss-notices
	[ "$status" -eq 0 ]
	[ "$(cut -d' ' -f1-2 <<<"$output" | tr '\n' '|')" = "build: dismissed|lint: dismissed|soon: dismissed|" ]
	ARC_NOW=2026-08-26T01:20:00Z run arc-status --json
	[ "$(field '[.active, .pending] | join("|")')" = "1|1" ]
	ARC_NOW=2026-08-26T01:20:00Z run --separate-stderr arc-answer --dismiss-notices
	[ "$status" -eq 0 ]
	[ "$output" = "nothing to dismiss" ]
}

@test "--via: the event goes to the command's standard input, not to this journal; its exit status is ours" {
	setup_question
	local emitted; emitted=$(arc-answer --emit deploy allow)
	run --separate-stderr arc-answer --via "cat >$BATS_TEST_TMPDIR/sent" deploy 2
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/sent")" -eq 1 ]
	arc-validate "$BATS_TEST_TMPDIR/sent" >/dev/null
	[ "$(jq -r '[.event_type, .request.key, .response.choice_id, .response.source] | join("|")' "$BATS_TEST_TMPDIR/sent")" = "response.submitted|deploy|deny|cli" ]
	[ "$(jq -r .response.digest "$BATS_TEST_TMPDIR/sent")" = "$(field .response.digest "$emitted")" ]
	ARC_NOW=2026-08-26T01:17:00Z run arc-status --json
	[ "$(field .pending)" -eq 1 ]		# nothing applied here
	run --separate-stderr arc-answer --via 'cat >/dev/null; exit 7' deploy allow
	[ "$status" -eq 7 ]
	[[ "$stderr" == *"deploy: the --via command exited with 7"* ]]
	run --separate-stderr arc-answer --via "cat >$BATS_TEST_TMPDIR/none" nowhere allow
	[ "$status" -eq 1 ]
	[ ! -e "$BATS_TEST_TMPDIR/none" ]
}

@test "--via to arc-apply on a copy of the journal (a remote host's, mirrored): accepted there, the result line shown" {
	setup_question
	mkdir -p "$BATS_TEST_TMPDIR/remote"
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/remote/journal"
	ARC_NOW=2026-08-26T01:17:00Z run --separate-stderr arc-answer --via "arc-apply -j $BATS_TEST_TMPDIR/remote/journal" deploy allow
	[ "$status" -eq 0 ]
	[ "$(field '[.status, .interaction.response.choice_id] | join("|")')" = "200|allow" ]
	[ "$(arc-wait -t 0 -j "$BATS_TEST_TMPDIR/remote/journal" deploy | jq -r .status)" = answered ]
	ARC_NOW=2026-08-26T01:17:00Z run arc-status --json
	[ "$(field .pending)" -eq 1 ]
}

@test "--via on a terminal: the remote result line (its nonce) stays off the screen; the verdict is said as for an answer here" {
	setup_question
	mkdir -p "$BATS_TEST_TMPDIR/remote"
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/remote/journal"
	local nonce; nonce=$(jq -r 'select(.interaction) | .interaction.nonce' "$ARC_JOURNAL" | tail -1)
	[ ${#nonce} -ge 16 ]
	on_tty '' "ARC_NOW=2026-08-26T01:17:00Z arc-answer --via 'arc-apply -j $BATS_TEST_TMPDIR/remote/journal' deploy allow; echo rc=\$?"
	[[ "$output" != *"$nonce"* ]]
	[[ "$output" == *"deploy: Allow (accepted)"* ]]
	[[ "$output" == *"rc=0"* ]]
	[ "$(arc-wait -t 0 -j "$BATS_TEST_TMPDIR/remote/journal" deploy | jq -r .status)" = answered ]
	# a second answer is refused there, and said so, still without the line
	on_tty '' "ARC_NOW=2026-08-26T01:17:00Z arc-answer --via 'arc-apply -q -j $BATS_TEST_TMPDIR/remote/journal' deploy deny; echo rc=\$?"
	[[ "$output" != *"$nonce"* ]]
	[[ "$output" == *"deploy: not answered"* ]]
	[[ "$output" == *"rc=1"* ]]
	# a command that prints no result line: its status says it was sent
	on_tty '' "ARC_NOW=2026-08-26T01:17:00Z arc-answer --via 'cat >/dev/null' deploy allow; echo rc=\$?"
	[[ "$output" == *"deploy: Allow (sent)"* ]]
	[[ "$output" == *"rc=0"* ]]
}

@test "usage errors say what was wrong before the usage; --help prints it on stdout" {
	run --separate-stderr arc-answer a b c
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "arc-answer: too many arguments" ]
	[[ "$stderr" == *$'\nusage: arc-answer'* ]]
	run --separate-stderr arc-answer --emit --via cat deploy allow
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "arc-answer: --emit and --via: give one" ]
	run --separate-stderr arc-answer --dismiss deploy extra
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "arc-answer: dismissing takes no answer, and only -j and --source" ]
	run --separate-stderr arc-answer --text x
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "arc-answer: --text: which key?" ]
	run --separate-stderr arc-answer </dev/null
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "arc-answer: no key (the picker needs a terminal)" ]
	run --separate-stderr arc-answer --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: arc-answer"* ]]
	[ -z "$stderr" ]
}

@test "without an answer and without a terminal: usage error, exit 2" {
	setup_question
	run --separate-stderr arc-answer deploy </dev/null
	[ "$status" -eq 2 ]
	run --separate-stderr arc-answer deploy allow --text x
	[ "$status" -eq 2 ]
}

@test "--hold: the outcome, or what failed, stays until any key (Esc, an arrow); the terminal's mode is given back" {
	apply <<<"$(created deploy '.request.response.expires_at = "2099-01-01T00:00:00Z"')" >/dev/null
	# an arrow's three bytes close it, as a letter would
	on_tty $'\e[A' "arc-answer --hold deploy allow; echo rc=\$?; stty -a"
	[[ "$output" == *"deploy: Allow (accepted)"*"(any key closes this)"*"rc=0"* ]]
	grep -qw icanon <<<"$output" && grep -qw echo <<<"$output"
	# a failure is held too: under a popup it would go with it
	on_tty $'\e' "arc-answer --hold -j '$BATS_TEST_TMPDIR/typo/journal' deploy allow; echo rc=\$?; stty -a"
	# (the suite's wrapper copies stderr once the command is done: no order)
	[[ "$output" == *"no such folder"* ]]
	[[ "$output" == *"(any key closes this)"*"rc=3"* ]]
	grep -qw icanon <<<"$output"
	# nothing typed yet: it is still waiting
	run bash -c 'sleep 6 | timeout 3 script -qec "arc-answer --hold deploy allow" /dev/null'
	[ "$status" -eq 124 ]
	[[ "$output" == *"(any key closes this)"* ]]
}
