#!/usr/bin/env bats
# One duration parser: every command, arc-mqtt and the hooks take the same
# durations (w d h m s, from the largest down, seconds alone, fractions)
# and refuse the same others, each with the same words.
load helper

ACCEPTED=(10 2.5 .5 90s 10m 1.5h 1h30m 2d 1w 1w2d 3d4h5m6s 0s)
REFUSED=(soon -5 10x 1h30 "" 1e3 "5 m" 30m1h 1..5 . 5. 1d1w 10minutes 1W "1 h")

takes() { # COMMAND... : exit status 2 means refused
	"$@" >/dev/null 2>"$BATS_TEST_TMPDIR/err" </dev/null
	[ $? -ne 2 ]
}

@test "arc-wait, arc-emit, arc-apply and arc-mqtt send accept and refuse the same durations" {
	local d
	for d in "${ACCEPTED[@]}" "${REFUSED[@]}"; do
		local want=no w e a m
		for w in "${ACCEPTED[@]}"; do [ "$w" = "$d" ] && want=yes; done
		w=no; takes arc-wait -t "$d" nosuchkey && w=yes
		e=no; takes arc-emit --key k --kind question --message m --text-max 4 --expires-in "$d" && e=yes
		a=no; takes arc-apply --retain "$d" </dev/null && a=yes
		m=no; takes "$BATS_TEST_DIRNAME/../examples/arc-mqtt" send -w "$d" && m=yes
		[ "$w$e$a$m" = "$want$want$want$want" ] ||
		    { echo "'$d': want $want; arc-wait $w, arc-emit $e, arc-apply $a, arc-mqtt $m"; false; }
	done
}

@test "the same words for a refused duration, naming the option" {
	run --separate-stderr arc-wait -t 10minutes k
	[ "${stderr_lines[0]}" = "arc-wait: -t 10minutes: not a duration such as 90s, 10m, 2h, 1d, 1w or 1h30m" ]
	run --separate-stderr arc-apply --retain 10minutes
	[ "${stderr_lines[0]}" = "arc-apply: --retain 10minutes: not a duration such as 90s, 10m, 2h, 1d, 1w or 1h30m" ]
	run --separate-stderr arc-emit --key k --kind question --message m --text-max 4 --expires-in 10minutes
	[ "${stderr_lines[0]}" = "arc-emit: --expires-in 10minutes: not a duration such as 90s, 10m, 2h, 1d, 1w or 1h30m" ]
	run --separate-stderr "$BATS_TEST_DIRNAME/../examples/arc-mqtt" send -w 10minutes
	[ "${stderr_lines[0]}" = "arc-mqtt: send: -w 10minutes: not a duration such as 90s, 10m, 2h, 1d, 1w or 1h30m" ]
}

@test "arc-notify -n prints a duration exactly, in units it reads back the same (129600s and 130000s differ)" {
	local c="$BATS_TEST_TMPDIR/notify.conf"
	printf '%s\n' 'notify desktop delay 129600 remind 36h10m' \
	    'notify tmux delay 130000s remind 1.5s' \
	    'notify desktop delay 61.25s remind 7d' >"$c"
	run --separate-stderr arc-notify -n -f "$c"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "notify desktop delay 1d12h remind 1d12h10m" ]
	[ "${lines[2]}" = "notify tmux delay 1d12h6m40s remind 1.5s" ]
	[ "${lines[3]}" = "notify desktop delay 1m1.25s remind 1w" ]
	# What it prints is a policy that reads as the same rules.
	printf '%s\n' "${lines[@]:1}" >"$c.again"
	run --separate-stderr arc-notify -n -f "$c.again"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "notify desktop delay 1d12h remind 1d12h10m" ]
	[ "${lines[2]}" = "notify tmux delay 1d12h6m40s remind 1.5s" ]
	[ "${lines[3]}" = "notify desktop delay 1m1.25s remind 1w" ]
}
