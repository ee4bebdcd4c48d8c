/*
 * Conditions in memory: the table of conditions by key, the index of
 * events seen, replaying the journal's records into them, the records that
 * carry each accepted change (ARC's rules, in arcrules.c, decide the
 * change), compaction's choice of what stays, and a mirror's conditions.
 */
#include <err.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcstate.h"
#include "arcrules.h"

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
	uint64_t		  seq;		/* of the last record */
	uint64_t		  durable;	/* records up to it are synced */
	bool			  check_seq;	/* each record's seq is one more */
	char			  latest[64];	/* the latest recorded time */
	struct arc_instant	  latest_t;	/* the same, parsed */
	uint64_t		  span_bytes;	/* of the current records */
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
		if (st->slots[i].c != NULL) {
			free(st->slots[i].c->expires_at);
			free(st->slots[i].c->dismissed);
		}
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
state_find(struct state *st, struct sv key)
{
	return lookup_sv(st, key);
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

static int64_t
seconds_of(const char *s, size_t n)
{
	struct arc_instant t;

	return rfc3339_parse(s, n, &t) ? t.seconds : 0;
}

static void
store_notification(struct state *st, struct condition *c,
    const struct rec *n, struct span at)
{
	st->span_bytes += at.len;
	st->span_bytes -= c->notification.len;
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
store_interaction(struct state *st, struct condition *c, const struct rec *q,
    struct span at)
{
	st->span_bytes += at.len;
	st->span_bytes -= c->interaction.len;
	free(c->expires_at);
	c->expires_at = NULL;
	c->interaction = at;
	c->qstatus = q != NULL ? qstatus_of(q->f[I_STATUS]) : Q_NONE;
	if (c->qstatus == Q_PENDING && q->f[I_EXPIRES_AT].p != NULL)
		c->expires_at = xstrndup(q->f[I_EXPIRES_AT].p,
		    q->f[I_EXPIRES_AT].n);
}

static const struct span no_span = { 0, 0 };

/* Who dismissed a condition: set by its dismissal, cleared by any change. */
static void
set_dismissed(struct condition *c, struct sv by)
{
	free(c->dismissed);
	c->dismissed = by.p != NULL ? xstrndup(by.p, by.n) : NULL;
}

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
void
hex_bytes(const char *hex, uint8_t *out, size_t n)
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

enum seen_as
state_seen(struct state *st, const uint8_t ident[16],
    const uint8_t content[16])
{
	struct seen *s = seen_find(st, ident);

	if (s == NULL)
		return SEEN_NONE;
	return memcmp(s->content, content, 16) == 0 ? SEEN_SAME : SEEN_OTHER;
}

void
state_remember(struct state *st, const uint8_t ident[16],
    const uint8_t content[16], const char *now)
{
	seen_add(st, ident, content, seconds_of(now, strlen(now)));
}

/* ---- the journal's clock and sequence ---- */

/* Recorded time never runs backwards: the latest time seen is kept. */
static void
note_time(struct state *st, const char *t, size_t n,
    const struct arc_instant *at)
{
	if (n >= sizeof(st->latest) || (st->latest[0] != '\0' &&
	    instant_cmp(&st->latest_t, at) >= 0))
		return;
	memcpy(st->latest, t, n);
	st->latest[n] = '\0';
	st->latest_t = *at;
	st->latest_t.fraction = st->latest + (at->fraction - t);
}

/* The time of a change: now, unless the journal has recorded later. */
const char *
state_clock(struct state *st, const char *now)
{
	if (st->latest[0] != '\0' && rfc3339_cmp(st->latest, now) > 0)
		return st->latest;
	return now;
}

void
state_set_seq(struct state *st, uint64_t seq, bool check)
{
	st->seq = seq;
	st->durable = seq;
	st->check_seq = check;
}

uint64_t
state_seq(const struct state *st)
{
	return st->seq;
}

/* Every record up to the last one is on disk (synced by us or seen so). */
void
state_all_durable(struct state *st)
{
	st->durable = st->seq;
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
load_interaction(struct state *st, const struct jval *v, struct span at,
    int64_t changed)
{
	struct condition	*c;
	struct rec		 q;

	if (!rec_from_jval(v, true, &q) || !record_sane(&q, true))
		return false;
	if ((c = lookup_sv(st, q.f[I_KEY])) == NULL)
		return false;	/* a question before its condition */
	store_interaction(st, c, &q, at);
	c->changed = changed;
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
		hex_bytes(e->items[0]->s, ident, 16);
		hex_bytes(e->items[1]->s, content, 16);
		seen_add(st, ident, content, strtoll(e->items[2]->s, NULL, 10));
	}
	return true;
}

/* The members of a record, found in one pass. */
struct record_parts {
	const struct jval *seq, *at, *event, *notification, *interaction, *seen;
	const struct jval *since, *dismissed;
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
		{ "since", 5, offsetof(struct record_parts, since) },
		{ "dismissed", 9, offsetof(struct record_parts, dismissed) },
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
	struct arc_instant	 at;
	uint64_t		 seq;
	int64_t			 changed;

	/* Records, their parts, members, and seen entries: no deeper. */
	if ((r = json_parse_shallow(a, line, len, &e, 3)) == NULL ||
	    r->type != J_OBJECT)
		return false;
	record_parts(r, &p);
	if (p.header)
		return true;
	if (p.seq == NULL || p.seq->type != J_NUMBER || !p.seq->integer ||
	    p.at == NULL || p.at->type != J_STRING ||
	    !rfc3339_parse(p.at->s, p.at->len, &at) || p.seq->s[0] == '-')
		return false;
	errno = 0;
	seq = strtoull(p.seq->s, NULL, 10);
	/* A record missing before this one, or one repeated, is damage. */
	if (errno != 0 || (st->check_seq && seq != st->seq + 1))
		return false;
	st->seq = seq;
	note_time(st, p.at->s, p.at->len, &at);
	/* When its condition last changed: now, or before a compaction. */
	changed = p.since != NULL && p.since->type == J_NUMBER &&
	    p.since->integer && p.since->len < 19 ?
	    strtoll(p.since->s, NULL, 10) : at.seconds;
	if (p.event != NULL && !st->readers_only) {
		struct sv ident = sv_json(json_get(p.event, "ident"));
		struct sv hash = sv_json(json_get(p.event, "hash"));
		uint8_t ib[16], hb[16];
		if (!is_hex(ident, 32) || !is_hex(hash, 32))
			return false;
		hex_bytes(ident.p, ib, 16);
		hex_bytes(hash.p, hb, 16);
		seen_add(st, ib, hb, seconds_of(p.at->s, p.at->len));
	}
	if (p.notification != NULL) {
		if (!rec_from_jval(p.notification, false, &nr) ||
		    !record_sane(&nr, false))
			return false;
		c = lookup_or_add(st, nr.f[N_KEY]);
		/* A new lifecycle under the key drops the old question. */
		if (!same_lifecycle(c, nr.f[N_ID]))
			store_interaction(st, c, NULL, no_span);
		store_notification(st, c, &nr, span_in(line, line_offset,
		    p.notification));
		c->changed = changed;
		set_dismissed(c, p.dismissed != NULL &&
		    p.dismissed->type == J_STRING ? sv_json(p.dismissed) :
		    (struct sv){ NULL, 0 });
	}
	if (p.interaction != NULL && !load_interaction(st, p.interaction,
	    span_in(line, line_offset, p.interaction), changed))
		return false;
	if (p.seen != NULL && !st->readers_only && !load_seen(st, p.seen))
		return false;
	return true;
}

/* ---- records of changes ---- */

/*
 * Writes one record to the batch: the event that made the change (its
 * identity and content hash, 128 bits each, for idempotency), if any, the
 * condition's notification and current question as they now are; and
 * points the condition at them.
 */
void
state_record(struct state *st, const char *now, const struct change *ch,
    struct buf *out)
{
	struct condition	*c;
	struct span		 ns = no_span, qs = no_span;
	struct arc_instant	 at;
	size_t			 start, record = out->len;

	st->batch = out;
	buf_printf(out, "{\"seq\":%llu,\"durable\":%llu,\"at\":",
	    (unsigned long long)++st->seq, (unsigned long long)st->durable);
	buf_json_cstr(out, now);
	if (!rfc3339_parse(now, strlen(now), &at))
		errx(EXIT_SYSTEM, "internal error: an invalid time");
	note_time(st, now, strlen(now), &at);
	if (ch->ident != NULL) {
		buf_puts(out, ",\"event\":{\"ident\":");
		buf_json_str(out, ch->ident, 32);
		buf_puts(out, ",\"hash\":");
		buf_json_str(out, ch->hash, 32);
		buf_puts(out, ",\"sender\":");
		buf_json_str(out, ch->sender.p, ch->sender.n);
		buf_puts(out, ",\"event_id\":");
		buf_json_str(out, ch->event_id.p, ch->event_id.n);
		buf_puts(out, ",\"type\":");
		buf_json_str(out, ch->type.p, ch->type.n);
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
	record_seal(out, record);

	if (ch->has_n) {
		c = lookup_or_add(st, ch->n.f[N_KEY]);
		if (!same_lifecycle(c, ch->n.f[N_ID]))
			store_interaction(st, c, NULL, no_span);
		store_notification(st, c, &ch->n, ns);
		c->changed = at.seconds;
		set_dismissed(c, sv_str(ch->dismissed));
		touch(st, c);
	}
	if (ch->has_q) {
		c = lookup_sv(st, ch->q.f[I_KEY]);
		store_interaction(st, c, &ch->q, qs);
		c->changed = at.seconds;
		touch(st, c);
	}
}

/*
 * The result body: the change's own records where it has them, the stored
 * ones otherwise (an empty change, for a replay, takes them all stored).
 */
void
state_body(struct state *st, struct buf *body, struct arena *a,
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

/* Whether a condition's stored record is this one, as it would be written. */
static bool
same_text(struct state *st, struct arena *a, const struct condition *c,
    const struct rec *r, bool interaction)
{
	const char	*stored = condition_text(st, a, c, interaction);
	struct buf	 b = { 0 };
	bool		 same;

	rec_write(&b, r, interaction, false);
	same = stored != NULL && strlen(stored) == b.len &&
	    memcmp(stored, b.p, b.len) == 0;
	buf_free(&b);
	return same;
}

/*
 * A mirror of another host's conditions (arc-apply --mirror): a condition
 * as that host published it replaces ours under its key, its nonce and
 * digest kept, so that arc-status shows it and arc-answer can answer it
 * through the host.  Removal resolves it.  false, with *why, for a line
 * that is not a condition.
 */
bool
state_mirror(struct state *st, struct arena *a, const struct jval *v,
    const char *now, struct buf *records, const char **why)
{
	const struct jval	*nv = json_get(v, "notification");
	const struct jval	*qv = json_get(v, "interaction");
	const struct jval	*removed = json_get(v, "removed");
	struct condition	*c;
	struct change		 ch;
	struct rec		 n;

	memset(&ch, 0, sizeof(ch));
	now = state_clock(st, now);
	if (removed != NULL && removed->type == J_TRUE) {
		const struct jval *key = json_get(v, "key");
		if (key == NULL || key->type != J_STRING) {
			*why = "/key: a removal names its key";
			return false;
		}
		c = lookup_sv(st, sv_json(key));
		if (c == NULL || c->notification.len == 0 || !c->active)
			return true;	/* nothing to remove */
		if (!rec_parse(a, condition_text(st, a, c, false), false, &n))
			errx(EXIT_SYSTEM, "internal error: unreadable record");
		n.f[N_STATUS] = sv_str("resolved");
		n.f[N_RESOLVED_AT] = sv_str(now);
		ch.n = n;
		ch.has_n = true;
		state_record(st, now, &ch, records);
		return true;
	}
	if (!rec_from_jval(nv, false, &ch.n) || !record_sane(&ch.n, false) ||
	    ch.n.f[N_KEY].p == NULL || ch.n.f[N_ID].p == NULL) {
		*why = "/notification: not a notification record";
		return false;
	}
	ch.has_n = true;
	if (qv != NULL && qv->type != J_NULL) {
		if (!rec_from_jval(qv, true, &ch.q) ||
		    !record_sane(&ch.q, true) ||
		    !sv_same(ch.q.f[I_KEY], ch.n.f[N_KEY])) {
			*why = "/interaction: not an interaction record of "
			    "this key";
			return false;
		}
		ch.has_q = true;
	}
	/* The same condition again (a broker redelivers): nothing to record. */
	c = lookup_sv(st, ch.n.f[N_KEY]);
	if (c != NULL && same_text(st, a, c, &ch.n, false) &&
	    (ch.has_q ? same_text(st, a, c, &ch.q, true) :
	    c->interaction.len == 0))
		return true;
	state_record(st, now, &ch, records);
	return true;
}

/* ---- compaction and retention ---- */

/*
 * A condition leaves the live journal once nothing in it is pending and it
 * has not changed for retain seconds: resolved, answered, expired,
 * withdrawn, or a notice nobody resolved.  A pending question stays for as
 * long as it is pending; past its deadline it counts as expired from then.
 */
bool
condition_retired(const struct condition *c, const char *now, int64_t retain)
{
	int64_t last = c->changed, at = seconds_of(now, strlen(now));

	switch (condition_qstatus(c, now)) {
	case Q_PENDING:
		return false;
	case Q_EXPIRED:
		if (c->expires_at != NULL) {
			int64_t due = seconds_of(c->expires_at,
			    strlen(c->expires_at));
			if (due > last)
				last = due;
		}
		break;
	default:
		break;
	}
	return last <= at - retain;
}

/* What a kept condition and a remembered event cost in a record. */
#define RECORD_OVERHEAD	96
#define SEEN_BYTES	88

uint64_t
state_live_bytes(struct state *st, const char *now, int64_t retain,
    int64_t window, bool all)
{
	int64_t		 since = seconds_of(now, strlen(now)) - window;
	uint64_t	 bytes = 0;
	size_t		 i;

	if (!all)
		return st->span_bytes + (uint64_t)st->count * RECORD_OVERHEAD +
		    (uint64_t)st->seen_count * SEEN_BYTES;
	for (i = 0; i < st->cap; i++) {
		const struct condition *c = st->slots[i].c;
		if (c != NULL && !condition_retired(c, now, retain))
			bytes += (uint64_t)c->notification.len +
			    c->interaction.len + RECORD_OVERHEAD;
	}
	for (i = 0; i < st->seen_cap; i++)
		if (seen_used(&st->seen[i]) && st->seen[i].at >= since)
			bytes += SEEN_BYTES;
	return bytes;
}

#define FLUSH_AT	(1024 * 1024)

static bool
compact_flush(const struct compaction *cp, struct buf *out, bool last)
{
	if (!last && out->len < FLUSH_AT)
		return true;
	if (!cp->flush(out, cp->arg))
		return false;
	out->len = 0;
	return true;
}

/* A record's text copied into the compaction, from the map when it can. */
static void
put_text(struct state *st, struct arena *a, const struct compaction *cp,
    struct buf *out, const struct condition *c, bool interaction)
{
	const struct span *sp = interaction ? &c->interaction :
	    &c->notification;

	if (cp->map != NULL && !(sp->off & IN_BATCH) &&
	    sp->off + sp->len <= cp->maplen)
		buf_put(out, cp->map + sp->off, sp->len);
	else
		buf_puts(out, condition_text(st, a, c, interaction));
}

/* One record a kept condition: its notification and its question. */
static bool
compact_conditions(struct state *st, struct arena *a,
    const struct compaction *cp, struct buf *out, uint64_t durable)
{
	size_t i, start;

	for (i = 0; i < st->cap; i++) {
		const struct condition *c = st->slots[i].c;
		if (c == NULL || c->notification.len == 0 ||
		    condition_retired(c, cp->now, cp->retain))
			continue;
		arena_reset(a);
		start = out->len;
		buf_printf(out, "{\"seq\":%llu,\"durable\":%llu,\"at\":",
		    (unsigned long long)++st->seq,
		    (unsigned long long)durable);
		buf_json_cstr(out, cp->at);
		buf_printf(out, ",\"since\":%lld", (long long)c->changed);
		buf_puts(out, ",\"notification\":");
		put_text(st, a, cp, out, c, false);
		if (c->interaction.len > 0) {
			buf_puts(out, ",\"interaction\":");
			put_text(st, a, cp, out, c, true);
		}
		if (c->dismissed != NULL) {
			buf_puts(out, ",\"dismissed\":");
			buf_json_cstr(out, c->dismissed);
		}
		record_seal(out, start);
		if (!compact_flush(cp, out, false))
			return false;
	}
	return true;
}

/* The events seen within the window, 512 a record. */
static bool
compact_seen(struct state *st, const struct compaction *cp, struct buf *out,
    uint64_t durable)
{
	static const char	 hex[] = "0123456789abcdef";
	int64_t			 since = seconds_of(cp->now, strlen(cp->now)) -
	    cp->window;
	size_t			 i, k, in_chunk = 0, start = 0;

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
			start = out->len;
			buf_printf(out, "{\"seq\":%llu,\"durable\":%llu,"
			    "\"at\":", (unsigned long long)++st->seq,
			    (unsigned long long)durable);
			buf_json_cstr(out, cp->at);
			buf_puts(out, ",\"seen\":[");
		} else {
			buf_putc(out, ',');
		}
		buf_printf(out, "[\"%s\",\"%s\",%lld]", h, c,
		    (long long)s->at);
		if (++in_chunk == 512) {
			buf_putc(out, ']');
			record_seal(out, start);
			in_chunk = 0;
			if (!compact_flush(cp, out, false))
				return false;
		}
	}
	if (in_chunk > 0) {
		buf_putc(out, ']');
		record_seal(out, start);
	}
	return true;
}

/*
 * Writes, after the header the journal wrote into *out, what the state
 * keeps; the records go on numbering from the last one, and each is as
 * durable as the whole file will be when it is renamed into place.
 */
bool
state_compact(struct state *st, struct arena *a, const struct compaction *cp,
    struct buf *out)
{
	uint64_t durable = st->seq;

	return compact_conditions(st, a, cp, out, durable) &&
	    compact_seen(st, cp, out, durable) &&
	    compact_flush(cp, out, true);
}
