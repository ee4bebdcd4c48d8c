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

# play_files EDITOR AGENT [ARC-ACP OPTIONS...]: as play, for transcripts
# written by a test.
play_files() {
	local e=$1 a=$2
	shift 2
	: >"$W/editor.got"
	: >"$W/agent.got"
	"$PEER" editor "$e" "$W/editor.got" -- arc-acp "$@" -- "$PEER" agent "$a" "$W/agent.got" \
	    >"$W/status" 2>"$W/stderr" &
	pairpid=$!
}

# play_unwrapped: the kill session, through the real arc-acp (not the
# test wrapper, so that a signal reaches it), both ends open until
# $W/end-now appears.
play_unwrapped() {
	: >"$W/editor.got"; : >"$W/agent.got"
	ACP_EDITOR_END=$W/end-now ACP_AGENT_END=$W/end-now "$PEER" editor "$FX/kill/editor.ndjson" \
	    "$W/editor.got" -- "$ARC_BIN/arc-acp" -- "$PEER" agent "$FX/kill/agent.ndjson" \
	    "$W/agent.got" >"$W/status" 2>"$W/stderr" 3>&- &
	pairpid=$!
}

# tx DIRECTION LINE: LINE as a line of a transcript (out/in for the agent,
# sent/recv for the editor).
tx() {
	jq -nc --arg d "$1" --arg m "$2" '{d: $d, m: $m}'
}

# perm ID [TOOLCALL]: a session/request_permission with that id (as JSON
# text), asking to run a command, allow or reject.
perm() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":%s,"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}}' \
	    "$1" "${2:-{\"toolCallId\":\"t1\",\"title\":\"touch deployed\",\"kind\":\"execute\",\"rawInput\":{\"command\":\"touch deployed\"\}\}}"
}

# settled KEY WANT: waits (up to 20 s) until ended KEY says WANT.
settled() {
	local until=$((SECONDS + 20))
	while [ "$SECONDS" -lt "$until" ]; do
		[ "$(ended "$1")" = "$2" ] && return 0
		sleep 0.05
	done
	echo "$1 ended $(ended "$1"), not $2"
	return 1
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
		! jq -e -r '.m | fromjson | select(.jsonrpc != "2.0")' "$FX/$c/editor.ndjson" "$FX/$c/agent.ndjson" | grep -q . || false
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
	! grep -q -- '-32800' "$W/agent.got" || false
	[ "$(ended "$k")" = "answered answered" ]
	[ "$(cat "$W/status")" = 0 ]
	# written to the agent: its receipt (arc-journal(5), The hand-over)
	[[ "$(arc-status --show "$k" | sed -n 's/^state: *//p')" =~ \ took\ it\ [0-9]+\ ms\ later$ ]]
	[ "$(arc-status --json --show "$k" | jq -r '.handover.question == .interaction.id')" = true ]
}

@test "arc-acp killed hard while its question waits: the question is withdrawn for want of a waiter, and its arc-wait goes too" {
	play_unwrapped
	k=$(pending_key)
	[ "$(arc-status --json --show "$k" | jq -r .waiting)" = true ]
	pkill -KILL -f "^$ARC_BIN/arc-acp"
	touch "$W/end-now"	# the agent and the editor end as they would
	# its arc-wait finds nobody to hand an answer to, and stops; the next
	# look withdraws the question
	eventually eval '[ "$(ended "$k")" = "cancelled cancelled" ]'
	[[ "$(arc-status --show "$k" | sed -n 's/^state: *//p')" == *": no one waits for it any more" ]]
	run --separate-stderr arc-answer "$k" allow-once
	[ "$status" -ne 0 ]
	eventually eval '! pgrep -f "arc-wait.*$k" >/dev/null'
	done_playing
}

@test "arc-acp killed between the answer and the hand-over: the answer stands, and the question says the agent did not take it" {
	play_unwrapped
	k=$(pending_key)
	# stopped: its arc-wait gets the answer, and arc-acp never hands it on
	pkill -STOP -f "^$ARC_BIN/arc-acp"
	arc-answer "$k" allow-once >/dev/null
	eventually eval '! pgrep -f "arc-wait.*$k" >/dev/null'
	pkill -KILL -f "^$ARC_BIN/arc-acp"
	touch "$W/end-now"
	eventually eval '[[ "$(arc-status --show "$k" | sed -n "s/^state: *//p")" == *" did not take it (it had stopped waiting)" ]]'
	[ "$(ended "$k")" = "answered answered" ]
	! grep -q '"optionId":"allow-once"' "$W/agent.got" || false
	done_playing
}

@test "the question: choices are the options in order, execute is high priority, the title and message say what the agent wants" {
	play allow
	k=$(pending_key)
	run arc-status --json --show "$k"
	[ "$(jq -c '[.interaction.choices[] | [.id, .label]]' <<<"$output")" = '[["allow-once","Yes"],["reject","No"]]' ]
	[ "$(jq -r .notification.priority <<<"$output")" = high ]
	[ "$(jq -r .interaction.kind <<<"$output")" = permission ]
	[ "$(jq -r .interaction.title <<<"$output")" = 'Permission to run a command' ]
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
	# the editor keeps its end open until then (closing it withdraws too)
	ACP_EDITOR_END=$W/kill-now ACP_AGENT_END=$W/kill-now play kill
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
	! grep -q '"outcome":{"outcome"' "$W/agent.got" || false
	touch "$W/answer-now"
	done_playing
	received editor deny	# no $/cancel_request
	received agent deny	# the editor's own reply
}

@test "-t takes every duration the other commands take (1w, 1h30m, 2.5): the question's deadline is that far away" {
	n=$(jq -r 'select(.d == "sent") | .m' "$FX/deny/editor.ndjson" | grep -n '"outcome":{"outcome":"selected"' | cut -d: -f1)
	export ARC_NOW=2026-08-26T01:16:00Z
	ACP_EDITOR_GATE=$n:$W/answer-now play deny -t 1h30m
	k=$(pending_key)
	[ "$(arc-status --json --show "$k" | jq -r .interaction.expires_at)" = 2026-08-26T02:46:00Z ]
	touch "$W/answer-now"
	done_playing
	for d in 1w 2.5 90; do
		run --separate-stderr arc-acp -t "$d" -- true </dev/null
		[ "$status" -eq 0 ]
	done
	run --separate-stderr arc-acp -t 1x -- true </dev/null
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-acp: -t 1x: not a duration such as 90s, 10m, 2h, 1d, 1w or 1h30m" ]
}

@test "binding: an answer to another question under the same key is not acted on; the editor's answer decides" {
	n=$(jq -r 'select(.d == "sent") | .m' "$FX/deny/editor.ndjson" | grep -n '"outcome":{"outcome":"selected"' | cut -d: -f1)
	ACP_EDITOR_GATE=$n:$W/answer-now play deny
	k=$(pending_key)
	# another producer takes the key over with a question of its own
	created "$k" '.request.message = "Another question" | .request.response.expires_at = "2099-01-01T00:00:00Z"' | arc-apply -q >/dev/null
	arc-answer "$k" allow >/dev/null
	sleep 0.5
	! grep -q '"outcome":{"outcome"' "$W/agent.got" || false
	! grep -q 'cancel_request' "$W/editor.got" || false
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
	! grep -q '^acp:' <<<"$output" || false
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
	# the key carries the session hashed (16 hex digits of its SHA-256)
	local S=gemini-cli:$(printf %s 5c1e0a8e-1f7b-4c52-9a8e-2f3d4b5a6c70 | sha256sum | cut -c1-16)
	run --separate-stderr "$G" <"$P/notification-exec.json"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run arc-status --json --show "$S:notice:permission"
	[ "$(jq -c '.notification | [.kind, .priority, .title, .message, .agent]' <<<"$output")" = \
	    '["blocked","high","Needs your permission","Shell\nTool Shell requires execution\n$ touch deployed","gemini-cli"]' ]
	run --separate-stderr "$G" <"$P/after-agent.json"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$(arc-status --json --show "$S:notice:permission" | jq -r .notification.outcome)" = not_needed ]
	[ "$(arc-status --json --show "$S:stop" | jq -c '.notification | [.kind, .message]')" = '["completion","Deployed build 812."]' ]
	"$G" <"$P/notification-edit.json"
	[ "$(arc-status --json --show "$S:notice:permission" | jq -r .notification.message)" = $'Edit\nTool Edit requires editing\n/home/p/site/index.html' ]
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

# ---- arc-acp, the one arbiter of a request (issue 27) ----

@test "ids by value: the editor's reply written 5.0, 5e0, 50e-1 or \"\\u0069d\":5 is the reply to request 5; it withdraws the question before it goes on, and a later answer through arc is refused" {
	local form
	for form in '"id":5.0' '"id":5e0' '"id":50e-1' '"\u0069d":5'; do
		reply="{\"jsonrpc\":\"2.0\",$form,\"result\":{\"outcome\":{\"outcome\":\"selected\",\"optionId\":\"reject\"}}}"
		{ tx out "$(perm 5)"; tx in x; } >"$W/a.ndjson"
		{ tx recv x; tx sent "$reply"; } >"$W/e.ndjson"
		rm -f "$W/reply-now" "$W/end-now"
		ACP_EDITOR_GATE=1:$W/reply-now ACP_EDITOR_END=$W/end-now play_files "$W/e.ndjson" "$W/a.ndjson"
		k=$(pending_key)
		touch "$W/reply-now"
		settled "$k" "not_needed cancelled"
		run arc-answer "$k" allow
		[ "$status" -eq 1 ]
		touch "$W/end-now"
		done_playing
		[ "$(cat "$W/agent.got")" = "$reply" ]	# the editor's, once
	done
}

@test "duplicated id in the editor's reply (\"id\":9,\"id\":5): arc-acp does not pick one; the question is left to the editor (withdrawn, said on stderr) and the reply goes on" {
	reply='{"jsonrpc":"2.0","id":9,"id":5,"result":{"outcome":{"outcome":"selected","optionId":"reject"}}}'
	{ tx out "$(perm 5)"; tx in x; } >"$W/a.ndjson"
	{ tx recv x; tx sent "$reply"; } >"$W/e.ndjson"
	ACP_EDITOR_GATE=1:$W/reply-now ACP_EDITOR_END=$W/end-now play_files "$W/e.ndjson" "$W/a.ndjson"
	k=$(pending_key)
	touch "$W/reply-now"
	settled "$k" "not_needed cancelled"
	run arc-answer "$k" allow
	[ "$status" -eq 1 ]
	touch "$W/end-now"
	done_playing
	[ "$(cat "$W/agent.got")" = "$reply" ]
	grep -q "question $k: the editor's message for its request gives its id twice; the editor decides it" "$W/stderr"
}

@test "a number id 5 and a string id \"5\" are two requests: two questions under two keys; the editor's reply to \"5\" settles that one only, arc's answer goes to 5" {
	{ tx out "$(perm 5)"; tx out "$(perm '"5"')"; tx in x; tx in x; } >"$W/a.ndjson"
	sreply='{"jsonrpc":"2.0","id":"5","result":{"outcome":{"outcome":"selected","optionId":"reject"}}}'
	{ tx recv x; tx recv x; tx sent "$sreply"; } >"$W/e.ndjson"
	ACP_EDITOR_GATE=1:$W/reply-now ACP_EDITOR_END=$W/end-now play_files "$W/e.ndjson" "$W/a.ndjson"
	for _ in $(seq 400); do
		[ "$(arc-status --list | awk -F'\t' '$3 == "pending"' | grep -c '^acp:')" -eq 2 ] && break
		sleep 0.05
	done
	keys=$(arc-status --list | awk -F'\t' 'index($1, "acp:") == 1 && $3 == "pending" { print $1 }')
	[ "$(wc -l <<<"$keys")" -eq 2 ]
	kn=$(grep ':5$' <<<"$keys")
	ks=$(grep -v ':5$' <<<"$keys")
	[ -n "$kn" ] && [ -n "$ks" ] && [ "$kn" != "$ks" ]
	touch "$W/reply-now"
	settled "$ks" "not_needed cancelled"
	[ "$(ended "$kn")" = "null pending" ]
	arc-answer "$kn" allow >/dev/null
	settled "$kn" "answered answered"
	touch "$W/end-now"
	done_playing
	grep -qxF "$sreply" "$W/agent.got"
	grep -qx '{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}' "$W/agent.got"
	[ "$(wc -l <"$W/agent.got")" -eq 2 ]
}

@test "a reused id: arc answers request 5, the editor never replies to it; the agent asks again with id 5, and the editor's reply to that one reaches it (no leftover drop swallows it)" {
	reply='{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"selected","optionId":"reject"}}}'
	{ tx out "$(perm 5)"; tx in x; tx out "$(perm 5)"; tx in x; } >"$W/a.ndjson"
	# the request, arc's $/cancel_request, the second request; then its reply
	{ tx recv x; tx recv x; tx recv x; tx sent "$reply"; } >"$W/e.ndjson"
	ACP_EDITOR_END=$W/end-now play_files "$W/e.ndjson" "$W/a.ndjson"
	k=$(pending_key)
	arc-answer "$k" allow >/dev/null
	for _ in $(seq 400); do [ "$(wc -l <"$W/agent.got")" -ge 2 ] && break; sleep 0.05; done
	touch "$W/end-now"
	done_playing
	[ "$(sed -n 1p "$W/agent.got")" = '{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}' ]
	[ "$(sed -n 2p "$W/agent.got")" = "$reply" ]
	[ "$(wc -l <"$W/agent.got")" -eq 2 ]
}

@test "the editor closes its end while the agent runs on: every open question is withdrawn (cancelled), and a later answer through arc is refused" {
	{ tx out "$(perm 5)"; tx in x; } >"$W/a.ndjson"
	tx recv x >"$W/e.ndjson"
	ACP_EDITOR_END=$W/close-now ACP_AGENT_END=$W/kill-now play_files "$W/e.ndjson" "$W/a.ndjson"
	k=$(pending_key)
	touch "$W/close-now"
	settled "$k" "cancelled cancelled"
	kill -0 "$pairpid"	# the agent still runs
	run arc-answer "$k" allow
	[ "$status" -eq 1 ]
	touch "$W/kill-now"
	done_playing
	[ "$(cat "$W/status")" = 137 ]
	[ ! -s "$W/agent.got" ]
}

@test "requests arc does not ask stay with the editor, each with its reason on stderr (raw non-UTF-8, \\ud800, duplicated members in toolCall or at the top, 20 MB, an id 1.5); escaped method names are read; all pass unchanged, and stderr quotes none of them" {
	dup='{"toolCallId":"t3","title":"Read README","title":"Delete your home directory","kind":"read","kind":"execute","rawInput":{"command":"cat README","command":"rm -rf ~"}}'
	{
		perm 1 "$(printf '{"toolCallId":"t1","title":"Read \xff README","kind":"read"}')"; echo
		perm 2 '{"toolCallId":"t2","title":"Read \ud800 README","kind":"read"}'; echo
		perm 3 "$dup"; echo
		perm '4,"id":40'; echo
		perm 5 "{\"toolCallId\":\"t5\",\"title\":\"Read $(head -c 20000000 /dev/zero | tr '\0' x) README\",\"kind\":\"read\"}"; echo
		perm 1.5; echo
		perm 7 | sed 's/^{"jsonrpc":"2.0",/{"jsonrpc":"2.0","method":"session\/update",/'; echo
		perm 8 | sed 's/"session\/request_permission"/"session\\\/request_permission"/'; echo
		perm 9 | sed 's/"method"/"\\u006dethod"/'; echo
		# a session update with an escaped second method member
		perm 10 | sed 's/"method"/"\\u006dethod"/; s/^{"jsonrpc":"2.0",/{"jsonrpc":"2.0","method":"session\/update",/'; echo
	} >"$W/asks"
	# the editor's end stays open until close-now
	( while [ ! -e "$W/close-now" ]; do sleep 0.05; done ) |
	    arc-acp -- sh -c 'cat "$0"; cat >/dev/null' "$W/asks" >"$W/out" 2>"$W/stderr" &
	pairpid=$!
	for _ in $(seq 400); do
		[ "$(arc-status --list | grep -c '^acp:')" -ge 2 ] && break
		sleep 0.05
	done
	run arc-status --list
	[ "$(grep -c '^acp:' <<<"$output")" -eq 2 ]
	[ "$(awk -F'\t' 'index($1, "acp:") == 1 { sub(/.*:/, "", $1); print $1 }' <<<"$output" | sort | paste -sd' ')" = "8 9" ]
	for _ in $(seq 200); do cmp -s "$W/asks" "$W/out" && break; sleep 0.05; done
	cmp "$W/asks" "$W/out"
	touch "$W/close-now"
	done_playing
	cat "$W/stderr"
	[ "$(grep -c 'a session/request_permission request stays with the editor: ' "$W/stderr")" -eq 8 ]
	grep -q 'stays with the editor: it is not JSON as arc-acp reads it (.*UTF-8' "$W/stderr"
	grep -q 'stays with the editor: it is not JSON as arc-acp reads it (.*surrogate' "$W/stderr"
	grep -q 'stays with the editor: a member is given twice in it$' "$W/stderr"
	grep -q 'stays with the editor: its id is given twice$' "$W/stderr"
	grep -q 'stays with the editor: it is longer than 1 MiB$' "$W/stderr"
	grep -q 'stays with the editor: its id is neither a string nor a whole number' "$W/stderr"
	[ "$(grep -c 'stays with the editor: its method is given twice$' "$W/stderr")" -eq 2 ]
	! grep -q 'README\|home\|rm -rf\|touch' "$W/stderr" || false
}

@test "duplicated members inside toolCall: no question milder than the editor's (none at all); the request stays with the editor, said on stderr" {
	dup='{"toolCallId":"t3","title":"Read README","title":"Delete your home directory","kind":"read","kind":"execute","rawInput":{"command":"cat README","command":"rm -rf ~"}}'
	{ tx out "$(perm 3 "$dup")"; tx out "$(perm 4)"; tx in x; tx in x; } >"$W/a.ndjson"
	{ tx recv x; tx recv x; } >"$W/e.ndjson"
	ACP_EDITOR_END=$W/end-now play_files "$W/e.ndjson" "$W/a.ndjson"
	k=$(pending_key)
	[ "${k##*:}" = 4 ]	# the request after it is asked
	[ "$(arc-status --list | grep -c '^acp:')" -eq 1 ]
	arc-answer "$k" allow >/dev/null
	touch "$W/end-now"
	done_playing
	grep -q 'a session/request_permission request stays with the editor: a member is given twice in it' "$W/stderr"
	[ "$(arc-status --json --history | jq '[.[] | select(.key | startswith("acp:"))] | length')" -eq 1 ] ||
	    [ "$(arc-status --history | grep -c 'acp:')" -eq 1 ]
}

@test "both sides answer at once, 100 rounds (arc-answer allow and the editor's reject 0-30 ms apart, either first; arc's answer in the journal before arc-acp hears of it): the agent gets one answer, the one the journal records, every time" {
	"$PEER" race-editor 100 "$W/rounds" -- arc-acp -- "$PEER" race-agent 100 "$W/agent.got" >"$W/status" 2>"$W/stderr"
	[ "$(cat "$W/status")" = 0 ]
	[ "$(wc -l <"$W/rounds")" -eq 100 ]
	run "$PEER" race-check "$W/rounds" "$W/agent.got"
	echo "$output"
	echo "# $(tail -1 <<<"$output")" >&3
	[[ "$(tail -1 <<<"$output")" == "100 rounds agree "* ]]
}
