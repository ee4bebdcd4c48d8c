#!/usr/bin/env bats
# arc-status: one line for a status bar, and nothing when nobody is needed.
load helper

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
}

@test "a busy journal: waiting questions, active conditions, highest priority, deadline" {
	{ created a; created b '.request.priority = "critical"'; information c; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:40:00Z run --separate-stderr arc-status
	[ "$output" = "2 waiting, 3 active, critical, next deadline in 20m" ]
}

@test "an expired question no longer counts as waiting" {
	{ created a; information c; } | apply >/dev/null
	ARC_NOW=2026-08-26T03:00:00Z run --separate-stderr arc-status
	[ "$output" = "2 active, high" ]
}

@test "--json: pending, active, by_priority, highest_priority, next_deadline" {
	{ created a; created b '.request.priority = "low"'; information c; resolved c; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-status --json
	[ "$(jq -c . <<<"$output")" = '{"pending":2,"active":2,"by_priority":{"low":1,"normal":0,"high":1,"critical":0},"highest_priority":"high","next_deadline":"2026-08-26T02:00:00Z"}' ]
	rm -f "$ARC_JOURNAL"
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-status --json
	[ "$(field .active)" = 0 ]
}

@test "--list: one tab-separated line per active condition" {
	{ created a; information b; } | apply >/dev/null
	ARC_NOW=2026-08-26T01:16:00Z run --separate-stderr arc-status --list
	[ "${#lines[@]}" -eq 2 ]
	[[ "$output" == *$'a\thigh\tpending\t2026-08-26T02:00:00Z\tCodex needs permission'* ]]
	[[ "$output" == *$'b\tnormal\tnone\t-\tUpdate from Codex'* ]]
}

@test "--format: %p %a %h %d and %%" {
	apply <<<"$(created a)" >/dev/null
	ARC_NOW=2026-08-26T01:00:00Z run --separate-stderr arc-status --format '%p/%a %h %d 100%%'
	[ "$output" = "1/1 high 1h00m 100%" ]
	run --separate-stderr arc-status --format '%q'
	[ "$status" -eq 2 ]
}

@test "usage: one mode at a time; no operands" {
	run --separate-stderr arc-status --json --list
	[ "$status" -eq 2 ]
	run --separate-stderr arc-status extra
	[ "$status" -eq 2 ]
}

@test "a damaged journal is exit 3" {
	apply <<<"$(created a)" >/dev/null
	printf 'garbage\n' >>"$ARC_JOURNAL"
	run --separate-stderr arc-status
	[ "$status" -eq 3 ]
}

big_journal() {
	"$BATS_TEST_DIRNAME/../bench/gen-events" 400 | apply -q >/dev/null
	for i in $(seq 20); do created "q$i"; done | apply -q >/dev/null
}

@test "no status cache: whatever lies at journal.status (a FIFO, /dev/zero, a forgery) is never read" {
	big_journal
	local truth; truth=$(arc-status --json)
	mkfifo "$ARC_JOURNAL.status"
	run timeout 5 arc-status --json
	[ "$status" -eq 0 ]
	[ "$output" = "$truth" ]
	rm "$ARC_JOURNAL.status"
	ln -s /dev/zero "$ARC_JOURNAL.status"
	run timeout 5 arc-status --json
	[ "$output" = "$truth" ]
	rm "$ARC_JOURNAL.status"
	printf '{"arc_status_cache":1,"offset":1}\n["x","critical","pending",null,null\n' >"$ARC_JOURNAL.status"
	run timeout 5 arc-status --json
	[ "$status" -eq 0 ]
	[ "$output" = "$truth" ]
	[ "$(field .by_priority.critical)" -eq 0 ]
}
