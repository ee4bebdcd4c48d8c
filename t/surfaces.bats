#!/usr/bin/env bats
# Every surface shows the whole question (issue 26, "What to build" 2):
# one question with a title, a long message, choices with details (Claude
# Code's "Always allow" and the rule it adds), non-ASCII where the old
# byte cuts fell (the message's 2000th byte, a label's 80th) and hostile
# controls (ESC, OSC 52, bidi overrides and isolates, zero-width), shown
# by each surface driven for real: the picker in a real tmux pane, the
# desktop's Notify call to dunst on a private bus (dbus-monitor), the page
# in headless Chromium behind lighttpd, the exec sink's standard input and
# the stream of arc-status --follow.  Each shows every field the digest
# covers (title, message, each choice's label and detail), escaped by one
# rule, stated here on its own (W_*), not taken from our output; or, under
# the off-device setting, offers no answer and says why.
load helper

setup_file() { needs tmux Xvfb dbus-daemon dunst dunstctl dbus-monitor gdbus lighttpd chromium node curl jq; }

S() { echo "$BATS_TEST_TMPDIR/s"; }

setup() {
	arc_setup
	export TZ=UTC XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/config"
	mkdir -p "$(S)" "$XDG_CONFIG_HOME/arc" "$BATS_TEST_TMPDIR/state"
	chmod 700 "$(S)"
	unset TMUX TMUX_PANE ARC_WEB_ENV
	SRV="$BATS_TEST_TMPDIR/srv"
}

teardown() {
	stop_sessions "$(S)"
	[ ! -f "$SRV/lighttpd.pid" ] || kill "$(cat "$SRV/lighttpd.pid")" 2>/dev/null || true
	tmux -L "surfaces-$$-$BATS_TEST_NUMBER" kill-server 2>/dev/null || true
	arc_teardown
}

# surf_session NAME CMD...: CMD in a session of its own, stopped by teardown.
surf_session() { session "$(S)" "$@"; }

# ---- the question, and what the one rule shows of it ----

# 1999 bytes of words, so that the old cut (2000 bytes) fell inside é.
HEAD="Step $(printf 'ab %.0s' $(seq 664))xy"
TITLE=$'Deploy caf\xc3\xa9 \xe2\x80\xaetxt.exe\x1b[2J'
MESSAGE="${HEAD}"$'\xc3\xa9 zero\xe2\x80\x8bwidth \xe2\x81\xa6iso\xe2\x81\xa9 \x1b]52;c;bGVha2Vk\x07 END'
RULE='Bash(npm run deploy:*) in this project, for you'
# a label whose 80th byte falls inside ü; a detail with controls
LONG_LABEL="$(printf 'l%.0s' $(seq 79))"$'\xc3\xbc\xe2\x80\xaetail'
LONG_DETAIL=$'Stra\xc3\x9fe \x1b[31mred\x1b[0m \xe2\x80\x8bend'
# The same as every surface must show them: each control, bidi and
# invisible character as the terminal writes it (\x1b, \u202e), the rest
# (é, ü, ß) as it is.
W_TITLE='Deploy café \u202etxt.exe\x1b[2J'
W_MESSAGE="${HEAD}"'é zero\u200bwidth \u2066iso\u2069 \x1b]52;c;bGVha2Vk\x07 END'
W_LONG_LABEL="$(printf 'l%.0s' $(seq 79))"'ü\u202etail'
W_LONG_DETAIL='Straße \x1b[31mred\x1b[0m \u200bend'
W_LABELS=('Yes' 'Always allow' "$W_LONG_LABEL" 'No')
W_DETAILS=('' "$RULE" "$W_LONG_DETAIL" '')

ask_whole() { # [arc-emit options]
	arc-emit --key deploy --kind permission --title "$TITLE" --message "$MESSAGE" \
	    --sender-name claude --sender-id acme-payroll-agent --project payroll \
	    --choice allow:Yes \
	    --choice 'always:Always allow:Bash(npm run deploy\:*) in this project, for you' \
	    --choice "long:${LONG_LABEL}:${LONG_DETAIL}" --choice deny:No \
	    --expires-in 1h "$@" | arc-apply -q >/dev/null
}

# lacks GREP-ARGS...: grep finds nothing (a negation set -e would not
# see in the middle of a test).
lacks() { if grep -q "$@"; then echo "holds what it must not"; return 1; fi; }

# flat: text with every run of blanks and line breaks one space, so that a
# surface's own wrapping of a long line is not taken for a change of it.
flat() { tr -s ' \n\t' '   '; }

# shows_all FILE [ESCAPE]: FILE holds the title, the message and every
# choice's label and detail as the rule shows them (ESCAPE html: with &,
# <, > as entities, as markup carries them).
shows_all() {
	local f=$1 want i
	local all=("$W_TITLE" "$W_MESSAGE" "${W_LABELS[@]}" "${W_DETAILS[@]}")
	flat <"$f" >"$f.flat"
	for want in "${all[@]}"; do
		[ -n "$want" ] || continue
		[ "${2:-}" != html ] || want=$(sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g' <<<"$want")
		want=$(flat <<<"$want" | sed 's/ $//')
		grep -qF -- "$want" "$f.flat" || { echo "not shown: $want"; return 1; }
	done
	# nothing raw: no ESC, no bidi override, no zero-width space
	lacks $'\x1b' "$f" || return 1
	lacks $'\xe2\x80\xae' "$f" || return 1
	lacks $'\xe2\x80\x8b' "$f" || return 1
	# and every text valid UTF-8: nothing cut inside a character
	iconv -f UTF-8 -t UTF-8 "$f" >/dev/null
}

# view_is JSON: a view (arcview.c, as the stream and the exec sink carry
# it) holds every field exactly as the rule shows it, and can be answered.
view_is() {
	local v=$1 i
	[ "$(jq -r .title <<<"$v")" = "$W_TITLE" ]
	[ "$(jq -r .message <<<"$v")" = "$W_MESSAGE" ]
	[ "$(jq -r '.question.choices | length' <<<"$v")" -eq 4 ]
	for i in 0 1 2 3; do
		[ "$(jq -r ".question.choices[$i].label" <<<"$v")" = "${W_LABELS[$i]}" ]
		[ "$(jq -r ".question.choices[$i].detail // \"\"" <<<"$v")" = "${W_DETAILS[$i]}" ]
	done
	[ "$(jq -r .question.answerable <<<"$v")" = true ]
}

# withheld JSON LEVEL: the view of a question whose text stays on the
# host: no message, no tag, no choice (an "Always allow" detail holds the
# rule made from the command), and it says it cannot be answered.
withheld() {
	local v=$1
	[ "$(jq -r .message <<<"$v")" = null ]
	[ "$(jq -r '.question.choices | length' <<<"$v")" -eq 0 ]
	[ "$(jq -r .question.withheld <<<"$v")" = true ]
	[ "$(jq -r .question.answerable <<<"$v")" = false ]
	[ "$(jq -r .question.tag <<<"$v")" = "" ]
}

# ---- the stream ----

@test "surfaces: the stream (arc-status --follow) carries the whole question in its view; --off-device under no-message and title-only offers no answer and says so" {
	ask_whole
	timeout 2 arc-status --follow >"$(S)/follow" || true
	v=$(jq -c 'select(.key == "deploy") | .view' "$(S)/follow")
	view_is "$v"
	jq -r 'select(.key == "deploy") | .view | .title, .message, (.question.choices[] | .label, .detail // empty)' \
	    "$(S)/follow" >"$(S)/shown"
	shows_all "$(S)/shown"
	for level in no-message title-only; do
		ARC_OFF_DEVICE=$level timeout 2 arc-status --follow --off-device >"$(S)/off" || true
		v=$(jq -c 'select(.key == "deploy") | .view' "$(S)/off")
		[ "$(jq -r .title <<<"$v")" = "$W_TITLE" ]
		withheld "$v" "$level"
		[ "$(jq -r 'select(.key == "deploy") | .interaction' "$(S)/off")" = null ]
		lacks -F 'zero' "$(S)/off"
		lacks -F "$RULE" "$(S)/off"
	done
}

# ---- the exec sink ----

@test "surfaces: the exec sink's standard input is the whole question's view; under no-message it is withheld, with no answer" {
	unset DBUS_SESSION_BUS_ADDRESS
	printf '%s\n' "notify exec question run cat >>$(S)/got" 'ignore tmux' \
	    >"$XDG_CONFIG_HOME/arc/notify.conf"
	surf_session notify arc-notify
	ask_whole
	eventually test -s "$(S)/got"
	v=$(head -1 "$(S)/got" | jq -c .view)
	view_is "$v"
	jq -r '.view | .title, .message, (.question.choices[] | .label, .detail // empty)' \
	    "$(S)/got" >"$(S)/shown"
	shows_all "$(S)/shown"
	kill -TERM -- "-$(cat "$(S)/notify.pid")"
	ends_within 20 "$(cat "$(S)/notify.pid")"
	rm "$(S)/notify.pid" "$(S)/got"
	echo no-message >"$BATS_TEST_TMPDIR/state/off-device"
	# (a restart does not send again what went out: the question asked anew)
	arc-emit --type resolved --key deploy --outcome cancelled | arc-apply -q >/dev/null
	surf_session notify arc-notify
	ask_whole
	eventually test -s "$(S)/got"
	v=$(head -1 "$(S)/got" | jq -c .view)
	[ "$(jq -r .title <<<"$v")" = "$W_TITLE" ]
	withheld "$v" no-message
	lacks -F 'zero' "$(S)/got"
	lacks -F "$RULE" "$(S)/got"
}

# ---- the desktop ----

start_desktop() {
	exec 4>"$(S)/display"
	Xvfb -displayfd 4 -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 3>&- &
	echo $! >"$(S)/xvfb.pid"
	exec 4>&-
	eventually test -s "$(S)/display"
	export DISPLAY=":$(cat "$(S)/display")"
	cat >"$(S)/bus.conf" <<-EOF
	<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
	 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
	<busconfig><type>session</type><listen>unix:path=$(S)/bus</listen>
	<auth>EXTERNAL</auth><policy context="default">
	<allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
	</policy></busconfig>
	EOF
	dbus-daemon --config-file="$(S)/bus.conf" --nofork --nopidfile >/dev/null 2>&1 3>&- &
	echo $! >"$(S)/dbus.pid"
	eventually test -S "$(S)/bus"
	export DBUS_SESSION_BUS_ADDRESS="unix:path=$(S)/bus"
	printf '[global]\n    markup = full\n' >"$(S)/dunstrc"
	dunst -config "$(S)/dunstrc" >"$(S)/dunst.log" 2>&1 3>&- &
	echo $! >"$(S)/dunst.pid"
	eventually gdbus call --session -d org.freedesktop.Notifications \
	    -o /org/freedesktop/Notifications \
	    -m org.freedesktop.Notifications.GetServerInformation
	dbus-monitor --session "type='method_call',interface='org.freedesktop.Notifications',member='Notify'" \
	    >"$(S)/bus.log" 2>&1 3>&- &
	echo $! >"$(S)/monitor.pid"
	sleep 0.2
}

displayed() { [ "$(dunstctl count displayed 2>/dev/null || echo 0)" -ge 1 ]; }

@test "surfaces: the desktop: dunst's Notify call carries the title and what of the message fits, says how much does not, and offers only No (arc-hooks(7))" {
	start_desktop
	printf '%s\n' 'notify desktop question' 'ignore tmux' >"$XDG_CONFIG_HOME/arc/notify.conf"
	surf_session notify arc-notify
	ask_whole
	eventually grep -q 'member=Notify$' "$(S)/bus.log"
	eventually grep -qF 'not shown here' "$(S)/bus.log"
	sleep 0.3
	# the call as the bus carried it: the title, the message's first 600
	# characters (all of them in its ASCII head), and how much is not shown
	awk '/member=Notify$/{n++} n == 1' "$(S)/bus.log" | flat >"$(S)/call"
	grep -qF "$W_TITLE" "$(S)/call"
	grep -qF "${HEAD:0:600}" "$(S)/call"
	lacks -F "${HEAD:0:601}" "$(S)/call"
	lacks -F ' END' "$(S)/call"
	grep -qE '⟨[0-9]+ of [0-9]+ characters not shown here: open it in the terminal \(arc-answer\) or on the page to allow it⟩' "$(S)/call"
	# a button for No alone, the choice that refuses; none that allows
	grep -qF 'string "No"' "$(S)/call"
	for label in Yes 'Always allow' "$W_LONG_LABEL"; do
		lacks -F "string \"$label\"" "$(S)/call"
	done
	[ "$(grep -oE 'string "[0-9a-f]+/[1-4]"' "$(S)/call" | wc -l)" -eq 1 ]
	grep -qE 'string "[0-9a-f]+/4"' "$(S)/call"
	# dunst took it (no refusal: nothing cut inside a character)
	eventually displayed
	lacks 'desktop' "$(S)/notify.err"
}

# ---- the page (t/web/serve and t/web/browse.mjs, as t/web.bats) ----

page_serve() { PORT=$("$BATS_TEST_DIRNAME/web/serve" "$SRV" "$ARC_JOURNAL"); URL="http://127.0.0.1:$PORT"; }
page_browse() { TMPDIR="$BATS_TEST_TMPDIR" node "$BATS_TEST_DIRNAME/web/browse.mjs" "$@"; }

@test "surfaces: the page in Chromium shows the title, the message and every choice with its detail, and a button for each; under no-message and title-only, no button, and why" {
	ask_whole
	page_serve
	run page_browse "$URL/arc-web" ann:pw text
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$(S)/page"
	shows_all "$(S)/page"
	curl -sf -u ann:pw "$URL/arc-web" >"$(S)/html"
	[ "$(grep -o 'name="choice"' "$(S)/html" | wc -l)" -eq 4 ]
	for level in no-message title-only; do
		echo "$level" >"$BATS_TEST_TMPDIR/state/off-device"
		run page_browse "$URL/arc-web" ann:pw text
		[ "$status" -eq 0 ]
		grep -qF "$W_TITLE" <<<"$output"
		grep -qF 'Its text stays on its host (off-device setting): answer it there' <<<"$output"
		lacks -F 'zero' <<<"$output"
		lacks -F "$RULE" <<<"$output"
		curl -sf -u ann:pw "$URL/arc-web" >"$(S)/html"
		lacks 'name="choice"' "$(S)/html"
	done
}

# ---- the picker ----

@test "surfaces: the picker in a real tmux pane shows the title, the message and every choice with its detail" {
	local sock="surfaces-$$-$BATS_TEST_NUMBER"
	tmux -L "$sock" -f /dev/null new-session -d -x 120 -y 80 \
	    "env LANG=C.UTF-8 PS1='$ ' bash --norc --noprofile"
	ask_whole
	tmux -L "$sock" send-keys -l 'arc-answer'
	tmux -L "$sock" send-keys Enter
	eventually eval "tmux -L '$sock' capture-pane -p -J -S - | grep -q 'Pick 1'"
	tmux -L "$sock" send-keys Enter
	eventually eval "tmux -L '$sock' capture-pane -p -J -S - | grep -q 'Answer 1-4'"
	tmux -L "$sock" capture-pane -p -J -S - >"$(S)/pane"
	# the prompt's lines are its own: the message's "  | " marks joined
	sed 's/^  | //' "$(S)/pane" >"$(S)/shown"
	shows_all "$(S)/shown"
	tmux -L "$sock" send-keys C-d
}
