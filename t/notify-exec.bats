#!/usr/bin/env bats
# arc-notify's exec sink, with no session bus at all: a rule set without a
# desktop rule never connects to one.  The command is the rest of its line
# byte for byte; its standard input is the view a person is shown, within
# the off-device setting; a failed delivery is tried again, a bounded
# number of times, and shows in arc-status --show and --list.
load helper

E() { echo "$BATS_TEST_TMPDIR/e"; }

setup() {
	arc_setup
	export XDG_CONFIG_HOME="$BATS_TEST_TMPDIR/config" TZ=UTC
	mkdir -p "$(E)" "$XDG_CONFIG_HOME/arc" "$BATS_TEST_TMPDIR/state"
	# no bus: neither an address nor a runtime folder to find one in
	unset DBUS_SESSION_BUS_ADDRESS TMUX TMUX_PANE
	export XDG_RUNTIME_DIR="$BATS_TEST_TMPDIR/run"
	mkdir -p -m 700 "$XDG_RUNTIME_DIR"
}

teardown() {
	stop_sessions "$(E)"
	arc_teardown
}

exec_start() { session "$(E)" "$@"; } # NAME COMMAND...

exec_conf() { printf '%s\n' "$@" >"$XDG_CONFIG_HOME/arc/notify.conf"; }

exec_ask() { # KEY [arc-emit options]
	local key=$1
	shift
	arc-emit --key "$key" --kind permission --title "Deploy?" \
	    --message $'$ npm run deploy\nthen \xe2\x80\xaedone' --sender-name claude \
	    --sender-id acme-payroll-agent --project payroll --choice allow:Allow \
	    --choice 'always:Always allow:Bash(npm run deploy\:*) in this project, for you' \
	    --choice deny:Deny --expires-in 1h "$@" | arc-apply -q >/dev/null
}

exec_alive() { kill -0 "$(cat "$(E)/$1.pid")" 2>/dev/null; }

@test "exec only: arc-notify runs with no session bus, and the command gets the view: title, message, every choice with its detail, escaped" {
	exec_conf "notify exec question run cat >>$(E)/got" 'ignore tmux'
	exec_start notify arc-notify
	exec_ask k
	eventually test -s "$(E)/got"
	exec_alive notify
	line=$(head -1 "$(E)/got")
	[ "$(jq -r .change <<<"$line")" = deliver ]
	[ "$(jq -r .view.title <<<"$line")" = 'Deploy?' ]
	[ "$(jq -r .view.message <<<"$line")" = $'$ npm run deploy\n> then \\u202edone' ]
	[ "$(jq -r '.view.question.choices | map(.id + "=" + .label + "=" + (.detail // "")) | join("|")' <<<"$line")" = \
	    'allow=Allow=|always=Always allow=Bash(npm run deploy:*) in this project, for you|deny=Deny=' ]
	[ "$(jq -r '.view.agent + " " + .view.project' <<<"$line")" = 'claude payroll' ]
	[ "$(jq -r .view.question.answerable <<<"$line")" = true ]
	# never a nonce or a digest
	! grep -qE '"(nonce|digest)"' "$(E)/got" || false
	for s in $(grep -aoE '"(nonce|digest)":"[A-Za-z0-9_-]+"' "$ARC_JOURNAL" | sed 's/.*:"//; s/"$//'); do
		! grep -qF -- "$s" "$(E)/got" || false
	done
}

@test "exec: the off-device setting applies: no-message sends no message and withholds the question; title-only not who asks nor the choices" {
	exec_conf "notify exec question run cat >>$(E)/got" 'ignore tmux'
	echo no-message >"$BATS_TEST_TMPDIR/state/off-device"
	exec_start notify arc-notify
	exec_ask k1
	eventually test -s "$(E)/got"
	line=$(head -1 "$(E)/got")
	[ "$(jq -r .view.message <<<"$line")" = null ]
	[ "$(jq -r .view.question.withheld <<<"$line")" = true ]
	[ "$(jq -r .view.question.answerable <<<"$line")" = false ]
	! grep -q 'npm run deploy' "$(E)/got" || false
	kill -TERM -- "-$(cat "$(E)/notify.pid")"; ends_within 20 "$(cat "$(E)/notify.pid")"
	rm "$(E)/notify.pid" "$(E)/got"
	echo title-only >"$BATS_TEST_TMPDIR/state/off-device"
	exec_start notify arc-notify
	# (k1 went out before the restart: not again; a new question does)
	exec_ask k2
	eventually test -s "$(E)/got"
	[ "$(jq -r .key "$(E)/got")" = k2 ]
	line=$(head -1 "$(E)/got")
	[ "$(jq -r .view.title <<<"$line")" = 'Deploy?' ]
	[ "$(jq -r '[.view.agent, .view.agent_id, .view.project, .view.message] | map(tostring) | join(",")' <<<"$line")" = null,null,null,null ]
	[ "$(jq -r '.view.question.choices | length' <<<"$line")" = 0 ]
	! grep -qE 'acme-payroll-agent|payroll|claude|Always' "$(E)/got" || false
}

@test "exec: the run command is the rest of the line byte for byte: quotes, runs of blanks and # reach sh -c as written" {
	exec_conf "notify exec question run printf '%s|' \"a  b\"   'c#d' \"\$(printf x)\" >>$(E)/got" 'ignore tmux'
	run arc-notify -n
	[ "$status" -eq 0 ]
	grep -qF "run printf '%s|' \"a  b\"   'c#d' \"\$(printf x)\" >>$(E)/got" <<<"$output"
	exec_start notify arc-notify
	exec_ask k
	eventually test -s "$(E)/got"
	[ "$(cat "$(E)/got")" = 'a  b|c#d|x|' ]
}

@test "exec: the one-line ntfy recipe of arc-notify(1), pasted as it is, delivers to a push server (a local stand-in)" {
	recipe=$(mandoc -Tascii "$BATS_TEST_DIRNAME/../man/arc-notify.1" | col -bx |
	    grep -E '^ *notify exec question run m=' | sed 's/^ *//')
	[ -n "$recipe" ]
	exec_start receiver "$BATS_TEST_DIRNAME/web/receiver" "$(E)/pushed" "$(E)/rport"
	eventually test -s "$(E)/rport"
	exec_conf "${recipe//ntfy.sh\/my-arc/http://127.0.0.1:$(cat "$(E)/rport")/my-arc}" 'ignore tmux'
	exec_start notify arc-notify
	exec_ask k
	eventually test -s "$(E)/pushed"
	[ "$(jq -r '[.method, .path, .headers.Priority, .headers.Tags] | join("|")' "$(E)/pushed")" = 'POST|/my-arc|4|robot' ]
	[ "$(jq -r .body "$(E)/pushed")" = $'Deploy?: $ npm run deploy\n> then \\u202edone' ]
	# taken back: nothing more is posted, and nothing failed
	arc-answer k allow >/dev/null
	sleep 1
	[ "$(wc -l <"$(E)/pushed")" -eq 1 ]
	! arc-status --show k | grep -q '^delivery:' || false
}

@test "exec: a command that fails is tried 3 times, and arc-status --show and --list say which sink failed and why" {
	exec_conf "notify exec question run echo x >>$(E)/tries; exit 7" 'ignore tmux'
	exec_start notify arc-notify
	exec_ask k
	eventually eval '[ "$(grep -c . "$(E)/tries" 2>/dev/null)" -ge 3 ]'
	says_gave_up k 'exec failed: exit status 7'
	sleep 1
	[ "$(grep -c . "$(E)/tries")" -eq 3 ]	# bounded
	# settled: the failure no longer stands
	arc-answer k allow >/dev/null
	eventually eval '! arc-status --list | grep -q failed'
}

@test "exec: a failure that recovers is cleared; the next try's success is what --show says" {
	exec_conf "notify exec question run test -e $(E)/ok || { touch $(E)/ok; exit 3; }; cat >>$(E)/got" 'ignore tmux'
	exec_start notify arc-notify
	exec_ask k
	eventually test -s "$(E)/got"
	run arc-status --show k
	! grep -q '^delivery:' <<<"$output" || false
	test -e "$(E)/ok"	# it did fail once
}

@test "exec: a restart does not run the command again for what it already had, nor retry a failure given up; a new question after it runs it" {
	exec_conf "notify exec question run sh -c 'cat >>$(E)/got; test ! -e $(E)/fail'" 'ignore tmux'
	exec_start notify arc-notify
	exec_ask k1
	eventually test -s "$(E)/got"
	# a sink that fails, until its tries are spent (arc-status says so)
	touch "$(E)/fail"
	exec_ask k2
	eventually sh -c "arc-status --show k2 | grep -q 'gave up'"
	kill -TERM -- "-$(cat "$(E)/notify.pid")"; ends_within 20 "$(cat "$(E)/notify.pid")"
	rm "$(E)/notify.pid" "$(E)/fail"
	lines=$(wc -l <"$(E)/got")
	exec_start notify arc-notify
	exec_ask k3
	eventually sh -c "grep -q '\"key\":\"k3\"' $(E)/got"
	# k1 and k2 (given up) were not run again: k3's line is the one added
	[ "$(wc -l <"$(E)/got")" -eq $((lines + 1)) ]
	# and a second restart still knows k3 went out
	kill -TERM -- "-$(cat "$(E)/notify.pid")"; ends_within 20 "$(cat "$(E)/notify.pid")"
	rm "$(E)/notify.pid"
	exec_start notify arc-notify
	exec_ask k4
	eventually sh -c "grep -q '\"key\":\"k4\"' $(E)/got"
	[ "$(wc -l <"$(E)/got")" -eq $((lines + 2)) ]
}

@test "a desktop rule with no session bus to reach: exit 3, and words that say what is missing and what to do" {
	exec_conf 'notify desktop question' 'ignore tmux'
	run --separate-stderr arc-notify
	[ "$status" -eq 3 ]
	[ "$stderr" = "arc-notify: no session bus to reach (No such file or directory): the desktop rules need one; run arc-notify in a desktop session, or without desktop rules (arc-notify.conf(5))" ]
}

@test "TERM while a delivery runs (a slow command, due after its delay) ends arc-notify at once, though nothing more is due: the signal waits for the sleep, never lost before it" {
	# Run from the loop's own round (past its delay), the command is the
	# last thing due: a TERM that came while it ran, and was only noted,
	# left arc-notify asleep with nothing to wake it.
	exec_conf "notify exec question delay 1s run touch $(E)/running; sleep 2; touch $(E)/ran" 'ignore tmux'
	exec_start notify arc-notify
	exec_ask k
	eventually test -e "$(E)/running"
	[ ! -e "$(E)/ran" ]
	# to arc-notify alone (its session's other processes, the test
	# wrapper and the command, go on): the command then succeeds
	for p in $(pgrep -s "$(cat "$(E)/notify.pid")" -x arc-notify); do
		[[ "$(readlink "/proc/$p/exe")" == */arc-notify ]] && kill -TERM "$p"
	done
	ends_within 20 "$(cat "$(E)/notify.pid")"
	[ -e "$(E)/ran" ]
	rm -f "$(E)/notify.pid"
}
