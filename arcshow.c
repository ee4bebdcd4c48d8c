/*
 * arc-status --show and --history: one condition in full, without
 * answering it, and what became of the conditions that are settled: who
 * answered what, from where, and when.  A person reads the plain form,
 * where producer text is made safe for the terminal and the digest and
 * nonce never appear; a script reads --json, the records of arc(7) as
 * arc-apply prints them.  Both read the live journal only: what its
 * retention has moved to an archive is not shown.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"
#include "arccmd.h"
#include "arcwords.h"
#include "arcbind.h"
#include "arcshow.h"

/* A condition's records, parsed. */
struct view {
	const struct condition	*c;
	const char		*ntext, *qtext;	/* journal form */
	struct rec		 n, q;
	bool			 has_q;
	enum qstatus		 qs;
	const char		*when;	/* history: when it was settled */
};

static void
view_of(struct journal *j, struct arena *a, const struct condition *c,
    const char *now, struct view *v)
{
	memset(v, 0, sizeof(*v));
	v->c = c;
	v->ntext = journal_rec(j, a, c, false, &v->n);
	v->qtext = c->interaction.len > 0 ?
	    journal_rec(j, a, c, true, &v->q) : NULL;
	v->has_q = v->qtext != NULL;
	v->qs = v->has_q ? condition_qstatus(c, now) : Q_NONE;
}

static void
print_records(struct buf *b, struct arena *a, const struct view *v)
{
	buf_puts(b, "\"key\":");
	buf_json_cstr(b, v->c->key);
	buf_puts(b, ",\"notification\":");
	record_write_full(b, a, v->ntext, false);
	buf_puts(b, ",\"interaction\":");
	record_write_full(b, a, v->qtext, true);
}

/* The choice whose id is given, in a question's choices, or NULL. */
static const struct jval *
choice_by_id(const struct jval *choices, const struct jval *id)
{
	const struct jval	*cid;
	size_t			 i;

	for (i = 0; choices != NULL && id != NULL && i < choices->n; i++) {
		cid = json_get(choices->items[i], "id");
		if (cid != NULL && cid->len == id->len &&
		    memcmp(cid->s, id->s, id->len) == 0)
			return choices->items[i];
	}
	return NULL;
}

static struct sv
member(const struct jval *o, const char *name)
{
	return sv_json(json_get(o, name));
}

/*
 * An accepted answer, for a person: "Allow (allow)" or "text (12 chars)",
 * then where it came from.  A text answer itself is never shown.
 */
static void
answer_words(struct buf *b, struct arena *a, const struct rec *q)
{
	struct jparse_error	 e;
	const struct jval	*r, *choices = NULL, *id, *text, *choice;

	r = json_parse(a, q->f[I_RESPONSE].p, q->f[I_RESPONSE].n, &e);
	if (r == NULL || r->type != J_OBJECT) {
		buf_puts(b, "none");
		return;
	}
	if (q->f[I_CHOICES].p != NULL)
		choices = json_parse(a, q->f[I_CHOICES].p, q->f[I_CHOICES].n,
		    &e);
	id = json_get(r, "choice_id");
	text = json_get(r, "text");
	if (id != NULL && id->type == J_STRING) {
		if ((choice = choice_by_id(choices, id)) != NULL) {
			show_sv(b, member(choice, "label"));
			buf_puts(b, " (");
			show_sv(b, sv_json(id));
			buf_putc(b, ')');
		} else {
			show_sv(b, sv_json(id));
		}
	} else if (text != NULL && text->type == J_STRING) {
		buf_printf(b, "text (%zu chars)", text->codepoints);
	}
	if (member(r, "source").p != NULL) {
		buf_puts(b, ", source ");
		show_sv(b, member(r, "source"));
	}
	if (member(r, "device_id").p != NULL) {
		buf_puts(b, ", device ");
		show_sv(b, member(r, "device_id"));
	}
}

/* ---- --show ---- */

static void
line(struct buf *b, const char *label)
{
	buf_printf(b, "%-10s", label);
}

static void
show_choices(struct buf *b, struct arena *a, const struct rec *q)
{
	struct jparse_error	 e;
	const struct jval	*choices, *c;
	size_t			 i;

	if (sv_eq(q->f[I_KIND], "text")) {
		line(b, "answer:");
		buf_puts(b, "text, at most ");
		show_sv(b, q->f[I_TEXT_MAX_LENGTH]);
		buf_puts(b, " characters\n");
		return;
	}
	choices = json_parse(a, q->f[I_CHOICES].p, q->f[I_CHOICES].n, &e);
	for (i = 0; choices != NULL && i < choices->n; i++) {
		c = choices->items[i];
		line(b, i == 0 ? "choices:" : "");
		buf_printf(b, "%zu) ", i + 1);
		show_sv(b, member(c, "label"));
		buf_puts(b, " (");
		show_sv(b, member(c, "id"));
		buf_putc(b, ')');
		if (member(c, "detail").p != NULL) {
			buf_puts(b, ": ");
			show_sv(b, member(c, "detail"));
		}
		buf_putc(b, '\n');
	}
}

static void
show_plain(struct buf *b, struct arena *a, const struct view *v,
    const char *now)
{
	const struct rec *n = &v->n, *q = &v->q;
	char		  tag[TAG_SHOWN + 1];

	line(b, "key:");
	show_sv(b, sv_str(v->c->key));
	buf_putc(b, '\n');
	line(b, "title:");
	show_sv(b, n->f[N_TITLE]);
	buf_putc(b, '\n');
	line(b, "message:");
	show_text(b, n->f[N_MESSAGE], "          ");
	buf_putc(b, '\n');
	line(b, "agent:");
	if (n->f[N_AGENT_NAME].p != NULL) {
		show_sv(b, n->f[N_AGENT_NAME]);
		buf_puts(b, " (");
		show_sv(b, n->f[N_AGENT]);
		buf_putc(b, ')');
	} else {
		show_sv(b, n->f[N_AGENT]);
	}
	buf_putc(b, '\n');
	if (n->f[N_PROJECT].p != NULL) {
		line(b, "project:");
		show_sv(b, n->f[N_PROJECT]);
		buf_putc(b, '\n');
	}
	line(b, "kind:");
	show_sv(b, n->f[N_KIND]);
	buf_putc(b, '\n');
	line(b, "priority:");
	show_sv(b, n->f[N_PRIORITY]);
	buf_putc(b, '\n');
	line(b, "state:");
	condition_words(b, v->c, n, v->has_q ? q : NULL, v->qs, now);
	buf_putc(b, '\n');
	if (!v->has_q)
		return;
	line(b, "deadline:");
	show_sv(b, q->f[I_EXPIRES_AT]);
	buf_putc(b, '\n');
	question_tag(tag, q);
	line(b, "tag:");	/* arc-answer --seen TAG binds an answer to it */
	buf_printf(b, "%s\n", tag);
	show_choices(b, a, q);
	line(b, "response:");
	if (q->f[I_RESPONSE].p != NULL) {
		answer_words(b, a, q);
		if (q->f[I_ANSWERED_AT].p != NULL) {
			buf_puts(b, ", at ");
			show_sv(b, q->f[I_ANSWERED_AT]);
		}
	} else {
		buf_puts(b, "none");
	}
	buf_putc(b, '\n');
}

int
status_show(struct journal *j, const char *key, bool json, const char *now)
{
	struct condition	*c;
	struct arena		 a = { 0 };
	struct buf		 b = { 0 };
	struct view		 v;
	char			*typed;

	if (key_typed(j->st, key, &typed) == KEY_AMBIGUOUS) {
		free(typed);
		return EXIT_REJECTED;
	}
	if ((c = state_lookup(j->st, typed)) == NULL ||
	    c->notification.len == 0) {
		warnx("%s: no condition under this key", safe(&b, key));
		buf_free(&b);
		free(typed);
		return EXIT_REJECTED;
	}
	free(typed);
	view_of(j, &a, c, now, &v);
	if (json) {
		buf_putc(&b, '{');
		print_records(&b, &a, &v);
		buf_puts(&b, "}\n");
	} else {
		show_plain(&b, &a, &v, now);
	}
	write_stdout(&b);
	flush_stdout();
	buf_free(&b);
	arena_free(&a);
	return 0;
}

/* ---- --history ---- */

struct history {
	struct journal	*j;
	struct arena	 arena;
	const char	*now;
	struct view	*v;
	size_t		 n, cap;
};

/* When a condition was settled, or NULL while it is not. */
static const char *
settled_at(struct arena *a, const struct view *v)
{
	struct sv when = { NULL, 0 };

	if (sv_eq(v->n.f[N_STATUS], "resolved"))
		when = v->n.f[N_RESOLVED_AT];
	switch (v->qs) {
	case Q_ANSWERED:
		if (when.p == NULL)
			when = v->q.f[I_ANSWERED_AT];
		break;
	case Q_EXPIRED:
		if (when.p == NULL)
			when = v->q.f[I_EXPIRES_AT];
		break;
	case Q_CANCELLED:
	case Q_SUPERSEDED:
		if (when.p == NULL)
			when = v->q.f[I_UPDATED_AT];
		break;
	default:
		break;
	}
	return when.p != NULL ? sv_cstr(a, when) : NULL;
}

static void
history_condition(const struct condition *c, void *arg)
{
	struct history	*h = arg;
	struct view	 v;

	if (c->notification.len == 0)
		return;
	view_of(h->j, &h->arena, c, h->now, &v);
	if ((v.when = settled_at(&h->arena, &v)) == NULL)
		return;
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 32;
		if ((h->v = reallocarray(h->v, h->cap, sizeof(*h->v))) == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	h->v[h->n++] = v;
}

static int
by_time(const void *pa, const void *pb)
{
	const struct view	*a = pa, *b = pb;
	int			 d = rfc3339_cmp(a->when, b->when);

	return d != 0 ? d : strcmp(a->c->key, b->c->key);
}

static void
history_plain(struct buf *b, struct arena *a, const struct view *v)
{
	bool resolved = sv_eq(v->n.f[N_STATUS], "resolved");

	show_sv(b, sv_str(v->when));
	buf_puts(b, "  ");
	show_sv(b, sv_str(v->c->key));
	buf_puts(b, "  ");
	if (v->qs == Q_ANSWERED) {
		buf_puts(b, "answered ");
		answer_words(b, a, &v->q);
	} else if (v->qs != Q_NONE) {
		buf_puts(b, qstatus_name(v->qs));
		if (v->qs == Q_EXPIRED)
			buf_puts(b, " unanswered");
	}
	if (resolved && !(v->qs == Q_ANSWERED &&
	    sv_eq(v->n.f[N_OUTCOME], "answered"))) {
		buf_puts(b, v->qs == Q_NONE ? "" : "; ");
		if (v->c->dismissed != NULL) {
			buf_puts(b, "dismissed by ");
			show_sv(b, sv_str(v->c->dismissed));
		} else {
			buf_puts(b, "resolved");
		}
		if (v->n.f[N_OUTCOME].p != NULL) {
			buf_puts(b, " (");
			show_sv(b, v->n.f[N_OUTCOME]);
			buf_putc(b, ')');
		}
	}
	buf_putc(b, '\n');
}

int
status_history(struct journal *j, bool json, const char *now)
{
	struct history		 h = { j, { 0 }, now, NULL, 0, 0 };
	struct buf		 b = { 0 };
	const struct condition	*c;
	size_t			 i;

	for (c = state_first(j->st, &i); c != NULL; c = state_next(j->st, &i))
		history_condition(c, &h);
	if (h.n > 1)
		qsort(h.v, h.n, sizeof(*h.v), by_time);
	for (i = 0; i < h.n; i++) {
		if (json) {
			buf_puts(&b, "{\"settled_at\":");
			buf_json_cstr(&b, h.v[i].when);
			buf_putc(&b, ',');
			print_records(&b, &h.arena, &h.v[i]);
			buf_puts(&b, "}\n");
		} else {
			history_plain(&b, &h.arena, &h.v[i]);
		}
		write_stdout(&b);
		b.len = 0;
	}
	flush_stdout();
	buf_free(&b);
	free(h.v);
	arena_free(&h.arena);
	return 0;
}
