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

bool
rec_parse(struct arena *a, const char *text, bool interaction, struct rec *r)
{
	struct jparse_error e;

	return rec_from_jval(json_parse_shallow(a, text, strlen(text), &e, 1),
	    interaction, r);
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
		errx(EXIT_SYSTEM, "internal error: unreadable record");
	rec_write(b, &r, interaction, true);
}

