/*
 * The journal's line format (arc-journal(5)), as LevelDB keeps its log's
 * in log_format.h: the header, a record's envelope, its index and its
 * frame; a change encoded as a line, and a line decoded into what the
 * state keeps of it.  No I/O: arcjournal.c owns the file.
 *
 * A record's frame: the JSON object, its last member "crc" holding the
 * CRC-32C (8 hex digits) of every byte before ,"crc":, then a newline.
 * Every record also holds "seq" (one more than the record before it) and
 * "durable" (the seq of the last record known to be on disk when it was
 * written), which tells an unfinished write from damage.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arclog.h"

#define CRC_TAIL	",\"crc\":\""	/* then 8 hex digits and "} */
#define CRC_TAIL_LEN	(sizeof(CRC_TAIL) - 1)
#define FRAME_LEN	(CRC_TAIL_LEN + 10)

/* ---- the frame ---- */

static void
log_seal(struct buf *b, size_t start)
{
	static const char	 hex[] = "0123456789abcdef";
	uint32_t		 crc = crc32c(b->p + start, b->len - start);
	char			 tail[] = CRC_TAIL "00000000\"}\n";
	size_t			 i, at = sizeof(CRC_TAIL) - 1;

	for (i = 0; i < 8; i++)
		tail[at + i] = hex[(crc >> (28 - 4 * i)) & 15];
	buf_put(b, tail, sizeof(tail) - 1);
}

/* The frame's tail, FRAME_LEN bytes: its shape, and the CRC-32C it holds. */
static bool
frame_tail(const char *tail, uint32_t *crc)
{
	size_t i;

	if (memcmp(tail, CRC_TAIL, CRC_TAIL_LEN) != 0 ||
	    tail[FRAME_LEN - 2] != '"' || tail[FRAME_LEN - 1] != '}')
		return false;
	*crc = 0;
	for (i = 0; i < 8; i++) {
		char c = tail[CRC_TAIL_LEN + i];
		if (c >= '0' && c <= '9')
			*crc = *crc << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*crc = *crc << 4 | (uint32_t)(c - 'a' + 10);
		else
			return false;
	}
	return true;
}

bool
log_frame_ok(const char *line, size_t len)
{
	uint32_t crc;

	return len > FRAME_LEN && line[0] == '{' &&
	    frame_tail(line + len - FRAME_LEN, &crc) &&
	    crc == crc32c(line, len - FRAME_LEN);
}

/*
 * Whether another byte at line[at] makes the frame sound: a whole record
 * with one byte changed.  In the checksum's part of the frame, each byte
 * is tried there.  Elsewhere the CRC is affine in the bytes it covers, so
 * the CRCs of all 256 bytes there come from nine passes over the rest:
 * the CRC with a zero there, and what each of the byte's eight bits adds.
 */
bool
log_frame_mended(const char *line, size_t len, size_t at)
{
	uint32_t	 want, pre, zero, bit[8], crc;
	size_t		 body, rest;
	unsigned	 c, i;
	unsigned char	 b;
	char		 tail[FRAME_LEN];

	if (len <= FRAME_LEN || at >= len || (at > 0 && line[0] != '{'))
		return false;
	body = len - FRAME_LEN;
	if (at >= body) {
		memcpy(tail, line + body, FRAME_LEN);
		crc = crc32c(line, body);
		for (c = 0; c < 256; c++) {
			tail[at - body] = (char)c;
			if (c != (unsigned char)line[at] &&
			    frame_tail(tail, &want) && want == crc)
				return true;
		}
		return false;
	}
	if (!frame_tail(line + body, &want))
		return false;
	rest = body - at - 1;
	pre = crc32c(line, at);
	b = 0;
	zero = crc32c_extend(crc32c_extend(pre, &b, 1), line + at + 1, rest);
	for (i = 0; i < 8; i++) {
		b = (unsigned char)(1u << i);
		bit[i] = crc32c_extend(crc32c_extend(pre, &b, 1),
		    line + at + 1, rest) ^ zero;
	}
	for (c = 0; c < 256; c++) {
		if (c == (unsigned char)line[at] || (at == 0 && c != '{'))
			continue;
		for (crc = zero, i = 0; i < 8; i++)
			if (c & 1u << i)
				crc ^= bit[i];
		if (crc == want)
			return true;
	}
	return false;
}

/* An integer member of a framed record ("seq", "durable"), or -1. */
int64_t
log_number(struct arena *a, const char *line, size_t len, const char *name)
{
	struct jparse_error	 e;
	struct jval		*r, *v;

	arena_reset(a);
	if ((r = json_parse_shallow(a, line, len, &e, 1)) == NULL ||
	    (v = json_get(r, name)) == NULL || v->type != J_NUMBER ||
	    !v->integer || v->s[0] == '-' || v->len > 18)
		return -1;
	return strtoll(v->s, NULL, 10);
}

void
log_header(struct buf *b, uint64_t seq)
{
	buf_printf(b, LOG_MAGIC "2,\"seq\":%llu", (unsigned long long)seq);
	log_seal(b, 0);
}

/* ---- the index ---- */

/*
 * {"key":K,"notification":[LENGTH,ID,STATUS,PRIORITY],
 *  "interaction":[LENGTH,STATUS(,EXPIRES_AT)]}, each part if the record
 * has it; a question's deadline only while it is pending.
 */
static void
index_write(struct buf *b, const struct record_index *ix)
{
	buf_puts(b, "{\"key\":");
	buf_json_str(b, ix->key.p, ix->key.n);
	if (ix->nlen > 0) {
		buf_puts(b, ",\"notification\":[");
		buf_u64(b, ix->nlen);
		buf_putc(b, ',');
		buf_json_str(b, ix->notification_id.p, ix->notification_id.n);
		buf_puts(b, ix->active ? ",\"active\",\"" : ",\"resolved\",\"");
		buf_puts(b, priority_name(ix->priority));
		buf_puts(b, "\"]");
	}
	if (ix->qlen > 0) {
		buf_puts(b, ",\"interaction\":[");
		buf_u64(b, ix->qlen);
		buf_puts(b, ",\"");
		buf_puts(b, qstatus_name(ix->qstatus));
		buf_putc(b, '"');
		if (ix->expires_at.p != NULL) {
			buf_putc(b, ',');
			buf_json_str(b, ix->expires_at.p, ix->expires_at.n);
		}
		buf_putc(b, ']');
	}
	buf_putc(b, '}');
}

/* A part's length: from 2, the least object, to 2^32 - 1. */
static bool
index_length(struct jcursor *cur, uint32_t *out)
{
	int64_t n;

	if (json_cursor_item(cur) != 1 || !json_cursor_integer(cur, &n) ||
	    n < 2 || n > (int64_t)UINT32_MAX)
		return false;
	*out = (uint32_t)n;
	return true;
}

static bool
index_string(struct jcursor *cur, struct sv *out)
{
	return json_cursor_item(cur) == 1 &&
	    json_cursor_string(cur, &out->p, &out->n);
}

/* [LENGTH,ID,STATUS,PRIORITY] */
static bool
index_notification(struct jcursor *cur, struct record_index *ix)
{
	struct jcursor	a;
	struct sv	status, priority;
	size_t		i;

	json_cursor_enter(cur, &a);
	if (!index_length(&a, &ix->nlen) ||
	    !index_string(&a, &ix->notification_id) ||
	    !index_string(&a, &status) || !index_string(&a, &priority) ||
	    json_cursor_item(&a) != 0)
		return false;
	json_cursor_leave(cur, &a);
	if (!sv_eq(status, "active") && !sv_eq(status, "resolved"))
		return false;
	ix->active = sv_eq(status, "active");
	for (i = P_LOW; i <= P_CRITICAL; i++)
		if (sv_eq(priority, priority_name(i)))
			break;
	ix->priority = (enum priority)i;
	return i <= P_CRITICAL;
}

/* [LENGTH,STATUS] or, pending, [LENGTH,"pending",EXPIRES_AT] */
static bool
index_interaction(struct jcursor *cur, struct record_index *ix)
{
	struct jcursor		a;
	struct sv		status;
	struct arc_instant	t;

	json_cursor_enter(cur, &a);
	if (!index_length(&a, &ix->qlen) || !index_string(&a, &status) ||
	    (ix->qstatus = qstatus_of(status)) == Q_NONE)
		return false;
	/* A pending question's deadline, parsed: it is relied on. */
	if (ix->qstatus == Q_PENDING) {
		if (!index_string(&a, &ix->expires_at) ||
		    !rfc3339_parse(ix->expires_at.p, ix->expires_at.n, &t))
			return false;
		ix->due = t.seconds;
	}
	if (json_cursor_item(&a) != 0)
		return false;
	json_cursor_leave(cur, &a);
	return true;
}

/* As index_write writes it, at the cursor, or false: the record is damaged. */
static bool
index_read(struct jcursor *cur, struct record_index *ix)
{
	struct jcursor	 o;
	const char	*name;
	size_t		 len;
	int		 more;
	bool		 ok;

	memset(ix, 0, sizeof(*ix));
	json_cursor_enter(cur, &o);
	while ((more = json_cursor_name(&o, &name, &len)) == 1) {
		if (len == 3 && memcmp(name, "key", 3) == 0)
			ok = ix->key.p == NULL &&
			    json_cursor_string(&o, &ix->key.p, &ix->key.n);
		else if (len == 12 && memcmp(name, "notification", 12) == 0)
			ok = ix->nlen == 0 && index_notification(&o, ix);
		else if (len == 11 && memcmp(name, "interaction", 11) == 0)
			ok = ix->qlen == 0 && index_interaction(&o, ix);
		else
			ok = json_cursor_skip(&o);	/* a newer writer's */
		if (!ok)
			return false;
	}
	json_cursor_leave(cur, &o);
	return more == 0 && ix->key.p != NULL && (ix->nlen > 0 || ix->qlen > 0);
}

/* ---- decoding a line ---- */

enum part { PART_OTHER, PART_HEADER, PART_SEQ, PART_AT, PART_SINCE,
    PART_EVENT, PART_INDEX, PART_NOTIFICATION, PART_INTERACTION, PART_SEEN,
    PART_DISMISSED, PART_ROUTE, PART_HANDOVER };

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
	case 8:		return IS("handover") ? PART_HANDOVER : PART_OTHER;
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
read_event(struct jcursor *cur, struct log_record *r)
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
	if (more != 0 || !hex_decode(ident, r->ident, 16) ||
	    !hex_decode(hash, r->hash, 16))
		return false;
	r->put.ident = r->ident;
	r->put.hash = r->hash;
	return true;
}

/* A notification or question: stepped over by the index's length. */
static bool
read_part(struct jcursor *cur, struct log_record *r, bool interaction,
    bool indexed, const char **text, const struct jval **v)
{
	uint32_t len = interaction ? r->put.ix.qlen : r->put.ix.nlen;

	if (*text != NULL || *v != NULL)
		return false;
	if (indexed)
		return len > 0 &&
		    (*text = json_cursor_skip_object(cur, len)) != NULL;
	return (*v = json_cursor_value(cur)) != NULL;
}

/* A part's text in a line found at line_offset. */
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

/*
 * One pass over a record's members.  Once its index is read, the
 * notification and question after it are stepped over by their lengths:
 * the checksum vouches for their text, which is parsed, strictly, when a
 * command uses it.  Without an index (a record from before the index)
 * they are parsed here, and the index is made from them.  Whoever only
 * reads (readers) skips the events and the seen lists.
 */
bool
log_decode(struct arena *a, const char *line, size_t len, uint64_t offset,
    bool readers, struct log_record *r)
{
	struct jcursor		 cur;
	struct arc_instant	 at;
	const char		*name, *ntext = NULL, *qtext = NULL;
	const struct jval	*nv = NULL, *qv = NULL;
	struct rec		 n, q;
	size_t			 namelen;
	int64_t			 seq, since = 0;
	int			 more;
	bool			 ok, indexed = false, has_since = false;
	unsigned		 had = 0;
	enum part		 part;

	memset(r, 0, sizeof(*r));
	json_cursor_open(&cur, a, line, len);
	while ((more = json_cursor_name(&cur, &name, &namelen)) == 1) {
		part = part_named(name, namelen);
		if (part != PART_OTHER && (had & 1u << part))
			return false;	/* twice */
		had |= 1u << part;
		switch (part) {
		case PART_SEQ:
			ok = json_cursor_integer(&cur, &seq) && seq >= 0;
			r->seq = (uint64_t)seq;
			r->has_seq = true;
			break;
		case PART_AT:
			ok = json_cursor_string(&cur, &r->at.p, &r->at.n);
			break;
		case PART_SINCE:
			ok = json_cursor_integer(&cur, &since);
			has_since = true;
			break;
		case PART_EVENT:
			ok = readers ? json_cursor_skip(&cur) :
			    read_event(&cur, r);
			break;
		case PART_INDEX:
			ok = ntext == NULL && qtext == NULL &&
			    index_read(&cur, &r->put.ix);
			indexed = true;
			break;
		case PART_NOTIFICATION:
			ok = read_part(&cur, r, false, indexed, &ntext, &nv);
			break;
		case PART_INTERACTION:
			ok = read_part(&cur, r, true, indexed, &qtext, &qv);
			break;
		case PART_SEEN:
			ok = readers ? json_cursor_skip(&cur) :
			    (r->seen = json_cursor_value(&cur)) != NULL &&
			    r->seen->type == J_ARRAY;
			break;
		case PART_DISMISSED:
			ok = json_cursor_string(&cur, &r->put.dismissed.p,
			    &r->put.dismissed.n);
			break;
		case PART_ROUTE:
			ok = json_cursor_string(&cur, &r->put.route.p,
			    &r->put.route.n);
			break;
		case PART_HANDOVER: {
			const struct jval *h = json_cursor_value(&cur);
			if ((ok = h != NULL && h->type == J_OBJECT)) {
				r->put.handover.p = h->raw;
				r->put.handover.n = h->rawlen;
			}
			break;
		}
		case PART_HEADER:
			r->header = true;
			/* FALLTHROUGH */
		default:
			ok = json_cursor_skip(&cur);	/* durable, crc, ... */
		}
		if (!ok)
			return false;
	}
	if (more != 0)
		return false;
	if (r->header)
		return true;
	if (!r->has_seq || r->at.p == NULL || !rfc3339_parse(r->at.p, r->at.n,
	    &at))
		return false;
	r->at_instant = at;
	r->put.at = at.seconds;
	/* When its condition last changed: now, or before a compaction. */
	r->put.changed = has_since ? since : at.seconds;
	if (!indexed) {
		if ((nv != NULL && (!rec_from_jval(nv, false, &n) ||
		    !rec_sane(&n, false))) || (qv != NULL &&
		    (!rec_from_jval(qv, true, &q) || !rec_sane(&q, true))))
			return false;
		if (nv == NULL && qv == NULL)
			return true;
		index_of(&r->put.ix, nv != NULL ? &n : NULL,
		    nv != NULL ? nv->rawlen : 0, qv != NULL ? &q : NULL,
		    qv != NULL ? qv->rawlen : 0);
		ntext = nv != NULL ? nv->raw : NULL;
		qtext = qv != NULL ? qv->raw : NULL;
	}
	/* The index tells of exactly the parts the record has. */
	if ((r->put.ix.nlen > 0) != (ntext != NULL) ||
	    (r->put.ix.qlen > 0) != (qtext != NULL))
		return false;
	if (ntext != NULL)
		r->put.n = span_in(line, len, offset, ntext, r->put.ix.nlen);
	if (qtext != NULL)
		r->put.q = span_in(line, len, offset, qtext, r->put.ix.qlen);
	return true;
}

bool
log_seen_item(const struct jval *list, size_t i, uint8_t ident[16],
    uint8_t content[16], int64_t *at)
{
	const struct jval *e = list->items[i];

	if (e->type != J_ARRAY || e->n != 3 ||
	    !hex_decode(sv_json(e->items[0]), ident, 16) ||
	    !hex_decode(sv_json(e->items[1]), content, 16) ||
	    e->items[2]->type != J_NUMBER || !e->items[2]->integer)
		return false;
	*at = strtoll(e->items[2]->s, NULL, 10);
	return true;
}

/* ---- encoding ---- */

static void
envelope(struct buf *out, uint64_t seq, uint64_t durable, const char *at)
{
	buf_puts(out, "{\"seq\":");
	buf_u64(out, seq);
	buf_puts(out, ",\"durable\":");
	buf_u64(out, durable);
	buf_puts(out, ",\"at\":");
	buf_json_cstr(out, at);
}

/*
 * One record of a change: the event that made it (its identity and
 * content hash, 128 bits each, for idempotency), if any, the index, the
 * condition's notification and current question as they now are.  Its
 * parts are written aside first: the index ahead gives their lengths.
 */
void
log_encode(struct buf *out, struct buf *scratch, uint64_t seq,
    uint64_t durable, const char *at, const struct change *ch)
{
	struct record_index	 ix;
	size_t			 nlen, record = out->len;

	envelope(out, seq, durable, at);
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
	scratch->len = 0;
	if (ch->has_n)
		rec_write(scratch, &ch->n, false, false);
	nlen = scratch->len;
	if (ch->has_q)
		rec_write(scratch, &ch->q, true, false);
	if (scratch->len > UINT32_MAX)
		errx(EXIT_SYSTEM, "internal error: a record too long");
	/* A record of an event alone (a replay that changed nothing) has none. */
	if (ch->has_n || ch->has_q) {
		index_of(&ix, ch->has_n ? &ch->n : NULL, nlen,
		    ch->has_q ? &ch->q : NULL, scratch->len - nlen);
		buf_puts(out, ",\"index\":");
		index_write(out, &ix);
	}
	if (ch->has_n) {
		buf_puts(out, ",\"notification\":");
		buf_put(out, scratch->p, nlen);
	}
	if (ch->has_q) {
		buf_puts(out, ",\"interaction\":");
		buf_put(out, scratch->p + nlen, scratch->len - nlen);
	}
	if (ch->superseded.p != NULL) {
		buf_puts(out, ",\"superseded\":");
		buf_json_str(out, ch->superseded.p, ch->superseded.n);
	}
	if (ch->dismissed != NULL) {
		buf_puts(out, ",\"dismissed\":");
		buf_json_cstr(out, ch->dismissed);
	}
	if (ch->has_n && ch->route != NULL) {
		buf_puts(out, ",\"route\":");
		buf_json_cstr(out, ch->route);
	}
	if (ch->has_n && ch->handover != NULL) {
		buf_puts(out, ",\"handover\":");
		buf_puts(out, ch->handover);
	}
	log_seal(out, record);
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

/* A compaction's record of a kept condition, its texts as stored. */
void
log_encode_kept(struct buf *out, uint64_t seq, uint64_t durable,
    const char *at, const struct condition *c, struct sv ntext,
    struct sv qtext)
{
	struct record_index	ix;
	size_t			start = out->len;

	envelope(out, seq, durable, at);
	buf_puts(out, ",\"since\":");
	buf_i64(out, c->changed);
	buf_puts(out, ",\"index\":");
	condition_index(c, &ix);
	index_write(out, &ix);
	buf_puts(out, ",\"notification\":");
	buf_put(out, ntext.p, ntext.n);
	if (c->interaction.len > 0) {
		buf_puts(out, ",\"interaction\":");
		buf_put(out, qtext.p, qtext.n);
	}
	if (c->dismissed != NULL) {
		buf_puts(out, ",\"dismissed\":");
		buf_json_cstr(out, c->dismissed);
	}
	if (c->route != NULL) {
		buf_puts(out, ",\"route\":");
		buf_json_cstr(out, c->route);
	}
	if (c->handover != NULL) {
		buf_puts(out, ",\"handover\":");
		buf_puts(out, c->handover);
	}
	log_seal(out, start);
}

/* A compaction's record of events seen: begun, each added, ended. */
void
log_encode_seen(struct buf *out, size_t *start, size_t *in_record,
    uint64_t seq, uint64_t durable, const char *at, const uint8_t ident[16],
    const uint8_t content[16], int64_t seconds)
{
	static const char	 hex[] = "0123456789abcdef";
	char			 h[33], c[33];
	size_t			 k;

	for (k = 0; k < 16; k++) {
		h[2 * k] = hex[ident[k] >> 4];
		h[2 * k + 1] = hex[ident[k] & 15];
		c[2 * k] = hex[content[k] >> 4];
		c[2 * k + 1] = hex[content[k] & 15];
	}
	h[32] = c[32] = '\0';
	if (*in_record == 0) {
		*start = out->len;
		envelope(out, seq, durable, at);
		buf_puts(out, ",\"seen\":[");
	} else {
		buf_putc(out, ',');
	}
	buf_puts(out, "[\"");
	buf_puts(out, h);
	buf_puts(out, "\",\"");
	buf_puts(out, c);
	buf_puts(out, "\",");
	buf_i64(out, seconds);
	buf_putc(out, ']');
	(*in_record)++;
}

void
log_encode_seen_end(struct buf *out, size_t start, size_t *in_record)
{
	if (*in_record == 0)
		return;
	buf_putc(out, ']');
	log_seal(out, start);
	*in_record = 0;
}
