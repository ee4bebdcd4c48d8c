#!/usr/bin/env bats
# The ntfy sink (arc-notify(1), "The phone through ntfy";
# arc-notify.conf(5)): against a real ntfy server (Debian 13's package,
# t/fetch-ntfy) on loopback, with access control as the SECURITY section
# sets it up: everyone denied, a host user that publishes questions and
# reads answers, a phone user that reads questions and writes answers.
# The phone's tap is the request the ntfy app makes for an http action:
# the method, URL, headers and body of the action, read from the
# question's message on the server's JSON stream.
load helper

NTFY="$BATS_TEST_DIRNAME/ntfy/usr/bin/ntfy"
P="$FIXTURES/hooks"
HOOK="$ARC_BIN/arc-hook"

# The server's files and address, shared by the file's tests.
srv() { echo "$BATS_FILE_TMPDIR/ntfy"; }

# ntfy_start: the server on its port, until healthy (again after a stop).
ntfy_start() {
	NTFY_AUTH_FILE="$(srv)/auth.db" setsid "$NTFY" serve \
	    --listen-http "127.0.0.1:$(cat "$(srv)/port")" \
	    --base-url "http://127.0.0.1:$(cat "$(srv)/port")" \
	    --cache-file "$(srv)/cache.db" --auth-file "$(srv)/auth.db" \
	    --auth-default-access deny-all \
	    --visitor-request-limit-exempt-hosts 127.0.0.1 >>"$(srv)/serve.log" 2>&1 3>&- &
	echo $! >"$(srv)/pid"
	eventually curl -sf "$(url)/v1/health" -o /dev/null
}
ntfy_stop() {
	kill "$(cat "$(srv)/pid")" 2>/dev/null || :
	while kill -0 "$(cat "$(srv)/pid")" 2>/dev/null; do sleep 0.05; done
}
url() { echo "http://127.0.0.1:$(cat "$(srv)/port")"; }

setup_file() {
	needs curl jq
	[ -x "$NTFY" ] || { echo "no ntfy: make deps-check fetches it (t/fetch-ntfy)" >&2; return 1; }
	mkdir -p "$(srv)"
	local port
	for port in $(shuf -i 20000-39999 -n 20); do
		echo "$port" >"$(srv)/port"
		ntfy_start 2>/dev/null && break
		ntfy_stop
	done
	export NTFY_AUTH_FILE="$(srv)/auth.db"
	NTFY_PASSWORD=host-pass "$NTFY" user add host >/dev/null 2>&1
	NTFY_PASSWORD=phone-pass "$NTFY" user add phone >/dev/null 2>&1
	"$NTFY" access host 'arcq*' rw >/dev/null 2>&1
	"$NTFY" access host 'arca*' rw >/dev/null 2>&1
	"$NTFY" access phone 'arcq*' ro >/dev/null 2>&1
	"$NTFY" access phone 'arca*' wo >/dev/null 2>&1
	"$NTFY" token add host 2>&1 | grep -o 'tk_[a-z0-9]*' >"$(srv)/host.token"
	"$NTFY" token add phone 2>&1 | grep -o 'tk_[a-z0-9]*' >"$(srv)/phone.token"
	chmod 600 "$(srv)"/*.token
	[ -s "$(srv)/host.token" ] && [ -s "$(srv)/phone.token" ]
}

teardown_file() { ntfy_stop; }

setup() {
	arc_setup
	unset ARC_HOOK_TIMEOUT ARC_HOOK_CLIENT TMUX TMUX_PANE ARC_OFF_DEVICE
	Q=arcq$BATS_TEST_NUMBER A=arca$BATS_TEST_NUMBER
	mkdir -p "$(dirname "$ARC_JOURNAL")"
}

teardown() {
	local p
	for p in ${notifier:-} ${hookpid:-}; do kill "$p" 2>/dev/null || :; done
	for p in ${notifier:-} ${hookpid:-}; do wait "$p" 2>/dev/null || :; done
	arc_teardown
}

# start_phone [RULE...]: arc-notify with an ntfy line for this test's
# topics and the rules given (default: questions), its pid in $notifier.
start_phone() {
	local c="$BATS_TEST_TMPDIR/notify.conf"
	printf 'ntfy %s %s answers %s token %s tap-token %s\n' "$(url)" "$Q" "$A" \
	    "$(srv)/host.token" "$(srv)/phone.token" >"$c"
	[ $# -gt 0 ] || set -- "notify ntfy question"
	printf '%s\n' "$@" >>"$c"
	"$ARC_BIN/arc-notify" -f "$c" 2>>"$BATS_TEST_TMPDIR/notify.err" 3>&- &
	notifier=$!
}

# messages: every message on the question topic, as the phone reads them.
messages() {
	curl -sf -H "Authorization: Bearer $(cat "$(srv)/phone.token")" \
	    "$(url)/$Q/json?poll=1&since=all"
}

# pushed N: N messages on the question topic, at least.
pushed() { [ "$(messages | wc -l)" -ge "$1" ]; }

# question_message: the last message that has buttons.
question_message() {
	messages | jq -c 'select(.actions != null and (.actions | any(.action == "http")))' | tail -1
}

# tap LABEL [TOKEN]: the app's request for the action LABEL of the last
# question message: its method, URL, headers and body; the HTTP status
# in $code.  TOKEN, when given, replaces the action's own.
tap() {
	local a hdr=()
	a=$(question_message | jq -c --arg l "$1" '.actions[] | select(.label == $l)')
	[ -n "$a" ] || { echo "no action $1" >&2; return 1; }
	while IFS= read -r h; do hdr+=(-H "$h"); done < <(jq -r '.headers // {} | to_entries[] | "\(.key): \(.value)"' <<<"$a")
	[ -z "${2:-}" ] || hdr=(-H "Authorization: Bearer $2")
	code=$(curl -s -o /dev/null -w '%{http_code}' -X "$(jq -r .method <<<"$a")" \
	    "${hdr[@]}" --data-binary "$(jq -r .body <<<"$a")" "$(jq -r .url <<<"$a")")
}

# phone_hook PAYLOAD: Claude Code's hook on a real payload, its pid in $hookpid.
phone_hook() {
	setsid "$HOOK" claude-code <"$P/$1.json" >"$BATS_TEST_TMPDIR/hook.out" \
	    2>"$BATS_TEST_TMPDIR/hook.err" 3>&- &
	hookpid=$!
}

pending_count() { arc-status --list | awk -F'\t' '$3 == "pending" { n++ } END { print n + 0 }'; }
phone_asked() { arc-status --list | awk -F'\t' '$3 == "pending" { print $1; exit }'; }
choice_of() { jq -r 'select(.interaction != null) | .interaction.response.choice_id // empty' "$ARC_JOURNAL" 2>/dev/null; }

@test "a question is one message: title, the whole command, priority, a button a choice (three at most, a way to refuse kept)" {
	start_phone
	phone_hook claude/permission-bash
	eventually pushed 1
	m=$(question_message)
	[ "$(jq -r .priority <<<"$m")" = 4 ]	# high
	[ "$(jq -r .title <<<"$m")" = "Claude Code in site, session 9e3a10: Permission to run a command" ]
	jq -r .message <<<"$m" | grep -qx '\$ npm run deploy -- --env production'
	# the rule "always" grants is in the message, beside its button
	jq -r .message <<<"$m" | grep -qF 'Always allow: add the allow rules Bash(npm run deploy:*) in this project, for you'
	[ "$(jq -r '[.actions[].label] | join(",")' <<<"$m")" = "Allow,Always allow,Deny" ]
	# every button publishes to the answer topic, never the question's
	[ "$(jq -r '[.actions[].url] | unique | join(",")' <<<"$m")" = "$(url)/$A" ]
	# the host's token never leaves: only the phone's is in the message
	! grep -qF "$(cat "$(srv)/host.token")" <<<"$m" || false
}

@test "with the page: two choices and Open; a question too long for the phone: what fits, and only the refusals" {
	local c="$BATS_TEST_TMPDIR/notify.conf"
	start_phone
	kill "$notifier"; wait "$notifier" || :
	sed -i "1s|\$| page https://host.example/arc/|" "$c"
	"$ARC_BIN/arc-notify" -f "$c" 2>>"$BATS_TEST_TMPDIR/notify.err" 3>&- &
	notifier=$!
	phone_hook claude/permission-bash
	eventually pushed 1
	m=$(question_message)
	[ "$(jq -r '[.actions[] | "\(.action):\(.label)"] | join(",")' <<<"$m")" = "http:Allow,http:Deny,view:Open" ]
	[ "$(jq -r .click <<<"$m")" = https://host.example/arc/ ]
	[ "$(jq -r '.actions[2].url' <<<"$m")" = https://host.example/arc/ ]
	# 60 lines of a command: the phone shows 40, and offers no Allow
	arc-emit --key long --kind permission --title "A long script" \
	    --message "$(printf '$ step %s\n' $(seq 60))" --choice allow:Allow \
	    --choice deny:Deny --response-kind permission --sender-id t | arc-apply >/dev/null
	eventually pushed 2
	m=$(messages | tail -1)
	[ "$(jq -r '[.actions[] | .label] | join(",")' <<<"$m")" = "Deny,Open" ]
	jq -r .message <<<"$m" | grep -q 'not shown here: open it on a screen'
	! jq -r .message <<<"$m" | grep -q 'step 60' || false
	# and a forged Allow for it, with its true tag, is not taken
	local body
	body=$(jq -r '.actions[0].body' <<<"$m" | jq -c '.choice = "allow"')
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$(srv)/phone.token")" \
	    --data-binary "$body" "$(url)/$A"
	eventually grep -q 'a tap on a choice the phone was not offered was ignored' "$BATS_TEST_TMPDIR/notify.err"
	[ "$(pending_count)" = 2 ]
}

@test "a notice goes by policy, without a button, and says nothing when it goes" {
	start_phone "notify ntfy notice priority >= high"
	arc-emit --key low --kind completion --title "Low news" --message "x" --priority low \
	    --notice --sender-id t | arc-apply >/dev/null
	arc-emit --key done --kind completion --title "Build done" --message "All green" \
	    --priority high --notice --sender-id t | arc-apply >/dev/null
	eventually pushed 1
	m=$(messages | tail -1)
	[ "$(jq -r .title <<<"$m")" = "t in state: Build done" ] || [[ "$(jq -r .title <<<"$m")" == *": Build done" ]]
	[ "$(jq -r '.actions // [] | length' <<<"$m")" = 0 ]
	arc-emit --type resolved --key done --outcome completed --sender-id t | arc-apply >/dev/null
	sleep 1
	[ "$(messages | wc -l)" = 1 ]
	! messages | grep -q 'Low news' || false
}

@test "each choice the phone offers answers, and the hook gets it" {
	local label choice behavior
	start_phone
	for label in "Allow" "Always allow" "Deny"; do
		phone_hook claude/permission-bash
		# this question's message (its tag), not the one before it
		eventually eval '[ -n "$(phone_asked)" ] && [ "$(question_message | jq -r .actions[0].body | jq -r .tag)" = "$(arc-status --show "$(phone_asked)" | awk "/^tag:/ {print \$2}")" ]'
		tap "$label"
		[ "$code" = 200 ]
		wait "$hookpid"
		hookpid=
		behavior=$(jq -r .hookSpecificOutput.decision.behavior "$BATS_TEST_TMPDIR/hook.out")
		case $label in
		Allow) [ "$behavior" = allow ]
		       [ "$(jq -r '.hookSpecificOutput.decision.updatedPermissions // "none"' "$BATS_TEST_TMPDIR/hook.out")" = none ] ;;
		"Always allow") [ "$behavior" = allow ]
		       [ "$(jq -r '.hookSpecificOutput.decision.updatedPermissions[0].rules[0].ruleContent' "$BATS_TEST_TMPDIR/hook.out")" = "npm run deploy:*" ] ;;
		Deny) [ "$behavior" = deny ] ;;
		esac
	done
	# and the source of each answer says the phone
	[ "$(jq -r 'select(.interaction.response != null) | .interaction.response.source' "$ARC_JOURNAL" | sort -u)" = ntfy ]
}

@test "the phone is told that the agent took the answer it tapped" {
	start_phone
	phone_hook claude/permission-bash
	eventually pushed 1
	tap Allow
	wait "$hookpid"
	hookpid=
	eventually eval 'messages | jq -r .message | grep -qE "^Answered: Allow \\(ntfy\\)"'
	eventually eval 'messages | jq -r .message | grep -qE "took it [0-9]+ ms later"'
}

@test "settled elsewhere, the phone is told how: answered at the terminal, expired" {
	start_phone
	phone_hook claude/permission-bash
	eventually pushed 1
	arc-answer "$(phone_asked)" deny
	wait "$hookpid" || :
	hookpid=
	eventually eval 'messages | jq -r .message | grep -q "^Answered: Deny (cli)"'
	eventually eval 'messages | jq -r .message | grep -qE "took it [0-9]+ ms later"'
	# a question that expires: said so
	arc-emit --key brief --kind question --title "Which branch?" --message "Pick one" --choice a:main \
	    --choice b:dev --expires-in 2s --sender-id t | arc-apply >/dev/null
	eventually eval 'question_message | jq -r .title | grep -q "Which branch?"'
	eventually eval 'messages | jq -r .message | grep -qx "Expired: nobody answered in time."'
}

@test "a stale tap (the question changed) is refused, and the question as it is now is pushed again" {
	start_phone
	arc-emit --key deploy --kind permission --title "Deploy" --message '$ make deploy' \
	    --choice allow:Allow --choice deny:Deny --response-kind permission --sender-id t |
	    arc-apply >/dev/null
	eventually pushed 1
	local old new
	old=$(question_message)
	arc-emit --type updated --key deploy --kind permission --title "Deploy" \
	    --message '$ make deploy PROD=1' --choice allow:Allow --choice deny:Deny \
	    --response-kind permission --sender-id t |
	    arc-apply >/dev/null
	eventually pushed 2
	new=$(question_message)
	[ "$(jq -r .message <<<"$new" | head -1)" = '$ make deploy PROD=1' ]
	# the tap on the old message's Allow
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$(srv)/phone.token")" \
	    --data-binary "$(jq -r '.actions[0].body' <<<"$old")" "$(url)/$A"
	eventually pushed 3
	[ "$(pending_count)" = 1 ]
	grep -q 'a tap on a question no longer shown was refused' "$BATS_TEST_TMPDIR/notify.err"
	[ "$(messages | tail -1 | jq -r .message | head -1)" = '$ make deploy PROD=1' ]
	# the new one's tap answers
	tap Allow
	eventually eval '[ "$(choice_of)" = allow ]'
}

@test "a tap with the tag of a version the phone was never shown is refused, though it is the question's tag now" {
	export ARC_NOW=2026-12-06T12:00:00Z TZ=UTC
	start_phone "notify ntfy question" "quiet 00:00-23:59 except high"
	arc-emit --key deploy --kind permission --title "Deploy" --message '$ make deploy' --priority high \
	    --choice allow:Allow --choice deny:Deny --response-kind permission --sender-id t | arc-apply >/dev/null
	eventually pushed 1
	# the new version is normal: held by the quiet hours, never pushed
	arc-emit --type updated --key deploy --kind permission --title "Deploy" --priority normal \
	    --message '$ make deploy PROD=1' --choice allow:Allow --choice deny:Deny \
	    --response-kind permission --sender-id t | arc-apply >/dev/null
	sleep 1
	[ "$(messages | wc -l)" = 1 ]
	local tag
	tag=$(arc-status --show deploy | awk '/^tag:/ { print $2 }')
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$(srv)/phone.token")" \
	    --data-binary "{\"arc\":\"tap\",\"key\":\"deploy\",\"tag\":\"$tag\",\"choice\":\"allow\"}" "$(url)/$A"
	eventually grep -q 'a tap on a question no longer shown was refused' "$BATS_TEST_TMPDIR/notify.err"
	[ "$(pending_count)" = 1 ]
	# a flood of stale taps rings the phone once, no more
	for i in 1 2 3 4 5; do
		curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$(srv)/phone.token")" \
		    --data-binary "{\"arc\":\"tap\",\"key\":\"deploy\",\"tag\":\"000000000000000$i\",\"choice\":\"deny\"}" "$(url)/$A"
	done
	eventually grep -q 'was ignored (1 so far)' "$BATS_TEST_TMPDIR/notify.err"
	sleep 1
	[ "$(messages | wc -l)" -le 2 ]
	[ "$(pending_count)" = 1 ]
}

@test "a question whose message the server would not read whole goes squeezed: a part of it, the refusals alone" {
	start_phone
	local q200 q500 q1000
	q200=$(printf '"%.0s' $(seq 200))
	q500=$(printf '"%.0s' $(seq 500))
	q1000=$(printf '"%.0s' $(seq 1000))
	# within the phone's room (1000 characters, 3400 bytes), but each " is
	# two bytes in JSON: more than 8192 for the message whole
	arc-emit --key quotes --kind permission --title "$q200" --message "$q1000" \
	    --choice "allow:$q200:$q500" --choice "always:$q200:$q500" \
	    --choice "deny:$q200:$q500" --response-kind permission --sender-id t | arc-apply >/dev/null
	eventually pushed 1
	m=$(messages | tail -1)
	[ "$(jq -r '[.actions[].body | fromjson | .choice] | join(",")' <<<"$m")" = deny ]
	[ "$(jq -r '.actions[0].label | length' <<<"$m")" -le 41 ]
	[ -z "$(grep -h 'ntfy sink failed' "$BATS_TEST_TMPDIR/notify.err")" ]
}

@test "a tap with the wrong token is refused by ntfy, and nothing is answered" {
	start_phone
	phone_hook claude/permission-bash
	eventually pushed 1
	tap Allow tk_notatokenatall00000000000000
	[ "$code" = 401 ] || [ "$code" = 403 ]
	tap Allow "$(cat "$(srv)/host.token")x"
	[ "$code" = 401 ] || [ "$code" = 403 ]
	# no token: the phone user's access is needed
	local body
	body=$(question_message | jq -r '.actions[0].body')
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary "$body" "$(url)/$A")" = 403 ]
	sleep 1
	[ "$(pending_count)" = 1 ]
}

@test "a tap forged for another key, or for a choice not offered, changes nothing" {
	start_phone
	arc-emit --key one --kind permission --title "One" --message '$ true' --choice allow:Allow \
	    --choice deny:Deny --response-kind permission --sender-id t | arc-apply >/dev/null
	arc-emit --key two --kind permission --title "Two" --message '$ false' --choice allow:Allow \
	    --choice deny:Deny --response-kind permission --sender-id t | arc-apply >/dev/null
	eventually pushed 2
	local body tok
	tok=$(cat "$(srv)/phone.token")
	body=$(messages | jq -r 'select(.title | endswith(": One")) | .actions[0].body')
	# one's tag with two's key; a key never pushed; a choice never offered
	for forged in "$(jq -c '.key = "two"' <<<"$body")" "$(jq -c '.key = "three"' <<<"$body")" \
	    "$(jq -c '.choice = "always"' <<<"$body")" 'not json' '{"arc":"tap"}'; do
		curl -s -o /dev/null -X POST -H "Authorization: Bearer $tok" --data-binary "$forged" "$(url)/$A"
	done
	eventually grep -q 'was ignored' "$BATS_TEST_TMPDIR/notify.err"
	sleep 1
	[ "$(pending_count)" = 2 ]
	# the true tap still answers
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $tok" --data-binary "$body" "$(url)/$A"
	eventually eval '[ "$(pending_count)" = 1 ]'
	[ "$(arc-status --list | cut -f1)" = two ]
}

@test "a replay of a tap already taken is refused" {
	start_phone
	phone_hook claude/permission-bash
	eventually pushed 1
	local body
	body=$(question_message | jq -r '.actions[2].body')	# Deny
	tap Allow
	wait "$hookpid"
	hookpid=
	curl -s -o /dev/null -X POST -H "Authorization: Bearer $(cat "$(srv)/phone.token")" \
	    --data-binary "$body" "$(url)/$A"
	eventually grep -q 'a tap for no question pushed and open was ignored' "$BATS_TEST_TMPDIR/notify.err"
	[ "$(choice_of | sort -u)" = allow ]
	[ "$(jq -r .hookSpecificOutput.decision.behavior "$BATS_TEST_TMPDIR/hook.out")" = allow ]
}

@test "the server restarted, arc-notify reads on: a tap made while it was away is not lost" {
	start_phone
	phone_hook claude/permission-bash
	eventually pushed 1
	ntfy_stop
	ntfy_start
	tap Allow	# before arc-notify's reader is back
	[ "$code" = 200 ]
	wait "$hookpid"
	hookpid=
	[ "$(jq -r .hookSpecificOutput.decision.behavior "$BATS_TEST_TMPDIR/hook.out")" = allow ]
}

@test "arc-notify restarted: a tap made while it was down answers once it is back, and nothing is pushed twice" {
	start_phone
	phone_hook claude/permission-bash
	eventually pushed 1
	kill "$notifier"
	wait "$notifier" || :
	notifier=
	tap Deny
	[ "$code" = 200 ]
	sleep 0.5
	[ "$(pending_count)" = 1 ]
	start_phone
	wait "$hookpid"
	hookpid=
	[ "$(jq -r .hookSpecificOutput.decision.behavior "$BATS_TEST_TMPDIR/hook.out")" = deny ]
	# one question message in all: the restart did not push it again
	[ "$(messages | jq -c 'select(.actions != null and (.actions | any(.action == "http")))' | wc -l)" = 1 ]
}

@test "under title-only the server never receives the question's text, and offers no button" {
	export ARC_OFF_DEVICE=title-only
	start_phone
	arc-emit --key secret --kind permission --title "Run a command" \
	    --message '$ curl https://example.org/SECRET-TEXT-4711 | sh' \
	    --choice allow:Allow --choice deny:Deny --response-kind permission --sender-id t |
	    arc-apply >/dev/null
	eventually pushed 1
	m=$(messages | tail -1)
	# who asks does not leave either: only the title
	[ "$(jq -r .title <<<"$m")" = "agent: Run a command" ]
	[ "$(jq '[.actions // [] | .[] | select(.action == "http")] | length' <<<"$m")" = 0 ]
	# not in the server's cache, in any of its files
	! grep -qa 'SECRET-TEXT-4711' "$(srv)"/cache.db* || false
	! messages | grep -q 'SECRET-TEXT-4711' || false
	# the same text under everything does reach it: the grep can see it
	unset ARC_OFF_DEVICE
	kill "$notifier"; wait "$notifier" || :
	start_phone
	arc-emit --key secret2 --kind permission --title "Run a command" \
	    --message '$ curl https://example.org/SECRET-TEXT-4711 | sh' \
	    --choice allow:Allow --choice deny:Deny --response-kind permission --sender-id t |
	    arc-apply >/dev/null
	eventually eval 'messages | grep -q SECRET-TEXT-4711'
	grep -qa 'SECRET-TEXT-4711' "$(srv)"/cache.db*
}

@test "who asks on the phone: the session's short name leaves under everything, never under no-session or title-only" {
	local sid=4f1c2b7e-9a3d-4e52-8c61-0b2d7f9e3a10 setting
	for setting in no-session title-only everything; do
		export ARC_OFF_DEVICE=$setting
		start_phone "notify ntfy notice"
		arc-emit --key "n-$setting" --kind completion --title "Built $setting" \
		    --message "All green" --priority high --notice --sender-name claude \
		    --project shop --session-id "$sid" | arc-apply >/dev/null
		eventually eval "messages | grep -q 'Built $setting'"
		kill "$notifier"; wait "$notifier" || :
		notifier=
	done
	messages | jq -r .title >"$BATS_TEST_TMPDIR/titles"
	grep -qx 'claude in shop: Built no-session' "$BATS_TEST_TMPDIR/titles"
	grep -qx 'agent: Built title-only' "$BATS_TEST_TMPDIR/titles"
	# the control: under everything the short name does leave
	grep -qx 'claude in shop, session 9e3a10: Built everything' "$BATS_TEST_TMPDIR/titles"
	# and under the other two, no byte of the session in any message the
	# server took (each whole, as the phone reads it)
	! messages | grep -v 'Built everything' | grep -q -e 9e3a10 -e "$sid" || false
	messages | grep 'Built everything' | grep -q 9e3a10
}

@test "hostile titles and labels reach the phone as text: controls escaped, nothing interpreted" {
	start_phone
	arc-emit --key evil --kind permission --title $'Deploy\e[2J\xe2\x80\xaetxt.exe' \
	    --message $'$ rm -rf /tmp/x\r\n$ echo ok' --choice $'allow:Al\e]0;pwned\alow' \
	    --choice deny:Deny --response-kind permission --sender-id t | arc-apply >/dev/null
	eventually pushed 1
	m=$(question_message)
	# as the terminal shows them: \x1b, \u202e, never the bytes
	jq -r .title <<<"$m" | grep -qF 'Deploy\x1b[2J\u202etxt.exe'
	! jq -r '.title, .message, .actions[].label' <<<"$m" | grep -q $'[\e\a\r]' || false
	jq -r '.actions[0].label' <<<"$m" | grep -qF 'Al\x1b]0;pwned\x07low'
	# and the choice it answers is the producer's id, whole
	[ "$(jq -r '.actions[0].body' <<<"$m" | jq -r .choice)" = allow ]
}

@test "100 questions pushed and answered from the phone: none lost, each its own answer" {
	start_phone
	local i
	for i in $(seq 1 100); do
		arc-emit --key "q$i" --kind permission --title "Step $i" --message "\$ step $i" \
		    --choice allow:Allow --choice deny:Deny --response-kind permission --sender-id t
	done | arc-apply >/dev/null
	eventually pushed 100
	local tok
	tok=$(cat "$(srv)/phone.token")
	# tap Allow on odd steps, Deny on even ones, as the app would
	messages | jq -c 'select(.actions != null) | [.title, .actions[0].body, .actions[1].body]' |
	while IFS= read -r row; do
		n=$(jq -r '.[0]' <<<"$row" | sed 's/.*Step //')
		b=$(jq -r ".[$(( n % 2 == 1 ? 1 : 2 ))]" <<<"$row")
		curl -s -o /dev/null -X POST -H "Authorization: Bearer $tok" --data-binary "$b" "$(url)/$A"
	done
	eventually eval '[ "$(pending_count)" = 0 ]'
	[ "$(jq -r 'select(.interaction.response != null) | "\(.interaction.key) \(.interaction.response.choice_id)"' "$ARC_JOURNAL" |
	    awk '{ n = substr($1, 2); want = n % 2 ? "allow" : "deny"; if ($2 != want) bad++; c++ } END { print c, bad + 0 }')" = "100 0" ]
}

@test "the ntfy line: a token file others can read is refused, and -n prints the line without a token" {
	local c="$BATS_TEST_TMPDIR/notify.conf"
	cp "$(srv)/phone.token" "$BATS_TEST_TMPDIR/open.token"
	chmod 644 "$BATS_TEST_TMPDIR/open.token"
	printf 'ntfy %s/ %s token %s\nnotify ntfy question\n' "$(url)" "$Q" "$BATS_TEST_TMPDIR/open.token" >"$c"
	run arc-notify -n -f "$c"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "ntfy $(url) $Q answers $Q-answers token \"$BATS_TEST_TMPDIR/open.token\"" ]
	! grep -qF "$(cat "$(srv)/phone.token")" <<<"$output" || false
	run arc-notify -f "$c"
	[ "$status" -eq 2 ]
	grep -q 'not a file of yours alone (chmod 600 it)' <<<"$output"
	! grep -qF "$(cat "$(srv)/phone.token")" <<<"$output" || false
	# notify ntfy without a server; a topic ntfy would not take
	printf 'notify ntfy question\n' >"$c"
	run arc-notify -n -f "$c"
	[ "$status" -eq 2 ]
	grep -q 'notify ntfy needs an ntfy line' <<<"$output"
	printf 'ntfy %s a/b\n' "$(url)" >"$c"
	run arc-notify -n -f "$c"
	[ "$status" -eq 2 ]
	# a login in the URL would go out in every button: refused
	printf 'ntfy http://me:secret@127.0.0.1:1/ q\n' >"$c"
	run arc-notify -n -f "$c"
	[ "$status" -eq 2 ]
	! grep -q secret <<<"$output" || false
	# a topic so long that the answer topic made of it is more than ntfy takes
	printf 'ntfy %s %s\n' "$(url)" "$(printf 'x%.0s' $(seq 60))" >"$c"
	run arc-notify -n -f "$c"
	[ "$status" -eq 2 ]
	grep -q 'longer than ntfy takes' <<<"$output"
}

@test "arc-notify --ntfy-setup prints lines notify.conf takes, with a topic nobody guesses" {
	run arc-notify --ntfy-setup https://ntfy.example.org/
	[ "$status" -eq 0 ]
	grep -v '^#' <<<"$output" >"$BATS_TEST_TMPDIR/notify.conf"
	run arc-notify -n -f "$BATS_TEST_TMPDIR/notify.conf"
	[ "$status" -eq 0 ]
	grep -qE '^ntfy https://ntfy.example.org arc-[a-z2-7]{20} answers arc-[a-z2-7]{20}-a$' <<<"$output"
	grep -qx 'notify ntfy question' <<<"$output"
	# two runs, two topics
	[ "$(arc-notify --ntfy-setup | grep '^ntfy')" != "$(arc-notify --ntfy-setup | grep '^ntfy')" ]
	run arc-notify --ntfy-setup ftp://x
	[ "$status" -eq 2 ]
}
