#!/usr/bin/env bats
# Bash completion (examples/arc.bash, installed where bash-completion
# looks): each command's options are man/options' rows, a word offered is
# one the command takes, and the keys and choices offered are the open
# questions' own, as arc-status reads them from the journal the line
# names.
load helper

TOP="$BATS_TEST_DIRNAME/.."
COMPLETION="$TOP/examples/arc.bash"

# complete WORD...: what the completion offers for the last word of the
# line (the words joined by blanks, the cursor at its end), a candidate a
# line, sorted; COMP_WORDBREAKS without the colon, so that a candidate
# is seen whole (t/completion.bats's last test types in a real bash).
complete_line() {
	bash -c 'source "$1"; shift
	COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMP_WORDBREAKS=" "
	_arc_complete; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@" | sed '/^$/d' | sort
}

completion_question() {	# KEY CHOICE...: an open question with those choices
	local key=$1 c o=()
	shift
	for c; do o+=(--choice "$c"); done
	arc-emit --key "$key" --kind permission --message "May I?" "${o[@]}" | arc-apply >/dev/null
}

@test "each command's options are man/options' rows, the obsolete aside" {
	local c want got
	for c in arc-validate arc-apply arc-answer arc-wait arc-status arc-emit arc-acp arc-notify arc-hook; do
		want=$(awk -F'\t' -v c="$c" '!/^#/ && $1 == c && $4 != "obsolete" {
		    if ($2 != "-") print $2; if ($3 != "-") print $3 }' "$TOP/man/options" | sort)
		got=$(complete_line "$c" - | sort)
		[ "$want" = "$got" ] || { echo "$c: table: $want; completion: $got"; return 1; }
	done
	[ "$(complete_line arc-status --sh)" = --show ]
	[ "$(complete_line arc status --fol)" = --follow ]
}

@test "the words offered for an option are the ones its command takes" {
	local w
	for w in $(complete_line arc-emit --kind ''); do
		arc-emit --key k --kind "$w" --message m --choice a:A --choice b:B >/dev/null ||
		    arc-emit --key k --kind "$w" --message m --notice >/dev/null
	done
	[ "$(complete_line arc-emit --kind '' | wc -l)" = 6 ]
	for w in $(complete_line arc-emit --priority ''); do
		arc-emit --key k --kind information --message m --priority "$w" >/dev/null
	done
	for w in $(complete_line arc-emit --response-kind ''); do
		case $w in text) o=(--text-max 5) ;; *) o=(--choice a:A --choice b:B) ;; esac
		arc-emit --key k --kind question --message m --response-kind "$w" "${o[@]}" >/dev/null
	done
	for w in $(complete_line arc-emit --outcome ''); do
		arc-emit --type resolved --key k --outcome "$w" >/dev/null
	done
	for w in $(complete_line arc-hook --settings ''); do
		arc-hook --settings "$w" >/dev/null
	done
	[ "$(complete_line arc-hook '')" = "$(complete_line arc-hook --settings '')" ]
	complete_line arc-hook --settings '' | grep -qx copilot
	# a duration and a time offered are ones the parsers take
	for w in $(complete_line arc-wait -t ''); do arc-wait -t "$w" nosuchkey >/dev/null 2>&1 || [ $? -ne 2 ]; done
	for w in $(complete_line arc-status --history --since ''); do arc-status --history --since "$w" >/dev/null; done
}

@test "a key is completed from the open questions, a choice from that question's own ids" {
	completion_question deploy allow:Allow deny:Deny
	completion_question wipe yes:Yes "no:No (keep it)"
	[ "$(complete_line arc-answer '')" = "$(printf 'deploy\nwipe')" ]
	[ "$(complete_line arc answer de)" = deploy ]
	[ "$(complete_line arc-wait w)" = wipe ]
	[ "$(complete_line arc-status --show '')" = "$(printf 'deploy\nwipe')" ]
	[ "$(complete_line arc-answer deploy '')" = "$(printf 'allow\ndeny')" ]
	[ "$(complete_line arc-answer --json wipe '')" = "$(printf 'no\nyes')" ]
	# a question with a choice's detail (what an "always" grants), from a real hook payload
	ARC_HOOK_TIMEOUT=20 arc-hook claude-code <"$FIXTURES/hooks/claude/permission-bash.json" >/dev/null 3>&- &
	local hook=$! key=
	eventually eval 'key=$(arc-status --list | cut -f1 | grep "^claude-code:")'
	[ "$(complete_line arc-answer "$key" '')" = "$(printf 'allow\nalways\ndeny\nstop')" ]
	arc-answer "$key" deny >/dev/null
	wait "$hook"
	# after the answer, no key but the others
	[ "$(complete_line arc-answer '')" = "$(printf 'deploy\nwipe')" ]
}

@test "a producer's key or choice id is only compared and offered quoted: TAB runs nothing of it" {
	local canary="$BATS_TEST_TMPDIR/ran"
	arc-emit --key 'x$(touch${IFS}'"$canary"')' --kind permission --message "May I?" \
	    --choice allow:Allow --choice 'deny:Deny:see (`touch '"$canary"'`)' |
	    arc-apply >/dev/null
	run complete_line arc-answer ''
	[ ! -e "$canary" ]
	# offered as one word the shell reads back as the key itself
	[ "$(bash -c "printf '%s' $output")" = 'x$(touch${IFS}'"$canary"')' ]
	run complete_line arc-answer 'x$(touch${IFS}'"$canary"')' ''
	[ ! -e "$canary" ]
	# the ids (ARC's [A-Za-z0-9_-]), never a detail's words
	[ "$output" = "$(printf 'allow\ndeny')" ]
	[ ! -e "$canary" ]
}

@test "with -j on the line, the keys are that journal's" {
	completion_question here allow:Allow deny:Deny
	ARC_JOURNAL="$BATS_TEST_TMPDIR/other/journal" completion_question there allow:Allow deny:Deny
	[ "$(complete_line arc-answer '')" = here ]
	[ "$(complete_line arc-answer -j "$BATS_TEST_TMPDIR/other/journal" '')" = there ]
	[ "$(complete_line arc-status --journal "$BATS_TEST_TMPDIR/other/journal" --show '')" = there ]
	[ "$(complete_line arc-status --journal="$BATS_TEST_TMPDIR/other/journal" --show '')" = there ]
	[ "$(complete_line arc-answer -j"$BATS_TEST_TMPDIR/other/journal" '')" = there ]
}

@test "a file option completes file names; a text option offers nothing to choose" {
	mkdir -p "$BATS_TEST_TMPDIR/d"
	: >"$BATS_TEST_TMPDIR/d/journal"
	[ "$(complete_line arc-status -j "$BATS_TEST_TMPDIR/d/jo")" = "$BATS_TEST_TMPDIR/d/journal" ]
	[ -z "$(complete_line arc-emit --title '')" ]
	[ -z "$(complete_line arc-answer --text '')" ]
}

@test "make install puts it where bash-completion looks, under each command's name" {
	local p="$BATS_TEST_TMPDIR/usr"
	make -s -C "$TOP" install PREFIX="$p" >/dev/null
	local c
	for c in arc arc-validate arc-apply arc-answer arc-wait arc-status arc-emit arc-acp arc-notify arc-hook; do
		[ -f "$p/share/bash-completion/completions/$c" ]
		cmp "$p/share/bash-completion/completions/$c" "$COMPLETION"
	done
	COMPLETION="$p/share/bash-completion/completions/arc-status" run complete_line arc-status --fo
	[ "$output" = "$(printf -- '--follow\n--format')" ]
	make -s -C "$TOP" uninstall PREFIX="$p" >/dev/null
	[ ! -e "$p/share/bash-completion" ]
}

@test "in a real bash, in a tmux pane: a key with colons completes whole from a part of it" {
	needs tmux
	local hook key sock="$BATS_TEST_TMPDIR/tmux.sock"
	ARC_HOOK_TIMEOUT=30 arc-hook claude-code <"$FIXTURES/hooks/claude/permission-bash.json" >/dev/null 3>&- &
	hook=$!
	eventually eval 'key=$(arc-status --list | cut -f1 | grep "^claude-code:")'
	printf 'PS1="$ "\nsource %q\n' "$COMPLETION" >"$BATS_TEST_TMPDIR/rc"
	tmux -S "$sock" -f /dev/null new-session -d -x 200 -y 10 \
	    "env PATH='$PATH' ARC_JOURNAL='$ARC_JOURNAL' bash --noprofile --rcfile '$BATS_TEST_TMPDIR/rc' -i"
	eventually eval 'tmux -S "$sock" capture-pane -p | grep -q "^[$]"'
	# the part up to the second colon, then TAB; then a choice's start, TAB
	tmux -S "$sock" send-keys "arc-answer ${key%:perm:*}:pe" Tab
	eventually eval 'tmux -S "$sock" capture-pane -p | grep -qxF "$ arc-answer $key"'
	tmux -S "$sock" send-keys alw Tab
	eventually eval 'tmux -S "$sock" capture-pane -p | grep -qxF "$ arc-answer $key always"'
	tmux -S "$sock" send-keys Enter
	wait "$hook"
	tmux -S "$sock" kill-server
	[ "$(jq -r 'select(.interaction.response != null) | .interaction.response.choice_id' "$ARC_JOURNAL")" = always ]
}
