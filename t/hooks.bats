#!/usr/bin/env bats
# The agent adapters in examples/: recorded payloads in each agent's
# documented format become ARC events, and a decision comes back.
load helper

HOOKS="$BATS_TEST_DIRNAME/../examples"
PAYLOADS="$FIXTURES/hooks"

# Waits (up to 5 s) until a question is pending under key.
pending() {
	local i
	for i in $(seq 100); do
		[ "$(arc-status --list | awk -F'\t' -v k="$1" '$1 == k {print $3}')" = pending ] && return 0
		sleep 0.05
	done
	return 1
}

@test "Claude Code Notification: a one-way request under the session's key" {
	run --separate-stderr "$HOOKS/claude-code-hook" <"$PAYLOADS/claude-notification.json"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run arc-status --list
	[[ "$output" == *$'claude-code:abc123:notice\tnormal\tnone\t-\tClaude Code'* ]]
	[ "$(tail -1 "$ARC_JOURNAL" | jq -r '[.notification.message, .notification.project, .notification.agent] | join("|")')" = "Claude is waiting for your input|site|claude-code" ]
}

@test "Claude Code PermissionRequest: an answer 'allow' returns behavior allow" {
	"$HOOKS/claude-code-hook" <"$PAYLOADS/claude-permission-request.json" >"$BATS_TEST_TMPDIR/out" &
	pending claude-code:abc123:toolu_01ABC
	[ "$(tail -1 "$ARC_JOURNAL" | jq -r '.interaction | [.title, .prompt, .native_request_id, (.choices | map(.id) | join(","))] | join("|")')" = "Claude Code wants to use Bash|Bash: npm run deploy|toolu_01ABC|allow,deny" ]
	arc-answer claude-code:abc123:toolu_01ABC allow >/dev/null
	wait
	[ "$(jq -c . "$BATS_TEST_TMPDIR/out")" = '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}' ]
}

@test "Claude Code PermissionRequest: an answer 'deny' returns behavior deny with a message" {
	"$HOOKS/claude-code-hook" <"$PAYLOADS/claude-permission-request.json" >"$BATS_TEST_TMPDIR/out" &
	pending claude-code:abc123:toolu_01ABC
	arc-answer --source phone claude-code:abc123:toolu_01ABC deny >/dev/null
	wait
	[ "$(jq -c .hookSpecificOutput.decision "$BATS_TEST_TMPDIR/out")" = '{"behavior":"deny","message":"Denied through arc (phone)"}' ]
}

@test "Claude Code PermissionRequest: no answer in time decides nothing and withdraws the question" {
	ARC_HOOK_TIMEOUT=1 run --separate-stderr "$HOOKS/claude-code-hook" <"$PAYLOADS/claude-permission-request.json"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# the latest notification and question records, across the journal
	[ "$(tail -n +2 "$ARC_JOURNAL" | jq -rs '[(map(.notification | select(.)) | last | .status, .outcome), (map(.interaction | select(.)) | last | .status)] | join("|")')" = "resolved|expired|expired" ]
	run arc-status
	[ -z "$output" ]
}

@test "Codex notify: a finished turn becomes a completion request, without the prompts" {
	run --separate-stderr "$HOOKS/codex-notify" "$(cat "$PAYLOADS/codex-notify.json")"
	[ "$status" -eq 0 ]
	[ "$(tail -1 "$ARC_JOURNAL" | jq -r '.notification | [.key, .kind, .type, .project, .session_id] | join("|")')" = "codex:0199a213-81c0-7800-8aa1-bbab2a035a53|completion|completed|api|0199a213-81c0-7800-8aa1-bbab2a035a53" ]
	! grep -q -e 'Rename the handler' -e 'Renamed it' "$ARC_JOURNAL"
}

@test "Codex notify: other payload types are ignored" {
	run --separate-stderr "$HOOKS/codex-notify" '{"type":"something-else"}'
	[ "$status" -eq 0 ]
	[ ! -s "$ARC_JOURNAL" ]
}
