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
	struct buf		  scratch;	/* a record's parts, aside */
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
			free(st->slots[i].c->route);
		}
	arena_free(&st->pool);
	free(st->slots);
	free(st->seen);
	free(st->touched);
	buf_free(&st->scratch);
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

/* A writer's index of events, sized for about n of them from the start. */
static void
seen_presize(struct state *st, uint64_t n)
{
	size_t cap = 1024;

	if (st->readers_only || st->seen != NULL)
		return;
	while (cap < SIZE_MAX / 4 && (uint64_t)cap * 3 < n * 4)
		cap *= 2;
	if ((st->seen = calloc(cap, sizeof(*st->seen))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	st->seen_cap = cap;
}

/*
 * Room for n conditions or events at once: a checkpoint's come in the
 * order of a table's slots, which a table growing as they come would
 * pile into one run.
 */
void
state_reserve(struct state *st, size_t conditions, size_t events)
{
	while (conditions < SIZE_MAX / 8 &&
	    (conditions + 1) * 4 > st->cap * 3)
		grow_conditions(st);
	if (events > 0)
		seen_presize(st, (uint64_t)events + 1);
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
	seen_presize(st, bytes / 1024);
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

static void
span_stored(struct span *sp, uint64_t base)
{
	if (sp->off & IN_BATCH) {
		sp->off = base + (sp->off & ~IN_BATCH);
		sp->line = base + (sp->line & ~IN_BATCH);
	}
}

void
state_batch_stored(struct state *st, uint64_t base)
{
	size_t i;

	for (i = 0; i < st->ntouched; i++) {
		struct condition *c = st->touched[i];
		span_stored(&c->notification, base);
		span_stored(&c->interaction, base);
	}
	st->ntouched = 0;
}

/* Reads len bytes at off of the journal, whole. */
static void
read_at(struct state *st, char *to, size_t len, uint64_t off)
{
	size_t	got = 0;
	ssize_t	n;

	while (got < len) {
		n = pread(st->fd, to + got, len - got, (off_t)(off + got));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			errx(EXIT_SYSTEM, "the journal changed under us "
			    "(reading byte %llu)", (unsigned long long)off);
		got += (size_t)n;
	}
}

const char *
condition_text(struct state *st, struct arena *a, const struct condition *c,
    bool interaction)
{
	const struct span	*sp = interaction ? &c->interaction :
	    &c->notification;
	char			*t, *line;

	if (sp->len == 0)
		return NULL;
	t = arena_alloc(a, (size_t)sp->len + 1);
	if (sp->off & IN_BATCH) {
		memcpy(t, st->batch->p + (sp->off & ~IN_BATCH), sp->len);
	} else if (sp->unchecked) {
		/* A checkpoint's: its record's checksum, before any use. */
		line = arena_alloc(a, (size_t)sp->line_len);
		read_at(st, line, sp->line_len, sp->line);
		if (!record_frame_ok(line, sp->line_len))
			errx(EXIT_SYSTEM, "the journal has a damaged record "
			    "at byte %llu", (unsigned long long)sp->line);
		memcpy(t, line + (sp->off - sp->line), sp->len);
	} else {
		read_at(st, t, sp->len, sp->off);
	}
	t[sp->len] = '\0';
	return t;
}

/*
 * A condition's notification or question as stored, parsed; its text
 * returned.  The caller knows the condition has that part.  A stored text
 * that does not parse is a damaged journal: exit 3, naming its byte.
 */
const char *
condition_rec(struct state *st, struct arena *a, const struct condition *c,
    bool interaction, struct rec *r)
{
	const struct span	*sp = interaction ? &c->interaction :
	    &c->notification;
	const char		*t = condition_text(st, a, c, interaction);

	if (t == NULL)
		errx(EXIT_SYSTEM, "internal error: a condition without its %s",
		    interaction ? "question" : "notification");
	if (!rec_parse(a, t, interaction, r))
		errx(EXIT_SYSTEM, "the journal has a damaged record at byte "
		    "%llu (its text does not parse)",
		    (unsigned long long)(sp->off & ~IN_BATCH));
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
    const struct record_index *ix, struct span at)
{
	st->span_bytes += at.len;
	st->span_bytes -= c->notification.len;
	c->notification = at;
	c->active = ix->active;
	c->priority = ix->priority;
	if (ix->notification_id.n < sizeof(c->notification_id)) {
		memcpy(c->notification_id, ix->notification_id.p,
		    ix->notification_id.n);
		c->notification_id[ix->notification_id.n] = '\0';
	} else {
		c->notification_id[0] = '\0';	/* never one of ours */
	}
}

/* ix NULL: the condition has no question (a new lifecycle began). */
static void
store_interaction(struct state *st, struct condition *c,
    const struct record_index *ix, struct span at)
{
	st->span_bytes += at.len;
	st->span_bytes -= c->interaction.len;
	free(c->expires_at);
	c->expires_at = NULL;
	c->interaction = at;
	c->qstatus = ix != NULL ? ix->qstatus : Q_NONE;
	c->due = 0;
	if (c->qstatus == Q_PENDING && ix->expires_at.p != NULL) {
		c->expires_at = xstrndup(ix->expires_at.p, ix->expires_at.n);
		c->due = ix->due;
	}
}

static const struct span no_span = { 0, 0, 0, 0, false };

/* Who dismissed a condition: set by its dismissal, cleared by any change. */
static void
set_dismissed(struct condition *c, struct sv by)
{
	free(c->dismissed);
	c->dismissed = by.p != NULL ? xstrndup(by.p, by.n) : NULL;
}

/* A mirror's route: kept by every record of its notification. */
static void
set_route(struct condition *c, struct sv route)
{
	char *old = c->route;	/* route may be the old one */

	c->route = route.p != NULL ? xstrndup(route.p, route.n) : NULL;
	free(old);
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

/* The seconds of now, parsed once for the run of calls that share it. */
static int64_t
now_seconds(const char *now)
{
	static char	 last[64];
	static int64_t	 seconds;

	if (strcmp(now, last) != 0) {
		seconds = seconds_of(now, strlen(now));
		(void)strlcpy(last, now, sizeof(last));
	}
	return seconds;
}

/*
 * A pending question whose deadline is at or before now counts as
 * expired: the deadline in seconds decides, its text within the second.
 */
enum qstatus
condition_qstatus(const struct condition *c, const char *now)
{
	int64_t at;

	if (c->qstatus != Q_PENDING || c->expires_at == NULL)
		return c->qstatus;
	at = now_seconds(now);
	if (c->due != at)
		return c->due < at ? Q_EXPIRED : Q_PENDING;
	return rfc3339_cmp(c->expires_at, now) <= 0 ? Q_EXPIRED : Q_PENDING;
}

/* One more than each lowercase hex digit's value; 0 for other bytes. */
static const uint8_t hex_value[256] = {
	['0'] = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	['a'] = 11, 12, 13, 14, 15, 16,
};

/* Lowercase hex, already checked by is_hex. */
void
hex_bytes(const char *hex, uint8_t *out, size_t n)
{
	(void)hex_decode((struct sv){ hex, 2 * n }, out, n);
}

/* n bytes from exactly 2n lowercase hex digits, or false. */
bool
hex_decode(struct sv s, uint8_t *out, size_t n)
{
	const unsigned char	*h = (const unsigned char *)s.p;
	unsigned		 bad = 0, hi, lo;
	size_t			 i;

	if (s.p == NULL || s.n != 2 * n)
		return false;
	for (i = 0; i < n; i++) {
		hi = hex_value[h[2 * i]];
		lo = hex_value[h[2 * i + 1]];
		bad |= (hi == 0) | (lo == 0);
		out[i] = (uint8_t)((hi - 1) << 4 | (lo - 1));
	}
	return bad == 0;
}

bool
is_hex(struct sv s, size_t n)
{
	size_t i;

	if (s.p == NULL || s.n != n)
		return false;
	for (i = 0; i < n; i++)
		if (hex_value[(unsigned char)s.p[i]] == 0)
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

/* ---- a checkpoint's view of the state (arccheckpoint.c) ---- */

/* About what a checkpoint of the state takes (arccheckpoint.c). */
uint64_t
state_checkpoint_bytes(const struct state *st)
{
	return (uint64_t)st->count * 160 + (uint64_t)st->seen_count * 40;
}

bool
state_readers_only(const struct state *st)
{
	return st->readers_only;
}

void
state_foreach_seen(struct state *st, void (*fn)(const uint8_t *,
    const uint8_t *, int64_t, void *), void *arg)
{
	size_t i;

	for (i = 0; i < st->seen_cap; i++)
		if (seen_used(&st->seen[i]))
			fn(st->seen[i].ident, st->seen[i].content,
			    st->seen[i].at, arg);
}

/* A condition as a checkpoint holds it; false if its key is there already. */
bool
state_restore(struct state *st, const struct condition *from)
{
	struct condition *c = lookup_or_add(st,
	    (struct sv){ from->key, from->keylen });

	if (c->notification.len != 0)
		return false;	/* a key restored before has its notification */
	memcpy(c->notification_id, from->notification_id,
	    sizeof(c->notification_id));
	c->notification = from->notification;
	c->interaction = from->interaction;
	c->active = from->active;
	c->priority = from->priority;
	c->qstatus = from->qstatus;
	c->changed = from->changed;
	c->due = from->due;
	c->expires_at = from->expires_at != NULL ?
	    xstrndup(from->expires_at, strlen(from->expires_at)) : NULL;
	c->dismissed = from->dismissed != NULL ?
	    xstrndup(from->dismissed, strlen(from->dismissed)) : NULL;
	c->route = from->route != NULL ?
	    xstrndup(from->route, strlen(from->route)) : NULL;
	st->span_bytes += c->notification.len + c->interaction.len;
	return true;
}

void
state_restore_seen(struct state *st, const uint8_t *ident,
    const uint8_t *content, int64_t at)
{
	if (!st->readers_only)
		seen_add(st, ident, content, at);
}

/* The sequence and clock the checkpoint's last record left. */
bool
state_restored(struct state *st, uint64_t seq, const char *latest)
{
	struct arc_instant t;

	st->seq = st->durable = seq;
	if (latest[0] == '\0')
		return true;
	if (!rfc3339_parse(latest, strlen(latest), &t))
		return false;
	note_time(st, latest, strlen(latest), &t);
	return true;
}

const char *
state_latest(const struct state *st)
{
	return st->latest;
}

/*
 * Takes over what a checkpoint restored into another state, which is
 * freed; st has replayed nothing yet.  Its file, sequence check and
 * reader's role stay its own.
 */
void
state_adopt(struct state *st, struct state *from)
{
	struct state keep = *st;

	*st = *from;
	st->fd = keep.fd;
	st->readers_only = keep.readers_only;
	st->check_seq = keep.check_seq;
	st->batch = keep.batch;
	st->touched = keep.touched;
	st->ntouched = keep.ntouched;
	st->touched_cap = keep.touched_cap;
	st->scratch = keep.scratch;
	if (st->latest[0] != '\0')
		st->latest_t.fraction = st->latest +
		    (from->latest_t.fraction - from->latest);
	/* What st held (nothing but its empty tables) goes with from. */
	*from = keep;
	from->touched = NULL;
	from->scratch.p = NULL;
	from->scratch.len = from->scratch.cap = 0;
	state_free(from);
}

/* ---- replaying the journal ---- */

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
		    !hex_decode(sv_json(e->items[0]), ident, 16) ||
		    !hex_decode(sv_json(e->items[1]), content, 16) ||
		    e->items[2]->type != J_NUMBER || !e->items[2]->integer)
			return false;
		seen_add(st, ident, content, strtoll(e->items[2]->s, NULL, 10));
	}
	return true;
}

/* What a record holds, read in one pass. */
struct record_parts {
	bool		 header;
	uint64_t	 seq;
	bool		 has_seq;
	struct sv	 at, dismissed, route;
	int64_t		 since;
	bool		 has_since;
	uint8_t		 ident[16], hash[16];	/* of its event */
	bool		 has_event, has_index;
	const struct jval *notification, *interaction, *seen;
	const char	*ntext, *qtext;	/* the two parts' text in the line */
};

enum part { PART_OTHER, PART_HEADER, PART_SEQ, PART_AT, PART_SINCE,
    PART_EVENT, PART_INDEX, PART_NOTIFICATION, PART_INTERACTION, PART_SEEN,
    PART_DISMISSED, PART_ROUTE };

static enum part
part_named(const char *name, size_t len)
{
#define IS(s)	(len == sizeof(s) - 1 && memcmp(name, s, len) == 0)
	switch (len) {
	case 2:		return IS("at") ? PART_AT : PART_OTHER;
	case 3:		return IS("seq") ? PART_SEQ : PART_OTHER;
	case 4:		return IS("seen") ? PART_SEEN : PART_OTHER;
	case 5:		return IS("event") ? PART_EVENT : IS("index") ?
			    PART_INDEX : IS("since") ? PART_SINCE :
			    IS("route") ? PART_ROUTE : PART_OTHER;
	case 9:		return IS("dismissed") ? PART_DISMISSED : PART_OTHER;
	case 11:	return IS("interaction") ? PART_INTERACTION :
			    IS("arc_journal") ? PART_HEADER : PART_OTHER;
	case 12:	return IS("notification") ? PART_NOTIFICATION :
			    PART_OTHER;
	default:	return PART_OTHER;
	}
#undef IS
}

/* An event's identity and content hash; the rest is for people. */
static bool
read_event(struct jcursor *cur, struct record_parts *p)
{
	struct jcursor	 o;
	const char	*name;
	size_t		 len;
	struct sv	 ident = { NULL, 0 }, hash = { NULL, 0 }, *to;
	int		 more;

	json_cursor_enter(cur, &o);
	while ((more = json_cursor_name(&o, &name, &len)) == 1) {
		to = len == 5 && memcmp(name, "ident", 5) == 0 ? &ident :
		    len == 4 && memcmp(name, "hash", 4) == 0 ? &hash : NULL;
		if (to != NULL ? to->p != NULL ||
		    !json_cursor_string(&o, &to->p, &to->n) :
		    !json_cursor_skip(&o))
			return false;
	}
	json_cursor_leave(cur, &o);
	if (more != 0 || !hex_decode(ident, p->ident, 16) ||
	    !hex_decode(hash, p->hash, 16))
		return false;
	p->has_event = true;
	return true;
}

/* A notification or question: stepped over by the index's length. */
static bool
read_part(struct jcursor *cur, struct record_parts *p,
    const struct record_index *ix, bool interaction)
{
	const char		**text = interaction ? &p->qtext : &p->ntext;
	const struct jval	**v = interaction ? &p->interaction :
	    &p->notification;
	uint32_t		  len = interaction ? ix->qlen : ix->nlen;

	if (*text != NULL || *v != NULL)
		return false;
	if (p->has_index)
		return len > 0 &&
		    (*text = json_cursor_skip_object(cur, len)) != NULL;
	return (*v = json_cursor_value(cur)) != NULL;
}

/*
 * One pass over a record's members.  Once its index is read, the
 * notification and question after it are stepped over by their lengths:
 * the checksum vouches for their text, which is parsed, strictly, when a
 * command uses it.  Without an index (a record from before the index)
 * they are parsed here, and the index is made from them.  Whoever only
 * reads (readers) skips the events and the seen lists.
 */
static bool
record_read(struct state *st, struct arena *a, const char *line, size_t len,
    struct record_parts *p, struct record_index *ix)
{
	struct jcursor	 cur;
	const char	*name;
	size_t		 namelen;
	struct rec	 n, q;
	int64_t		 seq;
	int		 more;
	bool		 ok;
	unsigned	 had = 0;
	enum part	 part;

	memset(p, 0, sizeof(*p));
	memset(ix, 0, sizeof(*ix));
	json_cursor_open(&cur, a, line, len);
	while ((more = json_cursor_name(&cur, &name, &namelen)) == 1) {
		part = part_named(name, namelen);
		if (part != PART_OTHER && (had & 1u << part))
			return false;	/* twice */
		had |= 1u << part;
		switch (part) {
		case PART_SEQ:
			ok = json_cursor_integer(&cur, &seq) && seq >= 0;
			p->seq = (uint64_t)seq;
			p->has_seq = true;
			break;
		case PART_AT:
			ok = json_cursor_string(&cur, &p->at.p, &p->at.n);
			break;
		case PART_SINCE:
			ok = json_cursor_integer(&cur, &p->since);
			p->has_since = true;
			break;
		case PART_EVENT:
			ok = st->readers_only ? json_cursor_skip(&cur) :
			    read_event(&cur, p);
			break;
		case PART_INDEX:
			ok = p->ntext == NULL && p->qtext == NULL &&
			    index_read(&cur, ix);
			p->has_index = true;
			break;
		case PART_NOTIFICATION:
		case PART_INTERACTION:
			ok = read_part(&cur, p, ix, part == PART_INTERACTION);
			break;
		case PART_SEEN:
			ok = st->readers_only ? json_cursor_skip(&cur) :
			    (p->seen = json_cursor_value(&cur)) != NULL;
			break;
		case PART_DISMISSED:
			ok = json_cursor_string(&cur, &p->dismissed.p,
			    &p->dismissed.n);
			break;
		case PART_ROUTE:
			ok = json_cursor_string(&cur, &p->route.p,
			    &p->route.n);
			break;
		case PART_HEADER:
			p->header = true;
			/* FALLTHROUGH */
		default:
			ok = json_cursor_skip(&cur);	/* durable, crc, ... */
		}
		if (!ok)
			return false;
	}
	if (more != 0)
		return false;
	if (!p->has_index) {
		if ((p->notification != NULL &&
		    (!rec_from_jval(p->notification, false, &n) ||
		    !rec_sane(&n, false))) || (p->interaction != NULL &&
		    (!rec_from_jval(p->interaction, true, &q) ||
		    !rec_sane(&q, true))))
			return false;
		if (p->notification == NULL && p->interaction == NULL)
			return true;
		index_of(ix, p->notification != NULL ? &n : NULL,
		    p->notification != NULL ? p->notification->rawlen : 0,
		    p->interaction != NULL ? &q : NULL,
		    p->interaction != NULL ? p->interaction->rawlen : 0);
		p->ntext = p->notification != NULL ? p->notification->raw :
		    NULL;
		p->qtext = p->interaction != NULL ? p->interaction->raw : NULL;
	}
	/* The index tells of exactly the parts the record has. */
	return (ix->nlen > 0) == (p->ntext != NULL) &&
	    (ix->qlen > 0) == (p->qtext != NULL);
}

/* A part's text in a line found at line_offset, checked with the line. */
static struct span
span_in(const char *line, size_t len, uint64_t line_offset, const char *text,
    uint32_t tlen)
{
	struct span sp;

	sp.off = line_offset + (uint64_t)(text - line);
	sp.len = tlen;
	sp.line = line_offset;
	sp.line_len = (uint32_t)len;
	sp.unchecked = false;
	return sp;
}

bool
state_load_record(struct state *st, struct arena *a, const char *line,
    size_t len, uint64_t line_offset)
{
	struct record_parts	 p;
	struct record_index	 ix;
	struct condition	*c;
	struct arc_instant	 at;
	int64_t			 changed;

	if (!record_read(st, a, line, len, &p, &ix))
		return false;
	if (p.header)
		return true;
	if (!p.has_seq || p.at.p == NULL || !rfc3339_parse(p.at.p, p.at.n,
	    &at))
		return false;
	/* A record missing before this one, or one repeated, is damage. */
	if (st->check_seq && p.seq != st->seq + 1)
		return false;
	st->seq = p.seq;
	note_time(st, p.at.p, p.at.n, &at);
	/* When its condition last changed: now, or before a compaction. */
	changed = p.has_since ? p.since : at.seconds;
	if (p.has_event)
		seen_add(st, p.ident, p.hash, at.seconds);
	if (ix.nlen > 0) {
		c = lookup_or_add(st, ix.key);
		/* A new lifecycle under the key drops the old question. */
		if (!same_lifecycle(c, ix.notification_id))
			store_interaction(st, c, NULL, no_span);
		store_notification(st, c, &ix, span_in(line, len, line_offset,
		    p.ntext, ix.nlen));
		c->changed = changed;
		set_dismissed(c, p.dismissed);
		set_route(c, p.route);
	}
	if (ix.qlen > 0) {
		if ((c = lookup_sv(st, ix.key)) == NULL)
			return false;	/* a question before its condition */
		store_interaction(st, c, &ix, span_in(line, len, line_offset,
		    p.qtext, ix.qlen));
		c->changed = changed;
	}
	if (p.seen != NULL && !load_seen(st, p.seen))
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
	struct record_index	 ix;
	struct arc_instant	 at;
	size_t			 nlen, record = out->len;
	const char		*route = ch->route;

	/* A change the consumer makes to a mirrored condition keeps its route. */
	if (route == NULL && ch->has_n && (c = lookup_sv(st, ch->n.f[N_KEY])) !=
	    NULL)
		route = c->route;
	st->batch = out;
	memset(&ix, 0, sizeof(ix));
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
	/* The parts are written aside first: the index ahead gives lengths. */
	st->scratch.len = 0;
	if (ch->has_n)
		rec_write(&st->scratch, &ch->n, false, false);
	nlen = st->scratch.len;
	if (ch->has_q)
		rec_write(&st->scratch, &ch->q, true, false);
	if (st->scratch.len > UINT32_MAX)
		errx(EXIT_SYSTEM, "internal error: a record too long");
	/* A record of an event alone (a replay that changed nothing) has none. */
	if (ch->has_n || ch->has_q) {
		index_of(&ix, ch->has_n ? &ch->n : NULL, nlen,
		    ch->has_q ? &ch->q : NULL, st->scratch.len - nlen);
		buf_puts(out, ",\"index\":");
		index_write(out, &ix);
	}
	if (ch->has_n) {
		buf_puts(out, ",\"notification\":");
		ns.off = IN_BATCH | out->len;
		ns.len = ix.nlen;
		buf_put(out, st->scratch.p, nlen);
	}
	if (ch->has_q) {
		buf_puts(out, ",\"interaction\":");
		qs.off = IN_BATCH | out->len;
		qs.len = ix.qlen;
		buf_put(out, st->scratch.p + nlen, ix.qlen);
	}
	if (ch->superseded.p != NULL) {
		buf_puts(out, ",\"superseded\":");
		buf_json_str(out, ch->superseded.p, ch->superseded.n);
	}
	if (ch->dismissed != NULL) {
		buf_puts(out, ",\"dismissed\":");
		buf_json_cstr(out, ch->dismissed);
	}
	if (ch->has_n && route != NULL) {
		buf_puts(out, ",\"route\":");
		buf_json_cstr(out, route);
	}
	record_seal(out, record);
	ns.line = qs.line = IN_BATCH | record;
	ns.line_len = qs.line_len = (uint32_t)(out->len - record - 1);

	if (ch->has_n) {
		c = lookup_or_add(st, ix.key);
		if (!same_lifecycle(c, ix.notification_id))
			store_interaction(st, c, NULL, no_span);
		store_notification(st, c, &ix, ns);
		c->changed = at.seconds;
		set_dismissed(c, sv_str(ch->dismissed));
		set_route(c, sv_str(route));
		touch(st, c);
	}
	if (ch->has_q) {
		c = lookup_sv(st, ix.key);
		store_interaction(st, c, &ix, qs);
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
 * through the host, by route.  Removal resolves it.  Not ARC_OK, with
 * *why, for a line that is not a condition, and for a question whose
 * digest is not that of its text (ARC_DIGEST_MISMATCH): it is not shown.
 */
enum arc_code
state_mirror(struct state *st, struct arena *a, const struct jval *v,
    const char *now, const char *route, struct buf *records,
    const char **why)
{
	const struct jval	*nv = json_get(v, "notification");
	const struct jval	*qv = json_get(v, "interaction");
	const struct jval	*removed = json_get(v, "removed");
	struct condition	*c;
	struct change		 ch;
	struct rec		 n;

	memset(&ch, 0, sizeof(ch));
	ch.route = route;
	now = state_clock(st, now);
	if (removed != NULL && removed->type == J_TRUE) {
		const struct jval *key = json_get(v, "key");
		if (key == NULL || key->type != J_STRING) {
			*why = "/key: a removal names its key";
			return ARC_INVALID;
		}
		c = lookup_sv(st, sv_json(key));
		if (c == NULL || c->notification.len == 0 || !c->active)
			return ARC_OK;	/* nothing to remove */
		(void)condition_rec(st, a, c, false, &n);
		n.f[N_STATUS] = sv_str("resolved");
		n.f[N_RESOLVED_AT] = sv_str(now);
		ch.n = n;
		ch.has_n = true;
		state_record(st, now, &ch, records);
		return ARC_OK;
	}
	if (!rec_from_jval(nv, false, &ch.n) || !rec_sane(&ch.n, false) ||
	    ch.n.f[N_KEY].p == NULL || ch.n.f[N_ID].p == NULL) {
		*why = "/notification: not a notification record";
		return ARC_INVALID;
	}
	ch.has_n = true;
	if (qv != NULL && qv->type != J_NULL) {
		if (!rec_from_jval(qv, true, &ch.q) ||
		    !rec_sane(&ch.q, true) ||
		    !sv_same(ch.q.f[I_KEY], ch.n.f[N_KEY])) {
			*why = "/interaction: not an interaction record of "
			    "this key";
			return ARC_INVALID;
		}
		if (!mirror_question_holds(a, &ch.n, &ch.q)) {
			*why = "/interaction/digest: not the digest of the "
			    "question shown; not mirrored";
			return ARC_DIGEST_MISMATCH;
		}
		ch.has_q = true;
	}
	/* The same condition again (a broker redelivers): nothing to record. */
	c = lookup_sv(st, ch.n.f[N_KEY]);
	if (c != NULL && same_text(st, a, c, &ch.n, false) &&
	    (ch.has_q ? same_text(st, a, c, &ch.q, true) :
	    c->interaction.len == 0) && c->route != NULL &&
	    strcmp(c->route, route) == 0)
		return ARC_OK;
	state_record(st, now, &ch, records);
	return ARC_OK;
}

/* ---- compaction and retention ---- */

/*
 * A condition leaves the live journal once nothing in it is pending and it
 * has not changed for retain seconds: resolved, answered, expired,
 * withdrawn, or a notice nobody resolved.  A pending question stays for as
 * long as it is pending; past its deadline it counts as expired from then.
 * (at is now in seconds; within the second of a deadline its text decides.)
 */
static bool
retired_at(const struct condition *c, const char *now, int64_t at,
    int64_t retain)
{
	int64_t last = c->changed;

	if (c->qstatus == Q_PENDING && c->expires_at != NULL) {
		if (c->due > at || (c->due == at &&
		    rfc3339_cmp(c->expires_at, now) > 0))
			return false;	/* still open */
		if (c->due > last)
			last = c->due;
	} else if (c->qstatus == Q_PENDING) {
		return false;
	}
	return last <= at - retain;
}

bool
condition_retired(const struct condition *c, const char *now, int64_t retain)
{
	return retired_at(c, now, seconds_of(now, strlen(now)), retain);
}

/*
 * What a kept condition and a remembered event cost in a record: the
 * frame, seq, times and index (about 110 of its 208 bytes) besides the
 * texts.
 */
#define RECORD_OVERHEAD	208
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
		if (c != NULL && !retired_at(c, now, since + window, retain))
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
	    sp->line + sp->line_len <= cp->maplen) {
		if (sp->unchecked && !record_frame_ok(cp->map + sp->line,
		    sp->line_len))
			errx(EXIT_SYSTEM, "the journal has a damaged record "
			    "at byte %llu", (unsigned long long)sp->line);
		buf_put(out, cp->map + sp->off, sp->len);
	} else
		buf_puts(out, condition_text(st, a, c, interaction));
}

/* The index of a condition's current record, as the table holds it. */
static void
condition_index(const struct condition *c, struct record_index *ix)
{
	memset(ix, 0, sizeof(*ix));
	ix->key.p = c->key;
	ix->key.n = c->keylen;
	ix->nlen = c->notification.len;
	ix->notification_id = sv_str(c->notification_id);
	ix->active = c->active;
	ix->priority = c->priority;
	ix->qlen = c->interaction.len;
	ix->qstatus = c->qstatus;
	ix->expires_at = sv_str(c->expires_at);
	ix->due = c->due;
}

/* One record a kept condition: its notification and its question. */
static bool
compact_conditions(struct state *st, struct arena *a,
    const struct compaction *cp, struct buf *out, uint64_t durable)
{
	struct record_index	ix;
	size_t			i, start;
	int64_t			at = seconds_of(cp->now, strlen(cp->now));

	for (i = 0; i < st->cap; i++) {
		const struct condition *c = st->slots[i].c;
		if (c == NULL || c->notification.len == 0 ||
		    retired_at(c, cp->now, at, cp->retain))
			continue;
		arena_reset(a);
		start = out->len;
		buf_printf(out, "{\"seq\":%llu,\"durable\":%llu,\"at\":",
		    (unsigned long long)++st->seq,
		    (unsigned long long)durable);
		buf_json_cstr(out, cp->at);
		buf_printf(out, ",\"since\":%lld", (long long)c->changed);
		buf_puts(out, ",\"index\":");
		condition_index(c, &ix);
		index_write(out, &ix);
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
		if (c->route != NULL) {
			buf_puts(out, ",\"route\":");
			buf_json_cstr(out, c->route);
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
