#!/usr/bin/env bats
# The test tree's own rules (t/README): every file keeps the setup and
# teardown that helper.bash gives, so that none drops out of the secrets
# check (t/zz-secrets.bats reads what arc_teardown collects); and a
# helper's name means one thing across the tree.
load helper

T="$BATS_TEST_DIRNAME"

# own FUNCTION FILE: the body of FUNCTION() as FILE defines it, if it does.
own() {
	awk -v fn="$1" '
	    !on && $0 ~ "^(function[ \t]+)?" fn "[ \t]*(\\(\\))?[ \t]*\\{" {
		on = 1; print; if ($0 ~ /\}[ \t]*$/) exit; next }
	    on { print }
	    on && /^\}/ { exit }' "$2"
}

@test "every setup() and teardown() of a file calls arc_setup and arc_teardown: none drops out of the secrets check" {
	local f fn body n=0
	for f in "$T"/*.bats "$T"/slow/*.bats; do
		for fn in setup teardown; do
			body=$(own "$fn" "$f")
			[ -n "$body" ] || continue
			n=$((n + 1))
			grep -qw "arc_$fn" <<<"$body" ||
			    { echo "${f#"$T"/}: $fn() does not call arc_$fn"; return 1; }
		done
		# nor is helper.bash's copied under another name and called
		! grep -n 'declare -f \(setup\|teardown\)' "$f" ||
		    { echo "${f#"$T"/}: call arc_setup or arc_teardown instead"; return 1; }
	done
	[ "$n" -gt 0 ]	# (it finds the files that have their own)
}

@test "one name means one thing: no helper function is defined in two files of the tree" {
	local defs dup
	defs=$(grep -oE '^[A-Za-z_][A-Za-z0-9_]*\(\)' "$T"/*.bats "$T"/slow/*.bats \
	    "$T"/*.bash "$T"/mqtt/lib.bash | sort -u)
	dup=$(sed 's/^.*://' <<<"$defs" | sort | uniq -d |
	    grep -vxE '(setup|teardown|setup_file|teardown_file)\(\)' || true)
	[ -z "$dup" ] || { echo "defined in more than one file:"; grep -F "$dup" <<<"$defs"; false; }
}

@test "no test compiles a helper of its own: the Makefile builds them (make test-helpers)" {
	run grep -nE '(^|[;&|(]|then|do)[[:space:]]*(cc|gcc|clang|\$CC|\$\{CC\})[[:space:]]' \
	    "$T"/*.bats "$T"/slow/*.bats "$T"/*.bash
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	local h
	for h in $(make -s -C "$T/.." -p -n test-helpers 2>/dev/null | sed -n 's/^TEST_HELPERS = //p'); do
		[ -e "$T/../$h" ] || { echo "$h was not built"; false; }
	done
}

@test "a negated command (! CMD) can fail its test: bash's errexit ignores a '!', so each ends in || false or handles its failure itself" {
	local bad
	# a line that begins with '! ' and has no '||' of its own (nor goes on
	# to the next line with one)
	bad=$(grep -nE '^[[:space:]]*! ' "$T"/*.bats "$T"/slow/*.bats "$T"/helper.bash |
	    grep -vE '\|\|' || true)
	[ -z "$bad" ] || { echo "negations that cannot fail:"; echo "$bad"; false; }
	# the rule holds what it says: a '!' alone passes, with || false fails
	run bash -ec '! true; echo went on'
	[ "$output" = "went on" ]
	run bash -ec '! true || false; echo went on'
	[ "$status" -ne 0 ] && [ -z "$output" ]
}
