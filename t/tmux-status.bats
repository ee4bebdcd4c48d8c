#!/usr/bin/env bats
# The tmux recipes of the README and arc-status(1), pasted as a person
# copies them into a real tmux server, and the status line that a real
# client of that server then shows (read from a second tmux, which holds
# the client in a pane).  The snippets are taken from the documents
# themselves, so that what is tested is what is documented.
load helper
setup_file() { needs tmux mandoc man; }

TOP="$BATS_TEST_DIRNAME/.."

setup() {
	arc_setup
	export ARC_NOW=2026-08-26T01:16:00Z
	# private sockets: nothing is left behind in tmux's own folder
	INNER="$BATS_TEST_TMPDIR/inner.sock"
	OUTER="$BATS_TEST_TMPDIR/outer.sock"
	unset TMUX TMUX_PANE
}

teardown() {
	tmux -S "$INNER" kill-server 2>/dev/null || true
	tmux -S "$OUTER" kill-server 2>/dev/null || true
	arc_teardown
}

# recipe NAME SOURCE: the snippet whose first line is "# arc: NAME", as it
# reads in SOURCE: the README as it is, a man page as man(1) renders it.
recipe() {
	local text
	case $2 in
	*.[1-9]) text=$(MANWIDTH=120 man -l "$2" 2>/dev/null | col -bx) ;;
	*) text=$(cat "$2") ;;
	esac
	awk -v name="# arc: $1" '
		index($0, name) { on = 1; match($0, /^ */); cut = RLENGTH }
		on && /^[[:space:]]*$/ { exit }
		on { print substr($0, cut + 1) }' <<<"$text"
}

# the same snippet in the README, under man(1) and under mandoc(1)
same_everywhere() {
	local readme man mandoc
	readme=$(recipe "$1" "$TOP/README")
	man=$(recipe "$1" "$TOP/man/arc-status.1")
	mandoc=$(awk -v name="# arc: $1" '
		index($0, name) { on = 1; match($0, /^ */); cut = RLENGTH }
		on && /^[[:space:]]*$/ { exit }
		on { print substr($0, cut + 1) }' <<<"$(mandoc -Tutf8 "$TOP/man/arc-status.1" | col -bx)")
	[ -n "$readme" ] || { echo "no recipe '$1' in the README"; return 1; }
	[ "$readme" = "$man" ] || { printf 'README:\n%s\nman:\n%s\n' "$readme" "$man"; return 1; }
	[ "$man" = "$mandoc" ] || { printf 'man:\n%s\nmandoc:\n%s\n' "$man" "$mandoc"; return 1; }
	printf '%s\n' "$readme" >"$BATS_TEST_TMPDIR/recipe.conf"
}

# A tmux server with nothing of its own configured (its defaults, as a new
# user has them), the recipe sourced into it, and a client attached in a
# pane of a second server, 160 columns wide.
start_tmux() {
	tmux -S "$INNER" -f /dev/null new-session -d -x 160 -y 6
	tmux -S "$INNER" source-file "$BATS_TEST_TMPDIR/recipe.conf"
	tmux -S "$OUTER" -f /dev/null new-session -d -x 160 -y 6 \
	    "env -u TMUX tmux -S $INNER attach"
}

# The status line the client shows: the last row of its pane.
status_line() {
	tmux -S "$OUTER" capture-pane -p | tail -n 1
}

# shows TEXT: waits (up to 15 s) until the status line holds TEXT.
shows() {
	local i line
	for i in $(seq 150); do
		line=$(status_line)
		[[ "$line" == *"$1"* ]] && return 0
		sleep 0.1
	done
	echo "status line: '$line', want: '$1'"
	return 1
}

# gone TEXT: waits (up to 15 s) until TEXT has left the status line.
gone() {
	local i line
	for i in $(seq 150); do
		line=$(status_line)
		[[ "$line" != *"$1"* ]] && return 0
		sleep 0.1
	done
	echo "status line: '$line', still: '$1'"
	return 1
}

@test "recipe 'what needs you': appended to tmux's own status-right, in full" {
	same_everywhere "what needs you"
	{ created deploy; created release '.request.priority = "critical"'; information build; } | arc-apply >/dev/null
	start_tmux
	shows "2 waiting, 1 notice, critical, next deadline in 44m"
	# appended (-ag): tmux's own clock and date are still there, before it
	[[ "$(status_line)" =~ [0-9][0-9]:[0-9][0-9]\ [0-9][0-9]-[A-Z][a-z][a-z]-[0-9][0-9]\ 2\ waiting ]]
	# status-right-length makes room: the line is not cut
	[[ "$(status_line)" == *"next deadline in 44m" ]]
}

@test "the recipes are pasted as a person does: read twice, then the other one after it: arc shows once, as the last one says" {
	same_everywhere "what needs you"
	cp "$BATS_TEST_TMPDIR/recipe.conf" "$BATS_TEST_TMPDIR/first.conf"
	{ created deploy '.request.title = "Deploy the site?"'; } | arc-apply >/dev/null
	start_tmux
	tmux -S "$INNER" source-file "$BATS_TEST_TMPDIR/first.conf"
	shows "1 waiting, high"
	[ "$(grep -o 'next deadline' <<<"$(status_line)" | wc -l)" -eq 1 ]
	same_everywhere "the question to answer first"
	tmux -S "$INNER" source-file "$BATS_TEST_TMPDIR/recipe.conf"
	tmux -S "$INNER" set -g status-interval 1
	shows " 1? deploy: Deploy the site?"
	[[ "$(status_line)" != *"waiting"* ]]
	[ "$(grep -o 'deploy:' <<<"$(status_line)" | wc -l)" -eq 1 ]
}

@test "recipe 'what needs you': empty when nothing needs anyone, back when something does" {
	same_everywhere "what needs you"
	arc-apply <<<"$(created deploy)" >/dev/null
	start_tmux
	shows "1 waiting, high, next deadline in 44m"
	# faster than the recipe's five seconds, for the test only
	tmux -S "$INNER" set -g status-interval 1
	ARC_NOW=2026-08-26T01:17:00Z arc-answer deploy allow >/dev/null
	gone "waiting"
	[[ "$(status_line)" =~ [0-9][0-9]-[A-Z][a-z][a-z]-[0-9][0-9]\ *$ ]]
	arc-apply <<<"$(information build)" >/dev/null
	shows "1 notice, normal"
}

@test "recipe 'what needs you': a damaged journal shows a mark, not a blank" {
	same_everywhere "what needs you"
	{ created deploy; created release; } | arc-apply >/dev/null
	damage_journal
	start_tmux
	shows "arc: journal unreadable"
}

@test "recipe 'the question to answer first': %% reaches arc-status as %, key and title shown" {
	same_everywhere "the question to answer first"
	{ created deploy '.request.title = "Deploy the site?"';
	  created release '.request.priority = "critical" | .request.title = "Release 2.0 (#42)?"'; } | arc-apply >/dev/null
	start_tmux
	# tmux's strftime would have made %p "AM" or "PM"
	shows " 2? release: Release 2.0 (#42)?"
}

@test "recipe 'the question to answer first': a hostile title stays text in the status line" {
	same_everywhere "the question to answer first"
	arc-apply <<<"$(created deploy '.request.title = "#[fg=red,bg=red]Fake\u001b]0;pwned\u0007 \u001b[2J\u202eflip #(touch '"$BATS_TEST_TMPDIR"'/ran)"')" >/dev/null
	start_tmux
	shows ' 1? deploy: #[fg=red,bg=red]Fake\x1b]0;pwned\x07 \x1b[2J\u202eflip #(touch '
	# no style was applied, no command ran, the pane title is tmux's own
	[[ "$(tmux -S "$OUTER" capture-pane -p -e | tail -n 1)" != *$'\e[31m'* ]]
	[[ "$(tmux -S "$OUTER" capture-pane -p -e | tail -n 1)" != *$'\e[41m'* ]]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	[[ "$(tmux -S "$INNER" display -p '#{pane_title}')" != *pwned* ]]
}
