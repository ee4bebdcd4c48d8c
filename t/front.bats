#!/usr/bin/env bats
# The front command (arc(7), "The arc command"): arc COMMAND runs
# arc-COMMAND, from arc's own folder first; arc help lists the commands,
# arc help COMMAND is arc-COMMAND --help; and make uninstall takes back
# what make install put.
load helper

TOP="$BATS_TEST_DIRNAME/.."

@test "arc help lists every command that has a page of its own, and only those" {
	run arc help
	[ "$status" -eq 0 ]
	listed=$(sed -n '/^$/,/^$/p' <<<"$output" | awk '$1 ~ /^[a-z]+$/ && $1 != "help" { print $1 }' | sort)
	paged=$(ls "$TOP"/man/arc-*.1 | sed 's|.*/arc-||; s|\.1$||' | sort)
	[ "$listed" = "$paged" ]
	[ "$(arc --help)" = "$output" ]
}

@test "arc COMMAND is arc-COMMAND: the same output, the same status" {
	arc-emit --key k --kind question --message "Which?" --choice a:A --choice b:B | arc-apply >/dev/null
	[ "$(arc status --list)" = "$(arc-status --list)" ]
	run arc answer k c
	[ "$status" -eq "$(arc-answer k c >/dev/null 2>&1; echo $?)" ]
	arc answer k a
	[ "$(arc-status --list)" = "" ]
	[ "$(arc help wait)" = "$(arc-wait --help)" ]
	[ "$(arc -V)" = "$(arc-status -V | sed 's/^arc-status/arc/')" ]
}

@test "arc with no command, or one it does not have, is a usage error that names it" {
	run arc
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"a command, please"* ]]
	run arc frobnicate --list
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"frobnicate: not a command of arc (arc help lists them)"* ]]
	run arc help frobnicate
	[ "$status" -eq 2 ]
	run arc web
	[ "$status" -eq 2 ]	# a web server's CGI, not a person's command
}

@test "installed, arc runs its own folder's commands even when PATH has none of them; make uninstall takes back every file" {
	local p="$BATS_TEST_TMPDIR/usr"
	make -s -C "$TOP" install PREFIX="$p" >/dev/null
	arc-emit --key k --kind information --message hello | arc-apply >/dev/null
	run env PATH=/usr/bin:/bin "$p/bin/arc" status --list
	[ "$status" -eq 0 ]
	[ "$(cut -f1 <<<"$output")" = k ]
	run env PATH=/usr/bin:/bin "$p/bin/arc" notify -n
	[ "$status" -eq 0 ]
	make -s -C "$TOP" uninstall PREFIX="$p" >/dev/null
	# every file gone, and the folders install made for arc alone
	[ -z "$(find "$p" -type f -o -type l)" ]
	[ ! -e "$p/share/arc" ] && [ ! -e "$p/lib/arc" ]
	# a file of someone else's under PREFIX stays
	make -s -C "$TOP" install PREFIX="$p" >/dev/null
	echo mine >"$p/bin/other-tool"
	make -s -C "$TOP" uninstall PREFIX="$p" >/dev/null
	[ "$(find "$p" -type f)" = "$p/bin/other-tool" ]
}

@test "an arc of another program in the folder (Debian's archiver is /usr/bin/arc) is never replaced, nor removed" {
	local p="$BATS_TEST_TMPDIR/usr"
	mkdir -p "$p/bin"
	printf '#!/bin/sh\necho the other arc\n' >"$p/bin/arc"
	chmod 755 "$p/bin/arc"
	run make -s -C "$TOP" install PREFIX="$p"
	[ "$status" -eq 0 ]
	grep -q 'arc is another program: left as it is' <<<"$output"
	[ "$("$p/bin/arc")" = "the other arc" ]
	[ -x "$p/bin/arc-status" ]
	make -s -C "$TOP" uninstall PREFIX="$p" >/dev/null
	[ "$("$p/bin/arc")" = "the other arc" ]
	[ ! -e "$p/bin/arc-status" ]
}
