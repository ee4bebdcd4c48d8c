#!/usr/bin/env bats
# schemas/arc-0.2.schema.json says what arc-validate says, as far as JSON
# Schema can: checked with Debian's python3-jsonschema on every fixture.
load helper

SCHEMA="$BATS_TEST_DIRNAME/../schemas/arc-0.2.schema.json"

# judge_fixtures: the schema's verdict (python3-jsonschema) and
# arc-validate's on every fixture, in $BATS_TEST_TMPDIR/schema and /arc;
# the exempt names in /exempt.
judge_fixtures() {
	local f
	/usr/bin/python3 "$BATS_TEST_DIRNAME/schema-agree" "$SCHEMA" \
	    "$FIXTURES"/valid/*.json "$FIXTURES"/invalid/*.json >"$BATS_TEST_TMPDIR/schema"
	for f in "$FIXTURES"/valid/*.json "$FIXTURES"/invalid/*.json; do
		if arc-validate -q "$f" >/dev/null; then
			printf '%s\tvalid\n' "$(basename "$f" .json)"
		else
			printf '%s\tinvalid\n' "$(basename "$f" .json)"
		fi
	done >"$BATS_TEST_TMPDIR/arc"
	cut -f1 "$FIXTURES/schema-exempt" | grep -v '^#' >"$BATS_TEST_TMPDIR/exempt"
}

@test "the schema is itself a valid JSON Schema (draft 2020-12)" {
	run /usr/bin/python3 -c 'import json,sys; from jsonschema import Draft202012Validator as V; V.check_schema(json.load(open(sys.argv[1])))' "$SCHEMA"
	[ "$status" -eq 0 ]
}

@test "schema and arc-validate agree on every fixture the schema can express" {
	judge_fixtures
	run join -t $'\t' <(sort "$BATS_TEST_TMPDIR/schema") <(sort "$BATS_TEST_TMPDIR/arc")
	[ "$status" -eq 0 ]
	local disagree
	disagree=$(awk -F'\t' '$2 != $3 {print $1}' <<<"$output" | grep -vxFf "$BATS_TEST_TMPDIR/exempt" || true)
	[ -z "$disagree" ] || { echo "schema and arc-validate disagree on: $disagree"; false; }
	[ "$(wc -l <<<"$output")" -eq "$(ls "$FIXTURES"/valid "$FIXTURES"/invalid | grep -c json)" ]
}

@test "every exemption is a real disagreement (the list stays honest)" {
	judge_fixtures
	local name
	while read -r name; do
		[ "$(grep -P "^$name\t" "$BATS_TEST_TMPDIR/schema" | cut -f2)" != \
		  "$(grep -P "^$name\t" "$BATS_TEST_TMPDIR/arc" | cut -f2)" ] ||
		    { echo "exempt but agreeing: $name"; false; }
	done <"$BATS_TEST_TMPDIR/exempt"
}

@test "the schema accepts the spec's examples and rejects an unknown member" {
	run /usr/bin/python3 "$BATS_TEST_DIRNAME/schema-agree" "$SCHEMA" \
	    "$FIXTURES/valid/spec-created.json" "$FIXTURES/invalid/sender-unknown.json"
	[ "${lines[0]}" = $'spec-created\tvalid' ]
	[ "${lines[1]}" = $'sender-unknown\tinvalid' ]
}
