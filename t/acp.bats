#!/usr/bin/env bats
# arc-acp(1) between recorded real ACP sessions: t/fixtures/acp/CASE/ holds
# what the pinned ACP SDK's client (editor.ndjson) and the real
# claude-agent-acp (agent.ndjson) sent and received through arc-acp, as
# t/clients/acp-e2e recorded them (make check-clients validates every
# line against the pinned ACP schema).  Here t/acp-peer plays each side
# again, byte for byte and in causal order, against this arc-acp: what
# each side receives must be what the real one received, and the
# question in the journal must end as the race says.
load helper

FX="$FIXTURES/acp"
PEER="$BATS_TEST_DIRNAME/acp-peer"

setup() {
	arc_setup
	unset ACP_EDITOR_GATE ACP_EDITOR_END ACP_AGENT_GATE ACP_AGENT_END
	W=$BATS_TEST_TMPDIR
}

teardown() {
	[ -z "${pairpid:-}" ] || kill "$pairpid" 2>/dev/null || :
	arc_teardown
}

# play CASE [ARC-ACP OPTIONS...]: both sides of a recording, in the
# background; the editor's output (arc-acp's exit status) in $W/status.
play() {
	local c=$1
	shift
	: >"$W/editor.got"
	: >"$W/agent.got"
	"$PEER" editor "$FX/$c/editor.ndjson" "$W/editor.got" -- \
	    arc-acp "$@" -- "$PEER" agent "$FX/$c/agent.ndjson" "$W/agent.got" \
	    >"$W/status" 2>"$W/stderr" &
	pairpid=$!
}

# done_playing: waits (up to 30 s) for both sides to finish.
done_playing() {
	local i
	for i in $(seq 600); do
		kill -0 "$pairpid" 2>/dev/null || break
		sleep 0.05
	done
	! kill -0 "$pairpid" 2>/dev/null || { echo "still playing"; return 1; }
	wait "$pairpid" || :
	pairpid=
}

# received SIDE CASE: what the side got is what the real one got.
received() {
	local want=$W/$1.want
	if [ "$1" = editor ]; then
		jq -r 'select(.d == "recv") | .m' "$FX/$2/editor.ndjson" >"$want"
	else
		jq -r 'select(.d == "in") | .m' "$FX/$2/agent.ndjson" >"$want"
	fi
	cmp "$want" "$W/$1.got" || { diff <(cut -c1-200 "$want") <(cut -c1-200 "$W/$1.got"); return 1; }
}

# pending_key [STATUS]: the key of arc-acp's question once it is pending
# (or has STATUS: a question with a short life may be past it already).
pending_key() {
	local i k want=${1:-pending}
	for i in $(seq 400); do
		k=$(arc-status --list 2>/dev/null | awk -F'\t' -v w="$want" 'index($1, "acp:") == 1 && ($3 == "pending" || $3 == w) { print $1; exit }')
		[ -n "$k" ] && { echo "$k"; return 0; }
		sleep 0.05
	done
	return 1
}

# ended KEY: "OUTCOME STATUS" of the question's notification and interaction
ended() {
	arc-status --json --show "$1" | jq -r '"\(.notification.outcome) \(.interaction.status)"'
}

@test "the recorded sessions: JSON-RPC 2.0 objects, and what one side sent is what the other got, but for what arc-acp added and dropped" {
	local c
	for c in allow deny cancel kill; do
		! jq -e -r '.m | fromjson | select(.jsonrpc != "2.0")' "$FX/$c/editor.ndjson" "$FX/$c/agent.ndjson" | grep -q .
		# editor to agent: the same lines, but in allow arc-acp's
		# reply went in place of the editor's late one
		diff <(jq -r 'select(.d == "sent") | .m' "$FX/$c/editor.ndjson" | sort) \
		    <(jq -r 'select(.d == "in") | .m' "$FX/$c/agent.ndjson" | sort) >"$W/e2a.diff" || :
		# agent to editor: the same, and in allow one $/cancel_request
		diff <(jq -r 'select(.d == "out") | .m' "$FX/$c/agent.ndjson") \
		    <(jq -r 'select(.d == "recv") | .m' "$FX/$c/editor.ndjson") >"$W/a2e.diff" || :
		if [ "$c" = allow ]; then
			[ "$(grep -c '^[<>]' "$W/e2a.diff")" -eq 2 ]
			grep -q '^< {"jsonrpc":"2.0","id":0,"error":{"code":-32800' "$W/e2a.diff"
			grep -q '^> {"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}$' "$W/e2a.diff"
			[ "$(grep -c '^[<>]' "$W/a2e.diff")" -eq 1 ]
			grep -q '^> {"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":0}}$' "$W/a2e.diff"
		else
			[ ! -s "$W/e2a.diff" ] && [ ! -s "$W/a2e.diff" ]
		fi
	done
	jq -e -r '.m | fromjson | select(.method == "session/request_permission") | .params.toolCall.kind' "$FX/allow/agent.ndjson" | grep -qx execute
}

@test "forwarding: the editor answers first, and every message of the session crosses byte for byte, both ways; the question opened and was withdrawn (not_needed)" {
	play deny
	done_playing
	received editor deny
	received agent deny
	[ "$(cat "$W/status")" = 0 ]
	run arc-status --history
	[[ "$output" == *"acp:claude-agent-acp:"*"resolved (not_needed)"* ]]
	k=$(arc-status --json --history | jq -r '.[0].key // empty' 2>/dev/null || :)
	run arc-status --list
	[ -z "$output" ]
}

@test "first answer wins: the person allows through arc; the agent gets the option, the editor \$/cancel_request, its late reply is dropped" {
	play allow
	k=$(pending_key)
	[[ "$k" == acp:claude-agent-acp:*:0 ]]
	arc-answer --source e2e "$k" allow-once >/dev/null
	done_playing
	received agent allow	# the reply arc-acp made, not the editor's -32800
	received editor allow	# with $/cancel_request for request 0
	grep -q '^{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}$' "$W/agent.got"
	! grep -q -- '-32800' "$W/agent.got"
	[ "$(ended "$k")" = "answered answered" ]
	[ "$(cat "$W/status")" = 0 ]
}

@test "the question: choices are the options in order, execute is high priority, the title and message say what the agent wants" {
	play allow
	k=$(pending_key)
	run arc-status --json --show "$k"
	[ "$(jq -c '[.interaction.choices[] | [.id, .label]]' <<<"$output")" = '[["allow-once","Yes"],["reject","No"]]' ]
	[ "$(jq -r .notification.priority <<<"$output")" = high ]
	[ "$(jq -r .interaction.kind <<<"$output")" = permission ]
	[ "$(jq -r .interaction.title <<<"$output")" = 'Claude Agent wants to run a command: touch deployed' ]
	jq -r .interaction.prompt <<<"$output" | grep -qx '\$ touch deployed'
	jq -r .interaction.prompt <<<"$output" | grep -q '^in /.*/project/deployed$'
	[ "$(jq -r .notification.agent <<<"$output")" = @agentclientprotocol/claude-agent-acp ]
	[ "$(jq -r .notification.agent_name <<<"$output")" = "Claude Agent" ]
	[ "$(jq -r .notification.project <<<"$output")" = project ]
	[ "$(jq -r .interaction.native_request_id <<<"$output")" = 0 ]
	[ "$(jq -r .notification.correlation_id <<<"$output")" = toolu_01Kq7 ]
	sid=$(jq -r 'select(.d == "out") | .m | fromjson | select(.method == "session/request_permission") | .params.sessionId' "$FX/allow/agent.ndjson")
	[ "$(jq -r .notification.session_id <<<"$output")" = "$sid" ]
	arc-answer "$k" reject >/dev/null
	done_playing
}

@test "session/cancel from the editor while the question waits withdraws it (cancelled); both sides get what they got" {
	n=$(jq -r 'select(.d == "sent") | .m' "$FX/cancel/editor.ndjson" | grep -n '"method":"session/cancel"' | cut -d: -f1)
	ACP_EDITOR_GATE=$n:$W/cancel-now play cancel
	k=$(pending_key)
	touch "$W/cancel-now"
	done_playing
	received editor cancel
	received agent cancel
	[ "$(ended "$k")" = "cancelled cancelled" ]
}

@test "the agent killed while the question waits: arc-acp withdraws it and exits 137, as the agent did" {
	ACP_AGENT_END=$W/kill-now play kill
	k=$(pending_key)
	touch "$W/kill-now"
	done_playing
	[ "$(cat "$W/status")" = 137 ]
	[ "$(ended "$k")" = "cancelled cancelled" ]
	received editor kill
}

@test "the editor going away (its end closed) closes the agent's input and withdraws the question" {
	# The editor's recording cut at the permission request: then its end closes.
	n=$(grep -n 'session/request_permission' "$FX/kill/editor.ndjson" | cut -d: -f1)
	head -n "$n" "$FX/kill/editor.ndjson" >"$W/cut.ndjson"
	: >"$W/editor.got"; : >"$W/agent.got"
	ACP_EDITOR_END=$W/close-now "$PEER" editor "$W/cut.ndjson" "$W/editor.got" -- \
	    arc-acp -- "$PEER" agent "$FX/kill/agent.ndjson" "$W/agent.got" >"$W/status" 2>"$W/stderr" &
	pairpid=$!
	k=$(pending_key)
	touch "$W/close-now"
	done_playing
	[ "$(cat "$W/status")" = 0 ]	# the agent saw its input end and exited 0
	[ "$(ended "$k")" = "cancelled cancelled" ]
}

@test "an expired question decides nothing and sends nothing to either side; the editor's late answer still goes to the agent" {
	# the editor answers only once the question has expired
	n=$(jq -r 'select(.d == "sent") | .m' "$FX/deny/editor.ndjson" | grep -n '"outcome":{"outcome":"selected"' | cut -d: -f1)
	ACP_EDITOR_GATE=$n:$W/answer-now play deny -t 1s
	k=$(pending_key expired)
	for _ in $(seq 100); do
		[ "$(arc-status --json --show "$k" | jq -r .interaction.status)" = expired ] && break
		arc-status --list >/dev/null
		sleep 0.1
	done
	[ "$(arc-status --json --show "$k" | jq -r .interaction.status)" = expired ]
	sleep 0.3
	! grep -q '"outcome":{"outcome"' "$W/agent.got"
	touch "$W/answer-now"
	done_playing
	received editor deny	# no $/cancel_request
	received agent deny	# the editor's own reply
}

@test "binding: an answer to another question under the same key is not acted on; the editor's answer decides" {
	n=$(jq -r 'select(.d == "sent") | .m' "$FX/deny/editor.ndjson" | grep -n '"outcome":{"outcome":"selected"' | cut -d: -f1)
	ACP_EDITOR_GATE=$n:$W/answer-now play deny
	k=$(pending_key)
	# another producer takes the key over with a question of its own
	created "$k" '.request.message = "Another question" | .request.response.expires_at = "2099-01-01T00:00:00Z"' | arc-apply -q >/dev/null
	arc-answer "$k" allow >/dev/null
	sleep 0.5
	! grep -q '"outcome":{"outcome"' "$W/agent.got"
	! grep -q 'cancel_request' "$W/editor.got"
	touch "$W/answer-now"
	done_playing
	received agent deny
	received editor deny
	grep -q 'another question' "$W/stderr"
}

@test "an optionId that is not an ARC choice id is mapped, and the answer goes back as the agent's own optionId" {
	for f in editor agent; do
		jq -c '.m |= gsub("allow-once"; "allow once!")' "$FX/allow/$f.ndjson" >"$W/$f.ndjson"
	done
	: >"$W/editor.got"; : >"$W/agent.got"
	"$PEER" editor "$W/editor.ndjson" "$W/editor.got" -- arc-acp -- "$PEER" agent "$W/agent.ndjson" "$W/agent.got" >"$W/status" 2>"$W/stderr" &
	pairpid=$!
	k=$(pending_key)
	[ "$(arc-status --json --show "$k" | jq -c '[.interaction.choices[].id]')" = '["opt-1","reject"]' ]
	arc-answer "$k" opt-1 >/dev/null
	done_playing
	grep -q '^{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow once!"}}}$' "$W/agent.got"
}

@test "elicitation/create: one string field is a text question, one enum a single_choice; the answer returns as the field's content" {
	cat >"$W/agent.ndjson" <<-'EOF2'
	{"d":"out","m":"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"elicitation/create\",\"params\":{\"sessionId\":\"s1\",\"mode\":\"form\",\"message\":\"Which branch?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"branch\":{\"type\":\"string\",\"title\":\"Branch\",\"maxLength\":40}},\"required\":[\"branch\"]}}}"}
	{"d":"in","m":"reply"}
	{"d":"out","m":"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"elicitation/create\",\"params\":{\"sessionId\":\"s1\",\"mode\":\"form\",\"message\":\"Which target?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"target\":{\"type\":\"string\",\"oneOf\":[{\"const\":\"prod\",\"title\":\"Production\"},{\"const\":\"stage 2\",\"title\":\"Staging\"}]}}}}}"}
	{"d":"in","m":"reply"}
	{"d":"out","m":"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":{\"sessionId\":\"s1\",\"mode\":\"url\",\"elicitationId\":\"e1\",\"url\":\"https://example.com/x\",\"message\":\"Log in\"}}"}
	EOF2
	printf '%s\n' '{"d":"recv","m":"x"}' '{"d":"recv","m":"x"}' '{"d":"recv","m":"x"}' '{"d":"recv","m":"x"}' '{"d":"recv","m":"x"}' >"$W/editor.ndjson"
	: >"$W/editor.got"; : >"$W/agent.got"
	"$PEER" editor "$W/editor.ndjson" "$W/editor.got" -- arc-acp -- "$PEER" agent "$W/agent.ndjson" "$W/agent.got" >"$W/status" 2>"$W/stderr" &
	pairpid=$!
	k=$(pending_key)
	[ "$(arc-status --json --show "$k" | jq -r '"\(.interaction.kind) \(.interaction.text_max_length)"')" = "text 40" ]
	arc-answer "$k" --text "main" >/dev/null
	for _ in $(seq 100); do [ "$(arc-status --list | grep -c pending)" -ge 1 ] && [ "$(pending_key)" != "$k" ] && break; sleep 0.05; done
	k2=$(pending_key)
	[ "$(arc-status --json --show "$k2" | jq -c '[.interaction.kind, [.interaction.choices[] | [.id, .label]]]')" = '["single_choice",[["prod","Production"],["opt-2","Staging"]]]' ]
	arc-answer "$k2" opt-2 >/dev/null
	done_playing
	grep -qx '{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"branch":"main"}}}' "$W/agent.got"
	grep -qx '{"jsonrpc":"2.0","id":8,"result":{"action":"accept","content":{"target":"stage 2"}}}' "$W/agent.got"
	# the URL mode stayed with the editor: no third question
	[ "$(arc-status --json --history | jq 'length')" -eq 2 ] 2>/dev/null || [ "$(arc-status --history | grep -c acp:)" -eq 2 ]
	[ "$(grep -c cancel_request "$W/editor.got")" -eq 2 ]
}

@test "elicitation/create as claude-agent-acp sends it for AskUserQuestion (a choice and an Other text) stays with the editor: no question, and both sides get what they got" {
	jq -r 'select(.d == "out") | .m' "$FX/elicit/agent.ndjson" | grep -q '"method":"elicitation/create"'
	play elicit
	done_playing
	received editor elicit
	received agent elicit
	[ "$(cat "$W/status")" = 0 ]
	run arc-status --list
	[ "$status" -eq 0 ]
	! grep -q '^acp:' <<<"$output"
}

@test "forwarding: a 10 MiB message, a message without its newline at the end, blank lines and non-JSON pass unchanged, both ways" {
	python3 -c 'import sys; sys.stdout.write("{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"x\":\"" + "a" * (10 << 20) + "\"}}\n\n not json \n{\"id\":1,\"result\":{}}\n{\"tail\":1}")' >"$W/in"
	arc-acp -- cat <"$W/in" >"$W/out"
	cmp "$W/in" "$W/out"
	arc-acp -- sh -c 'cat "$0"; cat >/dev/null' "$W/in" </dev/null >"$W/out2"
	cmp "$W/in" "$W/out2"
}

@test "forwarding: a request written method first is still read whole; one whose method only begins or ends like session/request_permission opens nothing; all pass unchanged" {
	p='"params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"rm -rf build","kind":"execute","rawInput":{"command":"rm -rf build"}},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}'
	{
		printf '%s\n' "{\"jsonrpc\":\"2.0\",\"method\":\"session/request_permissionX\",\"id\":5,$p"
		printf '%s\n' "{\"jsonrpc\":\"2.0\",\"method\":\"session/request_permissio\",\"id\":6,$p"
		printf '%s\n' "{\"jsonrpc\":\"2.0\",\"method\":\"session/request_permission\",\"id\":7,$p"
	} >"$W/asks"
	( sleep 30 ) | arc-acp -- sh -c 'cat "$0"; cat >/dev/null' "$W/asks" >"$W/out" 2>"$W/stderr" &
	pairpid=$!
	k=$(pending_key)
	[ "${k##*:}" = 7 ]
	[ "$(arc-status --list | grep -c '^acp:')" = 1 ]
	for i in $(seq 100); do [ "$(wc -l <"$W/out")" -ge 3 ] && break; sleep 0.05; done
	cmp "$W/asks" "$W/out"
	kill "$pairpid"
}

@test "usage: no agent is exit 2, an agent not found 127, and arc-acp exits as the agent did" {
	run --separate-stderr arc-acp
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: arc-acp "* ]]
	run -127 arc-acp -- /nonexistent/agent
	[ "$status" -eq 127 ]
	run arc-acp -- sh -c 'exit 5' </dev/null
	[ "$status" -eq 5 ]
	run arc-acp -- sh -c 'kill -TERM $$' </dev/null
	[ "$status" -eq 143 ]
	run --separate-stderr arc-acp -t 0 -- true
	[ "$status" -eq 2 ]
	run arc-acp --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: arc-acp "* ]]
}

@test "gemini-hook: ToolPermission opens a blocked notice naming the command; AfterAgent resolves it and opens a completion; BeforeAgent and SessionEnd resolve; nothing is printed" {
	local G="$BATS_TEST_DIRNAME/../examples/gemini-hook" P="$FIXTURES/hooks/gemini"
	local S=gemini-cli:5c1e0a8e-1f7b-4c52-9a8e-2f3d4b5a6c70
	run --separate-stderr "$G" <"$P/notification-exec.json"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run arc-status --json --show "$S:notice:permission"
	[ "$(jq -c '.notification | [.kind, .priority, .title, .message, .agent]' <<<"$output")" = \
	    '["blocked","high","Gemini CLI needs your permission: Shell","Tool Shell requires execution\n$ touch deployed","gemini-cli"]' ]
	run --separate-stderr "$G" <"$P/after-agent.json"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$(arc-status --json --show "$S:notice:permission" | jq -r .notification.outcome)" = not_needed ]
	[ "$(arc-status --json --show "$S:stop" | jq -c '.notification | [.kind, .message]')" = '["completion","Deployed build 812."]' ]
	"$G" <"$P/notification-edit.json"
	[ "$(arc-status --json --show "$S:notice:permission" | jq -r .notification.message)" = $'Tool Edit requires editing\n/home/p/site/index.html' ]
	run --separate-stderr "$G" <"$P/before-agent.json"
	[ -z "$output" ]
	run arc-status --list
	[ -z "$output" ]
	"$G" <"$P/notification-exec.json"
	"$G" <"$P/session-end.json"
	run arc-status --list
	[ -z "$output" ]
	# not JSON: said on stderr, exit 0, nothing written
	run --separate-stderr "$G" <<<'not json'
	[ "$status" -eq 0 ] && [ -z "$output" ] && [[ "$stderr" == *"not one JSON object"* ]]
}

@test "make install puts arc-acp, its page and gemini-hook under PREFIX" {
	run make -s -C "$BATS_TEST_DIRNAME/.." install PREFIX="$BATS_TEST_TMPDIR/usr"
	[ "$status" -eq 0 ]
	[ -x "$BATS_TEST_TMPDIR/usr/bin/arc-acp" ]
	[ -f "$BATS_TEST_TMPDIR/usr/share/man/man1/arc-acp.1" ]
	[ -x "$BATS_TEST_TMPDIR/usr/share/arc/examples/gemini-hook" ]
	run "$BATS_TEST_TMPDIR/usr/bin/arc-acp" -- sh -c 'exit 7' </dev/null
	[ "$status" -eq 7 ]
}
