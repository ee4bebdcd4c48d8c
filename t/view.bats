#!/usr/bin/env bats
# One view of a question (arcview.c): the rules for producer text, as a
# person reads them on the terminal (arc-status --show and --list).  The
# expected texts are written here from the rules, not recorded.
load helper

view_ask() { # KEY TITLE MESSAGE [arc-emit options...]
	local key=$1 title=$2 msg=$3
	shift 3
	arc-emit --key "$key" --kind permission --title "$title" --message "$msg" \
	    --choice allow:Allow --choice deny:Deny --expires-in 1h "$@" |
	    arc-apply -q >/dev/null
}

@test "view: a command's tail behind 30 newlines is shown, marked as the command's own, the blank lines one mark" {
	msg='$ ls'
	for i in $(seq 30); do msg+=$'\n'; done
	msg+='rm -rf ~'
	view_ask k "Run?" "$msg"
	run arc-status --show k
	[ "$status" -eq 0 ]
	grep -qxF 'message:  $ ls' <<<"$output"
	grep -qxF '          > ⟨29 blank lines⟩' <<<"$output"
	grep -qxF '          > rm -rf ~' <<<"$output"
	[ "$(grep -c '^ *$' <<<"$output")" -eq 0 ]
}

@test "view: a command padded with 990 spaces before its tail shows the tail whole, the blanks one mark" {
	msg="\$ ls$(printf '%990s' '') ; rm -rf ~"
	view_ask k "Run?" "$msg"
	run arc-status --show k
	grep -qxF 'message:  $ ls ⟨991 blanks⟩ ; rm -rf ~' <<<"$output"
}

@test "view: a few blanks and one blank line stay as written; a message that is not a command is not marked" {
	view_ask k "Hi" $'two  spaces\n\nnext paragraph'
	run arc-status --show k
	grep -qxF 'message:  two  spaces' <<<"$output"
	grep -qxF '          next paragraph' <<<"$output"
	! grep -q '^          > ' <<<"$output" || false
}

@test "view: bidi overrides, isolates, zero-width and C0/C1 controls are shown escaped, in --show and --list alike" {
	title=$'a\xe2\x80\xaeb\xe2\x81\xa6c\xe2\x80\x8bd\xc2\xade\x1bf\xc2\x85g'
	view_ask k "$title" "m"
	want='a\u202eb\u2066c\u200bd\u00ade\x1bf\u0085g'
	run arc-status --show k
	grep -qxF "title:    $want" <<<"$output"
	run arc-status --list
	[ "$(cut -f5 <<<"$output")" = "$want" ]
}

@test "view: a choice's detail (the rule an \"Always allow\" adds) is shown, escaped like the rest" {
	arc-emit --key k --kind permission --title T --message M --choice allow:Allow \
	    --choice $'always:Always allow:Bash(npm run deploy\\:*) in this project, for you\xe2\x80\xae' \
	    --choice deny:Deny --expires-in 1h | arc-apply -q >/dev/null
	run arc-status --show k
	grep -qxF '          2) Always allow (always): Bash(npm run deploy:*) in this project, for you\u202e' <<<"$output"
}

@test "view: non-ASCII where the old byte cuts fell (80, 2000) is shown whole, never a broken character" {
	msg="$(printf 'x%.0s' $(seq 1999))é$(printf 'y%.0s' $(seq 100))"
	label="$(printf 'l%.0s' $(seq 79))ü tail"
	arc-emit --key k --kind permission --title T --message "$msg" --choice "a:$label" \
	    --choice b:B --expires-in 1h | arc-apply -q >/dev/null
	run arc-status --show k
	grep -qF "xé$(printf 'y%.0s' $(seq 100))" <<<"$output"
	grep -qF "lü tail (a)" <<<"$output"
	iconv -f UTF-8 -t UTF-8 <<<"$output" >/dev/null
}
