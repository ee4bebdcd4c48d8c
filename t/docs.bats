#!/usr/bin/env bats
# The manuals: one for every command, all of them lint-clean mdoc.
load helper

@test "every command has a man page, and every page is mandoc -Tlint clean" {
	local top="$BATS_TEST_DIRNAME/.." c
	for c in $(sed -n 's/^COMMANDS = //p' "$top/Makefile"); do
		[ -f "$top/man/$c.1" ] || { echo "no man page for $c"; false; }
	done
	run mandoc -Tlint -Wwarning "$top"/man/*.[157]
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "make install puts the commands and the pages under PREFIX" {
	local top="$BATS_TEST_DIRNAME/.."
	run make -s -C "$top" install PREFIX="$BATS_TEST_TMPDIR/usr"
	[ "$status" -eq 0 ]
	[ -x "$BATS_TEST_TMPDIR/usr/bin/arc-validate" ]
	[ -x "$BATS_TEST_TMPDIR/usr/bin/arc-apply" ]
	[ -f "$BATS_TEST_TMPDIR/usr/share/man/man7/arc.7" ]
	[ -f "$BATS_TEST_TMPDIR/usr/share/man/man5/arc-journal.5" ]
	run "$BATS_TEST_TMPDIR/usr/bin/arc-validate" "$FIXTURES/valid/spec-created.json"
	[ "$status" -eq 0 ]
}
