#!/usr/bin/env bats
# arc-hook --install and --uninstall (arc-hook(1)): arc's hooks merged
# into the host's own settings file, every hook and setting of the
# person's kept as it was; the file as it was kept beside it; a second
# install changes nothing; an uninstall gives back what the person had.
# Checked with jq, from the file the person had, not from our output.
load helper

setup() {
	arc_setup
	export HOME="$BATS_TEST_TMPDIR/home"
	mkdir -p "$HOME/.claude"
	S=$HOME/.claude/settings.json
	# a person's settings: their own hooks on two of arc's events and
	# one of their own, a setting, a number and an escape as written
	cat >"$S" <<-'EOF'
	{
	  "model": "opus",
	  "permissions": {"allow": ["Bash(ls:*)"], "ratio": 1.50},
	  "hooks": {
	    "Stop": [{"hooks": [{"type": "command", "command": "say \u0022done\u0022"}]}],
	    "PermissionRequest": [{"matcher": "Bash", "hooks": [
	      {"type": "command", "command": "my-guard"},
	      {"type": "command", "command": "/opt/old/bin/arc-hook claude-code", "timeout": 60}]}],
	    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-guard"}]}]
	  }
	}
	EOF
	cp "$S" "$BATS_TEST_TMPDIR/before.json"
}

teardown() { arc_teardown; }

# the hooks that run arc-hook for HOST, as "EVENT COMMAND" lines
arcs() { # FILE HOST
	jq -r --arg h "$2" '.hooks | to_entries[] | select(.value | type == "array") |
	    .key as $e | .value[] |
	    (.hooks // [.])[] | (.command // .bash) |
	    select(test("arc-hook \($h)$")) | "\($e) \(.)"' "$1" | sort
}
# everything in FILE but arc's hooks (and what only held them)
without_arc() { # FILE
	jq -S '(.hooks // {}) |= (map_values(map(
	    if has("hooks") then .hooks |= map(select((.command // "") |
	    test("arc-hook claude-code$") | not)) else . end) |
	    map(select((.hooks // [1]) | length > 0))) |
	    with_entries(select(.value | length > 0))) |
	    if .hooks == {} then del(.hooks) else . end' "$1"
}

@test "install: each of arc's events gets one arc hook from this arc-hook; every hook and setting of the person's is kept, in its place" {
	run arc-hook --install claude-code
	[ "$status" -eq 0 ]
	[[ "$output" == *"$S: 10 hooks of arc's for claude-code in place"* ]]
	# exactly --settings' hooks, once each: the old arc-hook's replaced
	[ "$(arcs "$S" claude-code)" = "$(arcs <(arc-hook --settings claude-code) claude-code)" ]
	[ "$(arcs "$S" claude-code | wc -l)" -eq 10 ]
	# the person's own: all there, as before
	[ "$(without_arc "$S")" = "$(without_arc "$BATS_TEST_TMPDIR/before.json")" ]
	[ "$(jq -c '.hooks.PermissionRequest[0]' "$S")" = \
	    '{"matcher":"Bash","hooks":[{"type":"command","command":"my-guard"}]}' ]
	[ "$(jq -r '.hooks | keys_unsorted[:3] | join(" ")' "$S")" = "Stop PermissionRequest PreToolUse" ]
	# values written as the person wrote them
	grep -qF '"ratio": 1.50' "$S"
	grep -qF '"command": "say \u0022done\u0022"' "$S"
	# the file as it was, beside it
	cmp "$S.arc-backup" "$BATS_TEST_TMPDIR/before.json"
}

@test "install twice: the second changes nothing, not even the backup; after an uninstall and an install, the backup is still the file from before arc" {
	arc-hook --install claude-code >/dev/null
	cp "$S" "$BATS_TEST_TMPDIR/once.json"
	cp "$S.arc-backup" "$BATS_TEST_TMPDIR/backup.json"
	run arc-hook --install claude-code
	[ "$status" -eq 0 ]
	[[ "$output" == *"nothing changed"* ]]
	cmp "$S" "$BATS_TEST_TMPDIR/once.json"
	cmp "$S.arc-backup" "$BATS_TEST_TMPDIR/backup.json"
	arc-hook --uninstall claude-code >/dev/null
	arc-hook --install claude-code >/dev/null
	cmp "$S.arc-backup" "$BATS_TEST_TMPDIR/before.json"
}

@test "uninstall gives back what the person had; a second finds nothing of arc's" {
	arc-hook --install claude-code >/dev/null
	run arc-hook --uninstall claude-code
	[ "$status" -eq 0 ]
	[[ "$output" == *"10 hooks of arc's for claude-code taken out"* ]]
	[ -z "$(arcs "$S" claude-code)" ]
	[ "$(without_arc "$S")" = "$(without_arc "$BATS_TEST_TMPDIR/before.json")" ]
	# a file that had no hooks has none again
	printf '{"model":"opus"}\n' >"$S"
	arc-hook --install claude-code >/dev/null
	arc-hook --uninstall claude-code >/dev/null
	[ "$(jq -c . "$S")" = '{"model":"opus"}' ]
	run arc-hook --uninstall claude-code
	[ "$status" -eq 0 ]
	[[ "$output" == *"no hook of arc's for claude-code; nothing changed"* ]]
}

@test "arc's hooks written by hand are found too: after env words, quoted, or the examples' wrapper" {
	cat >"$S" <<-'EOF'
	{"hooks": {
	  "PermissionRequest": [{"hooks": [{"type": "command",
	    "command": "ARC_HOOK_TIMEOUT=15m '/my tools/bin/arc-hook' claude-code", "timeout": 930}]}],
	  "Stop": [{"hooks": [{"type": "command", "command": "/usr/local/share/arc/examples/claude-code-hook"}]}],
	  "Notification": [{"hooks": [{"type": "command", "command": "arc-hook codex"}]}]
	}}
	EOF
	arc-hook --install claude-code >/dev/null
	[ "$(arcs "$S" claude-code | wc -l)" -eq 10 ]
	! grep -q 'my tools\|claude-code-hook\|15m' "$S" || false
	# another host's hook is not this host's
	[ "$(jq -r '.hooks.Notification[0].hooks[0].command' "$S")" = "arc-hook codex" ]
}

@test "a file that is not JSON, or whose hooks are not lists, is left as it was, with the line or the path named" {
	printf '{\n  "model": "opus",\n  "hooks": {,}\n}\n' >"$S"
	cp "$S" "$BATS_TEST_TMPDIR/bad.json"
	run --separate-stderr arc-hook --install claude-code
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$S: line 3, column "*"nothing changed"* ]]
	cmp "$S" "$BATS_TEST_TMPDIR/bad.json"
	[ ! -e "$S.arc-backup" ]
	printf '{"hooks": {"Stop": {"hooks": []}}}\n' >"$S"
	run --separate-stderr arc-hook --install claude-code
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"/hooks/Stop is not a list; nothing changed"* ]]
	printf '[1]\n' >"$S"
	run --separate-stderr arc-hook --uninstall claude-code
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"not a JSON object"* ]]
	[ "$(cat "$S")" = "[1]" ]
	# a member the merge reads, given twice: the host (JSON.parse) keeps
	# the last, so the person's hook there must not be taken for arc's
	printf '%s\n' '{"hooks": {"Stop": [{"hooks": [{"command": "arc-hook claude-code"}],' \
	    '  "hooks": [{"command": "my-precious-hook"}]}]}}' >"$S"
	cp "$S" "$BATS_TEST_TMPDIR/twice.json"
	run --separate-stderr arc-hook --uninstall claude-code
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"/hooks/Stop/0 names a member twice; nothing changed"* ]]
	cmp "$S" "$BATS_TEST_TMPDIR/twice.json"
	printf '%s\n' '{"hooks": {"Stop": [{"hooks": [{"command": "x", "command": "arc-hook claude-code"}]}]}}' >"$S"
	run --separate-stderr arc-hook --install claude-code
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"/hooks/Stop/0/hooks/0 names a member twice"* ]]
}

@test "an event arc does not install may be anything, and is kept as it is; a link to no file, or a FIFO, is refused, not replaced or waited on" {
	printf '%s\n' '{"hooks": {"enabled": true, "Custom": {"x": 1}}}' >"$S"
	arc-hook --install claude-code >/dev/null
	[ "$(jq -c '.hooks.enabled, .hooks.Custom' "$S")" = "$(printf 'true\n{"x":1}')" ]
	[ "$(arcs "$S" claude-code | wc -l)" -eq 10 ]
	rm "$S" "$S.arc-backup"
	ln -s "$HOME/dotfiles/gone.json" "$S"
	run --separate-stderr arc-hook --install claude-code
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"a symbolic link to no file there"* ]]
	[ -L "$S" ] && [ ! -e "$HOME/dotfiles/gone.json" ]
	rm "$S"
	mkfifo "$S"
	run --separate-stderr timeout 20 arc-hook --install claude-code
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"not a file of at most 16 MiB"* ]]
	[ -p "$S" ]
}

@test "a settings file that is a symbolic link: its target is written, the link stays; its mode is kept" {
	mkdir "$HOME/dotfiles"
	mv "$S" "$HOME/dotfiles/claude.json"
	chmod 640 "$HOME/dotfiles/claude.json"
	ln -s ../dotfiles/claude.json "$S"
	arc-hook --install claude-code >/dev/null
	[ -L "$S" ]
	[ "$(arcs "$HOME/dotfiles/claude.json" claude-code | wc -l)" -eq 10 ]
	[ "$(stat -c %a "$HOME/dotfiles/claude.json")" = 640 ]
	cmp "$HOME/dotfiles/claude.json.arc-backup" "$BATS_TEST_TMPDIR/before.json"
}

@test "every host's own file, made when it is not there (mode 0600, folders 0700): Codex's in CODEX_HOME, Gemini's, Copilot's hooks file of its own" {
	export CODEX_HOME="$BATS_TEST_TMPDIR/codex"
	run arc-hook --install codex
	[ "$status" -eq 0 ]
	[[ "$output" == *"review and trust"* ]]
	[ "$(arcs "$CODEX_HOME/hooks.json" codex)" = "$(arcs <(arc-hook --settings codex) codex)" ]
	[ "$(stat -c %a "$CODEX_HOME/hooks.json")" = 600 ]
	[ "$(stat -c %a "$CODEX_HOME")" = 700 ]
	arc-hook --install gemini >/dev/null
	[ "$(jq -c . "$HOME/.gemini/settings.json")" = "$(arc-hook --settings gemini | jq -c .)" ]
	arc-hook --install copilot >/dev/null
	[ "$(jq -c . "$HOME/.copilot/hooks/arc.json")" = "$(arc-hook --settings copilot | jq -c .)" ]
	arc-hook --uninstall copilot >/dev/null
	[ "$(jq -c . "$HOME/.copilot/hooks/arc.json")" = '{"version":1}' ]
	# --file: that file instead, and --prefix: that arc-hook
	arc-hook --install claude-code --file "$BATS_TEST_TMPDIR/p.json" --prefix /opt/arc >/dev/null
	[ "$(arcs "$BATS_TEST_TMPDIR/p.json" claude-code | awk '{print $2}' | sort -u)" = /opt/arc/bin/arc-hook ]
}

@test "the options: one verb, --file with --install or --uninstall, --toml with --settings codex, --prefix not with --uninstall" {
	for args in "--install claude-code --settings codex" "--settings claude-code --file x" \
	    "--install codex --toml" "--uninstall gemini --prefix /x" "--install nobody" \
	    "--install claude-code extra"; do
		# shellcheck disable=SC2086 # the words, as typed
		run --separate-stderr arc-hook $args
		[ "$status" -eq 2 ] || { echo "$args: $status"; false; }
		[[ "$stderr" == *usage:* ]]
	done
	env -u HOME "$ARC_BIN/arc-hook" --install claude-code 2>"$BATS_TEST_TMPDIR/err" && false
	grep -q 'give --file' "$BATS_TEST_TMPDIR/err"
}
