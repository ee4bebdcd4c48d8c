# Shared by t/mqtt.bats and bench/mqtt: a broker of our own, processes
# started in sessions of their own and stopped by their ids, and what the
# broker shows (waited for with helper.bash's eventually).
MQTT_DIR=${MQTT_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
ARC_MQTT=${ARC_MQTT:-$MQTT_DIR/../../examples/arc-mqtt}

# The broker lives in $BROKER (a folder).
broker() { "$MQTT_DIR/broker" "$1" "$BROKER"; }

# as USER CMD...: runs CMD with USER's broker options (host, port, password).
as() {
	local user=$1
	shift
	XDG_CONFIG_HOME="$BROKER/as/$user" "$@"
}

# spawn NAME USER CMD...: CMD with USER's broker options, in a session of
# its own; output in $BROKER/NAME.out and .err, its id in $BROKER/NAME.pid.
spawn() {
	local name=$1 user=$2
	shift 2
	XDG_CONFIG_HOME="$BROKER/as/$user" setsid "$@" >"$BROKER/$name.out" \
	    2>"$BROKER/$name.err" </dev/null 3>&- &
	echo $! >"$BROKER/$name.pid"
}

# halt NAME: SIGTERM to what spawn started, then waits for it to go;
# SIGKILL to the whole session if it does not.
halt() {
	local pid i
	[ -f "$BROKER/$1.pid" ] || return 0
	pid=$(cat "$BROKER/$1.pid")
	rm -f "$BROKER/$1.pid"
	kill -TERM -- "-$pid" 2>/dev/null || return 0
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	# Anything left in its session (it was the session leader).
	local left
	left=$(ps -e -o pid=,sid= | awk -v s="$pid" '$2 == s {print $1}')
	[ -z "$left" ] || kill -KILL $left 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# halt_all: everything spawn started, then the broker.
halt_all() {
	local f
	for f in "$BROKER"/*.pid; do
		[ -e "$f" ] || continue
		f=${f##*/}
		halt "${f%.pid}"
	done
	broker stop
}

# retained USER HOST: the retained conditions of HOST, one JSON line each
# as {"topic":..., "payload":...}, sorted by topic.
retained() {
	as "$1" mosquitto_sub -q 1 --retained-only -W 1 -F %j \
	    -t "arc/$2/conditions/+" 2>/dev/null |
	    jq -c '{topic, payload: (.payload | fromjson? // .)}' | sort
}

# phone_answer HOST KEY CHOICE [JQ]: what an MQTT app would do: read the
# retained condition, echo its digest and nonce in a response.submitted.
phone_answer() {
	as person mosquitto_sub -q 1 -C 1 -W 5 -t "arc/$1/conditions/$2" |
	    jq -c --arg choice "$3" --arg id "evt_$SRANDOM$SRANDOM" '
	    {arc_version: "0.2", event_id: $id,
	     event_type: "response.submitted",
	     occurred_at: (now | todate), sender: {id: "phone"},
	     request: {key: .interaction.key},
	     response: {response_id: ("r-" + $id),
	       digest: .interaction.digest, nonce: .interaction.nonce,
	       choice_id: $choice, source: "phone"}}' | jq -c "${4:-.}"
}

# supervise NAME USER CMD...: CMD as spawn starts it, and started again
# 0.2 s after each time it ends, as systemd's Restart=always would; each
# exit status as a line "exit N" in $BROKER/NAME.out.
supervise() {
	local name=$1 user=$2
	shift 2
	spawn "$name" "$user" bash -c \
	    'while :; do "$@"; echo "exit $?"; sleep 0.2; done' supervise "$@"
}
# side_pids NAME: the processes that NAME (spawned or supervised) runs,
# the supervisor itself left out.
side_pids() {
	local sid
	sid=$(cat "$BROKER/$1.pid")
	ps -s "$sid" -o pid= | awk -v s="$sid" '$1 != s {print $1}'
}
# side_proc NAME COMM [WORD]: the id of NAME's process COMM (as ps shows
# it: the program itself, not a script around it) whose command line
# holds WORD.
side_proc() {
	ps -s "$(cat "$BROKER/$1.pid")" -o pid=,comm=,args= |
	    awk -v c="$2" -v w="${3:-}" '$2 == c && index($0, w) {print $1}'
}
# alive PID...: those of them still running (zombies are not), one a line.
alive() {
	local IFS=,
	ps -o pid=,stat= -p "$*" | awk '$2 !~ /^Z/ {print $1}'
}
# gone_within SECONDS PID...: every PID ends within SECONDS; the time it
# took (seconds) in $gone_after.
gone_within() {
	local limit=$1 t0=${EPOCHREALTIME/./} now left
	shift
	while :; do
		left=$(alive "$@")
		now=${EPOCHREALTIME/./}
		gone_after=$(printf '%d.%03d' $(((now - t0) / 1000000)) \
		    $(((now - t0) % 1000000 / 1000)))
		[ -n "$left" ] || return 0
		if [ $((now - t0)) -gt $((limit * 1000000)) ]; then
			echo "still running after ${limit}s:" $left >&2
			ps -o pid=,comm=,args= -p "$(echo $left | tr ' ' ,)" >&2 || true
			return 1
		fi
		sleep 0.01
	done
}
