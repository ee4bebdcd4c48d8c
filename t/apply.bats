#!/usr/bin/env bats
# arc-apply: the condition lifecycle, the six answer rules in their order,
# idempotency, result lines and exit status, and --mirror.  The journal's
# own rules (arc-journal(5)) are in t/journal.bats.
load helper

T0=2026-08-26T01:16:00Z

@test "created with a new key opens a condition: 201, active, pending question" {
	run --separate-stderr apply <<<"$(created deploy)"
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 201 ]
	[ "$(field .key)" = deploy ]
	[ "$(field .notification.status)" = active ]
	[ "$(field .interaction.status)" = pending ]
	[ "$(field .interaction.notification_id)" = "$(field .notification.id)" ]
	[ "$(field '.interaction.choices | map(.id) | join(",")')" = allow,deny ]
}

@test "notification record: the kind table's type, priority and title, NAME from sender" {
	run --separate-stderr apply <<<"$(created deploy)"
	[ "$(field '[.notification.type, .notification.priority, .notification.title] | join("|")')" = "permission_required|high|Codex needs permission" ]
	run --separate-stderr apply <<<"$(information "" | jq -c 'del(.sender.name)')"
	[ "$(field '[.notification.type, .notification.priority, .notification.title] | join("|")')" = "info|normal|Update from codex" ]
}

@test "notification record: agent_instance falls back to session_id, project to the cwd's last part" {
	run --separate-stderr apply <<<"$(created deploy)"
	[ "$(field .notification.agent_instance)" = s-1 ]
	[ "$(field .notification.project)" = agent-notify ]
	run --separate-stderr apply <<<"$(created other '.sender.instance_id = "i-9" | .context.project = "p"')"
	[ "$(field .notification.agent_instance)" = i-9 ]
	[ "$(field .notification.project)" = p ]
}

@test "notification record: x-agentnotify.notification_type overrides the type" {
	run --separate-stderr apply <<<"$(created deploy '.extensions = {"x-agentnotify": {"notification_type": "release"}}')"
	[ "$(field .notification.type)" = release ]
}

@test "records carry every contract field, and the times are ARC_NOW" {
	run --separate-stderr apply <<<"$(created deploy)"
	[ "$(field '.notification | keys | sort | join(",")')" = "agent,agent_instance,agent_name,correlation_id,created_at,event_id,id,key,kind,message,outcome,priority,project,resolved_at,session_id,status,title,type,updated_at" ]
	[ "$(field '.interaction | keys | sort | join(",")')" = "answered_at,choices,created_at,digest,expires_at,id,key,kind,native_request_id,nonce,notification_id,prompt,response,session_id,status,title,turn_id,updated_at" ]
	[ "$(field .notification.created_at)" = 2026-08-26T01:16:00Z ]
	[ "$(field .interaction.prompt)" = "May I deploy?" ]
}

@test "a request without request.response has no question: interaction is null" {
	run --separate-stderr apply <<<"$(information build)"
	[ "$(field .status)" = 201 ]
	[ "$(field .interaction)" = null ]
}

@test "keyless created: key is arc: + sha256(sender.id \\n event_id)" {
	local ev; ev=$(information "")
	run --separate-stderr apply <<<"$ev"
	[ "$(field .key)" = "arc:$(printf 'codex\n%s' "$(field .event_id)" | sha256sum | cut -d' ' -f1)" ]
	[ "$(field .status)" = 201 ]
}

@test "a blank key on created counts as keyless" {
	run --separate-stderr apply <<<"$(information "  ")"
	[[ "$(field .key)" == arc:* ]]
}

@test "keyless created replays for ever, also after the condition is resolved" {
	local ev key; ev=$(information "")
	run --separate-stderr apply <<<"$ev"
	key=$(field .key)
	apply <<<"$(resolved "$key")" >/dev/null
	run --separate-stderr apply <<<"$ev"
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 200 ]
	[ "$(field .replayed)" = true ]
	[ "$(field .notification.status)" = resolved ]
}

@test "created with the key of an active condition updates it: 200, same notification" {
	run --separate-stderr apply <<<"$(created deploy)"
	local id; id=$(field .notification.id)
	run --separate-stderr apply <<<"$(created deploy '.request.message = "Deploy now?"')"
	[ "$(field .status)" = 200 ]
	[ "$(field .notification.id)" = "$id" ]
	[ "$(field .notification.message)" = "Deploy now?" ]
}

@test "created with the key of a resolved condition opens a new lifecycle: 201, new ids" {
	run --separate-stderr apply <<<"$(created deploy)"
	local id qid; id=$(field .notification.id) qid=$(field .interaction.id)
	apply <<<"$(resolved deploy)" >/dev/null
	run --separate-stderr apply <<<"$(created deploy)"
	[ "$(field .status)" = 201 ]
	[ "$(field .notification.id)" != "$id" ]
	[ "$(field .interaction.id)" != "$qid" ]
	[ "$(field .interaction.status)" = pending ]
}

@test "a new lifecycle without a question shows none, whatever the old one's end" {
	local q
	# answered, cancelled and expired questions; then a notice, or a
	# permission condition asked without request.response
	for end in answered cancelled expired; do
		for next in information 'created k del(.request.response)'; do
			rm -rf "$BATS_TEST_TMPDIR/state"
			q=$(apply <<<"$(created k)")
			case $end in
			answered) apply <<<"$(answer k "$q" allow)" >/dev/null ;;
			cancelled) apply <<<"$(resolved k)" >/dev/null ;;
			expired) ARC_NOW=2026-08-26T03:00:00Z apply <<<"$(resolved k expired)" >/dev/null ;;
			esac
			if [ "$next" = information ]; then
				run --separate-stderr apply <<<"$(information k)"
			else
				run --separate-stderr apply <<<"$(created k 'del(.request.response)')"
			fi
			[ "$(field .status)" = 201 ] || { echo "$end/$next: status $(field .status)"; return 1; }
			[ "$(field .interaction)" = null ] || { echo "$end/$next: an interaction, $(field .interaction.status)"; return 1; }
		done
	done
}

@test "a new lifecycle with the same content gives the same digest but a new nonce" {
	run --separate-stderr apply <<<"$(created deploy)"
	local d n; d=$(field .interaction.digest) n=$(field .interaction.nonce)
	apply <<<"$(resolved deploy)" >/dev/null
	run --separate-stderr apply <<<"$(created deploy)"
	[ "$(field .interaction.digest)" = "$d" ]
	[ "$(field .interaction.nonce)" != "$n" ]
}

@test "updated never creates a missing condition: 404 not_found" {
	run --separate-stderr apply <<<"$(updated nowhere)"
	[ "$status" -eq 1 ]
	[ "$(field .status)" = 404 ]
	[ "$(field .error.code)" = not_found ]
	[ ! -s "$ARC_JOURNAL" ] || [ "$(wc -l <"$ARC_JOURNAL")" -le 1 ]
}

@test "updated on a resolved condition is 404: it targets only an active one" {
	apply <<<"$(created deploy)" >/dev/null
	apply <<<"$(resolved deploy)" >/dev/null
	run --separate-stderr apply <<<"$(updated deploy)"
	[ "$(field .status)" = 404 ]
}

@test "updated replaces the visible state: title and priority fall back to the kind's defaults" {
	apply <<<"$(created deploy '.request.title = "Custom" | .request.priority = "low"')" >/dev/null
	run --separate-stderr apply <<<"$(updated deploy '.request.kind = "blocked" | .request.message = "Stuck"')"
	[ "$(field .status)" = 200 ]
	[ "$(field '[.notification.kind, .notification.title, .notification.priority, .notification.message, .notification.type] | join("|")')" = "blocked|Codex is blocked|high|Stuck|blocked" ]
}

@test "an update that changes what a person sees supersedes the question" {
	run --separate-stderr apply <<<"$(created deploy)"
	local old; old=$(jq -c .interaction <<<"$output")
	run --separate-stderr apply <<<"$(updated deploy '.request.message = "May I deploy to production?"')"
	[ "$(field .interaction.status)" = pending ]
	[ "$(field .interaction.id)" != "$(field .id "$old")" ]
	[ "$(field .interaction.digest)" != "$(field .digest "$old")" ]
	[ "$(field .interaction.nonce)" != "$(field .nonce "$old")" ]
	[ "$(field .interaction.prompt)" = "May I deploy to production?" ]
	# the specification carried over
	[ "$(field '.interaction.choices | map(.id) | join(",")')" = allow,deny ]
	# and the journal says which question it replaced
	[ "$(tail -1 "$ARC_JOURNAL" | jq -r .superseded)" = "$(field .id "$old")" ]
}

@test "an update that changes nothing displayed keeps the question and its digest" {
	run --separate-stderr apply <<<"$(created deploy '.request.priority = "low"')"
	local qid d; qid=$(field .interaction.id) d=$(field .interaction.digest)
	run --separate-stderr apply <<<"$(updated deploy '.request.priority = "critical"')"
	[ "$(field .notification.priority)" = critical ]
	[ "$(field .interaction.id)" = "$qid" ]
	[ "$(field .interaction.digest)" = "$d" ]
}

@test "an update's request.response replaces the answer specification" {
	apply <<<"$(created deploy)" >/dev/null
	run --separate-stderr apply <<<"$(updated deploy '.request.response = {kind:"text", expires_at:"2026-08-26T03:00:00Z"}')"
	[ "$(field .interaction.kind)" = text ]
	[ "$(field .interaction.text_max_length)" = 500 ]
	[ "$(field .interaction.choices)" = null ]
}

@test "only a pending question's specification carries over" {
	run --separate-stderr apply <<<"$(created deploy '.request.response.expires_at = "2026-08-26T01:16:00Z"')"
	[ "$(field .interaction.status)" = expired ]
	local qid; qid=$(field .interaction.id)
	run --separate-stderr apply <<<"$(updated deploy '.request.message = "Still there?"')"
	[ "$(field .interaction.id)" = "$qid" ]
	[ "$(field .interaction.status)" = expired ]
}

@test "digest: SHA-256 of the RFC 8785 form of the question as displayed" {
	run --separate-stderr apply <<<"$(created deploy)"
	local canonical='{"key":"deploy","kind":"permission","message":"May I deploy?","response":{"choices":[{"id":"allow","label":"Allow"},{"detail":"Stops here","id":"deny","label":"Deny"}],"expires_at":"2026-08-26T02:00:00Z","kind":"permission"},"title":"Codex needs permission"}'
	[ "$(field .interaction.digest)" = "$(printf '%s' "$canonical" | sha256sum | cut -d' ' -f1)" ]
}

@test "digest of a text question covers its effective text_max_length" {
	run --separate-stderr apply <<<"$(created ask '.request.kind = "question" | .request.response = {kind:"text", expires_at:"2026-08-26T02:00:00Z"}')"
	local canonical='{"key":"ask","kind":"question","message":"May I deploy?","response":{"expires_at":"2026-08-26T02:00:00Z","kind":"text","text_max_length":500},"title":"Codex needs input"}'
	[ "$(field .interaction.digest)" = "$(printf '%s' "$canonical" | sha256sum | cut -d' ' -f1)" ]
}

@test "nonce: 128 random bits as base64url without padding, new for every question" {
	run --separate-stderr apply <<<"$(created a)"
	local n1; n1=$(field .interaction.nonce)
	[[ "$n1" =~ ^[A-Za-z0-9_-]{22}$ ]]
	run --separate-stderr apply <<<"$(created b)"
	[ "$(field .interaction.nonce)" != "$n1" ]
}

@test "an accepted answer: 200, interaction answered, notification resolved as answered" {
	local q; q=$(apply <<<"$(created deploy)")
	run --separate-stderr apply <<<"$(answer deploy "$q" allow)"
	[ "$status" -eq 0 ]
	[ "$(field .status)" = 200 ]
	[ "$(field '[.interaction.status, .interaction.response.choice_id, .interaction.response.source] | join("|")')" = "answered|allow|cli" ]
	[ "$(field '[.notification.status, .notification.outcome] | join("|")')" = "resolved|answered" ]
	[ "$(field .interaction.answered_at)" = 2026-08-26T01:16:00Z ]
}

@test "rule 1: no such condition is not_found (404)" {
	local q; q=$(apply <<<"$(created deploy)")
	run --separate-stderr apply <<<"$(answer elsewhere "$q" allow)"
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code] | join("|")')" = "404|not_found" ]
}

@test "rule 1: a condition without a question is not_found" {
	apply <<<"$(information build)" >/dev/null
	local fake='{"interaction":{"digest":"'"$(printf '0%.0s' $(seq 64))"'","nonce":"x"}}'
	run --separate-stderr apply <<<"$(answer build "$fake" allow)"
	[ "$(field '[.status, .error.code] | join("|")')" = "404|not_found" ]
}

@test "rule 2: a second answer is a conflict (409); the first one stands" {
	local q; q=$(apply <<<"$(created deploy)")
	apply <<<"$(answer deploy "$q" allow)" >/dev/null
	run --separate-stderr apply <<<"$(answer deploy "$q" deny)"
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code] | join("|")')" = "409|conflict" ]
	run arc-status --list
	[ -z "$output" ]
}

@test "rule 2: the accepted response_id with the same answer replays the acceptance" {
	local q a; q=$(apply <<<"$(created deploy)")
	a=$(answer deploy "$q" allow '.response.response_id = "resp-1"')
	apply <<<"$a" >/dev/null
	run --separate-stderr apply <<<"$(answer deploy "$q" allow '.response.response_id = "resp-1" | .response.source = "phone"')"
	[ "$status" -eq 0 ]
	[ "$(field '[.status, .replayed, .interaction.response.source] | join("|")')" = "200|true|cli" ]
}

@test "rule 2: the accepted response_id with another answer is a conflict" {
	local q; q=$(apply <<<"$(created deploy)")
	apply <<<"$(answer deploy "$q" allow '.response.response_id = "resp-1"')" >/dev/null
	run --separate-stderr apply <<<"$(answer deploy "$q" deny '.response.response_id = "resp-1"')"
	[ "$(field '[.status, .error.code] | join("|")')" = "409|conflict" ]
}

@test "order: a wrong digest sent to an answered question is a conflict, not a digest mismatch" {
	local q; q=$(apply <<<"$(created deploy)")
	apply <<<"$(answer deploy "$q" allow)" >/dev/null
	run --separate-stderr apply <<<"$(answer deploy "$q" allow '.response.digest = ("f" * 64)')"
	[ "$(field .error.code)" = conflict ]
}

@test "rule 3: an expired question is not open (error.state expired)" {
	local q; q=$(apply <<<"$(created deploy)")
	ARC_NOW=2026-08-26T02:00:00Z run --separate-stderr apply <<<"$(answer deploy "$q" allow)"
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code, .error.state] | join("|")')" = "400|not_open|expired" ]
}

@test "rule 3: a cancelled question is not open" {
	local q; q=$(apply <<<"$(created deploy)")
	apply <<<"$(resolved deploy)" >/dev/null
	run --separate-stderr apply <<<"$(answer deploy "$q" allow)"
	[ "$(field '[.error.code, .error.state] | join("|")')" = "not_open|cancelled" ]
}

@test "rule 3: a question withdrawn as superseded is not open" {
	local q; q=$(apply <<<"$(created deploy)")
	apply <<<"$(resolved deploy superseded)" >/dev/null
	run --separate-stderr apply <<<"$(answer deploy "$q" allow)"
	[ "$(field '[.error.code, .error.state] | join("|")')" = "not_open|superseded" ]
}

@test "order: not open comes before the digest check" {
	local q; q=$(apply <<<"$(created deploy)")
	apply <<<"$(resolved deploy)" >/dev/null
	run --separate-stderr apply <<<"$(answer deploy "$q" allow '.response.digest = ("f" * 64)')"
	[ "$(field .error.code)" = not_open ]
}

@test "rule 4: a digest that is not the current question's is digest_mismatch" {
	local q; q=$(apply <<<"$(created deploy)")
	run --separate-stderr apply <<<"$(answer deploy "$q" allow '.response.digest = ("f" * 64)')"
	[ "$(field '[.status, .error.code] | join("|")')" = "400|digest_mismatch" ]
}

@test "rule 4: an answer to the question before an update is digest_mismatch" {
	local q; q=$(apply <<<"$(created deploy)")
	apply <<<"$(updated deploy '.request.message = "Changed?"')" >/dev/null
	run --separate-stderr apply <<<"$(answer deploy "$q" allow '.response.nonce = "x"')"
	[ "$(field .error.code)" = digest_mismatch ]
}

@test "rule 5: an answer without the issued nonce, or with another, is nonce_mismatch" {
	local q; q=$(apply <<<"$(created deploy)")
	run --separate-stderr apply <<<"$(answer deploy "$q" allow 'del(.response.nonce)')"
	[ "$(field '[.status, .error.code] | join("|")')" = "400|nonce_mismatch" ]
	run --separate-stderr apply <<<"$(answer deploy "$q" allow '.response.nonce |= (.[1:] + "A")')"
	[ "$(field .error.code)" = nonce_mismatch ]
}

@test "order: the digest is checked before the nonce" {
	local q; q=$(apply <<<"$(created deploy)")
	run --separate-stderr apply <<<"$(answer deploy "$q" allow '.response.digest = ("f" * 64) | del(.response.nonce)')"
	[ "$(field .error.code)" = digest_mismatch ]
}

@test "rule 6: a choice that was not offered is invalid_answer" {
	local q; q=$(apply <<<"$(created deploy)")
	run --separate-stderr apply <<<"$(answer deploy "$q" allow_always)"
	[ "$(field '[.status, .error.code] | join("|")')" = "400|invalid_answer" ]
}

@test "rule 6: a text answer to a choice question is invalid_answer" {
	local q; q=$(apply <<<"$(created deploy)")
	run --separate-stderr apply <<<"$(answer deploy "$q" x 'del(.response.choice_id) | .response.text = "yes"')"
	[ "$(field .error.code)" = invalid_answer ]
}

@test "status codes as the reference consumer: 400 for not_open (each state), digest_mismatch, nonce_mismatch, invalid_answer; 409 only for conflict" {
	local q k codes=""
	# not_open, for each way a question closes
	q=$(apply <<<"$(created k1)")
	codes+=$(ARC_NOW=2026-08-26T02:00:00Z apply <<<"$(answer k1 "$q" allow)" | jq -r '"\(.status):\(.error.code):\(.error.state) "')
	q=$(apply <<<"$(created k2)"); apply <<<"$(resolved k2)" >/dev/null
	codes+=$(apply <<<"$(answer k2 "$q" allow)" | jq -r '"\(.status):\(.error.code):\(.error.state) "')
	q=$(apply <<<"$(created k3)"); apply <<<"$(resolved k3 superseded)" >/dev/null
	codes+=$(apply <<<"$(answer k3 "$q" allow)" | jq -r '"\(.status):\(.error.code):\(.error.state) "')
	# a question changed under the answer, a wrong nonce, a choice not offered
	q=$(apply <<<"$(created k4)"); apply <<<"$(updated k4 '.request.message = "Changed?"')" >/dev/null
	codes+=$(apply <<<"$(answer k4 "$q" allow)" | jq -r '"\(.status):\(.error.code) "')
	q=$(apply <<<"$(created k5)")
	codes+=$(apply <<<"$(answer k5 "$q" allow '.response.nonce = "AAAAAAAAAAAAAAAAAAAAAA"')" | jq -r '"\(.status):\(.error.code) "')
	codes+=$(apply <<<"$(answer k5 "$q" maybe)" | jq -r '"\(.status):\(.error.code) "')
	# a second, different answer
	apply <<<"$(answer k5 "$q" allow)" >/dev/null
	codes+=$(apply <<<"$(answer k5 "$q" deny)" | jq -r '"\(.status):\(.error.code)"')
	[ "$codes" = "400:not_open:expired 400:not_open:cancelled 400:not_open:superseded 400:digest_mismatch 400:nonce_mismatch 400:invalid_answer 409:conflict" ]
}

@test "order: the nonce is checked before the shape" {
	local q; q=$(apply <<<"$(created deploy)")
	run --separate-stderr apply <<<"$(answer deploy "$q" nope 'del(.response.nonce)')"
	[ "$(field .error.code)" = nonce_mismatch ]
}

@test "rule 6: text answers are bound by text_max_length, counted in code points" {
	local q; q=$(apply <<<"$(text_question name 3)")
	run --separate-stderr apply <<<"$(answer name "$q" x 'del(.response.choice_id) | .response.text = "😀😀😀😀"')"
	[ "$(field .error.code)" = invalid_answer ]
	run --separate-stderr apply <<<"$(answer name "$q" x 'del(.response.choice_id) | .response.text = "😀é😀"')"
	[ "$(field .status)" = 200 ]
	[ "$(field .interaction.response.text)" = "😀é😀" ]
}

@test "rule 6: a choice_id for a text question is invalid_answer" {
	local q; q=$(apply <<<"$(text_question name)")
	run --separate-stderr apply <<<"$(answer name "$q" allow)"
	[ "$(field .error.code)" = invalid_answer ]
}

@test "resolved on a missing key is 404" {
	run --separate-stderr apply <<<"$(resolved nothing)"
	[ "$(field '[.status, .error.code] | join("|")')" = "404|not_found" ]
}

@test "resolved closes the condition with its outcome and withdraws the question (cancelled)" {
	apply <<<"$(created deploy)" >/dev/null
	run --separate-stderr apply <<<"$(resolved deploy not_needed)"
	[ "$(field '[.status, .notification.status, .notification.outcome, .interaction.status] | join("|")')" = "200|resolved|not_needed|cancelled" ]
	[ "$(field .notification.resolved_at)" = 2026-08-26T01:16:00Z ]
}

@test "resolved with outcome expired or superseded withdraws the question as such" {
	{ created a; created b; } | apply >/dev/null
	run --separate-stderr apply <<<"$(resolved a expired)"
	[ "$(field .interaction.status)" = expired ]
	run --separate-stderr apply <<<"$(resolved b superseded)"
	[ "$(field .interaction.status)" = superseded ]
}

@test "resolved without an outcome is valid; outcome stays null" {
	apply <<<"$(created deploy)" >/dev/null
	run --separate-stderr apply <<<"$(resolved deploy)"
	[ "$(field '[.notification.status, (.notification.outcome | tostring)] | join("|")')" = "resolved|null" ]
}

@test "resolved on an already resolved condition is an idempotent 200" {
	apply <<<"$(created deploy)" >/dev/null
	apply <<<"$(resolved deploy cancelled)" >/dev/null
	run --separate-stderr apply <<<"$(resolved deploy not_needed)"
	[ "$status" -eq 0 ]
	[ "$(field '[.status, .notification.outcome] | join("|")')" = "200|cancelled" ]
}

@test "expiry: a question whose expires_at is at or before now is expired" {
	local q; q=$(apply <<<"$(created deploy)")
	ARC_NOW=2026-08-26T01:59:59.999999Z run --separate-stderr apply <<<"$(answer deploy "$q" allow)"
	[ "$(field .status)" = 200 ]
	q=$(apply <<<"$(created other)")
	ARC_NOW=2026-08-26T03:00:00+01:00 run --separate-stderr apply <<<"$(answer other "$q" allow)"
	[ "$(field .error.state)" = expired ]
}

@test "expiry: a question opened with a deadline already past is opened expired" {
	ARC_NOW=2026-08-26T05:00:00Z run --separate-stderr apply <<<"$(created late)"
	[ "$(field '[.status, .interaction.status, .notification.status] | join("|")')" = "201|expired|active" ]
}

@test "expiry never resolves the notification" {
	apply <<<"$(created deploy)" >/dev/null
	ARC_NOW=2026-08-26T04:00:00Z run --separate-stderr apply <<<"$(updated deploy '.request.message = "?"')"
	[ "$(field '[.notification.status, .interaction.status] | join("|")')" = "active|expired" ]
}

@test "idempotency: the same sender and event_id with identical content replays (200)" {
	local ev; ev=$(created deploy)
	apply <<<"$ev" >/dev/null
	local before; before=$(wc -c <"$ARC_JOURNAL")
	run --separate-stderr apply <<<"$ev"
	[ "$status" -eq 0 ]
	[ "$(field '[.status, .replayed, .notification.status] | join("|")')" = "200|true|active" ]
	[ "$(wc -c <"$ARC_JOURNAL")" -eq "$before" ]
}

@test "idempotency: identical content means the same JSON, however it is spaced or ordered" {
	local ev; ev=$(created deploy)
	apply <<<"$ev" >/dev/null
	run --separate-stderr apply <<<"$(jq -S . <<<"$ev" | tr -d '\n')"
	[ "$(field .replayed)" = true ]
}

@test "idempotency: the same event_id with different content is a conflict (409)" {
	local ev; ev=$(created deploy)
	apply <<<"$ev" >/dev/null
	run --separate-stderr apply <<<"$(jq -c '.request.message = "Other"' <<<"$ev")"
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code, .error.path] | join("|")')" = "409|conflict|/event_id" ]
}

@test "idempotency: a rejected event is not remembered" {
	local ev; ev=$(updated deploy)
	run --separate-stderr apply <<<"$ev"
	[ "$(field .status)" = 404 ]
	apply <<<"$(created deploy)" >/dev/null
	run --separate-stderr apply <<<"$ev"
	[ "$(field .status)" = 200 ]
	[ "$(field .replayed)" = null ]
}

@test "a rejected event changes nothing on disk" {
	local q; q=$(apply <<<"$(created deploy)")
	local sum; sum=$(sha256sum <"$ARC_JOURNAL")
	{ answer deploy "$q" nope; answer nope "$q" allow; updated nope; resolved nope;
	  echo '{"arc_version":"0.1"}'; echo 'not json'; } | apply >/dev/null 2>&1 || true
	[ "$(sha256sum <"$ARC_JOURNAL")" = "$sum" ]
}

@test "one result line per non-blank input line, in input order" {
	{ created a; echo; echo '{"arc_version":"0.1","event_id":"v"}'; echo '[]';
	  head -c 70000 /dev/zero | tr '\0' ' '; echo; created a '.event_id = "second"'; } >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr apply "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 5 ]
	[ "$(jq -sc 'map([.line, .status, (.error.code // "-")])' <<<"$output")" = '[[1,201,"-"],[3,400,"unsupported_version"],[4,400,"invalid"],[5,413,"too_large"],[6,200,"-"]]' ]
}

@test "an invalid event is 400 with error.path, and its event_id when it has one" {
	run --separate-stderr apply <<<"$(created deploy 'del(.request.message)')"
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code, .error.path, .key] | join("|")')" = "400|invalid|/request/message|deploy" ]
	[[ "$(field .event_id)" == evt_* ]]
	[[ "$stderr" == *"-:1: /request/message: missing required member"* ]]
}

@test "journal: -j, then ARC_JOURNAL, then XDG_STATE_HOME, then HOME" {
	apply -j "$BATS_TEST_TMPDIR/j1" <<<"$(created a)" >/dev/null
	[ -s "$BATS_TEST_TMPDIR/j1" ]
	unset ARC_JOURNAL
	XDG_STATE_HOME="$BATS_TEST_TMPDIR/xdg" apply <<<"$(created a)" >/dev/null
	[ -s "$BATS_TEST_TMPDIR/xdg/arc/journal" ]
	HOME="$BATS_TEST_TMPDIR/home" XDG_STATE_HOME= apply <<<"$(created a)" >/dev/null
	[ -s "$BATS_TEST_TMPDIR/home/.local/state/arc/journal" ]
}

@test "a journal that cannot be created is a system failure: exit 3, nothing printed" {
	run --separate-stderr apply -j /proc/version/journal <<<"$(created a)"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
}

@test "exit status: 0 when all went through, 1 when any was rejected" {
	run --separate-stderr apply <<<"$(created a)"
	[ "$status" -eq 0 ]
	run --separate-stderr apply < <(created b; updated none)
	[ "$status" -eq 1 ]
}

@test "usage: --help, --version, bad options and bad --window" {
	run arc-apply --help
	[ "$status" -eq 0 ] && [[ "$output" == usage:* ]]
	run arc-apply --version
	[ "$status" -eq 0 ]
	run --separate-stderr arc-apply --nope
	[ "$status" -eq 2 ]
	run --separate-stderr arc-apply --compact --window soon
	[ "$status" -eq 2 ]
	run --separate-stderr arc-apply --batch 0
	[ "$status" -eq 2 ]
	ARC_NOW=yesterday run --separate-stderr arc-apply </dev/null
	[ "$status" -eq 2 ]
}

@test "no diagnostic carries a nonce, a digest, a prompt, a choice or an answer" {
	local q; q=$(apply <<<"$(created deploy '.request.message = "SECRETPROMPT" | .request.response.choices[0].label = "SECRETLABEL"')")
	local nonce digest; nonce=$(field .interaction.nonce "$q") digest=$(field .interaction.digest "$q")
	{ answer deploy "$q" SECRETCHOICE; answer deploy "$q" allow '.response.nonce = "SECRETNONCE"';
	  answer deploy "$q" allow '.response.digest = ("e" * 64)'; answer deploy "$q" allow;
	  answer deploy "$q" deny; } | apply 2>"$BATS_TEST_TMPDIR/err" >/dev/null || true
	[ -s "$BATS_TEST_TMPDIR/err" ]
	! grep -E "SECRET|$nonce|$digest|eeeeeeee" "$BATS_TEST_TMPDIR/err" || false
}

@test "a mirror: another host's conditions, as it prints them, with their nonce and digest" {
	local host="$BATS_TEST_TMPDIR/host" r
	r=$(apply -j "$host" <<<"$(created deploy)")
	jq -c '{notification, interaction}' <<<"$r" | apply -j "$ARC_JOURNAL" --mirror >/dev/null
	ARC_NOW=$T0 run arc-status --json
	[ "$(field .pending)" -eq 1 ]
	# an answer built from the mirror is accepted by the host
	ARC_NOW=$T0 arc-answer --emit deploy allow | apply -j "$host" >"$BATS_TEST_TMPDIR/res"
	[ "$(jq -r .status "$BATS_TEST_TMPDIR/res")" = 200 ]
	# the host's new state replaces the mirrored one; removal resolves it
	jq -c '{notification, interaction}' "$BATS_TEST_TMPDIR/res" | apply --mirror >/dev/null
	[ "$(ARC_NOW=$T0 arc-status --json | jq .pending)" -eq 0 ]
	apply --mirror <<<'{"key":"deploy","removed":true}' >/dev/null
	[ "$(ARC_NOW=$T0 arc-status --json | jq .active)" -eq 0 ]
	# what is not a condition is refused, naming the line
	run --separate-stderr apply --mirror <<<'{"notification":{"key":"x"}}'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"-:1: x: /notification"* ]]
}

@test "a mirror records a condition once, however often the broker redelivers it" {
	local host="$BATS_TEST_TMPDIR/host" cond
	cond=$(apply -j "$host" <<<"$(created deploy)" | jq -c '{notification, interaction}')
	for i in 1 2 3; do echo "$cond"; done | apply --mirror >/dev/null
	[ "$(tail -n +2 "$ARC_JOURNAL" | wc -l)" -eq 1 ]
	apply -j "$host" <<<"$(updated deploy '.request.message = "Now?"')" |
	    jq -c '{notification, interaction}' | apply --mirror >/dev/null
	[ "$(tail -n +2 "$ARC_JOURNAL" | wc -l)" -eq 2 ]
}
