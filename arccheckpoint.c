/*
 * The checkpoint (arc-journal(5)): the state a replay of the journal's
 * first OFFSET bytes leaves, so that a command loads it and replays only
 * the records after.  It is a cache, never the truth: it names the
 * journal file it was taken of and the record it ends with, and a
 * checkpoint that does not match the journal, or fails its checksum, is
 * ignored for a replay from the start.  Its spans into the journal are
 * not checked by a replay, so each is checked (its record's CRC) when a
 * command reads the text.  Decoding reads the checksum and each
 * condition's framing; a condition is read, its values checked, when the
 * state first asks for it (struct state_base).
 *
 * Layout, integers little-endian, written as a stream (its memory is a
 * megabyte, whatever the state's size):
 *
 *	"arc checkpoint 3\n"
 *	u64 dev, ino		the journal file
 *	u64 offset		bytes covered: the end of a record's line
 *	u64 first_seq		the journal header's seq
 *	u64 seq, records	the last record covered; how many are
 *	u64 last		where that record starts
 *	u32 last_crc		its line's CRC-32C, newline included
 *	str latest		the latest time recorded
 *	u64 count, then each condition:
 *		str key, str notification_id,
 *		part notification, part interaction,
 *		u8 active, priority, qstatus, i64 changed,
 *		opt expires_at, opt dismissed, opt route, opt handover
 *	u64 count, then each event remembered: 16 bytes ident,
 *		16 bytes content hash, i64 seconds
 *	u32 CRC-32C of all before it
 *
 * str: u32 length, then the bytes; opt: u8 0, or 1 and a str;
 * part: u64 off, u32 len, u64 line, u32 line_len (len 0: none).
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arccheckpoint.h"

#define MAGIC		"arc checkpoint 3\n"
#define MAGIC_LEN	(sizeof(MAGIC) - 1)
#define LINE_MAX_LEN	(64 * 1024 * 1024)	/* a record's, as the journal */

/* ---- writing ---- */

/* n bytes of v, least significant first. */
static void
put_le(struct buf *b, uint64_t v, int n)
{
	unsigned char	o[8];
	int		i;

	for (i = 0; i < n; i++)
		o[i] = (unsigned char)(v >> (8 * i));
	buf_put(b, o, (size_t)n);
}

static void
put_u64(struct buf *b, uint64_t v)
{
	put_le(b, v, 8);
}

static void
put_u32(struct buf *b, uint32_t v)
{
	put_le(b, v, 4);
}

static void
put_u8(struct buf *b, unsigned v)
{
	put_le(b, v, 1);
}

static void
put_str(struct buf *b, const char *s, size_t n)
{
	put_u32(b, (uint32_t)n);
	buf_put(b, s, n);
}

static void
put_opt(struct buf *b, const char *s)
{
	put_u8(b, s != NULL);
	if (s != NULL)
		put_str(b, s, strlen(s));
}

static void
put_part(struct buf *b, const struct span *sp)
{
	put_u64(b, sp->off);
	put_u32(b, sp->len);
	put_u64(b, sp->line);
	put_u32(b, sp->line_len);
}

#define FLUSH_AT	(1024 * 1024)

struct writing {
	struct buf	 b;
	uint32_t	 crc;	/* of what was flushed */
	bool		 ok;
	uint64_t	 count;
	bool		(*flush)(const char *, size_t, void *);
	void		*arg;
};

static void
flush_some(struct writing *w, bool last)
{
	if (!w->ok || (!last && w->b.len < FLUSH_AT))
		return;
	w->crc = crc32c_extend(w->crc, w->b.p, w->b.len);
	w->ok = w->flush(w->b.p, w->b.len, w->arg);
	w->b.len = 0;
}

static void
put_condition(struct writing *w, const struct condition *c)
{
	struct buf	*b = &w->b;

	if (c->notification.len == 0)
		return;
	put_str(b, c->key, c->keylen);
	put_str(b, c->notification_id, strlen(c->notification_id));
	put_part(b, &c->notification);
	put_part(b, &c->interaction);
	put_u8(b, c->active);
	put_u8(b, c->priority);
	put_u8(b, c->qstatus);
	put_u64(b, (uint64_t)c->changed);
	put_opt(b, c->expires_at);
	put_opt(b, c->dismissed);
	put_opt(b, c->route);
	put_opt(b, c->handover);
	flush_some(w, false);
}

/*
 * The state, caught up to head->offset, as a checkpoint handed to flush a
 * megabyte at a time (every record of it on disk: the journal asks so).
 * False: flush failed.
 */
bool
checkpoint_write(struct state *st, const struct checkpoint_head *head,
    bool (*flush)(const char *, size_t, void *), void *arg)
{
	struct writing		 w;
	struct buf		*b = &w.b;
	const struct condition	*c;
	uint8_t			 ident[16], content[16];
	int64_t			 when;
	size_t			 at;

	memset(&w, 0, sizeof(w));
	w.ok = true;
	w.flush = flush;
	w.arg = arg;
	for (c = state_first(st, &at); c != NULL; c = state_next(st, &at))
		if (c->notification.len > 0)
			w.count++;	/* what a compaction would keep */
	buf_put(b, MAGIC, MAGIC_LEN);
	put_u64(b, head->dev);
	put_u64(b, head->ino);
	put_u64(b, head->offset);
	put_u64(b, head->first_seq);
	put_u64(b, head->seq);
	put_u64(b, head->records);
	put_u64(b, head->last);
	put_u32(b, head->last_crc);
	put_str(b, head->latest, strlen(head->latest));
	put_u64(b, w.count);
	for (c = state_first(st, &at); c != NULL; c = state_next(st, &at))
		if (c->notification.len > 0)
			put_condition(&w, c);
	w.count = 0;
	at = 0;
	while (state_next_seen(st, &at, ident, content, &when))
		w.count++;
	put_u64(b, w.count);
	at = 0;
	while (state_next_seen(st, &at, ident, content, &when)) {
		buf_put(b, ident, 16);
		buf_put(b, content, 16);
		put_u64(b, (uint64_t)when);
		flush_some(&w, false);
	}
	flush_some(&w, true);
	put_u32(b, w.crc);
	flush_some(&w, true);
	buf_free(b);
	return w.ok;
}

/* ---- reading: every length and count checked against what is left ---- */

/* Little-endian, as written: a load where the host is so already. */
static uint64_t
le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static uint32_t
le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

struct reader {
	const unsigned char	*p, *end;
	bool			 ok;
};

/* The next n bytes, or NULL (and the reader failed) if there are fewer. */
static const unsigned char *
take(struct reader *r, size_t n)
{
	const unsigned char *p = r->p;

	if (!r->ok || (size_t)(r->end - r->p) < n) {
		r->ok = false;
		return NULL;
	}
	r->p += n;
	return p;
}

static uint64_t
get_u64(struct reader *r)
{
	const unsigned char *p = take(r, 8);

	return p != NULL ? le64(p) : 0;
}

static uint32_t
get_u32(struct reader *r)
{
	const unsigned char *p = take(r, 4);

	return p != NULL ? le32(p) : 0;
}

static unsigned
get_u8(struct reader *r)
{
	const unsigned char *p = take(r, 1);

	return p != NULL ? *p : 0;
}

/* A string of at most max bytes, seen where it is (no NUL inside). */
static struct sv
get_sv(struct reader *r, size_t max)
{
	uint32_t		 n = get_u32(r);
	const unsigned char	*p;

	if (n > max || (p = take(r, n)) == NULL || memchr(p, '\0', n) != NULL) {
		r->ok = false;
		return (struct sv){ NULL, 0 };
	}
	return (struct sv){ (const char *)p, n };
}

/* An optional string: a null view when it is absent. */
static struct sv
get_opt(struct reader *r, size_t max)
{
	unsigned present = get_u8(r);

	if (present > 1)
		r->ok = false;
	return present == 1 && r->ok ? get_sv(r, max) :
	    (struct sv){ NULL, 0 };
}

/* A part: inside its line, which ends (at its newline) within offset. */
static void
get_part(struct reader *r, struct span *sp, uint64_t offset)
{
	const unsigned char *p = take(r, 24);	/* its four fields at once */

	memset(sp, 0, sizeof(*sp));
	if (p == NULL)
		return;
	sp->off = le64(p);
	sp->len = le32(p + 8);
	sp->line = le64(p + 12);
	sp->line_len = le32(p + 20);
	if (sp->len == 0) {
		memset(sp, 0, sizeof(*sp));
		return;
	}
	sp->unchecked = true;
	if (sp->line >= offset || sp->line_len >= offset - sp->line ||
	    sp->line_len > LINE_MAX_LEN ||
	    sp->off < sp->line ||
	    sp->off - sp->line > sp->line_len - (uint64_t)sp->len ||
	    sp->len > sp->line_len)
		r->ok = false;
}

/*
 * A condition as the checkpoint holds it, as a record would put it; its
 * strings are views into the checkpoint, which state_put copies.
 */
static bool
get_condition(struct reader *r, struct stored *s, uint64_t offset)
{
	struct arc_instant	 t;
	struct sv		 key, id, expires_at;
	unsigned		 active, priority, qstatus;

	memset(s, 0, sizeof(*s));
	key = get_sv(r, SIZE_MAX);
	id = get_sv(r, 31);	/* a condition's notification_id[32] */
	get_part(r, &s->n, offset);
	get_part(r, &s->q, offset);
	active = get_u8(r);
	priority = get_u8(r);
	qstatus = get_u8(r);
	s->changed = (int64_t)get_u64(r);
	expires_at = get_opt(r, SIZE_MAX);
	s->dismissed = get_opt(r, SIZE_MAX);
	s->route = get_opt(r, SIZE_MAX);
	s->handover = get_opt(r, SIZE_MAX);
	if (!r->ok || key.n == 0 || active > 1 ||
	    priority > P_CRITICAL || qstatus > Q_SUPERSEDED ||
	    s->n.len == 0 || (qstatus == Q_NONE) != (s->q.len == 0) ||
	    (expires_at.p != NULL) != (qstatus == Q_PENDING))
		return false;
	/*
	 * Parsed, not taken on the checksum's word: a deadline every later
	 * comparison trusts is checked where it comes in, as a record's is.
	 */
	if (expires_at.p != NULL) {
		if (!rfc3339_parse(expires_at.p, expires_at.n, &t))
			return false;
		s->ix.due = t.seconds;
	}
	s->ix.key = key;
	s->ix.notification_id = id;
	s->ix.nlen = s->n.len;
	s->ix.qlen = s->q.len;
	s->ix.active = active == 1;
	s->ix.priority = (enum priority)priority;
	s->ix.qstatus = (enum qstatus)qstatus;
	s->ix.expires_at = expires_at;
	return true;
}

/* ---- the state it holds, read when asked ---- */

/*
 * The conditions' framing, read at once: where each begins, its key's
 * hash and an index by it.  A condition is read whole (get_condition),
 * each of its values checked, when the state asks for it; the events,
 * 40 bytes each, are looked at where they lie.
 */
struct lazy {
	const char		*data;
	uint64_t		 offset;	/* the head's: parts end within */
	const char		*end;		/* of the conditions */
	size_t			 n, cap;
	uint64_t		*at, *hash;
	uint32_t		*slots;		/* 1 + a condition's number */
	const unsigned char	*events;
	size_t			 nevents, event_cap;
	uint32_t		*event_slots;
	bool			 bulk;		/* checked once, at the end */
	struct checkpoint_source src;
};

/* Whether the bytes are still as decoded: if not, the source says so. */
static bool
lazy_same(struct lazy *z)
{
	if (z->src.unchanged == NULL || z->src.unchanged(z->src.arg))
		return true;
	z->src.damaged(z->src.arg, true, 0);
	return false;
}

/* After a read of the bytes, one at a time. */
static void
lazy_check(struct lazy *z)
{
	if (!z->bulk)
		(void)lazy_same(z);
}

/*
 * The slot of the condition under key (hash h), or the empty one where
 * it would go; *read: a key of the mapped bytes was compared.  Inline:
 * every condition's key goes through it as a command starts.
 */
static inline size_t
key_slot(const struct lazy *z, uint64_t h, struct sv key, bool *read)
{
	size_t		 i = (size_t)h & (z->cap - 1), e;
	const char	*p;

	for (; z->slots[i] != 0; i = (i + 1) & (z->cap - 1)) {
		e = z->slots[i] - 1;
		if (z->hash[e] != h)
			continue;
		*read = true;
		p = z->data + z->at[e];
		if (le32((const unsigned char *)p) == key.n &&
		    memcmp(p + 4, key.p, key.n) == 0)
			break;
	}
	return i;
}

/* The slot of the event of this identity, or the empty one for it. */
static inline size_t
event_slot(const struct lazy *z, const uint8_t ident[16])
{
	uint64_t	 h;
	size_t		 i;

	memcpy(&h, ident, sizeof(h));
	for (i = (size_t)h & (z->event_cap - 1); z->event_slots[i] != 0;
	    i = (i + 1) & (z->event_cap - 1))
		if (memcmp(z->events + 40 * (z->event_slots[i] - 1), ident,
		    16) == 0)
			break;
	return i;
}

static size_t
lazy_find(void *arg, struct sv key)
{
	struct lazy	*z = arg;
	bool		 read = false;
	size_t		 i = key_slot(z, state_key_hash(key.p, key.n), key,
			    &read);

	if (read)
		lazy_check(z);
	return z->slots[i] != 0 ? z->slots[i] - 1 : SIZE_MAX;
}

static bool
lazy_condition(void *arg, size_t i, struct stored *s)
{
	struct lazy	*z = arg;
	struct reader	 r = { (const unsigned char *)z->data + z->at[i],
	    (const unsigned char *)z->end, true };

	if (!get_condition(&r, s, z->offset)) {
		/* bytes changed under us are not arc's doing to undo */
		if (lazy_same(z))
			z->src.damaged(z->src.arg, false, z->at[i]);
		return false;
	}
	lazy_check(z);
	return true;
}

static size_t
lazy_find_event(void *arg, const uint8_t ident[16])
{
	struct lazy	*z = arg;
	uint64_t	 h;
	size_t		 i;

	memcpy(&h, ident, sizeof(h));
	if (z->event_slots[(size_t)h & (z->event_cap - 1)] == 0)
		return SIZE_MAX;	/* nothing of the mapped bytes read */
	i = event_slot(z, ident);
	lazy_check(z);
	return z->event_slots[i] != 0 ? z->event_slots[i] - 1 : SIZE_MAX;
}

static void
lazy_event(void *arg, size_t i, struct stored *s)
{
	struct lazy *z = arg;

	memset(s, 0, sizeof(*s));
	s->ident = z->events + 40 * i;
	s->hash = s->ident + 16;
	s->at = (int64_t)le64(s->ident + 32);
	lazy_check(z);
}

static bool
lazy_all(void *arg, bool begin)
{
	struct lazy *z = arg;

	z->bulk = begin;
	return begin || lazy_same(z);
}

static void
lazy_free(void *arg)
{
	struct lazy *z = arg;

	if (z == NULL)
		return;
	free(z->at);
	free(z->hash);
	free(z->slots);
	free(z->event_slots);
	if (z->src.release != NULL)
		z->src.release(z->src.arg);
	free(z);
}

/* A table of at least n * 4 / 3 slots, a power of two. */
static size_t
slots_for(size_t n)
{
	size_t cap = 16;

	while (cap / 4 * 3 < n)
		cap *= 2;
	return cap;
}

/*
 * A condition's framing: its key, its parts' bytes and when it changed,
 * every length within what is left.  Its values are checked when it is
 * read (get_condition).
 */
static bool
frame_condition(struct reader *r, struct sv *key, uint64_t *parts,
    int64_t *changed)
{
	const unsigned char	*p;
	uint32_t		 n;
	int			 i;

	*parts = 0;
	n = get_u32(r);
	key->p = (const char *)take(r, n);
	key->n = n;
	n = get_u32(r);
	if (n > 31)
		r->ok = false;
	(void)take(r, n);
	if ((p = take(r, 48 + 3)) != NULL)
		*parts = (uint64_t)le32(p + 8) + le32(p + 24 + 8);
	*changed = (int64_t)get_u64(r);
	for (i = 0; i < 4; i++)
		if (get_u8(r) == 1)
			(void)take(r, get_u32(r));
		else if (r->ok && r->p[-1] != 0)
			r->ok = false;
	return r->ok && key->n > 0;
}

/* Condition e into the index; false if its key is there already. */
static bool
index_condition(struct lazy *z, size_t e, struct sv key)
{
	bool	 read = false;
	size_t	 i = key_slot(z, z->hash[e], key, &read);

	if (z->slots[i] != 0)
		return false;
	z->slots[i] = (uint32_t)e + 1;
	return true;
}

/* Event e into the index; false if its identity is there already. */
static bool
index_event(struct lazy *z, size_t e)
{
	size_t i = event_slot(z, z->events + 40 * e);

	if (z->event_slots[i] != 0)
		return false;
	z->event_slots[i] = (uint32_t)e + 1;
	return true;
}

/* The decode under way: a SIGBUS in it leaves it to checkpoint_abandon. */
static struct lazy	*decoding;

void
checkpoint_abandon(void)
{
	struct lazy *z = decoding;

	decoding = NULL;
	if (z != NULL) {
		z->src.release = NULL;
		lazy_free(z);
	}
}

/*
 * Reads a checkpoint's head and the framing of what it holds, and hands
 * that to an empty state to read when asked; the caller checks *head
 * against the journal before it takes the state.  False: not a
 * checkpoint we can trust (its checksum, a length, a count or a key
 * twice); the state is then to be thrown away, and the bytes are still
 * the caller's.  On success they are the state's, let go by src.release.
 */
bool
checkpoint_decode(struct state *st, const char *data, size_t len,
    struct checkpoint_head *head, const struct checkpoint_source *src)
{
	struct reader		 r;
	struct lazy		*z;
	struct state_base	 b;
	struct sv		 latest, key;
	uint64_t		 n, i, parts = 0;
	int64_t			 changed, seen;
	uint32_t		 crc;

	if (len < MAGIC_LEN + 4 || memcmp(data, MAGIC, MAGIC_LEN) != 0)
		return false;
	crc = le32((const unsigned char *)data + len - 4);
	if (crc != crc32c(data, len - 4))
		return false;
	r.p = (const unsigned char *)data + MAGIC_LEN;
	r.end = (const unsigned char *)data + len - 4;
	r.ok = true;
	memset(head, 0, sizeof(*head));
	head->dev = get_u64(&r);
	head->ino = get_u64(&r);
	head->offset = get_u64(&r);
	head->first_seq = get_u64(&r);
	head->seq = get_u64(&r);
	head->records = get_u64(&r);
	head->last = get_u64(&r);
	head->last_crc = get_u32(&r);
	latest = get_sv(&r, sizeof(head->latest) - 1);
	if (!r.ok || head->last >= head->offset || (latest.n > 0 &&
	    !rfc3339_parse(latest.p, latest.n, &(struct arc_instant){ 0 })))
		return false;
	memcpy(head->latest, latest.p, latest.n);
	head->latest[latest.n] = '\0';
	n = get_u64(&r);
	/* A condition takes more than 64 bytes: a count past that is a lie. */
	if (!r.ok || n > (uint64_t)(r.end - r.p) / 64 || n >= UINT32_MAX)
		return false;
	if ((z = calloc(1, sizeof(*z))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	decoding = z;
	memset(&b, 0, sizeof(b));
	z->data = data;
	z->offset = head->offset;
	z->n = (size_t)n;
	z->cap = slots_for(z->n);
	if ((z->at = reallocarray(NULL, z->n + 1, sizeof(*z->at))) == NULL ||
	    (z->hash = reallocarray(NULL, z->n + 1, sizeof(*z->hash))) ==
	    NULL ||
	    (z->slots = calloc(z->cap, sizeof(*z->slots))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	b.changed_floor = b.seen_floor = INT64_MAX;
	for (i = 0; i < n; i++) {
		z->at[i] = (uint64_t)((const char *)r.p - data);
		if (!frame_condition(&r, &key, &parts, &changed))
			goto fail;
		z->hash[i] = state_key_hash(key.p, key.n);
		if (!index_condition(z, (size_t)i, key))
			goto fail;	/* a key twice: no checkpoint of ours */
		b.span_bytes += parts;
		if (changed < b.changed_floor)
			b.changed_floor = changed;
	}
	z->end = (const char *)r.p;
	n = get_u64(&r);
	/* Each event takes 40 bytes: a count past what is left is a lie. */
	if (!r.ok || n > (uint64_t)(r.end - r.p) / 40 ||
	    (uint64_t)(r.end - r.p) != n * 40 || n >= UINT32_MAX)
		goto fail;
	z->events = r.p;
	if (!state_readers_only(st)) {
		z->nevents = (size_t)n;
		z->event_cap = slots_for(z->nevents);
		if ((z->event_slots = calloc(z->event_cap,
		    sizeof(*z->event_slots))) == NULL)
			err(EXIT_SYSTEM, "calloc");
		for (i = 0; i < n; i++) {
			if (!index_event(z, (size_t)i))
				goto fail;
			seen = (int64_t)le64(z->events + 40 * i + 32);
			if (seen < b.seen_floor)
				b.seen_floor = seen;
		}
	}	/* (a reader's state looks no event up) */
	z->src = *src;
	b.arg = z;
	b.conditions = z->n;
	b.events = z->nevents;
	b.find = lazy_find;
	b.find_event = lazy_find_event;
	b.condition = lazy_condition;
	b.event = lazy_event;
	b.all = lazy_all;
	b.release = lazy_free;
	decoding = NULL;
	state_set_base(st, &b);
	return true;
fail:
	decoding = NULL;
	z->src.release = NULL;	/* the bytes stay the caller's */
	lazy_free(z);
	return false;
}
