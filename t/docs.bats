#!/usr/bin/env bats
# The manuals: one for every command, lint-clean mdoc that reads the same
# under man(1) (groff) and mandoc(1), with examples that survive rendering;
# and the command-line habits every command shares.
load helper

TOP="$BATS_TEST_DIRNAME/.."
COMMANDS="arc-validate arc-apply arc-status arc-wait arc-answer arc-emit"

@test "every command has a man page, and every page is mandoc -Tlint clean" {
	local c
	for c in $(sed -n 's/^COMMANDS = //p' "$TOP/Makefile"); do
		[ -f "$TOP/man/$c.1" ] || [ -f "$TOP/man/$c.8" ] || { echo "no man page for $c"; false; }
	done
	run mandoc -Tlint -Wwarning "$TOP"/man/*.[1578]
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run make -s -C "$TOP" lint-man
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

# words PAGE ENGINE: a rendered page as a list of words, without what the
# two formatters may do differently and harmlessly: hyphenation at line
# ends, the quotes of .Ql (`x' or 'x'), the dash of the NAME line.
words() {
	case $2 in
	man) MANWIDTH=80 man -l -Tascii "$1" 2>/dev/null ;;
	mandoc) mandoc -Tascii -Owidth=78 "$1" ;;
	esac | col -bx | sed '1d;$d' | tr '`' "'" |
	    sed -E ':a; /[A-Za-z]-$/ { N; s/-\n *([A-Za-z])/\1/; ta }; s/([A-Za-z])-([A-Za-z])/\1\2/g' |
	    tr -s ' \n' '\n\n' | sed '/^$/d; s/^--$/-/'
}

@test "every page reads the same under man (groff) and mandoc: no word lost, glued or reordered" {
	local p
	for p in "$TOP"/man/*.[1578]; do
		run diff <(words "$p" mandoc) <(words "$p" man)
		[ "$status" -eq 0 ] || { echo "${p##*/}: mandoc < > man"; echo "$output"; false; }
	done
}

@test "every one-line example (.Dl) renders as written, quotes and final dots kept, under man and mandoc" {
	local p line man mandoc n=0
	for p in "$TOP"/man/*.[1578]; do
		man=$(MANWIDTH=200 man -l "$p" 2>/dev/null | col -bx)
		mandoc=$(mandoc -Tutf8 -Owidth=200 "$p" | col -bx)
		while IFS= read -r line; do
			n=$((n + 1))
			grep -qF -- "$line" <<<"$man" || { echo "${p##*/} under man: $line"; false; }
			grep -qF -- "$line" <<<"$mandoc" || { echo "${p##*/} under mandoc: $line"; false; }
		done < <(sed -n 's/^\.Dl //p' "$p" | sed 's/\\e/\\/g; s/\\(aq/'"'"'/g; s/\\(dq/"/g; s/\\&//g')
	done
	[ "$n" -gt 5 ]
	# arc-journal(5)'s jq example, as a person copies it
	mandoc -Tutf8 -Owidth=200 "$TOP/man/arc-journal.5" | col -bx |
	    grep -qF "jq -r 'select(.event.type == \"response.submitted\")"
}

@test "the man pages list the values of every enumerated option" {
	local emit status v
	emit=$(mandoc -Tascii "$TOP/man/arc-emit.1" | col -bx)
	for v in information question permission blocked failure completion \
	    low normal high critical answered expired cancelled superseded not_needed \
	    single_choice text created updated resolved; do
		grep -qw -- "$v" <<<"$emit" || { echo "arc-emit(1) does not name $v"; false; }
	done
	status=$(mandoc -Tascii "$TOP/man/arc-status.1" | col -bx)
	for v in low normal high critical pending answered expired cancelled superseded none \
	    %p %n %a %x %h %d %k %t %%; do
		grep -qw -- "$v" <<<"$status" || grep -qF -- "$v" <<<"$status" ||
		    { echo "arc-status(1) does not name $v"; false; }
	done
}

@test "every command: -h and --help print the usage on stdout and exit 0" {
	local c h
	for c in $COMMANDS; do
		for h in -h --help; do
			run --separate-stderr "$c" "$h"
			[ "$status" -eq 0 ] || { echo "$c $h: exit $status"; false; }
			[[ "$output" == "usage: $c "* ]] || { echo "$c $h: $output"; false; }
			[ -z "$stderr" ] || { echo "$c $h: $stderr"; false; }
		done
	done
}

@test "arc-notify, like every command: --help and -h print the usage, --version and -V the version" {
	local h
	for h in -h --help; do
		run --separate-stderr arc-notify "$h"
		[ "$status" -eq 0 ] || { echo "arc-notify $h: exit $status"; false; }
		[[ "$output" == "usage: arc-notify "* ]]
		[ -z "$stderr" ]
	done
	for h in -V --version; do
		run --separate-stderr arc-notify "$h"
		[ "$status" -eq 0 ] || { echo "arc-notify $h: exit $status"; false; }
		[ "$output" = "$(arc-status --version | sed 's/^arc-status /arc-notify /')" ] ||
		    { echo "arc-notify $h: $output"; false; }
		[ -z "$stderr" ]
	done
	run --separate-stderr arc-notify --no-such-option
	[ "$status" -eq 2 ]
	[[ "${stderr_lines[1]}" == "usage: arc-notify "* ]]
}

@test "arc-status and arc-emit --help explain every option their pages give an item: it starts a line, with its default" {
	local c o
	for c in arc-status arc-emit; do
		for o in $(grep -o '^\.It Fl -[a-z-]*' "$TOP/man/$c.1" | sed 's/.*Fl /-/' | sort -u); do
			"$c" --help | grep -qE -- "^  (-[a-zA-Z], )?$o( |,|\$)" ||
			    { echo "$c --help: $o has no line of its own"; false; }
		done
	done
	# what an option does when it is not given, as the page says
	arc-emit --help | grep -A1 -- '^  --session-id ' | grep -qF '$ARC_SESSION_ID'
	arc-status --help | grep -A1 -- '^  --no-cache ' | grep -q 'no'
}

@test "every command: a usage error says what was wrong before the usage, on stderr, exit 2" {
	local c
	for c in $COMMANDS; do
		run --separate-stderr "$c" --no-such-option
		[ "$status" -eq 2 ] || { echo "$c: exit $status"; false; }
		[ -z "$output" ]
		[[ "${stderr_lines[0]}" == *"$c: "*"--no-such-option"* ]] || { echo "$c: $stderr"; false; }
		[[ "${stderr_lines[1]}" == "usage: $c "* ]] || { echo "$c: $stderr"; false; }
	done
}

@test "diagnostics never carry an empty field: a whole-line problem has no path" {
	run --separate-stderr arc-validate <<<'garbage'
	[ "$status" -eq 1 ]
	[[ "$stderr" == "arc-validate: -:1: not JSON: "* ]]
	run --separate-stderr arc-apply <<<'[1]'
	[ "$status" -eq 1 ]
	[[ "$stderr" == "arc-apply: -:1: "* ]]
	[[ "$stderr" != *": : "* ]]
}

@test "every option a command's usage names is described in its page" {
	local c opt page
	for c in $COMMANDS; do
		page=$(mandoc -Tascii "$TOP/man/$c.1" | col -bx | sed -n '/^DESCRIPTION/,$p')
		for opt in $("$c" --help | grep -oE -- '[[ |]--?[a-z][a-z-]*' | tr -d '[ |'); do
			grep -qE -- "(^|[ ,])$opt([ ,:.]|$)" <<<"$page" || { echo "$c: $opt is not described"; false; }
		done
	done
}

@test "make install puts the commands, the pages and the schema under PREFIX" {
	run make -s -C "$TOP" install PREFIX="$BATS_TEST_TMPDIR/usr"
	[ "$status" -eq 0 ]
	[ -x "$BATS_TEST_TMPDIR/usr/bin/arc-validate" ]
	[ -x "$BATS_TEST_TMPDIR/usr/bin/arc-apply" ]
	[ -f "$BATS_TEST_TMPDIR/usr/share/man/man7/arc.7" ]
	[ -f "$BATS_TEST_TMPDIR/usr/share/man/man5/arc-journal.5" ]
	cmp "$TOP/schemas/arc-0.2.schema.json" "$BATS_TEST_TMPDIR/usr/share/arc/arc-0.2.schema.json"
	run "$BATS_TEST_TMPDIR/usr/bin/arc-validate" "$FIXTURES/valid/spec-created.json"
	[ "$status" -eq 0 ]
	# the installed arc-hook's settings name it, whatever the tree was
	# built for (the tree's own arc-hook names itself)
	"$BATS_TEST_TMPDIR/usr/bin/arc-hook" --settings claude-code |
	    jq -e --arg c "$BATS_TEST_TMPDIR/usr/bin/arc-hook claude-code" \
	    '[.hooks[][].hooks[].command] | unique == [$c]' >/dev/null
	"$ARC_BIN/arc-hook" --settings gemini |
	    jq -e --arg c "$(realpath "$ARC_BIN/arc-hook") gemini" \
	    '[.hooks[][].hooks[].command] | unique == [$c]' >/dev/null
	# the installed pages are the ones man finds
	MANPATH="$BATS_TEST_TMPDIR/usr/share/man" run man -w arc-status
	[ "$output" = "$BATS_TEST_TMPDIR/usr/share/man/man1/arc-status.1" ]
}

@test "make demo installs only what the demo runs: no compiler, valgrind or broker; make check what the tests need" {
	run make -s -n -C "$TOP" deps-demo
	[ "$status" -eq 0 ]
	[[ "$output" == *"libbsd-dev libmd-dev libzstd-dev jq procps;"* ]]
	! grep -qE 'clang|valgrind|mosquitto|cjson|libsystemd' <<<"$output" || false
	run make -s -n -C "$TOP" deps-check
	[[ "$output" == *" mosquitto "* && "$output" == *" tmux "* && "$output" == *" bats "* ]]
	run make -s -n -C "$TOP" demo
	[[ "$output" != *"deps-check"* ]]
	# nor arc-notify, the one binary that needs libsystemd-dev
	run make -p -n -C "$TOP" demo
	! grep -qE '^demo:.*(all|arc-notify)' <<<"$output" || false
	grep -qE '^demo:.*arc-validate' <<<"$output"
}

@test "make check and make install install nothing: each names what is missing and stops; make deps installs it" {
	run make -s -n -C "$TOP" check
	[ "$status" -eq 0 ]
	[[ "$output" != *"apt-get update"* ]]
	run make -s -n -C "$TOP" install PREFIX="$BATS_TEST_TMPDIR/usr"
	[ "$status" -eq 0 ]
	[[ "$output" != *"apt-get update"* ]]
	run --separate-stderr make -s -C "$TOP" need-check \
	    DEBS_CHECK="bats arc-no-such-package"
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "make check needs these Debian packages: arc-no-such-package" ]
	[[ "${stderr_lines[1]}" == "make deps-check installs them"* ]]
	run --separate-stderr make -s -C "$TOP" need-build \
	    DEBS_BUILD="arc-no-such-package"
	[ "$status" -eq 2 ]
	[ "${stderr_lines[0]}" = "make install needs these Debian packages: arc-no-such-package" ]
	run make -s -n -C "$TOP" deps
	[[ "$output" == *"apt-get update"* ]]
}

@test "arc-apply --salvage: the usage, the page and the program agree that -j is optional (the usual journal)" {
	arc-apply --help | grep -qxF '       arc-apply [-j journal] --salvage new-journal'
	mandoc -Tascii "$TOP/man/arc-apply.1" | col -bx |
	    grep -qE '^ +arc-apply \[-j journal\] --salvage new-journal$'
	arc-emit --key k --kind information --message m | arc-apply >/dev/null
	run --separate-stderr arc-apply --salvage "$BATS_TEST_TMPDIR/new"
	[ "$status" -eq 0 ]
	ARC_JOURNAL="$BATS_TEST_TMPDIR/new" run --separate-stderr arc-status --list
	[ "$status" -eq 0 ]
	[[ "$output" == k$'\t'* ]]
}

@test "a part of a key: --help, arc-answer(1)'s 'A script' and the README say alike that a script names the key whole, a part only at a terminal" {
	local help page readme t
	help=$(arc-answer --help | tr -s ' \n' '  ')
	page=$(mandoc -Tascii -Owidth=200 "$TOP/man/arc-answer.1" | col -bx |
	    sed -n '/^ *A script$/,/^ *A person$/p' | tr -s ' \n' '  ')
	readme=$(tr -s ' \n' '  ' <"$TOP/README")
	[ -n "$page" ]
	for t in "$help" "$page" "$readme"; do
		[[ "${t,,}" == *"a script names the key whole"* ]]
		[[ "$t" == *"part of"*"terminal"* ]]
	done
	# none of them offers a part to a script
	[[ "$help" != *"key (or a part of a key), as a script"* ]]
	[[ "$page" != *"is a key, or, when no condition has it, an unambiguous part"* ]]
	# the page and the README give the refusal's words, as the program says them
	[[ "$page" == *"no question under this key; a part of a key is taken only at a terminal: name the key whole"* ]]
	[[ "$readme" == *"no question under this key; a part of a key is taken only at a terminal"* ]]
}

@test "the README's follow recipe: each change once, across a compaction, no nonce; and how to get the commands on PATH after make demo" {
	local recipe out="$BATS_TEST_TMPDIR/follow"
	recipe=$(grep -E '^  arc-status --follow \| jq ' "$TOP/README")
	[ -n "$recipe" ]
	! grep -qE '^  tail .*-F .*journal' "$TOP/README" || false
	arc-apply <<<"$(information a)" >/dev/null
	arc-apply <<<"$(created b)" >/dev/null
	setsid bash -c "$recipe" >"$out" 2>/dev/null 3>&- &
	local pid=$!
	eventually grep -q '"key":"b"' "$out"
	arc-apply --compact >/dev/null
	arc-apply <<<"$(information c)" >/dev/null
	eventually grep -q '"key":"c"' "$out"
	kill -- -"$pid" 2>/dev/null || :	# the recipe's own process group
	wait "$pid" 2>/dev/null || :
	[ "$(grep -c '"key":"a"' "$out")" -eq 1 ] || { cat "$out"; false; }
	[ "$(grep -c '"key":"b"' "$out")" -eq 1 ]
	! grep -q nonce "$out" || false
	# after make demo: the two ways the README gives, each of which works
	grep -qF 'make install PREFIX=$HOME/.local' "$TOP/README"
	grep -qF 'export PATH=$PWD:$PATH' "$TOP/README"
	[ "$(cd "$TOP" && env -i PATH=/usr/bin:/bin bash -c 'export PATH=$PWD:$PATH; command -v arc-status')" = "$(cd "$TOP" && pwd)/arc-status" ]
	make -s -C "$TOP" install PREFIX="$BATS_TEST_TMPDIR/home/.local" >/dev/null
	[ -x "$BATS_TEST_TMPDIR/home/.local/bin/arc-status" ]
}
