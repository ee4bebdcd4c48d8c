/*
 * The conditions in memory: the table of conditions by key and the index
 * of events seen, put by the one mutator, state_put(); iteration over
 * them; and retirement, which tells compaction what stays.
 */
#include <err.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcrecord.h"
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
	struct seen		 *seen;
	size_t			  seen_cap, seen_count;
	bool			  readers_only;	/* no idempotency index */
	uint64_t		  span_bytes;	/* of the current records */
	/*
	 * Lower bounds of every condition's changed and every event's time
	 * ever put: while nothing can be old enough to leave, what a
	 * compaction keeps is known without a walk over the conditions.
	 */
	int64_t			  changed_floor, seen_floor;
	/* Whether a condition ever held a string of its own on the heap. */
	bool			  heap_strings;
	/*
	 * A checkpoint's conditions and events not read yet (state_set_base):
	 * taken, those read; the counts above are of those read alone.
	 */
	struct state_base	  base;
	uint8_t			 *taken, *event_taken;
	size_t			  base_left, events_left;
	bool			  taking;	/* one of them, being put */
	bool			  incomplete;	/* one could not be read */
	/* History's: the lifecycles a newer one under their key replaced. */
	bool			  keep_past;
	struct condition	**past;
	size_t			  past_count, past_cap;
};


/*
 * A key's hash: eight bytes a step, each multiplied in and mixed down to
 * the low bits the table indexes by (MurmurHash3's finalizer), since a
 * checkpoint's 10,000 keys are hashed every time a command starts.
 */
uint64_t
state_key_hash(const void *p, size_t n)
{
	const unsigned char	*s = p;
	uint64_t		 h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	if (n > 0) {	/* the last one to seven bytes, loads overlapping */
		uint32_t a, b;

		if (n >= 4) {
			memcpy(&a, s, 4);
			memcpy(&b, s + n - 4, 4);
			w = a | (uint64_t)b << 32;
		} else {
			w = s[0] | (uint64_t)s[n / 2] << 8 |
			    (uint64_t)s[n - 1] << 16;
		}
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
	}
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

struct state *
state_new(bool readers)
{
	struct state *st;

	if ((st = calloc(1, sizeof(*st))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	st->readers_only = readers;
	st->changed_floor = INT64_MAX;
	st->seen_floor = INT64_MAX;
	return st;
}

/*
 * A pending question's deadline, kept in its condition when it fits, as
 * every one arc writes does: 10,000 of them from a checkpoint are then
 * no malloc and no free each.
 */
static void
expires_drop(struct condition *c)
{
	if (c->expires_at != c->expires_text)
		free(c->expires_at);
	c->expires_at = NULL;
}

static void
expires_set(struct condition *c, struct sv text)
{
	expires_drop(c);
	if (text.n < sizeof(c->expires_text)) {
		memcpy(c->expires_text, text.p, text.n);
		c->expires_text[text.n] = '\0';
		c->expires_at = c->expires_text;
	} else {
		c->expires_at = xstrndup(text.p, text.n);
	}
}

void
state_free(struct state *st)
{
	size_t i;

	if (st == NULL)
		return;
	/* Most states' conditions own nothing but the pool: no walk then. */
	for (i = 0; st->heap_strings && i < st->cap; i++)
		if (st->slots[i].c != NULL) {
			expires_drop(st->slots[i].c);
			free(st->slots[i].c->dismissed);
			free(st->slots[i].c->route);
			free(st->slots[i].c->handover);
		}
	for (i = 0; i < st->past_count; i++) {
		expires_drop(st->past[i]);
		free(st->past[i]->dismissed);
		free(st->past[i]->route);
		free(st->past[i]->handover);
	}
	free(st->past);
	arena_free(&st->pool);
	free(st->slots);
	free(st->seen);
	if (st->base.release != NULL)
		st->base.release(st->base.arg);
	free(st->taken);
	free(st->event_taken);
	free(st);
}

size_t
state_count(const struct state *st)
{
	return st->count + st->base_left;
}

void
state_set_base(struct state *st, const struct state_base *b)
{
	if (st->count > 0 || st->seen_count > 0 || st->base.release != NULL)
		errx(EXIT_SYSTEM, "internal error: a base under a state");
	st->base = *b;
	if (st->readers_only)
		st->base.events = 0;
	if ((st->taken = calloc(b->conditions + 1, 1)) == NULL ||
	    (st->event_taken = calloc(st->base.events + 1, 1)) == NULL)
		err(EXIT_SYSTEM, "calloc");
	st->base_left = b->conditions;
	st->events_left = st->base.events;
	st->span_bytes += b->span_bytes;
	if (b->changed_floor < st->changed_floor)
		st->changed_floor = b->changed_floor;
	if (st->events_left > 0 && b->seen_floor < st->seen_floor)
		st->seen_floor = b->seen_floor;
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

#define PREFAULT_SLOTS	4096	/* a table this large is faulted in at once */

/* The table of conditions, cap slots (a power of two) from now on. */
static void
resize_conditions(struct state *st, size_t cap)
{
	struct slot	*old = st->slots;
	size_t		 oldcap = st->cap, i;

	st->cap = cap;
	if ((st->slots = calloc(st->cap, sizeof(*st->slots))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	if (st->cap >= PREFAULT_SLOTS)	/* what follows fills it */
		mem_prefault(st->slots, st->cap * sizeof(*st->slots));
	for (i = 0; i < oldcap; i++)
		if (old[i].c != NULL)
			st->slots[slot_of(st, old[i].c->key, old[i].c->keylen,
			    old[i].hash)] = old[i];
	free(old);
}

static void
grow_conditions(struct state *st)
{
	resize_conditions(st, st->cap ? st->cap * 2 : 1024);
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
	if (cap >= PREFAULT_SLOTS)
		mem_prefault(st->seen, cap * sizeof(*st->seen));
	st->seen_cap = cap;
}

#define KEY_GUESS	32	/* a key's bytes, for the room reserved ahead */

/*
 * Room for n conditions or events at once: a checkpoint's come in the
 * order of a table's slots, which a table growing as they come would
 * pile into one run.
 */
void
state_reserve(struct state *st, size_t conditions, size_t events)
{
	size_t cap = st->cap ? st->cap : 1024;

	while (conditions < SIZE_MAX / 8 && (conditions + 1) * 4 > cap * 3)
		cap *= 2;
	/*
	 * Grown once, to its size, not through every size below it; what
	 * is coming fills it and the pool, so both are faulted in at once,
	 * not page by page (a small table's few pages are not worth it).
	 */
	if (cap != st->cap) {
		resize_conditions(st, cap);
		if (cap >= PREFAULT_SLOTS && conditions < SIZE_MAX / 256)
			arena_reserve(&st->pool, conditions *
			    (sizeof(struct condition) + KEY_GUESS));
	}
	if (events > 0)
		seen_presize(st, (uint64_t)events + 1);
}

static struct condition *
lookup_read(struct state *st, struct sv key)
{
	if (st->cap == 0)
		return NULL;
	return st->slots[slot_of(st, key.p, key.n, state_key_hash(key.p,
	    key.n))].c;
}

/*
 * The base's condition i, read and put as a record is: its parts' bytes,
 * counted in the base's sum, are counted again by the put.
 */
static struct condition *
take_condition(struct state *st, size_t i, bool found)
{
	struct stored	 s;
	bool		 put;

	st->taken[i] = 1;
	st->base_left--;
	if (!st->base.condition(st->base.arg, i, &s)) {
		st->incomplete = true;	/* its handler returned */
		return NULL;
	}
	st->span_bytes -= (uint64_t)s.n.len + s.q.len;
	st->taking = true;	/* its key is in the base alone */
	put = state_put(st, &s);
	st->taking = false;
	return put && found ? lookup_read(st, s.ix.key) : NULL;
}

/* Every condition of the base read, before a walk over them all. */
static void
take_all_conditions(struct state *st)
{
	size_t i;

	if (st->base_left == 0)
		return;
	st->base.all(st->base.arg, true);
	state_reserve(st, st->count + st->base_left, 0);
	for (i = 0; i < st->base.conditions && st->base_left > 0; i++)
		if (!st->taken[i])
			(void)take_condition(st, i, false);
	if (!st->base.all(st->base.arg, false))
		st->incomplete = true;
}

static struct condition *
lookup_sv(struct state *st, struct sv key)
{
	struct condition	*c = lookup_read(st, key);
	size_t			 i;

	if (c == NULL && st->base_left > 0 &&
	    (i = st->base.find(st->base.arg, key)) != SIZE_MAX &&
	    !st->taken[i])
		c = take_condition(st, i, true);
	return c;
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
	uint64_t		 h;
	size_t			 i;

	if (st->base_left > 0 && !st->taking &&
	    (c = lookup_sv(st, key)) != NULL)
		return c;
	h = state_key_hash(key.p, key.n);
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

struct condition *
state_next(struct state *st, size_t *at)
{
	for (; *at < st->cap; (*at)++)
		if (st->slots[*at].c != NULL)
			return st->slots[(*at)++].c;
	return NULL;
}

struct condition *
state_first(struct state *st, size_t *at)
{
	take_all_conditions(st);
	*at = 0;
	return state_next(st, at);
}

bool
state_readers_only(const struct state *st)
{
	return st->readers_only;
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
	expires_drop(c);
	c->interaction = at;
	c->qstatus = ix != NULL ? ix->qstatus : Q_NONE;
	c->due = 0;
	if (c->qstatus == Q_PENDING && ix->expires_at.p != NULL) {
		expires_set(c, ix->expires_at);
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

/*
 * The hand-over's record: set by a receipt or a withdrawal, kept by the
 * lifecycle's later records (a hook's own resolution follows a receipt),
 * dropped with the lifecycle.
 */
static void
set_handover(struct condition *c, struct sv h)
{
	if (h.p == NULL)
		return;
	free(c->handover);
	c->handover = xstrndup(h.p, h.n);
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

void
state_keep_past(struct state *st)
{
	st->keep_past = true;
}

/*
 * A lifecycle about to be replaced by a newer one under its key, kept
 * as it last was: its records stay where they are in the file.
 */
static void
keep_past(struct state *st, const struct condition *c)
{
	struct condition *p;

	if (st->past_count == st->past_cap) {
		st->past_cap = st->past_cap ? st->past_cap * 2 : 16;
		if ((st->past = reallocarray(st->past, st->past_cap,
		    sizeof(*st->past))) == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	p = arena_alloc(&st->pool, sizeof(*p));
	*p = *c;	/* the key is the pool's, as long-lived */
	p->expires_at = NULL;
	if (c->expires_at != NULL)
		expires_set(p, sv_str(c->expires_at));
	p->dismissed = c->dismissed ? xstrndup(c->dismissed,
	    strlen(c->dismissed)) : NULL;
	p->route = c->route ? xstrndup(c->route, strlen(c->route)) : NULL;
	p->handover = c->handover ? xstrndup(c->handover,
	    strlen(c->handover)) : NULL;
	st->past[st->past_count++] = p;
}

struct condition *
state_past(struct state *st, size_t i)
{
	return i < st->past_count ? st->past[i] : NULL;
}

enum qstatus
condition_qstatus(const struct condition *c, const char *now)
{
	return question_state(c->qstatus, c->expires_at, c->due, now);
}

/* ---- events seen ---- */

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
		if (st->seen_cap >= PREFAULT_SLOTS)
			mem_prefault(st->seen, st->seen_cap * sizeof(*s));
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

/* The base's event of this identity, not read yet: its number, or SIZE_MAX. */
static size_t
base_event(struct state *st, const uint8_t ident[16])
{
	size_t i;

	if (st->events_left == 0 ||
	    (i = st->base.find_event(st->base.arg, ident)) == SIZE_MAX ||
	    st->event_taken[i])
		return SIZE_MAX;
	return i;
}

/* Every event of the base read, before a walk over them all. */
static void
take_all_events(struct state *st)
{
	struct stored	 s;
	size_t		 i;

	if (st->events_left == 0)
		return;
	st->base.all(st->base.arg, true);
	for (i = 0; i < st->base.events && st->events_left > 0; i++)
		if (!st->event_taken[i]) {
			st->base.event(st->base.arg, i, &s);
			st->event_taken[i] = 1;
			st->events_left--;
			(void)state_put(st, &s);
		}
	if (!st->base.all(st->base.arg, false))
		st->incomplete = true;
}

bool
state_read_all(struct state *st)
{
	take_all_conditions(st);
	take_all_events(st);
	return !st->incomplete;
}

bool
state_complete(const struct state *st)
{
	return !st->incomplete;
}

enum seen_as
state_seen(struct state *st, const uint8_t ident[16],
    const uint8_t content[16])
{
	struct seen	*s = seen_find(st, ident);
	struct stored	 e;
	size_t		 i;

	if (s != NULL)
		return memcmp(s->content, content, 16) == 0 ? SEEN_SAME :
		    SEEN_OTHER;
	if ((i = base_event(st, ident)) == SIZE_MAX)
		return SEEN_NONE;
	st->base.event(st->base.arg, i, &e);
	return memcmp(e.hash, content, 16) == 0 ? SEEN_SAME : SEEN_OTHER;
}

bool
state_next_seen(struct state *st, size_t *at, uint8_t ident[16],
    uint8_t content[16], int64_t *seconds)
{
	if (*at == 0)
		take_all_events(st);
	for (; *at < st->seen_cap; (*at)++)
		if (seen_used(&st->seen[*at])) {
			memcpy(ident, st->seen[*at].ident, 16);
			memcpy(content, st->seen[*at].content, 16);
			*seconds = st->seen[(*at)++].at;
			return true;
		}
	return false;
}

/* ---- the one mutator ---- */

/*
 * A record put into the state: its event remembered (who applies must
 * know it again), its notification and question made the condition's
 * current ones.  A new lifecycle under the key drops the old question.
 */
bool
state_put(struct state *st, const struct stored *s)
{
	struct condition *c = NULL;

	if (s->ident != NULL && !st->readers_only) {
		size_t i = base_event(st, s->ident);

		if (i != SIZE_MAX) {	/* what is put now stands for it */
			st->event_taken[i] = 1;
			st->events_left--;
		}
		seen_add(st, s->ident, s->hash, s->at);
		if (s->at < st->seen_floor)
			st->seen_floor = s->at;
	}
	if (s->ix.nlen > 0) {
		c = lookup_or_add(st, s->ix.key);
		if (!same_lifecycle(c, s->ix.notification_id)) {
			if (st->keep_past)
				keep_past(st, c);
			store_interaction(st, c, NULL, no_span);
			free(c->handover);
			c->handover = NULL;
		}
		store_notification(st, c, &s->ix, s->n);
		c->changed = s->changed;
		set_dismissed(c, s->dismissed);
		set_route(c, s->route);
		set_handover(c, s->handover);
	}
	if (s->ix.qlen > 0) {
		/* Its notification's condition, found already when both come. */
		if (c == NULL)
			c = lookup_sv(st, s->ix.key);
		if (c == NULL || c->notification.len == 0)
			return false;	/* a question before its condition */
		store_interaction(st, c, &s->ix, s->q);
		c->changed = s->changed;
	}
	if (c != NULL) {
		if (s->changed < st->changed_floor)
			st->changed_floor = s->changed;
		if (c->dismissed != NULL || c->route != NULL ||
		    c->handover != NULL || (c->expires_at != NULL &&
		    c->expires_at != c->expires_text))
			st->heap_strings = true;
	}
	return true;
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
	return retired_at(c, now, instant_seconds(now), retain);
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
	int64_t		 at = instant_seconds(now), since = at - window;
	uint64_t	 bytes = 0;
	size_t		 i;

	/*
	 * Every condition changed after at - retain has not retired (see
	 * retired_at), and every event seen since the window began is kept:
	 * when the floors say so of all of them, all of it is kept.
	 */
	if (!all || (st->changed_floor > at - retain &&
	    st->seen_floor >= since))
		return st->span_bytes + (uint64_t)state_count(st) *
		    RECORD_OVERHEAD + (uint64_t)(st->seen_count +
		    st->events_left) * SEEN_BYTES;
	(void)state_read_all(st);	/* (a fault there is its reader's) */
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

/* About what a checkpoint of the state takes (arccheckpoint.c). */
uint64_t
state_checkpoint_bytes(const struct state *st)
{
	return (uint64_t)state_count(st) * 160 +
	    (uint64_t)(st->seen_count + st->events_left) * 40;
}
