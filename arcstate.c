/*
 * Conditions and their lifecycle: ARC 0.2's rules for created, updated,
 * submitted and resolved events, first-wins answers, idempotent replays,
 * and the journal records that make each accepted change durable.
 */
#include <err.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcstate.h"

/* ---- the state: conditions by key, events seen by identity ---- */

/* 40 bytes an event; an all-zero ident (2^-128 for a real one) is empty. */
struct seen {
	uint8_t		 ident[16];	/* SHA-256 of sender.id "\n" event_id */
	uint8_t		 content[16];	/* SHA-256 of the canonical event */
	int64_t		 at;
};

static bool
seen_used(const struct seen *s)
{
	uint64_t a, b;

	memcpy(&a, s->ident, 8);
	memcpy(&b, s->ident + 8, 8);
	return (a | b) != 0;
}

/* A hash table slot: the key's hash beside it spares a probe the fetch. */
struct slot {
	uint64_t		 hash;
	struct condition	*c;
};

struct state {
	struct slot		 *slots;
	size_t			  cap, count;
	struct arena		  pool;		/* the conditions and their keys */
	int			  fd;		/* the journal */
	const struct buf	 *batch;	/* records not yet on disk */
	struct condition	**touched;	/* with spans in the batch */
	size_t			  ntouched, touched_cap;
	struct seen		 *seen;
	size_t			  seen_cap, seen_count;
	bool			  readers_only;	/* no idempotency index */
	bool			  summary_only;	/* resumed from a status summary */
	uint64_t		  seq;
};

static uint64_t
hash_bytes(const void *p, size_t n)
{
	const unsigned char	*s = p;
	uint64_t		 h = 1469598103934665603ULL;
	size_t			 i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

struct state *
state_new(void)
{
	struct state *st;

	if ((st = calloc(1, sizeof(*st))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	st->fd = -1;
	return st;
}

void
state_free(struct state *st)
{
	size_t i;

	if (st == NULL)
		return;
	for (i = 0; i < st->cap; i++)
		if (st->slots[i].c != NULL)
			free(st->slots[i].c->expires_at);
	arena_free(&st->pool);
	free(st->slots);
	free(st->seen);
	free(st->touched);
	free(st);
}

size_t
state_count(const struct state *st)
{
	return st->count;
}

static size_t
slot_of(const struct state *st, const char *key, size_t n, uint64_t h)
{
	size_t i = (size_t)h & (st->cap - 1);

	while (st->slots[i].c != NULL && (st->slots[i].hash != h ||
	    st->slots[i].c->keylen != n ||
	    memcmp(st->slots[i].c->key, key, n) != 0))
		i = (i + 1) & (st->cap - 1);
	return i;
}

static void
grow_conditions(struct state *st)
{
	struct slot	*old = st->slots;
	size_t		 oldcap = st->cap, i;

	st->cap = oldcap ? oldcap * 2 : 1024;
	if ((st->slots = calloc(st->cap, sizeof(*st->slots))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	for (i = 0; i < oldcap; i++)
		if (old[i].c != NULL)
			st->slots[slot_of(st, old[i].c->key, old[i].c->keylen,
			    old[i].hash)] = old[i];
	free(old);
}

static struct condition *
lookup_sv(struct state *st, struct sv key)
{
	if (st->cap == 0)
		return NULL;
	return st->slots[slot_of(st, key.p, key.n, hash_bytes(key.p,
	    key.n))].c;
}

struct condition *
state_lookup(struct state *st, const char *key)
{
	return lookup_sv(st, sv_str(key));
}

static struct condition *
lookup_or_add(struct state *st, struct sv key)
{
	struct condition	*c;
	uint64_t		 h = hash_bytes(key.p, key.n);
	size_t			 i;

	if ((st->count + 1) * 4 > st->cap * 3)
		grow_conditions(st);
	i = slot_of(st, key.p, key.n, h);
	if (st->slots[i].c != NULL)
		return st->slots[i].c;
	/* Conditions live as long as the state: one pool, no free each. */
	c = arena_alloc(&st->pool, sizeof(*c) + key.n + 1);
	memset(c, 0, sizeof(*c));
	c->key = (char *)(c + 1);
	memcpy(c->key, key.p, key.n);
	c->key[key.n] = '\0';
	c->keylen = key.n;
	st->slots[i].hash = h;
	st->slots[i].c = c;
	st->count++;
	return c;
}

void
state_foreach(struct state *st, void (*fn)(const struct condition *, void *),
    void *arg)
{
	size_t i;

	for (i = 0; i < st->cap; i++)
		if (st->slots[i].c != NULL)
			fn(st->slots[i].c, arg);
}

static char *
xstrndup(const char *s, size_t n)
{
	char *p;

	if ((p = malloc(n + 1)) == NULL)
		err(EXIT_SYSTEM, "malloc");
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void
state_set_file(struct state *st, int fd)
{
	st->fd = fd;
}

/*
 * A condition known only by its summary (arc-status's cache): no record
 * text, but what counting needs and what tells its lifecycle apart.
 */
void
state_add_summary(struct state *st, struct sv key, enum priority prio,
    enum qstatus q, struct sv expires, struct sv notification_id)
{
	struct condition *c = lookup_or_add(st, key);

	st->summary_only = true;
	c->active = true;
	c->priority = prio;
	c->qstatus = q;
	free(c->expires_at);
	c->expires_at = expires.p ? xstrndup(expires.p, expires.n) : NULL;
	if (notification_id.n < sizeof(c->notification_id)) {
		memcpy(c->notification_id, notification_id.p,
		    notification_id.n);
		c->notification_id[notification_id.n] = '\0';
	}
}

/*
 * Sizes the index of events seen for a journal of this many bytes
 * (records run to a kilobyte or more), so that a rebuild does not zero
 * table after table as it grows; a low guess only means it grows.
 */
void
state_expect_bytes(struct state *st, uint64_t bytes)
{
	size_t cap = 1024;

	if (st->readers_only || st->seen != NULL)
		return;
	while (cap < SIZE_MAX / 4 && (uint64_t)cap * 3 < bytes / 1024 * 4)
		cap *= 2;
	if ((st->seen = calloc(cap, sizeof(*st->seen))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	st->seen_cap = cap;
}

/* A reader never applies events: it needs no index of events seen. */
void
state_for_readers(struct state *st)
{
	st->readers_only = true;
}

static void
touch(struct state *st, struct condition *c)
{
	if (st->ntouched == st->touched_cap) {
		st->touched_cap = st->touched_cap ? st->touched_cap * 2 : 64;
		st->touched = reallocarray(st->touched, st->touched_cap,
		    sizeof(*st->touched));
		if (st->touched == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	st->touched[st->ntouched++] = c;
}

void
state_batch_stored(struct state *st, uint64_t base)
{
	size_t i;

	for (i = 0; i < st->ntouched; i++) {
		struct condition *c = st->touched[i];
		if (c->notification.off & IN_BATCH)
			c->notification.off = base +
			    (c->notification.off & ~IN_BATCH);
		if (c->interaction.off & IN_BATCH)
			c->interaction.off = base +
			    (c->interaction.off & ~IN_BATCH);
	}
	st->ntouched = 0;
}

const char *
condition_text(struct state *st, struct arena *a, const struct condition *c,
    bool interaction)
{
	const struct span	*sp = interaction ? &c->interaction :
	    &c->notification;
	char			*t;
	size_t			 got = 0;
	ssize_t			 n;

	if (sp->len == 0)
		return NULL;
	t = arena_alloc(a, (size_t)sp->len + 1);
	if (sp->off & IN_BATCH) {
		memcpy(t, st->batch->p + (sp->off & ~IN_BATCH), sp->len);
	} else {
		while (got < sp->len) {
			n = pread(st->fd, t + got, sp->len - got,
			    (off_t)(sp->off + got));
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0)
				errx(EXIT_SYSTEM, "the journal changed under us "
				    "(reading byte %llu)",
				    (unsigned long long)sp->off);
			got += (size_t)n;
		}
	}
	t[sp->len] = '\0';
	return t;
}

static void
store_notification(struct condition *c, const struct rec *n, struct span at)
{
	c->notification = at;
	c->active = sv_eq(n->f[N_STATUS], "active");
	c->priority = priority_of(n->f[N_PRIORITY]);
	if (n->f[N_ID].n < sizeof(c->notification_id)) {
		memcpy(c->notification_id, n->f[N_ID].p, n->f[N_ID].n);
		c->notification_id[n->f[N_ID].n] = '\0';
	} else {
		c->notification_id[0] = '\0';	/* never one of ours */
	}
}

static void
store_interaction(struct condition *c, const struct rec *q, struct span at)
{
	free(c->expires_at);
	c->expires_at = NULL;
	c->interaction = at;
	c->qstatus = q != NULL ? qstatus_of(q->f[I_STATUS]) : Q_NONE;
	if (c->qstatus == Q_PENDING && q->f[I_EXPIRES_AT].p != NULL)
		c->expires_at = xstrndup(q->f[I_EXPIRES_AT].p,
		    q->f[I_EXPIRES_AT].n);
}

static const struct span no_span = { 0, 0 };

/* Whether a notification is of the stored lifecycle. */
static bool
same_lifecycle(const struct condition *c, struct sv id)
{
	if (c->notification_id[0] == '\0')
		return true;	/* a new condition */
	return strlen(c->notification_id) == id.n &&
	    memcmp(c->notification_id, id.p, id.n) == 0;
}

/* A pending question whose deadline is at or before now counts as expired. */
enum qstatus
condition_qstatus(const struct condition *c, const char *now)
{
	if (c->qstatus == Q_PENDING && c->expires_at != NULL &&
	    rfc3339_cmp(c->expires_at, now) <= 0)
		return Q_EXPIRED;
	return c->qstatus;
}

static unsigned
hex_value(char c)
{
	return (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
}

/* Lowercase hex, already checked by is_hex. */
static void
hex_to_bytes(const char *hex, uint8_t *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = (uint8_t)(hex_value(hex[2 * i]) << 4 |
		    hex_value(hex[2 * i + 1]));
}

static bool
is_hex(struct sv s, size_t n)
{
	size_t i;

	if (s.p == NULL || s.n != n)
		return false;
	for (i = 0; i < n; i++)
		if (!((s.p[i] >= '0' && s.p[i] <= '9') ||
		    (s.p[i] >= 'a' && s.p[i] <= 'f')))
			return false;
	return true;
}

static struct seen *
seen_slot(struct state *st, const uint8_t ident[16])
{
	uint64_t h;
	size_t i;

	memcpy(&h, ident, sizeof(h));
	i = (size_t)h & (st->seen_cap - 1);
	while (seen_used(&st->seen[i]) &&
	    memcmp(st->seen[i].ident, ident, 16) != 0)
		i = (i + 1) & (st->seen_cap - 1);
	return &st->seen[i];
}

static struct seen *
seen_find(struct state *st, const uint8_t ident[16])
{
	struct seen *s;

	if (st->seen_cap == 0)
		return NULL;
	s = seen_slot(st, ident);
	return seen_used(s) ? s : NULL;
}

static void
seen_add(struct state *st, const uint8_t ident[16], const uint8_t content[16],
    int64_t at)
{
	struct seen	*s, *old = st->seen;
	size_t		 oldcap = st->seen_cap, i;

	if ((st->seen_count + 1) * 4 > st->seen_cap * 3) {
		st->seen_cap = oldcap ? oldcap * 2 : 1024;
		if ((st->seen = calloc(st->seen_cap, sizeof(*s))) == NULL)
			err(EXIT_SYSTEM, "calloc");
		for (i = 0; i < oldcap; i++)
			if (seen_used(&old[i]))
				*seen_slot(st, old[i].ident) = old[i];
		free(old);
	}
	s = seen_slot(st, ident);
	if (!seen_used(s))
		st->seen_count++;
	memcpy(s->ident, ident, 16);
	memcpy(s->content, content, 16);
	s->at = at;
}

static int64_t
seconds_of(const char *s, size_t n)
{
	struct arc_instant t;

	return rfc3339_parse(s, n, &t) ? t.seconds : 0;
}

/* ---- replaying the journal ---- */

/*
 * What the rest of the code takes for granted of a stored record: a known
 * status, and for a question a known kind, a digest and a real deadline.
 * A journal record without them is damaged, however well-formed its JSON.
 */
static bool
record_sane(const struct rec *r, bool interaction)
{
	struct arc_instant t;

	if (!interaction)
		return sv_eq(r->f[N_STATUS], "active") ||
		    sv_eq(r->f[N_STATUS], "resolved");
	return qstatus_of(r->f[I_STATUS]) != Q_NONE &&
	    (sv_eq(r->f[I_KIND], "permission") ||
	    sv_eq(r->f[I_KIND], "single_choice") ||
	    sv_eq(r->f[I_KIND], "text")) &&
	    is_hex(r->f[I_DIGEST], 64) && r->f[I_EXPIRES_AT].p != NULL &&
	    rfc3339_parse(r->f[I_EXPIRES_AT].p, r->f[I_EXPIRES_AT].n, &t);
}

static bool
load_interaction(struct state *st, const struct jval *v, struct span at)
{
	struct condition	*c;
	struct rec		 q;

	if (!rec_from_jval(v, true, &q) || !record_sane(&q, true))
		return false;
	if ((c = lookup_sv(st, q.f[I_KEY])) == NULL)
		/* A question before its condition is damage, unless the
		 * state holds only the active conditions of a summary. */
		return st->summary_only;
	store_interaction(c, &q, at);
	return true;
}

static bool
load_seen(struct state *st, const struct jval *list)
{
	uint8_t	 ident[16], content[16];
	size_t	 i;

	if (list->type != J_ARRAY)
		return false;
	for (i = 0; i < list->n; i++) {
		const struct jval *e = list->items[i];
		if (e->type != J_ARRAY || e->n != 3 ||
		    !is_hex(sv_json(e->items[0]), 32) ||
		    !is_hex(sv_json(e->items[1]), 32) ||
		    e->items[2]->type != J_NUMBER || !e->items[2]->integer)
			return false;
		hex_to_bytes(e->items[0]->s, ident, 16);
		hex_to_bytes(e->items[1]->s, content, 16);
		seen_add(st, ident, content, strtoll(e->items[2]->s, NULL, 10));
	}
	return true;
}

/* The members of a record, found in one pass. */
struct record_parts {
	const struct jval *seq, *at, *event, *notification, *interaction, *seen;
	bool header;
};

static void
record_parts(const struct jval *r, struct record_parts *p)
{
	static const struct {
		const char *name;
		size_t len, off;
	} names[] = {
		{ "seq", 3, offsetof(struct record_parts, seq) },
		{ "at", 2, offsetof(struct record_parts, at) },
		{ "event", 5, offsetof(struct record_parts, event) },
		{ "notification", 12, offsetof(struct record_parts, notification) },
		{ "interaction", 11, offsetof(struct record_parts, interaction) },
		{ "seen", 4, offsetof(struct record_parts, seen) },
	};
	size_t i, k;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < r->n; i++) {
		const struct jmember *m = &r->members[i];
		if (m->namelen == 11 && memcmp(m->name, "arc_journal", 11) == 0)
			p->header = true;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (names[k].len == m->namelen &&
			    memcmp(names[k].name, m->name, m->namelen) == 0) {
				*(const struct jval **)((char *)p +
				    names[k].off) = m->value;
				break;
			}
	}
}

static struct span
span_in(const char *line, uint64_t line_offset, const struct jval *v)
{
	struct span sp;

	sp.off = line_offset + (uint64_t)(v->raw - line);
	sp.len = (uint32_t)v->rawlen;
	return sp;
}

bool
state_load_record(struct state *st, struct arena *a, const char *line,
    size_t len, uint64_t line_offset)
{
	struct jparse_error	 e;
	struct jval		*r;
	struct record_parts	 p;
	struct rec		 nr;
	struct condition	*c;

	/* Records, their parts, members, and seen entries: no deeper. */
	if ((r = json_parse_shallow(a, line, len, &e, 3)) == NULL ||
	    r->type != J_OBJECT)
		return false;
	record_parts(r, &p);
	if (p.header)
		return true;
	if (p.seq == NULL || p.seq->type != J_NUMBER || !p.seq->integer ||
	    p.at == NULL || p.at->type != J_STRING)
		return false;
	st->seq = strtoull(p.seq->s, NULL, 10);
	if (p.event != NULL && !st->readers_only) {
		struct sv ident = sv_json(json_get(p.event, "ident"));
		struct sv hash = sv_json(json_get(p.event, "hash"));
		uint8_t ib[16], hb[16];
		if (!is_hex(ident, 32) || !is_hex(hash, 32))
			return false;
		hex_to_bytes(ident.p, ib, 16);
		hex_to_bytes(hash.p, hb, 16);
		seen_add(st, ib, hb, seconds_of(p.at->s, p.at->len));
	}
	if (p.notification != NULL) {
		if (!rec_from_jval(p.notification, false, &nr) ||
		    !record_sane(&nr, false))
			return false;
		c = lookup_or_add(st, nr.f[N_KEY]);
		/* A new lifecycle under the key drops the old question. */
		if (!same_lifecycle(c, nr.f[N_ID]))
			store_interaction(c, NULL, no_span);
		store_notification(c, &nr, span_in(line, line_offset,
		    p.notification));
	}
	if (p.interaction != NULL && !load_interaction(st, p.interaction,
	    span_in(line, line_offset, p.interaction)))
		return false;
	if (p.seen != NULL && !st->readers_only && !load_seen(st, p.seen))
		return false;
	return true;
}

/* ---- applying events ---- */

struct event {
	enum event_type		 type;
	const struct jval	*root, *sender, *context, *request, *spec;
	const struct jval	*response;
	struct sv		 event_id, key;
	bool			 keyless;
	char			 ident[ARC_HEX_DIGEST], hash[ARC_HEX_DIGEST];
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
	canonical_value(&b, root);
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
	q->f[I_STATUS] = sv_str(due(sp->expires_at, now) ? "expired" :
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

/* What one accepted event did, to be written as one journal record. */
struct change {
	struct rec	 n, q;
	bool		 has_n, has_q;
	struct sv	 superseded;	/* the id of a question it replaced */
	const char	*dismissed;	/* by whom, for a person's dismissal */
};

static void
change_question(struct change *ch, const struct rec *q)
{
	ch->q = *q;
	ch->has_q = true;
}

/* Turns a due pending question into an expired one; true when it did. */
static bool
settle_expiry(struct rec *q, const char *now)
{
	if (!sv_eq(q->f[I_STATUS], "pending") || !due(q->f[I_EXPIRES_AT], now))
		return false;
	q->f[I_STATUS] = sv_str("expired");
	q->f[I_UPDATED_AT] = sv_str(now);
	return true;
}

/*
 * Writes one record to the batch: the event that made the change (its
 * identity and content hash, 128 bits each, for idempotency), then the
 * condition's notification and current question as they now are; and
 * points the condition at them.
 */
static void
record_change(struct state *st, const struct event *ev, const char *now,
    const struct change *ch, struct buf *out)
{
	struct condition	*c;
	struct span		 ns = no_span, qs = no_span;
	size_t			 start;

	st->batch = out;
	buf_printf(out, "{\"seq\":%llu,\"at\":", (unsigned long long)++st->seq);
	buf_json_cstr(out, now);
	if (ev != NULL) {
		struct sv sender = sv_json(json_get(ev->sender, "id"));
		struct sv type = sv_json(json_get(ev->root, "event_type"));
		buf_puts(out, ",\"event\":{\"ident\":");
		buf_json_str(out, ev->ident, 32);
		buf_puts(out, ",\"hash\":");
		buf_json_str(out, ev->hash, 32);
		buf_puts(out, ",\"sender\":");
		buf_json_str(out, sender.p, sender.n);
		buf_puts(out, ",\"event_id\":");
		buf_json_str(out, ev->event_id.p, ev->event_id.n);
		buf_puts(out, ",\"type\":");
		buf_json_str(out, type.p, type.n);
		buf_putc(out, '}');
	}
	if (ch->has_n) {
		buf_puts(out, ",\"notification\":");
		start = out->len;
		rec_write(out, &ch->n, false, false);
		ns.off = IN_BATCH | start;
		ns.len = (uint32_t)(out->len - start);
	}
	if (ch->has_q) {
		buf_puts(out, ",\"interaction\":");
		start = out->len;
		rec_write(out, &ch->q, true, false);
		qs.off = IN_BATCH | start;
		qs.len = (uint32_t)(out->len - start);
	}
	if (ch->superseded.p != NULL) {
		buf_puts(out, ",\"superseded\":");
		buf_json_str(out, ch->superseded.p, ch->superseded.n);
	}
	if (ch->dismissed != NULL) {
		buf_puts(out, ",\"dismissed\":");
		buf_json_cstr(out, ch->dismissed);
	}
	buf_puts(out, "}\n");

	if (ch->has_n) {
		c = lookup_or_add(st, ch->n.f[N_KEY]);
		if (!same_lifecycle(c, ch->n.f[N_ID]))
			store_interaction(c, NULL, no_span);
		store_notification(c, &ch->n, ns);
		touch(st, c);
	}
	if (ch->has_q) {
		c = lookup_sv(st, ch->q.f[I_KEY]);
		store_interaction(c, &ch->q, qs);
		touch(st, c);
	}
}

/*
 * The result body: the change's own records where it has them, the stored
 * ones otherwise (an empty change, for a replay, takes them all stored).
 */
static void
body_of_change(struct state *st, struct buf *body, struct arena *a,
    struct sv key, const struct change *ch)
{
	const struct condition *c = lookup_sv(st, key);

	buf_puts(body, "\"key\":");
	buf_json_str(body, key.p, key.n);
	buf_puts(body, ",\"notification\":");
	if (ch->has_n)
		rec_write(body, &ch->n, false, true);
	else
		record_write_full(body, a, c != NULL ? condition_text(st, a, c,
		    false) : NULL, false);
	buf_puts(body, ",\"interaction\":");
	if (ch->has_q)
		rec_write(body, &ch->q, true, true);
	else
		record_write_full(body, a, c != NULL ? condition_text(st, a, c,
		    true) : NULL, true);
}

static void
reject(struct applied *res, struct buf *body, struct sv key,
    enum arc_code code, const char *path, const char *state,
    const char *message)
{
	res->code = code;
	res->path = path;
	res->status = arc_code_status(code);
	res->state = state;
	strlcpy(res->message, message, sizeof(res->message));
	buf_puts(body, "\"key\":");
	buf_json_str(body, key.p, key.n);
	buf_puts(body, ",\"error\":{\"code\":");
	buf_json_cstr(body, arc_code_name(code));
	buf_puts(body, ",\"message\":");
	buf_json_cstr(body, message);
	buf_puts(body, ",\"path\":");
	buf_json_cstr(body, path);
	if (state != NULL) {
		buf_puts(body, ",\"state\":");
		buf_json_cstr(body, state);
	}
	buf_putc(body, '}');
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
	if (has_q && settle_expiry(q, now))
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
	if (settle_expiry(q, now)) {
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
answer(struct arena *a, const struct event *ev, struct condition *c,
    struct rec *n, struct rec *q, bool has_q, const char *now,
    struct change *ch, struct buf *body, struct applied *res)
{
	const struct jval	*r = ev->response;
	struct sv		 nonce = sv_json(json_get(r, "nonce"));
	struct sv		 digest = sv_json(json_get(r, "digest"));
	const char		*problem;
	struct buf		 b = { 0 };
	const struct jval	*v;

	if (c == NULL || !has_q) {
		reject(res, body, ev->key, ARC_NOT_FOUND, "/request/key", NULL,
		    "no question under this key");
		return;
	}
	(void)settle_expiry(q, now);	/* judged, not written, if rejected */
	if (sv_eq(q->f[I_STATUS], "answered")) {
		if (same_answer(a, q->f[I_RESPONSE], r)) {
			res->replayed = true;
			return;
		}
		reject(res, body, ev->key, ARC_CONFLICT,
		    "/response/response_id", NULL,
		    "the question is already answered");
		return;
	}
	if (!sv_eq(q->f[I_STATUS], "pending")) {
		reject(res, body, ev->key, ARC_NOT_OPEN, "/request/key",
		    sv_cstr(a, q->f[I_STATUS]), "the question is not open");
		return;
	}
	if (!sv_same(digest, q->f[I_DIGEST])) {
		reject(res, body, ev->key, ARC_DIGEST_MISMATCH,
		    "/response/digest", NULL,
		    "the answer is for a question that has since changed");
		return;
	}
	if (nonce.p == NULL || !secret_equal(nonce.p, nonce.n,
	    q->f[I_NONCE].p, q->f[I_NONCE].n)) {
		reject(res, body, ev->key, ARC_NONCE_MISMATCH,
		    "/response/nonce", NULL,
		    "the answer does not carry the question's nonce");
		return;
	}
	if ((problem = answer_shape_problem(a, q, r)) != NULL) {
		reject(res, body, ev->key, ARC_INVALID_ANSWER,
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

void
state_apply(struct state *st, struct arena *a, const struct jval *root,
    const char *now, struct buf *records, struct buf *body,
    struct applied *res)
{
	struct event		 ev;
	struct condition	*c;
	struct rec		 n, q;
	struct change		 ch;
	struct seen		*seen;
	bool			 has_n = false, has_q = false;
	uint8_t			 ident[16], content[16];

	memset(res, 0, sizeof(*res));
	memset(&ch, 0, sizeof(ch));
	event_read(a, root, &ev);
	hex_to_bytes(ev.ident, ident, 16);
	hex_to_bytes(ev.hash, content, 16);
	c = lookup_sv(st, ev.key);

	/* The same sender and event_id: a retry, or a reused id. */
	if ((seen = seen_find(st, ident)) != NULL) {
		if (memcmp(seen->content, content, 16) != 0) {
			reject(res, body, ev.key, ARC_CONFLICT, "/event_id",
			    NULL, "event_id was already used for a different "
			    "event");
			return;
		}
		res->status = 200;
		res->replayed = true;
		body_of_change(st, body, a, ev.key, &ch);
		return;
	}
	/* A keyless creation replays for ever, past the idempotency window. */
	if (ev.keyless && c != NULL) {
		res->status = 200;
		res->replayed = true;
		body_of_change(st, body, a, ev.key, &ch);
		return;
	}
	if (c != NULL) {
		const char *qt = condition_text(st, a, c, true);
		has_n = rec_parse(a, condition_text(st, a, c, false), false, &n);
		has_q = qt != NULL && rec_parse(a, qt, true, &q);
		if (!has_n)
			errx(EXIT_SYSTEM, "internal error: unreadable record");
	}
	res->status = 200;
	switch (ev.type) {
	case EV_CREATED:
		if (has_n && sv_eq(n.f[N_STATUS], "active")) {
			update_condition(a, &ev, &n, &q, has_q, now, &ch);
		} else {
			create_condition(a, &ev, now, &ch);
			res->status = 201;
		}
		break;
	case EV_UPDATED:
		if (!has_n || !sv_eq(n.f[N_STATUS], "active")) {
			reject(res, body, ev.key, ARC_NOT_FOUND, "/request/key",
			    NULL, "no active condition under this key");
			return;
		}
		update_condition(a, &ev, &n, &q, has_q, now, &ch);
		break;
	case EV_RESOLVED:
		if (!has_n) {
			reject(res, body, ev.key, ARC_NOT_FOUND, "/request/key",
			    NULL, "no condition under this key");
			return;
		}
		if (sv_eq(n.f[N_STATUS], "active"))
			resolve_condition(&ev, &n, &q, has_q, now, &ch);
		break;	/* already resolved: idempotent */
	case EV_SUBMITTED:
		answer(a, &ev, c, &n, &q, has_q, now, &ch, body, res);
		if (res->code != ARC_OK)
			return;
		break;
	default:
		errx(EXIT_SYSTEM, "internal error: unvalidated event");
	}
	/* Accepted: remembered, recorded, and made the current state. */
	record_change(st, &ev, now, &ch, records);
	seen_add(st, ident, content, seconds_of(now, strlen(now)));
	res->changed = true;
	body_of_change(st, body, a, ev.key, &ch);
}

bool
state_expire(struct state *st, struct arena *a, const char *key,
    const char *now, struct buf *records)
{
	struct condition	*c = state_lookup(st, key);
	struct change		 ch;
	struct rec		 q;

	if (c == NULL || c->interaction.len == 0 ||
	    condition_qstatus(c, now) != Q_EXPIRED || c->qstatus != Q_PENDING)
		return false;
	if (!rec_parse(a, condition_text(st, a, c, true), true, &q))
		errx(EXIT_SYSTEM, "internal error: unreadable record");
	memset(&ch, 0, sizeof(ch));
	if (!settle_expiry(&q, now))
		return false;
	change_question(&ch, &q);
	record_change(st, NULL, now, &ch, records);
	return true;
}

/*
 * A person dismisses a condition nobody will resolve: a notice, or one
 * whose question is no longer pending.  A consumer-made resolution, like
 * an expiry: the record carries no event, and "dismissed" says who.
 */
enum dismissal
state_dismiss(struct state *st, struct arena *a, const char *key,
    const char *now, const char *source, struct buf *records)
{
	struct condition	*c = state_lookup(st, key);
	struct change		 ch;
	struct rec		 n, q;

	if (c == NULL || c->notification.len == 0)
		return DISMISS_NOT_FOUND;
	if (!c->active)
		return DISMISS_NOT_ACTIVE;
	if (condition_qstatus(c, now) == Q_PENDING)
		return DISMISS_PENDING;
	if (!rec_parse(a, condition_text(st, a, c, false), false, &n))
		errx(EXIT_SYSTEM, "internal error: unreadable record");
	memset(&ch, 0, sizeof(ch));
	n.f[N_STATUS] = sv_str("resolved");
	n.f[N_OUTCOME] = sv_str("not_needed");
	if (c->interaction.len > 0) {
		if (!rec_parse(a, condition_text(st, a, c, true), true, &q))
			errx(EXIT_SYSTEM, "internal error: unreadable record");
		if (settle_expiry(&q, now))
			change_question(&ch, &q);
		if (sv_eq(q.f[I_STATUS], "expired"))
			n.f[N_OUTCOME] = sv_str("expired");
		else if (sv_eq(q.f[I_STATUS], "answered"))
			n.f[N_OUTCOME] = sv_str("answered");
	}
	n.f[N_RESOLVED_AT] = sv_str(now);
	n.f[N_UPDATED_AT] = sv_str(now);
	ch.n = n;
	ch.has_n = true;
	ch.dismissed = source != NULL ? source : "cli";
	record_change(st, NULL, now, &ch, records);
	return DISMISS_OK;
}

/* ---- compaction ---- */

struct compact_ctx {
	struct state	*st;
	struct arena	*arena;
	const char	*now;
	struct buf	*out;
};

static void
compact_condition(const struct condition *c, void *arg)
{
	struct compact_ctx *cx = arg;

	buf_printf(cx->out, "{\"seq\":%llu,\"at\":",
	    (unsigned long long)++cx->st->seq);
	buf_json_cstr(cx->out, cx->now);
	arena_reset(cx->arena);
	buf_puts(cx->out, ",\"notification\":");
	buf_puts(cx->out, condition_text(cx->st, cx->arena, c, false));
	if (c->interaction.len > 0) {
		buf_puts(cx->out, ",\"interaction\":");
		buf_puts(cx->out, condition_text(cx->st, cx->arena, c, true));
	}
	buf_puts(cx->out, "}\n");
}

void
state_compact(struct state *st, struct arena *a, const char *now,
    int64_t window, struct buf *out)
{
	struct compact_ctx	 cx = { st, a, now, out };
	int64_t			 since = seconds_of(now, strlen(now)) - window;
	size_t			 i, k, in_chunk = 0;
	static const char	 hex[] = "0123456789abcdef";

	buf_puts(out, JOURNAL_HEADER "\n");
	state_foreach(st, compact_condition, &cx);
	for (i = 0; i < st->seen_cap; i++) {
		const struct seen *s = &st->seen[i];
		char h[33], c[33];
		if (!seen_used(s) || s->at < since)
			continue;
		for (k = 0; k < 16; k++) {
			h[2 * k] = hex[s->ident[k] >> 4];
			h[2 * k + 1] = hex[s->ident[k] & 15];
			c[2 * k] = hex[s->content[k] >> 4];
			c[2 * k + 1] = hex[s->content[k] & 15];
		}
		h[32] = c[32] = '\0';
		if (in_chunk == 0) {
			buf_printf(out, "{\"seq\":%llu,\"at\":",
			    (unsigned long long)++st->seq);
			buf_json_cstr(out, now);
			buf_puts(out, ",\"seen\":[");
		} else {
			buf_putc(out, ',');
		}
		buf_printf(out, "[\"%s\",\"%s\",%lld]", h, c,
		    (long long)s->at);
		if (++in_chunk == 512) {
			buf_puts(out, "]}\n");
			in_chunk = 0;
		}
	}
	if (in_chunk > 0)
		buf_puts(out, "]}\n");
}
