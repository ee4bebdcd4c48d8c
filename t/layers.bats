#!/usr/bin/env bats
# The house's layers hold (t/layers, ARCHITECTURE.md): includes and calls
# run down, a header declares only its own file's functions, no cycle; and
# the check fails on each kind of breach, so that the tree cannot drift.
load helper

TOP="$BATS_TEST_DIRNAME/.."

setup() {
	arc_setup 2>/dev/null || export ARC_JOURNAL="$BATS_TEST_TMPDIR/state/journal"
	W="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$W/t"
	cp "$TOP"/*.c "$TOP"/*.h "$TOP"/*.o "$TOP/Makefile" "$TOP/README" "$W/"
	cp "$TOP/t/layers" "$W/t/"
}

cc_one() { # FILE: rebuilt by the Makefile's own rule, warnings off
	touch "$W/$1"
	make -s -C "$W" -f "$TOP/Makefile" WARN=-w "${1%.c}.o"
}

@test "the tree as it is: every include and call runs down, no cycle" {
	run "$TOP/t/layers"
	[ "$status" -eq 0 ]
	[[ "$output" == "layers: every include and call runs down, no cycle"* ]]
}

@test "an include that runs up the layers fails the check, naming both" {
	sed -i '0,/#include "arcstate.h"/s//#include "arcstate.h"\n#include "arcjournal.h"/' "$W/arcstate.c"
	run "$W/t/layers"
	[ "$status" -eq 1 ]
	[[ "$output" == *"arcstate.c (L2) includes arcjournal.h (L4)"* ]]
}

@test "siblings of L3 never include each other" {
	sed -i '0,/#include "arclog.h"/s//#include "arclog.h"\n#include "arcrules.h"/' "$W/arclog.c"
	run "$W/t/layers"
	[ "$status" -eq 1 ]
	[[ "$output" == *"arclog.c (L3) includes arcrules.h (L3)"* ]]
}

@test "a call that runs up the layers fails the check (nm)" {
	printf '\nvoid up(void);\nvoid up(void) { (void)state_new(false); }\n' >>"$W/arcrecord.c"
	printf 'struct state *state_new(_Bool);\n' | cat - "$W/arcrecord.c" >"$W/x.c" && mv "$W/x.c" "$W/arcrecord.c"
	cc_one arcrecord.c
	run "$W/t/layers"
	[ "$status" -eq 1 ]
	[[ "$output" == *"arcrecord (L1) calls state_new of arcstate (L2)"* ]]
}

@test "a header that declares another file's function fails the check" {
	sed -i 's/^#endif \/\* ARCRECORD_H \*\//bool state_put_again(struct state *);\n&/' "$W/arcrecord.h"
	run "$W/t/layers"
	[ "$status" -eq 1 ]
	[[ "$output" == *"arcrecord.h declares state_put_again, which arcrecord.c does not define"* ]]
}

@test "a cycle, even inside L0, fails the check" {
	printf '\n#include "arcterm.h"\nvoid round(struct buf *);\nvoid round(struct buf *b) { term_safe(b, "", 0); }\n' >>"$W/arcbuf.c"
	cc_one arcbuf.c
	run "$W/t/layers"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the call graph has a cycle"* ]]
}

@test "a file in no layer fails the check until it is given one" {
	printf '#include "arc.h"\n' >"$W/arcnew.c"
	run "$W/t/layers"
	[ "$status" -eq 1 ]
	[[ "$output" == *"arcnew.c: in no layer"* ]]
}

@test "a surface that reads a record's shown text itself fails the check; one that says what else it reads it for does not" {
	# the page writing a title from the record, not from the view
	printf '\nstatic void planted(struct buf *b, const struct rec *n) { buf_put(b, n->f[N_TITLE].p, n->f[N_TITLE].n); }\n' >>"$W/arc-web.c"
	# the desktop reading a choice's detail from the record's JSON
	printf '\nstatic const char *planted_detail(const struct jval *c) { return str_of(NULL, c, "detail"); }\n' >>"$W/arc-notify.c"
	run "$W/t/layers"
	[ "$status" -eq 1 ]
	[[ "$output" == *"arc-web.c:$(wc -l <"$W/arc-web.c"): a surface reads a record's shown text itself"* ]]
	[[ "$output" == *"arc-notify.c:$(wc -l <"$W/arc-notify.c"): a surface reads a record's shown text itself"* ]]
	# the same read, said to be for something else, is not a breach
	cp "$TOP/arc-web.c" "$TOP/arc-notify.c" "$W/"
	printf '\n/* not shown: a rule matches it */\nstatic struct sv planted(const struct rec *n) { return n->f[N_PROJECT]; }\n' >>"$W/arc-web.c"
	run "$W/t/layers"
	[ "$status" -eq 0 ]
}

@test "the rule's surfaces are the programs and verbs that show a question, each in the tree" {
	surfaces=$(sed -n 's/^surfaces="\(.*\)"$/\1/p' "$TOP/t/layers")
	for f in arcpick.c arcshow.c arcfollow.c arc-status.c arc-notify.c arc-web.c; do
		[[ " $surfaces " == *" $f "* ]]
		[ -f "$TOP/$f" ]
	done
}

@test "the map cannot drift: a room the README's map or the Makefile leaves out, or a file the map names that is gone, fails the check" {
	sed -i 's/ arcutf8\.c (the one reader/ (the one reader/' "$W/README"
	sed -i 's/ arcbell\.o / /' "$W/Makefile"
	sed -i 's/arcnarrow\.c (a program/arcnarrow.c arcgone.c (a program/' "$W/README"
	run "$W/t/layers"
	[ "$status" -eq 1 ]
	[[ "$output" == *"README: the map does not name arcutf8.c"* ]]
	[[ "$output" == *"Makefile: arcbell.c is not in OBJS, NOTIFY_OBJS or HEADERS"* ]]
	[[ "$output" == *"README: the map names arcgone.c, which the tree does not hold"* ]]
}
