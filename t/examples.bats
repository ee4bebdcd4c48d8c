#!/usr/bin/env bats
# Every EXAMPLE of every man page and every recipe of the README runs, as
# jq runs its manual: t/examples-extract takes them out as they are
# written, and each is run where a person would type it, in a terminal
# (script(1)), with a journal of its own and the built commands on PATH.
# An example fails the test when it fails, or when a nonce of the journal
# (any question's: the one value that answers it) reaches the terminal.
#
# What a block is, by its first line, decides how it runs: a command
# block in bash (errexit, pipefail) in the pty; a tmux.conf block sourced
# into a tmux server of its own; a notify.conf block through arc-notify
# -n; JSON through jq, TOML through Python's tomllib; a lighttpd block
# through lighttpd -tt inside a minimal server config; the arc-ntfy
# script with a curl stand-in.  Stand-ins, each a documented substitute:
# agent-hook (the pages' name for any hook) prints one question event
# (arc-emit); ssh HOST COMMAND runs COMMAND here (the remote host's
# journal is this one); a placeholder key (SESSION, TAG ...) names a
# question opened under that very key.  What is not run is in EXCLUDED
# below, with the reason the test prints.

load helper

setup() {
	arc_setup
	EX="$BATS_TEST_TMPDIR/examples"
	"$BATS_TEST_DIRNAME/examples-extract" "$EX" "$BATS_TEST_DIRNAME"/../man/*.[1578] \
	    "$BATS_TEST_DIRNAME/../README"
}

teardown() {
	local s
	for s in "$BATS_TEST_TMPDIR"/*/tmux.sock; do
		[ -S "$s" ] && tmux -S "$s" kill-server 2>/dev/null || true
	done
	arc_teardown
}

# EXCLUDED: a block's first line (an extended regex) and why it is not run.
EXCLUDED=(
	'^arc-validate   checks|^L8  arcmain|^arc/HOST/conditions|^@anthropic-ai|^@agentclientprotocol|^agent +asks through'
	'a table in the prose, not a command'
	'^make demo '
	'make demo and make check: CI runs them on a fresh Debian root (.ci/run); here make check would run itself'
	'^apt-get install|^npm view'
	'installs packages or asks the npm registry: make deps-*, make check-clients'
	'^1\. the commands'
	'a list of steps in prose; each step is run in its own section'
	'^mkdir -p ~/.config/arc'
	'sets up a systemd user service in your HOME: t/web.bats runs its config under its command, as the person'
	'^sudo apt-get build-dep'
	'builds and installs the packages with sudo: CI runs .ci/package as an ordinary user on fresh Debian 12 and 13 roots'
	'^(cp|install -D) .*\.service'
	"a user's systemd manager (systemctl --user): t/mqtt.bats and t/notify.bats check the units with systemd-analyze"
	'^arc-status --follow|^# notify-send recipe'
	'runs until killed: t/docs.bats runs the follow recipe across a compaction'
	'^listener 8883|^user devbox|^-h broker|^arc-mqtt agent|^export ARC_JOURNAL=~/.local/state/arc/remote'
	'the MQTT bridge against a broker with TLS certificates in /etc/mosquitto: t/mqtt.bats runs both sides on brokers of its own'
	'^location = /arc|^server "arc.example.org"|^htpasswd '
	'nginx, OpenBSD httpd and apache2-utils are in no target: t/web.bats runs lighttpd with a password file it writes'
	'^arc-hook --install claude-code +#'
	"the person's own machine (its tmux, its arc-notify): t/install.bats and t/doctor.bats run these"
	'^arc-acp -- qwen'
	'an ACP agent on stdio, which an editor talks to: t/clients/qwen-acp-e2e runs Qwen Code under arc-acp'
)

# excluded FIRST_LINE: the reason, if the block is not run.
excluded() {
	local i
	for ((i = 0; i < ${#EXCLUDED[@]}; i += 2)); do
		[[ $1 =~ ${EXCLUDED[i]} ]] && { echo "${EXCLUDED[i + 1]}"; return 0; }
	done
	return 1
}

# kind FILE: how the block in FILE runs.
kind() {
	local first; first=$(head -1 "$1")
	if grep -qvE '^(#|set |if -F |bind-key |$)' "$1"; then :; else echo tmux; return; fi
	if ! grep -qvE '^(notify|quiet|ignore|ntfy) [^=]' "$1"; then echo notify; return; fi
	case $first in
	'{'*) echo json ;;
	'[['* | 'notify = ['*) echo toml ;;
	server.*) echo lighttpd ;;
	'#!/bin/sh') echo script ;;
	*) echo sh ;;
	esac
}

# The questions an example names and does not ask itself, asked before it
# runs (arc-emit, the real clock).
SEEDS=(release-approval branch-name acp:claude-agent-acp:SESSION:TAG:0
    claude-code:SESSION:perm:CALL:OFFER)
seed_ask() {	# KEY
	local -a o
	case $1 in
	deploy) o=(--kind permission --message "May I deploy?" --choice allow:Allow
	    --choice deny:Deny) ;;
	release-approval) o=(--kind question --response-kind single_choice
	    --message "Release?" --choice allow_once:Once --choice deny:Deny) ;;
	branch-name) o=(--kind question --message "Branch?" --text-max 40) ;;
	acp:*) o=(--kind permission --message "Run it?" --choice allow-once:Once
	    --choice reject-once:Reject) ;;
	*) o=(--kind permission --message "Edit?" --choice allow:Allow
	    --choice deny:Deny) ;;
	esac
	arc-emit --key "$1" "${o[@]}" --expires-in 1h | arc-apply -q >/dev/null
}

# The exit status an example documents when it is not 0 (its first line's
# regex, the status).
EXITS=('^arc-validate --report' 1)

# What a person must see on the terminal after some (its first line's
# regex, the words): the answer came, the verdict was said.
SEES=('^arc-emit --key release' 'not publishing'
    '^arc-answer$' '(accepted)'
    '^arc-answer --via' 'deploy: Allow (accepted)'
    '^# arc: the loop' 'allow')

# The answers a person gives from another shell while an example waits.
LATER=(release no)

sandbox() {	# a home, the usual journal in it, the stand-ins on PATH
	local d=$1
	export HOME="$d/home" XDG_CONFIG_HOME="$d/home/.config"
	unset XDG_STATE_HOME
	export ARC_JOURNAL="$HOME/.local/state/arc/journal"
	mkdir -p "$HOME/.local/state/arc" "$XDG_CONFIG_HOME" "$d/bin"
	cat >"$d/bin/agent-hook" <<-'EOF'
	#!/bin/sh
	# a stand-in hook: one question
	exec arc-emit --key hook-question --kind permission --message "May I?" \
	    --choice allow:Allow --choice deny:Deny --expires-in 1h
	EOF
	cat >"$d/bin/ssh" <<-'EOF'
	#!/bin/sh
	# a stand-in ssh HOST COMMAND...: runs COMMAND here
	shift
	exec sh -c "$*"
	EOF
	chmod +x "$d/bin/agent-hook" "$d/bin/ssh"
	# the reader's python3 is Debian's, with python3-crc32c (a pyenv's
	# earlier on this PATH has none)
	ln -s /usr/bin/python3 "$d/bin/python3"
}

seed() {	# FILE: the questions it names, a notice, a history segment
	local f=$1 i key
	# a question for any example (the picker's), but one it asks itself
	grep -qF -- "--key deploy" "$f" || seed_ask deploy
	for key in "${SEEDS[@]}"; do
		grep -qF -- "$key" "$f" || continue
		grep -qF -- "--key $key" "$f" && continue
		seed_ask "$key"
	done
	if grep -q notices "$f"; then
		arc-emit --key built --kind completion --message "Built." |
		    arc-apply -q >/dev/null
	fi
	if grep -q history "$f"; then
		arc-emit --key old --kind permission --message Old? --choice yes:Yes \
		    --choice no:No --expires-in 1h | arc-apply -q >/dev/null
		arc-answer old yes >/dev/null
		arc-apply -q --compact --window 1s >/dev/null
		archive_quiet "$ARC_JOURNAL"
	fi
	if grep -q events.ndjson "$f"; then
		printf '%s\n' "$(arc-emit --key ev --kind information --message hello)" \
		    '{"arc_version":"0.2"}' >"$(dirname "$ARC_JOURNAL")/events.ndjson"
	fi
}

sandbox_nonces() {	# every nonce the sandbox holds, one a line
	{ grep -rhoaE '"nonce":"[A-Za-z0-9_-]{16,}"' "$1" 2>/dev/null
	  find "$1" -name '*.zst' | while read -r z; do
		zstdcat -q "$z"
	  done 2>/dev/null | grep -oaE '"nonce":"[A-Za-z0-9_-]{16,}"'; } |
	    sed 's/^"nonce":"//; s/"$//' | sort -u
}

# run_example N: runs example N in a sandbox of its own; says why it failed.
run_example() {
	local n=$1 f="$EX/$1" src d k i out rc input=
	src=$(cat "$f.src")
	d="$BATS_TEST_TMPDIR/$n"
	mkdir -p "$d"
	k=$(kind "$f")
	case $k in
	tmux)
		tmux -S "$d/tmux.sock" -f /dev/null new-session -d -x 100 -y 20 ||
		    { echo "$src: no tmux server"; return 1; }
		out=$(tmux -S "$d/tmux.sock" source-file "$f" 2>&1) &&
		    [ -z "$out" ] || { echo "$src: tmux: $out"; return 1; }
		tmux -S "$d/tmux.sock" kill-server ;;
	notify)
		out=$(arc-notify -n -f "$f" 2>&1) ||
		    { echo "$src: arc-notify -n: $out"; return 1; } ;;
	json)
		jq -e . "$f" >/dev/null || { echo "$src: not JSON"; return 1; } ;;
	toml)
		python3 -c 'import sys, tomllib; tomllib.load(open(sys.argv[1], "rb"))' "$f" ||
		    { echo "$src: not TOML"; return 1; } ;;
	lighttpd)
		lighttpd_check "$f" "$d" || { echo "$src: lighttpd -tt refused it"; return 1; } ;;
	script)
		ntfy_check "$f" "$d" || { echo "$src: the script did not post the title"; return 1; } ;;
	sh)
		(
			sandbox "$d"
			export PATH="$d/bin:$PATH"
			seed "$f"
			for ((i = 0; i < ${#LATER[@]}; i += 2)); do
				grep -qF -- "--key ${LATER[i]}" "$f" || continue
				answer_later "${LATER[i]}" "${LATER[i + 1]}" &
			done
			# the picker: the first question, its first choice
			[ "$(head -1 "$f")" = arc-answer ] && input='1\n1\n'
			cd "$(dirname "$ARC_JOURNAL")"
			{ echo 'set -eo pipefail'; cat "$f"; echo wait; } >"$d/example.sh"
			out=$(printf "$input" | script -qec "bash $d/example.sh" /dev/null 2>&1)
			rc=$?
			for ((i = 0; i < ${#EXITS[@]}; i += 2)); do
				[[ $(head -1 "$f") =~ ${EXITS[i]} ]] &&
				    [ "$rc" -eq "${EXITS[i + 1]}" ] && rc=0
			done
			wait
			echo "$out" >"$d/terminal"
			if [ "$rc" -ne 0 ]; then
				echo "$src: exit $rc:"; echo "$out"; exit 1
			fi
			for ((i = 0; i < ${#SEES[@]}; i += 2)); do
				[[ $(head -1 "$f") =~ ${SEES[i]} ]] || continue
				[[ $out == *"${SEES[i + 1]}"* ]] ||
				    { echo "$src: no '${SEES[i + 1]}' in:"; echo "$out"; exit 1; }
			done
			sandbox_nonces "$d" >"$d/nonces"
			[ -s "$d/nonces" ] || { echo "$src: no nonce to look for"; exit 1; }
			if grep -qFf "$d/nonces" "$d/terminal"; then
				echo "$src: a nonce reached the terminal:"; cat "$f"; exit 1
			fi
		) || return 1 ;;
	esac
	echo "$k" >"$d/ran"
}

answer_later() {	# KEY CHOICE: once KEY waits, answers it
	eventually bash -c '[ "$(arc-status --json | jq -r --arg k "$1" \
	    "[.conditions[]? | select(.key == \$k)] | length")" != 0 ] ||
	    arc-status --list 2>/dev/null | grep -qF -- "$1"' _ "$1" >/dev/null 2>&1
	arc-answer "$1" "$2" >/dev/null
}

lighttpd_check() {	# FILE DIR: pasted into Debian's own lighttpd.conf, as a person does
	local f=$1 d=$2 out
	# what it names under /etc/lighttpd: here, a certificate of its own
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -subj /CN=localhost -days 2 -keyout "$d/key.pem" \
	    -out "$d/cert.pem" 2>/dev/null &&
	    cat "$d/key.pem" "$d/cert.pem" >"$d/arc.pem" || return 1
	: >"$d/arc.htpasswd"
	sed "s|/etc/lighttpd/|$d/|g" "$f" >"$d/block.conf"
	# the stock file, its conf-enabled/ being this block alone
	# (and its upload folder, www-data's, one of ours: the check is run
	# as the person running the suite, not as the server's root)
	sed -e "s|^include \"/etc/lighttpd/conf-enabled/\*.conf\"|include \"$d/block.conf\"|" \
	    -e "s|\"/var/cache/lighttpd/uploads\"|\"$d\"|" \
	    /etc/lighttpd/lighttpd.conf >"$d/lighttpd.conf"
	grep -qF "include \"$d/block.conf\"" "$d/lighttpd.conf" || return 1
	local PATH="$PATH:/usr/sbin:/sbin"	# where Debian puts lighttpd
	# a key lighttpd ignores (its module not loaded) is a warning only
	out=$(lighttpd -tt -f "$d/lighttpd.conf" 2>&1) && [ -z "$out" ] ||
	    { echo "$out"; return 1; }
}

ntfy_check() {	# FILE DIR: saved as a user would, given a question by a curl stand-in
	local f=$1 d=$2
	mkdir -p "$d/bin"
	cp "$f" "$d/arc-ntfy"
	chmod 755 "$d/arc-ntfy"
	cat >"$d/bin/curl" <<-EOF
	#!/bin/sh
	# a stand-in curl: its arguments and its standard input
	printf '%s\n' "\$@" >"$d/curl.args"
	cat >"$d/curl.body"
	EOF
	chmod +x "$d/bin/curl"
	PATH="$d/bin:$PATH" "$d/arc-ntfy" <<<'{"change":"deliver","view":{"title":"May I deploy?"}}' &&
	    [ "$(cat "$d/curl.body")" = "May I deploy?" ] &&
	    grep -qx 'Click: https://arc.example.org/arc' "$d/curl.args"
}

@test "every man page's EXAMPLES and every README recipe runs, in a terminal, and no nonce reaches it" {
	local f n first why failed=0 ran=0
	for f in "$EX"/*.src; do
		n=${f%.src}; n=${n##*/}
		# ARC_EXAMPLES=REGEX runs only the examples of the sources it matches
		[[ $(cat "$f") =~ ${ARC_EXAMPLES:-.} ]] || continue
		first=$(head -1 "$EX/$n")
		if why=$(excluded "$first"); then
			echo "# not run: $(cat "$f"): $why" >&3
			continue
		fi
		if run_example "$n"; then
			ran=$((ran + 1))
		else
			failed=$((failed + 1))
		fi
	done
	echo "# $ran examples ran, $failed failed" >&3
	[ "$failed" -eq 0 ]
	[ -n "${ARC_EXAMPLES:-}" ] || [ "$ran" -ge 50 ]
}

@test "the examples cover every man page with an EXAMPLES section and the README: each gives one that runs" {
	local page src n first
	for page in "$BATS_TEST_DIRNAME"/../man/*.[1578] "$BATS_TEST_DIRNAME/../README"; do
		case $page in
		*.[1578]) grep -q '^\.Sh EXAMPLES' "$page" || continue ;;
		esac
		src=$(basename "$page")
		local some=0
		for f in "$EX"/*.src; do
			[[ "$(cat "$f")" == *"$src:"* ]] || continue
			n=${f%.src}
			first=$(head -1 "$n")
			excluded "$first" >/dev/null || some=$((some + 1))
		done
		[ "$some" -gt 0 ] || { echo "$src: no example that runs"; return 1; }
	done
	# the pages without one are those that need none
	run grep -L '^\.Sh EXAMPLES' "$BATS_TEST_DIRNAME"/../man/*.[1578]
	[ "$(basename -a $output | sort | tr '\n' ' ')" = "arc-notify.1 arc.7 " ]
}

@test "the extractor reads an example as the page renders it: mdoc's escapes, a prompt, a README block's indent" {
	mkdir -p "$BATS_TEST_TMPDIR/in"
	printf '%s\n' '.Dd x' '.Sh EXAMPLES' '.Dl $ arc-answer \(dqa b\(dq \(aqc\(aq \e' \
	    '.Bd -literal -offset indent' 'one \e' '  two' '.Ed' '.Sh SEE ALSO' '.Dl not this' \
	    >"$BATS_TEST_TMPDIR/in/p.1"
	printf '%s\n' 'Text:' '' '  a | b \' '      c' '' 'more' '    {' '    }' \
	    >"$BATS_TEST_TMPDIR/in/README"
	"$BATS_TEST_DIRNAME/examples-extract" "$BATS_TEST_TMPDIR/out" \
	    "$BATS_TEST_TMPDIR/in/p.1" "$BATS_TEST_TMPDIR/in/README"
	[ "$(cat "$BATS_TEST_TMPDIR/out/0001")" = "arc-answer \"a b\" 'c' \\" ]
	[ "$(cat "$BATS_TEST_TMPDIR/out/0002")" = "one \\"$'\n'"  two" ]
	[ "$(cat "$BATS_TEST_TMPDIR/out/0003")" = "a | b \\"$'\n'"    c" ]
	[ ! -e "$BATS_TEST_TMPDIR/out/0004" ]	# "more" ends no block: it opens none
	[ "$(cat "$BATS_TEST_TMPDIR/out/0003.src")" = "$BATS_TEST_TMPDIR/in/README:3" ]
}

@test "make demo plays the recording with its deadlines minutes away, as a live agent's, not decades" {
	run "$BATS_TEST_DIRNAME/../examples/demo"
	[ "$status" -eq 0 ]
	grep -qE '^2 waiting, 1 notice, high, next deadline in (9|10)m$' <<<"$output"
	! grep -qE $'in [0-9]+d$|pending\t2099-' <<<"$output" || false
	grep -qxF 'producer: the answer is allow' <<<"$output"
}
