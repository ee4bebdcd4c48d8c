#!/usr/bin/env bats
# arc-answer as a person meets it: in a pane of a real tmux server, typed
# into with send-keys and read back with capture-pane.  What is asserted
# is what tmux drew: the screen, the pane's title, tmux's paste buffers.
# Each test has a tmux server of its own (a private socket) with
# set-clipboard on, so that an OSC 52 that got through would leave a
# buffer behind, and a pane title set beforehand, so that an OSC 0 or 2
# that got through would change it; the first test shows that both would.
load helper
setup_file() { needs tmux mandoc man; }

TOP="$BATS_TEST_DIRNAME/.."

setup() {
	arc_setup
	export LANG=C.UTF-8
	unset TMUX TMUX_PANE
	SOCK="arc-answer-$$-$BATS_TEST_NUMBER"
	OUTER="arc-answer-outer-$$-$BATS_TEST_NUMBER"
	tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 \
	    "env PS1='$ ' bash --norc --noprofile"
	tmux -L "$SOCK" set -g set-clipboard on
	tmux -L "$SOCK" select-pane -T arc-test
	waits_for '$ '
}

teardown() {
	tmux -L "$SOCK" kill-server 2>/dev/null || true
	tmux -L "$OUTER" kill-server 2>/dev/null || true
	arc_teardown
}

# send_line TEXT: types a line into the pane, and Enter.
send_line() {
	tmux -L "$SOCK" send-keys -l "$1"
	tmux -L "$SOCK" send-keys Enter
}

# keys KEY...: presses keys (tmux's names: Enter, C-c, C-d).
keys() {
	tmux -L "$SOCK" send-keys "$@"
}

# screen: the visible screen; scrollback: all of the pane, wrapped lines
# joined.
screen() { tmux -L "$SOCK" capture-pane -p; }
scrollback() { tmux -L "$SOCK" capture-pane -p -J -S -; }
title() { tmux -L "$SOCK" display -p '#{pane_title}'; }
current_pane_is() { [ "$(tmux -L "$SOCK" display -p '#{pane_id}')" = "$1" ]; }
pane_holds() { [[ "$(tmux -L "$SOCK" capture-pane -p -t "$1")" == *"$2"* ]]; }

# waits_for TEXT: until the pane (history included) holds TEXT, 15 s at most.
waits_for() {
	local i
	for i in $(seq 150); do
		[[ "$(scrollback)" == *"$1"* ]] && return 0
		sleep 0.1
	done
	echo "the pane never showed '$1'; it shows:"
	scrollback
	return 1
}

# done_with: waits for the shell's prompt, then sets rc to the exit status.
done_with() {
	local i
	for i in $(seq 150); do
		[ "$(screen | grep -v '^$' | tail -1)" = '$' ] && break
		sleep 0.1
	done
	# The typed line holds "rc=" too: wait for one more line that is only
	# the output, rc= and digits, than the pane had before.
	local before
	before=$(scrollback | grep -c '^rc=[0-9][0-9]*$' || true)
	send_line 'echo "rc=$?"'
	for i in $(seq 300); do
		if [ "$(scrollback | grep -c '^rc=[0-9][0-9]*$')" -gt "$before" ]
		then
			rc=$(scrollback | sed -n 's/^rc=\([0-9]*\)$/\1/p' | tail -1)
			return 0
		fi
		sleep 0.1
	done
	echo "the shell never printed its exit status; the pane shows:"
	scrollback
	return 1
}

# open_question KEY [TITLE] [MESSAGE] [DURATION] [ARC-EMIT OPTION...]: a
# question (allow/deny) applied to the journal.
open_question() {
	arc-emit --key "$1" --kind permission --title "${2:-Codex needs permission}" \
	    --message "${3:-May I deploy?}" --choice allow:Allow --choice deny:Deny \
	    --expires-in "${4:-30m}" --sender-name Codex --project agent-notify \
	    "${@:5}" | arc-apply >/dev/null
}

# interaction KEY: the record of the settled question under KEY
interaction() {
	arc-wait -t 0 "$1" 2>/dev/null || true
}

# state_of KEY: its question's status (arc-wait -t 0 times out on pending)
state_of() {
	local out rc=0
	out=$(arc-wait -t 0 "$1" 2>/dev/null) || rc=$?
	if [ "$rc" -eq 124 ]; then echo pending; else jq -r .status <<<"$out"; fi
}

@test "the harness can see a leak: raw OSC 2 renames this pane, OSC 52 fills a paste buffer, ESC [2J clears the screen" {
	send_line "echo MARKER; printf '\\033]2;PWNED\\007\\033]52;c;%s\\007' \$(printf leaked | base64)"
	waits_for 'MARKER'
	sleep 0.3
	[ "$(title)" = PWNED ]
	[[ "$(tmux -L "$SOCK" list-buffers)" == *leaked* ]]
	send_line "printf '\\033[2J'"
	sleep 0.3
	[[ "$(screen)" != *MARKER* ]]
}

@test "the issue's reproduction: a message that erases its own line shows the real command, escaped" {
	arc-emit --key spoof --kind permission --title "Claude Code wants to use Bash" \
	    --message $'Bash: rm -rf ~/work \e[2K\rBash: ls -la' \
	    --choice allow:Allow --choice deny:Deny --expires-in 30m | arc-apply -q >/dev/null
	send_line 'arc-answer spoof'
	waits_for 'Answer 1-2'
	[[ "$(screen)" == *'  | Bash: rm -rf ~/work \x1b[2K\x0dBash: ls -la'* ]]
	# no screen line starts with the decoy
	! screen | grep -q '^Bash: ls -la' || false
	keys 2 Enter
	waits_for 'spoof: Deny (accepted)'
	done_with
	[ "$rc" -eq 0 ]
	[ "$(interaction spoof | jq -r .response.choice_id)" = deny ]
}

@test "hostile title, message and labels: escaped in the picker and the prompt; pane title, screen and paste buffers untouched" {
	send_line 'echo MARKER'
	waits_for MARKER
	arc-emit --key evil --kind permission --priority critical \
	    --title $'Safe title\e]0;PWNED-TITLE\a\e]2;PWNED2\a' \
	    --message $'\e[2Jcleared? \e]52;c;bGVha2Vk\a C1:\xc2\x9b2J bidi:\xe2\x80\xaeevil\xe2\x80\xac zw:a\xe2\x80\x8bb' \
	    --choice $'allow:Allow\e]2;PWNED3\a' --choice $'deny:Deny\e[2K\r' \
	    --expires-in 30m | arc-apply -q >/dev/null
	send_line 'arc-answer'
	waits_for 'Pick 1 (Enter takes it'
	[[ "$(screen)" == *'[critical] Safe title\x1b]0;PWNED-TITLE\x07\x1b]2;PWNED2\x07'* ]]
	[[ "$(screen)" == *'\x1b[2Jcleared? \x1b]52;c;bGVha2Vk\x07 C1:\u009b2J'* ]]
	keys Enter
	waits_for 'Answer 1-2'
	local s; s=$(screen)
	[[ "$s" == *'  | \x1b[2Jcleared? \x1b]52;c;bGVha2Vk\x07 C1:\u009b2J bidi:\u202eevil\u202c zw:a\u200bb'* ]]
	[[ "$s" == *'  1) Allow\x1b]2;PWNED3\x07'* ]]
	[[ "$s" == *'  2) Deny\x1b[2K\x0d'* ]]
	[[ "$s" == *MARKER* ]]			# nothing cleared the screen
	[ "$(title)" = arc-test ]		# nothing renamed the pane
	[ -z "$(tmux -L "$SOCK" list-buffers)" ]	# nothing reached the clipboard
	keys C-d
	done_with
	[ "$rc" -eq 1 ]
	[ "$(title)" = arc-test ]
}

@test "the picker: most urgent first (priority, then deadline), with title, message, time left, agent and project; pick by number" {
	open_question deploy "Codex needs permission" "May I deploy?" 30m
	open_question soon "Soon" "Deadline first" 10m
	open_question db "Drop table?" $'DROP TABLE users;\nsecond line' 2h --priority critical
	open_question low "Later" "Low priority" 5m --priority low
	send_line 'arc-answer'
	waits_for 'Pick 1-4'
	local s; s=$(screen)
	[[ "$s" == *"4 questions waiting, most urgent first:"* ]]
	# critical, then the two high ones by deadline, then low
	[ "$(screen | grep -oE '^ +[0-9]\) \[[a-z]+\] [A-Za-z ?]+' | sed 's/ *$//' | tr '\n' '|')" = \
	    "  1) [critical] Drop table?|  2) [high] Soon|  3) [high] Codex needs permission|  4) [low] Later|" ]
	[[ "$s" == *"     DROP TABLE users; (+1 line)"* ]]
	# (a script's questions, and no arc-wait runs for them: nobody waits)
	[[ "$s" =~ \ +[0-9]+m\ [0-9]{2}s\ left,\ no\ one\ is\ waiting\ now\ -\ Codex\ in\ agent-notify\ -\ key\ deploy ]]
	keys 3 Enter
	waits_for 'Answer 1-2'
	[[ "$(screen)" == *"  | May I deploy?"* ]]
	keys 1 Enter
	waits_for 'deploy: Allow (accepted)'
	done_with
	[ "$rc" -eq 0 ]
	[ "$(interaction deploy | jq -r .response.choice_id)" = allow ]
	[ "$(state_of db)" = pending ]
}

@test "the picker says which question no one is waiting for: an arc-wait waits for one, none for the other" {
	open_question waited "Waited for" "An arc-wait waits" 30m
	open_question orphan "Nobody waits" "Its script is gone" 40m
	arc-wait -t 1m waited >/dev/null 3>&- &
	local waiter=$!
	eventually eval '[ "$(arc-status --json --show waited | jq -r .waiting)" = true ]'
	send_line 'arc-answer'
	waits_for 'Pick 1-2'
	local s; s=$(screen)
	[[ "$s" =~ \ +[0-9]+m\ [0-9]{2}s\ left\ -\ Codex\ in\ agent-notify\ -\ key\ waited ]]
	[[ "$s" =~ \ +[0-9]+m\ [0-9]{2}s\ left,\ no\ one\ is\ waiting\ now\ -\ Codex\ in\ agent-notify\ -\ key\ orphan ]]
	keys q
	arc-answer waited allow >/dev/null
	wait "$waiter"
}

@test "the picker: jN jumps the person's tmux to the pane entry N's agent runs in (its x-arc hint); the picker stays" {
	local me agent sock
	me=$(tmux -L "$SOCK" display -p '#{pane_id}')
	agent=$(tmux -L "$SOCK" new-window -d -P -F '#{pane_id}' -n agent)
	sock=$(tmux -L "$SOCK" display -p '#{socket_path}')
	open_question deploy "Codex needs permission" "May I deploy?" 30m \
	    --tmux-pane "$agent" --tmux-socket "$sock"
	open_question other "Nowhere" "No hint" 40m
	send_line 'arc-answer'
	waits_for 'jN jumps there'
	[[ "$(screen)" == *"key deploy - tag "*" - j jumps there"* ]]
	keys j2 Enter
	waits_for '2 did not say where its agent runs.'
	keys j1 Enter
	eventually current_pane_is "$agent"
	[ "$(tmux -L "$SOCK" display -p '#{window_name}')" = agent ]
	eventually pane_holds "$me" "Jumped to pane $agent (1)."
	[ "$(state_of deploy)" = pending ]
}

@test "the picker with nothing waiting says so and stays until q" {
	send_line 'arc-answer'
	waits_for 'Nothing is waiting'
	open_question late "Arrived late" "Here now"
	waits_for '1) [high] Arrived late'
	keys q Enter
	done_with
	[ "$rc" -eq 1 ]
}

@test "a closed question is refused before asking, its state in words" {
	open_question deploy "Codex needs permission" "May I deploy?" 30m
	send_line "ARC_NOW=$(date -u -d '+34 minutes 20 seconds' +%Y-%m-%dT%H:%M:%SZ) arc-answer deploy"
	waits_for 'arc-answer: deploy: expired 4 minutes ago; nothing to answer'
	done_with
	[ "$rc" -eq 1 ]
	[[ "$(scrollback)" != *"Answer 1-2"* ]]
	arc-answer deploy allow >/dev/null
	send_line 'arc-answer deploy'
	waits_for 'arc-answer: deploy: answered'
	[[ "$(scrollback)" == *"ago; nothing to answer"* ]]
}

@test "after an answer: one line of words; the nonce and the digest never reach the screen" {
	open_question deploy
	local ev; ev=$(arc-answer --emit deploy allow)
	send_line 'arc-answer deploy'
	waits_for 'Answer 1-2'
	keys 1 Enter
	waits_for 'deploy: Allow (accepted)'
	send_line 'arc-answer deploy deny; arc-answer name --text x'
	waits_for 'arc-answer: name: not answered: no question under this key'
	local h; h=$(scrollback)
	[[ "$h" == *"arc-answer: deploy: not answered: already answered"* ]]
	[[ "$h" != *"$(jq -r .response.nonce <<<"$ev")"* ]]
	[[ "$h" != *"$(jq -r .response.digest <<<"$ev")"* ]]
	[[ "$h" != *'"status"'* ]]
}

@test "the time left counts down while the prompt waits" {
	open_question deploy "Codex needs permission" "May I deploy?" 30m
	send_line 'arc-answer deploy'
	waits_for 'Expires in 29m'
	local first; first=$(screen | grep -o 'Expires in [0-9m ]*s')
	waits_for 'Expires in'
	local i now=$first
	for i in $(seq 100); do
		now=$(screen | grep -o 'Expires in [0-9m ]*s')
		[ "$now" != "$first" ] && break
		sleep 0.1
	done
	[ "$now" != "$first" ]
	[ "$(screen | grep -c 'Expires in')" -eq 1 ]	# redrawn in place
	keys C-c
	done_with
	[ "$rc" -eq 130 ]
}

@test "a text question: an empty Enter asks again, too long is refused, then the answer is sent" {
	arc-emit --key name --kind question --title "Branch name?" \
	    --message "What should the branch be called?" --response-kind text \
	    --text-max 12 --expires-in 10m | arc-apply >/dev/null
	send_line 'arc-answer name'
	waits_for 'at most 12 characters'
	keys Enter
	waits_for 'An empty answer is not sent'
	send_line 'much-too-long-a-name'
	waits_for 'That is 20 characters; 12 at most.'
	send_line 'feat/login'
	waits_for 'name: "feat/login" (accepted)'
	[ "$(interaction name | jq -r .response.text)" = feat/login ]
}

@test "Ctrl-D and Ctrl-C leave cleanly on a line of their own: exit 1 and 130, nothing sent" {
	open_question deploy
	send_line 'arc-answer deploy'
	waits_for 'Answer 1-2'
	keys 2 C-d		# Ctrl-D only leaves on an empty line
	keys C-u C-d
	done_with
	[ "$rc" -eq 1 ]
	[[ "$(scrollback)" == *$'(Ctrl-D leaves): \n$ echo "rc=$?"'* ]]
	send_line 'arc-answer'
	waits_for 'Pick 1 (Enter takes it'
	keys C-c
	done_with
	[ "$rc" -eq 130 ]
	[[ "$(scrollback)" == *$'1) [high] Codex needs permission'* ]]	# the list stays
	[[ "$(scrollback)" == *$'q leaves): ^C\n$ echo "rc=$?"'* ]]
	[ "$(state_of deploy)" = pending ]
}

@test "the producer changes the question while the prompt is open: the new one is shown, and the answer binds to it" {
	open_question deploy "Codex needs permission" "May I deploy?"
	send_line 'arc-answer deploy'
	waits_for 'Answer 1-2'
	keys 1
	arc-emit --type updated --key deploy --kind permission --title "Codex needs permission" \
	    --message "May I deploy to PRODUCTION?" --choice allow:Allow --choice deny:Deny \
	    --expires-in 30m | arc-apply >/dev/null
	waits_for 'The question changed while it was open here. This is it now:'
	waits_for '  | May I deploy to PRODUCTION?'
	keys 2 Enter
	waits_for 'deploy: Deny (accepted)'
	[ "$(interaction deploy | jq -r '[.prompt, .response.choice_id] | join("|")')" = "May I deploy to PRODUCTION?|deny" ]
}

@test "a question answered elsewhere while the prompt is open: said in words, nothing sent" {
	open_question deploy
	send_line 'arc-answer deploy'
	waits_for 'Answer 1-2'
	arc-answer --source phone deploy deny >/dev/null
	waits_for 'arc-answer: deploy: answered'
	[[ "$(scrollback)" == *"while it was open here; nothing was sent"* ]]
	done_with
	[ "$rc" -eq 1 ]
	[ "$(interaction deploy | jq -r .response.source)" = phone ]
}

@test "an unknown choice on the command line lists the valid ones on the terminal, escaped; standard error names none" {
	open_question deploy "Codex needs permission" "May I deploy?" 30m \
	    --choice $'maybe:Perhaps\e]2;PWNED\a'
	send_line "arc-answer deploy sometimes 2>$BATS_TEST_TMPDIR/err"
	waits_for 'The choices are (by number or id):'
	local s; s=$(screen)
	[[ "$s" == *"  1) allow  Allow"* ]]
	[[ "$s" == *"  3) maybe  Perhaps\\x1b]2;PWNED\\x07"* ]]
	[ "$(title)" = arc-test ]
	grep -q 'deploy: not answered' "$BATS_TEST_TMPDIR/err"
	! grep -qiE 'allow|perhaps|maybe|sometimes' "$BATS_TEST_TMPDIR/err" || false
	send_line 'arc-answer deploy 3'
	waits_for 'deploy: Perhaps\x1b]2;PWNED\x07 (accepted)'
}

@test "dismissing in a pane: a notice and an expired question leave the status bar empty" {
	# a question that expired an hour ago, and a notice from now
	ARC_NOW=$(date -u -d '-1 hour' +%Y-%m-%dT%H:%M:%SZ) open_question old "Old" "Too late" 1m
	arc-emit --key build --kind information --title "Build finished" --message ok | arc-apply >/dev/null
	[ -n "$(arc-status)" ]
	send_line 'arc-answer --dismiss-notices'
	waits_for 'build: dismissed (a notice'
	waits_for 'old: dismissed (expired'
	[ -z "$(arc-status)" ]
	send_line 'arc-answer --dismiss build'
	waits_for 'arc-answer: build: dismissed by cli'
	[[ "$(scrollback)" == *"; nothing to dismiss"* ]]
}

# ---- the popup recipe of arc-answer(1) ----
#
# What can be observed of a popup: tmux draws it on a client, never in a
# pane, so capture-pane of the pane underneath does not show it, and a
# detached server has no client to open it on ("no current client").  So
# a client of the server under test is attached inside a pane of a second
# server: capture-pane of that outer pane is what the person sees, popup
# included, and send-keys to it are keys the person types: the prefix and
# "a", then the picker's number and the answer.  The answer is then read
# back from the journal with arc-wait, and the popup is seen to close.

# answer_recipe NAME: the snippet whose first line is "# arc: NAME" in
# arc-answer(1) as man(1) renders it; mandoc(1) must render the same.
answer_recipe() {
	local man mandoc
	man=$(MANWIDTH=120 man -l "$TOP/man/arc-answer.1" 2>/dev/null | col -bx | snippet "$1")
	mandoc=$(mandoc -Tutf8 "$TOP/man/arc-answer.1" | col -bx | snippet "$1")
	[ -n "$man" ] && [ "$man" = "$mandoc" ] || { printf 'man:\n%s\nmandoc:\n%s\n' "$man" "$mandoc"; return 1; }
	printf '%s\n' "$man"
}
snippet() {
	awk -v name="# arc: $1" '
		index($0, name) { on = 1; match($0, /^ */); cut = RLENGTH }
		on && /^[[:space:]]*$/ { exit }
		on { print substr($0, cut + 1) }'
}

@test "the popup recipe of arc-answer(1), pasted into tmux: the key opens the picker in a real client, and the pick answers" {
	open_question deploy "Codex needs permission" "May I deploy?" 30m
	open_question db "Drop table?" "DROP TABLE users;" 2h --priority critical
	answer_recipe 'answer from a popup' >"$BATS_TEST_TMPDIR/recipe.conf"
	grep -q 'display-popup' "$BATS_TEST_TMPDIR/recipe.conf"
	tmux -L "$SOCK" source-file "$BATS_TEST_TMPDIR/recipe.conf"
	[[ "$(tmux -L "$SOCK" list-keys -T prefix a)" == *"display-popup -E"*arc-answer* ]]
	# a client of the server, held in a pane of a second server
	tmux -L "$OUTER" -f /dev/null new-session -d -x 120 -y 40 \
	    "env -u TMUX tmux -L $SOCK attach"
	outer() { tmux -L "$OUTER" capture-pane -p; }
	local i
	for i in $(seq 100); do [[ "$(outer)" == *'$ '* ]] && break; sleep 0.1; done
	tmux -L "$OUTER" send-keys C-b a
	for i in $(seq 150); do [[ "$(outer)" == *"Pick 1-2"* ]] && break; sleep 0.1; done
	[[ "$(outer)" == *"2 questions waiting, most urgent first:"* ]]
	[[ "$(outer)" == *"1) [critical] Drop table?"* ]]
	tmux -L "$OUTER" send-keys 2 Enter
	for i in $(seq 150); do [[ "$(outer)" == *"Answer 1-2"* ]] && break; sleep 0.1; done
	[[ "$(outer)" == *"| May I deploy?"* ]]
	tmux -L "$OUTER" send-keys 1 Enter
	for i in $(seq 150); do [ "$(interaction deploy | jq -r .status)" = answered ] && break; sleep 0.1; done
	[ "$(interaction deploy | jq -r .response.choice_id)" = allow ]
	# --hold: the outcome stays readable in the popup until a key
	for i in $(seq 150); do [[ "$(outer)" == *"(any key closes this)"* ]] && break; sleep 0.1; done
	[[ "$(outer)" == *"(any key closes this)"* ]]
	[[ "$(outer)" == *"deploy: Allow (accepted)"* ]]
	sleep 0.5
	[[ "$(outer)" == *"(any key closes this)"* ]]
	# -E: the popup closes once arc-answer exits, after the key: Esc too
	tmux -L "$OUTER" send-keys Escape
	for i in $(seq 150); do [[ "$(outer)" != *"Answer 1-2"* ]] && break; sleep 0.1; done
	[[ "$(outer)" != *"Answer 1-2"* ]]
	[[ "$(outer)" != *"(any key closes this)"* ]]
}

# The issue's first case: choices 2:Two 1:One 3:Three.  The prompt showed
# "1) Two", and typing 1 recorded One, since a numeric id won over the
# position.  A number at the prompt is the position shown; the ids, numbers
# themselves, are shown beside the labels.
numbered() {
	arc-emit --key "$1" --kind question --title "Which one?" --message "Pick a number" \
	    --choice 2:Two --choice 1:One --choice 3:Three --expires-in 30m \
	    --sender-name Codex | arc-apply >/dev/null
}

@test "numbers mean the screen: at the prompt, 1 is the first choice shown, whatever the ids; ids that are numbers are shown beside the labels" {
	numbered swap
	send_line 'arc-answer swap'
	waits_for 'Answer 1-3'
	local s; s=$(screen)
	[[ "$s" == *"  1) Two (2)"* ]]
	[[ "$s" == *"  2) One (1)"* ]]
	[[ "$s" == *"  3) Three (3)"* ]]
	keys 1 Enter
	waits_for 'swap: Two (accepted)'
	done_with
	[ "$rc" -eq 0 ]
	[ "$(interaction swap | jq -r .response.choice_id)" = 2 ]
}

@test "numbers mean the screen: the picker's numbers pick questions, the prompt's pick choices as shown; the tag is shown" {
	numbered swap
	local tag; tag=$(arc-status --show swap --json | jq -r '.interaction.digest[0:16]')
	send_line 'arc-answer'
	waits_for 'Pick 1 (Enter takes it'
	[[ "$(screen)" == *"key swap - tag $tag"* ]]
	keys 1 Enter
	waits_for 'Answer 1-3'
	[[ "$(screen)" == *"key swap - tag $tag"* ]]
	keys 2 Enter
	waits_for 'swap: One (accepted)'
	done_with
	[ "$(interaction swap | jq -r .response.choice_id)" = 1 ]
}

@test "an id that is not a number can be typed at the prompt; ids that are their labels are not repeated" {
	open_question deploy
	numbered swap
	send_line 'arc-answer deploy'
	waits_for 'Answer 1-2'
	[[ "$(screen)" == *"  1) Allow"$'\n'* ]]
	keys deny Enter
	waits_for 'deploy: Deny (accepted)'
	done_with
	[ "$(interaction deploy | jq -r .response.choice_id)" = deny ]
}

# readme_snippet NAME: the README's snippet whose first line is "# arc: NAME".
readme_snippet() {
	snippet "$1" <"$TOP/README"
}

@test "the README's loop, pasted into a pane: the answer and the words show, never a nonce or a digest" {
	readme_snippet 'the loop' >"$BATS_TEST_TMPDIR/loop"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/loop")" -ge 6 ]
	tmux -L "$SOCK" load-buffer "$BATS_TEST_TMPDIR/loop"
	tmux -L "$SOCK" paste-buffer
	waits_for 'deploy: Allow (accepted)'
	# the producer's line: alone, or after the shell's next prompt
	local i
	for i in $(seq 150); do
		scrollback | grep -qE '(^|[$] )allow$' && break
		sleep 0.1
	done
	scrollback | grep -qE '(^|[$] )allow$'
	local shown; shown=$(scrollback)
	[[ "$shown" == *'{"status":201,"key":"deploy"}'* ]]
	[[ "$shown" == *"message:  May I deploy?"* ]]
	local q; q=$(interaction deploy)
	[ "$(jq -r .response.choice_id <<<"$q")" = allow ]
	[[ "$shown" != *"$(jq -r .nonce <<<"$q")"* ]]
	[[ "$shown" != *"$(jq -r .digest <<<"$q")"* ]]
	! grep -qE '[0-9a-f]{64}' <<<"$shown" || false
}

@test "the picker on a mirror: the answer goes by the route the mirror recorded, or is refused; the mirror is never answered in place" {
	local host="$BATS_TEST_TMPDIR/host/journal"
	mkdir -m 700 "${host%/journal}"
	arc-emit --key deploy --kind permission --title "Codex needs permission" --message "May I deploy?" \
	    --choice allow:Allow --choice deny:Deny --expires-in 30m | arc-apply -j "$host" |
	    jq -c '{notification: (.notification | .key = "devbox/" + .key), interaction: (.interaction | .key = "devbox/" + .key)}' \
	    >"$BATS_TEST_TMPDIR/m"
	arc-apply --mirror <"$BATS_TEST_TMPDIR/m" >/dev/null
	send_line 'arc-answer'
	waits_for 'Pick 1 (Enter takes it'
	keys Enter
	waits_for 'Answer 1-2'
	keys 1 Enter
	waits_for "mirrored here: answer it with --via and its host's bridge"
	done_with
	[ "$rc" -eq 1 ]
	[ "$(arc-wait -j "$host" -t 0 deploy; echo $?)" = 124 ]
	# with a route, the same keys answer on the host
	arc-apply --mirror --route "sed 's|\"key\":\"devbox/|\"key\":\"|' | arc-apply -j $host >/dev/null" \
	    <"$BATS_TEST_TMPDIR/m" >/dev/null
	send_line 'clear'
	tmux -L "$SOCK" clear-history
	[[ "$(scrollback)" != *"Pick 1 (Enter takes it"* ]]
	send_line 'arc-answer'
	waits_for 'Pick 1 (Enter takes it'
	keys Enter
	waits_for 'Answer 1-2'
	keys 1 Enter
	waits_for 'devbox/deploy: Allow (sent)'
	done_with
	[ "$rc" -eq 0 ]
	[ "$(arc-wait -j "$host" -t 0 deploy | jq -r .response.choice_id)" = allow ]
	[ "$(state_of devbox/deploy)" = pending ]
}

@test "one queue: who asks, in one order and the same words in the picker and on --list; two sessions of one agent told apart by their short names" {
	open_question one "Deploy?" "May I deploy?" 30m --session-id 4f1c2b7e-9a3d-4e52-8c61-0b2d7f9e3a10
	open_question two "Deploy?" "May I deploy?" 40m --session-id 4f1c2b7e-9a3d-4e52-8c61-77aa11bb22cc
	run arc-status --list
	[ "$(cut -f1,7 <<<"$output")" = "$(printf 'one\tCodex in agent-notify, session 9e3a10\ntwo\tCodex in agent-notify, session bb22cc')" ]
	send_line 'arc-answer'
	waits_for 'Pick 1-2'
	local s; s=$(screen)
	[[ "$s" == *"Codex in agent-notify, session 9e3a10 - key one"* ]]
	[[ "$s" == *"Codex in agent-notify, session bb22cc - key two"* ]]
	keys q
}

@test "NO_COLOR: the picker's bold title, seen in the pane's attributes, is gone with NO_COLOR set, back with it empty" {
	open_question one "Deploy?" "May I deploy?" 30m
	local run
	# capture-pane -e: the cells' attributes as escapes (bold: 1); each
	# run begins on a cleared screen with its own mark, waited for
	for run in unset set empty; do
		case $run in
		unset) send_line "clear; echo =$run=; arc-answer one" ;;
		set) send_line "clear; echo =$run=; NO_COLOR=1 arc-answer one" ;;
		empty) send_line "clear; echo =$run=; NO_COLOR= arc-answer one" ;;
		esac
		eventually eval "screen | sed -n '/^=$run=\$/,\$p' | grep -q 'May I deploy?'"
		tmux -L "$SOCK" capture-pane -p -e >"$BATS_TEST_TMPDIR/$run"
		grep -q "^=$run=" "$BATS_TEST_TMPDIR/$run"
		keys C-c
	done
	grep -qE $'\e\\[1m(\e\\[[0-9;]*m)*Deploy\\?' "$BATS_TEST_TMPDIR/unset"
	! grep -qE $'\e\\[([0-9]+;)*1[;m]' "$BATS_TEST_TMPDIR/set" || false
	grep -qE $'\e\\[1m(\e\\[[0-9;]*m)*Deploy\\?' "$BATS_TEST_TMPDIR/empty"
}
