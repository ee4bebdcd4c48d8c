# bash completion for arc's commands: options, their values, the keys of
# open questions and their choices.  make install puts it where
# bash-completion looks (share/bash-completion/completions, one name a
# command); or source it from ~/.bashrc.  The options are man/options'
# (t/completion.bats holds this file to that table).

# _arc_options CMD: the options CMD takes; those that take a value end
# in "=" followed by the kind of value (man/options' fourth column).
_arc_options() {
	case $1 in
	arc-validate) echo "-q --quiet --report -h --help -V --version" ;;
	arc-apply) echo "-j=file --journal=file -q --quiet -0 --null --netstrings --answers --off-device --batch=count --retain=duration --compact --archive --keep-history=duration --keep-history-bytes=count --window=duration --salvage=file --mirror --route=command -h --help -V --version" ;;
	arc-answer) echo "-j=file --journal=file --json --response-id=id --source=text --device-id=id --text=text --emit --via=command --seen=tag --hold --dismiss=key-part --dismiss-notices -h --help -V --version" ;;
	arc-wait) echo "-j=file --journal=file -t=duration --timeout=duration --no-receipt -h --help -V --version" ;;
	arc-status) echo "-j=file --journal=file --json --list --format=format --tmux --show=key-part --history --since=time --until=time --key=key --agent=text --follow --off-device -h --help -V --version" ;;
	arc-emit) echo "--type=word --key=key --kind=word --title=text --message=text --priority=word --choice=choice --text-max=count --response-kind=word --expires-in=duration --expires-at=rfc3339 --outcome=word --event-id=id --sender-id=id --sender-name=text --sender-version=text --instance-id=id --session-id=id --correlation-id=id --project=text --cwd=file --pid=count --turn-id=id --native-request-id=id --notification-type=word --tmux-pane=text --tmux-socket=file --notice -h --help -V --version" ;;
	arc-acp) echo "-j=file --journal=file -t=duration --timeout=duration -h --help -V --version" ;;
	arc-notify) echo "-j=file -f=file -n --ntfy-setup -h --help -V --version" ;;
	arc-doctor) echo "-j=file --journal=file --web-user=word --ask -h --help -V --version" ;;
	arc-hook) echo "--settings=word --install=word --uninstall=word --prefix=file --file=file --toml -h --help -V --version" ;;
	esac
}

# _arc_words CMD OPTION: the words an option of kind "word" takes.
_arc_words() {
	case $1:$2 in
	arc-emit:--type) echo created updated resolved ;;
	arc-emit:--kind) echo information question permission blocked failure completion ;;
	arc-emit:--priority) echo low normal high critical ;;
	arc-emit:--response-kind) echo permission single_choice text ;;
	arc-emit:--outcome) echo answered expired cancelled superseded not_needed ;;
	arc-hook:--settings | arc-hook:--install | arc-hook:--uninstall) echo claude-code codex gemini copilot ;;
	arc-doctor:--web-user) compgen -u ;;
	esac
}

# _arc_journal WORD...: the -j or --journal the line names, as options
# (the word as typed: nothing on the line is expanded or run).
_arc_journal() {
	while [ $# -gt 0 ]; do
		case $1 in
		-j | --journal) [ $# -gt 1 ] && printf '%s\n' -j "$2"; return ;;
		--journal=?*) printf '%s\n' -j "${1#--journal=}"; return ;;
		-j?*) printf '%s\n' -j "${1#-j}"; return ;;
		esac
		shift
	done
}

# _arc_offer CUR: the words on standard input that begin with CUR, into
# COMPREPLY, quoted for the shell.  Words from the journal (keys, ids)
# are a producer's text: compgen -W would expand a $(...) in them, and
# put on the line as they are, the shell would when the line runs.
_arc_offer() {
	local w
	COMPREPLY=()
	while IFS= read -r w; do
		[[ -n $w && $w == "$1"* ]] && COMPREPLY+=("$(printf '%q' "$w")")
	done
}

# _arc_keys WORD...: the keys of the active conditions.
_arc_keys() {
	local -a j
	mapfile -t j < <(_arc_journal "$@")
	arc-status "${j[@]}" --list 2>/dev/null | cut -f1
}

# _arc_choices KEY WORD...: the ids of KEY's choices, read from its
# record with jq; without jq, their numbers (arc-answer takes either).
_arc_choices() {
	local key=$1
	local -a j
	shift
	mapfile -t j < <(_arc_journal "$@")
	if command -v jq >/dev/null 2>&1; then
		arc-status "${j[@]}" --json --show "$key" 2>/dev/null |
		    jq -r '.interaction.choices // [] | .[].id | select(test("^[^\\n]+$"))' 2>/dev/null
	else
		arc-status "${j[@]}" --show "$key" 2>/dev/null |
		    awk '/^choices:/ { p = 1 } /^[a-z]+:/ && !/^choices:/ { p = 0 }
		    p && match($0, /^(choices:)? *[0-9]+\)/) { print ++n }'
	fi
}

_arc_complete() {
	_arc_candidates
	# bash puts a candidate in place of the word's part after its last
	# colon: that part is what is given back
	local cur
	read -ra cur <<<"${COMP_LINE:0:COMP_POINT}"
	cur=${cur[-1]-}
	[[ ${COMP_LINE:0:COMP_POINT} == *[[:blank:]] ]] && cur=
	if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
		COMPREPLY=("${COMPREPLY[@]#"${cur%:*}:"}")
	fi
}

_arc_candidates() {
	local cmd cur prev opt kind i n=0 first=
	local -a words opts reply=()
	# The words as typed up to the cursor, split at blanks alone: bash
	# splits a word at ':' too (COMP_WORDBREAKS), and keys hold colons.
	read -ra words <<<"${COMP_LINE:0:COMP_POINT}"
	[[ ${COMP_LINE:0:COMP_POINT} == *[[:blank:]] || ${#words[@]} -eq 0 ]] &&
	    words+=("")
	cmd=${words[0]##*/}
	if [ "$cmd" = arc ]; then
		if [ ${#words[@]} -eq 2 ]; then
			mapfile -t COMPREPLY < <(compgen -W "status answer wait emit apply validate hook acp notify mqtt doctor help" -- "${words[1]}")
			return
		fi
		[ "${words[1]}" = help ] && {
			mapfile -t COMPREPLY < <(compgen -W "status answer wait emit apply validate hook acp notify mqtt doctor" -- "${words[2]}")
			return
		}
		cmd=arc-${words[1]}
		words=("$cmd" "${words[@]:2}")
	fi
	cur=${words[-1]}
	prev=
	[ ${#words[@]} -gt 1 ] && prev=${words[-2]}
	read -ra opts <<<"$(_arc_options "$cmd")"
	# the value of an option
	for opt in "${opts[@]}"; do
		[ "${opt%%=*}" = "$prev" ] && [[ $opt == *=* ]] || continue
		kind=${opt#*=}
		case $kind in
		file)
			compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
		key | key-part)
			_arc_offer "$cur" < <(_arc_keys "${words[@]}") ;;
		duration)
			mapfile -t COMPREPLY < <(compgen -W "30s 5m 1h 1d" -- "$cur") ;;
		time)
			mapfile -t COMPREPLY < <(compgen -W "1h 1d 7d 30d" -- "$cur") ;;
		word)
			mapfile -t COMPREPLY < <(compgen -W "$(_arc_words "$cmd" "$prev")" -- "$cur") ;;
		*)	COMPREPLY=() ;;	# a text, an id, a count: yours to type
		esac
		return
	done
	if [[ $cur == -* ]]; then
		for opt in "${opts[@]}"; do reply+=("${opt%%=*}"); done
		mapfile -t COMPREPLY < <(compgen -W "${reply[*]}" -- "$cur")
		return
	fi
	# the operands: which one this is, the options and their values aside
	for ((i = 1; i < ${#words[@]} - 1; i++)); do
		opt=
		for kind in "${opts[@]}"; do
			[ "${kind%%=*}" = "${words[i]}" ] && opt=$kind
		done
		if [[ $opt == *=* ]]; then i=$((i + 1)); continue; fi
		[[ ${words[i]} == -* ]] && continue
		[ $n -eq 0 ] && first=${words[i]}
		n=$((n + 1))
	done
	case $cmd:$n in
	arc-answer:0 | arc-wait:0)
		_arc_offer "$cur" < <(_arc_keys "${words[@]}") ;;
	arc-answer:1)
		_arc_offer "$cur" < <(_arc_choices "$first" "${words[@]}") ;;
	arc-hook:0)
		mapfile -t COMPREPLY < <(compgen -W "claude-code codex gemini copilot" -- "$cur") ;;
	arc-validate:* | arc-apply:*)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	*)	COMPREPLY=() ;;
	esac
}
complete -F _arc_complete arc arc-validate arc-apply arc-answer arc-wait \
    arc-status arc-emit arc-acp arc-notify arc-hook arc-doctor
