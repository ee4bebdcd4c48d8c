"""An executable model of ARC 0.2 as arc's consumer answers it.

Written from the contract's text alone, never from the C:
  SEED    /work/shared/spec/arc-0.2-seed.txt      (the contract's prose)
  FIELDS  spec/ARC-0.2-fields.md                  (its tables)
  CONTRACT  CONTRACT.md                           (the commands' contract)
  APPLY   man/arc-apply.1, JOURNAL man/arc-journal.5, ARC7 man/arc.7
          (arc's own decisions where the contract is silent)
Each rule below cites where it comes from.  It shares no code and no table
with the C: t/model/difftest runs both on the same events and compares.

The model keeps, per key, the latest condition (a notification and its
current question) and, per sender and event id, the events it accepted.
Consumer.apply(event, now) returns what a consumer answers for one event:
an Answer, the result line reduced to what the rules decide.  Ids and
nonces are random in the C, so the model mints symbols for them (N1, Q1,
n1); the differential test checks that the C's values correspond to them
one to one.  Digests are computed for real (CONTRACT: The digest).
"""

import hashlib

# ---- RFC 8785 canonical JSON (JCS), for the digest and event content ----


def canonical(v):
    """RFC 8785: members sorted by their UTF-16 code units, no white space,
    strings with only the mandatory escapes (lowercase \\u00xx), integers as
    written (the only numbers our questions and events hold)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return _jcs_string(v)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(_jcs_string(k) + ":" + canonical(v[k])
                              for k in keys) + "}"
    raise TypeError("not JSON: %r" % (v,))


_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f",
          "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _jcs_string(s):
    out = []
    for ch in s:
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---- the kind table (FIELDS: Request kinds and the defaults) ----

DEFAULT_PRIORITY = {"information": "normal", "question": "high",
                    "permission": "high", "blocked": "high",
                    "failure": "high", "completion": "normal"}
DEFAULT_TITLE = {"information": "Update from %s",
                 "question": "%s needs input",
                 "permission": "%s needs permission",
                 "blocked": "%s is blocked",
                 "failure": "%s reported a failure",
                 "completion": "%s completed work"}


def sender_name(event):
    """FIELDS: NAME is sender.name when given, else sender.id."""
    s = event["sender"]
    return s["name"] if "name" in s else s["id"]


def effective_title(event):
    req = event["request"]
    if "title" in req:
        return req["title"]
    return DEFAULT_TITLE[req["kind"]] % sender_name(event)


def effective_priority(req):
    return req.get("priority", DEFAULT_PRIORITY[req["kind"]])


def digest(key, kind, title, message, spec):
    """CONTRACT (The digest and the nonce): SHA-256 of the canonical JSON of
    the question as displayed; choices in offered order, detail only where
    given, for the choice kinds; the effective text_max_length for text."""
    resp = {"kind": spec["kind"], "expires_at": spec["expires_at"]}
    if spec["kind"] == "text":
        resp["text_max_length"] = spec.get("text_max_length", 500)
    else:
        resp["choices"] = [dict(c) for c in spec["choices"]]
    return sha256_hex(canonical({"key": key, "kind": kind, "title": title,
                                 "message": message, "response": resp}))


# Unicode's White_Space property, every code point of it.
WHITE_SPACE = set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003"
                  "\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029"
                  "\u202f\u205f\u3000")


def is_blank(s):
    """CONTRACT (Validation): a value made only of Unicode White_Space
    characters counts as missing."""
    return all(ch in WHITE_SPACE for ch in s)


def condition_key(event):
    """SEED: without a key the consumer derives an identity from sender.id
    and event_id; ARC7 (Events): 'arc:' and the hex SHA-256 of sender.id, a
    newline and event_id.  CONTRACT: a blank key counts as keyless."""
    key = event["request"].get("key")
    if key is None or is_blank(key):
        return "arc:" + sha256_hex(event["sender"]["id"] + "\n" +
                                   event["event_id"])
    return key


# ---- what a consumer answers ----

class Answer:
    """One result line, as far as the rules decide it."""

    def __init__(self, status, error=None, state=None, replayed=False,
                 key=None, cond=None, now=0):
        self.status = status
        self.error = error
        self.state = state
        self.replayed = replayed
        self.key = key
        self.notification = None
        self.interaction = None
        if error is None and cond is not None:
            self.notification = cond.notification_view()
            self.interaction = cond.interaction_view(now)

    def as_dict(self):
        d = {"status": self.status}
        if self.error is not None:
            d["error"] = self.error
            if self.state is not None:
                d["state"] = self.state
            return d
        if self.replayed:
            d["replayed"] = True
        d["key"] = self.key
        d["notification"] = self.notification
        d["interaction"] = self.interaction
        return d


def reject(status, code, state=None):
    return Answer(status, error=code, state=state)


class Question:
    """CONTRACT (The interaction record): one question, minted with its own
    id and nonce."""

    def __init__(self, ident, nonce, digest_, spec, now):
        self.id = ident
        self.nonce = nonce
        self.digest = digest_
        self.spec = spec
        self.status = "pending"
        self.withdrawn_at = None
        self.response = None
        # APPLY (Lifecycle): one opened with a deadline already past is
        # opened expired.
        if self.deadline_passed(now):
            self.status = "expired"

    def deadline_passed(self, now):
        return parse_time(self.spec["expires_at"]) <= now

    def status_at(self, now):
        """ARC7 (Answers): a pending question whose expires_at is at or
        before now counts as expired."""
        if self.status == "pending" and self.deadline_passed(now):
            return "expired"
        return self.status

    def pending(self, now):
        return self.status_at(now) == "pending"


class Condition:
    """A logical condition under one key (SEED: request.key identifies a
    logical condition that may span several events)."""

    def __init__(self, key, nid):
        self.key = key
        self.nid = nid
        self.status = "active"
        self.outcome = None
        self.question = None        # the newest question of this lifecycle
        self.changed = 0            # the consumer's time of its last change

    def show(self, event, now):
        """APPLY (Lifecycle): an update replaces kind, title, message and
        priority; a missing title or priority takes the kind's default
        (CONTRACT: it does not merge)."""
        req = event["request"]
        self.kind = req["kind"]
        self.title = effective_title(event)
        self.message = req["message"]
        self.priority = effective_priority(req)
        self.changed = now

    def notification_view(self):
        return {"id": self.nid, "status": self.status,
                "outcome": self.outcome, "kind": self.kind,
                "title": self.title, "priority": self.priority,
                "message": self.message}

    def interaction_view(self, now):
        """CONTRACT: interaction is null unless the condition has a
        question."""
        q = self.question
        if q is None:
            return None
        view = {"id": q.id, "status": q.status_at(now), "digest": q.digest,
                "nonce": q.nonce, "kind": q.spec["kind"],
                "expires_at": q.spec["expires_at"], "response": None}
        if q.response is not None:
            view["response"] = dict(q.response)
        return view

    def settled_since(self, now):
        """JOURNAL (Compaction): retired once nothing in it is pending and it
        has not changed for the retention period: resolved, answered,
        expired (counted from its deadline) or withdrawn, or a notice nobody
        resolved.  None while a question is pending."""
        q = self.question
        if q is not None and q.pending(now):
            return None
        since = self.changed
        if q is not None and q.status_at(now) == "expired" and \
                q.withdrawn_at is None:
            since = max(since, parse_time(q.spec["expires_at"]))
        return since


class Consumer:
    """The conditions and remembered events of one journal."""

    def __init__(self):
        self.conditions = {}    # key -> Condition (the latest lifecycle)
        self.seen = {}          # (sender.id, event_id) -> (content, at, key)
        self.counter = {"N": 0, "Q": 0, "n": 0}

    def mint(self, prefix):
        self.counter[prefix] += 1
        return "%s%d" % (prefix, self.counter[prefix])

    # -- one event --

    def apply(self, event, now):
        """What the consumer answers to one event at time now (seconds)."""
        bad = self.invalid(event)
        if bad is not None:
            return bad
        key = condition_key(event) if event["event_type"] == \
            "request.created" else event["request"]["key"]
        # APPLY (Idempotency): the same sender.id and event_id as an event
        # already accepted replays when its content is identical (RFC 8785
        # canonical form), and is a conflict otherwise (CONTRACT: 409
        # conflict for an event_id reused for a different event).
        ident = (event["sender"]["id"], event["event_id"])
        content = canonical(event)
        if ident in self.seen:
            first, _, first_key = self.seen[ident]
            if first != content:
                return reject(409, "conflict")
            # CONTRACT: a replay returns the condition's current records.
            return Answer(200, replayed=True, key=first_key,
                          cond=self.conditions.get(first_key), now=now)
        # SEED: when request.created omits a key, the consumer derives an
        # identity from sender.id and event_id, and replaying that event
        # returns the original result, including after it has been resolved;
        # APPLY: that event replays for ever.  So while a condition is kept
        # under the derived key, the event is a replay, also once its event
        # id is past the idempotency window.  (JOURNAL's "a keyless request
        # replays within it" says less than APPLY; the model keeps APPLY.)
        if event["event_type"] == "request.created" and \
                key != event["request"].get("key") and key in self.conditions:
            return Answer(200, replayed=True, key=key,
                          cond=self.conditions[key], now=now)
        handler = {"request.created": self.created,
                   "request.updated": self.updated,
                   "response.submitted": self.submitted,
                   "request.resolved": self.resolved}[event["event_type"]]
        answer = handler(event, key, now)
        # APPLY: a rejected event changes nothing and is not remembered.
        if answer.error is None:
            self.seen[ident] = (content, now, key)
        return answer

    def invalid(self, event):
        """The few validation rules the generator breaks on purpose
        (CONTRACT: both or neither of choice_id and text is invalid, path
        /response)."""
        if event["event_type"] == "response.submitted":
            r = event["response"]
            if ("choice_id" in r) == ("text" in r):
                return reject(400, "invalid")
        return None

    def created(self, event, key, now):
        """APPLY (Lifecycle): request.created with the key of an active
        condition updates it (200); otherwise it opens a new condition (201),
        also after an earlier one under the key was resolved (SEED: a
        resolved keyed condition may later be created again as a new local
        lifecycle)."""
        cond = self.conditions.get(key)
        if cond is not None and cond.status == "active":
            self.update(cond, event, now)
            return Answer(200, key=key, cond=cond, now=now)
        # JOURNAL (Records): a notification with a new id starts a new
        # lifecycle under its key, dropping the old question.
        cond = Condition(key, self.mint("N"))
        cond.show(event, now)
        spec = event["request"].get("response")
        if spec is not None:
            cond.question = self.ask(cond, spec, now)
        self.conditions[key] = cond
        return Answer(201, key=key, cond=cond, now=now)

    def updated(self, event, key, now):
        """SEED: request.updated never creates a missing condition; APPLY:
        it needs an active condition (404 otherwise)."""
        cond = self.conditions.get(key)
        if cond is None or cond.status != "active":
            return reject(404, "not_found")
        self.update(cond, event, now)
        return Answer(200, key=key, cond=cond, now=now)

    def update(self, cond, event, now):
        """APPLY (Lifecycle) and CONTRACT: the update replaces the visible
        state; a request.response in it replaces the answer specification,
        without one only a pending question's specification carries over.
        When the digest of the question as now displayed differs from the
        pending question's, that question is superseded and a new one (new
        id, digest and nonce) opens; when nothing displayed changed, the
        question stays (SEED: an update that changes what is being asked
        supersedes the open question rather than inheriting its answer)."""
        old = cond.question
        pending = old is not None and old.pending(now)
        cond.show(event, now)
        spec = event["request"].get("response")
        if spec is None and pending:
            spec = old.spec
        if spec is None:
            return      # nothing asked: the question (if any) stays as is
        if pending and old.digest == self.digest_of(cond, spec):
            return
        if pending:
            old.status = "superseded"
        cond.question = self.ask(cond, spec, now)

    def digest_of(self, cond, spec):
        return digest(cond.key, cond.kind, cond.title, cond.message, spec)

    def ask(self, cond, spec, now):
        """CONTRACT: a nonce minted per question; a new lifecycle with the
        same content gives the same digest but a new nonce."""
        return Question(self.mint("Q"), self.mint("n"),
                        self.digest_of(cond, spec), spec, now)

    def submitted(self, event, key, now):
        """SEED (Responses) and ARC7 (Answers): the six rules, in order; the
        first valid answer wins."""
        r = event["response"]
        cond = self.conditions.get(key)
        q = cond.question if cond is not None else None
        # 1. no condition or no question under the key: not_found.  (The
        # current question is the newest interaction of the latest
        # condition: CONTRACT, Lifecycle.)
        if q is None:
            return reject(404, "not_found")
        # 2. already answered: conflict, unless response_id and the answer
        # equal the accepted one (CONTRACT: compared on response_id and
        # choice_id or text only), which replays the acceptance.
        if q.status == "answered":
            acc = q.response
            if acc["response_id"] == r["response_id"] and \
                    acc.get("choice_id") == r.get("choice_id") and \
                    acc.get("text") == r.get("text"):
                return Answer(200, replayed=True, key=key, cond=cond, now=now)
            return reject(409, "conflict")
        # 3. not open: expired, cancelled or superseded.
        state = q.status_at(now)
        if state != "pending":
            return reject(400, "not_open", state)
        # 4. another digest: the question changed after it was asked.
        if r["digest"] != q.digest:
            return reject(400, "digest_mismatch")
        # 5. arc issues a nonce for every question, so a missing or
        # different nonce is refused.
        if r.get("nonce") != q.nonce:
            return reject(400, "nonce_mismatch")
        # 6. wrong shape for the kind: an unknown choice, text over the
        # bound (in characters), the wrong field for the kind.
        spec = q.spec
        if spec["kind"] == "text":
            if "text" not in r or \
                    len(r["text"]) > spec.get("text_max_length", 500):
                return reject(400, "invalid_answer")
        elif "choice_id" not in r or \
                r["choice_id"] not in [c["id"] for c in spec["choices"]]:
            return reject(400, "invalid_answer")
        # Accepted: SEED: an accepted answer closes the condition; APPLY: it
        # marks the question answered and resolves the notification with
        # outcome answered.
        q.status = "answered"
        q.response = {"response_id": r["response_id"]}
        for f in ("choice_id", "text"):
            if f in r:
                q.response[f] = r[f]
        cond.status = "resolved"
        cond.outcome = "answered"
        cond.changed = now
        return Answer(200, key=key, cond=cond, now=now)

    def resolved(self, event, key, now):
        """APPLY (Lifecycle): request.resolved on a missing key is 404, on a
        resolved condition an idempotent 200 (SEED: idempotent when the
        latest matching condition is already resolved); otherwise it
        resolves the notification and withdraws a pending question (SEED:
        resolving withdraws any question still open): expired for the
        outcome expired, superseded for superseded, else cancelled."""
        cond = self.conditions.get(key)
        if cond is None:
            return reject(404, "not_found")
        if cond.status == "resolved":
            return Answer(200, key=key, cond=cond, now=now)
        outcome = event["request"].get("outcome")
        cond.status = "resolved"
        cond.outcome = outcome
        cond.changed = now
        q = cond.question
        if q is not None and q.pending(now):
            q.status = {"expired": "expired",
                        "superseded": "superseded"}.get(outcome, "cancelled")
            q.withdrawn_at = now
        return Answer(200, key=key, cond=cond, now=now)

    # -- compaction --

    def compact(self, now, retain, window):
        """JOURNAL (Compaction), arc-apply --compact: a condition is retired
        once nothing in it is pending and it has not changed for the
        retention period; event ids are remembered for the idempotency
        window.  (The test keeps every time off the boundaries.)"""
        for key in list(self.conditions):
            since = self.conditions[key].settled_since(now)
            if since is not None and now - since > retain:
                del self.conditions[key]
        for ident in list(self.seen):
            if now - self.seen[ident][1] > window:
                del self.seen[ident]


# ---- time ----

def parse_time(s):
    """The RFC 3339 times the generator writes: YYYY-MM-DDTHH:MM:SSZ."""
    import calendar
    import time
    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))


def format_time(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
