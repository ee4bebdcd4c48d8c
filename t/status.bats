#!/usr/bin/env bats
# arc-status: one line for a status bar that tells the truth, nothing when
# nobody is needed; a list; one condition in full; the history.
load helper

# no_raw_controls TEXT: no ESC, no C1 control (U+0080-U+009F as UTF-8), no
# U+202E; and no other bidi override or isolate either.
no_raw_controls() {
	! LC_ALL=C grep -q $'\e' <<<"$1" || { echo "raw ESC in: $1"; return 1; }
	! LC_ALL=C grep -qP '\xc2[\x80-\x9f]' <<<"$1" || { echo "raw C1 in: $1"; return 1; }
	! LC_ALL=C grep -qP '\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' <<<"$1" ||
	    { echo "raw bidi control in: $1"; return 1; }
}

HOSTILE_TITLE='.request.title = "Ev\u001b]0;pwned\u0007il\u001b[2J\r\u009b31m \u202eflip\u2066 #[fg=red]x"'

@test "nothing at all when no journal exists" {
	run --separate-stderr arc-status
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ ! -e "$ARC_JOURNAL" ]
}

@test "nothing at all when every condition is resolved" {
	{ created a; resolved a; } | apply >/dev/null
	run --separate-stderr arc-status
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run --separate-stderr arc-status --format '%p waiting'
	[ -z "$output" ]
}

@test "a busy journal: waiting questions, notices, highest priority, deadline" {
	{ created a; created b '.request.priority = "critical"'; information c; information d; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:40:00Z run --separate-stderr arc-status
	[ "$output" = "2 waiting, 2 notices, critical, next deadline in 20m" ]
	apply <<<"$(resolved d)" >/dev/null
	ARC_NOW=2026-08-26T01:40:00Z run --separate-stderr arc-status
	[ "$output" = "2 waiting, 1 notice, critical, next deadline in 20m" ]
	apply <<<"$(resolved c)" >/dev/null
	ARC_NOW=2026-08-26T01:40:00Z run --separate-stderr arc-status
	[ "$output" = "2 waiting, critical, next deadline in 20m" ]
}

@test "an expired question stops counting, and is counted apart as expired" {
	{ created a; information c; } | apply >/dev/null
	ARC_NOW=2026-08-26T03:00:00Z run --separate-stderr arc-status
	[ "$output" = "1 notice, normal, 1 expired" ]
	ARC_NOW=2026-08-26T03:00:00Z run --separate-stderr arc-status --json
	[ "$(field '[.pending, .notices, .attention, .expired, .active] | @csv')" = "0,1,1,1,2" ]
}

@test "only expired questions: nothing needs anyone, so nothing is printed" {
	{ created a; created b; } | apply >/dev/null
	ARC_NOW=2026-08-26T02:00:00Z run --separate-stderr arc-status
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	ARC_NOW=2026-08-26T02:00:00Z run --separate-stderr arc-status --format '%p/%x'
	[ -z "$output" ]
	# still listed, with their state, so that they can be dismissed
	ARC_NOW=2026-08-26T02:00:00Z run --separate-stderr arc-status --list
	[ "$(cut -f1,3 <<<"$output" | sort | tr '\t\n' ':,')" = "a:expired,b:expired," ]
}

@test "a deadline is exact: at the deadline the question has expired" {
	apply <<<"$(created a)" >/dev/null
	ARC_NOW=2026-08-26T01:59:59Z run --separate-stderr arc-status --format '%p %x'
	[ "$output" = "1 0" ]
	ARC_NOW=2026-08-26T02:00:00Z run --separate-stderr arc-status --json
	[ "$(field '[.pending, .expired] | @csv')" = "0,1" ]
}

@test "a notice counts for 24 hours after its last update, then stops; --list keeps it" {
	apply <<<"$(information c)" >/dev/null	# updated 2026-08-26T01:16:00Z
	ARC_NOW=2026-08-27T01:15:59Z run --separate-stderr arc-status
	[ "$output" = "1 notice, normal" ]
	ARC_NOW=2026-08-27T01:16:00Z run --separate-stderr arc-status
	[ -z "$output" ]
	ARC_NOW=2026-08-27T01:16:00Z run --separate-stderr arc-status --list
	[[ "$output" == $'c\tnormal\tnone\t-\tUpdate from Codex\t-\tCodex in agent-notify, session s-1' ]]
	# an update starts the 24 hours again
	ARC_NOW=2026-08-27T01:00:00Z apply <<<"$(information c)" >/dev/null
	ARC_NOW=2026-08-28T00:59:00Z run --separate-stderr arc-status --format '%n'
	[ "$output" = 1 ]
}

@test "an expired question is counted as expired for 24 hours after its deadline" {
	apply <<<"$(created a)" >/dev/null
	ARC_NOW=2026-08-27T01:00:00Z apply <<<"$(information c)" >/dev/null
	ARC_NOW=2026-08-27T01:59:59Z run --separate-stderr arc-status --format '%x'
	[ "$output" = 1 ]
	ARC_NOW=2026-08-27T02:00:00Z run --separate-stderr arc-status --json
	[ "$(field .expired)" = 0 ]
}

@test "dismissed, a notice and an expired question stop counting and leave the list" {
	{ created deploy; information build; } | apply >/dev/null
	ARC_NOW=2026-08-26T02:10:00Z run --separate-stderr arc-status
	[ "$output" = "1 notice, normal, 1 expired" ]
	ARC_NOW=2026-08-26T02:10:00Z arc-answer --dismiss build >/dev/null
	ARC_NOW=2026-08-26T02:11:00Z arc-answer --dismiss deploy >/dev/null
	ARC_NOW=2026-08-26T02:12:00Z run --separate-stderr arc-status
	[ -z "$output" ]
	ARC_NOW=2026-08-26T02:12:00Z run --separate-stderr arc-status --list
	[ -z "$output" ]
	ARC_NOW=2026-08-26T02:12:00Z run --separate-stderr arc-status --json
	[ "$(field '[.active, .expired, .attention] | @csv')" = "0,0,0" ]
	ARC_NOW=2026-08-26T02:12:00Z run --separate-stderr arc-status --history
	[ "$output" = "2026-08-26T02:10:00Z  build  dismissed by cli (not_needed)
2026-08-26T02:11:00Z  deploy  expired unanswered; dismissed by cli (expired)" ]
	ARC_NOW=2026-08-26T02:12:00Z run --separate-stderr arc-status --show deploy
	[[ "$output" == *$'\nstate:    expired 12 minutes ago; dismissed by cli 1 minute ago (expired)\n'* ]]
}

@test "an answered question needs nobody: not counted" {
	{ created a; information c; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z arc-answer a allow >/dev/null
	ARC_NOW=2026-08-26T01:18:00Z run --separate-stderr arc-status --json
	[ "$(field '[.pending, .attention, .expired, .active] | @csv')" = "0,1,0,1" ]
}

@test "--json: the counts, what comes next, even when nothing counts" {
	{ created a; created b '.request.priority = "low"'; information c; resolved c; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-status --json
	[ "$(jq -c . <<<"$output")" = '{"pending":2,"active":2,"by_priority":{"low":1,"normal":0,"high":1,"critical":0},"highest_priority":"high","notices":0,"expired":0,"attention":2,"next_deadline":"2026-08-26T02:00:00Z","next_key":"a","next_title":"Codex needs permission"}' ]
	# active and by_priority count every active condition, expired or not
	ARC_NOW=2026-08-26T02:30:00Z run --separate-stderr arc-status --json
	[ "$(jq -c . <<<"$output")" = '{"pending":0,"active":2,"by_priority":{"low":1,"normal":0,"high":1,"critical":0},"highest_priority":"high","notices":0,"expired":2,"attention":0,"next_deadline":null,"next_key":null,"next_title":null}' ]
	rm -f "$ARC_JOURNAL"
	run --separate-stderr arc-status --json
	[ "$(jq -c . <<<"$output")" = '{"pending":0,"active":0,"by_priority":{"low":0,"normal":0,"high":0,"critical":0},"highest_priority":null,"notices":0,"expired":0,"attention":0,"next_deadline":null,"next_key":null,"next_title":null}' ]
}

@test "--list: one tab-separated line per active condition, most urgent first" {
	{ information n; created late; created soon '.request.response.expires_at = "2026-08-26T01:30:00Z"';
	  created crit '.request.priority = "critical"'; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:20:00Z run --separate-stderr arc-status --list
	[ "${#lines[@]}" -eq 4 ]
	local tag k
	for k in crit soon late; do
		tag[${#tag[@]}]=$(arc-status --show "$k" --json | jq -r '.interaction.digest[0:16]')
	done
	[ "${lines[0]}" = $'crit\tcritical\tpending\t2026-08-26T02:00:00Z\tCodex needs permission\t'"${tag[0]}"$'\tCodex in agent-notify, session s-1' ]
	[ "${lines[1]}" = $'soon\thigh\tpending\t2026-08-26T01:30:00Z\tCodex needs permission\t'"${tag[1]}"$'\tCodex in agent-notify, session s-1' ]
	[ "${lines[2]}" = $'late\thigh\tpending\t2026-08-26T02:00:00Z\tCodex needs permission\t'"${tag[2]}"$'\tCodex in agent-notify, session s-1' ]
	[ "${lines[3]}" = $'n\tnormal\tnone\t-\tUpdate from Codex\t-\tCodex in agent-notify, session s-1' ]
}

@test "--list: one deadline rule: a question's deadline and tag while it waits, '-' once expired, recorded or not" {
	{ created told '.request.response.expires_at = "2026-08-26T01:30:00Z"';
	  created untold '.request.response.expires_at = "2026-08-26T01:30:00Z"'; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:20:00Z run --separate-stderr arc-status --list
	[[ "${lines[0]}" == $'told\thigh\tpending\t2026-08-26T01:30:00Z\t'* ]]
	# one expiry is recorded (arc-wait marks it), the other only due
	ARC_NOW=2026-08-26T01:31:00Z run arc-wait -t 1 told
	[ "$status" -eq 1 ]
	ARC_NOW=2026-08-26T01:31:00Z run --separate-stderr arc-status --list
	[ "${lines[0]}" = $'told\thigh\texpired\t-\tCodex needs permission\t-\tCodex in agent-notify, session s-1' ]
	[ "${lines[1]}" = $'untold\thigh\texpired\t-\tCodex needs permission\t-\tCodex in agent-notify, session s-1' ]
}

@test "--list and --format show hostile titles and keys escaped: no ESC, C1 or bidi control" {
	{ created "$(printf 'k\033[2Jey')" "$HOSTILE_TITLE"; information b; } | apply >/dev/null
	export ARC_NOW=2026-08-26T01:16:00Z
	run --separate-stderr arc-status --list
	[ "$status" -eq 0 ]
	no_raw_controls "$output"
	[[ "$output" == *'k\x1b[2Jey'* ]]
	[[ "$output" == *'Ev\x1b]0;pwned\x07il\x1b[2J\x0d\u009b31m \u202eflip\u2066 #[fg=red]x'* ]]
	run --separate-stderr arc-status --format '%k: %t'
	no_raw_controls "$output"
	[ "$output" = 'k\x1b[2Jey: Ev\x1b]0;pwned\x07il\x1b[2J\x0d\u009b31m \u202eflip\u2066 #[fg=red]x' ]
	run --separate-stderr arc-status --tmux --format '%t'
	[[ "$output" == *' ##[fg=red]x' ]]
}

@test "--format: %p %n %a %x %h %d %k %t and %%" {
	{ created a; created b '.request.response.expires_at = "2026-08-26T01:30:00Z" | .request.title = "Ship it?"';
	  information c; created gone '.request.response.expires_at = "2026-08-26T01:00:00Z"'; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:00:00Z run --separate-stderr arc-status --format '%p/%n/%a/%x %h %d %k [%t] 100%%'
	[ "$output" = "2/1/3/1 high 30m b [Ship it?] 100%" ]
}

@test "--format: the next key is the notice of the highest priority when no question waits" {
	local notice='del(.request.response) | .request.kind = "information"'
	{ created a-low "$notice"' | .request.priority = "low"'; created b-high "$notice"' | .request.priority = "high"';
	  created c-high "$notice"' | .request.priority = "high"'; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:20:00Z apply <<<"$(created c-high "$notice"' | .request.priority = "high"')" >/dev/null
	ARC_NOW=2026-08-26T01:30:00Z run --separate-stderr arc-status --format '%k %p %n %h %d.'
	[ "$output" = "c-high 0 3 high ." ]
}

@test "--format: an unknown conversion is a usage error that says so, even when nothing counts" {
	run --separate-stderr arc-status --format '%q'
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "${stderr_lines[0]}" == "arc-status: --format: unknown conversion"* ]]
	[[ "${stderr_lines[1]}" == usage:* ]]
	run --separate-stderr arc-status --format '100%'
	[ "$status" -eq 2 ]
}

@test "usage: what was wrong, then the usage; -h and --help on stdout" {
	run --separate-stderr arc-status --json --list
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-status: --json and --list: one at a time" ]
	run --separate-stderr arc-status --list --history
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-status: --list and --history: one at a time" ]
	run --separate-stderr arc-status extra
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-status: unexpected argument: extra" ]
	run --separate-stderr arc-status --tmux
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "arc-status: --tmux goes with --format" ]
	for h in -h --help; do
		run --separate-stderr arc-status "$h"
		[ "$status" -eq 0 ]
		[[ "$output" == "usage: arc-status "* ]]
		[ -z "$stderr" ]
	done
}

@test "a damaged journal: the bar says so instead of going blank, the reason on stderr, exit 3" {
	{ created a; created b; } | apply >/dev/null
	damage_journal
	run --separate-stderr arc-status
	[ "$status" -eq 3 ]
	[ "$output" = "arc: journal unreadable" ]
	[ -n "$stderr" ]
	run --separate-stderr arc-status --format '%p'
	[ "$status" -eq 3 ]
	[ "$output" = "arc: journal unreadable" ]
	# scripts read the exit status: no mark in JSON or in the list
	run --separate-stderr arc-status --json
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	run --separate-stderr arc-status --list
	[ "$status" -eq 3 ]
	[ -z "$output" ]
}

@test "a journal that is not a file: the mark, exit 3" {
	mkdir -p "$ARC_JOURNAL"
	run --separate-stderr arc-status
	[ "$status" -eq 3 ]
	[ "$output" = "arc: journal unreadable" ]
}

@test "--show: one condition in full, in words, without answering it; its tag, no digest or nonce" {
	apply <<<"$(created deploy '.context.project = "site" | .request.message = "Deploy to production?\nIt takes 2 minutes."')" >/dev/null
	local tag; tag=$(arc-status --show deploy --json | jq -r '.interaction.digest[0:16]')
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-status --show deploy
	[ "$status" -eq 0 ]
	[ "$output" = "key:      deploy
title:    Codex needs permission
message:  Deploy to production?
          It takes 2 minutes.
agent:    Codex (codex)
project:  site
session:  s-1
kind:     permission
priority: high
state:    waiting for an answer, 44 minutes left; no one is waiting now
deadline: 2026-08-26T02:00:00Z
tag:      $tag
choices:  1) Allow (allow)
          2) Deny (deny): Stops here
response: none" ]
	local json; json=$(arc-status --show deploy --json)
	[[ "$output" != *"$(field .interaction.nonce "$json")"* ]]
	[[ "$output" != *"$(field .interaction.digest "$json")"* ]]
	# it answered nothing
	ARC_NOW=2026-08-26T01:17:00Z run arc-status --format '%p'
	[ "$output" = 1 ]
}

@test "--show: the state in words, and who answered what" {
	apply <<<"$(created deploy)" >/dev/null
	ARC_NOW=2026-08-26T02:04:00Z run --separate-stderr arc-status --show deploy
	[[ "$output" == *$'\nstate:    expired 4 minutes ago\n'* ]]
	apply <<<"$(text_question notes 40)" >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z arc-answer --source phone --device-id pixel-7 notes --text "ship on friday" >/dev/null
	ARC_NOW=2026-08-26T01:20:00Z run --separate-stderr arc-status --show notes
	[[ "$output" == *$'\nstate:    answered 3 minutes ago\n'* ]]
	[[ "$output" == *$'\nanswer:   text, at most 40 characters\n'* ]]
	[[ "$output" == *$'\nresponse: text (14 chars), source phone, device pixel-7, at 2026-08-26T01:17:00Z' ]]
	[[ "$output" != *"ship on friday"* ]]
	ARC_NOW=2026-08-26T01:20:00Z apply <<<"$(information build)" >/dev/null
	ARC_NOW=2026-08-26T03:20:00Z run --separate-stderr arc-status --show build
	[[ "$output" == *$'\nstate:    a notice, updated 2 hours ago' ]]
}

@test "--show: producer text escaped, line breaks kept as breaks" {
	apply <<<"$(created deploy "$HOSTILE_TITLE"' | .request.message = "one\ntwo \u001b[2K\rthree\u202e" | .request.response.choices[0].label = "Al\u001b[8mlow"')" >/dev/null
	run --separate-stderr arc-status --show deploy
	no_raw_controls "$output"
	[[ "$output" == *$'message:  one\n          two \\x1b[2K\\x0dthree\\u202e\n'* ]]
	[[ "$output" == *'1) Al\x1b[8mlow (allow)'* ]]
}

@test "--show --json: the records, as arc-apply prints them (digest and nonce for scripts)" {
	local created; created=$(apply <<<"$(created deploy)")
	run --separate-stderr arc-status --show deploy --json
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.key, .notification, .interaction]' <<<"$output")" = "$(jq -c '[.key, .notification, .interaction]' <<<"$created")" ]
}

@test "--show: no condition under the key: exit 1, naming the key" {
	run --separate-stderr arc-status --show nowhere
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "arc-status: nowhere: no condition under this key" ]
	run --separate-stderr arc-status --show "$(printf 'bad\033]0;x\007')"
	[ "$stderr" = 'arc-status: bad\x1b]0;x\x07: no condition under this key' ]
}

@test "--history: answered, expired and resolved, oldest first: who answered what, from where, when" {
	{ created deploy; created release; text_question notes 40; information build; information open;
	  created waiting '.request.response.expires_at = "2026-08-26T09:00:00Z"'; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z arc-answer --source phone --device-id pixel-7 deploy allow >/dev/null
	ARC_NOW=2026-08-26T01:18:00Z arc-answer notes --text "ship on friday" >/dev/null
	ARC_NOW=2026-08-26T01:19:00Z apply <<<"$(resolved build not_needed)" >/dev/null
	ARC_NOW=2026-08-26T03:00:00Z run --separate-stderr arc-status --history
	[ "$status" -eq 0 ]
	[ "$output" = "2026-08-26T01:17:00Z  deploy  answered Allow (allow), source phone, device pixel-7
2026-08-26T01:18:00Z  notes  answered text (14 chars), source cli
2026-08-26T01:19:00Z  build  resolved (not_needed)
2026-08-26T02:00:00Z  release  expired unanswered" ]
	ARC_NOW=2026-08-26T03:00:00Z run --separate-stderr arc-status --history --json
	[ "$(jq -sc 'map([.settled_at, .key, .notification.status, .interaction.status // "-", .interaction.response.choice_id // .interaction.response.text // "-"])' <<<"$output")" = '[["2026-08-26T01:17:00Z","deploy","resolved","answered","allow"],["2026-08-26T01:18:00Z","notes","resolved","answered","ship on friday"],["2026-08-26T01:19:00Z","build","resolved","-","-"],["2026-08-26T02:00:00Z","release","active","pending","-"]]' ]
}

@test "--history at a terminal: local times, to the second, with their offset; UTC to a pipe and in --json" {
	apply <<<"$(created deploy)" >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z arc-answer deploy allow >/dev/null
	# (POSIX zones: no zoneinfo needed) UTC+2, then UTC-5 across midnight
	on_tty '' 'TZ=XXX-2 ARC_NOW=2026-08-26T03:00:00Z arc-status --history'
	[[ "$output" == "2026-08-26 03:17:00 +0200  deploy  answered Allow (allow)"* ]]
	on_tty '' 'TZ=XXX+5 ARC_NOW=2026-08-26T03:00:00Z arc-status --show deploy'
	[[ "$output" == *"deadline: 2026-08-25 21:00:00 -0500"* ]]
	[[ "$output" == *"Allow (allow), source cli, at 2026-08-25 20:17:00 -0500"* ]]
	TZ=XXX-2 ARC_NOW=2026-08-26T03:00:00Z run --separate-stderr arc-status --history
	[[ "$output" == "2026-08-26T01:17:00Z  deploy  answered Allow (allow)"* ]]
	on_tty '' 'TZ=XXX-2 ARC_NOW=2026-08-26T03:00:00Z arc-status --history --json'
	[[ "$output" == '{"settled_at":"2026-08-26T01:17:00Z"'* ]]
}

@test "--history --since today and yesterday: from the local midnight that began the day, in TZ" {
	apply <<<"$(created deploy)" >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z arc-answer deploy allow >/dev/null
	# 10:00Z is 12:00 on the 26th at UTC+2 (the day began 2026-08-25T22:00Z)
	# and 05:00 on the 26th at UTC-5 (it began 2026-08-26T05:00Z, after 01:17Z)
	TZ=XXX-2 ARC_NOW=2026-08-26T10:00:00Z run arc-status --history --since today
	[[ "$output" == *"  deploy  answered"* ]]
	TZ=XXX+5 ARC_NOW=2026-08-26T10:00:00Z run arc-status --history --since today
	[ -z "$output" ]
	TZ=XXX+5 ARC_NOW=2026-08-26T10:00:00Z run arc-status --history --since yesterday
	[[ "$output" == *"  deploy  answered"* ]]
	TZ=XXX-2 ARC_NOW=2026-08-26T10:00:00Z run arc-status --history --until yesterday
	[ -z "$output" ]
}

@test "--history: labels and sources are escaped; text answers are never shown" {
	apply <<<"$(created deploy '.request.response.choices[0].label = "Al\u001b]52;c;aGk=\u0007low\u202e"')" >/dev/null
	ARC_NOW=2026-08-26T01:17:00Z arc-answer --device-id "$(printf 'dev\033[31m')" deploy allow >/dev/null
	run --separate-stderr arc-status --history
	no_raw_controls "$output"
	[ "$output" = '2026-08-26T01:17:00Z  deploy  answered Al\x1b]52;c;aGk=\x07low\u202e (allow), source cli, device dev\x1b[31m' ]
}

@test "--history: nothing settled, nothing printed" {
	apply <<<"$(created a)" >/dev/null
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-status --history
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "--no-cache is accepted and ignored: there is no cache, every view is the same" {
	{ created q; information n; created r; } | apply >/dev/null
	local v
	for v in "" --json --list --history; do
		[ "$(ARC_NOW=2026-08-26T01:16:00Z arc-status --no-cache $v)" = "$(ARC_NOW=2026-08-26T01:16:00Z arc-status $v)" ] ||
		    { echo "--no-cache $v differs"; return 1; }
	done
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-status --no-cache
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	[ -z "$stderr" ]
}

@test "--list, --json and --follow stream: the memory of the plain call on the same journal plus a bounded amount, not a copy of every condition" {
	jq -nc 'range(20000) | {arc_version:"0.2", event_id:"e\(.)", event_type:"request.created",
	    occurred_at:"2026-08-26T01:15:00Z", sender:{id:"codex", name:"Codex"},
	    request:{key:"k\(.)", kind:"information", message:"Something happened in the build of project \(.)"}}' |
	    apply >/dev/null
	# (a sanitizer's quarantine keeps freed memory: what is live counts)
	peak() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
	    ARC_NOW=2026-08-26T01:20:00Z /usr/bin/time -f %M arc-status "$@" 2>&1 >/dev/null | tail -1; }
	local plain list json follow
	plain=$(peak)
	list=$(peak --list)
	json=$(peak --json)
	follow=$(ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
	    ARC_NOW=2026-08-26T01:20:00Z timeout 20 /usr/bin/time -f %M arc-status --follow 2>"$BATS_TEST_TMPDIR/t" |
	    sed '/"change":"synced"/q' | wc -l; tail -1 "$BATS_TEST_TMPDIR/t")
	echo "# peak KiB: plain $plain, --list $list, --json $json, --follow $follow" >&3
	[ "$list" -le $((plain + 8192)) ]
	[ "$json" -le $((plain + 8192)) ]
	# --follow keeps a summary of what it reported (about 250 bytes a
	# condition), never the records themselves
	[ "${follow##*$'\n'}" -le $((plain + 8192 + 20000 * 400 / 1024)) ]
}
