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

# full_read: arc-status as a full read would say it (no cache)
full_read() {
	mv "$ARC_JOURNAL.status" "$ARC_JOURNAL.status.keep" 2>/dev/null || true
	ARC_NOW=2026-08-26T01:16:30Z arc-status "$@"
	rm -f "$ARC_JOURNAL.status"
	mv "$ARC_JOURNAL.status.keep" "$ARC_JOURNAL.status" 2>/dev/null || true
}
cached() { ARC_NOW=2026-08-26T01:16:30Z arc-status "$@"; }

big_journal() {
	"$BATS_TEST_DIRNAME/../bench/gen-events" 400 | apply -q >/dev/null
	for i in $(seq 20); do created "q$i"; done | apply -q >/dev/null
}

@test "the status cache: written for a large journal, mode 0600, and it agrees with a full read" {
	big_journal
	cached --json >/dev/null
	[ -f "$ARC_JOURNAL.status" ]
	[ "$(stat -c %a "$ARC_JOURNAL.status")" = 600 ]
	[ "$(cached --json)" = "$(full_read --json)" ]
	[ "$(cached)" = "$(full_read)" ]
}

@test "the status cache follows the journal as it grows: answers, resolutions, new lifecycles" {
	big_journal
	cached --json >/dev/null
	local q; q=$(apply <<<"$(created q1)")
	{ answer q1 "$(jq -c '{interaction: .interaction}' <<<"$q")" allow 2>/dev/null
	  resolved q2; resolved key-3; created key-3 '.request.priority = "critical"'
	  for i in $(seq 5); do information "n$i"; done; } | apply -q >/dev/null 2>&1 || true
	[ "$(cached --json)" = "$(full_read --json)" ]
	ARC_NOW=2026-08-26T03:00:00Z run arc-status --json
	[ "$(field .pending)" -eq 0 ]
	[ "$(cached --json)" = "$(full_read --json)" ]
}

@test "the status cache is not trusted after a compaction (another file)" {
	big_journal
	cached --json >/dev/null
	{ resolved q1; resolved q2; } | apply -q >/dev/null
	arc-apply --compact
	information after | apply -q >/dev/null
	[ "$(cached --json)" = "$(full_read --json)" ]
}

@test "the status cache is not trusted when the journal no longer holds its bytes" {
	big_journal
	cached --json >/dev/null
	local size; size=$(wc -c <"$ARC_JOURNAL")
	# cut back and grown again to the same length, with other records
	truncate -s $((size - 3000)) "$ARC_JOURNAL"
	truncate -s $(( $(grep -bo '^{' "$ARC_JOURNAL" | tail -1 | cut -d: -f1) )) "$ARC_JOURNAL"
	for i in $(seq 40); do resolved "key-$i"; done | apply -q >/dev/null 2>&1 || true
	[ "$(cached --json)" = "$(full_read --json)" ]
}

@test "a damaged status cache is ignored" {
	big_journal
	cached --json >/dev/null
	printf 'garbage\n' >>"$ARC_JOURNAL.status"
	[ "$(cached --json)" = "$(full_read --json)" ]
	sed -i '2s/"low"/"critical"/' "$ARC_JOURNAL.status"
	head -c 100 "$ARC_JOURNAL.status" >"$ARC_JOURNAL.status.x" && mv "$ARC_JOURNAL.status.x" "$ARC_JOURNAL.status"
	[ "$(cached --json)" = "$(full_read --json)" ]
}

@test "--no-cache: a full read that neither uses nor writes the cache" {
	big_journal
	run --separate-stderr arc-status --no-cache --json
	[ "$status" -eq 0 ]
	[ ! -e "$ARC_JOURNAL.status" ]
	cached --json >/dev/null
	sed -i '2,$s/"low"/"critical"/' "$ARC_JOURNAL.status"
	ARC_NOW=2026-08-26T01:16:30Z run --separate-stderr arc-status --no-cache --json
	[ "$(field .by_priority.critical)" -eq 0 ]
}
