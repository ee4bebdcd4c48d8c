#!/usr/bin/env bats
# arc-hook copilot (arc-hooks(7), "GitHub Copilot CLI"): the payloads are
# Copilot CLI 1.0.102's own, as its runs recorded them
# (t/fixtures/hooks/copilot); permissionRequest asked whole, its decision
# in the shape Copilot takes ({"behavior": ...}), no answer leaving
# Copilot to its own dialog, and the notices its other events carry.
load helper

P="$FIXTURES/hooks/copilot"
HOOK="$ARC_BIN/arc-hook"

setup() {
	arc_setup
	unset ARC_HOOK_TIMEOUT ARC_HOOK_EVENT TMUX TMUX_PANE
}

teardown() {
	[ -z "${hookpid:-}" ] || kill -9 "$hookpid" 2>/dev/null || :
	arc_teardown
}

# copilot_asks PAYLOAD: the hook on a fixture in the background, its pid in
# $hookpid, until its question is pending; the key in $key.
copilot_asks() {
	"$HOOK" copilot <"$P/$1.json" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	hookpid=$!
	# (awk exits 0 with nothing found: the test is on what it printed)
	eventually eval 'key=$(arc-status --list | awk -F"\t" "\$3 == \"pending\" { print \$1 }"); [ -n "$key" ]'
}

copilot_answered() {	# CHOICE: answer the pending question, the hook's reply in $reply
	arc-answer "$key" "$1" >/dev/null
	wait "$hookpid"
	hookpid=
	reply=$(cat "$BATS_TEST_TMPDIR/out")
}

@test "a shell command is asked whole, and each answer is Copilot's decision" {
	copilot_asks permission-bash
	run arc-status --show "$key"
	grep -qx 'title:    Permission to run a command' <<<"$output"
	grep -qx 'message:  \$ cd /etc && FOO=bar ls | head -1' <<<"$output"
	grep -qx 'agent:    Copilot CLI (copilot-cli)' <<<"$output"
	grep -qx 'project:  work' <<<"$output"
	copilot_answered allow
	[ "$reply" = '{"behavior":"allow"}' ]
	copilot_asks permission-bash
	copilot_answered deny
	[ "$(jq -r .behavior <<<"$reply")" = deny ]
	[ "$(jq -r .message <<<"$reply")" = "Denied through arc (cli)" ]
	[ "$(jq -r '.interrupt // "none"' <<<"$reply")" = none ]
	copilot_asks permission-bash
	copilot_answered stop
	[ "$(jq -c '[.behavior, .interrupt]' <<<"$reply")" = '["deny",true]' ]
	# and the hand-over: Copilot took each
	[ "$(arc-status --history --json | jq -r 'select(.key | startswith("copilot-cli:")) | .interaction.status' | sort -u)" = answered ]
}

@test "a file written is asked with its path and every line of its diff; a fetch with its URL; an MCP tool with its server and arguments" {
	copilot_asks permission-edit
	run arc-status --show "$key"
	grep -qx 'title:    Permission to write a file' <<<"$output"
	grep -qF 'message:  /tmp/copilot-research/exp/work/new.txt' <<<"$output"
	grep -qxE ' +-abc' <<<"$output"
	grep -qxE ' +\+xyz' <<<"$output"
	copilot_answered deny
	copilot_asks permission-create
	arc-status --show "$key" | grep -qF 'create file mode 100644'
	copilot_answered deny
	copilot_asks permission-fetch
	run arc-status --show "$key"
	grep -qx 'message:  https://example.com/y' <<<"$output"
	copilot_answered deny
	copilot_asks permission-mcp
	run arc-status --show "$key"
	grep -qx 'message:  MCP server fakesrv, tool do_thing, with:' <<<"$output"
	grep -qxE ' +\{"target":"prod-db"\}' <<<"$output"
	copilot_answered allow
	[ "$reply" = '{"behavior":"allow"}' ]
}

@test "no answer in time: nothing printed, exit 0 (Copilot asks in its own dialog), the question withdrawn" {
	ARC_HOOK_TIMEOUT=1 run --separate-stderr "$HOOK" copilot <"$P/permission-bash.json"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$(arc-status --list)" ]
	[ "$(arc-status --history --json | jq -r .interaction.status)" = expired ] ||
	    [ "$(arc-status --history --json | jq -r .interaction.status)" = cancelled ]
}

@test "a call too long to be shown whole is not asked, and says why" {
	jq --arg c "$(printf 'x%.0s' $(seq 5000))" '.toolInput.command = $c' "$P/permission-bash.json" >"$BATS_TEST_TMPDIR/long.json"
	run --separate-stderr "$HOOK" copilot <"$BATS_TEST_TMPDIR/long.json"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -q 'more than a question holds' <<<"$stderr"
	[ -z "$(arc-status --list)" ]
}

@test "its other events: the permission notice unless a question asks it, the turn's end a completion, a new prompt or the session's end sweeps" {
	"$HOOK" copilot <"$P/notification.json"
	run arc-status --list
	[ "$(cut -f5 <<<"$output")" = "Needs your permission" ]
	ARC_HOOK_EVENT=agentStop "$HOOK" copilot <"$P/agent-stop.json"
	[ "$(arc-status --list | cut -f5)" = Finished ]
	ARC_HOOK_EVENT=userPromptSubmitted "$HOOK" copilot <"$P/user-prompt-submitted.json"
	[ -z "$(arc-status --list)" ]
	ARC_HOOK_EVENT=agentStop "$HOOK" copilot <"$P/agent-stop.json"
	ARC_HOOK_EVENT=sessionEnd "$HOOK" copilot <"$P/session-end.json"
	[ -z "$(arc-status --list)" ]
	# an event it does not act on: nothing done, and said
	ARC_HOOK_EVENT=postToolUse run --separate-stderr "$HOOK" copilot <"$P/post-tool-use.json"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -q 'postToolUse: not an event arc-hook copilot acts on' <<<"$stderr"
}

@test "--settings copilot: Copilot's hooks file, each event's command told its event, a person's time for the question" {
	run "$HOOK" --settings copilot --prefix /opt/arc
	[ "$status" -eq 0 ]
	[ "$(jq .version <<<"$output")" = 1 ]
	[ "$(jq -r '[.hooks | to_entries[] | select(.value[0].env.ARC_HOOK_EVENT != .key)] | length' <<<"$output")" = 0 ]
	[ "$(jq -r '[.hooks[][].bash] | unique | .[]' <<<"$output")" = "/opt/arc/bin/arc-hook copilot" ]
	[ "$(jq -r '.hooks.permissionRequest[0].timeoutSec' <<<"$output")" -gt "$(( 300 ))" ]
	[ "$(jq -r '[.hooks | keys[]] | sort | join(",")' <<<"$output")" = "agentStop,notification,permissionRequest,sessionEnd,userPromptSubmitted" ]
	# each of those events is one the hook acts on
	for e in $(jq -r '.hooks | keys[]' <<<"$output"); do
		f=$(case $e in permissionRequest) echo permission-bash ;; notification) echo notification ;;
		    agentStop) echo agent-stop ;; sessionEnd) echo session-end ;; *) echo user-prompt-submitted ;; esac)
		ARC_HOOK_EVENT=$e ARC_HOOK_TIMEOUT=1 run --separate-stderr "$HOOK" copilot <"$P/$f.json"
		! grep -q 'not an event' <<<"$stderr" || false
	done
}
