#!/usr/bin/env bats
# arc-status --follow: the active conditions, then one NDJSON line per
# change, woken by the journal itself, until killed.
load helper

F() { echo "$BATS_TEST_TMPDIR/follow"; }

# emit_question KEY [MESSAGE] [DURATION]: the event of a question
# (allow/deny) under KEY on the real clock, expiring in DURATION.
emit_question() {
	arc-emit --key "$1" --kind permission --message "${2:-May I deploy?}" \
	    --choice allow:Allow --choice deny:Deny --expires-in "${3:-1h}"
}
notice() {
	arc-emit --key "$1" --kind information --message "${2:-Built.}"
}

has_line() { # CHANGE KEY (-s: an empty stream is no, not jq's empty yes)
	jq -s -e --arg c "$1" --arg k "$2" 'any(.[]; .change == $c and .key == $k)' \
	    "$(F)" >/dev/null 2>&1
}
synced() { grep -q '"change":"synced"' "$(F)"; }

# Starts arc-status --follow in a session of its own; returns once it has
# printed the current state (and so watches the journal).
start_follow() {
	setsid arc-status --follow "$@" >"$(F)" 2>"$(F).err" </dev/null 3>&- &
	echo $! >"$(F).pid"
	eventually synced
}
stop_follow() {
	[ -f "$(F).pid" ] || return 0
	kill -TERM -- "-$(cat "$(F).pid")" 2>/dev/null || true
	ends_within 20 "$(cat "$(F).pid")"
	rm -f "$(F).pid"
}
teardown() {
	stop_follow
	arc_teardown
}

# The changes seen after the current state, as "change key" lines.
changes() {
	jq -r 'select(.change != "current" and .change != "synced") |
	    "\(.change) \(.key)"' "$(F)"
}

@test "first the active conditions, in key order, as records with nonce and digest; then synced" {
	emit_question b-question >"$BATS_TEST_TMPDIR/created"
	arc-apply <"$BATS_TEST_TMPDIR/created" >"$BATS_TEST_TMPDIR/result"
	notice a-notice | arc-apply >/dev/null
	{ notice gone; arc-emit --type resolved --key gone; } | arc-apply >/dev/null
	emit_question answered | arc-apply >/dev/null
	arc-answer answered allow >/dev/null
	start_follow
	run jq -r '"\(.change) \(.key)"' "$(F)"
	[ "$output" = "current a-notice
current b-question
synced null" ]
	# the same records arc-apply printed, nonce and digest included
	[ "$(jq -Sc 'select(.key == "b-question") | {notification, interaction}' "$(F)")" = \
	    "$(jq -Sc '{notification, interaction}' "$BATS_TEST_TMPDIR/result")" ]
	[ "$(jq -r 'select(.key == "a-notice") | .interaction' "$(F)")" = null ]
	[ -s "$(F)" ] && [ ! -s "$(F).err" ]
}

@test "one line per change: opened, updated, answered, resolved; nothing for a refused answer or a replay" {
	start_follow
	emit_question deploy | arc-apply >/dev/null
	eventually has_line opened deploy
	arc-emit --type updated --key deploy --kind permission \
	    --message "May I deploy to production?" --choice allow:Allow \
	    --choice deny:Deny --expires-in 1h | arc-apply >/dev/null
	eventually has_line updated deploy
	[ "$(jq -r 'select(.change == "updated") | .interaction.prompt' "$(F)")" = \
	    "May I deploy to production?" ]
	arc-answer --response-id r-1 deploy allow >/dev/null
	eventually has_line answered deploy
	# a second, different answer is refused; a retry is a replay: no record
	run --separate-stderr arc-answer deploy deny
	[ "$status" -eq 1 ]
	run --separate-stderr arc-answer --response-id r-1 deploy allow
	[ "$status" -eq 0 ]
	notice build | arc-apply >/dev/null
	eventually has_line opened build
	arc-emit --type resolved --key build | arc-apply >/dev/null
	eventually has_line resolved build
	run changes
	[ "$output" = "opened deploy
updated deploy
answered deploy
opened build
resolved build" ]
	[ "$(jq -r 'select(.change == "answered") |
	    [.interaction.status, .interaction.response.choice_id] | join(" ")' "$(F)")" = "answered allow" ]
	[ "$(jq -r 'select(.change == "resolved") | .notification.status' "$(F)")" = resolved ]
}

@test "dismissed by a person, resolved by its producer, removed by the journal's retention" {
	for k in by-person by-producer by-retention; do notice "$k" | arc-apply >/dev/null; done
	start_follow
	arc-answer --dismiss by-person >/dev/null
	eventually has_line dismissed by-person
	arc-emit --type resolved --key by-producer | arc-apply >/dev/null
	eventually has_line resolved by-producer
	# retention retires a notice nobody resolved, still active
	arc-apply --compact --retain 0
	eventually has_line removed by-retention
	run changes
	[ "$output" = "dismissed by-person
resolved by-producer
removed by-retention" ]
	[ "$(jq -r 'select(.change == "dismissed") | .notification.status' "$(F)")" = resolved ]
	[ "$(jq -c 'select(.change == "removed") | [.notification, .interaction]' "$(F)")" = "[null,null]" ]
}

@test "expired: reported when the deadline passes, with no record written; a waiter's record of it adds nothing" {
	emit_question soon "May I?" 2s | arc-apply >/dev/null
	start_follow
	cp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/before"
	eventually has_line expired soon
	[ "$(jq -r 'select(.change == "expired") | .interaction.status' "$(F)")" = expired ]
	# the deadline was noticed by the clock: the journal is as it was
	cmp "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/before"
	# arc-wait records the expiry; that is not news
	run --separate-stderr arc-wait -t 5 soon
	[ "$status" -eq 1 ]
	! cmp -s "$ARC_JOURNAL" "$BATS_TEST_TMPDIR/before" || false
	notice after | arc-apply >/dev/null
	eventually has_line opened after
	run changes
	[ "$output" = "expired soon
opened after" ]
}

@test "compaction moves every record and reports nothing; changes after it are reported" {
	emit_question one | arc-apply >/dev/null
	emit_question two | arc-apply >/dev/null
	{ notice old; arc-emit --type resolved --key old; } | arc-apply >/dev/null
	start_follow
	ls -i "$ARC_JOURNAL" >"$BATS_TEST_TMPDIR/inode"
	arc-apply --compact
	# a new file: the compaction renamed it over the old one
	[ "$(ls -i "$ARC_JOURNAL")" != "$(cat "$BATS_TEST_TMPDIR/inode")" ]
	arc-answer two deny >/dev/null
	eventually has_line answered two
	arc-apply --compact
	emit_question three | arc-apply >/dev/null
	eventually has_line opened three
	run changes
	[ "$output" = "answered two
opened three" ]
}

@test "a journal that does not exist yet: synced at once, and opened when it appears" {
	export ARC_JOURNAL="$BATS_TEST_TMPDIR/new/state/journal"
	start_follow
	[ -d "$BATS_TEST_TMPDIR/new/state" ]
	[ ! -e "$ARC_JOURNAL" ]
	emit_question first | arc-apply >/dev/null
	eventually has_line opened first
}

@test "idle: neighbours of the journal cost next to nothing" {
	emit_question deploy | arc-apply >/dev/null
	# 300 writes beside the journal while following, for about 1.5 s
	/usr/bin/time -f '%U %S' -o "$BATS_TEST_TMPDIR/cpu" \
	    arc-status --follow | {
		read -r current
		read -r synced
		for i in $(seq 300); do
			echo "$i" >>"$(dirname "$ARC_JOURNAL")/neighbour"
			sleep 0.005
		done
	}
	# the reader went away, so follow ended by itself
	echo "cpu: $(cat "$BATS_TEST_TMPDIR/cpu")"
	awk '{ exit !($1 + $2 < 0.3) }' "$BATS_TEST_TMPDIR/cpu"
}

@test "idle: asleep in poll, the journal read once, until something changes" {
	emit_question deploy | arc-apply >/dev/null
	strace -f -qq -e trace=poll,ppoll,flock -o "$BATS_TEST_TMPDIR/trace" \
	    arc-status --follow | { read -r current; read -r synced; sleep 2; }
	cat "$BATS_TEST_TMPDIR/trace"
	[ "$(grep -c 'poll(' "$BATS_TEST_TMPDIR/trace")" -le 2 ]
	[ "$(grep -c 'LOCK_SH' "$BATS_TEST_TMPDIR/trace")" -eq 1 ]
}

@test "it ends when the reader of its output goes away" {
	emit_question deploy | arc-apply >/dev/null
	run timeout 20 bash -c 'arc-status --follow | head -n 1'
	[ "$status" -eq 0 ]
	[ "$(jq -r .change <<<"$output")" = current ]
}

@test "usage: --follow goes alone" {
	run --separate-stderr arc-status --follow --json
	[ "$status" -eq 2 ]
	run --separate-stderr arc-status --follow --list
	[ "$status" -eq 2 ]
	run --separate-stderr arc-status --follow extra
	[ "$status" -eq 2 ]
}

@test "a journal that cannot be read safely: exit 3" {
	mkdir -p "$(dirname "$ARC_JOURNAL")"
	echo "not a journal" >"$ARC_JOURNAL"
	chmod 600 "$ARC_JOURNAL"
	run --separate-stderr timeout 20 arc-status --follow
	[ "$status" -eq 3 ]
	[ -z "$output" ]
}

@test "the README's notify-send recipe, with notify-send stubbed on PATH: the view's text, backslashes shown escaped, markup escaped, no controls" {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/notify-send" <<EOF
#!/bin/sh
printf '%s|' "\$@" >>"$BATS_TEST_TMPDIR/notified"
echo >>"$BATS_TEST_TMPDIR/notified"
EOF
	chmod +x "$BATS_TEST_TMPDIR/bin/notify-send"
	# The recipe, as the README gives it.
	sed -n '/^  # notify-send recipe/,/^$/p' "$BATS_TEST_DIRNAME/../README" \
	    >"$BATS_TEST_TMPDIR/recipe"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/recipe")" -gt 2 ]
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" setsid bash "$BATS_TEST_TMPDIR/recipe" \
	    >/dev/null 2>"$(F).err" </dev/null 3>&- &
	echo $! >"$(F).pid"
	# Notices until one is shown: from then on the recipe is following.
	warm() {
		notice "warm-$SRANDOM" | arc-apply >/dev/null
		sleep 0.2
		test -s "$BATS_TEST_TMPDIR/notified"
	}
	eventually warm
	: >"$BATS_TEST_TMPDIR/notified"
	arc-emit --key deploy --kind permission --title "Deploy?" \
	    --message $'May I deploy\e[2J to production?' --choice allow:Allow \
	    --choice deny:Deny --expires-in 1h | arc-apply >/dev/null
	eventually grep -q 'Deploy?' "$BATS_TEST_TMPDIR/notified"
	line=$(grep 'Deploy?' "$BATS_TEST_TMPDIR/notified")
	echo "$line"
	[[ $line == *"|Deploy?|May I deploy"*" to production?|" ]]
	# the body is markup: a producer's tags are text; backslashes stay one
	arc-emit --key win --kind permission --title 'Edit C:\tmp & <b>' \
	    --message 'Copy C:\dir\new <b>bold</b> & <a href="x">link</a>?' \
	    --choice allow:Allow --choice deny:Deny --expires-in 1h | arc-apply >/dev/null
	eventually grep -q 'Edit C:' "$BATS_TEST_TMPDIR/notified"
	[ "$(grep 'Edit C:' "$BATS_TEST_TMPDIR/notified")" = \
	    '-a|arc|--|Edit C:\x5ctmp & <b>|Copy C:\x5cdir\x5cnew &lt;b&gt;bold&lt;/b&gt; &amp; &lt;a href="x"&gt;link&lt;/a&gt;?|' ]
	# producer text reaches the desktop without its escape sequence,
	# which is shown as the terminal shows it
	! grep -q $'\e' <<<"$line" || false
	[[ $line == *'May I deploy\x1b[2J to production?|'* ]]
	# nonce and digest stay out of the notification
	! grep -qE 'nonce|digest|[0-9a-f]{64}' "$BATS_TEST_TMPDIR/notified" || false
}

@test "each line carries the view a person is shown beside the records; --off-device builds it under the same setting" {
	arc-emit --key deploy --kind permission --title 'Deploy?' \
	    --message $'May I run\e[2J npm run deploy?' --project payroll \
	    --choice 'always:Always allow:Bash(npm run deploy:*) in this project, for you' \
	    --choice deny:Deny --expires-in 1h | arc-apply >/dev/null
	notice built | arc-apply >/dev/null
	start_follow
	q=$(jq -c 'select(.key == "deploy")' "$(F)")
	# the records whole, for a mirror; the view, its text safe
	[ "$(jq -r .interaction.digest <<<"$q" | wc -c)" -eq 65 ]
	[ "$(jq -r .view.title <<<"$q")" = 'Deploy?' ]
	[ "$(jq -r .view.message <<<"$q")" = 'May I run\x1b[2J npm run deploy?' ]
	[ "$(jq -r .view.project <<<"$q")" = payroll ]
	[ "$(jq -r '.view.question.choices[0] | "\(.id)|\(.label)|\(.detail)"' <<<"$q")" = \
	    'always|Always allow|Bash(npm run deploy:*) in this project, for you' ]
	[ "$(jq -r '.view.question.tag as $t | .interaction.digest | startswith($t)' <<<"$q")" = true ]
	[ -n "$(jq -r .view.question.tag <<<"$q")" ]
	[ "$(jq -r .view.question.answerable <<<"$q")" = true ]
	[ "$(jq -r 'select(.key | startswith("built")) | .view.question' "$(F)")" = null ]
	stop_follow
	ARC_OFF_DEVICE=no-message start_follow --off-device
	q=$(jq -c 'select(.key == "deploy")' "$(F)")
	[ "$(jq -r .view.message <<<"$q")" = null ]
	[ "$(jq -r .view.question.withheld <<<"$q")" = true ]
	[ "$(jq -r .view.question.answerable <<<"$q")" = false ]
	[ "$(jq -r .view.question.tag <<<"$q")" = "" ]
	[ "$(jq -r .interaction <<<"$q")" = null ]
	! grep -q 'npm run deploy' "$(F)" || false
	stop_follow
	ARC_OFF_DEVICE=title-only start_follow --off-device
	q=$(jq -c 'select(.key == "deploy")' "$(F)")
	[ "$(jq -r .view.title <<<"$q")" = 'Deploy?' ]
	[ "$(jq -r '[.view.agent, .view.agent_id, .view.project, .view.session] | map(select(. != null)) | length' <<<"$q")" -eq 0 ]
	[ "$(jq -r '.view.question.choices | length' <<<"$q")" -eq 0 ]
	! grep -qE 'payroll|Always allow|[0-9a-f]{64}' "$(F)" || false
}
