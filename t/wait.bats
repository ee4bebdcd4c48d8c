#!/usr/bin/env bats
# arc-wait: a producer blocks until its question is settled.
load helper

# a question whose deadline is SECONDS from now (real clock)
question_for() {
	created "$1" ".request.response.expires_at = \"$(date -u -d "+${2:-60} seconds" +%Y-%m-%dT%H:%M:%SZ)\""
}

@test "woken by an answer from another process; prints the interaction, exit 0" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-wait -t 10 deploy >"$BATS_TEST_TMPDIR/out" &
	local waiter=$!
	sleep 0.3
	arc-answer deploy allow >/dev/null
	wait "$waiter"
	[ "$(jq -r '[.status, .response.choice_id] | join("|")' "$BATS_TEST_TMPDIR/out")" = "answered|allow" ]
}

@test "already answered: prints at once, exit 0" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-answer deploy deny >/dev/null
	run --separate-stderr arc-wait deploy
	[ "$status" -eq 0 ]
	[ "$(field .response.choice_id)" = deny ]
}

@test "returns at the question's deadline, marks it expired: exit 1" {
	arc-apply <<<"$(question_for deploy 2)" >/dev/null
	local start=$SECONDS
	run --separate-stderr arc-wait -t 20 deploy
	[ "$status" -eq 1 ]
	[ "$(field .status)" = expired ]
	[ $((SECONDS - start)) -le 5 ]
	[ "$(tail -1 "$ARC_JOURNAL" | jq -r '.interaction.status')" = expired ]
}

@test "its own timeout: exit 124, nothing printed, the question still pending" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	run --separate-stderr arc-wait -t 0.5 deploy
	[ "$status" -eq 124 ]
	[ -z "$output" ]
	run arc-status --json
	[ "$(field .pending)" -eq 1 ]
}

@test "no question under the key: exit 1" {
	run --separate-stderr arc-wait -t 1 nothing
	[ "$status" -eq 1 ]
	arc-apply <<<"$(information build)" >/dev/null
	run --separate-stderr arc-wait -t 1 build
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"no question"* ]]
}

@test "a cancelled question: exit 1 with its record" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-apply <<<"$(resolved deploy)" >/dev/null
	run --separate-stderr arc-wait deploy
	[ "$status" -eq 1 ]
	[ "$(field .status)" = cancelled ]
}

@test "a question superseded by a newer one is followed to the newer one" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-wait -t 10 deploy >"$BATS_TEST_TMPDIR/out" &
	local waiter=$!
	sleep 0.3
	arc-apply <<<"$(updated deploy '.request.message = "Deploy to production?"')" >/dev/null
	sleep 0.3
	arc-answer deploy allow >/dev/null
	wait "$waiter"
	[ "$(jq -r '[.status, .prompt] | join("|")' "$BATS_TEST_TMPDIR/out")" = "answered|Deploy to production?" ]
}

@test "keeps waiting across a compaction of the journal" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-wait -t 10 deploy >"$BATS_TEST_TMPDIR/out" &
	local waiter=$!
	sleep 0.3
	arc-apply --compact
	sleep 0.3
	arc-answer deploy allow >/dev/null
	wait "$waiter"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/out")" = answered ]
}

@test "usage: exactly one key; -t takes seconds" {
	run --separate-stderr arc-wait
	[ "$status" -eq 2 ]
	run --separate-stderr arc-wait -t soon key
	[ "$status" -eq 2 ]
	run arc-wait --help
	[ "$status" -eq 0 ]
}

@test "changes to other files beside the journal do not keep it busy" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	( for i in $(seq 300); do echo "$i" >>"$(dirname "$ARC_JOURNAL")/neighbour"; sleep 0.003; done ) &
	run --separate-stderr /usr/bin/time -f '%U %S' arc-wait -t 1.5 deploy
	wait
	[ "$status" -eq 124 ]
	# user + system CPU seconds while 300 writes happened next door
	awk '{ exit !($1 + $2 < 0.3) }' <<<"${stderr##*$'\n'}"
}
