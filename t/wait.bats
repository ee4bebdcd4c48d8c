#!/usr/bin/env bats
# arc-wait: a producer blocks until its question is settled.
load helper

# a question whose deadline is SECONDS from now (real clock)
question_for() {
	created "$1" ".request.response.expires_at = \"$(date -u -d "+${2:-60} seconds" +%Y-%m-%dT%H:%M:%SZ)\""
}

@test "woken by an answer from another process; prints the interaction, exit 0" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-wait -t 10 deploy >"$BATS_TEST_TMPDIR/out" &
	local waiter=$!
	sleep 0.3
	arc-answer deploy allow >/dev/null
	wait "$waiter"
	[ "$(jq -r '[.status, .response.choice_id] | join("|")' "$BATS_TEST_TMPDIR/out")" = "answered|allow" ]
}

@test "already answered: prints at once, exit 0" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-answer deploy deny >/dev/null
	run --separate-stderr arc-wait deploy
	[ "$status" -eq 0 ]
	[ "$(field .response.choice_id)" = deny ]
}

@test "returns at the question's deadline, before its own timeout, and records the expiry: exit 1" {
	arc-apply <<<"$(question_for deploy 2)" >/dev/null
	run --separate-stderr arc-wait -t 1m deploy
	[ "$status" -eq 1 ]
	[ "$(field .status)" = expired ]
	[ -z "$stderr" ]
	run arc-status --show deploy --json
	[ "$(field .interaction.status)" = expired ]
}

@test "its own timeout: exit 124, nothing printed, the question still pending" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	run --separate-stderr arc-wait -t 0.5 deploy
	[ "$status" -eq 124 ]
	[ -z "$output" ]
	run arc-status --json
	[ "$(field .pending)" -eq 1 ]
}

@test "no question under the key: exit 1, the message names the key" {
	run --separate-stderr arc-wait -t 1 nothing
	[ "$status" -eq 1 ]
	[ "$stderr" = "arc-wait: nothing: no question under this key (no journal yet)" ]
	arc-apply <<<"$(information build)" >/dev/null
	run --separate-stderr arc-wait -t 1 build
	[ "$status" -eq 1 ]
	[ "$stderr" = "arc-wait: build: no question under this key (a notice: nothing to answer)" ]
	run --separate-stderr arc-wait -t 1 "$(printf 'gone\033[2J')"
	[ "$status" -eq 1 ]
	[ "$stderr" = 'arc-wait: gone\x1b[2J: no question under this key' ]
}

@test "a cancelled question: exit 1 with its record" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-apply <<<"$(resolved deploy)" >/dev/null
	run --separate-stderr arc-wait deploy
	[ "$status" -eq 1 ]
	[ "$(field .status)" = cancelled ]
}

@test "a question superseded by a newer one is followed to the newer one" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-wait -t 10 deploy >"$BATS_TEST_TMPDIR/out" &
	local waiter=$!
	sleep 0.3
	arc-apply <<<"$(updated deploy '.request.message = "Deploy to production?"')" >/dev/null
	sleep 0.3
	arc-answer deploy allow >/dev/null
	wait "$waiter"
	[ "$(jq -r '[.status, .prompt] | join("|")' "$BATS_TEST_TMPDIR/out")" = "answered|Deploy to production?" ]
}

@test "keeps waiting across a compaction of the journal" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-wait -t 10 deploy >"$BATS_TEST_TMPDIR/out" &
	local waiter=$!
	sleep 0.3
	arc-apply --compact
	sleep 0.3
	arc-answer deploy allow >/dev/null
	wait "$waiter"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/out")" = answered ]
}

@test "usage: exactly one key, and what was wrong before the usage" {
	run --separate-stderr arc-wait
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-wait: no key given" ]
	[[ "${stderr_lines[1]}" == "usage: arc-wait "* ]]
	run --separate-stderr arc-wait a b
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-wait: one key at a time; b is one too many" ]
	for h in -h --help; do
		run --separate-stderr arc-wait "$h"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "usage: arc-wait [-j journal] [-t duration] [--no-receipt] key" ]
		[[ "$output" == *"-t, --timeout dur"* ]]
		[ -z "$stderr" ]
	done
}

@test "-t takes a duration: plain or fractional seconds, or with w, d, h, m, s" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	arc-answer deploy allow >/dev/null
	local t
	for t in 10 2.5 90s 10m 1.5h 1h30m 2d 1w 1w2d 0; do
		run --separate-stderr arc-wait -t "$t" deploy
		[ "$status" -eq 0 ] || { echo "-t $t: $status $stderr"; false; }
	done
	for t in soon -5 10x 1h30 "" 1e3 "5 m" 30m1h 1..5 . 1d1w 10minutes; do
		run --separate-stderr arc-wait -t "$t" deploy
		[ "$status" -eq 2 ] || { echo "-t '$t' accepted"; false; }
		[ "${stderr_lines[0]}" = "arc-wait: -t ${t:-\"\"}: not a duration such as 90s, 10m, 2h, 1d, 1w or 1h30m" ]
	done
}

@test "changes to other files beside the journal do not wake it to reread the journal" {
	arc-apply <<<"$(question_for deploy)" >/dev/null
	local dir; dir=$(dirname "$ARC_JOURNAL")
	# 300 writes next door, all while arc-wait waits
	( for i in $(seq 300); do echo "$i" >>"$dir/neighbour"; sleep 0.003; done ) &
	local writer=$!
	# (LeakSanitizer cannot run under ptrace: off for this one, as the
	# other strace tests have it)
	ASAN_OPTIONS=detect_leaks=0 run --separate-stderr strace -f -qq -e trace=flock -o "$BATS_TEST_TMPDIR/trace" arc-wait -t 1.5 deploy
	wait "$writer"
	[ "$status" -eq 124 ]
	# once at the start, then about once a second as a guard: not 300
	# times (each look takes the journal's lock and tries the waiters'
	# marks, arc-journal(5): about five a look)
	[ "$(grep -c 'flock(' "$BATS_TEST_TMPDIR/trace")" -le 20 ]
}

@test "at the end of time, a question due within the millisecond: -t is honoured, and nothing spins (the one judge of expiry)" {
	ARC_NOW=9999-12-31T23:59:58Z arc-emit --key k --kind permission --title t --message m \
	    --choice a:A --choice b:B --expires-at 9999-12-31T23:59:59.9002Z | ARC_NOW=9999-12-31T23:59:58Z arc-apply >/dev/null
	# the clock stops at its last instant: 0.1 ms before the deadline, for ever
	ASAN_OPTIONS=detect_leaks=0 ARC_NOW=9999-12-31T23:59:59.9001Z run --separate-stderr timeout -s KILL 10 \
	    strace -f -c -o "$BATS_TEST_TMPDIR/calls" arc-wait -t 1 k
	[ "$status" -eq 124 ]	# its own timeout, not timeout(1)'s KILL
	# it slept: a few hundred wake-ups at most, where a spin makes millions
	local polls
	polls=$(awk '$NF ~ /^(poll|ppoll|flock)$/ { n += $4 } END { print n + 0 }' "$BATS_TEST_TMPDIR/calls")
	echo "# $polls poll and flock calls" >&3
	[ "$polls" -lt 1000 ]
}
