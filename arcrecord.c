/*
 * The records: the notification and interaction records of arc(7), as
 * field tables, and their two JSON forms (the full one printed, the
 * journal's without nulls); and the one judge of a question's state.
 */
#include <err.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcrecord.h"

enum fkind { F_STR, F_RAW, F_RAW_OMIT_NULL };
struct fdesc {
	const char	*name;
	enum fkind	 kind;
	size_t		 len;
	char		 member[24];	/* "name": as written, padded */
};
#define FIELD(name, kind)	{ name, kind, sizeof(name) - 1, "\"" name "\":" }

static const struct fdesc notification_fields[N_FIELDS] = {
	FIELD("id", F_STR), FIELD("key", F_STR), FIELD("status", F_STR),
	FIELD("outcome", F_STR), FIELD("kind", F_STR), FIELD("type", F_STR),
	FIELD("priority", F_STR), FIELD("title", F_STR),
	FIELD("message", F_STR), FIELD("agent", F_STR),
	FIELD("agent_name", F_STR), FIELD("agent_instance", F_STR),
	FIELD("project", F_STR), FIELD("session_id", F_STR),
	FIELD("correlation_id", F_STR), FIELD("created_at", F_STR),
	FIELD("updated_at", F_STR), FIELD("resolved_at", F_STR),
	FIELD("event_id", F_STR),
	FIELD("x-arc", F_RAW_OMIT_NULL),	/* a presentation hint */
};

static const struct fdesc interaction_fields[I_FIELDS] = {
	FIELD("id", F_STR), FIELD("key", F_STR),
	FIELD("notification_id", F_STR), FIELD("kind", F_STR),
	FIELD("title", F_STR), FIELD("prompt", F_STR),
	FIELD("choices", F_RAW), FIELD("text_max_length", F_RAW_OMIT_NULL),
	FIELD("expires_at", F_STR), FIELD("status", F_STR),
	FIELD("digest", F_STR), FIELD("nonce", F_STR),
	FIELD("session_id", F_STR), FIELD("turn_id", F_STR),
	FIELD("native_request_id", F_STR), FIELD("created_at", F_STR),
	FIELD("updated_at", F_STR), FIELD("answered_at", F_STR),
	FIELD("response", F_RAW),
};

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

/* The cursor past ,"name": when that is what it is at. */
static bool
written_next(struct jcursor *cur, const struct fdesc *f)
{
	const char *p = cur->p;

	if (!cur->opened || (size_t)(cur->end - p) < f->len + 4 ||
	    p[0] != ',' || p[1] != '"' || p[2] != f->name[0] ||
	    memcmp(p + 2, f->name, f->len) != 0 ||
	    p[f->len + 2] != '"' || p[f->len + 3] != ':')
		return false;
	cur->p = p + f->len + 4;
	return true;
}

/*
 * rec_from_jval's reading of a record's text, member by member, with the
 * strict parse's every check but no tree built: a stored record is read
 * this way each time it is shown, a history's million of them too.
 * -1: a member name it cannot judge without decoding it (escapes, bytes
 * past ASCII, in a name no table has), left to the tree.
 */
static int
rec_members(struct arena *a, const char *text, size_t len, bool interaction,
    struct rec *r)
{
	const struct fdesc	*fd;
	struct jcursor		 cur;
	struct jval		 v;
	const char		*name;
	size_t			 nf, namelen, j = 0, k, next = 0;
	int			 more = -1;

	memset(r, 0, sizeof(*r));
	fd = fields_of(interaction, &nf);
	json_cursor_open(&cur, a, text, len);
	for (;;) {
		/* As arc writes them: the table's next name, or one later. */
		for (k = 0; k + next < nf; k++)
			if (written_next(&cur, &fd[next + k]))
				break;
		if (k + next < nf) {
			j = next + k;
			k = 0;
		} else {
			if ((more = json_cursor_name(&cur, &name, &namelen)) !=
			    1)
				break;
			for (k = 0; k < nf; k++) {
				j = (next + k) % nf;
				if (fd[j].len == namelen &&
				    memcmp(fd[j].name, name, namelen) == 0)
					break;
			}
		}
		if (k == nf && !json_plain(name, namelen))
			return -1;
		if (k < nf && fd[j].kind == F_STR && cur.p < cur.end &&
		    *cur.p == '"') {
			/* the most of a record: a string, plain as a rule */
			if (!json_cursor_string(&cur, &r->f[j].p, &r->f[j].n))
				return 0;
			next = j + 1;
			continue;
		}
		if (!json_cursor_checked(&cur, &v))
			return 0;
		if (k == nf)
			continue;	/* a newer writer's field: ignored */
		next = j + 1;
		if (v.type == J_NULL)
			continue;
		if (fd[j].kind == F_STR) {
			if (v.type != J_STRING)
				return 0;
			r->f[j].p = v.s;
			r->f[j].n = v.len;
		} else {
			r->f[j].p = v.raw;
			r->f[j].n = v.rawlen;
		}
	}
	return more == 0 && r->f[0].p != NULL && r->f[1].p != NULL;
}

/* A stored record's text, parsed when it is used (a replay steps over it). */
bool
rec_parse(struct arena *a, const char *text, bool interaction, struct rec *r)
{
	struct jparse_error	 e;
	size_t			 len;
	int			 read;

	if (text == NULL)
		return false;
	len = strlen(text);
	if ((read = rec_members(a, text, len, interaction, r)) == -1)
		read = rec_from_jval(json_parse_shallow(a, text, len, &e, 1),
		    interaction, r);
	return read == 1 && rec_sane(r, interaction);
}

/* The most a member takes: its comma, its name as the table has it, its value. */
static size_t
member_max(const struct fdesc *f, struct sv v)
{
	size_t value = v.n;

	if (v.p == NULL)
		value = 4;
	else if (f->kind == F_STR)
		value = json_quoted_max(v.n);
	if (value > SIZE_MAX - 1 - sizeof(f->member))
		errx(EXIT_SYSTEM, "record too long");
	return 1 + sizeof(f->member) + value;
}

/*
 * The full form has every member; the journal's leaves out the nulls.
 * Room for the worst case is made once: each member is then only copied
 * (a record and a result line are written for every event applied).
 */
void
rec_write(struct buf *b, const struct rec *r, bool interaction, bool full)
{
	const struct fdesc	*fd;
	size_t			 nf, i, need = 2, m;
	bool			 first = true;
	char			*o;

	fd = fields_of(interaction, &nf);
	for (i = 0; i < nf; i++) {
		if ((m = member_max(&fd[i], r->f[i])) > SIZE_MAX - need)
			errx(EXIT_SYSTEM, "record too long");
		need += m;
	}
	buf_reserve(b, need);
	o = b->p + b->len;
	*o++ = '{';
	for (i = 0; i < nf; i++) {
		if (r->f[i].p == NULL &&
		    (!full || fd[i].kind == F_RAW_OMIT_NULL))
			continue;
		if (!first)
			*o++ = ',';
		first = false;
		memcpy(o, fd[i].member, sizeof(fd[i].member));
		o += fd[i].len + 3;
		if (r->f[i].p == NULL) {
			memcpy(o, "null", 4);
			o += 4;
		} else if (fd[i].kind == F_STR) {
			o = json_quote_into(o, r->f[i].p, r->f[i].n);
		} else {
			memcpy(o, r->f[i].p, r->f[i].n);
			o += r->f[i].n;
		}
	}
	*o++ = '}';
	b->len = (size_t)(o - b->p);
	b->p[b->len] = '\0';
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

const struct jval *
question_choices(struct arena *a, const struct rec *q)
{
	struct jparse_error	 e;
	const struct jval	*v;

	if (q->f[I_CHOICES].p == NULL)
		return NULL;
	v = json_parse(a, q->f[I_CHOICES].p, q->f[I_CHOICES].n, &e);
	return v != NULL && v->type == J_ARRAY ? v : NULL;
}

/* ---- the one judge of a question's state at an instant ---- */

int64_t
instant_seconds(const char *s)
{
	struct arc_instant t;

	return s != NULL && rfc3339_parse(s, strlen(s), &t) ? t.seconds : 0;
}

/* The seconds of now, parsed once for the run of calls that share it. */
static int64_t
now_seconds(const char *now)
{
	static char	 last[64];
	static int64_t	 seconds;

	if (strcmp(now, last) != 0) {
		seconds = instant_seconds(now);
		(void)strlcpy(last, now, sizeof(last));
	}
	return seconds;
}

enum qstatus
question_state(enum qstatus recorded, const char *expires_at, int64_t due,
    const char *now)
{
	int64_t at;

	if (recorded != Q_PENDING || expires_at == NULL)
		return recorded;
	at = now_seconds(now);
	if (due != at)
		return due < at ? Q_EXPIRED : Q_PENDING;
	return rfc3339_cmp(expires_at, now) <= 0 ? Q_EXPIRED : Q_PENDING;
}

enum qstatus
question_status(const struct rec *q, const char *now)
{
	struct sv	 e = q->f[I_EXPIRES_AT];
	char		 expires[64];	/* an instant is short, or invalid */

	if (e.p == NULL || e.n >= sizeof(expires))
		return qstatus_of(q->f[I_STATUS]);
	memcpy(expires, e.p, e.n);
	expires[e.n] = '\0';
	return question_state(qstatus_of(q->f[I_STATUS]), expires,
	    instant_seconds(expires), now);
}

bool
question_open(const struct rec *q, const char *now)
{
	return question_status(q, now) == Q_PENDING;
}
