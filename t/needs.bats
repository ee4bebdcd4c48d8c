#!/usr/bin/env bats
# What each file runs (t/README's table of that name) against what the
# files do run (t/needs-scan), against dpkg (which package has each
# program here), and against the Makefile's DEBS_* lists (the packages the
# file's targets install, with what those depend on).  A fresh Debian 12
# minbase root with git, make, build-essential and ca-certificates is the
# floor: programs of its packages need no row.
load helper

setup_file() {
	local d=$BATS_FILE_TMPDIR
	cd "$BATS_TEST_DIRNAME/.."
	t/needs-scan . >"$d/scan"
	# The table: "FILE TARGET[,TARGET] NAME:PACKAGE..." with NAME:PACKAGE
	# lines going on under it; one line "FILE TARGETS NAME PACKAGE" each.
	awk '/^What each file runs/ { on = 1; next }
	    on && /^[A-Za-z]/ { on = 0 }
	    on && /^  [^ ]+ +[a-z,]+( |$)/ && $1 ~ /\// && $1 !~ /:/ { f = $1; tg = $2; s = 3 }
	    on && /^   / && $1 ~ /:/ { s = 1 }
	    on && f && NF { for (i = s; i <= NF; i++) if ($i ~ /:/) {
		split($i, a, ":"); print f, tg, a[1], a[2] } }
	    on && !NF { f = "" }' t/README >"$d/table"
	# The packages of the fresh root: the required ones, apt (debootstrap
	# --variant=minbase adds it) and the four.
	closure apt git make build-essential ca-certificates \
	    $(dpkg-query -W -f '${Package} ${Priority}\n' |
	      awk '$2 == "required" { print $1 }') >"$d/base"
	owners $( { cut -d' ' -f2 "$d/scan"; cut -d' ' -f3 "$d/table"; } |
	    sort -u) >"$d/owners"
}

# closure PACKAGE...: the packages, and what they depend on
closure() {
	apt-cache depends --recurse --no-recommends --no-suggests \
	    --no-conflicts --no-breaks --no-replaces --no-enhances "$@" |
	    grep -v '^[ <]' | sed 's/:.*//' | sort -u
}

# owners NAME...: "NAME PACKAGE" for each program (or py/MODULE) that a
# Debian package here has, from one dpkg -S for all
owners() {
	local n f p paths=() names=()
	for n in "$@"; do
		case $n in
		py/*)	for f in /usr/lib/python3/dist-packages/"${n#py/}"{,.py,.*.so}; do
				[ -e "$f" ] && { paths+=("$f"); names+=("$n"); break; }
			done ;;
		*)	for p in /usr/bin /usr/sbin /bin /sbin; do
				[ -e "$p/$n" ] || continue
				paths+=("$p/$n" "$(readlink -f "$p/$n")")
				names+=("$n" "$n")
			done ;;
		esac
	done
	[ ${#paths[@]} -gt 0 ] || return 0
	dpkg -S "${paths[@]}" 2>/dev/null | grep -v '^diversion' |
	    sed 's/^\([^:,]*\)[^:]*: \(.*\)/\2 \1/' >"$BATS_FILE_TMPDIR/dpkg-S"
	for ((f = 0; f < ${#paths[@]}; f++)); do
		echo "${paths[f]} ${names[f]}"
	done | awk 'NR == FNR { pkg[$1] = $2; next }
	    ($1 in pkg) && !seen[$2]++ { print $2, pkg[$1] }' \
	    "$BATS_FILE_TMPDIR/dpkg-S" -
}

# from_archive PACKAGE: its installed version is one the archive apt uses
# has (not, say, nodesource's nodejs, which has npm too)
from_archive() {
	apt-cache madison "$1" | grep -qF " $(dpkg-query -W -f '${Version}' "$1") "
}

# owner NAME: its package, from setup_file's table of them, or ""
owner() { awk -v n="$1" '$1 == n { print $2; exit }' "$BATS_FILE_TMPDIR/owners"; }

@test "every program a file runs outside the fresh root is in t/README's table, under that file, with its package" {
	local errors
	errors=$(awk -v d="$BATS_FILE_TMPDIR" '
	    FILENAME == d "/owners" { pkg[$1] = $2; next }
	    FILENAME == d "/base" { base[$1] = 1; next }
	    FILENAME == d "/table" { row[$1 " " $3] = 1; next }
	    { p = ($2 in pkg) ? pkg[$2] : "" }
	    (p in base) || (($1 " " $2) in row) { next }
	    { printf "%s runs %s (package: %s): not in t/README'"'"'s table\n", $1, $2,
		p == "" ? "none installed here" : p }' \
	    "$BATS_FILE_TMPDIR/owners" "$BATS_FILE_TMPDIR/base" \
	    "$BATS_FILE_TMPDIR/table" "$BATS_FILE_TMPDIR/scan")
	printf '%s' "$errors"
	[ -z "$errors" ]
	[ -s "$BATS_FILE_TMPDIR/table" ]
}

@test "every program of t/README's table is run by its file" {
	local file tg name pkg errors=
	while read -r file tg name pkg; do
		grep -qx "$file $name" "$BATS_FILE_TMPDIR/scan" ||
		    errors+="t/README: $file does not run $name"$'\n'
	done <"$BATS_FILE_TMPDIR/table"
	printf '%s' "$errors"
	[ -z "$errors" ]
}

@test "t/README's table gives each program the package dpkg says has it, and make check's are installed" {
	local file tg name pkg got errors=
	while read -r file tg name pkg; do
		got=$(owner "$name")
		if [ -z "$got" ]; then
			# Only make check's packages are sure to be here.
			[[ ",$tg," != *,check,* ]] ||
			    errors+="$file runs $name ($pkg): not installed by make check"$'\n'
		elif [ "$got" != "$pkg" ] && from_archive "$got"; then
			errors+="t/README: $name is in $got, not $pkg"$'\n'
		fi
	done <"$BATS_FILE_TMPDIR/table"
	printf '%s' "$errors"
	[ -z "$errors" ]
}

@test "each package of t/README's table is brought by its targets' DEBS_* lists in the Makefile" {
	local file tg name pkg t errors=
	while read -r file tg name pkg; do
		for t in ${tg//,/ }; do
			[ -e "$BATS_FILE_TMPDIR/list-$t" ] ||
			    make -s debs-list T="${t^^}" | tr ' ' '\n' >"$BATS_FILE_TMPDIR/list-$t"
			[ -s "$BATS_FILE_TMPDIR/list-$t" ] ||
			    errors+="$file: no DEBS_${t^^} in the Makefile"$'\n'
			grep -qx "$pkg" "$BATS_FILE_TMPDIR/list-$t" && continue
			grep -qx "$pkg" "$BATS_FILE_TMPDIR/base" && continue
			# not listed itself: a listed package may depend on it
			[ -e "$BATS_FILE_TMPDIR/debs-$t" ] ||
			    closure $(cat "$BATS_FILE_TMPDIR/list-$t") >"$BATS_FILE_TMPDIR/debs-$t"
			grep -qx "$pkg" "$BATS_FILE_TMPDIR/debs-$t" ||
			    errors+="$file runs $name ($pkg): DEBS_${t^^} does not bring it"$'\n'
		done
	done <"$BATS_FILE_TMPDIR/table"
	# make check runs t/*.bats, make check-slow t/slow/*.bats
	while read -r file tg name pkg; do
		case $file in
		t/slow/*) [[ ",$tg," == *,slow,* ]] ;;
		t/*.bats|t/helper.bash) [[ ",$tg," == *,check,* ]] ;;
		esac || errors+="t/README: $file is listed under $tg, not the target that runs it"$'\n'
	done <"$BATS_FILE_TMPDIR/table"
	printf '%s' "$errors"
	[ -z "$errors" ]
}
