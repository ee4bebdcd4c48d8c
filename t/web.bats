#!/usr/bin/env bats
# arc-web(8) against the real thing: Debian's lighttpd on a loopback port
# with basic auth (t/web/serve), and Debian's Chromium, headless, at a
# phone's viewport, driven over the DevTools protocol on a pipe (t/web/browse.mjs).
# Screenshots go to $ARC_WEB_SHOTS when it is set.
load helper
setup_file() { needs lighttpd chromium node curl dbus-daemon mandoc; }
HOOKS="$BATS_TEST_DIRNAME/../examples"
P="$FIXTURES/hooks"
SID=4f1c2b7e-9a3d-4e52-8c61-0b2d7f9e3a10

setup() {
	arc_setup
	unset ARC_HOOK_TIMEOUT ARC_HOOK_CLIENT ARC_WEB_ENV
	SRV="$BATS_TEST_TMPDIR/srv"
	mkdir -p "$BATS_TEST_TMPDIR/state"
}

teardown() {
	[ -z "${hookpid:-}" ] || kill "$hookpid" 2>/dev/null || :
	[ ! -f "$SRV/lighttpd.pid" ] || kill "$(cat "$SRV/lighttpd.pid")" 2>/dev/null || :
	stop_sessions "$BATS_TEST_TMPDIR"
	arc_teardown
}

# in_session NAME CMD...: CMD in a session of its own (stopped by
# teardown), its output in $BATS_TEST_TMPDIR/NAME.out and .err.
in_session() { session "$BATS_TEST_TMPDIR" "$@"; }
# kin_of PID: PID's descendants, one a line.
kin_of() {
	local c
	for c in $(ps -e -o pid=,ppid= | awk -v p="$1" '$2 == p {print $1}'); do
		echo "$c"
		kin_of "$c"
	done
}
# none_alive PID...: none of them runs any more (a zombie is gone too).
none_alive() {
	[ $# -eq 0 ] || [ -z "$(ps -o pid=,stat= -p "$(echo "$@" | tr ' ' ,)" | awk '$2 !~ /^Z/')" ]
}

# soon CMD...: CMD comes true within 5 s of the clock (not of tries: a
# loaded machine makes each try slow).
soon() {
	local end=$(( ${EPOCHREALTIME/./} + 5000000 ))
	while [ "${EPOCHREALTIME/./}" -lt "$end" ]; do
		"$@" && return 0
		sleep 0.05
	done
	"$@" && return 0
	echo "not within 5 s: $*" >&2
	return 1
}
someone_waits_on_the_page() { ! page | grep -q '"nowait"'; }
serve() { PORT=$("$BATS_TEST_DIRNAME/web/serve" "$SRV" "$ARC_JOURNAL"); URL="http://127.0.0.1:$PORT"; }
# (its Chromium profile in the test's folder: bats removes what is left)
browse() { TMPDIR="$BATS_TEST_TMPDIR" node "$BATS_TEST_DIRNAME/web/browse.mjs" "$@"; }
shot() { echo "${ARC_WEB_SHOTS:-$BATS_TEST_TMPDIR}/$1.png"; }
# A question that stays open long enough, under KEY, with JQ applied.
open_q() { created "$1" ".request.response.expires_at = \"2099-01-01T00:00:00Z\" | ${2:-.}" | arc-apply >/dev/null; }
# The page as ann sees it; a form's field from it.
page() { curl -sf -u ann:pw "$URL/arc-web"; }
token() { page | grep -o 'name="token" value="[0-9a-f]*"' | head -1 | sed 's/.*value="//; s/"$//'; }
seen() { page | grep -o 'name="seen" value="[0-9a-f]*"' | head -1 | sed 's/.*value="//; s/"$//'; }
status_of() { arc-status --json --show "$1" 2>/dev/null | jq -r '.interaction.status // empty'; }
nonces() { grep -ao '"nonce":"[^"]*"' "$ARC_JOURNAL" | sed 's/.*:"//; s/"$//' | sort -u; }
# post BODY [CURL OPTIONS]: a form posted as ann from the page's origin.
post() {
	local body=$1
	shift
	curl -s -u ann:pw -o "$BATS_TEST_TMPDIR/body" -w '%{http_code} %header{location}' \
	    -H "Origin: $URL" --data "$body" "$@" "$URL/arc-web"
}

@test "arc-web: a GET shows the question with large buttons, a CSP of its own assets only, no script" {
	open_q deploy
	serve
	run curl -s -u ann:pw -D - "$URL/arc-web"
	[ "$status" -eq 0 ]
	grep -q "^Content-Security-Policy: default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'" <<<"$output"
	grep -q '<button type="submit" name="choice" value="allow">Allow</button>' <<<"$output"
	grep -q 'name="seen" value="[0-9a-f]\{16\}"' <<<"$output"
	[ "$(grep -io '<script[^>]*>' <<<"$output")" = '<script src="/arc-web?js" defer>' ]
	! grep -qi 'https\?://' <<<"$output" || false
	grep -q "script-src 'self'; connect-src 'self'" <<<"$output"
	run curl -s -u ann:pw -D - "$URL/arc-web?css"
	grep -q '^Content-Type: text/css' <<<"$output"
}

@test "arc-web: most urgent first, as the picker orders them; a notice with a dismiss button" {
	open_q a-low '.request.priority = "low" | .request.title = "LOW"'
	open_q b-high '.request.priority = "high" | .request.title = "HIGH"'
	open_q c-normal '.request.title = "NORMAL"'
	information note | arc-apply >/dev/null
	serve
	run page
	[ "$(grep -o 'class="title">[A-Z]*<' <<<"$output" | sed 's/.*>//; s/<//' | tr '\n' ' ')" = "HIGH NORMAL LOW " ]
	grep -q 'name="op" value="dismiss"><input type="hidden" name="key" value="note">' <<<"$output"
	[ "$(post "op=dismiss&key=note&token=$(token)")" = "303 /arc-web?said=dismissed&key=note" ]
	! page | grep -q 'value="note"' || false
}

@test "arc-web: tap Allow on a Claude Code permission in Chromium at 390 px; the hook's arc-wait wakes with it" {
	serve
	setsid env --default-signal=INT,TERM,HUP "$HOOKS/claude-code-hook" \
	    <"$P/claude/permission-bash.json" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	hookpid=$!
	for i in $(seq 100); do arc-status --list | grep -q pending && break; sleep 0.05; done
	run browse "$URL/arc-web" ann:pw eval 'document.title' tap Allow text
	[ "$status" -eq 0 ]
	grep -q '^Answered\.' <<<"$output"
	! grep -q '^dialog:\|^csp:' <<<"$output" || false
	wait "$hookpid"
	[ "$(jq -cS . "$BATS_TEST_TMPDIR/out")" = "$(jq -cS . "$P/claude/out/permission-allow.json")" ]
	grep -q '"source":"web","device_id":"ann"' "$ARC_JOURNAL"
}

@test "arc-web: the hand-over: 'no one is waiting now' on a question nobody waits for; tapped, the banner says Claude Code took it" {
	serve
	open_q script
	page | grep -q '<span class="nowait">no one is waiting now</span>'
	arc-wait -t 1m script >/dev/null 3>&- &
	local waiter=$!
	soon someone_waits_on_the_page
	arc-answer script deny >/dev/null
	wait "$waiter"
	setsid env --default-signal=INT,TERM,HUP "$HOOKS/claude-code-hook" \
	    <"$P/claude/permission-bash.json" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	hookpid=$!
	for i in $(seq 100); do arc-status --list | grep -q pending && break; sleep 0.05; done
	run browse "$URL/arc-web" ann:pw tap Allow eval 'location.search'
	[ "$status" -eq 0 ]
	wait "$hookpid"
	local search; search=$(tail -1 <<<"$output")
	[[ "$search" == "?said="* ]]
	run curl -sf -u ann:pw "$URL/arc-web$search"
	[[ "$output" =~ \<span\ class=\"handover\"\>Claude\ Code\ took\ it\ [0-9]+\ ms\ later\</span\> ]]
}

@test "arc-web: with JavaScript off, the question changes while the page is open; the old tap is refused and the new one shown" {
	open_q deploy '.request.title = "Deploy to staging?"'
	serve
	run browse "$URL/arc-web" ann:pw nojs \
	    run "$(declare -f fresh updated); updated deploy '.request.title = \"Deploy to PRODUCTION?\" | .request.response = {kind:\"permission\", choices:[{id:\"allow\",label:\"Allow\"},{id:\"deny\",label:\"Deny\"}], expires_at:\"2099-01-01T00:00:00Z\"}' | arc-apply >/dev/null" \
	    tap Allow text shot "$(shot changed)"
	[ "$status" -eq 0 ]
	grep -q 'The question changed since the page showed it: nothing was sent' <<<"$output"
	grep -q 'Deploy to PRODUCTION?' <<<"$output"
	! grep -q 'staging' <<<"$output" || false
	[ "$(status_of deploy)" = pending ]
}

@test "arc-web: hostile agent, project, title, message and labels stay text; nothing runs" {
	open_q evil '.sender.name = "<script>alert(\"agent\")</script>" |
	    .context.cwd = "/x/\"><img src=x onerror=alert(\"project\")>" |
	    .request.title = "<img src=x onerror=alert(1)><script>alert(2)</script>" |
	    .request.message = "<a href=\"javascript:alert(3)\">tap</a> '"'"'quotes'"'"' \" &amp;" |
	    .request.response.choices = [{id:"allow", label:"\"><script>alert(4)</script>"},
	      {id:"deny", label:"<b onmouseover=alert(5)>Deny</b>"}]'
	serve
	run browse "$URL/arc-web" ann:pw shot "$(shot hostile)" \
	    eval 'document.querySelectorAll("script:not([src=\"/arc-web?js\"]),img,a,b,[onerror],[onmouseover]").length' text \
	    tap '"><script>alert(4)</script>' text
	[ "$status" -eq 0 ]
	! grep -q '^dialog:\|^csp:' <<<"$output" || false
	[ "$(sed -n 1p <<<"$output")" = 0 ]
	grep -qF '<img src=x onerror=alert(1)><script>alert(2)</script>' <<<"$output"
	grep -qF '<a href="javascript:alert(3)">tap</a> '"'"'quotes'"'"' " &amp;' <<<"$output"
	grep -qF '<script>alert("agent")</script>' <<<"$output"
	grep -q '^Answered\.' <<<"$output"
	[ "$(status_of evil)" = answered ]
}

@test "arc-web: the control: the driver does see a script that runs" {
	run browse 'data:text/html,<script>alert(7)</script><img src=x onerror=alert(8)>' -
	grep -q '^dialog: 7' <<<"$output"
	grep -q '^dialog: 8' <<<"$output"
}

@test "arc-web: a form posted from another origin is refused, even with the user's token" {
	open_q deploy
	serve
	tok=$(token)
	cat >"$BATS_TEST_TMPDIR/evil.html" <<HTML
<!DOCTYPE html><meta name="viewport" content="width=device-width">
<form method="post" action="$URL/arc-web"><input type="hidden" name="op" value="answer">
<input type="hidden" name="key" value="deploy"><input type="hidden" name="seen" value="$(seen)">
<input type="hidden" name="token" value="$tok"><button name="choice" value="allow">Win a prize</button></form>
HTML
	run browse "file://$BATS_TEST_TMPDIR/evil.html" ann:pw tap 'Win a prize' text
	grep -q 'A request from another site: refused' <<<"$output"
	[ "$(post "op=answer&key=deploy&seen=$(seen)&token=$tok&choice=allow" -H 'Origin: http://evil.example')" = "403 " ]
	[ "$(post "op=answer&key=deploy&seen=$(seen)&token=$tok&choice=allow" -H 'Origin: null')" = "403 " ]
	[ "$(post "op=answer&key=deploy&seen=$(seen)&token=0000&choice=allow")" = "403 " ]
	[ "$(status_of deploy)" = pending ]
}

@test "arc-web: without REMOTE_USER nothing can be answered (unless ARC_WEB_ANONYMOUS=1)" {
	open_q deploy
	serve
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/arc-web")" = 401 ]
	s=$(seen)
	run curl -s -o /dev/null -w '%{http_code}' -H "Origin: $URL" \
	    --data "op=answer&key=deploy&seen=$s&token=&choice=allow" "$URL/open/arc-web"
	[ "$output" = 403 ]
	run curl -s -H "Origin: $URL" --data "op=answer&key=deploy&seen=$s&token=&choice=allow" "$URL/open/arc-web"
	grep -q 'No REMOTE_USER' <<<"$output"
	[ "$(status_of deploy)" = pending ]
	kill "$(cat "$SRV/lighttpd.pid")"
	rm -f "$SRV/lighttpd.pid"
	ARC_WEB_ENV="ARC_WEB_ANONYMOUS=1" serve
	# (anonymous mode wants the page's origin: arc-web(8), SECURITY)
	printf 'http://127.0.0.1:%s\n' "$PORT" >"$BATS_TEST_TMPDIR/state/web-origin"
	tok=$(curl -s "$URL/open/arc-web" | grep -o 'name="token" value="[0-9a-f]*"' | sed 's/.*value="//; s/"$//')
	run curl -s -o /dev/null -w '%{http_code}' -H "Origin: $URL" \
	    --data "op=answer&key=deploy&seen=$s&token=$tok&choice=allow" "$URL/open/arc-web"
	[ "$output" = 303 ]
	[ "$(status_of deploy)" = answered ]
	grep -q '"source":"web"' "$ARC_JOURNAL"
}

@test "arc-web: a text question is a bounded field; its answer is taken" {
	text_question note 12 | jq -c '.request.response.expires_at = "2099-01-01T00:00:00Z"' | arc-apply >/dev/null
	serve
	page | grep -q '<input type="text" name="text" maxlength="12" required'
	r=$(post "op=answer&key=note&seen=$(seen)&token=$(token)&text=ship+it%21")
	[[ "$r" =~ ^"303 /arc-web?said=answered"(&|$) ]]
	# no answer in the URL a web server logs: the banner reads the journal
	[[ "$r" != *ship* && "$r" != *text=* && "$r" != *choice=* ]]
	[ "$(arc-status --json --show note | jq -r .interaction.response.text)" = "ship it!" ]
}

@test "arc-web: no response body and no log holds a nonce; the key file is 0600" {
	open_q one
	open_q two
	serve
	all="$BATS_TEST_TMPDIR/all"
	{ page; curl -s -u ann:pw "$URL/arc-web?css"
	  post "op=answer&key=one&seen=$(seen)&token=$(token)&choice=allow"; cat "$BATS_TEST_TMPDIR/body"
	  post "op=answer&key=two&seen=0123456789abcdef&token=$(token)&choice=allow"; cat "$BATS_TEST_TMPDIR/body"
	  curl -s -u ann:pw -D - "$URL/arc-web?said=answered"
	  browse "$URL/arc-web" ann:pw html; } >"$all"
	[ "$(nonces | wc -l)" -ge 2 ]
	for n in $(nonces); do
		! grep -qF "$n" "$all" "$SRV/error.log" || false
	done
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/state/web.key")" = 600 ]
}

@test "arc-web: hostile requests: too large, bad encoding, a second value, no crash" {
	open_q deploy
	serve
	tok=$(token)
	head -c 70000 /dev/zero | tr '\0' a >"$BATS_TEST_TMPDIR/big"
	[ "$(post "@$BATS_TEST_TMPDIR/big")" = "413 " ]
	[ "$(post "op=answer&key=deploy&seen=$(seen)&token=$tok&choice=%zz")" = "400 " ]
	[ "$(post "op=answer&key=deploy&seen=$(seen)&token=$tok&choice=allow%00x")" = "400 " ]
	[ "$(post "op=answer&key=deploy&key=other&seen=$(seen)&token=$tok&choice=allow")" = "400 " ]
	[[ "$(post "op=answer&key=deploy&seen=nothex&token=$tok&choice=allow")" =~ ^"303 /arc-web?said=refused"(&|$) ]]
	[[ "$(post "op=answer&key=deploy&seen=$(seen)&token=$tok&choice=maybe")" =~ ^"303 /arc-web?said=refused"(&|$) ]]
	[[ "$(post "op=answer&key=nokey&seen=$(seen)&token=$tok&choice=allow")" =~ ^"303 /arc-web?said=closed"(&|$) ]]
	[ "$(curl -s -o /dev/null -w '%{http_code}' -u ann:pw "$URL/arc-web?said=%3Cscript%3E")" = 200 ]
	# an unknown said= is not reflected, raw or escaped (the page's own
	# <script src=...> is no reflection)
	! curl -s -u ann:pw "$URL/arc-web?said=%3Cscript%3E" | grep -qiF -e '<script>' -e '&lt;script' || false
	curl -s -u ann:pw "$URL/arc-web?said=%3Cscript%3E" | grep -qF '<script src="'	# (the control)
	[ "$(status_of deploy)" = pending ]
}

@test "arc-web: on a mirror, a tap goes by the question's recorded route to its host, never into the mirror" {
	local host="$BATS_TEST_TMPDIR/host/journal"
	mkdir -m 700 "${host%/journal}"
	created deploy '.request.response.expires_at = "2099-01-01T00:00:00Z"' | arc-apply -j "$host" |
	    jq -c 'select(.notification) | {notification: (.notification | .key = "devbox/" + .key),
	      interaction: (.interaction | .key = "devbox/" + .key)}' >"$BATS_TEST_TMPDIR/m"
	arc-apply --mirror <"$BATS_TEST_TMPDIR/m" >/dev/null
	serve
	# no route recorded: refused, nothing sent
	[[ "$(post "op=answer&key=devbox/deploy&seen=$(seen)&token=$(token)&choice=allow")" =~ ^"303 /arc-web?said=mirrored"(&|$) ]]
	[ "$(status_of devbox/deploy)" = pending ]
	# a route: the answer goes to the host, which applies it; its result line (a nonce) is not in the response
	arc-apply --mirror --route "sed 's|\"key\":\"devbox/|\"key\":\"|' | PATH='$PATH' arc-apply -j $host" \
	    <"$BATS_TEST_TMPDIR/m" >/dev/null
	[[ "$(post "op=answer&key=devbox/deploy&seen=$(seen)&token=$(token)&choice=allow")" =~ ^"303 /arc-web?said=sent"(&|$) ]]
	[ ! -s "$BATS_TEST_TMPDIR/body" ]
	[ "$(arc-status -j "$host" --json --show deploy | jq -r .interaction.status)" = answered ]
	[ "$(arc-status -j "$host" --json --show deploy | jq -r .interaction.response.source)" = web ]
	[ "$(status_of devbox/deploy)" = pending ]
	# a question its host's off-device setting withheld comes as a notice:
	# shown, with nothing to tap
	jq -c '.interaction = null | .notification.message = null | .notification.key = "devbox/held" |
	    .notification.title = "Held back"' "$BATS_TEST_TMPDIR/m" | arc-apply --mirror --route true >/dev/null
	run page
	grep -q 'class="title">Held back</div><div class="state">[^<]*</div><p class="held">On another host: it is settled there.</p></div>' <<<"$output"
	! grep -q 'value="devbox/held"' <<<"$output" || false
}

@test "arc-web: with JavaScript on, the open page follows the journal: a new question shows, one answered in a terminal goes" {
	open_q first '.request.title = "First question"'
	serve
	run browse "$URL/arc-web" ann:pw \
	    run "$(declare -f fresh created open_q); open_q second '.request.title = \"Second question\"'" \
	    wait 1500 text \
	    run "arc-answer first allow >/dev/null" \
	    wait 1500 text
	[ "$status" -eq 0 ]
	! grep -q '^dialog:\|^csp:' <<<"$output" || false
	sed -n '/^2 questions waiting$/,/^1 question waiting$/p' <<<"$output" | grep -q 'Second question'
	sed -n '/^1 question waiting$/,$p' <<<"$output" | grep -q 'Second question'
	! sed -n '/^1 question waiting$/,$p' <<<"$output" | grep -q 'First question' || false
}

@test "arc-web: while the page is open, a new question is told by the Notification API, as text and bounded; a settled one is not" {
	open_q first '.request.title = "First question"'
	serve
	run browse "$URL/arc-web" ann:pw notifications wait 500 \
	    run "$(declare -f fresh created open_q); open_q second '.request.title = \"<img src=x onerror=alert(1)> \" + (\"long \" * 30) | .request.message = \"<b>bold</b> & \" + (\"more \" * 100) | .sender.name = \"\\\"><script>alert(2)</script>\"'" \
	    wait 1500 run "arc-answer first allow >/dev/null" wait 1500 text
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -q '^dialog:\|^csp:' <<<"$output" || false
	[ "$(grep -c '^console: notification: ' <<<"$output")" -eq 1 ]
	n=$(sed -n 's/^console: notification: //p' <<<"$output")
	title=$(jq -r '.[0]' <<<"$n")
	body=$(jq -r '.[1]' <<<"$n")
	[[ $title == '"><script>alert(2)</script>'*': <img src=x onerror=alert(1)> long long'* ]]
	[ "$(jq -r ".[0] | length" <<<"$n")" -le 120 ]	# characters, whatever the locale
	[[ $body == '<b>bold</b> & more more'* ]]
	[ "$(jq -r ".[1] | length" <<<"$n")" -le 200 ]
	# the page went on: the first question answered in a terminal left it
	sed -n '/^1 question waiting$/,$p' <<<"$output" | grep -q 'long long'
	! grep -q 'First question' <<<"$(sed -n '/^1 question waiting$/,$p' <<<"$output")" || false
}

@test "arc-web: the off-device setting: under no-message and title-only a question shows without its text or buttons and cannot be answered; notices still go" {
	open_q deploy '.request.title = "Run a command?" | .request.message = "SECRET rm -rf /srv" |
	    .context.cwd = "/home/ann/secret-project" | .sender.name = "Claude"'
	information note | arc-apply >/dev/null
	serve
	page | grep -q 'SECRET rm -rf /srv'
	tok=$(token)
	s=$(seen)
	nonce=$(nonces)
	# no-message (the file beside the journal, the setting arc-mqtt reads too)
	echo no-message >"$BATS_TEST_TMPDIR/state/off-device"
	run page
	! grep -q -e SECRET -e 'name="choice"' -e 'name="seen"' <<<"$output" || false
	grep -q 'class="title">Run a command?<' <<<"$output"
	grep -q 'Claude in secret-project' <<<"$output"
	# nor its choices: an "Always allow" detail holds what the command held
	! grep -q -e 'Allow &middot; Deny' -e '>Allow<' <<<"$output" || false
	grep -q 'Its text stays on its host (off-device setting): answer it there' <<<"$output"
	[[ "$(post "op=answer&key=deploy&seen=$s&token=$tok&choice=allow")" =~ ^"303 /arc-web?said=withheld"(&|$) ]]
	[ "$(status_of deploy)" = pending ]
	run browse "$URL/arc-web?said=withheld" ann:pw shot "$(shot withheld)" text
	grep -q "That question's text does not leave its host" <<<"$output"
	! grep -q -e SECRET -e "$nonce" <<<"$output" || false
	# title-only, no project: not the agent's name, the choices or the project either
	printf 'title-only\nno-project # nor where it runs\n' >"$BATS_TEST_TMPDIR/state/off-device"
	run page
	! grep -q -e SECRET -e Claude -e secret-project -e Allow <<<"$output" || false
	grep -q 'class="title">Run a command?<' <<<"$output"
	[[ "$(post "op=answer&key=deploy&seen=$s&token=$tok&choice=allow")" =~ ^"303 /arc-web?said=withheld"(&|$) ]]
	[ "$(post "op=dismiss&key=note&token=$tok")" = "303 /arc-web?said=dismissed&key=note" ]
	# a setting others may write is not ours: nothing is served
	chmod 666 "$BATS_TEST_TMPDIR/state/off-device"
	run curl -s -u ann:pw -w '%{http_code}' "$URL/arc-web"
	[[ $output == *'The off-device setting is not one'*500 ]]
	# ARC_OFF_DEVICE, when set, is the setting; one that is not one serves nothing
	kill "$(cat "$SRV/lighttpd.pid")"
	rm -f "$SRV/lighttpd.pid"
	ARC_WEB_ENV="ARC_OFF_DEVICE=no-mesage" serve
	run curl -s -u ann:pw -w '%{http_code}' "$URL/arc-web"
	[[ $output == *'The off-device setting is not one'*500 ]]
	[ "$(post "op=answer&key=deploy&seen=$s&token=$tok&choice=allow")" = "500 " ]
	[ "$(status_of deploy)" = pending ]
	kill "$(cat "$SRV/lighttpd.pid")"
	rm -f "$SRV/lighttpd.pid"
	# everything: answered
	ARC_WEB_ENV="ARC_OFF_DEVICE=everything" serve
	[[ "$(post "op=answer&key=deploy&seen=$s&token=$tok&choice=allow")" =~ ^"303 /arc-web?said=answered"(&|$) ]]
	[ "$(status_of deploy)" = answered ]
}

@test "arc-web: the event stream's CGI ends when the browser goes, and when lighttpd dies under it" {
	serve
	lpid=$(cat "$SRV/lighttpd.pid")
	curl -sN -u ann:pw "$URL/arc-web?events" >"$BATS_TEST_TMPDIR/stream" &
	reader=$!
	eventually grep -q '^data: ' "$BATS_TEST_TMPDIR/stream"
	# a heartbeat has come through lighttpd (a comment line, every 250 ms)
	eventually grep -qx ':' "$BATS_TEST_TMPDIR/stream"
	cgi=$(kin_of "$lpid")
	[ -n "$cgi" ]
	kill "$reader"
	wait "$reader" || :
	# the next heartbeat lighttpd passes on finds the browser gone: well
	# before the minute a stream lasts (5 s here, for a loaded machine;
	# arc-web(8) says within a second)
	soon none_alive $cgi
	# again, and this time lighttpd is killed while the stream is open
	curl -sN -u ann:pw "$URL/arc-web?events" >"$BATS_TEST_TMPDIR/stream2" &
	reader=$!
	eventually grep -q '^data: ' "$BATS_TEST_TMPDIR/stream2"
	cgi=$(kin_of "$lpid")
	[ -n "$cgi" ]
	kill -KILL "$lpid"
	rm -f "$SRV/lighttpd.pid"
	eventually none_alive $cgi
	wait "$reader" || :
}

@test "arc-web: a POST cut short by a dying lighttpd applies nothing; one whose client leaves before the response is applied, and arc-wait wakes" {
	open_q deploy
	serve
	tok=$(token)
	s=$(seen)
	arc-wait -t 60 deploy >"$BATS_TEST_TMPDIR/waited" &
	waiter=$!
	form="op=answer&key=deploy&seen=$s&token=$tok&choice=allow"
	# half a form, then lighttpd dies while the connection is open
	python3 - "$PORT" "$form" "$BATS_TEST_TMPDIR/half" <<'PY' &
import base64, socket, sys, time, os
port, form, flag = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3]
s = socket.create_connection(('127.0.0.1', port))
auth = base64.b64encode(b'ann:pw').decode()
s.sendall(('POST /arc-web HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://127.0.0.1:%d\r\n'
    'Authorization: Basic %s\r\nContent-Type: application/x-www-form-urlencoded\r\n'
    'Content-Length: %d\r\n\r\n' % (port, port, auth, len(form))).encode() + form[:len(form) // 2])
open(flag, 'w').close()
try:
    s.settimeout(20)
    s.recv(100)
except OSError:
    pass
PY
	client=$!
	eventually test -e "$BATS_TEST_TMPDIR/half"
	lpid=$(cat "$SRV/lighttpd.pid")
	kin=$(kin_of "$lpid")
	kill -KILL "$lpid"
	rm -f "$SRV/lighttpd.pid"
	wait "$client" || :
	eventually none_alive $kin
	[ "$(status_of deploy)" = pending ]
	kill -0 "$waiter"
	# the whole form, and the client goes without reading the response
	serve
	python3 - "$PORT" "$form" <<'PY'
import base64, socket, sys
port, form = int(sys.argv[1]), sys.argv[2].encode()
s = socket.create_connection(('127.0.0.1', port))
auth = base64.b64encode(b'ann:pw').decode()
s.sendall(('POST /arc-web HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://127.0.0.1:%d\r\n'
    'Authorization: Basic %s\r\nContent-Type: application/x-www-form-urlencoded\r\n'
    'Content-Length: %d\r\n\r\n' % (port, port, auth, len(form))).encode() + form)
s.close()
PY
	wait "$waiter"
	[ "$(jq -r '[.status, .response.choice_id, .response.source] | join(" ")' "$BATS_TEST_TMPDIR/waited")" = "answered allow web" ]
	[ "$(grep -c '"event_type":"response.submitted"' "$ARC_JOURNAL")" -le 1 ]
	eventually none_alive $(kin_of "$(cat "$SRV/lighttpd.pid")")
}

@test "arc-web: the ntfy recipe of arc-web(8), run by arc-notify's exec sink, posts the title and the page's Click URL, and nothing more" {
	command -v dbus-daemon >/dev/null || skip "dbus-daemon is not installed"
	serve
	# the recipe, as the page prints it
	mandoc -Tascii "$BATS_TEST_DIRNAME/../man/arc-web.8" | col -bx |
	    sed -n '/^ *#!\/bin\/sh$/,/--data-binary/p' >"$BATS_TEST_TMPDIR/recipe"
	indent=$(head -1 "$BATS_TEST_TMPDIR/recipe" | sed 's/#.*//' | wc -c)
	cut -c"$indent"- "$BATS_TEST_TMPDIR/recipe" >"$BATS_TEST_TMPDIR/arc-ntfy"
	grep -q '^#!/bin/sh$' "$BATS_TEST_TMPDIR/arc-ntfy"
	grep -q 'Click: \$page' "$BATS_TEST_TMPDIR/arc-ntfy"
	chmod +x "$BATS_TEST_TMPDIR/arc-ntfy"
	# a push service of our own, a session bus of our own, arc-notify
	in_session receiver "$BATS_TEST_DIRNAME/web/receiver" "$BATS_TEST_TMPDIR/pushed" "$BATS_TEST_TMPDIR/rport"
	eventually test -s "$BATS_TEST_TMPDIR/rport"
	in_session bus dbus-daemon --session --nofork --nopidfile --address="unix:path=$BATS_TEST_TMPDIR/bus"
	eventually test -S "$BATS_TEST_TMPDIR/bus"
	mkdir -p "$BATS_TEST_TMPDIR/config/arc"
	printf 'notify exec question run %s\nignore tmux\n' "$BATS_TEST_TMPDIR/arc-ntfy" \
	    >"$BATS_TEST_TMPDIR/config/arc/notify.conf"
	XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/config" DBUS_SESSION_BUS_ADDRESS="unix:path=$BATS_TEST_TMPDIR/bus" \
	    ARC_WEB_URL="$URL/arc-web" NTFY_TOPIC="http://127.0.0.1:$(cat "$BATS_TEST_TMPDIR/rport")/arc-questions" \
	    in_session notify arc-notify
	open_q deploy '.request.title = "Deploy to production?" | .request.message = "SECRET rm -rf /srv"'
	eventually test -s "$BATS_TEST_TMPDIR/pushed"
	[ "$(jq -r '[.method, .path, .headers.Click, .headers.Title, .body] | join("|")' "$BATS_TEST_TMPDIR/pushed")" = \
	    "POST|/arc-questions|$URL/arc-web|arc: a question waits|Deploy to production?" ]
	# taken back: nothing is pushed; the next question is
	arc-answer deploy allow >/dev/null
	open_q next '.request.title = "Next one?"'
	eventually eval '[ "$(grep -c . "$BATS_TEST_TMPDIR/pushed")" -ge 2 ]'
	[ "$(jq -r .body "$BATS_TEST_TMPDIR/pushed" | tr '\n' '|')" = "Deploy to production?|Next one?|" ]
	for secret in SECRET $(nonces) $(grep -ao '"digest":"[0-9a-f]*"' "$ARC_JOURNAL" | sed 's/.*:"//; s/"$//' | sort -u); do
		! grep -qF -- "$secret" "$BATS_TEST_TMPDIR/pushed" || false
		! grep -qF -- "${secret:0:16}" "$BATS_TEST_TMPDIR/pushed" || false
	done
	# the Click URL opens the page
	curl -sf -u ann:pw "$(jq -r .headers.Click "$BATS_TEST_TMPDIR/pushed" | tail -1)" | grep -q 'Next one?'
}

@test "arc-web: the empty page, before there is a journal or its folder" {
	rm -rf "$BATS_TEST_TMPDIR/state"
	serve
	run browse "$URL/arc-web" ann:pw shot "$(shot empty)" text
	grep -q 'Nothing needs you' <<<"$output"
}

@test "arc-web: run by hand (not as CGI) it says how it is run; --help and --version as every command" {
	run --separate-stderr arc-web
	[ "$status" -eq 2 ]
	grep -q 'arc-web(8)' <<<"$stderr"
	run --separate-stderr arc-web --bogus
	[ "$status" -eq 2 ]
	run arc-web --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"-V, --version"* ]]
	run arc-web -V
	[ "$status" -eq 0 ]
	[[ "$output" == "arc-web "* ]]
}

@test "arc-web: under CGI its arguments are the server's (a query without '=' may come as words) and change nothing" {
	run env REQUEST_METHOD=GET QUERY_STRING=css arc-web css
	[ "$status" -eq 0 ]
	[[ "$output" == *"Content-Type: text/css"* ]]
	run env REQUEST_METHOD=GET QUERY_STRING=js arc-web --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Content-Type: text/javascript"* ]]
	[[ "$output" != *"usage:"* ]]
}

@test "arc-web: the page updates in place: a window property, the scroll position and typed text stay across three updates; new questions go after the others" {
	for i in 1 2 3 4 5 6; do open_q "q$i" ".request.title = \"Question $i\""; done
	text_question words 40 | jq -c '.request.response.expires_at = "2099-01-01T00:00:00Z" | .request.title = "Say it"' |
	    arc-apply >/dev/null
	serve
	run browse "$URL/arc-web" ann:pw \
	    eval 'window.arcKeep = 7; var i = document.querySelector("input[name=text]"); i.value = "half typed"; i.focus(); window.scrollTo(0, 400); window.arcTop = Math.round(i.getBoundingClientRect().top); scrollY' \
	    run "arc-emit --key new1 --kind permission --title 'New one' --message 'May I?' --choice allow:Allow --choice deny:Deny --expires-in 1h | arc-apply -q >/dev/null" \
	    wait 1500 \
	    run "arc-answer q1 allow >/dev/null" \
	    wait 1500 \
	    eval '"after two: " + scrollY' \
	    run "arc-emit --type updated --key q2 --kind permission --title 'Question 2, changed' --message 'May I deploy?' --choice allow:Allow --choice deny:Deny --expires-in 1h | arc-apply -q >/dev/null" \
	    wait 1500 \
	    eval 'JSON.stringify([window.arcKeep, scrollY, document.querySelector("input[name=text]").value, document.activeElement.name, document.querySelectorAll(".gone").length, document.querySelector("#cards > [data-key]:last-child").getAttribute("data-key"), document.querySelector("[data-key=q2] .title").textContent, document.getElementById("news").textContent, performance.getEntriesByType("navigation").length, Math.round(document.querySelector("input[name=text]").getBoundingClientRect().top) === window.arcTop])'
	[ "$status" -eq 0 ]
	! grep -q '^dialog:\|^csp:' <<<"$output" || false
	grep -qxF '400' <<<"$output"
	# a question added at the end and one settled above: not a pixel moves
	grep -qxF 'after two: 400' <<<"$output"
	# one above changed (and shrank): what the person is at stays put
	grep -qE '^\[7,[0-9]+,"half typed","text",1,"new1","Question 2, changed","A new question, after the others.",1,true\]$' <<<"$output"
}

@test "arc-web: Claude Code's \"Always allow\" shows the rule it adds under its button; the banner names the question and the choice taken" {
	serve
	setsid env --default-signal=INT,TERM,HUP "$HOOKS/claude-code-hook" \
	    <"$P/claude/permission-bash.json" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	hookpid=$!
	for i in $(seq 100); do arc-status --list | grep -q pending && break; sleep 0.05; done
	rule=$(arc-status --json --show "$(arc-status --list | cut -f1 | head -1)" |
	    jq -r '.interaction.choices[] | select(.id == "always") | .detail')
	[ -n "$rule" ]
	run browse "$URL/arc-web" ann:pw shot "$(shot always-allow)" text tap 'Always allow' text
	[ "$status" -eq 0 ]
	grep -qxF "$rule" <<<"$output"
	# (and the agent's receipt, once the hook has handed the decision over)
	grep -qE "^Answered\. “.*”: Always allow(; Claude Code took it [0-9]+ ms later)?$" <<<"$output"
	wait "$hookpid" || true
}

# as_host HOST [CURL OPTIONS]: the page through lighttpd, with the Host a
# rebound name sends (the connection still goes to 127.0.0.1:$PORT).
as_host() {
	local h=$1
	shift
	curl -s -H "Host: $h" -w '\n%{http_code}' "$@" "$URL/open/arc-web"
}

@test "arc-web: DNS rebinding in anonymous mode: without its origin set nothing is served; with it, another Host or Origin is refused, GET and POST; its own origin still works" {
	open_q deploy '.request.title = "Deploy SECRET-TITLE?"'
	ARC_WEB_ENV="ARC_WEB_ANONYMOUS=1" serve
	# anonymous mode and no origin: SERVER_NAME proves nothing, so nothing
	run as_host "127.0.0.1:$PORT"
	[[ $output == *'needs the page'"'"'s origin set'*500 ]]
	! grep -q -e 'name="token"' -e 'name="seen"' -e SECRET-TITLE <<<"$output" || false
	# the setting, beside the journal as the off-device one
	printf '# the address the phone uses\nhttp://127.0.0.1:%s\n' "$PORT" >"$BATS_TEST_TMPDIR/state/web-origin"
	run as_host "127.0.0.1:$PORT"
	grep -q SECRET-TITLE <<<"$output"
	tok=$(grep -o 'name="token" value="[0-9a-f]*"' <<<"$output" | head -1 | sed 's/.*value="//; s/"$//')
	s=$(grep -o 'name="seen" value="[0-9a-f]*"' <<<"$output" | head -1 | sed 's/.*value="//; s/"$//')
	[ -n "$tok" ]
	[ -n "$s" ]
	# a page on rebind.attacker.example, its name now resolving here
	evil="rebind.attacker.example:$PORT"
	run as_host "$evil"
	[[ $output == *"Not this page's address: refused"*403 ]]
	! grep -q -e 'name="token"' -e 'name="seen"' -e SECRET-TITLE -e "$tok" -e "$s" <<<"$output" || false
	run as_host "$evil" "$URL/open/arc-web?events" --max-time 5
	[[ $output == *403 ]]
	! grep -q '^data:' <<<"$output" || false
	run as_host "$evil" -H "Origin: http://$evil" \
	    --data "op=answer&key=deploy&seen=$s&token=$tok&choice=allow"
	[[ $output == *403 ]]
	# the right Host, but a form from the rebound page's origin
	run as_host "127.0.0.1:$PORT" -H "Origin: http://$evil" \
	    --data "op=answer&key=deploy&seen=$s&token=$tok&choice=allow"
	[[ $output == *403 ]]
	[ "$(status_of deploy)" = pending ]
	# a setting others may write is not one: nothing is served
	chmod 666 "$BATS_TEST_TMPDIR/state/web-origin"
	run as_host "127.0.0.1:$PORT"
	[[ $output == *'The web-origin setting is not one'*500 ]]
	chmod 644 "$BATS_TEST_TMPDIR/state/web-origin"
	# the page at its own origin answers
	run as_host "127.0.0.1:$PORT" -H "Origin: $URL" \
	    --data "op=answer&key=deploy&seen=$s&token=$tok&choice=allow"
	[[ $output == *303 ]]
	[ "$(status_of deploy)" = answered ]
}

@test "arc-web: form tokens expire (an hour or two) and arc-web --rotate makes every one drawn before worthless; a POST without Origin is the token alone, unless Sec-Fetch-Site says another site" {
	open_q deploy
	open_q other
	ARC_WEB_ENV="ARC_NOW=2030-01-01T00:10:00Z" serve
	old=$(token)
	kill "$(cat "$SRV/lighttpd.pid")"
	rm -f "$SRV/lighttpd.pid"
	# the next hour: the token still holds
	ARC_WEB_ENV="ARC_NOW=2030-01-01T01:50:00Z" serve
	[ "$(token)" != "$old" ]
	[[ "$(post "op=answer&key=other&seen=0123456789abcdef&token=$old&choice=allow")" =~ ^"303 /arc-web?said=changed"(&|$) ]]
	kill "$(cat "$SRV/lighttpd.pid")"
	rm -f "$SRV/lighttpd.pid"
	# three hours on: refused, whatever else the form holds
	ARC_WEB_ENV="ARC_NOW=2030-01-01T03:10:00Z" serve
	[ "$(post "op=answer&key=deploy&seen=$(seen)&token=$old&choice=allow")" = "403 " ]
	grep -q 'too old' "$BATS_TEST_TMPDIR/body"
	[ "$(status_of deploy)" = pending ]
	# rotation: the key is replaced (ours alone still), the tokens go
	tok=$(token)
	key0=$(od -An -tx1 "$BATS_TEST_TMPDIR/state/web.key")
	run arc-web --rotate
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/state/web.key")" = 600 ]
	[ "$(od -An -tx1 "$BATS_TEST_TMPDIR/state/web.key")" != "$key0" ]
	[ "$(post "op=answer&key=deploy&seen=$(seen)&token=$tok&choice=allow")" = "403 " ]
	[ "$(status_of deploy)" = pending ]
	# no Origin: the token alone; with Sec-Fetch-Site of another site, refused
	run curl -s -u ann:pw -o /dev/null -w '%{http_code}' -H 'Sec-Fetch-Site: same-site' \
	    --data "op=answer&key=deploy&seen=$(seen)&token=$(token)&choice=allow" "$URL/arc-web"
	[ "$output" = 403 ]
	run curl -s -u ann:pw -o /dev/null -w '%{http_code}' \
	    --data "op=answer&key=deploy&seen=$(seen)&token=0000&choice=allow" "$URL/arc-web"
	[ "$output" = 403 ]
	[ "$(status_of deploy)" = pending ]
	run curl -s -u ann:pw -o /dev/null -w '%{http_code}' \
	    --data "op=answer&key=deploy&seen=$(seen)&token=$(token)&choice=allow" "$URL/arc-web"
	[ "$output" = 303 ]
	[ "$(status_of deploy)" = answered ]
}

@test "arc-web: at most 4 event streams a user; a fifth closes the oldest, whose process ends" {
	serve
	lpid=$(cat "$SRV/lighttpd.pid")
	for i in 1 2 3 4; do
		curl -sN -u ann:pw "$URL/arc-web?events" >"$BATS_TEST_TMPDIR/s$i" &
		echo $! >"$BATS_TEST_TMPDIR/r$i"
		eventually grep -q '^data: ' "$BATS_TEST_TMPDIR/s$i"
	done
	[ "$(kin_of "$lpid" | wc -l)" -eq 4 ]
	# the fifth: the first stream ends (its reader sees the end), the
	# others go on
	curl -sN -u ann:pw "$URL/arc-web?events" >"$BATS_TEST_TMPDIR/s5" &
	echo $! >"$BATS_TEST_TMPDIR/r5"
	eventually grep -q '^data: ' "$BATS_TEST_TMPDIR/s5"
	wait "$(cat "$BATS_TEST_TMPDIR/r1")" || :
	for i in 2 3 4 5; do kill -0 "$(cat "$BATS_TEST_TMPDIR/r$i")"; done
	eventually eval '[ "$(kin_of "$lpid" | wc -l)" -eq 4 ]'
	# ten more, one after another: never more than four
	for i in $(seq 6 15); do
		curl -sN -u ann:pw "$URL/arc-web?events" >"$BATS_TEST_TMPDIR/s$i" &
		echo $! >"$BATS_TEST_TMPDIR/r$i"
		eventually grep -q '^data: ' "$BATS_TEST_TMPDIR/s$i"
		[ "$(kin_of "$lpid" | wc -l)" -le 5 ]
	done
	eventually eval '[ "$(kin_of "$lpid" | wc -l)" -eq 4 ]'
	for i in $(seq 1 15); do kill "$(cat "$BATS_TEST_TMPDIR/r$i")" 2>/dev/null || :; done
}

@test "arc-web narrows itself once it has read its settings (Landlock): the request may write in the journal's folder and nowhere else" {
	local outside=$BATS_TEST_TMPDIR/outside inside
	inside=$(dirname "$ARC_JOURNAL")/probe
	open_q deploy
	arc-web --rotate
	env REQUEST_METHOD=GET QUERY_STRING= REMOTE_USER=ann \
	    LD_PRELOAD="$BATS_TEST_DIRNAME/narrow/probe.so" \
	    ARC_PROBE_WRITE="$outside:$inside" "$ARC_BIN/arc-web" \
	    >"$BATS_TEST_TMPDIR/page" 2>"$BATS_TEST_TMPDIR/err"
	grep -q '^Status: 200\|^Content-Type: text/html' "$BATS_TEST_TMPDIR/page"
	grep -qx "probe: $outside: Permission denied" "$BATS_TEST_TMPDIR/err"
	grep -qx "probe: $inside: written" "$BATS_TEST_TMPDIR/err"
	[ ! -e "$outside" ]
	# a person at a shell (--rotate) is not narrowed
	LD_PRELOAD="$BATS_TEST_DIRNAME/narrow/probe.so" ARC_PROBE_WRITE="$outside" \
	    "$ARC_BIN/arc-web" --rotate 2>"$BATS_TEST_TMPDIR/err"
	grep -qx "probe: $outside: written" "$BATS_TEST_TMPDIR/err"
}

# The README's page of your own: examples/arc-web-lighttpd.conf as the
# person installs it, under the command examples/arc-web.service runs,
# as the person, on their usual journal.
@test "arc-web under a lighttpd of the person's own (the example unit and config): asks a password, serves nothing else, answers from their journal" {
	command -v openssl >/dev/null
	local home="$BATS_TEST_TMPDIR/home" port cmd k
	mkdir -p "$home/.config/arc"
	port=$(( 20000 + SRANDOM % 20000 ))
	sed "s|^server.port = 8631\$|server.port = $port|; s|\"/usr/local/lib/arc/arc-web\"|\"$ARC_BIN/arc-web\"|" \
	    "$HOOKS/arc-web-lighttpd.conf" >"$home/.config/arc/lighttpd.conf"
	grep -q "^server.port = $port\$" "$home/.config/arc/lighttpd.conf"
	printf '%s:%s\n' ann "$(openssl passwd -6 pw)" >"$home/.config/arc/htpasswd"
	chmod 600 "$home/.config/arc/htpasswd"
	cmd=$(sed -n 's/^ExecStart=//p' "$HOOKS/arc-web.service")
	[[ "$cmd" == "/usr/sbin/lighttpd -D -f %h/.config/arc/lighttpd.conf" ]]
	# the person's own environment: their HOME, no ARC_JOURNAL
	unset ARC_JOURNAL
	export HOME=$home
	open_q deploy '.request.title = "Deploy devbox?"'
	[ -f "$home/.local/state/arc/journal" ]
	in_session lighttpd ${cmd//%h/$home}
	URL="http://127.0.0.1:$port"
	soon curl -s -o /dev/null "$URL/arc?css"
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/arc")" = 401 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' -u ann:wrong "$URL/arc")" = 401 ]
	# nothing but the page: not the password file, not the config
	for k in /htpasswd /lighttpd.conf /.config/arc/htpasswd / /arcx /arc/x /arc/../htpasswd; do
		[ "$(curl -s --path-as-is -o /dev/null -w '%{http_code}' -u ann:pw "$URL$k")" = 403 ] ||
		    { echo "$k served"; return 1; }
	done
	curl -sf -u ann:pw "$URL/arc" >"$BATS_TEST_TMPDIR/page"
	grep -q 'Deploy devbox?' "$BATS_TEST_TMPDIR/page"
	local tok seen
	tok=$(grep -o 'name="token" value="[0-9a-f]*"' "$BATS_TEST_TMPDIR/page" | head -1 | sed 's/.*value="//; s/"$//')
	seen=$(grep -o 'name="seen" value="[0-9a-f]*"' "$BATS_TEST_TMPDIR/page" | head -1 | sed 's/.*value="//; s/"$//')
	[ "$(curl -s -u ann:pw -o /dev/null -w '%{http_code}' -H "Origin: $URL" \
	    --data "op=answer&key=deploy&seen=$seen&token=$tok&choice=allow" "$URL/arc")" = 303 ]
	run arc-wait -t 0 deploy
	[ "$status" -eq 0 ]
	[ "$(jq -r '[.status, .response.choice_id // .response.choice, .response.source, .response.device_id] | join(" ")' <<<"$output")" = "answered allow web ann" ] || { echo "$output"; false; }
	[ "$(stat -c %U "$home/.local/state/arc/journal")" = "$(id -un)" ]
}

@test "arc-web on a phone: the open questions first; under a heading, the notices with their age and the questions no longer open, each saying what became of it" {
	ARC_NOW=2026-08-26T01:15:00Z arc-apply >/dev/null <<<"$(information note; created gone
	    created open '.request.response.expires_at = "2099-01-01T00:00:00Z"')"
	ARC_WEB_ENV="ARC_NOW=2026-08-26T02:10:00Z" serve
	run page
	[ "$status" -eq 0 ]
	[ "$(grep -oE ' data-key="[a-z]+"|<h2 id="notices">Notices</h2>' <<<"$output" | tr -d '\n')" = \
	    ' data-key="open"<h2 id="notices">Notices</h2> data-key="gone" data-key="note"' ]
	# the question that expired says so, and offers no answer
	grep -q '<form class="n ended" method="post" data-key="gone" ' <<<"$output"
	grep -qF '<div class="state">expired 10 minutes ago</div>' <<<"$output"
	[ "$(grep -o 'name="choice"' <<<"$output" | wc -l)" -eq 2 ]	# open's two
	# a notice says it is one, and how old
	grep -qF '<div class="state">a notice, updated 55 minutes ago</div>' <<<"$output"
	grep -q '<h1>1 question waiting</h1>' <<<"$output"
}

@test "arc-web without a login (no REMOTE_USER): the page says at once that it only shows, and offers no button that cannot work" {
	open_q deploy
	information note | arc-apply >/dev/null
	serve
	run curl -sf "$URL/open/arc-web"
	[ "$status" -eq 0 ]
	grep -q '<p class="say" id="nologin">This page only shows: the web server names no user (REMOTE_USER)' <<<"$output"
	! grep -q '<button\|<form' <<<"$output" || false
	grep -q 'No answer from this page: it has no login' <<<"$output"
	grep -q 'class="title">.*</div>' <<<"$output"
	# with the login, the same question has its buttons and no such words
	run page
	grep -q 'name="choice" value="allow"' <<<"$output"
	! grep -q 'nologin' <<<"$output" || false
}

@test "arc-web: with JavaScript on, a new question goes after the open ones, above the notices; a new notice at the end" {
	open_q first '.request.title = "First"'
	information note | arc-apply >/dev/null
	serve
	run browse "$URL/arc-web" ann:pw \
	    run "arc-emit --key second --kind permission --title Second --message 'May I?' --choice allow:Allow --choice deny:Deny --expires-in 1h | arc-apply -q >/dev/null" \
	    wait 1500 \
	    run "arc-emit --key later --kind information --message 'Build green' | arc-apply -q >/dev/null" \
	    wait 1500 \
	    eval 'Array.prototype.map.call(document.querySelectorAll("#cards > [data-key], #cards > h2"), function (e) { return e.getAttribute("data-key") || e.textContent; }).join(" ") + " | " + document.getElementById("news").textContent'
	[ "$status" -eq 0 ]
	! grep -q '^dialog:\|^csp:' <<<"$output" || false
	grep -qxF 'first second Notices note later | A new question, after the others.' <<<"$output"
}
