#!/usr/bin/env python3
"""Checks the Codex fixtures against the pinned Codex binary itself.

The hook JSON Schemas are compiled into the binary (each a pretty-printed
draft-07 document titled like "permission-request.command.input"); they are
cut out of it, written to SCHEMAS, and every fixture under FIXTURES/codex
(inputs) and FIXTURES/codex/out (the adapter's outputs) is validated against
the schema of its event.  The output members that a schema's own text says
Codex "fails closed" on must never appear.  The legacy notify payloads
(FIXTURES/codex-notify) have no schema: each of their member names must be
a string the binary knows.

usage: codex-check.py CODEX_BINARY FIXTURES SCHEMAS
Prints "ok - ..." or "not ok - ..." per check; exits 1 if any failed.
"""
import glob
import json
import os
import re
import sys

import jsonschema

binary, fixtures, schemas = sys.argv[1:4]
data = open(binary, "rb").read()
failed = 0


def report(good, what, why=""):
    global failed
    print(("ok - " if good else "not ok - ") + what + (": " + why if why else ""))
    if not good:
        failed += 1


# The schemas, as the binary holds them.
found = {}
decoder = json.JSONDecoder()
for m in re.finditer(rb'\{\s*"\$schema"', data):
    text = data[m.start():m.start() + 262144].decode("utf-8", "replace")
    try:
        doc, _ = decoder.raw_decode(text)
    except ValueError:
        continue
    if isinstance(doc, dict) and isinstance(doc.get("title"), str):
        found[doc["title"]] = doc
os.makedirs(schemas, exist_ok=True)
for title, doc in found.items():
    with open(os.path.join(schemas, title + ".schema.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
report(any(t.endswith(".command.input") for t in found),
       "%d hook schemas found in %s" % (len(found), os.path.basename(binary)))


def schema_for(event, side):
    name = re.sub(r"(?<!^)(?=[A-Z])", "-", event).lower()
    return found.get("%s.command.%s" % (name, side))


def fail_closed(schema):
    """(path, member) pairs whose description says Codex fails closed."""
    out = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in (node.get("properties") or {}).items():
                if isinstance(v, dict) and "fail closed" in v.get("description", ""):
                    out.append((path, k, v.get("type")))
            for k, v in node.items():
                walk(v, path + [k])
        elif isinstance(node, list):
            for v in node:
                walk(v, path)
    walk(schema, [])
    return out


def members(value, name):
    """Every value of a member called name, anywhere in value."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == name:
                yield v
            yield from members(v, name)
    elif isinstance(value, list):
        for v in value:
            yield from members(v, name)


def validate(path, side):
    rel = os.path.relpath(path, fixtures)
    try:
        value = json.load(open(path))
    except ValueError as e:
        report(False, rel, "not JSON: %s" % e)
        return
    event = value.get("hook_event_name") if side == "input" else \
        (value.get("hookSpecificOutput") or {}).get("hookEventName")
    schema = schema_for(event or "", side)
    if schema is None:
        report(False, rel, "Codex has no %s schema for event %r" % (side, event))
        return
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(value),
                    key=lambda e: list(e.absolute_path))
    why = "; ".join("/%s: %s" % ("/".join(map(str, e.absolute_path)), e.message)
                    for e in errors)
    if side == "output":
        for _, member, kind in fail_closed(schema):
            for v in members(value, member):
                if kind == "boolean" and v is not True:
                    continue
                why += ("; " if why else "") + \
                    "%s is set, and Codex fails closed on it" % member
    report(not why, "%s matches %s" % (rel, schema["title"]), why)


for path in sorted(glob.glob(os.path.join(fixtures, "codex", "*.json"))):
    validate(path, "input")
for path in sorted(glob.glob(os.path.join(fixtures, "codex", "out", "*.json"))):
    validate(path, "output")
closed = sorted({m for t, s in found.items() if t.endswith(".output")
                 for _, m, _ in fail_closed(s)})
report(len(closed) > 0, "members Codex fails closed on, from its schemas: %s"
       % ", ".join(closed))

# The legacy notify payload: names the binary must know.
for path in sorted(glob.glob(os.path.join(fixtures, "codex-notify", "*.json"))):
    value = json.load(open(path))
    names = list(value.keys()) + [value.get("type", "")]
    missing = [n for n in names if n.encode() not in data]
    report(not missing, "%s: every name is one Codex knows"
           % os.path.relpath(path, fixtures),
           "unknown: " + ", ".join(missing) if missing else "")

sys.exit(1 if failed else 0)
