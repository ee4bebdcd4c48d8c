#!/usr/bin/env python3
"""Every line of ACP transcripts against the pinned ACP schema.

usage: acp-schema.py SCHEMA_JSON TRANSCRIPT...

A transcript holds {"d": ..., "m": LINE} lines: "recv" and "out" lines
were sent by the agent, "sent" and "in" lines by the client (editor).
Each is validated against the schema's Agent or Client message (the
top-level anyOf of schema/v1/schema.json), as JSON Schema 2020-12.
Prints "ok - ..." or "not ok - ..." per transcript.
"""
import json, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
sides = {v.get("title"): v for v in schema["anyOf"]}
def side_schema(title):
    s = dict(schema)
    s["anyOf"] = [sides[title]]
    return s
agent = jsonschema.Draft202012Validator(side_schema("Agent"))
client = jsonschema.Draft202012Validator(side_schema("Client"))
for path in sys.argv[2:]:
    bad, n = [], 0
    for i, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip():
            continue
        t = json.loads(line)
        v = agent if t["d"] in ("recv", "out") else client
        n += 1
        try:
            m = json.loads(t["m"])
        except ValueError as e:
            bad.append("line %d: not JSON" % i)
            continue
        errs = sorted(v.iter_errors(m), key=lambda e: e.path)
        if errs:
            bad.append("line %d (%s): %s" % (i, m.get("method", "reply"), errs[0].message[:160]))
    if bad:
        print("not ok - %s: %d of %d messages fail the ACP schema: %s" % (path, len(bad), n, "; ".join(bad[:3])))
    else:
        print("ok - %s: its %d messages are valid ACP" % (path, n))
