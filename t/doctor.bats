#!/usr/bin/env bats
# arc-doctor(1): a line per piece, ok, FAIL or --, and exit 1 when a line
# is a FAIL.  Each piece is set up wrong as a person gets it wrong (the
# issue's rows: hooks that name an arc-hook not there, the page's user,
# a typo'd journal, the MQTT bridge with no broker), then put right.
load helper

setup() {
	arc_setup
	export HOME="$BATS_TEST_TMPDIR/home" XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/home/.config"
	unset XDG_STATE_HOME DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR TMUX
	export TMUX_TMPDIR="$BATS_TEST_TMPDIR/tmux"
	mkdir -p "$HOME" "$TMUX_TMPDIR" "$(dirname "$ARC_JOURNAL")"
}

teardown() {
	tmux kill-server 2>/dev/null || true
	[ -z "${notifier:-}" ] || { kill "$notifier" 2>/dev/null; ends_within 20 "$notifier" || true; }
	[ -z "${doctor:-}" ] || { kill "$doctor" 2>/dev/null; ends_within 20 "$doctor" || true; }
	arc_teardown
}

# the doctor's line about AREA: its mark and words
line_of() { grep -E "^[a-zA-Z-]+ +$1 " <<<"$output"; }
marked() { # AREA MARK
	[[ "$(line_of "$1")" == "$2 "* ]] || { echo "the $1 line: $(line_of "$1")"; return 1; }
}

@test "nothing set up: every line --, exit 0; a journal named but not there is a FAIL (a typo'd -j, or ARC_JOURNAL)" {
	j=$ARC_JOURNAL
	unset ARC_JOURNAL
	run arc-doctor
	[ "$status" -eq 0 ]
	marked journal --
	for h in claude-code codex gemini copilot tmux desktop notify mqtt; do marked "$h" --; done
	[[ "$(line_of claude-code)" == *"arc-hook --install claude-code"* ]]
	run arc-doctor -j "$BATS_TEST_TMPDIR/stat/journal"
	[ "$status" -eq 1 ]
	marked journal FAIL
	[[ "$(line_of journal)" == *"$BATS_TEST_TMPDIR/stat/journal: no such folder; a typo?"* ]]
	ARC_JOURNAL="$BATS_TEST_TMPDIR/stat/journal" run arc-doctor
	[ "$status" -eq 1 ]
	# a journal that is there: ok, with what is open
	export ARC_JOURNAL=$j
	arc-emit --key k --kind question --message Which? --choice a:A --choice b:B | arc-apply >/dev/null
	run arc-doctor
	marked journal ok
	[[ "$(line_of journal)" == *"$ARC_JOURNAL: 1 open"* ]]
}

@test "hooks that run an arc-hook that is not there are a FAIL; arc-hook --install puts them right" {
	mkdir -p "$HOME/.claude"
	arc-hook --install claude-code --prefix /opt/gone >/dev/null
	run arc-doctor
	[ "$status" -eq 1 ]
	marked claude-code FAIL
	[[ "$(line_of claude-code)" == *"runs /opt/gone/bin/arc-hook, which is not there"* ]]
	arc-hook --install claude-code >/dev/null
	run arc-doctor
	[ "$status" -eq 0 ]
	marked claude-code ok
	[[ "$(line_of claude-code)" == *"10 hooks, running $(readlink -f "$ARC_BIN")/arc-hook"* ]]
	# hooks that write to another journal
	jq '.hooks.Stop[0].hooks[0].command |= "ARC_JOURNAL=/elsewhere/journal " + .' \
	    "$HOME/.claude/settings.json" >"$BATS_TEST_TMPDIR/s" && mv "$BATS_TEST_TMPDIR/s" "$HOME/.claude/settings.json"
	run arc-doctor
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL  claude-code its hooks write to /elsewhere/journal, not to $ARC_JOURNAL"* ]]
	# a person's own hook that sets ARC_JOURNAL says nothing of arc's
	arc-hook --install claude-code >/dev/null
	jq '.hooks.Stop = [{"hooks": [{"type": "command", "command": "ARC_JOURNAL=/elsewhere/journal my-own"}]}] + .hooks.Stop' \
	    "$HOME/.claude/settings.json" >"$BATS_TEST_TMPDIR/s" && mv "$BATS_TEST_TMPDIR/s" "$HOME/.claude/settings.json"
	run arc-doctor
	[ "$status" -eq 0 ]
	marked claude-code ok
}

@test "--web-user: the page run as another user cannot use your journal, a FAIL; as you, ok" {
	me=$(id -un)
	other=$( [ "$me" = root ] && echo nobody || echo root )
	run arc-doctor --web-user "$other"
	[ "$status" -eq 1 ]
	marked web FAIL
	[[ "$(line_of web)" == *"arc-web run as $other cannot use $ARC_JOURNAL"* ]]
	run arc-doctor --web-user "$me"
	marked web ok
	run arc-doctor --web-user no-such-user-here
	marked web FAIL
}

@test "the MQTT bridge set up with no broker's options is a FAIL; with them, ok; not set up, --" {
	mkdir -p "$XDG_CONFIG_HOME/systemd/user"
	cp "$BATS_TEST_DIRNAME/../examples/arc-mqtt-agent.service" "$XDG_CONFIG_HOME/systemd/user/"
	run arc-doctor
	[ "$status" -eq 1 ]
	marked mqtt FAIL
	[[ "$(line_of mqtt)" == *"$XDG_CONFIG_HOME/mosquitto_pub is missing or empty"* ]]
	printf -- '-h broker.example\n' >"$XDG_CONFIG_HOME/mosquitto_pub"
	printf -- '-h broker.example\n' >"$XDG_CONFIG_HOME/mosquitto_sub"
	run arc-doctor
	marked mqtt ok
	rm "$XDG_CONFIG_HOME/systemd/user/arc-mqtt-agent.service" "$XDG_CONFIG_HOME/mosquitto_sub"
	run arc-doctor
	marked mqtt --
}

@test "tmux: a status line that reads another journal is a FAIL; the server's ARC_JOURNAL set to this one, ok" {
	# a server started where ARC_JOURNAL was not set
	env -u ARC_JOURNAL tmux -f /dev/null new-session -d -s main
	run arc-doctor
	marked tmux --
	tmux set -g status-right '#(arc-status)'
	run arc-doctor
	[ "$status" -eq 1 ]
	marked tmux FAIL
	[[ "$(line_of tmux)" == *"reads $HOME/.local/state/arc/journal, not $ARC_JOURNAL"* ]]
	tmux set-environment -g ARC_JOURNAL "$ARC_JOURNAL"
	run arc-doctor
	marked tmux ok
}

# doctor_says LINE: arc-doctor prints LINE, whole.
doctor_says() { arc-doctor 2>/dev/null | grep -qxF "$1"; }

@test "arc-notify on another journal is a FAIL naming it; on this one, ok" {
	mkdir -p "$XDG_CONFIG_HOME/arc"
	printf '%s\n' 'notify exec question run cat >/dev/null' 'ignore tmux' >"$XDG_CONFIG_HOME/arc/notify.conf"
	# (the program itself, not the suite's wrapper: its pid is the one)
	mkdir -m 700 "$BATS_TEST_TMPDIR/other"
	"$ARC_BIN/arc-notify" -j "$BATS_TEST_TMPDIR/other/journal" 2>/dev/null &
	notifier=$!
	# (one line for each arc-notify of this user: the one started here)
	eventually doctor_says "FAIL  notify      arc-notify (pid $notifier) reads $BATS_TEST_TMPDIR/other/journal, not $ARC_JOURNAL"
	run arc-doctor
	[ "$status" -eq 1 ]
	kill "$notifier"
	ends_within 20 "$notifier"
	"$ARC_BIN/arc-notify" 2>/dev/null &
	notifier=$!
	eventually [ -e /proc/"$notifier" ]
	run arc-doctor
	grep -qxF "ok    notify      arc-notify (pid $notifier) reads this journal" <<<"$output"
}

# the doctor's question, open in the journal: its key
doctors_key() { arc-status --list | awk -F'\t' '$1 ~ /^arc-doctor:/ { print $1 }'; }
# (a function, so that eventually looks again each time)
doctor_asks() { [ -n "$(doctors_key)" ]; }

@test "--ask: a question end to end, answered where it reached the person; said with the time and the answer's source, then gone" {
	"$ARC_BIN/arc-doctor" --ask >"$BATS_TEST_TMPDIR/out" 2>&1 &
	doctor=$!
	eventually doctor_asks
	key=$(doctors_key)
	[ "$key" = "arc-doctor:$doctor" ]
	[[ "$(arc-status --show "$key")" == *"Can you see this?"* ]]
	arc-answer --source phone "$key" seen >/dev/null
	ends_within 20 "$doctor"
	doctor=
	# (its status says whether any line failed: arc-notify's, say)
	grep -qE '^ok +ask +answered in [0-9]+ s, through phone$' "$BATS_TEST_TMPDIR/out"
	[ -z "$(arc-status --list)" ]
	# stopped while it waits: the question is withdrawn, and it is a FAIL
	"$ARC_BIN/arc-doctor" --ask >"$BATS_TEST_TMPDIR/out" 2>&1 &
	doctor=$!
	eventually doctor_asks
	kill -TERM "$doctor"
	ends_within 20 "$doctor"
	doctor=
	grep -q '^FAIL  ask ' "$BATS_TEST_TMPDIR/out"
	[ -z "$(arc-status --list)" ]
}
