#!/usr/bin/env bats
# arc-validate: every rule of ARC 0.2's field tables, at the limit and one
# past it, with multi-byte characters counted as code points.
load helper

@test "the spec's own examples are valid and pass through byte for byte" {
	accepts spec-created
	accepts spec-updated
	accepts spec-submitted
	accepts spec-resolved
	accepts text-question
	accepts minimal-information
}

@test "arc_version: exactly \"0.2\"; another string is unsupported_version" {
	rejects version-0.1 /arc_version unsupported_version
	rejects version-0.3 /arc_version unsupported_version
}

@test "arc_version: unsupported_version is reported instead of any other problem" {
	rejects version-0.1-with-other-problems /arc_version unsupported_version
	run --separate-stderr arc-validate --report "$FIXTURES/invalid/version-0.1-with-other-problems.json"
	[ "$(jq '.errors | length' <<<"$output")" -eq 1 ]
}

@test "arc_version: missing or not a string is invalid, not unsupported" {
	rejects version-missing /arc_version
	rejects version-number /arc_version
	rejects version-null /arc_version
}

@test "event_id: 1-512 characters (trimmed), counted in code points" {
	accepts event-id-512
	rejects event-id-513 /event_id
	rejects event-id-empty /event_id
	rejects event-id-missing /event_id
	rejects event-id-number /event_id
}

@test "trimmed: only Unicode White_Space (U+00A0, U+3000 too) counts as missing" {
	rejects event-id-blank /event_id
	rejects event-id-unicode-blank /event_id
	rejects request-message-blank /request/message
	rejects updated-key-blank /request/key
}

@test "trimmed: trimming decides only emptiness; the value is kept as given" {
	accepts event-id-padded
}

@test "event_type: one of the four event types" {
	rejects event-type-missing /event_type
	rejects event-type-unknown /event_type
	rejects event-type-case /event_type
}

@test "occurred_at: required RFC 3339 date-time" {
	rejects occurred-at-missing /occurred_at
	rejects time-number /occurred_at
	rejects time-date-only /occurred_at
	rejects time-no-offset /occurred_at
	rejects time-short-year /occurred_at
}

@test "RFC 3339: offsets up to +/-23:59, written hh:mm" {
	accepts time-offset
	accepts time-offset-max
	rejects time-offset-24 /occurred_at
	rejects time-offset-no-colon /occurred_at
}

@test "RFC 3339: 't' and 'z' in lower case are allowed; a space for 'T' is not" {
	accepts time-lowercase
	rejects time-space /occurred_at
}

@test "RFC 3339: any number of fraction digits, but at least one" {
	accepts time-fraction-long
	rejects time-fraction-empty /occurred_at
}

@test "RFC 3339: a real calendar (leap years, month lengths, hours)" {
	accepts time-leap-day
	accepts time-leap-day-2000
	rejects time-feb-29-common /occurred_at
	rejects time-feb-29-1900 /occurred_at
	rejects time-april-31 /occurred_at
	rejects time-month-13 /occurred_at
	rejects time-hour-24 /occurred_at
	rejects time-leap-second /occurred_at
}

@test "sender: a required object" {
	rejects sender-missing /sender
	rejects sender-string /sender
}

@test "sender.id: required, 1-100 characters (trimmed)" {
	accepts sender-id-100
	rejects sender-id-101 /sender/id
	rejects sender-id-missing /sender/id
	rejects sender-id-blank /sender/id
}

@test "sender.name: at most 160 characters; the empty string is allowed" {
	accepts sender-name-160
	accepts sender-name-empty
	rejects sender-name-161 /sender/name
}

@test "sender.version and sender.instance_id: at most 100 characters" {
	accepts sender-version-100
	rejects sender-version-101 /sender/version
	accepts sender-instance-100
	rejects sender-instance-101 /sender/instance_id
}

@test "null is never a valid value: an optional member is absent, not null" {
	rejects sender-name-null /sender/name
	rejects answer-null-text /response/text
	rejects version-null /arc_version
}

@test "unknown members are rejected at every level" {
	rejects envelope-unknown /priority
	rejects sender-unknown /sender/email
	rejects context-unknown /context/host
	rejects request-unknown /request/color
	rejects spec-unknown /request/response/default
	rejects choice-unknown /request/response/choices/0/icon
	rejects answer-unknown /response/comment
}

@test "context: an optional object" {
	accepts context-empty
	rejects context-array /context
}

@test "context: session_id 100, correlation_id 200, project 200, cwd 1,024 characters" {
	accepts context-session-100
	rejects context-session-101 /context/session_id
	accepts context-correlation-200
	rejects context-correlation-201 /context/correlation_id
	accepts context-project-200
	rejects context-project-201 /context/project
	accepts context-cwd-1024
	rejects context-cwd-1025 /context/cwd
}

@test "context: turn_id and native_request_id at most 200 characters" {
	accepts context-turn-200
	rejects context-turn-201 /context/turn_id
	accepts context-native-200
	rejects context-native-201 /context/native_request_id
}

@test "context.pid: a non-negative plain JSON integer up to 2^63-1" {
	accepts context-pid-0
	accepts context-pid-max
	rejects context-pid-too-big /context/pid
	rejects context-pid-negative /context/pid
	rejects context-pid-fraction /context/pid
	rejects context-pid-exponent /context/pid
	rejects context-pid-string /context/pid
}

@test "request: a required object" {
	rejects request-missing /request
}

@test "request.key: optional on created, where a blank key means keyless" {
	accepts minimal-information
	accepts request-keyless-blank-key
}

@test "request.key: required on updated, submitted and resolved" {
	rejects updated-key-missing /request/key
	rejects submitted-key-missing /request/key
	rejects resolved-key-missing /request/key
}

@test "request.key: 1-100 characters (trimmed)" {
	accepts request-key-100
	rejects request-key-101 /request/key
}

@test "request.kind: required on created and updated, one of six kinds" {
	accepts request-kind-question
	accepts request-kind-blocked
	accepts request-kind-failure
	accepts request-kind-completion
	rejects request-kind-missing /request/kind
	rejects updated-kind-missing /request/kind
	rejects request-kind-unknown /request/kind
}

@test "request.title: at most 200 characters" {
	accepts request-title-200
	rejects request-title-201 /request/title
}

@test "request.message: required on created and updated, 1-4,000 characters (trimmed)" {
	accepts request-message-4000
	rejects request-message-4001 /request/message
	rejects request-message-missing /request/message
	rejects updated-message-missing /request/message
}

@test "request.priority: low, normal, high or critical" {
	accepts request-priority-critical
	rejects request-priority-unknown /request/priority
}

@test "request.outcome: on resolved only, one of the five outcomes" {
	accepts resolved-no-outcome
	accepts resolved-outcome-not-needed
	rejects resolved-outcome-unknown /request/outcome
	rejects request-outcome-on-created /request/outcome
	rejects submitted-request-outcome /request/outcome
}

@test "request on resolved holds key and outcome only; on submitted, key only" {
	rejects resolved-kind /request/kind
	rejects resolved-message /request/message
	rejects resolved-response /request/response
	rejects submitted-request-message /request/message
}

@test "request.response: kind and expires_at are required" {
	rejects spec-kind-missing /request/response/kind
	rejects spec-kind-unknown /request/response/kind
	rejects spec-expires-missing /request/response/expires_at
	rejects spec-expires-invalid /request/response/expires_at
}

@test "request.response: allowed on updated too" {
	accepts spec-on-updated
	rejects spec-on-updated-bad /request/response/choices
}

@test "choices: required for permission and single_choice, 2-12 entries" {
	accepts single-choice
	accepts spec-choices-12
	rejects spec-choices-missing /request/response/choices
	rejects spec-choices-1 /request/response/choices
	rejects spec-choices-13 /request/response/choices
}

@test "choices are forbidden for text; text_max_length is forbidden for choices" {
	rejects spec-text-with-choices /request/response/choices
	rejects spec-choice-kind-max-length /request/response/text_max_length
}

@test "text_max_length: a plain integer from 1 to 2,000, default 500" {
	accepts spec-text-default-max
	accepts spec-text-max-1
	accepts spec-text-max-2000
	rejects spec-text-max-0 /request/response/text_max_length
	rejects spec-text-max-2001 /request/response/text_max_length
	rejects spec-text-max-fraction /request/response/text_max_length
	rejects spec-text-max-exponent /request/response/text_max_length
	rejects spec-text-max-string /request/response/text_max_length
}

@test "choice id: ^[A-Za-z0-9_-]{1,64}\$, matched against the whole string" {
	accepts choice-id-64
	rejects choice-id-65 /request/response/choices/0/id
	rejects choice-id-empty /request/response/choices/0/id
	rejects choice-id-space /request/response/choices/0/id
	rejects choice-id-non-ascii /request/response/choices/0/id
	rejects choice-id-trailing-newline /request/response/choices/0/id
}

@test "choice id: unique within the request, reported at the second occurrence" {
	rejects choice-duplicate-id /request/response/choices/1/id
}

@test "choice label: 1-200 characters (trimmed); detail at most 500" {
	accepts choice-label-200
	rejects choice-label-201 /request/response/choices/0/label
	rejects choice-label-missing /request/response/choices/0/label
	rejects choice-label-blank /request/response/choices/0/label
	accepts choice-detail-500
	rejects choice-detail-501 /request/response/choices/0/detail
	rejects choice-string /request/response/choices/0
}

@test "response: required on response.submitted, forbidden on the others" {
	rejects submitted-response-missing /response
	rejects created-with-response /response
}

@test "response.response_id: 1-128 characters" {
	accepts answer-response-id-128
	rejects answer-response-id-129 /response/response_id
	rejects answer-response-id-empty /response/response_id
	rejects answer-response-id-missing /response/response_id
}

@test "response.digest: exactly 64 lowercase hex characters" {
	rejects answer-digest-missing /response/digest
	rejects answer-digest-uppercase /response/digest
	rejects answer-digest-63 /response/digest
	rejects answer-digest-65 /response/digest
}

@test "response.nonce: optional at validation, at most 128 characters" {
	accepts answer-nonce-missing
	accepts answer-nonce-128
	rejects answer-nonce-129 /response/nonce
}

@test "response: exactly one of choice_id and text; both or neither at /response" {
	rejects answer-both /response
	rejects answer-neither /response
	accepts answer-text
}

@test "response.choice_id: any string at validation, never an array (no multi-select)" {
	accepts answer-choice-any-string
	rejects answer-choice-array /response/choice_id
}

@test "response.text: at most 2,000 characters" {
	accepts answer-text-2000
	rejects answer-text-2001 /response/text
}

@test "response.source: ^[A-Za-z0-9_-]{1,64}\$; device_id at most 128 characters" {
	accepts answer-source-64
	rejects answer-source-65 /response/source
	rejects answer-source-space /response/source
	accepts answer-device-128
	rejects answer-device-129 /response/device_id
}

@test "extensions: member names match ^x-[a-z0-9][a-z0-9.-]{0,63}\$" {
	accepts ext-vendor
	accepts ext-name-dots
	accepts ext-name-64
	rejects ext-name-65 "/extensions/x-$(printf 'a%.0s' $(seq 65))"
	rejects ext-name-upper /extensions/X-acme
	rejects ext-name-upper-vendor /extensions/x-Acme
	rejects ext-name-empty-vendor /extensions/x-
	rejects ext-name-leading-dot /extensions/x-.acme
	rejects ext-name-underscore /extensions/x-acme_tools
	rejects ext-not-object /extensions
}

@test "x-agentnotify: an object whose only member is notification_type, a string" {
	accepts ext-agentnotify-empty
	accepts ext-agentnotify-type
	rejects ext-agentnotify-unknown /extensions/x-agentnotify/sound
	rejects ext-agentnotify-type-number /extensions/x-agentnotify/notification_type
	rejects ext-agentnotify-string /extensions/x-agentnotify
}

@test "x-... members belong inside extensions only" {
	rejects ext-at-envelope /x-acme
	rejects request-extension-name /request/x-acme
}

@test "JSON: duplicate member names are invalid anywhere, reported at the duplicate" {
	rejects json-duplicate-top /arc_version
	rejects json-duplicate-sender /sender/id
	rejects json-duplicate-choice-member /request/response/choices/1/label
	rejects json-duplicate-in-extension /extensions/x-acme/deep/0/k
	rejects json-duplicate-escaped-name /sender/id
}

@test "JSON: only well-formed UTF-8 (no overlong forms, surrogates, or stray bytes)" {
	rejects json-overlong-slash ""
	rejects json-overlong-3 ""
	rejects json-overlong-4 ""
	rejects json-raw-surrogate ""
	rejects json-beyond-unicode ""
	rejects json-byte-f5 ""
	rejects json-lone-continuation ""
	rejects json-truncated-sequence ""
	rejects json-latin1 ""
}

@test "JSON: lone surrogates, raw or escaped, are invalid; a proper pair is valid" {
	accepts json-surrogate-pair
	rejects json-lone-high-surrogate ""
	rejects json-lone-low-surrogate ""
	rejects json-reversed-pair ""
}

@test "JSON: an escaped \\u0000 is valid; raw control bytes in strings are not" {
	accepts json-escaped-nul
	accepts json-escapes
	rejects json-raw-nul ""
	rejects json-raw-tab-in-string ""
	rejects json-bad-escape ""
}

@test "JSON: no NaN, Infinity or leading zeros" {
	rejects json-nan ""
	rejects json-infinity ""
	rejects json-leading-zero ""
}

@test "JSON: white space between tokens is space, tab, CR and LF only" {
	accepts json-whitespace
	rejects json-form-feed ""
	rejects json-nbsp-between-tokens ""
	rejects json-bom ""
}

@test "JSON: exactly one object per line, nothing after it" {
	rejects json-trailing-bytes ""
	rejects json-two-objects ""
	rejects json-trailing-comma ""
	rejects json-single-quotes ""
	rejects json-array ""
	rejects json-string ""
	rejects json-truncated ""
}

@test "JSON: nesting is bounded" {
	accepts json-deep-60
	rejects json-too-deep ""
}

@test "a line of 65,536 bytes is read; one of 65,537 is too_large" {
	accepts size-65536
	rejects size-65537 "" too_large
}

@test "every fixture in the corpus is named by a test of this file" {
	local f name missing=0
	for f in "$FIXTURES"/valid/*.json "$FIXTURES"/invalid/*.json; do
		name=$(basename "$f" .json)
		grep -Eq "(accepts|rejects) $name( |\$)" "$BATS_TEST_FILENAME" ||
		    { echo "untested fixture: $name"; missing=1; }
	done
	[ "$missing" -eq 0 ]
}

@test "all problems of a line are reported, not only the first" {
	printf '%s\n' '{"arc_version":"0.2","event_id":"","event_type":"request.created","occurred_at":"yesterday","sender":{},"request":{"kind":"nope","message":""}}' >"$BATS_TEST_TMPDIR/many.json"
	run --separate-stderr arc-validate --report "$BATS_TEST_TMPDIR/many.json"
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.errors[].path] | sort' <<<"$output")" = '["/event_id","/occurred_at","/request/kind","/request/message","/sender/id"]' ]
}

@test "filter mode: valid lines pass, invalid ones are dropped, exit 1" {
	cat "$FIXTURES/valid/spec-created.json" "$FIXTURES/invalid/json-nan.json" \
	    "$FIXTURES/valid/spec-resolved.json" >"$BATS_TEST_TMPDIR/mixed"
	run --separate-stderr arc-validate "$BATS_TEST_TMPDIR/mixed"
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 2 ]
	[ "$(printf '%s\n' "$output" | jq -r .event_type | tr '\n' ' ')" = "request.created request.resolved " ]
}

@test "diagnostics: PROG: NAME:LINE: PATH: MESSAGE on standard error" {
	printf '\n%s\n' "$(cat "$FIXTURES/invalid/sender-id-101.json")" >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr arc-validate "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "arc-validate: $BATS_TEST_TMPDIR/in:2: /sender/id: must be at most 100 characters (has 101)" ]]
}

@test "diagnostics: standard input is named '-'" {
	run --separate-stderr arc-validate <"$FIXTURES/invalid/request-missing.json"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "arc-validate: -:1: /request: missing required member" ]]
}

@test "-q: no diagnostics, same output and status" {
	run --separate-stderr arc-validate -q "$FIXTURES/invalid/request-missing.json"
	[ "$status" -eq 1 ]
	[ -z "$stderr" ]
	[ -z "$output" ]
}

@test "--report: one object per non-blank line, in order, with line numbers" {
	{ cat "$FIXTURES/valid/spec-created.json"; echo; echo '   '; cat "$FIXTURES/invalid/version-0.1.json"; } >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr arc-validate --report "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = '{"line":1,"valid":true}' ]
	[ "$(jq -c '{line, valid, code: .errors[0].code}' <<<"${lines[1]}")" = '{"line":4,"valid":false,"code":"unsupported_version"}' ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "a line holding only white space is skipped" {
	printf ' \t\n\n' >"$BATS_TEST_TMPDIR/blank"
	run arc-validate "$BATS_TEST_TMPDIR/blank"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "a line without its final newline is still read" {
	printf '%s' "$(cat "$FIXTURES/valid/spec-resolved.json")" >"$BATS_TEST_TMPDIR/nonl"
	run arc-validate "$BATS_TEST_TMPDIR/nonl"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$FIXTURES/valid/spec-resolved.json")" ]
}

@test "too_large: reading goes on with the next line" {
	{ head -c 200000 /dev/zero | tr '\0' ' '; echo; cat "$FIXTURES/valid/spec-resolved.json"; } >"$BATS_TEST_TMPDIR/big"
	run --separate-stderr arc-validate --report "$BATS_TEST_TMPDIR/big"
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.line, .valid, .errors[0].code]' <<<"${lines[0]}")" = '[1,false,"too_large"]' ]
	[ "${lines[1]}" = '{"line":2,"valid":true}' ]
}

@test "several files are read in order, each with its own line numbers" {
	run --separate-stderr arc-validate --report "$FIXTURES/valid/spec-created.json" - <"$FIXTURES/invalid/json-nan.json"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = '{"line":1,"valid":true}' ]
	[[ "${lines[1]}" == '{"line":1,"valid":false,'* ]]
}

@test "exit 3 when a file cannot be read; the others are still checked" {
	run --separate-stderr arc-validate "$BATS_TEST_TMPDIR/absent" "$FIXTURES/valid/spec-created.json"
	[ "$status" -eq 3 ]
	[ "$output" = "$(cat "$FIXTURES/valid/spec-created.json")" ]
	[[ "$stderr" == *"absent: No such file or directory"* ]]
}

@test "usage: --help exits 0 on stdout; a bad option exits 2 on stderr" {
	run --separate-stderr arc-validate --help
	[ "$status" -eq 0 ]
	[[ "$output" == usage:* ]]
	run --separate-stderr arc-validate --bogus
	[ "$status" -eq 2 ]
	[[ "$stderr" == *usage:* ]]
	run arc-validate --version
	[ "$status" -eq 0 ]
	[[ "$output" == arc-validate* ]]
}

@test "no diagnostic quotes a value of the event" {
	printf '%s\n' '{"arc_version":"0.2","event_id":"SECRETXYZ","event_type":"request.created","occurred_at":"2026-08-26T01:15:00Z","sender":{"id":"codex"},"request":{"kind":"permission","message":"SECRETXYZ","response":{"kind":"permission","choices":[{"id":"SECRETXYZ","label":"SECRETXYZ"},{"id":"SECRETXYZ","label":"x"}],"expires_at":"SECRETXYZ"}}}' >"$BATS_TEST_TMPDIR/s"
	run --separate-stderr arc-validate --report "$BATS_TEST_TMPDIR/s"
	[ "$status" -eq 1 ]
	[[ "$stderr$output" != *SECRETXYZ* ]]
}
