#!/usr/bin/env bats
# The hand-over (arc-journal(5), arc-hooks(7), arc-wait(1)): a question
# knows whether anyone waits for its answer; one whose own adapter waited
# for it is withdrawn when that waiter dies, however it dies; an answer
# handed over leaves a receipt, one that could not be leaves none and
# says so.  The payloads are the real clients' (t/fixtures/hooks); the
# hook is killed as an agent, a terminal or the OOM killer kills it.
load helper

P="$FIXTURES/hooks"
# The processes these tests kill by pid run unwrapped (t/run-tests wraps
# each command in a script that would die in its place).
HOOK="$ARC_BIN/arc-hook"
WAIT="$ARC_BIN/arc-wait"

setup() {
	arc_setup
	unset ARC_HOOK_TIMEOUT ARC_HOOK_CLIENT TMUX TMUX_PANE
}

# What a test started in the background, stopped however the test ends.
teardown() {
	local p
	for p in ${hookpid:-} ${waitpid:-} ${follower:-} ${writer:-}; do
		kill -9 "$p" 2>/dev/null || :
	done
	arc_teardown
}

# start_hook PAYLOAD: the Claude Code hook on a fixture, in a session of its
# own, as the client starts it; its pid in $hookpid.
start_hook() {
	setsid env --default-signal=INT,TERM,HUP "$HOOK" claude-code <"$P/$1.json" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	hookpid=$!
}

# follow_synced [ARC-STATUS OPTION...]: a follower of the stream into
# $BATS_TEST_TMPDIR/follow, its pid in $follower, once it has synced.
follow_synced() {
	rm -f "$BATS_TEST_TMPDIR/follow"	# an earlier one's "synced" is not its
	"$ARC_BIN/arc-status" --follow "$@" >"$BATS_TEST_TMPDIR/follow" 3>&- &
	follower=$!
	eventually grep -q '"change":"synced"' "$BATS_TEST_TMPDIR/follow"
}

# hook_answered CHOICE: the hook asks, CHOICE answers, and it exits.
hook_answered() {
	start_hook claude/permission-bash
	key=$(asked_key)
	arc-answer "$key" "$1" >/dev/null
	wait "$hookpid"
	hookpid=
}

# waiting_key: the key of the one pending question, once there is one.
waiting_key() {
	local k
	k=$(arc-status --list | awk -F'\t' '$3 == "pending" { print $1 }')
	[ -n "$k" ] && echo "$k"
}
asked_key() { eventually waiting_key >/dev/null && waiting_key; }

# script_question KEY: a script's permission question under KEY, open for an hour.
script_question() {
	created "$1" ".request.response.expires_at = \"$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)\"" |
	    arc-apply >/dev/null
}

# state KEY: the state line of arc-status --show.
state() { arc-status --show "$1" | sed -n 's/^state: *//p'; }

# history: the last line of arc-status --history, past its time and key.
last_history() { arc-status --history | tail -1 | cut -d' ' -f5-; }

withdrawn_for_want_of_waiter() {
	[[ "$(state "$1")" == "cancelled "*": no one waits for it any more" ]]
}

@test "the hook killed hard while it waits: its question is withdrawn at the next look, and an answer is refused in those words" {
	start_hook claude/permission-bash
	key=$(asked_key)
	run arc-status --show "$key"
	[[ "$output" == *"state:    waiting for an answer, "*"; the agent waits for it"* ]]
	kill -9 "$hookpid"
	wait "$hookpid" || :
	hookpid=
	# any command that reads the journal notices (here the status bar)
	run arc-status --list
	withdrawn_for_want_of_waiter "$key"
	run --separate-stderr arc-answer "$key" allow
	[ "$status" -ne 0 ]
	[ "$(jq -r .error.message <<<"$output")" = "the question is not open: no one waits for it any more" ]
	[ "$(last_history)" = "cancelled: no one waits for it any more" ]
	run arc-status --show "$key" --json
	[ "$(jq -r '[.interaction.status, .notification.outcome, .handover.withdrawn, .handover.by] | join("|")' <<<"$output")" = "cancelled|cancelled|no_waiter|Claude Code" ]
	# the mark is gone with it
	[ -z "$(ls "$(dirname "$ARC_JOURNAL")" | grep '\.wait\.')" ]
}

@test "the hook killed at any point: never a question left pending with nobody waiting, never an answer taken by nobody without a word" {
	local d
	for d in 0 0.001 0.003 0.006 0.01 0.02 0.05 0.1; do
		start_hook claude/permission-bash
		sleep "$d"
		kill -9 "$hookpid"
		wait "$hookpid" || :
		arc-status --list >/dev/null
		# nothing pending stays behind
		[ -z "$(arc-status --list | awk -F'\t' '$3 == "pending"')" ] ||
		    { echo "pending after a kill at ${d}s"; arc-status --list; false; }
	done
	hookpid=
	# every question it got to ask was withdrawn for want of its waiter
	run arc-status --history --json
	[ "$(jq -s '[.[] | select(.interaction != null) | select(.handover.withdrawn != "no_waiter")] | length' <<<"$output")" -eq 0 ]
}

@test "answered while the hook waits: the decision on its stdout, and 'Claude Code took it' in --show, --history, --json and the stream" {
	follow_synced
	hook_answered allow
	[ "$(jq -r .hookSpecificOutput.decision.behavior "$BATS_TEST_TMPDIR/out")" = allow ]
	[[ "$(state "$key")" =~ ^answered\ .*\ ago\;\ Claude\ Code\ took\ it\ [0-9]+\ ms\ later$ ]]
	[[ "$(last_history)" =~ ^answered\ Allow\ \(allow\),\ source\ cli\;\ Claude\ Code\ took\ it\ [0-9]+\ ms\ later$ ]]
	run arc-status --show "$key" --json
	[ "$(jq -r '[.handover.by, (.handover.question == .interaction.id)] | join("|")' <<<"$output")" = "Claude Code|true" ]
	# taken at or after the answer was accepted
	[[ ! "$(jq -r .handover.taken <<<"$output")" < "$(jq -r .interaction.answered_at <<<"$output")" ]]
	# the receipt reaches the stream: on the answered line when it came
	# in the same look, else on a handover line of its own
	eventually grep -q '"handover":{"taken"' "$BATS_TEST_TMPDIR/follow"
	kill "$follower"
	run jq -r 'select(.key == "'"$key"'") | [.change, .waiting, .view.question.waiting, .view.question.handover] | map(tostring) | join("|")' "$BATS_TEST_TMPDIR/follow"
	[ "$(head -1 <<<"$output")" = "opened|true|true|null" ]
	[[ "$(tail -1 <<<"$output")" =~ ^(answered|handover)\|null\|null\|Claude\ Code\ took\ it\ [0-9]+\ ms\ later$ ]]
}

@test "killed between the answer and the hand-over: the answer stands, and the question says Claude Code did not take it" {
	start_hook claude/permission-bash
	key=$(asked_key)
	kill -STOP "$hookpid"
	arc-answer "$key" allow >/dev/null
	kill -9 "$hookpid"
	kill -CONT "$hookpid" 2>/dev/null || :
	wait "$hookpid" || :
	hookpid=
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	[[ "$(state "$key")" == "answered "*" ago; Claude Code did not take it (it had stopped waiting)" ]]
	run arc-status --show "$key" --json
	[ "$(jq -r '[.interaction.status, .handover.not_taken, (.handover | has("taken"))] | join("|")' <<<"$output")" = "answered|stopped_waiting|false" ]
}

@test "a reader that closes the hook's stdout before the answer: no receipt, and the hook says why" {
	# the agent's end of the pipe closed while the hook waits
	setsid env --default-signal=INT,TERM,HUP "$HOOK" claude-code <"$P/claude/permission-bash.json" \
	    2>"$BATS_TEST_TMPDIR/err" 3>&- | true &
	key=$(asked_key)
	sleep 0.2	# true has exited; the pipe has no reader
	arc-answer "$key" allow >/dev/null
	eventually grep -q 'cannot hand the decision' "$BATS_TEST_TMPDIR/err"
	run arc-status --show "$key" --json
	[ "$(jq -r '.handover | has("taken")' <<<"$output")" = false ]
	[ "$(jq -r .handover.not_taken <<<"$output")" = stopped_waiting ]
	grep -qx 'arc-hook: cannot hand the decision to Claude Code (Broken pipe); no receipt' "$BATS_TEST_TMPDIR/err"
}

@test "a script's question outlives its arc-wait: 'no one is waiting now' while none runs, answerable, and a receipt once one takes it" {
	script_question deploy
	[[ "$(state deploy)" == "waiting for an answer, "*"; no one is waiting now" ]]
	"$WAIT" -t 1m deploy >"$BATS_TEST_TMPDIR/first" 3>&- &
	waitpid=$!
	eventually eval '[[ "$(state deploy)" == *"; the agent waits for it" ]]'
	kill -9 "$waitpid"
	wait "$waitpid" || :
	waitpid=
	# gone, and the question still open: the script may wait again
	[[ "$(state deploy)" == "waiting for an answer, "*"; no one is waiting now" ]]
	"$WAIT" -t 1m deploy >"$BATS_TEST_TMPDIR/second" 3>&- &
	waitpid=$!
	eventually eval '[[ "$(state deploy)" == *"; the agent waits for it" ]]'
	arc-answer deploy allow >/dev/null
	wait "$waitpid"
	waitpid=
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/second")" = answered ]
	[[ "$(state deploy)" =~ ^answered\ .*\ ago\;\ Codex\ took\ it\ [0-9]+\ ms\ later$ ]]
}

@test "an arc-wait with its answer but its line stuck (a full pipe) no longer waits for the key: a new question under it shows nobody waiting, and its kill says nothing of that one" {
	script_question deploy
	mkfifo "$BATS_TEST_TMPDIR/pipe"
	exec 7<>"$BATS_TEST_TMPDIR/pipe"	# a reader that never reads
	head -c 65536 /dev/zero >&7		# the pipe is full
	"$WAIT" -t 10m deploy >"$BATS_TEST_TMPDIR/pipe" 3>&- 7>&- &
	waitpid=$!
	eventually eval '[ "$(arc-status --json --show deploy | jq -r .waiting)" = true ]'
	arc-answer deploy allow >/dev/null
	# its line is blocked in the pipe
	eventually eval '[[ "$(cat /proc/$waitpid/wchan)" == *pipe_write ]]'
	# the producer asks again under the same key
	script_question deploy
	run arc-status --json --show deploy
	[ "$(jq -r '[.interaction.status, .waiting] | join("|")' <<<"$output")" = "pending|false" ]
	arc-answer deploy allow >/dev/null
	kill -9 "$waitpid"
	wait "$waitpid" || :
	waitpid=
	exec 7>&-
	run arc-status --show deploy --json
	[ "$(jq -r '.handover.not_taken // "none"' <<<"$output")" = none ]
}

@test "arc-status --show --json says whether anyone waits: false, true while arc-wait runs, false once it is killed" {
	script_question deploy
	run arc-status --json --show deploy
	[ "$(jq -r .waiting <<<"$output")" = false ]
	"$WAIT" -t 1m deploy >/dev/null 3>&- &
	waitpid=$!
	eventually eval '[ "$(arc-status --json --show deploy | jq -r .waiting)" = true ]'
	kill -9 "$waitpid"
	wait "$waitpid" || :
	waitpid=
	[ "$(arc-status --json --show deploy | jq -r .waiting)" = false ]
}

@test "the wake: a folder that changes without pause beside the journal does not starve arc-wait, and the answer wakes it" {
	script_question deploy
	"$WAIT" -t 30s deploy >"$BATS_TEST_TMPDIR/out" 3>&- &
	waitpid=$!
	# a trace written into the journal's folder without pause
	( while :; do echo x >>"$(dirname "$ARC_JOURNAL")/trace"; done ) 3>&- &
	writer=$!
	sleep 0.5
	arc-answer deploy allow >/dev/null
	local t0=$SECONDS
	wait "$waitpid"
	waitpid=
	kill "$writer"
	[ $((SECONDS - t0)) -le 5 ]
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/out")" = answered ]
}

@test "the wake holds across a compaction and a journal replaced under the waiter" {
	script_question deploy
	"$WAIT" -t 30s deploy >"$BATS_TEST_TMPDIR/out" 3>&- &
	waitpid=$!
	eventually eval '[ "$(arc-status --json --show deploy | jq -r .waiting)" = true ]'
	arc-apply --compact </dev/null >/dev/null
	arc-answer deploy deny >/dev/null
	wait "$waitpid"
	waitpid=
	[ "$(jq -r .response.choice_id "$BATS_TEST_TMPDIR/out")" = deny ]
}

@test "under the off-device setting the receipt goes where the question went: title-only, no agent's name in the stream's hand-over" {
	ARC_OFF_DEVICE=title-only follow_synced --off-device
	hook_answered deny
	eventually grep -q '"handover":{"taken"' "$BATS_TEST_TMPDIR/follow"
	kill "$follower"
	run jq -c 'select(.handover != null) | [.handover, .view.question.handover]' "$BATS_TEST_TMPDIR/follow"
	[[ "$output" =~ ^\[\{\"taken\":\"[^\"]+\",\"question\":\"int_[0-9a-f]+\"\},\"the\ agent\ took\ it\ [0-9]+\ ms\ later\"\]$ ]]
	! grep -q 'Claude Code' "$BATS_TEST_TMPDIR/follow" || false
	# at home, the name is there
	[[ "$(arc-status --show "$key" | sed -n 's/^state: *//p')" == *"; Claude Code took it "* ]]
}

@test "the hook narrows itself for its wait (Landlock): a write outside the journal's folder is refused, one inside is not; a notice, which waits for nothing, is not narrowed" {
	local outside=$BATS_TEST_TMPDIR/outside inside
	inside=$(dirname "$ARC_JOURNAL")/probe
	# a notice first (its journal's folder made): not narrowed
	LD_PRELOAD="$BATS_TEST_DIRNAME/narrow/probe.so" ARC_PROBE_WRITE=$outside \
	    "$HOOK" claude-code <"$P/claude/stop.json" 2>"$BATS_TEST_TMPDIR/notice.err"
	grep -qx "probe: $outside: written" "$BATS_TEST_TMPDIR/notice.err"
	rm -f "$outside"
	LD_PRELOAD="$BATS_TEST_DIRNAME/narrow/probe.so" ARC_PROBE_WRITE="$outside:$inside" \
	    setsid "$HOOK" claude-code <"$P/claude/permission-bash.json" \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	hookpid=$!
	key=$(asked_key)
	arc-answer "$key" allow >/dev/null
	wait "$hookpid"
	hookpid=
	[ "$(jq -r .hookSpecificOutput.decision.behavior "$BATS_TEST_TMPDIR/out")" = allow ]
	grep -qx "probe: $outside: Permission denied" "$BATS_TEST_TMPDIR/err"
	grep -qx "probe: $inside: written" "$BATS_TEST_TMPDIR/err"
	[ ! -e "$outside" ]
	# the receipt was written all the same, inside
	[[ "$(state "$key")" == *"; Claude Code took it "* ]]
}

@test "arc-wait killed between the answer and its line: the answer stands, and the question says its sender did not take it" {
	script_question deploy
	"$WAIT" -t 1m deploy >"$BATS_TEST_TMPDIR/out" 3>&- &
	waitpid=$!
	eventually eval '[ "$(arc-status --json --show deploy | jq -r .waiting)" = true ]'
	kill -STOP "$waitpid"
	arc-answer deploy allow >/dev/null
	kill -9 "$waitpid"
	kill -CONT "$waitpid" 2>/dev/null || :
	wait "$waitpid" || :
	waitpid=
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	[[ "$(state deploy)" == "answered "*" ago; Codex did not take it (it had stopped waiting)" ]]
	# a script that waits again gets the answer (and no second word)
	run --separate-stderr arc-wait deploy
	[ "$status" -eq 0 ]
	[ "$(jq -r .response.choice_id <<<"$output")" = allow ]
}

@test "no command needed: a follower (arc-notify's stream) notices the hook's death itself and withdraws its question" {
	follow_synced
	start_hook claude/permission-bash
	eventually grep -q '"change":"opened"' "$BATS_TEST_TMPDIR/follow"
	kill -9 "$hookpid"
	wait "$hookpid" || :
	hookpid=
	# only the follower reads the journal now: the mark's close woke it
	eventually grep -q '"change":"resolved"' "$BATS_TEST_TMPDIR/follow"
	kill "$follower"
	[ "$(jq -r 'select(.change == "resolved") | [.notification.outcome, .interaction.status, .handover.withdrawn] | join("|")' "$BATS_TEST_TMPDIR/follow")" = "cancelled|cancelled|no_waiter" ]
}
