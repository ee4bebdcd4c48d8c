#!/usr/bin/env bats
# One table of options (man/options): each command's usage message, its
# --help and its man page's SYNOPSIS name every option of the table and
# none that it lacks; and a duration, a time and a key part are read by
# one function each, in every program.

load helper

TOP="$BATS_TEST_DIRNAME/.."
TABLE="$TOP/man/options"
COMMANDS="arc-validate arc-apply arc-answer arc-wait arc-status arc-emit arc-acp arc-notify arc-web arc-hook"

# rows CMD: the table's rows of CMD (short, long, kind, tab-separated)
rows() {
	awk -F'\t' -v c="$1" '!/^#/ && $1 == c { print $2 "\t" $3 "\t" $4 }' "$TABLE"
}

# tokens: the options a text names, one a line: --long, -x, and each
# letter of a cluster (-0q)
tokens() {
	grep -oE '(^|[][ |(,])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/^[][ |(,]//' |
	    while read -r t; do
		if [[ $t == --* || ${#t} -eq 2 ]]; then
			printf '%s\n' "$t"
		else
			for ((i = 1; i < ${#t}; i++)); do printf '%s\n' "-${t:i:1}"; done
		fi
	done | sort -u
}

usage_of() {	# CMD: the synopsis a usage error prints
	"$1" --no-such-option 2>&1 >/dev/null | sed -n '/^usage:/,$p'
}

help_of() {	# CMD: --help's synopsis and the option column of its lines
	"$1" --help | awk 'NR == 1, /^$/ { print; next }
	/^  -/ {	# options, each with at most one argument, up to the words
		arg = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^-/) { printf " %s", $i; arg = $i !~ /,$/; continue }
			if (!arg) break
			arg = 0
		}
		print ""
	}'
}

synopsis_of() {	# PAGE: the options of its SYNOPSIS, as they render
	awk '/^\.Sh SYNOPSIS/ { p = 1; next } /^\.Sh/ { p = 0 } !p { next }
	{
		fl = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "Fl" || $i == ".Fl") { fl = 1; continue }
			if ($i ~ /^\.?[A-Z][a-z][a-z]?$/) { fl = 0; continue }
			if (!fl || $i == "|" || $i == "-") continue
			print "-" $i	# Fl -long renders --long
		}
	}' "$1" | while read -r t; do
		if [[ $t == --* || ${#t} -eq 2 ]]; then printf '%s\n' "$t"
		else for ((i = 1; i < ${#t}; i++)); do printf '%s\n' "-${t:i:1}"; done
		fi
	done | sort -u
}

# check CMD WHERE TOKENS-FILE: every row in the tokens (but those WHERE
# leaves out), and no token the table lacks
check() {
	local c=$1 where=$2 toks=$3 short long kind errors=
	while IFS=$'\t' read -r short long kind; do
		if [ "$where" != help ]; then
			[ "$long" = --help ] || [ "$long" = --version ] && continue
			[ "$kind" = obsolete ] && continue
		fi
		grep -qxF -e "$short" -e "$long" "$toks" ||
		    errors+="$c: $where lacks ${long/#-/}${short:+ ($short)}"$'\n'
	done < <(rows "$c")
	while read -r t; do
		rows "$c" | cut -f1,2 | tr '\t' '\n' | grep -qxF -- "$t" ||
		    errors+="$c: $where has $t, which the table lacks"$'\n'
	done <"$toks"
	printf '%s' "$errors"
}

@test "the table is well formed: five columns, a known kind, each option once" {
	local bad
	bad=$(awk -F'\t' '!/^#/ && (NF != 5 || $2 !~ /^(-|-[A-Za-z0-9])$/ ||
	    $3 !~ /^(-|--[a-z][a-z0-9-]*)$/ || ($2 == "-" && $3 == "-") ||
	    $4 !~ /^(-|file|count|duration|time|key|key-part|id|text|word|command|tag|format|choice|rfc3339|obsolete)$/)' "$TABLE")
	[ -z "$bad" ] || { echo "bad rows: $bad"; false; }
	bad=$(awk -F'\t' '!/^#/ { if ($2 != "-") print $1, $2; if ($3 != "-") print $1, $3 }' "$TABLE" | sort | uniq -d)
	[ -z "$bad" ] || { echo "given twice: $bad"; false; }
	for c in $COMMANDS; do
		[ -n "$(rows "$c")" ] || { echo "$c has no rows"; false; }
	done
}

@test "every command's usage message, --help and SYNOPSIS name the table's options, and only those" {
	local c page errors=
	for c in $COMMANDS; do
		page=$(ls "$TOP"/man/"$c".[18])
		usage_of "$c" | tokens >"$BATS_TEST_TMPDIR/usage"
		help_of "$c" | tokens >"$BATS_TEST_TMPDIR/help"
		synopsis_of "$page" >"$BATS_TEST_TMPDIR/synopsis"
		[ -s "$BATS_TEST_TMPDIR/usage" ] || errors+="$c: no usage"$'\n'
		errors+=$(check "$c" usage "$BATS_TEST_TMPDIR/usage")
		errors+=$(check "$c" help "$BATS_TEST_TMPDIR/help")
		errors+=$(check "$c" synopsis "$BATS_TEST_TMPDIR/synopsis")
	done
	[ -z "$errors" ] || { echo "$errors"; false; }
}

@test "the table agrees with what each program accepts: its getopt_long names and short letters" {
	local c long short errors=
	for c in $COMMANDS; do
		for long in $(grep -oE '\{ "[a-z0-9-]+", *(no|required|optional)_argument' "$TOP/$c.c" |
		    sed -E 's/\{ "([^"]*)".*/--\1/'); do
			rows "$c" | cut -f2 | grep -qxF -- "$long" || errors+="$c accepts $long, not in the table"$'\n'
		done
		short=$(grep -oE 'getopt_long\([^"]*"[^"]*"' "$TOP/$c.c" | sed -E 's/.*"([^"]*)"/\1/; s/[+:]//g')
		for ((i = 0; i < ${#short}; i++)); do
			rows "$c" | cut -f1 | grep -qxF -- "-${short:i:1}" ||
			    errors+="$c accepts -${short:i:1}, not in the table"$'\n'
		done
		while IFS=$'\t' read -r s l kind; do
			[ "$l" = - ] || grep -qE "\{ \"${l#--}\"," "$TOP/$c.c" ||
			    errors+="$c: the table's $l is not accepted"$'\n'
			[ "$s" = - ] || [[ $short == *"${s#-}"* ]] ||
			    errors+="$c: the table's $s is not accepted"$'\n'
		done < <(rows "$c")
	done
	[ -z "$errors" ] || { echo "$errors"; false; }
}

@test "one parser each: a duration through parse_duration_ms, a time through time_arg, a key part through key_typed" {
	cd "$TOP"
	# no option's value is read by a number parser of its own
	run grep -nE '(strto[a-z]+|ato[if]|sscanf) *\( *optarg' ./*.c
	[ -z "$output" ] || { echo "parsed by hand: $output"; false; }
	# the wrappers call the one parser
	grep -A12 '^duration_arg(' arcusage.c | grep -q 'parse_duration_ms('
	grep -A25 '^time_arg(' arcusage.c | grep -qE 'parse_duration(_ms)?\(|duration_arg\('
	grep -A12 '^parse_duration(' arctime.c | grep -q 'parse_duration_ms('
	# the grammar (its units) lives in arctime.c alone
	run grep -lE "604800|\* 7 \* 24|'w'.*7" ./*.c
	[ "$output" = "./arctime.c" ] || { echo "units outside arctime.c: $output"; false; }
	# each command with an option of a kind calls its parser
	local c kind fn errors=
	while IFS=$'\t' read -r c kind; do
		case $kind in
		duration) fn='duration_arg\(|parse_duration(_ms)?\(' ;;
		time) fn='time_arg\(' ;;
		key-part) fn='key_typed\(|typed_key\(|show_condition\(|arcshow' ;;
		*) continue ;;
		esac
		grep -qE "$fn" "$c.c" || errors+="$c: a $kind option, and no call of its parser"$'\n'
	done < <(awk -F'\t' '!/^#/ { print $1 "\t" $4 }' "$TABLE" | sort -u)
	[ -z "$errors" ] || { echo "$errors"; false; }
	# key_typed is the one reader of a key part: every key given by a
	# person goes through it (arc-answer's keys, arc-status --show)
	run grep -lE '\bkey_typed\(' ./*.c
	[ "$(echo $output)" = "./arc-answer.c ./arcbind.c ./arcshow.c" ]
}

@test "every duration option takes the same words: 1w, 1h30m, 2.5 and 90s; each refuses 10x" {
	local d
	for d in 1w 1h30m 2.5 90s; do
		arc-emit --kind permission --message m --choice a:A --choice b:B \
		    --expires-in "$d" >/dev/null ||
		    { echo "arc-emit --expires-in $d"; false; }
		run arc-wait -t "$d" nothing
		[ "$status" -eq 1 ] || { echo "arc-wait -t $d: $status"; false; }
		arc-apply --retain "$d" </dev/null || { echo "arc-apply --retain $d"; false; }
		arc-apply --compact --window "$d" --keep-history "$d" ||
		    { echo "arc-apply --compact --window $d"; false; }
		arc-status --history --since "$d" >/dev/null || { echo "arc-status --since $d"; false; }
		run arc-acp -t "$d" -- true </dev/null
		[ "$status" -eq 0 ] || { echo "arc-acp -t $d: $status $output"; false; }
	done
	run arc-emit --kind permission --message m --choice a:A --choice b:B --expires-in 10x
	[ "$status" -eq 2 ]
	run arc-wait -t 10x nothing
	[ "$status" -eq 2 ]
	run arc-apply --retain 10x </dev/null
	[ "$status" -eq 2 ]
	run arc-apply --compact --window 10x
	[ "$status" -eq 2 ]
	run arc-status --history --since 10x
	[ "$status" -eq 2 ]
	run arc-acp -t 10x -- true </dev/null
	[ "$status" -eq 2 ]
}

@test "--help explains its options: no line of options shares one explanation among more than four" {
	local c errors=
	for c in $COMMANDS; do
		errors+=$("$c" --help | awk -v c="$c" 'NR == 1, /^$/ { next }
		/^  -/ {
			n = 0
			for (i = 1; i <= NF; i++) if ($i ~ /^--?[a-z]/) n++
			if (n > 4) print c ": " $0
		}')
	done
	[ -z "$errors" ] || { echo "$errors"; false; }
}

@test "the commands narrow themselves: no_new_privs, so nothing they run gains privileges; arc-acp, whose agent may run sudo, does not" {
	arc-emit --key k --kind permission --message m --choice a:A --choice b:B \
	    --expires-in 1h | arc-apply >/dev/null
	"$ARC_BIN/arc-wait" -t 30 k >/dev/null 3>&- &
	local waiter=$!
	eventually grep -q '^NoNewPrivs:' "/proc/$waiter/status"
	eventually eval "[ \"\$(awk '/^NoNewPrivs:/ { print \$2 }' /proc/$waiter/status)\" = 1 ]"
	kill "$waiter"
	# a command arc-answer runs (--via) inherits it
	run --separate-stderr arc-answer --via "grep NoNewPrivs /proc/self/status >&2; cat >/dev/null" k a
	[[ "$stderr" == *"NoNewPrivs:"*"1"* ]]
	# the agent under arc-acp does not have it
	run --separate-stderr arc-acp -- sh -c "awk '/^NoNewPrivs:/ { print \$2 }' /proc/self/status" </dev/null
	[ "$output" = 0 ]
}
