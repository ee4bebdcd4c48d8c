#!/usr/bin/env bats
# arc-emit: an ARC 0.2 event from options, valid by construction.
load helper

@test "a permission request with choices passes arc-validate" {
	run --separate-stderr arc-emit --key deploy --kind permission --message "May I deploy?" \
	    --choice allow:Allow --choice "deny:Deny:Stops the deploy" --expires-in 10m
	[ "$status" -eq 0 ]
	arc-validate <<<"$output" >/dev/null
	[ "$(field '.request.response | [.kind, (.choices | map(.id) | join(",")), .choices[1].detail] | join("|")')" = "permission|allow,deny|Stops the deploy" ]
}

@test "defaults: a minted event_id and occurred_at, the working directory, ARC_SENDER" {
	cd "$BATS_TEST_TMPDIR"
	ARC_NOW=2026-08-26T01:16:00Z ARC_SENDER=ci run --separate-stderr arc-emit --kind information --message hi
	[ "$(field '[.event_type, .occurred_at, .sender.id, .context.cwd] | join("|")')" = "request.created|2026-08-26T01:16:00Z|ci|$BATS_TEST_TMPDIR" ]
	[[ "$(field .event_id)" == evt_* ]]
}

@test "--expires-in and --expires-at set the deadline" {
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-emit --key q --kind question --message "Branch?" --text-max 40 --expires-in 2h
	[ "$(field '.request.response | [.kind, .text_max_length, .expires_at] | join("|")')" = "text|40|2026-08-26T03:16:00Z" ]
	run --separate-stderr arc-emit --key q --kind question --message "Pick" --choice a:A --choice b:B --expires-at 2026-09-01T00:00:00Z
	[ "$(field '.request.response | [.kind, .expires_at] | join("|")')" = "single_choice|2026-09-01T00:00:00Z" ]
}

@test "--expires-in is never sooner than asked: a fraction of now rounds the deadline up" {
	ARC_NOW=2026-08-26T01:15:00.032Z run --separate-stderr arc-emit --key q --kind question --message m --choice a:A --choice b:B --expires-in 1s
	[ "$(field .request.response.expires_at)" = 2026-08-26T01:15:02Z ]
	ARC_NOW=2026-08-26T01:15:00.000Z run --separate-stderr arc-emit --key q --kind question --message m --choice a:A --choice b:B --expires-in 1s
	[ "$(field .request.response.expires_at)" = 2026-08-26T01:15:01Z ]
}

@test "--type updated and resolved, with --outcome" {
	run --separate-stderr arc-emit --type updated --key deploy --kind permission --message "Still?"
	[ "$(field .event_type)" = request.updated ]
	run --separate-stderr arc-emit --type resolved --key deploy --outcome cancelled
	[ "$(field '[.event_type, .request.outcome, (.request | keys | join(","))] | join("|")')" = "request.resolved|cancelled|key,outcome" ]
}

@test "context and sender options, and x-agentnotify's notification_type" {
	run --separate-stderr arc-emit --kind failure --message "Tests failed" --sender-id ci --sender-name CI \
	    --sender-version 1.2 --instance-id runner-3 --session-id s-9 --correlation-id c-1 --project api \
	    --cwd /src/api --pid 4242 --turn-id t-7 --native-request-id n-1 --notification-type build --priority critical \
	    --title "CI" --event-id my-event
	[ "$status" -eq 0 ]
	[ "$(field '[.event_id, .sender.version, .sender.instance_id, .context.pid, .context.turn_id, .context.native_request_id, .extensions["x-agentnotify"].notification_type, .request.priority] | join("|")')" = "my-event|1.2|runner-3|4242|t-7|n-1|build|critical" ]
	arc-validate <<<"$output" >/dev/null
}

@test "an option that would make an invalid event is refused with the reason" {
	run --separate-stderr arc-emit --kind permission --message "Go?" --choice only:Only
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"/request/response/choices: must hold 2 to 12 choices (has 1) (see --choice)"* ]]
	run --separate-stderr arc-emit --kind shout --message x
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/request/kind: must be one of"*"(see --kind)"* ]]
	run --separate-stderr arc-emit --type updated --kind permission --message x
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/request/key: missing required member (see --key)"* ]]
	run --separate-stderr arc-emit --kind information --message "$(printf 'x%.0s' $(seq 4001))"
	[ "$status" -eq 2 ]
	run --separate-stderr arc-emit --kind question --message x --text-max 12x
	[ "$status" -eq 2 ]
	run --separate-stderr arc-emit --kind question --message x --choice "bad id:B" --choice b:B
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"/request/response/choices/0/id"* ]]
}

@test "what it prints, arc-apply accepts" {
	run --separate-stderr bash -c 'arc-emit --key k --kind permission --message "M?" --choice y:Yes --choice n:No | ARC_NOW= arc-apply'
	[ "$status" -eq 0 ]
	[ "$(field '[.status, .interaction.status] | join("|")')" = "201|pending" ]
}

@test "a new permission request without choices is refused: nobody could grant it" {
	run --separate-stderr arc-emit --key deploy --kind permission --message "May I deploy?"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "arc-emit: /request/response/choices: a permission request offers its choices, such as --choice allow:Allow --choice deny:Deny (see --choice; --notice for a notice that asks nothing)" ]
	[ "${stderr_lines[1]}" = "arc-emit: no event was emitted" ]
	# unless it is meant: a notice that sends the person to the agent's window
	run --separate-stderr arc-emit --key deploy --kind permission --message "Look at Claude" --notice
	[ "$status" -eq 0 ]
	[ "$(field '.request | has("response")')" = false ]
	arc-validate <<<"$output" >/dev/null
	run --separate-stderr arc-emit --kind permission --message x --notice --choice a:A --choice b:B
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-emit: --notice asks nothing: no --choice, --text-max or --response-kind" ]
	# an update may leave them out: the pending question's carry over
	run --separate-stderr arc-emit --type updated --key deploy --kind permission --message "Still?"
	[ "$status" -eq 0 ]
	run --separate-stderr arc-emit --key deploy --kind permission --message "May I?" --choice y:Yes --choice n:No
	[ "$status" -eq 0 ]
}

@test "--expires-in takes a duration: 90, 90s, 10m, 1.5h, 1h30m, 2d; garbage is refused" {
	local d want
	for d in 90:01:17:30 90s:01:17:30 10m:01:26:00 1.5h:02:46:00 1h30m:02:46:00 2d:01:16:00; do
		want="2026-08-2$([ "${d%%:*}" = 2d ] && echo 8 || echo 6)T${d#*:}Z"
		ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-emit --key q --kind question --message "Branch?" --text-max 40 --expires-in "${d%%:*}"
		[ "$(field .request.response.expires_at)" = "$want" ] || { echo "${d%%:*}: $output"; false; }
	done
	for d in soon -1m 10x ""; do
		run --separate-stderr arc-emit --key q --kind question --message x --text-max 4 --expires-in "$d"
		[ "$status" -eq 2 ]
		[ "${stderr_lines[0]}" = "arc-emit: --expires-in ${d:-\"\"}: not a duration such as 90s, 10m, 2h, 1d, 1w or 1h30m" ]
	done
}

@test "usage: -h and --help on stdout; what was wrong before the usage" {
	for h in -h --help; do
		run --separate-stderr arc-emit "$h"
		[ "$status" -eq 0 ]
		[[ "$output" == "usage: arc-emit "* ]]
		[ -z "$stderr" ]
	done
	run --separate-stderr arc-emit --kind information --message hi stray
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-emit: unexpected argument: stray" ]
	[[ "${stderr_lines[1]}" == "usage: arc-emit "* ]]
	run --separate-stderr arc-emit --kind question --message x --text-max 4 --expires-in 1m --expires-at 2026-09-01T00:00:00Z
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-emit: --expires-in and --expires-at: one or the other" ]
	run --separate-stderr arc-emit --bogus
	[ "$status" -eq 2 ]
	[[ "${stderr_lines[0]}" == *"unrecognized option"*"--bogus"* ]]
}

@test "an event over one line's 65536 bytes is refused in words that say what to shorten" {
	run --separate-stderr arc-emit --key k --kind information \
	    --message "$(head -c 100000 /dev/zero | tr '\0' a)"
	[ "$status" -eq 2 ] && [ -z "$output" ]
	[[ "${stderr_lines[0]}" =~ ^"arc-emit: the event would be "[0-9]+" bytes, over the 65536 of one line: shorten its texts (--message, --title, the choices)"$ ]]
	[ "${stderr_lines[1]}" = "arc-emit: no event was emitted" ]
}
