#!/usr/bin/env python3
"""Loads a hook configuration (README's hooks.json, or its config.toml
tables) into the pinned Codex itself: `codex app-server`, asked
"hooks/list" over JSON-RPC with a CODEX_HOME holding only that file, must
list every event the file names, each running the adapter, with no error
and no warning.

usage: codex-config.py CODEX_BINARY FILE COMMAND EVENT...
  FILE is hooks.json or config.toml (by its name); EVENT as in the file
  (PermissionRequest); COMMAND the command every hook must run.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

binary, path, command, *events = sys.argv[1:]
home = tempfile.mkdtemp(prefix="arc-codex-home.")
try:
    shutil.copy(path, os.path.join(home, os.path.basename(path)))
    project = os.path.join(home, "project")
    os.mkdir(project)
    env = dict(os.environ, HOME=home, CODEX_HOME=home, RUST_LOG="error")
    requests = [
        {"id": 1, "method": "initialize",
         "params": {"clientInfo": {"name": "arc-check-clients", "version": "1"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [project]}},
    ]
    proc = subprocess.Popen([binary, "app-server"], cwd=project, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    for r in requests:
        proc.stdin.write(json.dumps(r) + "\n")
    proc.stdin.flush()
    result = None
    for line in proc.stdout:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("id") == 2:
            result = msg
            break
    proc.kill()
    proc.wait()
finally:
    shutil.rmtree(home, ignore_errors=True)

if result is None or "result" not in result:
    print("not ok - %s: codex app-server gave no hooks/list answer: %s"
          % (os.path.basename(path), result))
    sys.exit(1)
entry = result["result"]["data"][0]
listed = sorted((h["eventName"], h["command"]) for h in entry["hooks"])
want = sorted((e[0].lower() + e[1:], command) for e in events)
problems = [e.get("message", "") for e in entry.get("errors", [])] + \
    [w if isinstance(w, str) else json.dumps(w) for w in entry.get("warnings", [])]
if listed != want:
    problems.append("listed %s, want %s" % (listed, want))
print("%s - %s: Codex loads %d hooks (%s)%s" % (
    "not ok" if problems else "ok", os.path.basename(path), len(listed),
    ", ".join(sorted({e for e, _ in listed})),
    ": " + "; ".join(problems) if problems else ""))
sys.exit(1 if problems else 0)
