#!/usr/bin/env bats
# Hostile input: every line gets a clear verdict in bounded memory, and
# the stream goes on after it.
load helper

GOOD='{"arc_version":"0.2","event_id":"after","event_type":"request.created","occurred_at":"2026-08-26T01:15:00Z","sender":{"id":"codex"},"request":{"kind":"information","message":"still here"}}'

# verdicts FILE: arc-validate --report on FILE, in bounded memory; prints
# "line:code" per line, then the peak resident KiB as the last line.
verdicts() {
	/usr/bin/time -f 'peak %M' arc-validate --report "$1" 2>"$BATS_TEST_TMPDIR/time" |
	    jq -r '"\(.line):\(.errors[0].code // "valid")"'
	tail -1 "$BATS_TEST_TMPDIR/time"
}

peak_kib() { awk '/^peak/ { print $2 }' <<<"$1"; }

# bounded OUTPUT: the peak verdicts printed is within 16 MiB of the same
# build's on one good line (a sanitizer's build starts some 15 MiB higher)
bounded() {
	printf '%s\n' "$GOOD" >"$BATS_TEST_TMPDIR/one"
	local base; base=$(peak_kib "$(verdicts "$BATS_TEST_TMPDIR/one")")
	[ -n "$base" ] && [ "$(peak_kib "$1")" -lt $((base + 16384)) ]
}

@test "100 MB without a newline: too_large, in bounded memory" {
	{ head -c 100000000 /dev/zero | tr '\0' 'a'; } >"$BATS_TEST_TMPDIR/big"
	run verdicts "$BATS_TEST_TMPDIR/big"
	[ "${lines[0]}" = "1:too_large" ]
	bounded "$output"
}

@test "a 100 MB line then a good one: the stream goes on" {
	{ head -c 100000000 /dev/zero | tr '\0' '['; echo; echo "$GOOD"; } >"$BATS_TEST_TMPDIR/big"
	run verdicts "$BATS_TEST_TMPDIR/big"
	[ "${lines[0]}" = "1:too_large" ]
	[ "${lines[1]}" = "2:valid" ]
	bounded "$output"
	run --separate-stderr arc-apply "$BATS_TEST_TMPDIR/big"
	[ "$(jq -sc 'map([.line, .status])' <<<"$output")" = '[[1,413],[2,201]]' ]
}

@test "lines of 65,536 and 65,537 bytes, through arc-apply too" {
	run --separate-stderr arc-apply "$FIXTURES/valid/size-65536.json" "$FIXTURES/invalid/size-65537.json"
	[ "$(jq -sc 'map(.status)' <<<"$output")" = '[201,413]' ]
}

@test "deep nesting (60,000 levels in one line): invalid, no stack exhaustion" {
	{ printf '{"x":'; head -c 60000 /dev/zero | tr '\0' '['; echo; echo "$GOOD"; } >"$BATS_TEST_TMPDIR/deep"
	run verdicts "$BATS_TEST_TMPDIR/deep"
	[ "${lines[0]}" = "1:invalid" ]
	[ "${lines[1]}" = "2:valid" ]
	run --separate-stderr arc-validate "$BATS_TEST_TMPDIR/deep"
	[[ "$stderr" == *"nesting too deep"* ]]
}

@test "10,000 members in one object: every duplicate counted, 64 listed" {
	{ sed 's/}}$/},"extensions":{"x-a":{/' <<<"$GOOD" | tr -d '\n'
	  for i in $(seq 9999); do printf '"a":0,'; done; printf '"a":0}}}\n'; echo "$GOOD"; } >"$BATS_TEST_TMPDIR/wide"
	[ "$(head -1 "$BATS_TEST_TMPDIR/wide" | wc -c)" -le 65537 ]
	run --separate-stderr arc-validate --report "$BATS_TEST_TMPDIR/wide"
	[ "$(jq -sc 'map(.valid)' <<<"$output")" = '[false,true]' ]
	[ "$(jq -s '.[0] | (.errors | length) + .errors_not_shown' <<<"$output")" -eq 9999 ]
	[ "$(jq -s '.[0].errors | length' <<<"$output")" -eq 64 ]
	[[ "$stderr" == *"9935 more problems not shown"* ]]
}

@test "5,000 distinct unknown members in one object: each one judged" {
	{ sed 's/"sender":{"id":"codex"}/"sender":{"id":"codex",/' <<<"$GOOD" | sed 's/,"request".*//' | tr -d '\n'
	  for i in $(seq 4999); do printf '"k%d":0,' "$i"; done; printf '"k0":0},"request":{"kind":"information","message":"m"}}\n'
	  echo "$GOOD"; } >"$BATS_TEST_TMPDIR/wide"
	run --separate-stderr arc-validate --report "$BATS_TEST_TMPDIR/wide"
	[ "$(jq -sc 'map(.valid)' <<<"$output")" = '[false,true]' ]
	[ "$(jq -s '.[0] | (.errors | length) + .errors_not_shown' <<<"$output")" -eq 5000 ]
	[ "$(jq -rs '.[0].errors[0].path' <<<"$output")" = /sender/k1 ]
}

@test "duplicate member names at every level, each at its own path" {
	local base; base=$(cat "$FIXTURES/valid/spec-created.json")
	local dup
	for dup in 's/"request":{"key"/"request":{"key":"a","key"/' \
	    's/"context":{"session_id"/"context":{"session_id":"a","session_id"/' \
	    's/"response":{"kind"/"response":{"kind":"text","kind"/' \
	    's/{"id":"deny"/{"id":"x","id":"deny"/'; do
		sed "$dup" <<<"$base"
	done >"$BATS_TEST_TMPDIR/dups"
	run --separate-stderr arc-validate --report "$BATS_TEST_TMPDIR/dups"
	[ "$(jq -r '.errors[] | select(.message == "duplicate member name") | .path' <<<"$output" | tr '\n' ' ')" = "/request/key /context/session_id /request/response/kind /request/response/choices/1/id " ]
}

@test "NUL bytes, raw, in and out of strings: invalid, and the stream goes on" {
	{ printf '{"arc_version":"0.2\0"}\n'; printf '\0\0\0\n'; printf '{\0}\n'; echo "$GOOD"; } >"$BATS_TEST_TMPDIR/nul"
	run verdicts "$BATS_TEST_TMPDIR/nul"
	[ "${lines[*]:0:4}" = "1:invalid 2:invalid 3:invalid 4:valid" ]
}

@test "invalid UTF-8 of every class: overlong, surrogate, past U+10FFFF, stray, truncated, C0/C1/F5-FF" {
	local b
	for b in '\xc0\x80' '\xc1\xbf' '\xe0\x9f\xbf' '\xf0\x8f\xbf\xbf' '\xed\xa0\x80' '\xed\xbf\xbf' \
	    '\xf4\x90\x80\x80' '\xf5\x80\x80\x80' '\xfe' '\xff' '\x80' '\xbf' '\xc3' '\xe2\x82' '\xf0\x9f\x98' \
	    '\xc3\x28' '\xe2\x28\xa1'; do
		printf '{"arc_version":"0.2","event_id":"'"$b"'"}\n'
	done >"$BATS_TEST_TMPDIR/utf8"
	echo "$GOOD" >>"$BATS_TEST_TMPDIR/utf8"
	run --separate-stderr arc-validate --report "$BATS_TEST_TMPDIR/utf8"
	[ "$(jq -s 'map(select(.valid == false and .errors[0].path == "")) | length' <<<"$output")" -eq 17 ]
	[ "$(jq -s 'last | .valid' <<<"$output")" = true ]
	[[ "$stderr" == *"invalid UTF-8"* ]]
}

@test "numbers beyond 2^63 and beyond double: pid refused, extension values kept" {
	local e='"extensions":{"x-n":[1e999999,-1e-999999,123456789012345678901234567890]}'
	{ sed 's/"request"/"context":{"pid":99999999999999999999999999999},"request"/' <<<"$GOOD"
	  sed "s/}}\$/},$e}/" <<<"$GOOD"; } >"$BATS_TEST_TMPDIR/nums"
	run --separate-stderr arc-validate --report "$BATS_TEST_TMPDIR/nums"
	[ "$(jq -sc 'map([.valid, (.errors[0].path // "-")])' <<<"$output")" = '[[false,"/context/pid"],[true,"-"]]' ]
}

@test "control bytes in member names never reach the terminal raw" {
	printf '{"arc_version":"0.2","\\u001b[31mred":1}\n' >"$BATS_TEST_TMPDIR/esc"
	run --separate-stderr arc-validate "$BATS_TEST_TMPDIR/esc"
	[[ "$stderr" == *'/\x1b[31mred: unknown member'* ]]
	[[ "$stderr" != *$'\e'* ]]
}

@test "the fuzzers' kept crashers are handled by the commands themselves" {
	local f
	for f in "$FIXTURES"/fuzz/fuzz_journal/*; do
		cp "$f" "$BATS_TEST_TMPDIR/j"
		run --separate-stderr arc-status -j "$BATS_TEST_TMPDIR/j"
		[ "$status" -eq 0 ] || [ "$status" -eq 3 ]
		run --separate-stderr arc-apply -j "$BATS_TEST_TMPDIR/j" </dev/null
		[ "$status" -eq 0 ] || [ "$status" -eq 3 ]
	done
	for f in "$FIXTURES"/fuzz/fuzz_validate/* "$FIXTURES"/fuzz/fuzz_apply/*; do
		[ -f "$f" ] || continue
		run --separate-stderr arc-apply -j "$BATS_TEST_TMPDIR/j2" "$f"
		[ "$status" -le 1 ]
	done
}
