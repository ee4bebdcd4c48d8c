#!/usr/bin/env python3
"""The Gemini CLI hook fixtures against the pinned @google/gemini-cli.

usage: gemini-check.py GEMINI_CLI_PACKAGE FIXTURES_DIR

Reads the bundle's hook event handler: the members of createBaseInput()
and, per event, of the input its fire...Event() builds (and, for a
Notification, of toSerializableDetails() for the details' type); each
fixture must have exactly those members.  Also: the notification type
ToolPermission, the SessionEnd reasons, and that hook timeouts are in
milliseconds (DEFAULT_HOOK_TIMEOUT = 6e4, "timed out after ${timeout}ms").
Prints "ok - ..." or "not ok - ..." per check.
"""
import glob, json, os, re, sys

pkg, fixtures = sys.argv[1], sys.argv[2]
src = None
for f in sorted(glob.glob(os.path.join(pkg, "bundle", "*.js"))):
    t = open(f, encoding="utf-8", errors="replace").read()
    if "createBaseInput(eventName)" in t:
        src = t
        break
if src is None:
    print("not ok - gemini: no hook event handler in the bundle")
    sys.exit(0)

def keys_of(body):
    ks = set()
    for m in re.finditer(r"^\s*(?:\.\.\.[^&\n]*&&\s*\{\s*)?([A-Za-z_]+)(?::|,|\n|$)", body, re.M):
        ks.add(m.group(1))
    return ks

base = src[src.index("createBaseInput(eventName)"):]
base = base[base.index("return {") + 8:base.index("};")]
base_keys = keys_of(base)
def event_keys(ev):
    i = src.find('...this.createBaseInput("%s" /* %s */)' % (ev, ev))
    if i < 0:
        return None
    body = src[i:src.index("};", i)]
    body = body.split("\n", 1)[1] if "\n" in body else ""
    return base_keys | keys_of(body)
def details_keys(kind):
    i = src.index("function toSerializableDetails(details)")
    body = src[i:src.index("\n}\n", i)]
    c = body.find('case "%s":' % kind)
    if c < 0:
        return {"type", "title"}
    part = body[c:body.index("};", c)]
    return {"type", "title"} | (keys_of(part) - {"base"})

for f in sorted(glob.glob(os.path.join(fixtures, "*.json"))):
    name = os.path.basename(f)
    p = json.load(open(f))
    want = event_keys(p.get("hook_event_name", ""))
    if want is None:
        print("not ok - gemini: %s: no %s event in Gemini CLI" % (name, p.get("hook_event_name")))
        continue
    got = set(p)
    bad = (got ^ want)
    if isinstance(p.get("details"), dict):
        dw = details_keys(p["details"].get("type"))
        bad |= {"details." + k for k in set(p["details"]) ^ dw}
    if bad:
        print("not ok - gemini: %s: members not as Gemini CLI builds them: %s" % (name, " ".join(sorted(bad))))
    else:
        print("ok - gemini: %s has the members Gemini CLI's %s input has" % (name, p["hook_event_name"]))
checks = [
    ('NotificationType2["ToolPermission"] = "ToolPermission"', "the ToolPermission notification type"),
    ('SessionEndReason2["Exit"] = "exit"', "SessionEnd's reason exit"),
    ("DEFAULT_HOOK_TIMEOUT = 6e4", "a hook's default timeout is 60000 (milliseconds)"),
    ("Hook timed out after ${timeout}ms", "a hook's timeout is counted in milliseconds"),
]
for needle, what in checks:
    print(("ok - gemini: %s" if needle in src else "not ok - gemini: %s") % what)
