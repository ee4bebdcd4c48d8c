/*
 * ARC 0.2's rules, to be read beside arc(7) (Events, Answers): what each of
 * the four event types does to the condition under its key (created and
 * updated replace what a person sees, a question's answer specification
 * carrying over; resolved withdraws its question), the answer rules in the
 * spec's order (first valid answer wins, not open, digest, nonce, the
 * answer's shape), idempotent retries, lazy expiry, a person's
 * dismissal, and a mirror's adoption of another host's conditions.
 * Stored records in, a change and a verdict out: what a result line says
 * is arcfilter.c's to write, and the journal writes the change.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcproblem.h"
#include "arcvalidate.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcrules.h"

struct event {
	enum event_type		 type;
	const struct jval	*root, *sender, *context, *request, *spec;
	const struct jval	*response;
	struct sv		 event_id, key;
	bool			 keyless;
	char			 ident[ARC_HEX_DIGEST], hash[ARC_HEX_DIGEST];
	/*
	 * The clock deadlines are judged by, which the time a change is
	 * recorded at (never before the journal's latest) may be later than.
	 */
	const char		*clock;
};

static const struct kind_default {
	const char *kind, *type, *priority, *title;
} kind_defaults[] = {
	{ "information", "info", "normal", "Update from %s" },
	{ "question", "input_required", "high", "%s needs input" },
	{ "permission", "permission_required", "high", "%s needs permission" },
	{ "blocked", "blocked", "high", "%s is blocked" },
	{ "failure", "error", "high", "%s reported a failure" },
	{ "completion", "completed", "normal", "%s completed work" },
};

static const struct kind_default *
kind_default(struct sv kind)
{
	size_t i;

	for (i = 0; i < sizeof(kind_defaults) / sizeof(kind_defaults[0]); i++)
		if (sv_eq(kind, kind_defaults[i].kind))
			return &kind_defaults[i];
	return &kind_defaults[0];	/* unreachable for a valid event */
}

static void
event_read(struct arena *a, const struct jval *root, struct event *ev)
{
	struct buf	 b = { 0 };
	struct sv	 sender_id;
	const struct jval *key;

	memset(ev, 0, sizeof(*ev));
	ev->root = root;
	ev->type = arc_event_type(root);
	ev->sender = json_get(root, "sender");
	ev->context = json_get(root, "context");
	ev->request = json_get(root, "request");
	ev->spec = json_get(ev->request, "response");
	ev->response = json_get(root, "response");
	ev->event_id = sv_json(json_get(root, "event_id"));
	sender_id = sv_json(json_get(ev->sender, "id"));

	buf_put(&b, sender_id.p, sender_id.n);
	buf_putc(&b, '\n');
	buf_put(&b, ev->event_id.p, ev->event_id.n);
	sha256_hex(b.p, b.len, ev->ident);
	b.len = 0;
	json_write(&b, root, JSON_CANONICAL);
	sha256_hex(b.p, b.len, ev->hash);
	buf_free(&b);

	key = json_get(ev->request, "key");
	if (key != NULL && !json_blank(key)) {
		ev->key = sv_json(key);
	} else {
		/* Keyless: the identity is derived from sender and event. */
		char *k = arena_alloc(a, 4 + ARC_HEX_DIGEST);
		memcpy(k, "arc:", 4);
		memcpy(k + 4, ev->ident, ARC_HEX_DIGEST);
		ev->key = sv_str(k);
		ev->keyless = true;
	}
}

/* NAME of the kind table's default titles. */
static struct sv
sender_display_name(const struct event *ev)
{
	const struct jval *name = json_get(ev->sender, "name");

	return name != NULL ? sv_json(name) : sv_json(json_get(ev->sender, "id"));
}

static struct sv
effective_title(struct arena *a, const struct event *ev)
{
	const struct jval	*title = json_get(ev->request, "title");
	struct buf		 b = { 0 };
	struct sv		 out, name;
	const char		*fmt, *pct;

	if (title != NULL)
		return sv_json(title);
	fmt = kind_default(sv_json(json_get(ev->request, "kind")))->title;
	name = sender_display_name(ev);
	pct = strstr(fmt, "%s");
	buf_put(&b, fmt, (size_t)(pct - fmt));
	buf_put(&b, name.p, name.n);
	buf_puts(&b, pct + 2);
	out = sv_buf(a, &b);
	buf_free(&b);
	return out;
}

static struct sv
context_str(const struct event *ev, const char *name)
{
	return sv_json(json_get(ev->context, name));
}

/*
 * Where the agent runs, from the event's x-arc extension: a presentation
 * hint (arc-notify and the picker jump there), never authority.  Kept
 * only when it is what tmux gives, a pane "%N" and an absolute socket
 * path of at most 200 printable bytes (no quote, backslash or comma);
 * anything else is dropped, not refused: an extension's values are not
 * the contract's to judge.
 */
bool
rules_hint_ok(struct sv v, bool pane)
{
	size_t	i;

	if (v.p == NULL || v.n < 2 || v.n > (pane ? 10 : 200) ||
	    v.p[0] != (pane ? '%' : '/'))
		return false;
	for (i = 1; i < v.n; i++)
		if (pane ? v.p[i] < '0' || v.p[i] > '9' : v.p[i] < 0x20 ||
		    v.p[i] > 0x7e || v.p[i] == '"' || v.p[i] == '\\' ||
		    v.p[i] == ',')
			return false;
	return true;
}

static struct sv
where_hint(struct arena *a, const struct event *ev)
{
	const struct jval	*x = json_get(json_get(ev->root, "extensions"),
	    "x-arc");
	struct sv		 pane, sock, out = { NULL, 0 };
	struct buf		 b = { 0 };

	if (x == NULL || x->type != J_OBJECT)
		return out;
	pane = sv_json(json_get(x, "tmux_pane"));
	sock = sv_json(json_get(x, "tmux_socket"));
	if (!rules_hint_ok(pane, true) || !rules_hint_ok(sock, false))
		return out;
	buf_puts(&b, "{\"tmux_pane\":\"");
	buf_put(&b, pane.p, pane.n);
	buf_puts(&b, "\",\"tmux_socket\":\"");
	buf_put(&b, sock.p, sock.n);
	buf_puts(&b, "\"}");
	out = sv_buf(a, &b);
	buf_free(&b);
	return out;
}

/* The last part of a working directory, for the project column. */
static struct sv
cwd_project(const struct event *ev)
{
	struct sv cwd = context_str(ev, "cwd"), out = { NULL, 0 };
	size_t end, start;

	if (cwd.p == NULL)
		return out;
	for (end = cwd.n; end > 0 && cwd.p[end - 1] == '/'; end--)
		;
	for (start = end; start > 0 && cwd.p[start - 1] != '/'; start--)
		;
	if (end > start) {
		out.p = cwd.p + start;
		out.n = end - start;
	}
	return out;
}

/* Sets the visible state that created and updated events replace. */
static void
set_visible(struct arena *a, struct rec *n, const struct event *ev,
    const char *now)
{
	struct sv		 kind = sv_json(json_get(ev->request, "kind"));
	const struct kind_default *d = kind_default(kind);
	const struct jval	*ext = json_get(json_get(ev->root, "extensions"),
	    "x-agentnotify");
	const struct jval	*prio = json_get(ev->request, "priority");
	const struct jval	*type = json_get(ext, "notification_type");

	n->f[N_KIND] = kind;
	n->f[N_TYPE] = type != NULL ? sv_json(type) : sv_str(d->type);
	n->f[N_PRIORITY] = prio != NULL ? sv_json(prio) : sv_str(d->priority);
	n->f[N_TITLE] = effective_title(a, ev);
	n->f[N_MESSAGE] = sv_json(json_get(ev->request, "message"));
	n->f[N_UPDATED_AT] = sv_str(now);
	n->f[N_EVENT_ID] = ev->event_id;
}

static struct sv
mint(struct arena *a, const char *prefix)
{
	char *id = arena_alloc(a, 40);

	mint_id(prefix, id, 40);
	return sv_str(id);
}

static void
new_notification(struct arena *a, struct rec *n, const struct event *ev,
    const char *now)
{
	struct sv instance = sv_json(json_get(ev->sender, "instance_id"));
	struct sv project = context_str(ev, "project");

	memset(n, 0, sizeof(*n));
	n->f[N_ID] = mint(a, "ntf_");
	n->f[N_KEY] = ev->key;
	n->f[N_STATUS] = sv_str("active");
	set_visible(a, n, ev, now);
	n->f[N_AGENT] = sv_json(json_get(ev->sender, "id"));
	n->f[N_AGENT_NAME] = sv_json(json_get(ev->sender, "name"));
	n->f[N_AGENT_INSTANCE] = instance.p ? instance :
	    context_str(ev, "session_id");
	n->f[N_PROJECT] = project.p ? project : cwd_project(ev);
	n->f[N_SESSION_ID] = context_str(ev, "session_id");
	n->f[N_CORRELATION_ID] = context_str(ev, "correlation_id");
	n->f[N_CREATED_AT] = sv_str(now);
	n->f[N_X_ARC] = where_hint(a, ev);
}

/* The answer specification of a question, as a person sees it. */
struct spec {
	struct sv	 kind, choices, text_max_length, expires_at;
};

static void
spec_from_event(struct arena *a, const struct jval *s, struct spec *sp)
{
	const struct jval	*choices = json_get(s, "choices");
	const struct jval	*max = json_get(s, "text_max_length");
	struct buf		 b = { 0 };
	size_t			 i;

	memset(sp, 0, sizeof(*sp));
	sp->kind = sv_json(json_get(s, "kind"));
	sp->expires_at = sv_json(json_get(s, "expires_at"));
	if (sv_eq(sp->kind, "text")) {
		sp->text_max_length = max ? (struct sv){ max->s, max->len } :
		    sv_str("500");
		return;
	}
	/* Choices in offered order, members in canonical (sorted) order. */
	buf_putc(&b, '[');
	for (i = 0; choices != NULL && i < choices->n; i++) {
		const struct jval *c = choices->items[i];
		const struct jval *detail = json_get(c, "detail");
		const struct jval *id = json_get(c, "id");
		const struct jval *label = json_get(c, "label");
		if (i)
			buf_putc(&b, ',');
		buf_putc(&b, '{');
		if (detail != NULL) {
			buf_puts(&b, "\"detail\":");
			buf_json_str(&b, detail->s, detail->len);
			buf_putc(&b, ',');
		}
		buf_puts(&b, "\"id\":");
		buf_json_str(&b, id->s, id->len);
		buf_puts(&b, ",\"label\":");
		buf_json_str(&b, label->s, label->len);
		buf_putc(&b, '}');
	}
	buf_putc(&b, ']');
	sp->choices = sv_buf(a, &b);
	buf_free(&b);
}

static void
spec_from_question(const struct rec *q, struct spec *sp)
{
	sp->kind = q->f[I_KIND];
	sp->choices = q->f[I_CHOICES];
	sp->text_max_length = q->f[I_TEXT_MAX_LENGTH];
	sp->expires_at = q->f[I_EXPIRES_AT];
}

/* SHA-256 of the RFC 8785 form of the question as displayed. */
static struct sv
question_digest(struct arena *a, struct sv key, struct sv kind,
    struct sv title, struct sv message, const struct spec *sp)
{
	struct buf	 b = { 0 };
	char		*hex = arena_alloc(a, ARC_HEX_DIGEST);

	buf_puts(&b, "{\"key\":");
	buf_json_str(&b, key.p, key.n);
	buf_puts(&b, ",\"kind\":");
	buf_json_str(&b, kind.p, kind.n);
	buf_puts(&b, ",\"message\":");
	buf_json_str(&b, message.p, message.n);
	buf_puts(&b, ",\"response\":{");
	if (sv_eq(sp->kind, "text")) {
		buf_puts(&b, "\"expires_at\":");
		buf_json_str(&b, sp->expires_at.p, sp->expires_at.n);
		buf_puts(&b, ",\"kind\":\"text\",\"text_max_length\":");
		buf_put(&b, sp->text_max_length.p, sp->text_max_length.n);
	} else {
		buf_puts(&b, "\"choices\":");
		buf_put(&b, sp->choices.p, sp->choices.n);
		buf_puts(&b, ",\"expires_at\":");
		buf_json_str(&b, sp->expires_at.p, sp->expires_at.n);
		buf_puts(&b, ",\"kind\":");
		buf_json_str(&b, sp->kind.p, sp->kind.n);
	}
	buf_puts(&b, "},\"title\":");
	buf_json_str(&b, title.p, title.n);
	buf_putc(&b, '}');
	sha256_hex(b.p, b.len, hex);
	buf_free(&b);
	return sv_str(hex);
}

/*
 * Whether a mirrored question is what its host asked (arc-apply --mirror):
 * its digest is the one its own text gives, under the key its host gave
 * (the mirror's HOST/KEY less HOST/), and a pending one shows the text of
 * its notification.  A broker that rewrites what a person reads cannot
 * keep the digest and nonce of the question they would be answering.
 */
static bool
mirror_question_holds(struct arena *a, const struct rec *n,
    const struct rec *q)
{
	struct sv	 key = q->f[I_KEY];
	const char	*slash = key.p != NULL ? memchr(key.p, '/', key.n) : NULL;
	struct spec	 sp;

	if (key.p == NULL || q->f[I_DIGEST].p == NULL)
		return false;
	if (slash != NULL) {
		key.n -= (size_t)(slash + 1 - key.p);
		key.p = slash + 1;
	}
	if (sv_eq(q->f[I_STATUS], "pending") &&
	    (!sv_same(n->f[N_TITLE], q->f[I_TITLE]) ||
	    !sv_same(n->f[N_MESSAGE], q->f[I_PROMPT])))
		return false;
	spec_from_question(q, &sp);
	return sv_same(question_digest(a, key, n->f[N_KIND], q->f[I_TITLE],
	    q->f[I_PROMPT], &sp), q->f[I_DIGEST]);
}

static bool
due(struct sv expires_at, const char *now)
{
	struct arc_instant e, t;

	return rfc3339_parse(expires_at.p, expires_at.n, &e) &&
	    rfc3339_parse(now, strlen(now), &t) && instant_cmp(&e, &t) <= 0;
}

static void
open_question(struct arena *a, struct rec *q, const struct rec *n,
    const struct event *ev, const struct rec *old, const struct spec *sp,
    struct sv digest, const char *now)
{
	char		*nonce = arena_alloc(a, 32);
	static const int carried[] = { I_SESSION_ID, I_TURN_ID,
	    I_NATIVE_REQUEST_ID };
	static const char *const names[] = { "session_id", "turn_id",
	    "native_request_id" };
	size_t		 i;

	memset(q, 0, sizeof(*q));
	mint_nonce(nonce);
	q->f[I_ID] = mint(a, "int_");
	q->f[I_KEY] = n->f[N_KEY];
	q->f[I_NOTIFICATION_ID] = n->f[N_ID];
	q->f[I_KIND] = sp->kind;
	q->f[I_TITLE] = n->f[N_TITLE];
	q->f[I_PROMPT] = n->f[N_MESSAGE];
	if (!sv_eq(sp->kind, "text"))
		q->f[I_CHOICES] = sp->choices;
	else
		q->f[I_TEXT_MAX_LENGTH] = sp->text_max_length;
	q->f[I_EXPIRES_AT] = sp->expires_at;
	q->f[I_STATUS] = sv_str(due(sp->expires_at, ev->clock) ? "expired" :
	    "pending");
	q->f[I_DIGEST] = digest;
	q->f[I_NONCE] = sv_str(nonce);
	/* Correlation from this event, else from the question it replaces. */
	for (i = 0; i < 3; i++) {
		q->f[carried[i]] = context_str(ev, names[i]);
		if (q->f[carried[i]].p == NULL && old != NULL)
			q->f[carried[i]] = old->f[carried[i]];
	}
	q->f[I_CREATED_AT] = sv_str(now);
	q->f[I_UPDATED_AT] = sv_str(now);
}

static void
change_question(struct change *ch, const struct rec *q)
{
	ch->q = *q;
	ch->has_q = true;
}

/*
 * Turns a pending question due by the clock into an expired one, recorded
 * at now; true when it did.
 */
static bool
settle_expiry(struct rec *q, const char *clock, const char *now)
{
	if (!sv_eq(q->f[I_STATUS], "pending") ||
	    !due(q->f[I_EXPIRES_AT], clock))
		return false;
	q->f[I_STATUS] = sv_str("expired");
	q->f[I_UPDATED_AT] = sv_str(now);
	return true;
}

static void
reject(struct verdict *v, enum arc_code code, const char *path,
    const char *state, const char *message)
{
	v->code = code;
	v->path = path;
	v->status = arc_code_status(code);
	v->state = state;
	strlcpy(v->message, message, sizeof(v->message));
}

/* created on an active condition, or updated: replace what is shown. */
static void
update_condition(struct arena *a, const struct event *ev, struct rec *n,
    struct rec *q, bool has_q, const char *now, struct change *ch)
{
	struct spec	 sp;
	struct sv	 digest;
	bool		 pending, has_spec = true;
	struct rec	 nq;

	set_visible(a, n, ev, now);
	ch->n = *n;
	ch->has_n = true;
	if (has_q && settle_expiry(q, ev->clock, now))
		change_question(ch, q);
	pending = has_q && sv_eq(q->f[I_STATUS], "pending");
	if (ev->spec != NULL)
		spec_from_event(a, ev->spec, &sp);
	else if (pending)
		spec_from_question(q, &sp);	/* carries over, pending only */
	else
		has_spec = false;
	if (!has_spec)
		return;
	digest = question_digest(a, n->f[N_KEY], n->f[N_KIND], n->f[N_TITLE],
	    n->f[N_MESSAGE], &sp);
	if (pending && sv_same(digest, q->f[I_DIGEST]))
		return;	/* nothing a person sees changed */
	if (pending)
		ch->superseded = q->f[I_ID];
	open_question(a, &nq, n, ev, has_q ? q : NULL, &sp, digest, now);
	change_question(ch, &nq);
}

static void
create_condition(struct arena *a, const struct event *ev, const char *now,
    struct change *ch)
{
	struct spec	 sp;
	struct rec	 q;

	new_notification(a, &ch->n, ev, now);
	ch->has_n = true;
	if (ev->spec == NULL)
		return;
	spec_from_event(a, ev->spec, &sp);
	open_question(a, &q, &ch->n, ev, NULL, &sp, question_digest(a,
	    ch->n.f[N_KEY], ch->n.f[N_KIND], ch->n.f[N_TITLE],
	    ch->n.f[N_MESSAGE], &sp), now);
	change_question(ch, &q);
}

static void
resolve_condition(const struct event *ev, struct rec *n, struct rec *q,
    bool has_q, const char *now, struct change *ch)
{
	const struct jval *outcome = json_get(ev->request, "outcome");

	n->f[N_STATUS] = sv_str("resolved");
	n->f[N_OUTCOME] = sv_json(outcome);
	n->f[N_RESOLVED_AT] = sv_str(now);
	n->f[N_UPDATED_AT] = sv_str(now);
	n->f[N_EVENT_ID] = ev->event_id;
	ch->n = *n;
	ch->has_n = true;
	if (!has_q)
		return;
	if (settle_expiry(q, ev->clock, now)) {
		change_question(ch, q);
		return;
	}
	if (!sv_eq(q->f[I_STATUS], "pending"))
		return;
	/* Resolving withdraws the question still open under the key. */
	q->f[I_STATUS] = sv_str(json_is(outcome, "expired") ? "expired" :
	    json_is(outcome, "superseded") ? "superseded" : "cancelled");
	q->f[I_UPDATED_AT] = sv_str(now);
	change_question(ch, q);
}

/* The answer of a stored response, or of an event's response. */
static bool
same_answer(struct arena *a, struct sv stored, const struct jval *r)
{
	struct jparse_error	 e;
	const struct jval	*s;
	const char		*names[] = { "response_id", "choice_id", "text" };
	size_t			 i;

	if ((s = json_parse(a, stored.p, stored.n, &e)) == NULL)
		return false;
	for (i = 0; i < 3; i++) {
		const struct jval *x = json_get(s, names[i]);
		const struct jval *y = json_get(r, names[i]);
		if (x != NULL && x->type == J_NULL)
			x = NULL;
		if ((x == NULL) != (y == NULL))
			return false;
		if (x != NULL && !sv_same(sv_json(x), sv_json(y)))
			return false;
	}
	return true;
}

static const char *
answer_shape_problem(struct arena *a, const struct rec *q,
    const struct jval *r)
{
	const struct jval	*choice = json_get(r, "choice_id");
	const struct jval	*text = json_get(r, "text");
	struct jparse_error	 e;
	const struct jval	*choices;
	size_t			 i;

	if (sv_eq(q->f[I_KIND], "text")) {
		if (text == NULL)
			return "a text question needs a text answer";
		if (text->codepoints > strtoull(sv_cstr(a,
		    q->f[I_TEXT_MAX_LENGTH]), NULL, 10))
			return "the text is longer than the question allows";
		return NULL;
	}
	if (choice == NULL)
		return "a choice question needs a choice_id";
	choices = json_parse(a, q->f[I_CHOICES].p, q->f[I_CHOICES].n, &e);
	for (i = 0; choices != NULL && i < choices->n; i++)
		if (sv_same(sv_json(json_get(choices->items[i], "id")),
		    sv_json(choice)))
			return NULL;
	return "choice_id is not one of the offered choices";
}

/* The six answer rules of ARC 0.2, in their order. */
static void
answer(struct arena *a, const struct event *ev, const struct condition *c,
    struct rec *n, struct rec *q, bool has_q, const char *now,
    struct change *ch, struct verdict *res)
{
	const struct jval	*r = ev->response;
	struct sv		 nonce = sv_json(json_get(r, "nonce"));
	struct sv		 digest = sv_json(json_get(r, "digest"));
	const char		*problem;
	struct buf		 b = { 0 };
	const struct jval	*v;

	if (c == NULL || !has_q) {
		reject(res, ARC_NOT_FOUND, "/request/key", NULL,
		    "no question under this key");
		return;
	}
	(void)settle_expiry(q, ev->clock, now);	/* judged, not written, if rejected */
	if (sv_eq(q->f[I_STATUS], "answered")) {
		if (same_answer(a, q->f[I_RESPONSE], r)) {
			res->replayed = true;
			return;
		}
		reject(res, ARC_CONFLICT,
		    "/response/response_id", NULL,
		    "the question is already answered");
		return;
	}
	if (!sv_eq(q->f[I_STATUS], "pending")) {
		struct handover h;
		rules_handover_of(a, c->handover, q->f[I_ID], &h);
		reject(res, ARC_NOT_OPEN, "/request/key",
		    sv_cstr(a, q->f[I_STATUS]), h.what != NULL &&
		    strcmp(h.what, "withdrawn") == 0 ? "the question is not "
		    "open: no one waits for it any more" :
		    "the question is not open");
		return;
	}
	if (!sv_same(digest, q->f[I_DIGEST])) {
		reject(res, ARC_DIGEST_MISMATCH,
		    "/response/digest", NULL,
		    "the answer is for a question that has since changed");
		return;
	}
	if (nonce.p == NULL || !secret_equal(nonce.p, nonce.n,
	    q->f[I_NONCE].p, q->f[I_NONCE].n)) {
		reject(res, ARC_NONCE_MISMATCH,
		    "/response/nonce", NULL,
		    "the answer does not carry the question's nonce");
		return;
	}
	if ((problem = answer_shape_problem(a, q, r)) != NULL) {
		reject(res, ARC_INVALID_ANSWER,
		    json_get(r, "text") ? "/response/text" :
		    "/response/choice_id", NULL, problem);
		return;
	}

	buf_puts(&b, "{\"response_id\":");
	v = json_get(r, "response_id");
	buf_json_str(&b, v->s, v->len);
	if ((v = json_get(r, "choice_id")) != NULL) {
		buf_puts(&b, ",\"choice_id\":");
		buf_json_str(&b, v->s, v->len);
	} else {
		v = json_get(r, "text");
		buf_puts(&b, ",\"text\":");
		buf_json_str(&b, v->s, v->len);
	}
	buf_puts(&b, ",\"source\":");
	v = json_get(r, "source");
	v ? buf_json_str(&b, v->s, v->len) : buf_puts(&b, "null");
	buf_puts(&b, ",\"device_id\":");
	v = json_get(r, "device_id");
	v ? buf_json_str(&b, v->s, v->len) : buf_puts(&b, "null");
	buf_puts(&b, ",\"accepted_at\":");
	buf_json_cstr(&b, now);
	buf_putc(&b, '}');
	q->f[I_RESPONSE] = sv_buf(a, &b);
	buf_free(&b);
	q->f[I_STATUS] = sv_str("answered");
	q->f[I_ANSWERED_AT] = sv_str(now);
	q->f[I_UPDATED_AT] = sv_str(now);
	change_question(ch, q);
	/* An answered condition no longer waits for attention. */
	n->f[N_STATUS] = sv_str("resolved");
	n->f[N_OUTCOME] = sv_str("answered");
	n->f[N_RESOLVED_AT] = sv_str(now);
	n->f[N_UPDATED_AT] = sv_str(now);
	n->f[N_EVENT_ID] = ev->event_id;
	ch->n = *n;
	ch->has_n = true;
}

/*
 * A replay returns the condition's records as they are now: a question
 * whose deadline has passed is shown expired.  A replay changes nothing:
 * the expiry is shown, not recorded (recorded, it would count as a
 * change of the condition and hold it past its retention).
 */
static void
replay(const struct current *cur, const char *clock, const char *now,
    struct change *ch, struct verdict *res)
{
	res->status = 200;
	res->replayed = true;
	(void)rules_expire(cur, clock, now, ch);
}

void
rules_apply(struct state *st, struct arena *a, const struct jval *root,
    const struct current *cur, const char *clock, const char *now,
    struct change *ch, struct verdict *res)
{
	struct event		 ev;
	const struct condition	*c = cur->c;
	struct rec		 n = cur->n, q = cur->q;
	enum seen_as		 seen;
	bool			 has_n = cur->has_n, has_q = cur->has_q;
	uint8_t			 ident[16], content[16];

	memset(res, 0, sizeof(*res));
	memset(ch, 0, sizeof(*ch));
	event_read(a, root, &ev);
	ev.clock = clock;
	hex_bytes(ev.ident, ident, 16);
	hex_bytes(ev.hash, content, 16);

	/* The same sender and event_id: a retry, or a reused id. */
	if ((seen = state_seen(st, ident, content)) != SEEN_NONE) {
		if (seen == SEEN_OTHER) {
			reject(res, ARC_CONFLICT, "/event_id", NULL,
			    "event_id was already used for a different event");
			return;
		}
		replay(cur, clock, now, ch, res);
		return;
	}
	/* A keyless creation replays for ever, past the idempotency window. */
	if (ev.keyless && c != NULL) {
		replay(cur, clock, now, ch, res);
		return;
	}
	/* A mirror's condition changes by its mirror only: its host decides. */
	if (c != NULL && c->route != NULL) {
		reject(res, ARC_INVALID, "/request/key", NULL, "a condition "
		    "mirrored from another host: answer it through its route "
		    "(arc-answer sends it there)");
		return;
	}
	res->status = 200;
	switch (ev.type) {
	case EV_CREATED:
		if (has_n && sv_eq(n.f[N_STATUS], "active")) {
			update_condition(a, &ev, &n, &q, has_q, now, ch);
		} else {
			create_condition(a, &ev, now, ch);
			res->status = 201;
		}
		break;
	case EV_UPDATED:
		if (!has_n || !sv_eq(n.f[N_STATUS], "active")) {
			reject(res, ARC_NOT_FOUND, "/request/key", NULL,
			    "no active condition under this key");
			return;
		}
		update_condition(a, &ev, &n, &q, has_q, now, ch);
		break;
	case EV_RESOLVED:
		if (!has_n) {
			reject(res, ARC_NOT_FOUND, "/request/key", NULL,
			    "no condition under this key");
			return;
		}
		if (sv_eq(n.f[N_STATUS], "active"))
			resolve_condition(&ev, &n, &q, has_q, now, ch);
		break;	/* already resolved: idempotent */
	case EV_SUBMITTED:
		answer(a, &ev, c, &n, &q, has_q, now, ch, res);
		if (res->code != ARC_OK)
			return;
		break;
	default:
		errx(EXIT_SYSTEM, "internal error: unvalidated event");
	}
	/* Accepted: recorded with its event, remembered by it. */
	ch->ident = sv_cstr(a, sv_str(ev.ident));
	ch->hash = sv_cstr(a, sv_str(ev.hash));
	ch->sender = sv_json(json_get(ev.sender, "id"));
	ch->event_id = ev.event_id;
	ch->type = sv_json(json_get(ev.root, "event_type"));
	res->changed = true;
}

bool
rules_expire(const struct current *cur, const char *clock, const char *now,
    struct change *ch)
{
	struct rec q = cur->q;

	memset(ch, 0, sizeof(*ch));
	if (cur->c == NULL || !cur->has_q ||
	    condition_qstatus(cur->c, clock) != Q_EXPIRED ||
	    cur->c->qstatus != Q_PENDING || !settle_expiry(&q, clock, now))
		return false;
	change_question(ch, &q);
	return true;
}

bool
rules_withdraw(const struct current *cur, const char *clock, const char *now,
    struct sv question_id, struct sv opened_by, const char *handover,
    struct change *ch)
{
	struct rec	 n = cur->n, q = cur->q;

	memset(ch, 0, sizeof(*ch));
	if (cur->c == NULL || !cur->has_n || !cur->has_q ||
	    condition_qstatus(cur->c, clock) != Q_PENDING ||
	    !sv_eq(q.f[I_STATUS], "pending"))
		return false;
	if (question_id.p != NULL ? !sv_same(q.f[I_ID], question_id) :
	    !sv_same(n.f[N_EVENT_ID], opened_by))
		return false;
	n.f[N_STATUS] = sv_str("resolved");
	n.f[N_OUTCOME] = sv_str("cancelled");
	n.f[N_RESOLVED_AT] = sv_str(now);
	n.f[N_UPDATED_AT] = sv_str(now);
	q.f[I_STATUS] = sv_str("cancelled");
	q.f[I_UPDATED_AT] = sv_str(now);
	ch->n = n;
	ch->has_n = true;
	change_question(ch, &q);
	ch->handover = handover;
	return true;
}

void
rules_handover_of(struct arena *a, const char *handover, struct sv q,
    struct handover *h)
{
	static const char	*whats[] = { "taken", "not_taken", "withdrawn" };
	struct jparse_error	 e;
	const struct jval	*r;
	size_t			 i;

	memset(h, 0, sizeof(*h));
	if (handover == NULL || q.p == NULL ||
	    (r = json_parse(a, handover, strlen(handover), &e)) == NULL ||
	    !sv_same(sv_json(json_get(r, "question")), q))
		return;
	for (i = 0; i < sizeof(whats) / sizeof(whats[0]); i++)
		if ((h->why = sv_json(json_get(r, whats[i]))).p != NULL) {
			h->what = whats[i];
			h->by = sv_json(json_get(r, "by"));
			return;
		}
}

const char *
rules_handover_json(struct arena *a, const char *what, const char *why,
    struct sv by, struct sv question)
{
	struct buf	 b = { 0 };
	char		*s;

	buf_putc(&b, '{');
	buf_json_cstr(&b, what);
	buf_putc(&b, ':');
	buf_json_cstr(&b, why);
	if (by.p != NULL) {
		buf_puts(&b, ",\"by\":");
		buf_json_str(&b, by.p, by.n);
	}
	buf_puts(&b, ",\"question\":");
	buf_json_str(&b, question.p, question.n);
	buf_putc(&b, '}');
	s = arena_alloc(a, b.len + 1);
	memcpy(s, b.p, b.len + 1);
	buf_free(&b);
	return s;
}

bool
rules_handover(const struct current *cur, struct sv question_id,
    const char *handover, struct change *ch)
{
	memset(ch, 0, sizeof(*ch));
	if (cur->c == NULL || !cur->has_n || !cur->has_q ||
	    !sv_eq(cur->q.f[I_STATUS], "answered") ||
	    !sv_same(cur->q.f[I_ID], question_id))
		return false;
	ch->n = cur->n;
	ch->has_n = true;
	ch->handover = handover;
	return true;
}

/*
 * A person dismisses a condition nobody will resolve: a notice, or one
 * whose question is no longer pending.  A consumer-made resolution, like
 * an expiry: the record carries no event, and "dismissed" says who.
 */
enum dismissal
rules_dismiss(const struct current *cur, const char *clock, const char *now,
    const char *source, struct change *ch)
{
	const struct condition	*c = cur->c;
	struct rec		 n = cur->n, q = cur->q;

	memset(ch, 0, sizeof(*ch));
	if (c == NULL || !cur->has_n)
		return DISMISS_NOT_FOUND;
	if (!c->active)
		return DISMISS_NOT_ACTIVE;
	if (condition_qstatus(c, clock) == Q_PENDING)
		return DISMISS_PENDING;
	n.f[N_STATUS] = sv_str("resolved");
	n.f[N_OUTCOME] = sv_str("not_needed");
	if (cur->has_q) {
		if (settle_expiry(&q, clock, now))
			change_question(ch, &q);
		if (sv_eq(q.f[I_STATUS], "expired"))
			n.f[N_OUTCOME] = sv_str("expired");
		else if (sv_eq(q.f[I_STATUS], "answered"))
			n.f[N_OUTCOME] = sv_str("answered");
	}
	n.f[N_RESOLVED_AT] = sv_str(now);
	n.f[N_UPDATED_AT] = sv_str(now);
	ch->n = n;
	ch->has_n = true;
	ch->dismissed = source != NULL ? source : "cli";
	return DISMISS_OK;
}

struct sv
rules_key(struct arena *a, const struct jval *root)
{
	const struct jval	*key = json_get(json_get(root, "request"), "key");
	struct sv		 sender_id, event_id;
	struct buf		 b = { 0 };
	char			*k;

	if (key != NULL && !json_blank(key))
		return sv_json(key);
	sender_id = sv_json(json_get(json_get(root, "sender"), "id"));
	event_id = sv_json(json_get(root, "event_id"));
	buf_put(&b, sender_id.p, sender_id.n);
	buf_putc(&b, '\n');
	buf_put(&b, event_id.p, event_id.n);
	k = arena_alloc(a, 4 + ARC_HEX_DIGEST);
	memcpy(k, "arc:", 4);
	sha256_hex(b.p, b.len, k + 4);
	buf_free(&b);
	return sv_str(k);
}

/* ---- a mirror of another host's conditions ---- */

struct sv
mirror_key(const struct jval *v)
{
	const struct jval *removed = json_get(v, "removed");

	if (removed != NULL && removed->type == J_TRUE)
		return sv_json(json_get(v, "key"));
	return sv_json(json_get(json_get(v, "notification"), "key"));
}

/* Whether a stored text is this record, as it would be written. */
static bool
same_text(const char *stored, const struct rec *r, bool interaction)
{
	struct buf	 b = { 0 };
	bool		 same;

	rec_write(&b, r, interaction, false);
	same = stored != NULL && strlen(stored) == b.len &&
	    memcmp(stored, b.p, b.len) == 0;
	buf_free(&b);
	return same;
}

/*
 * When a host last changed a condition: the later of its records'
 * updated_at (the host's clock, never behind itself in one journal).
 */
static bool
host_stamp(const struct rec *n, const struct rec *q, bool has_q,
    struct arc_instant *t)
{
	struct arc_instant	u;

	if (n->f[N_UPDATED_AT].p == NULL || !rfc3339_parse(n->f[N_UPDATED_AT].p,
	    n->f[N_UPDATED_AT].n, t))
		return false;
	if (has_q && q->f[I_UPDATED_AT].p != NULL &&
	    rfc3339_parse(q->f[I_UPDATED_AT].p, q->f[I_UPDATED_AT].n, &u) &&
	    instant_cmp(&u, t) > 0)
		*t = u;
	return true;
}

/*
 * A replay (a retained message published again, or an old one kept by a
 * broker) never brings back what the mirror holds as settled, nor hides
 * what is newer: the condition the line carries is refused when it is
 * older than the one held under its key, when it is the notification the
 * mirror saw settled, or when it reopens a question the mirror holds as
 * no longer pending.  NULL: none of these.
 */
static const char *
mirror_stale(const struct current *cur, const struct change *ch)
{
	struct arc_instant	held, got;
	bool			settled;
	int			order = 1;	/* unknown: newer */

	if (cur->c == NULL || !cur->has_n)
		return NULL;
	if (host_stamp(&cur->n, &cur->q, cur->has_q, &held))
		order = host_stamp(&ch->n, &ch->q, ch->has_q, &got) ?
		    instant_cmp(&got, &held) : -1;
	if (order < 0)
		return "/notification/updated_at: older than the condition "
		    "held for this key; not mirrored";
	settled = !cur->c->active;
	if (settled && order <= 0 && sv_same(cur->n.f[N_ID], ch->n.f[N_ID]))
		return "/notification/id: settled here; not brought back";
	if (cur->has_q && ch->has_q && sv_same(cur->q.f[I_ID], ch->q.f[I_ID]) &&
	    (settled || (!sv_eq(cur->q.f[I_STATUS], "pending") &&
	    !sv_same(cur->q.f[I_STATUS], ch->q.f[I_STATUS]))))
		return "/interaction/id: a question settled here; not reopened";
	return NULL;
}

/*
 * A condition as its host published it replaces ours under its key, its
 * nonce and digest kept, so that arc-status shows it and arc-answer can
 * answer it through the host, by route.  Removal resolves it.  Not ARC_OK,
 * with *why, for a line that is not a condition, for a question whose
 * digest is not that of its text (ARC_DIGEST_MISMATCH): it is not shown;
 * and for a replay (ARC_CONFLICT, mirror_stale).
 * *changed false: the same condition again (a broker redelivers).
 */
enum arc_code
rules_mirror(struct arena *a, const struct jval *v, const struct current *cur,
    const char *now, const char *route, struct change *ch, bool *changed,
    const char **why)
{
	const struct jval	*nv = json_get(v, "notification");
	const struct jval	*qv = json_get(v, "interaction");
	const struct jval	*removed = json_get(v, "removed");
	const struct condition	*c = cur->c;

	memset(ch, 0, sizeof(*ch));
	*changed = false;
	ch->route = route;
	/* A condition of this host is never a mirror's to change. */
	if (c != NULL && c->route == NULL) {
		*why = "/notification/key: a condition of this host, not of a "
		    "mirror; not mirrored";
		return ARC_INVALID;
	}
	if (removed != NULL && removed->type == J_TRUE) {
		const struct jval *key = json_get(v, "key");
		if (key == NULL || key->type != J_STRING) {
			*why = "/key: a removal names its key";
			return ARC_INVALID;
		}
		if (c == NULL || !cur->has_n || !c->active)
			return ARC_OK;	/* nothing to remove */
		ch->n = cur->n;
		ch->n.f[N_STATUS] = sv_str("resolved");
		ch->n.f[N_RESOLVED_AT] = sv_str(now);
		ch->has_n = true;
		*changed = true;
		return ARC_OK;
	}
	if (!rec_from_jval(nv, false, &ch->n) || !rec_sane(&ch->n, false) ||
	    ch->n.f[N_KEY].p == NULL || ch->n.f[N_ID].p == NULL) {
		*why = "/notification: not a notification record";
		return ARC_INVALID;
	}
	ch->has_n = true;
	if (qv != NULL && qv->type != J_NULL) {
		if (!rec_from_jval(qv, true, &ch->q) ||
		    !rec_sane(&ch->q, true) ||
		    !sv_same(ch->q.f[I_KEY], ch->n.f[N_KEY])) {
			*why = "/interaction: not an interaction record of "
			    "this key";
			return ARC_INVALID;
		}
		if (!mirror_question_holds(a, &ch->n, &ch->q)) {
			*why = "/interaction/digest: not the digest of the "
			    "question shown; not mirrored";
			return ARC_DIGEST_MISMATCH;
		}
		ch->has_q = true;
	}
	if ((*why = mirror_stale(cur, ch)) != NULL)
		return ARC_CONFLICT;
	*changed = c == NULL || !same_text(cur->ntext, &ch->n, false) ||
	    (ch->has_q ? !same_text(cur->qtext, &ch->q, true) : cur->has_q) ||
	    c->route == NULL || strcmp(c->route, route) != 0;
	return ARC_OK;
}
