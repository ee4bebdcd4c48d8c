"""The seeded generator of event sequences for t/model/difftest.

A batch is BATCH sequences that share one journal and one schedule: a few
time slots (ARC_NOW values, some gaps past deadlines, the retention period
and the idempotency window) and the slots before which the journal is
compacted.  Each sequence has keys and senders of its own (s17.k1, s17.a),
so the sequences of a batch cannot meet: each is compared with a model of
its own.  A sequence is a list of abstract steps; an answer's digest and
nonce ("right", "stale", "wrong") are filled in only when the step is sent,
taken from what arc-apply showed before, as a responder would.
"""

import random

BATCH = 50          # sequences per batch (fixed: --only N must find N's)
BASE = 1787702400   # 2026-08-26T00:00:00Z

GAPS = [60, 300, 1200, 2700, 5400, 10800, 90000]
GAP_WEIGHTS = [3, 3, 3, 2, 2, 2, 1]
# Deadlines relative to the slot a question is asked in: already past, at
# the very instant (at or before now counts as expired), and later.
DEADLINES = [-60, 0, 120, 600, 1800, 3600, 14400]
KINDS = ["information", "question", "permission", "blocked", "failure",
         "completion"]
OUTCOMES = ["answered", "expired", "cancelled", "superseded", "not_needed"]
CHOICES = [{"id": "allow", "label": "Allow"},
           {"id": "deny", "label": "Deny"},
           {"id": "once", "label": "Once", "detail": "just this once"}]
MESSAGES = ["May I?", "The build passed. May I publish?",
            "Caf\u00e9 \"q\"\n\ttab \u2028"]


def schedule(seed, batch):
    """The batch's time slots, compactions, retention and window."""
    rng = random.Random("%s:batch:%d" % (seed, batch))
    nslots = rng.randint(5, 10)
    times = [BASE + 60 * rng.randint(0, 1000)]
    for _ in range(nslots - 1):
        times.append(times[-1] + rng.choices(GAPS, GAP_WEIGHTS)[0])
    compact = [i > 0 and rng.random() < 0.3 for i in range(nslots)]
    # Every time is on the minute; these are not, so no condition or event
    # is ever exactly on the boundary.
    retain = rng.choice([3600, 7200]) + 7
    window = rng.choice([2700, 10800]) + 11
    return {"times": times, "compact": compact, "retain": retain,
            "window": window}


def sequence(seed, index, sched):
    """Sequence number index: its abstract steps, in order."""
    rng = random.Random("%s:seq:%d" % (seed, index))
    nslots = len(sched["times"])
    n = rng.randint(3, 16)
    slots = sorted(rng.randrange(nslots) for _ in range(n))
    steps = []
    for i, slot in enumerate(slots):
        steps.append(step(rng, i, slot, steps))
    return steps


def step(rng, ident, slot, before):
    keyless = [s["id"] for s in before if s["op"] == "create" and
               s["key"] is None]
    answers = [s["id"] for s in before if s["op"] == "answer"]

    asked = [s["key"] if s["key"] is not None else ("keyless", s["id"])
             for s in before if "response" in s]

    def target(answering=False):
        # an answer mostly goes where a question was last asked
        if answering and asked and rng.random() < 0.7:
            return asked[-1]
        if keyless and rng.random() < 0.2:
            return ("keyless", rng.choice(keyless))
        return rng.choice(["k1", "k1", "k2"])

    st = {"id": ident, "slot": slot, "sender": rng.choice("aab")}
    r = rng.random()
    if before and r < 0.12:
        st["op"] = "replay"
        st["of"] = rng.choice(before)["id"]
        st["how"] = rng.choices(["same", "reformat", "altered",
                                 "other_sender"], [4, 2, 2, 1])[0]
        return st
    if r < 0.45:
        st["op"] = "create"
        k = rng.random()
        st["key"] = None if k < 0.12 else (" " if k < 0.16 else target())
        if st["key"] == " ":
            st["key"] = None
            st["blank"] = True
    elif r < 0.55:
        st["op"] = "update"
        st["key"] = target()
    elif r < 0.67:
        st["op"] = "resolve"
        st["key"] = target()
        if rng.random() < 0.6:
            st["outcome"] = rng.choice(OUTCOMES)
        return st
    else:
        st["op"] = "answer"
        st["key"] = target(answering=True)
        st["digest"] = rng.choices(["right", "stale", "wrong"], [8, 1, 1])[0]
        st["nonce"] = rng.choices(["right", "stale", "wrong", "missing"],
                                  [12, 1, 1, 1])[0]
        st["answer"] = rng.choices(["valid", "unknown", "wrong_field",
                                    "too_long", "both"],
                                   [20, 1, 1, 1, 1])[0]
        if answers and rng.random() < 0.25:
            st["retry_of"] = rng.choice(answers)
            st["same_answer"] = rng.random() < 0.7
        st["pick"] = rng.randrange(12)
        if rng.random() < 0.5:
            st["source"] = rng.choice(["cli", "phone"])
        return st
    # created or updated: the visible state, and maybe a question
    st["kind"] = rng.choice(KINDS)
    st["message"] = rng.choices(MESSAGES, [6, 3, 1])[0]
    if rng.random() < 0.2:
        st["title"] = rng.choice(["Release", ""])
    if rng.random() < 0.2:
        st["priority"] = rng.choice(["low", "critical"])
    if rng.random() < (0.7 if st["op"] == "create" else 0.4):
        st["response"] = spec(rng)
    st["named"] = rng.random() < 0.5
    return st


def spec(rng):
    kind = rng.choice(["permission", "single_choice", "text"])
    s = {"kind": kind, "deadline": rng.choice(DEADLINES)}
    if kind == "text":
        s["text_max_length"] = rng.choice([None, 5, 20])
    else:
        n = rng.choice([2, 2, 3])
        s["choices"] = CHOICES[:n] if rng.random() < 0.7 else \
            list(reversed(CHOICES[:n]))
    return s
