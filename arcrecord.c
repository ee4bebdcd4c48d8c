/*
 * The records: the notification and interaction records of arc(7), as
 * field tables, and their two JSON forms (the full one printed, the
 * journal's without nulls).  Also the string views the records are made of.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcstate.h"

enum fkind { F_STR, F_RAW, F_RAW_OMIT_NULL };
struct fdesc {
	const char	*name;
	enum fkind	 kind;
	size_t		 len;
};

static const struct fdesc notification_fields[N_FIELDS] = {
	{ "id", F_STR, 2 }, { "key", F_STR, 3 }, { "status", F_STR, 6 },
	{ "outcome", F_STR, 7 }, { "kind", F_STR, 4 }, { "type", F_STR, 4 },
	{ "priority", F_STR, 8 }, { "title", F_STR, 5 }, { "message", F_STR, 7 },
	{ "agent", F_STR, 5 }, { "agent_name", F_STR, 10 },
	{ "agent_instance", F_STR, 14 }, { "project", F_STR, 7 },
	{ "session_id", F_STR, 10 }, { "correlation_id", F_STR, 14 },
	{ "created_at", F_STR, 10 }, { "updated_at", F_STR, 10 },
	{ "resolved_at", F_STR, 11 }, { "event_id", F_STR, 8 },
};

static const struct fdesc interaction_fields[I_FIELDS] = {
	{ "id", F_STR, 2 }, { "key", F_STR, 3 }, { "notification_id", F_STR, 15 },
	{ "kind", F_STR, 4 }, { "title", F_STR, 5 }, { "prompt", F_STR, 6 },
	{ "choices", F_RAW, 7 }, { "text_max_length", F_RAW_OMIT_NULL, 15 },
	{ "expires_at", F_STR, 10 }, { "status", F_STR, 6 }, { "digest", F_STR, 6 },
	{ "nonce", F_STR, 5 }, { "session_id", F_STR, 10 }, { "turn_id", F_STR, 7 },
	{ "native_request_id", F_STR, 17 }, { "created_at", F_STR, 10 },
	{ "updated_at", F_STR, 10 }, { "answered_at", F_STR, 11 },
	{ "response", F_RAW, 8 },
};

struct sv
sv_str(const char *s)
{
	struct sv v = { s, s ? strlen(s) : 0 };
	return v;
}

struct sv
sv_json(const struct jval *v)
{
	struct sv out = { NULL, 0 };

	if (v != NULL && v->type == J_STRING) {
		out.p = v->s;
		out.n = v->len;
	}
	return out;
}

bool
sv_eq(struct sv a, const char *b)
{
	return a.p != NULL && a.n == strlen(b) && memcmp(a.p, b, a.n) == 0;
}

bool
sv_same(struct sv a, struct sv b)
{
	if (a.p == NULL || b.p == NULL)
		return a.p == b.p;
	return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* A NUL-terminated copy in the arena, for what C strings must carry. */
const char *
sv_cstr(struct arena *a, struct sv v)
{
	char *s = arena_alloc(a, v.n + 1);

	memcpy(s, v.p, v.n);
	s[v.n] = '\0';
	return s;
}

const char *
sv_cstr_of(struct arena *a, struct sv v)
{
	return v.p == NULL ? "" : sv_cstr(a, v);
}

struct sv
sv_buf(struct arena *a, const struct buf *b)
{
	struct sv v;
	char *s = arena_alloc(a, b->len + 1);

	memcpy(s, b->p, b->len);
	s[b->len] = '\0';
	v.p = s;
	v.n = b->len;
	return v;
}

static const struct fdesc *
fields_of(bool interaction, size_t *n)
{
	*n = interaction ? I_FIELDS : N_FIELDS;
	return interaction ? interaction_fields : notification_fields;
}

bool
rec_from_jval(const struct jval *o, bool interaction, struct rec *r)
{
	const struct fdesc	*fd;
	size_t			 nf, i, j = 0, k, next;

	memset(r, 0, sizeof(*r));
	if (o == NULL || o->type != J_OBJECT)
		return false;
	fd = fields_of(interaction, &nf);
	next = 0;
	for (i = 0; i < o->n; i++) {
		const struct jmember *m = &o->members[i];
		/* Records are written in table order: try the next one first. */
		for (k = 0; k < nf; k++) {
			j = (next + k) % nf;
			if (fd[j].len == m->namelen &&
			    memcmp(fd[j].name, m->name, m->namelen) == 0)
				break;
		}
		if (k == nf)
			continue;	/* a newer writer's field: ignored */
		next = j + 1;
		if (m->value->type == J_NULL)
			continue;
		if (fd[j].kind == F_STR) {
			if (m->value->type != J_STRING)
				return false;
			r->f[j] = sv_json(m->value);
		} else {
			r->f[j].p = m->value->raw;
			r->f[j].n = m->value->rawlen;
		}
	}
	return r->f[0].p != NULL && r->f[1].p != NULL;	/* id and key */
}

/*
 * What the rest of the code takes for granted of a stored record: a known
 * status, and for a question a known kind, a digest and a real deadline.
 * A journal record without them is damaged, however well-formed its JSON.
 */
bool
rec_sane(const struct rec *r, bool interaction)
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

/* A stored record's text, parsed when it is used (a replay steps over it). */
bool
rec_parse(struct arena *a, const char *text, bool interaction, struct rec *r)
{
	struct jparse_error e;

	if (text == NULL)
		return false;
	return rec_from_jval(json_parse_shallow(a, text, strlen(text), &e, 1),
	    interaction, r) && rec_sane(r, interaction);
}

/* The full form has every member; the journal's leaves out the nulls. */
void
rec_write(struct buf *b, const struct rec *r, bool interaction, bool full)
{
	const struct fdesc	*fd;
	size_t			 nf, i;
	bool			 first = true;

	fd = fields_of(interaction, &nf);
	buf_putc(b, '{');
	for (i = 0; i < nf; i++) {
		if (r->f[i].p == NULL &&
		    (!full || fd[i].kind == F_RAW_OMIT_NULL))
			continue;
		if (!first)
			buf_putc(b, ',');
		first = false;
		buf_putc(b, '"');
		buf_put(b, fd[i].name, fd[i].len);
		buf_put(b, "\":", 2);
		if (r->f[i].p == NULL)
			buf_put(b, "null", 4);
		else if (fd[i].kind == F_STR)
			buf_json_str(b, r->f[i].p, r->f[i].n);
		else
			buf_put(b, r->f[i].p, r->f[i].n);
	}
	buf_putc(b, '}');
}

static const char *const qstatus_names[] = { "none", "pending", "answered",
    "expired", "cancelled", "superseded" };
static const char *const priority_names[] = { "low", "normal", "high",
    "critical" };

const char *
qstatus_name(enum qstatus q)
{
	return qstatus_names[q];
}

const char *
priority_name(enum priority p)
{
	return priority_names[p];
}

enum qstatus
qstatus_of(struct sv s)
{
	size_t i;

	for (i = Q_PENDING; i <= Q_SUPERSEDED; i++)
		if (sv_eq(s, qstatus_names[i]))
			return (enum qstatus)i;
	return Q_NONE;
}

enum priority
priority_of(struct sv s)
{
	size_t i;

	for (i = P_LOW; i <= P_CRITICAL; i++)
		if (sv_eq(s, priority_names[i]))
			return (enum priority)i;
	return P_NORMAL;
}

/* A stored record (journal form) in its full output form. */
void
record_write_full(struct buf *b, struct arena *a, const char *text,
    bool interaction)
{
	struct rec r;

	if (text == NULL) {
		buf_puts(b, "null");
		return;
	}
	if (!rec_parse(a, text, interaction, &r))
		errx(EXIT_SYSTEM, "the journal has a damaged record (its text "
		    "does not parse)");
	rec_write(b, &r, interaction, true);
}


/* ---- a record's index ---- */

void
index_of(struct record_index *ix, const struct rec *n, size_t nlen,
    const struct rec *q, size_t qlen)
{
	struct arc_instant t;

	memset(ix, 0, sizeof(*ix));
	ix->key = n != NULL ? n->f[N_KEY] : q->f[I_KEY];
	if (n != NULL) {
		ix->nlen = (uint32_t)nlen;
		ix->notification_id = n->f[N_ID];
		ix->active = sv_eq(n->f[N_STATUS], "active");
		ix->priority = priority_of(n->f[N_PRIORITY]);
	}
	if (q != NULL) {
		ix->qlen = (uint32_t)qlen;
		ix->qstatus = qstatus_of(q->f[I_STATUS]);
		if (ix->qstatus == Q_PENDING &&
		    q->f[I_EXPIRES_AT].p != NULL &&
		    rfc3339_parse(q->f[I_EXPIRES_AT].p, q->f[I_EXPIRES_AT].n,
		    &t)) {
			ix->expires_at = q->f[I_EXPIRES_AT];
			ix->due = t.seconds;
		}
	}
}

/*
 * {"key":K,"notification":[LENGTH,ID,STATUS,PRIORITY],
 *  "interaction":[LENGTH,STATUS(,EXPIRES_AT)]}, each part if the record
 * has it; a question's deadline only while it is pending.
 */
void
index_write(struct buf *b, const struct record_index *ix)
{
	buf_puts(b, "{\"key\":");
	buf_json_str(b, ix->key.p, ix->key.n);
	if (ix->nlen > 0) {
		buf_printf(b, ",\"notification\":[%lu,", (unsigned long)ix->nlen);
		buf_json_str(b, ix->notification_id.p, ix->notification_id.n);
		buf_printf(b, ",\"%s\",\"%s\"]", ix->active ? "active" :
		    "resolved", priority_name(ix->priority));
	}
	if (ix->qlen > 0) {
		buf_printf(b, ",\"interaction\":[%lu,\"%s\"",
		    (unsigned long)ix->qlen, qstatus_name(ix->qstatus));
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
bool
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
