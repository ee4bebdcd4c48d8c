#!/usr/bin/env bats
# The person's decision reaches the question they saw: answers bound to
# the question read (--seen and its tag), keys given by a part, a mirror
# that cannot be lied to and is never answered in place, and options that
# either take effect or are refused.  (The prompt and the picker in a real
# pane: tmux-answer.bats.  The mirror through a real broker: mqtt.bats.)
load helper

T0=2026-08-26T01:16:00Z

tag_of() {	# KEY: the tag --show prints
	arc-status --show "$1" | sed -n 's/^tag: *//p'
}

# ---- --seen: the question read, or nothing ----

@test "the issue's case: the person read 'make test' (1 Deny); the producer changed it to 'rm -rf ~' (1 Allow); --seen refuses, showing the new one" {
	apply <<<"$(created deploy '.request.message = "make test" | .request.response.choices = [{id:"deny", label:"Deny"}, {id:"allow", label:"Allow"}]')" >/dev/null
	local tag; tag=$(tag_of deploy)
	[[ "$tag" =~ ^[0-9a-f]{16}$ ]]
	ARC_NOW=$T0 apply <<<"$(updated deploy '.request.message = "rm -rf ~" | .request.response = {kind:"permission", choices:[{id:"allow", label:"Allow"}, {id:"deny", label:"Deny"}], expires_at:"2026-08-26T02:00:00Z"}')" >/dev/null
	ARC_NOW=$T0 run --separate-stderr arc-answer --seen "$tag" deploy 1
	[ "$status" -eq 1 ]
	[ "$stderr" = "arc-answer: deploy: its tag is not the one given (--seen): the question changed since it was read, or the tag is mistyped; nothing was sent.  It is now:" ]
	[[ "$output" == *"message:  rm -rf ~"* ]]
	[[ "$output" == *"tag:      $(tag_of deploy)"* ]]
	[[ "$output" != *"$tag"* ]]
	[ "$(arc-status --show deploy --json | jq -r .interaction.status)" = pending ]
	# without --seen the same line answers the current question, as documented
	ARC_NOW=$T0 run --separate-stderr arc-answer deploy 1
	[ "$status" -eq 0 ]
	[ "$(field .interaction.response.choice_id)" = allow ]
}

@test "--seen with the tag of the question as it is answers it; any prefix of 8 or more hex digits, either case" {
	apply <<<"$(created deploy)" >/dev/null
	local digest; digest=$(arc-status --show deploy --json | jq -r .interaction.digest)
	ARC_NOW=$T0 run --separate-stderr arc-answer --seen "$(tr a-f A-F <<<"${digest:0:12}")" deploy allow
	[ "$status" -eq 0 ]
	[ "$(field .interaction.response.choice_id)" = allow ]
}

@test "--seen takes 8 to 64 hex digits, and only with an answer on the command line" {
	apply <<<"$(created deploy)" >/dev/null
	local t
	for t in 1234567 xyz12345 "" "$(printf 'a%.0s' {1..65})"; do
		run --separate-stderr arc-answer --seen "$t" deploy allow
		[ "$status" -eq 2 ] || { echo "--seen '$t' taken"; false; }
		[[ "${stderr_lines[0]}" == "arc-answer: --seen takes a question's tag"* ]]
	done
	run --separate-stderr arc-answer --seen 12345678 --dismiss deploy
	[ "$status" -eq 2 ]
	[ "$(arc-status --show deploy --json | jq -r .interaction.status)" = pending ]
}

# ---- keys by a part ----

@test "a person's key by an unambiguous part of it, its beginning or its end; a script names keys whole" {
	local k1=claude-code:0b0a1f7e-6f0c-4bd5-8e55-5c0d4e9e3b11:perm:9f2c61aa04d3b7e2
	local k2=claude-code:0b0a1f7e-6f0c-4bd5-8e55-5c0d4e9e3b11:perm:47d1ce0b8a6f5e10
	{ created "$k1"; created "$k2"; } | apply >/dev/null
	# a script's key that no condition has is answered by none
	ARC_NOW=$T0 run --separate-stderr arc-answer 9f2c61aa04d3b7e2 allow
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .key] | join("|")')" = "404|9f2c61aa04d3b7e2" ]
	ARC_NOW=$T0 on_tty '' 'arc-answer 9f2c61aa04d3b7e2 allow'
	[ "$status" -eq 0 ]
	[[ "$output" == *"$k1: Allow (accepted)"* ]]
	ARC_NOW=$T0 on_tty '' "arc-answer --seen $(tag_of "$k2") 8a6f5e10 deny"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$k2: Deny (accepted)"* ]]
	run --separate-stderr arc-status --show claude-code:0b0a1f7e-6f0c-4bd5-8e55-5c0d4e9e3b11:perm:47d1
	[ "$status" -eq 0 ]
	[[ "$output" == "key:      $k2"* ]]
}

@test "an ambiguous part is refused, the candidates listed, settled ones too; a part under 4 characters, or of no key, is no key" {
	{ created deploy-web; created deploy-db; created web; } | apply >/dev/null
	ARC_NOW=$T0 on_tty '' 'arc-answer deplo allow 2>&1'
	[ "$status" -eq 1 ]
	[[ "$output" == *"arc-answer: deplo: begins or ends 2 keys; give more of it:"*"  deploy-db"*"  deploy-web"* ]]
	# one of them settled: still two keys begin with it, so still refused
	ARC_NOW=$T0 arc-answer deploy-web deny >/dev/null
	ARC_NOW=$T0 on_tty '' 'arc-answer deplo allow 2>&1'
	[ "$status" -eq 1 ]
	[[ "$output" == *"begins or ends 2 keys"* ]]
	[ "$(arc-status --show deploy-db --json | jq -r .interaction.status)" = pending ]
	# an exact key wins over the keys it is a part of
	ARC_NOW=$T0 on_tty '' 'arc-answer web allow'
	[[ "$output" == *"web: Allow (accepted)"* ]]
	ARC_NOW=$T0 on_tty '' 'arc-answer -- -db allow 2>&1'
	[[ "$output" == *"-db: not answered: no question under this key"* ]]
	on_tty '' 'arc-answer --dismiss deplo 2>&1'
	[ "$status" -eq 1 ]
	[[ "$output" == *"begins or ends 2 keys"* ]]
}

@test "a script's part of a key is refused saying why (without a terminal, or with --json); at a terminal the same part is taken" {
	local k=claude-code:0b0a1f7e-6f0c-4bd5-8e55-5c0d4e9e3b11:perm:9f2c61aa04d3b7e2
	local why='a part of a key is taken only at a terminal: name the key whole'
	apply <<<"$(created "$k")" >/dev/null
	ARC_NOW=$T0 run --separate-stderr arc-answer 9f2c61aa04d3b7e2 allow
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .key, .error.code, .error.message] | join("|")')" = "404|9f2c61aa04d3b7e2|not_found|no question under this key; $why" ]
	[ "$stderr" = "arc-answer: /request/key: no question under this key; $why" ]
	# --json at a terminal is a script's answer too
	ARC_NOW=$T0 on_tty '' 'arc-answer --json 9f2c61aa04d3b7e2 allow 2>/dev/null'
	[ "$status" -eq 1 ]
	[[ "$output" == *'"status":404'*"$why"* ]]
	# --via and --dismiss say it alike
	ARC_NOW=$T0 run --separate-stderr arc-answer --via cat claude-code:0b0a1f7e allow
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "arc-answer: claude-code:0b0a1f7e: no question under this key here; nothing was sent; $why" ]
	run --separate-stderr arc-answer --dismiss 9f2c61aa04d3b7e2
	[ "$status" -eq 1 ]
	[ "$stderr" = "arc-answer: 9f2c61aa04d3b7e2: nothing under this key to dismiss; $why" ]
	[ "$(arc-status --show "$k" --json | jq -r .interaction.status)" = pending ]
	# a key that is no key's part gets no such words
	ARC_NOW=$T0 run --separate-stderr arc-answer 0000deadbeef allow
	[ "$status" -eq 1 ]
	[ "$stderr" = "arc-answer: /request/key: no question under this key" ]
	# at a terminal, the part is taken and the words name the whole key
	ARC_NOW=$T0 on_tty '' 'arc-answer 9f2c61aa04d3b7e2 allow'
	[ "$status" -eq 0 ]
	[[ "$output" == *"$k: Allow (accepted)"* ]]
}

# ---- the mirror ----

mirrored() {	# HOST-JOURNAL: the host's conditions as mirror lines, keys devbox/KEY
	jq -c 'select(.notification) | {notification: (.notification | .key = "devbox/" + .key),
	    interaction: (.interaction | if . == null then null else .key = "devbox/" + .key end)}'
}

@test "the mirror's forgery: 'ls ~/projects' with the digest and nonce of 'rm -rf ~/projects' is refused, named, not shown" {
	local host="$BATS_TEST_TMPDIR/host/journal"
	mkdir -m 700 "${host%/journal}"
	apply -j "$host" <<<"$(created rm '.request.message = "rm -rf ~/projects"')" | mirrored >"$BATS_TEST_TMPDIR/real"
	jq -c '.notification.message = "ls ~/projects" | .interaction.prompt = "ls ~/projects"' "$BATS_TEST_TMPDIR/real" >"$BATS_TEST_TMPDIR/forged"
	# the title alone, or the choices, are forged just as well
	jq -c '.interaction.choices[0].label = "Deny"' "$BATS_TEST_TMPDIR/real" >>"$BATS_TEST_TMPDIR/forged"
	jq -c '.notification.message = "ls ~/projects"' "$BATS_TEST_TMPDIR/real" >>"$BATS_TEST_TMPDIR/forged"
	run --separate-stderr apply --mirror --route 'arc-mqtt send' "$BATS_TEST_TMPDIR/forged"
	[ "$status" -eq 1 ]
	[ "$(jq -r '[.status, .error.code] | join("|")' <<<"$output" | sort -u)" = "400|digest_mismatch" ]
	[ "${stderr_lines[0]}" = "arc-apply: $BATS_TEST_TMPDIR/forged:1: devbox/rm: /interaction/digest: not the digest of the question shown; not mirrored" ]
	[ "${#stderr_lines[@]}" -eq 3 ]
	ARC_NOW=$T0 run arc-status --json
	[ "$(field .active)" -eq 0 ]
	# the real one is mirrored, and an honest update of it too
	run --separate-stderr apply --mirror --route 'arc-mqtt send' "$BATS_TEST_TMPDIR/real"
	[ "$status" -eq 0 ]
	ARC_NOW=$T0 run arc-status --show devbox/rm
	[[ "$output" == *"message:  rm -rf ~/projects"* ]]
}

@test "a mirrored question is never answered in the mirror: by its route when it has one, else refused naming --via" {
	local host="$BATS_TEST_TMPDIR/host/journal"
	mkdir -m 700 "${host%/journal}"
	apply -j "$host" <<<"$(created deploy)" | mirrored >"$BATS_TEST_TMPDIR/m"
	# no route recorded: refused, nothing changes, nothing is created
	apply --mirror <"$BATS_TEST_TMPDIR/m" >/dev/null
	local before; before=$(cksum <"$ARC_JOURNAL")
	ARC_NOW=$T0 run --separate-stderr arc-answer devbox/deploy allow
	[ "$status" -eq 1 ]
	[ "$stderr" = "arc-answer: devbox/deploy: a question of another host, mirrored here: answer it with --via and its host's bridge (such as --via 'arc-mqtt send')" ]
	[ "$(cksum <"$ARC_JOURNAL")" = "$before" ]
	ARC_NOW=$T0 run arc-status --json
	[ "$(field .pending)" -eq 1 ]
	# a route: the answer goes there, to the host, which applies it
	local route="sed 's|\"key\":\"devbox/|\"key\":\"|' | ARC_NOW=$T0 arc-apply -j $host"
	apply --mirror --route "$route" <"$BATS_TEST_TMPDIR/m" >/dev/null
	ARC_NOW=$T0 run --separate-stderr arc-answer devbox/deploy allow
	[ "$status" -eq 0 ]
	[ "$(field '[.key, .interaction.response.choice_id] | join("|")')" = "deploy|allow" ]
	[ "$(ARC_NOW=$T0 arc-status -j "$host" --show deploy --json | jq -r .interaction.status)" = answered ]
	# the mirror itself holds no answer: only its host's word does
	[ "$(ARC_NOW=$T0 arc-status --show devbox/deploy --json | jq -r .interaction.status)" = pending ]
	# the route outlives a compaction and a checkpoint
	ARC_NOW=$T0 ARC_CHECKPOINT_FLOOR=0 arc-apply --compact >/dev/null
	ARC_NOW=$T0 ARC_CHECKPOINT_FLOOR=0 arc-apply </dev/null >/dev/null
	[ -e "$ARC_JOURNAL.checkpoint" ]
	ARC_NOW=$T0 ARC_CHECKPOINT_FLOOR=0 run --separate-stderr arc-answer devbox/deploy deny
	[ "$(field '[.key, .error.code] | join("|")')" = "deploy|conflict" ]
}

@test "a mirror line carries any question the contract allows: a 50 KB message is mirrored whole" {
	local host="$BATS_TEST_TMPDIR/host/journal"
	mkdir -m 700 "${host%/journal}"
	# 4,000 characters of message, 12 choices of 200 and 500: 4 bytes each
	created big '("\ud83d\ude00" * 4000) as $m | .request.message = $m |
	    .request.kind = "question" | .request.response = {kind:"single_choice",
	    choices:[range(12) | {id:"c\(.)", label:("\ud83d\ude00" * 200), detail:("\ud83d\ude00" * 500)}],
	    expires_at:"2026-08-26T02:00:00Z"}' >"$BATS_TEST_TMPDIR/event"
	[ "$(wc -c <"$BATS_TEST_TMPDIR/event")" -gt 50000 ]
	apply -j "$host" "$BATS_TEST_TMPDIR/event" | mirrored >"$BATS_TEST_TMPDIR/m"
	[ "$(wc -c <"$BATS_TEST_TMPDIR/m")" -gt 65536 ]
	run --separate-stderr apply --mirror --route true "$BATS_TEST_TMPDIR/m"
	[ "$status" -eq 0 ]
	[ "$(arc-status --show devbox/big --json | jq -r '.interaction.prompt | length')" -eq 4000 ]
	ARC_NOW=$T0 run arc-status --json
	[ "$(field .pending)" -eq 1 ]
}

# ---- options that take effect or are refused ----

@test "arc-apply --answers takes response.submitted only: anything else gets a clear result and changes nothing" {
	apply <<<"$(created deploy)" >/dev/null
	local before; before=$(cksum <"$ARC_JOURNAL")
	run --separate-stderr apply --answers <<<"$(created other)"
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code, .error.path, .key] | join("|")')" = "400|invalid|/event_type|other" ]
	[ "$(cksum <"$ARC_JOURNAL")" = "$before" ]
	ARC_NOW=$T0 arc-answer --emit deploy allow >"$BATS_TEST_TMPDIR/a"
	run --separate-stderr apply --answers "$BATS_TEST_TMPDIR/a"
	[ "$status" -eq 0 ]
	[ "$(field .interaction.status)" = answered ]
}

@test "arc-apply -0: NUL ends an event, so one printed over several lines is one event; the limit holds" {
	apply <<<"$(created deploy)" >/dev/null
	{ ARC_NOW=$T0 arc-answer --emit deploy allow | jq .; printf '\0'
	  printf '%*s' 70000 '' | tr ' ' x; printf '\0'
	  created later | jq .; printf '\0'; } >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr apply -0 "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(field .interaction.status "${lines[0]}")" = answered ]
	[ "$(field .status "${lines[1]}")" = 413 ]
	[ "$(field .status "${lines[2]}")" = 201 ]
}

@test "modes are one at a time: --compact, --salvage and --mirror refuse each other; --answers, -0 and --route their misuse" {
	apply <<<"$(created deploy)" >/dev/null
	local before args; before=$(cksum <"$ARC_JOURNAL")
	for args in "--compact --mirror" "--mirror --salvage $BATS_TEST_TMPDIR/x" "--compact --salvage $BATS_TEST_TMPDIR/x" \
	    "--answers --mirror" "-0 --compact" "--route true"; do
		run --separate-stderr apply $args </dev/null
		[ "$status" -eq 2 ] || { echo "$args: $status"; false; }
	done
	[ "$(cksum <"$ARC_JOURNAL")" = "$before" ]
	[ ! -e "$BATS_TEST_TMPDIR/x" ]
}

@test "a journal named by -j in a folder that is not there (a typo) is refused by every command; no folder is made" {
	local j="$BATS_TEST_TMPDIR/typo/state/journal" c
	local said="no such folder; a journal named by -j is kept only in a folder that exists"
	for c in "arc-answer -j $j deploy allow" "arc-answer -j $j --dismiss deploy" \
	    "arc-wait -j $j -t 1 deploy" "arc-status -j $j --list" \
	    "arc-status -j $j" "arc-status -j $j --follow" "arc-apply -j $j"; do
		run --separate-stderr timeout 10 $c <<<"$(created deploy)"
		[ "$status" -eq 3 ] || { echo "$c: exit $status"; return 1; }
		[[ "$stderr" == *"$BATS_TEST_TMPDIR/typo/state: $said"* ]] || { echo "$c: $stderr"; return 1; }
	done
	[ ! -e "$BATS_TEST_TMPDIR/typo" ]
	# the bar says so where a person looks
	run --separate-stderr arc-status -j "$j"
	[ "$output" = "arc: journal unreadable" ]
	# ARC_JOURNAL's folders are made, as the usual journal's are
	ARC_JOURNAL=$j run --separate-stderr arc-apply <<<"$(created deploy)"
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/typo")" = 700 ]
}

@test "readers and rejected answers create no journal" {
	local j="$BATS_TEST_TMPDIR/typo/journal"
	mkdir -m 700 "$BATS_TEST_TMPDIR/typo"
	run --separate-stderr arc-answer -j "$j" deploy allow
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code] | join("|")')" = "404|not_found" ]
	run --separate-stderr arc-answer -j "$j" --dismiss deploy
	[ "$status" -eq 1 ]
	[ "$stderr" = "arc-answer: deploy: nothing under this key to dismiss" ]
	run --separate-stderr arc-answer -j "$j" --dismiss-notices
	run --separate-stderr arc-wait -j "$j" -t 1 deploy
	[ "$status" -eq 1 ]
	run arc-status -j "$j" --list
	[ ! -e "$j" ]
}

@test "an empty --text is refused as the prompt refuses it; nothing is answered" {
	apply <<<"$(text_question note)" >/dev/null
	local t
	for t in "" " " $'\t'; do
		ARC_NOW=$T0 run --separate-stderr arc-answer note --text "$t"
		[ "$status" -eq 2 ]
		[ "${stderr_lines[0]}" = "arc-answer: --text: an empty answer is not sent" ]
	done
	[ "$(arc-status --show note --json | jq -r .interaction.status)" = pending ]
}

@test "every message names the key: an empty one is \"\", never (null) or ': :'" {
	run --separate-stderr arc-status --show ''
	[ "$status" -eq 1 ]
	[ "$stderr" = 'arc-status: "": no condition under this key' ]
	apply <<<"$(created deploy)" >/dev/null
	run --separate-stderr arc-status --show ''
	[ "$stderr" = 'arc-status: "": no condition under this key' ]
	ARC_NOW=$T0 run --separate-stderr arc-answer --dismiss ''
	[ "$stderr" = 'arc-answer: "": nothing under this key to dismiss' ]
}

@test "arc-emit: a label may hold a colon (\\:); the detail takes the rest, colons and all" {
	run --separate-stderr arc-emit --key k --kind question --title t --message m \
	    --choice 'a:Deploy at 10\:30' --choice 'b:Later:at 11:45, or 12:00' --choice 'c:back\\\:slash'
	[ "$status" -eq 0 ]
	[ "$(jq -c .request.response.choices <<<"$output")" = '[{"id":"a","label":"Deploy at 10:30"},{"id":"b","label":"Later","detail":"at 11:45, or 12:00"},{"id":"c","label":"back\\:slash"}]' ]
}

@test "arc-emit: a deadline without its question is refused, not dropped; with it, the update moves the deadline" {
	apply <<<"$(created deploy)" >/dev/null
	local opt
	for opt in "--expires-in 1h" "--expires-at 2026-08-26T03:00:00Z"; do
		run --separate-stderr arc-emit --type updated --key deploy --kind permission --message m $opt
		[ "$status" -eq 2 ]
		[[ "${stderr_lines[0]}" == "arc-emit: --expires-"*": a deadline belongs to a question: give its --choice, --text-max or --response-kind too"* ]]
		[ -z "$output" ]
	done
	ARC_NOW=$T0 arc-emit --type updated --key deploy --kind permission --message "May I deploy?" \
	    --choice allow:Allow --choice 'deny:Deny:Stops here' --expires-at 2026-08-26T03:00:00Z | apply >/dev/null
	[ "$(arc-status --show deploy --json | jq -r .interaction.expires_at)" = 2026-08-26T03:00:00Z ]
}

@test "an event applied to a mirror's condition in place is refused: only its mirror changes it, only its host answers it" {
	local host="$BATS_TEST_TMPDIR/host/journal"
	mkdir -m 700 "${host%/journal}"
	apply -j "$host" <<<"$(created deploy)" | mirrored >"$BATS_TEST_TMPDIR/m"
	apply --mirror --route true <"$BATS_TEST_TMPDIR/m" >/dev/null
	local before; before=$(cksum <"$ARC_JOURNAL")
	ARC_NOW=$T0 arc-answer --emit devbox/deploy deny >"$BATS_TEST_TMPDIR/a"
	run --separate-stderr apply "$BATS_TEST_TMPDIR/a"
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code, .error.path] | join("|")')" = "400|invalid|/request/key" ]
	[[ "$stderr" == *"a condition mirrored from another host"* ]]
	[ "$(cksum <"$ARC_JOURNAL")" = "$before" ]
	run --separate-stderr apply <<<"$(updated devbox/deploy)"
	[ "$status" -eq 1 ]
	[ "$(cksum <"$ARC_JOURNAL")" = "$before" ]
}

@test "arc-apply --netstrings: one netstring is one event, whatever bytes it holds; too large is stepped over; a broken frame stops" {
	apply <<<"$(created deploy)" >/dev/null
	local ev big
	ev=$(ARC_NOW=$T0 arc-answer --emit deploy allow)
	big=$(printf '%*s' 70000 '' | tr ' ' x)
	{ printf 'junk\0%s' "$ev" | { IFS= read -r -d '' x; printf '%s:' "$(( ${#ev} + 5 ))"; printf 'junk\0%s,' "$ev"; }
	  printf '%s:%s,' "${#big}" "$big"
	  printf '%s:%s,' "${#ev}" "$ev"; } >"$BATS_TEST_TMPDIR/in"
	run --separate-stderr apply --netstrings "$BATS_TEST_TMPDIR/in"
	[ "${#lines[@]}" -eq 3 ]
	[ "$(field .status "${lines[0]}")" = 400 ]
	[ "$(field .status "${lines[1]}")" = 413 ]
	[ "$(field '[.status, .interaction.status] | join(" ")' "${lines[2]}")" = "200 answered" ]
	printf '3:abc;' >"$BATS_TEST_TMPDIR/broken"
	run --separate-stderr apply --netstrings "$BATS_TEST_TMPDIR/broken"
	[ "$status" -eq 3 ]
	run --separate-stderr apply --netstrings -0 </dev/null
	[ "$status" -eq 2 ]
}

@test "a mirror line never takes over a condition of this host: refused, the local question and its answers untouched" {
	apply <<<"$(created deploy)" >/dev/null
	arc-status --show deploy --json | jq -c '{notification, interaction}' >"$BATS_TEST_TMPDIR/m"
	local before; before=$(cksum <"$ARC_JOURNAL")
	run --separate-stderr apply --mirror --route "cat >$BATS_TEST_TMPDIR/routed" "$BATS_TEST_TMPDIR/m"
	[ "$status" -eq 1 ]
	[ "$(field '[.status, .error.code] | join("|")')" = "400|invalid" ]
	run --separate-stderr apply --mirror <<<'{"key":"deploy","removed":true}'
	[ "$status" -eq 1 ]
	[ "$(cksum <"$ARC_JOURNAL")" = "$before" ]
	ARC_NOW=$T0 run --separate-stderr arc-answer deploy allow
	[ "$status" -eq 0 ]
	[ "$(field .interaction.status)" = answered ]
	[ ! -e "$BATS_TEST_TMPDIR/routed" ]
}
