#!/usr/bin/env bats
# The agent adapters in examples/ on payloads shaped like the ones the real
# clients send: t/fixtures/hooks/, which `make check-clients` proves match
# the pinned Claude Code and Codex (their types and JSON Schemas), as it
# proves that the outputs in out/ are what the clients accept.  Here: what
# each event opens or closes, what the person is asked, and what goes back.
# The adapters are one-line wrappers that exec arc-hook(1), which applies
# and waits in-process.  Observed through the commands and the records the
# journal holds (arc-journal(5)): arc-status, arc-wait and arc-answer.
load helper

HOOKS="$BATS_TEST_DIRNAME/../examples"
P="$FIXTURES/hooks"
SID=4f1c2b7e-9a3d-4e52-8c61-0b2d7f9e3a10	# the Claude Code fixtures' session
CX=0199a213-81c0-7800-8aa1-bbab2a035a53	# the Codex fixtures' session
# A key carries its session hashed (the first 16 hex digits of its
# SHA-256), so that no session id leaves the host inside a key.
hashed() { printf %s "$1" | sha256sum | cut -c1-16; }
SK=$(hashed "$SID") CK=$(hashed "$CX")

setup() {
	arc_setup
	unset ARC_HOOK_TIMEOUT ARC_HOOK_CLIENT TMUX TMUX_PANE
	MARK=0
}

# records: every record the journal holds (arc-journal(5)), one a line:
# its key, its event's type, and the records as stored.
records() {
	[ -s "$ARC_JOURNAL" ] || return 0
	jq -c 'select(.index) | {key: .index.key, type: .event.type,
	    notification, interaction}' "$ARC_JOURNAL"
}

# applied: the records written since the last mark (all, without one).
applied() { records | tail -n +$((MARK + 1)); }
mark() { MARK=$(records | wc -l); }

# An adapter a failed test left waiting is stopped (by its pid).
teardown() {
	[ -z "${hookpid:-}" ] || kill "$hookpid" 2>/dev/null || :
	for p in ${hookpids:-}; do kill "$p" 2>/dev/null || :; done
	arc_teardown
}

# hook [ADAPTER] DIR/NAME: runs an adapter on a fixture, like `run`.
hook() {
	local a=claude-code-hook
	[ $# -eq 1 ] || { a=$1; shift; }
	run --separate-stderr "$HOOKS/$a" <"$P/$1.json"
}

# start [ADAPTER] DIR/NAME: the same in the background, in a session of its
# own with TERM, INT and HUP at their defaults (as a client starts it).
start() {
	local a=claude-code-hook
	[ $# -eq 1 ] || { a=$1; shift; }
	setsid env --default-signal=INT,TERM,HUP "$HOOKS/$a" <"$P/$1.json" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	hookpid=$!
}

# finish: waits for the background adapter; its exit status in $status.
finish() {
	status=0
	wait "$hookpid" || status=$?
}

# begin NAME PAYLOAD [ADAPTER]: one of several adapters at once, as start
# runs one, on the payload file PAYLOAD; its output in NAME.out and NAME.err.
begin() {
	setsid env --default-signal=INT,TERM,HUP "$HOOKS/${3:-claude-code-hook}" <"$2" \
	    >"$BATS_TEST_TMPDIR/$1.out" 2>"$BATS_TEST_TMPDIR/$1.err" &
	printf -v "pid_$1" %s "$!"
	hookpids="${hookpids:-} $!"
}

# end NAME: waits (up to 10 s) for the adapter NAME to exit; its exit
# status in $status.  One still waiting fails the test.
end() {
	local p="pid_$1" i
	for i in $(seq 200); do
		kill -0 "${!p}" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "${!p}" 2>/dev/null; then
		echo "$1 still waits"
		return 1
	fi
	status=0
	wait "${!p}" || status=$?
}

# await_question JQ [N]: waits (up to 10 s) until the journal holds N (default
# 1) questions opened whose interaction record matches JQ, and prints the key
# of the latest one.
await_question() {
	local i keys
	for i in $(seq 200); do
		keys=$(applied | jq -r "select(.interaction.status == \"pending\")
		    | select(.interaction | $1) | .key")
		if [ -n "$keys" ] && [ "$(wc -l <<<"$keys")" -ge "${2:-1}" ]; then
			tail -1 <<<"$keys"
			return 0
		fi
		sleep 0.05
	done
	echo "no question where $1" >&2
	return 1
}

# asked PREFIX [N]: waits (up to 10 s) until N questions (default 1) are
# pending under keys starting with PREFIX, and prints their keys.
asked() {
	local i keys
	for i in $(seq 200); do
		keys=$(arc-status --list | awk -F'\t' -v p="$1" \
		    'index($1, p) == 1 && $3 == "pending" { print $1 }' | sort)
		if [ -n "$keys" ] && [ "$(wc -l <<<"$keys")" -eq "${2:-1}" ]; then
			echo "$keys"
			return 0
		fi
		sleep 0.05
	done
	echo "no question under $1" >&2
	return 1
}

# record KEY: the latest notification record the journal holds for KEY.
record() {
	applied | jq -c --arg k "$1" 'select(.key == $k and .notification != null)
	    | .notification' | tail -1
}

# active: the keys of the active conditions.
active() { arc-status --list | cut -f1 | sort; }

# same FILE [NAME]: the adapter's output (NAME's, with begin) is the
# fixture FILE (as JSON).
same() {
	local out=$BATS_TEST_TMPDIR/${2:+$2.}out
	[ "$(jq -cS . "$out")" = "$(jq -cS . "$P/$1")" ] ||
	    { echo "got $(cat "$out"), want $(cat "$P/$1")"; return 1; }
}

# session_alive SID: the processes of session SID that have not exited.
session_alive() { ps -s "$1" -o pid=,stat= 2>/dev/null | awk '$2 !~ /^Z/'; }

# ---- Notification ----

@test "Notification idle_prompt: a notice with its own title, normal priority, nothing printed" {
	hook claude/notification-idle
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run record "claude-code:$SK:notice:idle_prompt"
	[ "$(field '[.kind, .priority, .title, .message, .project, .agent, .agent_name, .session_id] | join("|")')" = "question|normal|Waiting for your input|Claude is waiting for your input|site|claude-code|Claude Code|$SID" ]
}

@test "inside tmux, the adapters record where the agent runs (TMUX_PANE, the socket of TMUX) as the x-arc hint; a hostile one is dropped" {
	TMUX=/tmp/tmux-1000/default,123,0 TMUX_PANE=%7 hook claude/notification-idle
	[ "$status" -eq 0 ]
	run record "claude-code:$SK:notice:idle_prompt"
	[ "$(field '."x-arc" | [.tmux_pane, .tmux_socket] | join("|")')" = "%7|/tmp/tmux-1000/default" ]
	TMUX='/tmp/$(touch x),1,0' TMUX_PANE='%7; rm -rf ~' hook claude/notification-auth
	[ "$status" -eq 0 ]
	run record "claude-code:$SK:notice:auth_success"
	[ -n "$output" ]
	[ "$(field '."x-arc"')" = null ]
	[ ! -e x ]
}

@test "Notification auth_success: low priority information, not a permission" {
	hook claude/notification-auth
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run record "claude-code:$SK:notice:auth_success"
	[ "$(field '[.kind, .type, .priority, .title, .message] | join("|")')" = "information|info|low|Login succeeded|Claude Code login successful" ]
}

@test "Notification with a title of its own (plugin_notification): that title leads its message; the title is generic" {
	hook claude/notification-plugin
	[ "$status" -eq 0 ]
	run record "claude-code:$SK:notice:plugin_notification"
	[ "$(field '[.title, .message, .priority] | join("|")')" = "A plugin says|deploy-helper
Staging is ready for review|normal" ]
}

@test "Notification permission_prompt: a notice when no question is open, nothing while ours is pending" {
	hook claude/notification-permission
	run record "claude-code:$SK:notice:permission_prompt"
	[ "$(field '[.kind, .priority, .title] | join("|")')" = "blocked|high|Needs your permission" ]
	# with the PermissionRequest hook's question pending, no second notice
	hook claude/user-prompt-submit
	start claude/permission-bash
	key=$(asked "claude-code:$SK:perm:")
	mark
	hook claude/notification-permission
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ -z "$(applied)" ]
	[ "$(active)" = "$key" ]
	arc-answer "$key" deny >/dev/null
	finish
}

# ---- PermissionRequest ----

@test "PermissionRequest Bash: the command, its description and four choices; 'allow' returns allow" {
	start claude/permission-bash
	key=$(asked "claude-code:$SK:perm:")
	[ ${#key} -le 100 ]
	run --separate-stderr arc-answer "$key" allow
	[ "$status" -eq 0 ]
	[ "$(field '.interaction | [.kind, .title, .prompt, (.choices | map(.id) | join(",")), .choices[1].label, .choices[1].detail, .choices[3].label] | join("|")')" = "permission|Permission to run a command|The agent's description: Deploy the site to production
\$ npm run deploy -- --env production|allow,always,deny,stop|Always allow|add the allow rules Bash(npm run deploy:*) in this project, for you|Deny and stop" ]
	[ "$(field '.notification | [.priority, .project, .agent] | join("|")')" = "high|site|claude-code" ]
	finish
	[ "$status" -eq 0 ]
	same claude/out/permission-allow.json
	[ -z "$(active)" ]
}

@test "PermissionRequest: 'Always allow' returns the client's suggestions as updatedPermissions" {
	start claude/permission-bash
	arc-answer "$(asked "claude-code:$SK:perm:")" always >/dev/null
	finish
	[ "$status" -eq 0 ]
	same claude/out/permission-always.json
	[ "$(jq -c .hookSpecificOutput.decision.updatedPermissions "$BATS_TEST_TMPDIR/out")" = "$(jq -c .permission_suggestions "$P/claude/permission-bash.json")" ]
}

@test "PermissionRequest: 'Deny' returns deny, with where the answer came from" {
	start claude/permission-bash
	arc-answer --source phone "$(asked "claude-code:$SK:perm:")" deny >/dev/null
	finish
	[ "$status" -eq 0 ]
	same claude/out/permission-deny.json
}

@test "PermissionRequest: 'Deny and stop' returns deny with interrupt" {
	start claude/permission-bash
	arc-answer --source phone "$(asked "claude-code:$SK:perm:")" stop >/dev/null
	finish
	[ "$status" -eq 0 ]
	same claude/out/permission-stop.json
}

@test "PermissionRequest Edit: the file and a short diff; no 'Always allow' without suggestions" {
	start claude/permission-edit
	run --separate-stderr arc-answer "$(asked "claude-code:$SK:perm:")" deny
	[ "$(field '.interaction | [.title, .prompt, (.choices | map(.id) | join(","))] | join("|")')" = 'Permission to edit a file|/home/me/site/src/config.js: replace 3 line(s) with 4
- const port = 8080;
- const host = "localhost";
- const debug = true;
+ const port = Number(process.env.PORT) || 8080;
+ const host = process.env.HOST || "localhost";
+ const debug = false;
+ const tls = true;|allow,deny,stop' ]
	finish
}

@test "PermissionRequest Write: the file, its size and first lines; 'Always allow' switches the mode" {
	start claude/permission-write
	run --separate-stderr arc-answer "$(asked "claude-code:$SK:perm:")" always
	[ "$(field '.interaction | [.title, .prompt, .choices[1].detail] | join("|")')" = 'Permission to write a file|/home/me/site/.env.production: 3 line(s), 33 character(s)
+ PORT=443
+ HOST=site.example
+ TLS=1|switch to acceptEdits mode for this session' ]
	finish
	same claude/out/permission-always-mode.json
}

@test "PermissionRequest for an MCP tool: the server, where it is configured, the tool and its arguments" {
	start claude/permission-mcp
	run --separate-stderr arc-answer "$(asked "claude-code:$SK:perm:")" allow
	[ "$(field '.interaction | [.title, .prompt] | join("|")')" = 'Permission to use an MCP tool|MCP server github (user), tool create_issue, with:
{"owner":"me","repo":"site","title":"Deploy failed on staging","labels":["ci"]}' ]
	finish
	same claude/out/permission-allow.json
}

@test "UTF-8: an action longer than a question holds is not asked; one that fits is shown whole, by characters" {
	# a 4099-character command: the host asks in its own dialog
	mark
	hook claude/permission-utf8-bash
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[[ "$stderr" =~ "PermissionRequest: the call is "[0-9]+" characters shown whole, more than a question holds (4000); nothing was asked; Claude Code asks in its own dialog" ]]
	[ -z "$(applied)" ]
	# the path of 3-byte characters and two lines of 4-byte ones, whole
	jq -c '.tool_input.content |= (split("\n") | map(.[0:300]) | join("\n"))' \
	    "$P/claude/permission-utf8.json" >"$BATS_TEST_TMPDIR/fits.json"
	"$HOOKS/claude-code-hook" <"$BATS_TEST_TMPDIR/fits.json" >"$BATS_TEST_TMPDIR/out" &
	hookpid=$!
	run --separate-stderr arc-answer "$(asked "claude-code:$SK:perm:")" deny
	want=$(jq -r '.tool_input | "\(.file_path): \(.content | split("\n") | length) line(s), \(.content | length) character(s)\n" + (.content | split("\n") | map("+ " + .) | join("\n"))' "$BATS_TEST_TMPDIR/fits.json")
	[ "$(field '.interaction.prompt')" = "$want" ]
	[ "$(field '.interaction.title')" = "Permission to write a file" ]
	iconv -f UTF-8 -t UTF-8 <<<"$output" >/dev/null
	finish
}

@test "UTF-8: choice labels and details are cut by characters" {
	jq -c '.tool_input.questions[0].options[0].label = ("ß" * 150 + "€" * 100)
	    | .tool_input.questions[0].options[0].description = ("ü" * 498 + "😀😀😀")' \
	    "$P/claude/ask-user-question.json" >"$BATS_TEST_TMPDIR/long.json"
	"$HOOKS/claude-code-hook" <"$BATS_TEST_TMPDIR/long.json" >"$BATS_TEST_TMPDIR/out" &
	hookpid=$!
	keys=$(asked "claude-code:$SK:ask:" 2)
	run --separate-stderr arc-answer "$(head -1 <<<"$keys")" o1
	[ "$(field '.interaction.choices[0] | [(.label | length), (.label | .[198:]), (.detail | length), (.detail | .[498:])] | map(tostring) | join("|")')" = "200|€…|500|😀…" ]
	arc-answer "$(tail -1 <<<"$keys")" o1 >/dev/null
	finish
	# the answer names the option as the client offered it, uncut
	[ "$(jq -r '.hookSpecificOutput.decision.updatedInput.answers["Which date library should we use?"] | length' "$BATS_TEST_TMPDIR/out")" = 250 ]
}

# ---- AskUserQuestion, Elicitation ----

@test "AskUserQuestion: one single_choice question per question; the answers return in updatedInput" {
	start claude/ask-user-question
	keys=$(asked "claude-code:$SK:ask:" 2)
	# answered out of order: the second question first
	run --separate-stderr arc-answer "$(tail -1 <<<"$keys")" o3
	[ "$(field '.interaction | [.kind, .title, .prompt, (.choices | map(.id + "=" + .label) | join(","))] | join("|")')" = "single_choice|A question for you|Location: Where should the helper live?|o1=src/lib/date.ts,o2=src/utils: a new folder,o3=Inline" ]
	arc-answer "$(head -1 <<<"$keys")" o2 >/dev/null
	finish
	[ "$status" -eq 0 ]
	same claude/out/ask-user-question.json
}

@test "AskUserQuestion with multiSelect is left to Claude Code's own dialog" {
	hook claude/ask-multiselect
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ -z "$(active)" ]
}

@test "Elicitation with no fields: accept, decline or cancel, returned as the action" {
	for a in accept decline cancel; do
		start claude/elicitation-confirm
		run --separate-stderr arc-answer "$(asked "claude-code:$SK:elicit:deploy:el-7")" "$a"
		[ "$(field '.interaction | [.kind, .title, .prompt] | join("|")')" = "single_choice|An MCP server asks|MCP server deploy: Deploy build 812 to production?" ]
		finish
		[ "$status" -eq 0 ]
		same "claude/out/elicitation-$a.json"
	done
}

@test "Elicitation with one text field: a text question, its bound from the schema; the text returns as content" {
	start claude/elicitation-text
	run --separate-stderr arc-answer "$(asked "claude-code:$SK:elicit:bank:el-8")" --text 493027
	[ "$(field '.interaction | [.kind, .text_max_length, .prompt] | map(tostring) | join("|")')" = "text|8|MCP server bank: Enter the code sent to your phone

One-time code" ]
	finish
	same claude/out/elicitation-text.json
}

@test "Elicitation forms with several fields, and URL elicitations, are left to Claude Code" {
	for f in elicitation-form elicitation-url; do
		hook "claude/$f"
		[ "$status" -eq 0 ] && [ -z "$output" ]
	done
	[ -z "$(active)" ]
}

# ---- answered in the client's own dialog ----

@test "PostToolUse: the person answered in Claude Code's dialog, so our question is withdrawn" {
	start claude/permission-bash
	key=$(asked "claude-code:$SK:perm:")
	hook claude/post-tool-use
	[ "$status" -eq 0 ] && [ -z "$output" ]
	finish
	[ "$status" -eq 0 ]
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	[ "$(record "$key" | jq -r '[.status, .outcome] | join("|")')" = "resolved|not_needed" ]
	run arc-wait -t 1 "$key"
	[ "$status" -eq 1 ]
	[ -z "$(active)" ]
}

@test "PermissionDenied: the same tool call denied elsewhere withdraws our question" {
	start claude/permission-bash
	key=$(asked "claude-code:$SK:perm:")
	hook claude/permission-denied
	[ "$status" -eq 0 ] && [ -z "$output" ]
	finish
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	[ "$(record "$key" | jq -r .outcome)" = not_needed ]
}

@test "ElicitationResult withdraws the elicitation's question" {
	start claude/elicitation-confirm
	asked "claude-code:$SK:elicit:deploy:el-7"
	hook claude/elicitation-result
	[ "$status" -eq 0 ] && [ -z "$output" ]
	finish
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	[ -z "$(active)" ]
}

@test "PostToolUse with nothing open writes nothing" {
	hook claude/post-tool-use
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ -z "$(applied)" ]
}

# ---- two hooks at once: each acts on its own question only ----
# Two invocations run concurrently on real payloads; where a variant is
# needed (other rules offered, another MCP server), it is the fixture with
# that one member changed by jq, as each test says.  Two requests with one
# key ask two questions when what the person sees differs: here the
# deadline (ARC_HOOK_TIMEOUT), as when the second comes a second later.
# (The very same question asked twice is one question, and one answer.)

@test "two PermissionRequests for one tool call offering other rules: two questions, each hook hands back its own answer only" {
	# the older request: permission-bash.json with its rule widened to Bash(*)
	jq -c '.permission_suggestions[0].rules[0].ruleContent = "*"' \
	    "$P/claude/permission-bash.json" >"$BATS_TEST_TMPDIR/broad.json"
	begin older "$BATS_TEST_TMPDIR/broad.json"
	broad=$(await_question '.choices[1].detail == "add the allow rules Bash(*) in this project, for you"')
	begin newer "$P/claude/permission-bash.json"
	narrow=$(await_question '.choices[1].detail == "add the allow rules Bash(npm run deploy:*) in this project, for you"')
	# the person chooses the narrow rule, on the newer question
	arc-answer "$narrow" always >/dev/null
	end newer
	[ "$status" -eq 0 ]
	same claude/out/permission-always.json newer
	# the older one still waits for its own answer, and gets it
	run --separate-stderr arc-answer --source phone "$broad" deny
	end older
	[ "$status" -eq 0 ]
	same claude/out/permission-deny.json older
	# two keys: the call, then the rules offered, within ARC's 100 characters
	[ "$broad" != "$narrow" ]
	[[ $broad =~ ^claude-code:$SK:perm:[0-9a-f]{16}:[0-9a-f]{16}$ ]]
	[ "${broad%:*}" = "${narrow%:*}" ] && [ ${#broad} -le 100 ]
}

@test "two hooks asking under one key: the answer goes to the newer one; the older hands back nothing and writes nothing more" {
	ARC_HOOK_TIMEOUT=299 begin older "$P/claude/permission-bash.json"
	key=$(asked "claude-code:$SK:perm:")
	begin newer "$P/claude/permission-bash.json"
	# the newer question replaces the older one under the same key
	[ "$(await_question '.choices[1].id == "always"' 2)" = "$key" ]
	[ "$(applied | jq -s 'map(.interaction.id) | unique | length')" -eq 2 ]
	arc-answer "$key" always >/dev/null
	end newer
	[ "$status" -eq 0 ]
	same claude/out/permission-always.json newer
	end older
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/older.out" ]
	grep -q "^arc-hook: the answer is to another hook's question" "$BATS_TEST_TMPDIR/older.err"
	# the two questions, the answer and the newer's receipt (a record of
	# arc's own, no event), nothing else: the older one resolved nothing
	[ "$(applied | jq -s 'map(.type // "receipt") | join(",")')" = '"request.created,request.created,response.submitted,receipt"' ]
	[ "$(arc-status --json --show "$key" | jq -r .notification.outcome)" = answered ]
}

@test "two hooks asking under one key: TERM to the older withdraws nothing of the newer's question" {
	ARC_HOOK_TIMEOUT=299 begin older "$P/claude/permission-bash.json"
	key=$(asked "claude-code:$SK:perm:")
	begin newer "$P/claude/permission-bash.json"
	await_question '.choices[1].id == "always"' 2 >/dev/null
	[ "$(applied | jq -s 'map(.interaction.id) | unique | length')" -eq 2 ]
	kill -s TERM "$pid_older"
	end older
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/older.out" ]
	grep -q 'stopped by a signal' "$BATS_TEST_TMPDIR/older.err"
	# the newer question is still open, and its answer reaches the newer hook
	[ "$(asked "$key")" = "$key" ]
	arc-answer "$key" allow >/dev/null
	end newer
	[ "$status" -eq 0 ]
	same claude/out/permission-allow.json newer
}

@test "two AskUserQuestion hooks under the same keys: the older gives up at the first answer, and leaves the newer's other question open" {
	ARC_HOOK_TIMEOUT=299 begin older "$P/claude/ask-user-question.json"
	keys=$(asked "claude-code:$SK:ask:" 2)
	begin newer "$P/claude/ask-user-question.json"
	await_question '.kind == "single_choice"' 4 >/dev/null
	arc-answer "$(head -1 <<<"$keys")" o2 >/dev/null
	end older
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/older.out" ]
	grep -q "another hook's question" "$BATS_TEST_TMPDIR/older.err"
	# giving up, the older one did not withdraw the newer's second question
	[ "$(asked "$(tail -1 <<<"$keys")")" = "$(tail -1 <<<"$keys")" ]
	arc-answer "$(tail -1 <<<"$keys")" o3 >/dev/null
	end newer
	[ "$status" -eq 0 ]
	same claude/out/ask-user-question.json newer
}

@test "two MCP servers' elicitations with one id: the code typed for bank goes to bank only" {
	# evil's: elicitation-text.json (bank's, id el-8) with mcp_server_name "evil"
	jq -c '.mcp_server_name = "evil"' "$P/claude/elicitation-text.json" >"$BATS_TEST_TMPDIR/evil.json"
	# and evil's ElicitationResult: elicitation-result.json for evil's el-8
	jq -c '.mcp_server_name = "evil" | .elicitation_id = "el-8"' \
	    "$P/claude/elicitation-result.json" >"$BATS_TEST_TMPDIR/evil-result.json"
	begin evil "$BATS_TEST_TMPDIR/evil.json"
	evil=$(await_question '.prompt | startswith("MCP server evil: ")')
	begin bank "$P/claude/elicitation-text.json"
	bank=$(await_question '.prompt | startswith("MCP server bank: ")')
	arc-answer "$bank" --text 493027 >/dev/null
	end bank
	[ "$status" -eq 0 ]
	same claude/out/elicitation-text.json bank
	# evil is answered in Claude Code's dialog: its question is withdrawn
	run --separate-stderr "$HOOKS/claude-code-hook" <"$BATS_TEST_TMPDIR/evil-result.json"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	end evil
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/evil.out" ]
	[ "$evil" = "claude-code:$SK:elicit:evil:el-8" ]
	[ "$bank" = "claude-code:$SK:elicit:bank:el-8" ]
}

@test "two MCP servers' elicitations with one id: evil's ElicitationResult does not withdraw bank's question" {
	jq -c '.mcp_server_name = "evil"' "$P/claude/elicitation-text.json" >"$BATS_TEST_TMPDIR/evil.json"
	jq -c '.mcp_server_name = "evil" | .elicitation_id = "el-8"' \
	    "$P/claude/elicitation-result.json" >"$BATS_TEST_TMPDIR/evil-result.json"
	begin bank "$P/claude/elicitation-text.json"
	bank=$(await_question '.prompt | startswith("MCP server bank: ")')
	begin evil "$BATS_TEST_TMPDIR/evil.json"
	await_question '.prompt | startswith("MCP server evil: ")' >/dev/null
	run --separate-stderr "$HOOKS/claude-code-hook" <"$BATS_TEST_TMPDIR/evil-result.json"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	end evil
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/evil.out" ]
	# bank's question is still open, and its answer reaches bank's hook
	[ "$(asked "$bank")" = "$bank" ]
	arc-answer "$bank" --text 493027 >/dev/null
	end bank
	[ "$status" -eq 0 ]
	same claude/out/elicitation-text.json bank
}

@test "PostToolUse withdraws every question of its tool call, whatever rules each offered" {
	jq -c '.permission_suggestions[0].rules[0].ruleContent = "*"' \
	    "$P/claude/permission-bash.json" >"$BATS_TEST_TMPDIR/broad.json"
	begin older "$BATS_TEST_TMPDIR/broad.json"
	asked "claude-code:$SK:perm:" >/dev/null
	begin newer "$P/claude/permission-bash.json"
	asked "claude-code:$SK:perm:" 2 >/dev/null
	hook claude/post-tool-use
	[ "$status" -eq 0 ] && [ -z "$output" ]
	end older
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/older.out" ]
	end newer
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/newer.out" ]
	[ -z "$(active)" ]
}

@test "PostToolUse of AskUserQuestion, its answers in the input, withdraws the call's questions" {
	start claude/ask-user-question
	asked "claude-code:$SK:ask:" 2 >/dev/null
	# ask-user-question.json as PostToolUse sees the call: the answers added
	jq -c '.hook_event_name = "PostToolUse" | del(.permission_suggestions)
	    | .tool_input.answers = {"Which date library should we use?": "Luxon"}
	    | .tool_response = {}' "$P/claude/ask-user-question.json" >"$BATS_TEST_TMPDIR/post.json"
	run --separate-stderr "$HOOKS/claude-code-hook" <"$BATS_TEST_TMPDIR/post.json"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ -z "$(active)" ]
	finish
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/out" ]
}

@test "keys stay within 100 characters of [A-Za-z0-9._:-]; a long server name or id is hashed, and ElicitationResult still finds it" {
	long=$(printf 'a%.0s' $(seq 40))
	# elicitation-confirm.json with the longest plain session, server and id
	jq -c --arg s "$long" '.session_id = $s | .mcp_server_name = "deploy.prod_eu-west1"
	    | .elicitation_id = "0123456789abcdeX"' "$P/claude/elicitation-confirm.json" >"$BATS_TEST_TMPDIR/plain.json"
	# and with a server name and an id that are not plain
	jq -c --arg s "$long" '.session_id = $s | .mcp_server_name = "plugin:deploy:prod servers"
	    | .elicitation_id = "5b0e8c1e-2f4a-4d7b-9a63-1c2d3e4f5a6b"' "$P/claude/elicitation-confirm.json" >"$BATS_TEST_TMPDIR/hashed.json"
	for f in plain hashed; do
		begin "$f" "$BATS_TEST_TMPDIR/$f.json"
		key=$(asked "claude-code:$(hashed "$long"):elicit:")
		[ ${#key} -le 100 ] && [[ $key =~ ^[A-Za-z0-9._:-]+$ ]]
		case $f in
		plain)	[ "$key" = "claude-code:$(hashed "$long"):elicit:deploy.prod_eu-west1:0123456789abcdeX" ] ;;
		hashed)	[[ $key =~ ^claude-code:$(hashed "$long"):elicit:[0-9a-f]{16}:[0-9a-f]{16}$ ]] ;;
		esac
		# its ElicitationResult: elicitation-result.json for the same server and id
		jq -c --slurpfile e "$BATS_TEST_TMPDIR/$f.json" '.session_id = $e[0].session_id
		    | .mcp_server_name = $e[0].mcp_server_name | .elicitation_id = $e[0].elicitation_id' \
		    "$P/claude/elicitation-result.json" >"$BATS_TEST_TMPDIR/$f-result.json"
		run --separate-stderr "$HOOKS/claude-code-hook" <"$BATS_TEST_TMPDIR/$f-result.json"
		end "$f"
		[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/$f.out" ]
		[ -z "$(active)" ]
	done
	# a permission under the longest session
	jq -c --arg s "$long" '.session_id = $s' "$P/claude/permission-bash.json" >"$BATS_TEST_TMPDIR/perm.json"
	begin perm "$BATS_TEST_TMPDIR/perm.json"
	key=$(asked "claude-code:$(hashed "$long"):perm:")
	[ ${#key} -le 100 ] && [[ $key =~ ^[A-Za-z0-9._:-]+$ ]]
	arc-answer "$key" deny >/dev/null
	end perm
}

# ---- Stop, UserPromptSubmit, SessionEnd ----

@test "Stop: a completion notice with the last message (1000 characters at most) and the background work" {
	hook claude/notification-idle
	hook claude/stop
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run record "claude-code:$SK:stop"
	[ "$(field '[.kind, .type, .priority, .title, .status] | join("|")')" = "completion|completed|normal|Finished|active" ]
	[ "$(field '.message | split("\n") | [(.[0] | length), (.[0] | startswith("Deployed build 812")), (.[0] | endswith("…")), .[1]] | map(tostring) | join("|")')" = "1000|true|true|(1 background task(s) still running)" ]
	# the earlier notice is resolved: the session's news is this one
	[ "$(active)" = "claude-code:$SK:stop" ]
}

@test "Stop withdraws a question still pending in the session" {
	start claude/permission-bash
	key=$(asked "claude-code:$SK:perm:")
	hook claude/stop
	finish
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/out" ]
	[ "$(active)" = "claude-code:$SK:stop" ]
}

@test "SubagentStop changes nothing, and says so on standard error" {
	hook claude/subagent-stop
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$stderr" = "arc-hook: SubagentStop: not an event arc-hook claude-code acts on; nothing done" ]
	[ -z "$(applied)" ]
}

@test "a payload with no event, or one no host's hook reads: nothing done, nothing on stdout, and a word on stderr that quotes no payload text" {
	run --separate-stderr arc-hook claude-code <<<'{}'
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$stderr" = "arc-hook: the payload's hook_event_name is missing or not a name; nothing done" ]
	run --separate-stderr arc-hook gemini <<<'{"hook_event_name":"Nope\u001b[2J","prompt":"secret words"}'
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$stderr" = "arc-hook: the payload's hook_event_name is missing or not a name; nothing done" ]
	run --separate-stderr arc-hook codex <<<'{"hook_event_name":"PreToolUse","tool_input":{"command":"secret words"}}'
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$stderr" = "arc-hook: PreToolUse: not an event arc-hook codex acts on; nothing done" ]
	[ ! -e "$ARC_JOURNAL" ]
}

@test "UserPromptSubmit: the person is back, every request of this session is resolved, other sessions' stay" {
	arc-emit --key "claude-code:other-session:stop" --kind completion --message "Done" |
	    arc-apply -q >/dev/null
	hook claude/notification-idle
	hook claude/stop
	start claude/permission-bash
	key=$(asked "claude-code:$SK:perm:")
	hook claude/user-prompt-submit
	[ "$status" -eq 0 ] && [ -z "$output" ]
	finish
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/out" ]
	[ "$(active)" = "claude-code:other-session:stop" ]
	[ "$(record "claude-code:$SK:stop" | jq -r '[.status, .outcome] | join("|")')" = "resolved|not_needed" ]
}

@test "UserPromptSubmit from a /loop wake-up is not the person: nothing changes" {
	hook claude/stop
	mark
	hook claude/user-prompt-submit-loop
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ -z "$(applied)" ]
	[ "$(active)" = "claude-code:$SK:stop" ]
}

@test "SessionEnd resolves every request of the session" {
	hook claude/notification-auth
	hook claude/stop
	hook claude/session-end
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ -z "$(active)" ]
}

# ---- never deciding by accident ----

@test "no answer in time: nothing printed, exit 0, the question withdrawn" {
	ARC_HOOK_TIMEOUT=1 hook claude/permission-bash
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[[ "$stderr" == *"no answer"* ]]
	[ -z "$(active)" ]
	run arc-wait -t 1 "$(applied | jq -r 'select(.interaction) | .key' | head -1)"
	[ "$status" -eq 1 ]
	[ "$(field .status)" = expired ]
}

@test "ARC_HOOK_TIMEOUT takes the durations the other commands take (the one parser; a deadline never sooner than asked)" {
	for t in 10m:600 90s:90 2h:7200 1d:86400 45:45 30.5:31 bogus:300 0:300 -5:300; do
		ARC_HOOK_TIMEOUT=${t%%:*} start claude/permission-bash
		run --separate-stderr arc-answer "$(asked "claude-code:$SK:perm:")" deny
		[ "$(field '.interaction | (.expires_at | fromdateiso8601) - (.created_at | sub("\\.[0-9]+"; "") | fromdateiso8601) | . >= '"${t#*:}"' and . <= '"${t#*:}"' + 1')" = true ] ||
		    { echo "ARC_HOOK_TIMEOUT=${t%%:*}: $output"; false; }
		finish
		[ "$status" -eq 0 ]
		[ "$(jq -r .hookSpecificOutput.decision.behavior "$BATS_TEST_TMPDIR/out")" = deny ]
	done
	grep -q 'ARC_HOOK_TIMEOUT is not a duration' "$BATS_TEST_TMPDIR/err"
}

@test "a payload that is not JSON, not an object, or not UTF-8: exit 0, nothing printed, the reason on stderr" {
	for p in '' 'not json' '[1,2]' '"x"' '{"hook_event_name":"PermissionRequest"'; do
		run --separate-stderr "$HOOKS/claude-code-hook" <<<"$p"
		[ "$status" -eq 0 ] && [ -z "$output" ]
		[[ "$stderr" == "arc-hook: the payload is not one JSON object in UTF-8"* ]]
	done
	run --separate-stderr "$HOOKS/claude-code-hook" </dev/null
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ -z "$(active)" ]
	# a lone surrogate (which ARC refuses) in a command
	run --separate-stderr "$HOOKS/claude-code-hook" <<<'{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf \ud800"}}'
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[[ "$stderr" == "arc-hook: the payload is not one JSON object in UTF-8"* ]]
	[[ "$stderr" != *"rm -rf"* ]]
	[ -z "$(active)" ]
	# bytes that are not UTF-8 are read as U+FFFD, and the notice stays valid
	printf '{"session_id":"s","cwd":"/","hook_event_name":"Stop","last_assistant_message":"ok \xff\xfe"}' |
	    "$HOOKS/claude-code-hook"
	[ "$(record "claude-code:$(hashed s):stop" | jq -r .message)" = "ok ��" ]
}

@test "the arc commands missing, or a journal that cannot be written: exit 0, nothing printed, never the prompt" {
	PATH=/usr/bin:/bin run --separate-stderr "$HOOKS/claude-code-hook" <"$P/claude/permission-bash.json"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[[ "$stderr" == *"is not on PATH"* ]]
	ARC_JOURNAL=/proc/arc/journal hook claude/permission-bash
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[[ "$stderr" == *"did not take the PermissionRequest request"* ]]
	[[ "$stderr" != *"npm run deploy"* ]]
}

@test "no fixture, in any failure, makes an adapter exit with anything but 0 (2 would deny)" {
	for f in "$P"/claude/*.json "$P"/codex/*.json; do
		a=claude-code-hook
		[[ $f != */codex/* ]] || a=codex-hook
		for j in "$ARC_JOURNAL" /proc/arc/journal; do
			ARC_JOURNAL=$j ARC_HOOK_TIMEOUT=1 run --separate-stderr "$HOOKS/$a" <"$f"
			[ "$status" -eq 0 ] || { echo "$a $f ($j): exit $status: $stderr"; false; }
			[ -z "$output" ] || { echo "$a $f: printed $output"; false; }
		done
	done
	# an unknown host, or none, is a failure too
	for h in claude gemini-cli ""; do
		run --separate-stderr arc-hook $h <"$P/claude/permission-bash.json"
		[ "$status" -eq 0 ] && [ -z "$output" ] || { echo "arc-hook $h: $status $output"; false; }
	done
	[ -z "$(active)" ]
}

@test "no shell, no jq, no arc-wait at run time: arc-hook with nothing on PATH asks, waits and answers" {
	env PATH=/nonexistent "$ARC_BIN/arc-hook" claude-code <"$P/claude/permission-bash.json" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	hookpid=$!
	arc-answer "$(asked "claude-code:$SK:perm:")" allow >/dev/null
	finish
	[ "$status" -eq 0 ]
	same claude/out/permission-allow.json
	env PATH=/nonexistent "$ARC_BIN/arc-hook" claude-code <"$P/claude/stop.json"
	[ "$(active)" = "claude-code:$SK:stop" ]
}

@test "TERM, INT and HUP withdraw the question, stop arc-wait and leave no process behind" {
	for sig in TERM INT HUP; do
		start claude/permission-bash
		key=$(asked "claude-code:$SK:perm:")
		kill -s "$sig" "$hookpid"
		finish
		[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/out" ]
		grep -q 'stopped by a signal' "$BATS_TEST_TMPDIR/err"
		[ "$(record "$key" | jq -r '[.status, .outcome] | join("|")')" = "resolved|cancelled" ]
		[ -z "$(active)" ]
		for i in $(seq 100); do
			[ -n "$(session_alive "$hookpid")" ] || break
			sleep 0.05
		done
		[ -z "$(session_alive "$hookpid")" ] || { ps -s "$hookpid" -o pid,stat,args; false; }
	done
}

# ---- Codex ----

@test "Codex PermissionRequest: labelled Codex, its turn kept, allow or deny only; 'allow' returns allow" {
	start codex-hook codex/permission-request
	key=$(asked "codex:$CK:perm:")
	run --separate-stderr arc-answer "$key" allow
	[ "$(field '[.notification.agent, .notification.agent_name, .notification.project, .interaction.turn_id, .interaction.title, .interaction.prompt, (.interaction.choices | map(.id) | join(","))] | join("|")')" = "codex|Codex|api|0199a215-0b4e-7c31-9d52-5e0f6a1b2c3d|Permission to run a command|The agent's description: Publish the crate to crates.io
\$ cargo publish --allow-dirty|allow,deny" ]
	finish
	[ "$status" -eq 0 ]
	same codex/out/permission-allow.json
}

@test "Codex PermissionRequest: 'deny' returns deny with a message, nothing Codex fails closed on" {
	start codex-hook codex/permission-request
	arc-answer --source phone "$(asked "codex:$CK:perm:")" deny >/dev/null
	finish
	[ "$status" -eq 0 ]
	same codex/out/permission-deny.json
	# and an answer Codex cannot take is refused, not sent
	start codex-hook codex/permission-request
	run --separate-stderr arc-answer "$(asked "codex:$CK:perm:")" stop
	[ "$status" -eq 1 ]
	arc-answer "$(asked "codex:$CK:perm:")" deny >/dev/null
	finish
	[ "$(jq -c '.hookSpecificOutput.decision | keys' "$BATS_TEST_TMPDIR/out")" = '["behavior","message"]' ]
}

@test "Codex Stop: a completion notice with the last message and the turn; UserPromptSubmit resolves it" {
	hook codex-hook codex/stop
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run record "codex:$CK:stop"
	[ "$(field '[.kind, .title, .message, .agent_name, .project] | join("|")')" = "completion|Finished|Renamed the handler to on_request and ran the tests: 214 passed.|Codex|api" ]
	hook codex-hook codex/user-prompt-submit
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ -z "$(active)" ]
	[ "$(record "codex:$CK:stop" | jq -r .outcome)" = not_needed ]
}

@test "Codex SessionEnd and Interrupt: the person is back, the session's requests are resolved" {
	for e in session-end interrupt; do
		hook codex-hook codex/stop
		[ "$(active)" = "codex:$CK:stop" ]
		hook codex-hook "codex/$e"
		[ "$status" -eq 0 ] && [ -z "$output" ]
		[ -z "$(active)" ]
	done
}

@test "Codex: two hooks asking under one key: the answer goes to the newer one, the older hands back nothing" {
	ARC_HOOK_TIMEOUT=299 begin older "$P/codex/permission-request.json" codex-hook
	key=$(asked "codex:$CK:perm:")
	begin newer "$P/codex/permission-request.json" codex-hook
	[ "$(await_question '.choices | length == 2' 2)" = "$key" ]
	arc-answer --source phone "$key" deny >/dev/null
	end newer
	[ "$status" -eq 0 ]
	same codex/out/permission-deny.json newer
	end older
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/older.out" ]
	grep -q "^arc-hook: the answer is to another hook's question under the same key; Codex asks" "$BATS_TEST_TMPDIR/older.err"
	[[ $key =~ ^codex:$CK:perm:[0-9a-f]{16}:[0-9a-f]{16}$ ]]
}

@test "Codex: TERM withdraws the question and leaves no process" {
	start codex-hook codex/permission-request
	key=$(asked "codex:$CK:perm:")
	kill -s TERM "$hookpid"
	finish
	[ "$status" -eq 0 ] && [ ! -s "$BATS_TEST_TMPDIR/out" ]
	grep -q '^arc-hook: stopped by a signal' "$BATS_TEST_TMPDIR/err"
	[ -z "$(active)" ]
	for i in $(seq 100); do [ -n "$(session_alive "$hookpid")" ] || break; sleep 0.05; done
	[ -z "$(session_alive "$hookpid")" ]
}

# ---- Codex's legacy notify ----

@test "Codex notify: a finished turn becomes a completion notice, without the prompts or the answer" {
	run --separate-stderr "$HOOKS/codex-notify" "$(cat "$P/codex-notify/turn-complete.json")"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run record "codex:$CK:stop"
	[ "$(field '[.kind, .type, .project, .session_id, .message] | join("|")')" = "completion|completed|api|$CX|Codex finished a turn in api and is waiting for you." ]
	! applied | grep -q -e 'Rename the handler' -e 'Renamed it' || false
	# the hooks' UserPromptSubmit resolves it too: one key for the turn
	hook codex-hook codex/user-prompt-submit
	[ -z "$(active)" ]
}

@test "Codex notify: a turn in / is in project /, not in an empty one" {
	run --separate-stderr "$HOOKS/codex-notify" "$(cat "$P/codex-notify/root.json")"
	[ "$status" -eq 0 ]
	[ "$(record "codex:$CK:stop" | jq -r '[.project, .message] | join("|")')" = "/|Codex finished a turn in / and is waiting for you." ]
}

@test "Codex notify: other payloads, no payload and bad JSON are ignored" {
	for a in '{"type":"something-else"}' 'not json' '[]'; do
		run --separate-stderr "$HOOKS/codex-notify" "$a"
		[ "$status" -eq 0 ] && [ -z "$output" ]
	done
	run --separate-stderr "$HOOKS/codex-notify"
	[ "$status" -eq 0 ]
	[ -z "$(applied)" ]
}

@test "the adapters are valid shell, and the demo plays the recorded session" {
	bash -n "$HOOKS/claude-code-hook"
	bash -n "$HOOKS/codex-notify"
	sh -n "$HOOKS/codex-hook"
	run --separate-stderr "$HOOKS/hooks-demo"
	[ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
	[[ "$output" == *'"behavior":"allow"'* ]]
	[[ "$output" == *'"answers":{'* ]]
	# the commands it prints are whole: each key it answers is a key in
	# full, as arc-status --list showed it, and each hook and payload exist
	answers=$(sed -n "s/^   \\$ arc-answer --source phone \\([^ ]*\\) [a-z0-9]* | jq -c '{status, choice: .interaction.response.choice_id}'\$/\\1/p" <<<"$output")
	[ "$(wc -l <<<"$answers")" -eq 4 ]
	[[ $(head -1 <<<"$answers") =~ ^claude-code:$SK:perm:[0-9a-f]{16}:[0-9a-f]{16}$ ]]
	listed=$(sed -n 's/^   \([a-z-]*:[^	]*\)	.*/\1/p' <<<"$output")
	for k in $answers; do
		grep -qxF -- "$k" <<<"$listed" || { echo "printed $k, listed: $listed"; false; }
	done
	# what it prints is what it runs: each answer's line is followed by
	# what that pipeline prints, and its setup lines, pasted into a shell
	# that has none of the demo's environment, find this tree's commands
	[ "$(grep -A1 -- '^   \$ arc-answer ' <<<"$output" | grep -c '^   {"status":200,"choice":"[a-z0-9]*"}$')" -eq 4 ]
	setup=$(sed -n 's/^   \$ \(cd .*\|export .*\)$/\1/p' <<<"$output")
	[ "$(wc -l <<<"$setup")" -eq 3 ]
	[ "$(env -i PATH=/usr/bin:/bin bash -c "$setup; command -v arc-answer")" = "$(cd "$HOOKS/.." && pwd)/arc-answer" ]
	run sed -n 's/^   \$ \(examples\/[a-z-]*\) <\([^ ]*\).*/\1 \2/p' <<<"$output"
	[ "${#lines[@]}" -ge 8 ]
	for l in "${lines[@]}"; do
		[ -x "$HOOKS/../${l% *}" ] && [ -f "$HOOKS/../${l#* }" ] || { echo "no $l"; false; }
	done
}

@test "make install puts arc-hook and the adapters where the README's snippets run them, and they run from there" {
	local root="$BATS_TEST_TMPDIR/root" c
	make -s -C "$BATS_TEST_DIRNAME/.." install DESTDIR="$root" >/dev/null
	run grep -o -e '/usr/local/share/arc/examples/[a-z.-]*' -e '/usr/local/bin/arc-[a-z]*' "$BATS_TEST_DIRNAME/../README"
	[ "${#lines[@]}" -gt 10 ]
	for c in $(printf '%s\n' "${lines[@]}" | sort -u); do
		case $c in
		*.service | *.conf) [ -f "$root$c" ] ;;	# a unit or a config, not run
		*) [ -x "$root$c" ] ;;
		esac || { echo "README names $c, make install does not put it there"; false; }
	done
	run --separate-stderr "$root/usr/local/share/arc/examples/codex-hook" <"$P/codex/stop.json"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$(active)" = "codex:$CK:stop" ]
}

# ---- Gemini CLI ----

@test "Gemini CLI: a ToolPermission notification is a blocked notice naming the command; AfterAgent resolves it and says finished; nothing printed" {
	GS=$(jq -r .session_id "$P/gemini/notification-exec.json")
	GK=$(hashed "$GS")
	hook gemini-hook gemini/notification-exec
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run record "gemini-cli:$GK:notice:permission"
	[ "$(field '[.kind, .priority, .agent, .agent_name] | join("|")')" = "blocked|high|gemini-cli|Gemini CLI" ]
	[[ "$(field .message)" == *'$ '* ]]
	hook gemini-hook gemini/after-agent
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$(active)" = "gemini-cli:$GK:stop" ]
	[ "$(record "gemini-cli:$GK:stop" | jq -r '[.kind, .title] | join("|")')" = "completion|Finished" ]
	[ "$(record "gemini-cli:$GK:notice:permission" | jq -r .outcome)" = not_needed ]
	hook gemini-hook gemini/before-agent
	[ -z "$(active)" ]
}

# ---- arc-hook --settings: the README's blocks ----

@test "the README's settings blocks are what arc-hook --settings prints, and they parse" {
	local readme block
	readme=$(cat "$BATS_TEST_DIRNAME/../README")
	for args in claude-code codex "codex --toml" gemini; do
		block=$(arc-hook --settings $args --prefix /usr/local | sed 's/^\(.\)/    \1/')
		[[ "$readme" == *"$block"* ]] || { echo "README lacks arc-hook --settings $args:"; echo "$block"; false; }
	done
	for h in claude-code codex gemini; do
		arc-hook --settings $h | jq -e '.hooks | length > 0' >/dev/null
		# synchronous: no async hook, and short timeouts for the notices
		[ "$(arc-hook --settings $h | jq '[.hooks[][].hooks[] | select(.async)] | length')" -eq 0 ]
	done
	arc-hook --settings claude-code --prefix /opt/arc | jq -e '[.hooks[][].hooks[].command] | unique == ["/opt/arc/bin/arc-hook claude-code"]' >/dev/null
	python3 -c 'import sys, tomllib; tomllib.loads(sys.stdin.read())' < <(arc-hook --settings codex --toml)
	run arc-hook --settings nosuch
	[ "$status" -eq 2 ]
}
