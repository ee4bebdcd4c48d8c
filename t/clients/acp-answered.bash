# Sourced by qwen-acp-e2e and opencode-acp-e2e: what a session of a real
# agent under arc-acp, recorded by acp-client.mjs (result.json) and
# acp-tap.mjs (agent.ndjson, editor.ndjson) into DIR, must show once the
# person has answered through arc-answer.

# acp_answered DIR KIND AGENT: the person picked the option of KIND
# (allow_once, reject_once) through arc; the agent (its agentInfo.name
# AGENT) got exactly that option as the answer to its one
# session/request_permission and ended its turn; the editor got
# $/cancel_request for that request; the journal says answered.
acp_answered() {
	local dir=$1 key id option
	key=$(jq -r '.key // empty' "$dir/result.json" 2>/dev/null)
	id=$(jq -c 'select(.d == "out") | .m | fromjson
	    | select(.method == "session/request_permission") | .id' \
	    "$dir/agent.ndjson" 2>/dev/null | head -1)
	option=$(jq -r '.events[] | select(.answered) | .optionId' "$dir/result.json" 2>/dev/null)
	[ -n "$id" ] && [ -n "$option" ] &&
	[ "$(jq -r --arg o "$option" '.events[] | .permission // empty | .[] | select(.[0] == $o) | .[1]' "$dir/result.json")" = "$2" ] &&
	[ "$(jq -r '.events[0].agentInfo.name' "$dir/result.json")" = "$3" ] &&
	[ "$(jq -r '[.events[] | .stopReason // empty][0]' "$dir/result.json")" = end_turn ] &&
	[ "$(jq -c "select(.d == \"in\") | .m | fromjson | select(has(\"method\") | not) | select(.id == $id) | .result.outcome" "$dir/agent.ndjson" | jq -sc .)" = \
	    "[{\"outcome\":\"selected\",\"optionId\":\"$option\"}]" ] &&
	[ "$(jq -c 'select(.d == "recv") | .m | fromjson | select(.method == "$/cancel_request") | .params.requestId' "$dir/editor.ndjson")" = "$id" ] &&
	[ "$(ARC_JOURNAL=$dir/journal arc-status --json --show "$key" 2>/dev/null |
	    jq -r '"\(.notification.outcome) \(.interaction.status)"')" = "answered answered" ]
}
