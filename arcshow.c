/*
 * arc-status --show and --history: one condition in full, without
 * answering it, and what became of the conditions that are settled: who
 * answered what, from where, and when.  A person reads the plain form,
 * where producer text is made safe for the terminal and the digest and
 * nonce never appear; a script reads --json, the records of arc(7) as
 * arc-apply prints them.  --show reads the live journal only; --history
 * with a time range reads the archive segments that meet it as well.
 */
#include <err.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcarchive.h"
#include "arcfanout.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcwords.h"
#include "arcbind.h"
#include "arcview.h"
#include "arcdelivery.h"
#include "arcwaiter.h"
#include "arcshow.h"

/* A condition's records, parsed. */
struct cview {
	const struct condition	*c;
	const char		*ntext, *qtext;	/* journal form */
	struct rec		 n, q;
	bool			 has_q;
	enum qstatus		 qs;
	const char		*when;	/* history: when it was settled */
};

static void
view_of(struct journal *j, struct arena *a, const struct condition *c,
    const char *now, struct cview *v)
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
print_records(struct buf *b, struct arena *a, const struct cview *v)
{
	buf_puts(b, "\"key\":");
	buf_json_cstr(b, v->c->key);
	buf_puts(b, ",\"notification\":");
	record_write_full(b, a, v->ntext, false);
	buf_puts(b, ",\"interaction\":");
	record_write_full(b, a, v->qtext, true);
	/* arc's own: what became of the hand-over (arc-journal(5)) */
	buf_puts(b, ",\"handover\":");
	buf_puts(b, v->c->handover != NULL ? v->c->handover : "null");
}

/* For a pending question: whether anyone waits for its answer now. */
static void
waiting_words(struct buf *b, const char *journal, const struct cview *v)
{
	if (v->qs != Q_PENDING)
		return;
	buf_puts(b, waiter_present(journal, sv_str(v->c->key)) ==
	    WAITING_SOMEONE ? "; the agent waits for it" :
	    "; no one is waiting now");
}

/*
 * The choice whose id is given, into found: the view's, or with w NULL,
 * looked for in q alone, the view not built.  False: none has that id.
 */
static bool
choice_by_id(struct view_choice *found, struct arena *a, const struct rec *q,
    const struct view *w, const struct jval *id)
{
	size_t	 i;

	if (w == NULL)
		return view_choice_of(found, a, q, sv_json(id));
	for (i = 0; i < w->nchoices; i++)
		if (sv_same(w->choices[i].id, sv_json(id))) {
			*found = w->choices[i];
			return true;
		}
	return false;
}

static struct sv
member(const struct jval *o, const char *name)
{
	return sv_json(json_get(o, name));
}

/*
 * An accepted answer, for a person: "Allow (allow)" or "text (12 chars)",
 * then where it came from.  A text answer itself is never shown.  w: the
 * question's view, where one is built; NULL, its choice is found alone.
 */
static void
answer_words(struct buf *b, struct arena *a, const struct rec *q,
    const struct view *w)
{
	struct jparse_error	 e;
	const struct jval	*r, *id, *text;
	struct view_choice	 choice;

	r = json_parse(a, q->f[I_RESPONSE].p, q->f[I_RESPONSE].n, &e);
	if (r == NULL || r->type != J_OBJECT) {
		buf_puts(b, "none");
		return;
	}
	id = json_get(r, "choice_id");
	text = json_get(r, "text");
	if (id != NULL && id->type == J_STRING) {
		if (choice_by_id(&choice, a, q, w, id)) {
			buf_put(b, choice.label.p, choice.label.n);
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
show_choices(struct buf *b, const struct view *w)
{
	const struct view_choice	*c;
	size_t				 i;

	if (w->answer_kind != NULL && strcmp(w->answer_kind, "text") == 0) {
		line(b, "answer:");
		buf_printf(b, "text, at most %zu characters\n", w->text_max);
		return;
	}
	for (i = 0; i < w->nchoices; i++) {
		c = &w->choices[i];
		line(b, i == 0 ? "choices:" : "");
		buf_printf(b, "%zu) ", i + 1);
		buf_put(b, c->label.p, c->label.n);
		buf_puts(b, " (");
		buf_put(b, c->shown_id.p, c->shown_id.n);
		buf_putc(b, ')');
		if (c->detail.p != NULL) {
			buf_puts(b, ": ");
			buf_put(b, c->detail.p, c->detail.n);
		}
		buf_putc(b, '\n');
	}
}

/* Safe text (the view's), its later lines indented under the first. */
static void
show_lines(struct buf *b, struct sv v, const char *indent)
{
	size_t i;

	for (i = 0; v.p != NULL && i < v.n; i++) {
		buf_putc(b, v.p[i]);
		if (v.p[i] == '\n')
			buf_puts(b, indent);
	}
}

static void
show_field(struct buf *b, const char *label, struct sv v)
{
	line(b, label);
	if (v.p != NULL)
		buf_put(b, v.p, v.n);
	buf_putc(b, '\n');
}

/*
 * A recorded time as a person reads it: in the local zone, to the second,
 * with its offset ("2026-08-26 03:16:00 +0200"); as recorded when local
 * is false (not a terminal: scripts read UTC) or it does not parse.
 */
static void
show_time(struct buf *b, struct sv t, bool local)
{
	struct arc_instant	 in;
	struct tm		 tm;
	time_t			 secs;
	char			 s[64];

	if (local && t.p != NULL && rfc3339_parse(t.p, t.n, &in) &&
	    (secs = (time_t)in.seconds) == in.seconds &&
	    localtime_r(&secs, &tm) != NULL &&
	    strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%S %z", &tm) > 0)
		buf_puts(b, s);
	else
		show_sv(b, t);
}

static void
show_plain(struct buf *b, struct arena *a, const struct cview *v,
    const char *journal, bool local, const char *now)
{
	const struct rec *n = &v->n, *q = &v->q;
	struct view	  w;

	view_build(&w, a, sv_str(v->c->key), n, v->has_q ? q : NULL, v->qs,
	    NULL);
	show_field(b, "key:", w.shown_key);
	show_field(b, "title:", w.title);
	line(b, "message:");
	show_lines(b, w.message, "          ");
	buf_putc(b, '\n');
	line(b, "agent:");
	if (w.agent.p != NULL) {
		buf_put(b, w.agent.p, w.agent.n);
		buf_puts(b, " (");
		buf_put(b, w.agent_id.p, w.agent_id.n);
		buf_putc(b, ')');
	} else if (w.agent_id.p != NULL) {
		buf_put(b, w.agent_id.p, w.agent_id.n);
	}
	buf_putc(b, '\n');
	if (w.project.p != NULL)
		show_field(b, "project:", w.project);
	if (w.session.p != NULL)
		show_field(b, "session:", w.session);
	show_field(b, "kind:", w.kind);
	line(b, "priority:");
	buf_printf(b, "%s\n", priority_name(w.priority));
	line(b, "state:");
	condition_words(b, v->c, n, v->has_q ? q : NULL, v->qs, now);
	waiting_words(b, journal, v);
	buf_putc(b, '\n');
	if (!v->has_q)
		return;
	line(b, "deadline:");
	show_time(b, sv_str(w.expires_at != NULL ? w.expires_at : ""), local);
	buf_putc(b, '\n');
	line(b, "tag:");	/* arc-answer --seen TAG binds an answer to it */
	buf_printf(b, "%s\n", w.tag);
	show_choices(b, &w);
	line(b, "response:");
	if (q->f[I_RESPONSE].p != NULL) {
		answer_words(b, a, q, &w);
		if (q->f[I_ANSWERED_AT].p != NULL) {
			buf_puts(b, ", at ");
			show_time(b, q->f[I_ANSWERED_AT], local);
		}
	} else {
		buf_puts(b, "none");
	}
	buf_putc(b, '\n');
}

/* What arc-notify could not deliver of it (arcdelivery.c), and why. */
static void
show_delivery(struct buf *b, const char *journal, const char *key)
{
	char *path = delivery_path(journal);

	if (delivery_words(b, path, key, "delivery: ", "\n") > 0)
		buf_putc(b, '\n');
	free(path);
}

int
status_show(struct journal *j, const char *key, bool json, bool local,
    const char *now)
{
	struct condition	*c;
	struct arena		 a = { 0 };
	struct buf		 b = { 0 };
	struct cview		 v;
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
		if (v.qs == Q_PENDING)
			buf_puts(&b, waiter_present(j->path, sv_str(c->key)) ==
			    WAITING_SOMEONE ? ",\"waiting\":true" :
			    ",\"waiting\":false");
		buf_puts(&b, "}\n");
	} else {
		show_plain(&b, &a, &v, j->path, local, now);
		show_delivery(&b, j->path, c->key);
	}
	write_stdout(&b);
	flush_stdout();
	buf_free(&b);
	arena_free(&a);
	return 0;
}

/* ---- --history ---- */

struct history {
	const struct history_opts *o;
	struct arena	 arena;
	const char	*now;
	struct settled	*v;
	size_t		 n, cap;
	char		**blocks;	/* what workers found, v's strings in them */
	size_t		 nblocks;
	size_t		*runs;		/* where each sorted run of v starts */
	size_t		 nruns;
};

/* When a condition was settled, or NULL while it is not. */
static const char *
settled_at(struct arena *a, const struct cview *v)
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

/*
 * One settled condition, rendered, and where it was found.  Its order
 * (settled_cmp) is read first from numbers: when_s, when_frac, key_head;
 * most comparisons of a sort end there, not in the strings.
 */
struct settled {
	char		*id;	/* key, NUL, notification id: one lifecycle */
	size_t		 id_len;
	size_t		 rank;	/* 0 the live journal, then older files */
	char		*when;
	int64_t		 when_s;
	uint32_t	 when_frac;	/* the fraction's first nine digits */
	bool		 when_long;	/* more digits: the text decides */
	uint64_t	 key_head;	/* the key's first 8 bytes, big-endian */
	char		*key;
	char		*text;	/* its line, words or JSON */
	size_t		 text_len;
	bool		 borrowed;	/* the strings are in a block of h's */
	bool		 dropped;	/* an older copy of a lifecycle */
};

static void	history_plain(struct buf *, struct arena *,
		    const struct cview *, bool);

#define FRAC_DIGITS	9

static void
settled_when(struct settled *it, const struct arc_instant *t)
{
	size_t	 i;

	it->when_s = t->seconds;
	it->when_frac = 0;
	for (i = 0; i < FRAC_DIGITS; i++)
		it->when_frac = it->when_frac * 10 + (uint32_t)(i <
		    t->fraction_len ? t->fraction[i] - '0' : 0);
	it->when_long = t->fraction_len > FRAC_DIGITS;
}

/* Zeros past the key's end: it sorts before any longer key it begins. */
static void
settled_key_head(struct settled *it)
{
	const char	*k = it->key;
	size_t		 i;

	it->key_head = 0;
	for (i = 0; i < sizeof(it->key_head); i++) {
		it->key_head = it->key_head << 8 | (uint8_t)*k;
		if (*k != '\0')
			k++;
	}
}

static bool
wanted(const struct history_opts *o, const struct cview *v, int64_t when)
{
	if (o->key != NULL && strcmp(o->key, v->c->key) != 0)
		return false;
	if (o->agent != NULL && !sv_eq(v->n.f[N_AGENT], o->agent))
		return false;
	return !o->range || (when >= o->since && when <= o->until);
}

static struct settled *
history_slot(struct history *h)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 32;
		if ((h->v = reallocarray(h->v, h->cap, sizeof(*h->v))) == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	return &h->v[h->n++];
}

static void
settled_free(struct settled *it)
{
	if (!it->borrowed)
		free(it->id);	/* the block of its strings */
}

/* One lifecycle into h, if it is settled and wanted. */
static void
history_add(struct history *h, struct journal *j, const struct condition *c,
    size_t rank, struct buf *b)
{
	struct settled		*it;
	struct cview		 v;
	struct arc_instant	 when;
	struct sv		 nid;
	size_t			 klen, wlen, size;
	char			*p;

	if (c->notification.len == 0)
		return;
	arena_reset(&h->arena);
	view_of(j, &h->arena, c, h->now, &v);
	if ((v.when = settled_at(&h->arena, &v)) == NULL)
		return;
	if (!rfc3339_parse(v.when, strlen(v.when), &when))
		when = (struct arc_instant){ 0, "", 0 };
	if (!wanted(h->o, &v, when.seconds))
		return;
	b->len = 0;
	if (h->o->json) {
		buf_puts(b, "{\"settled_at\":");
		buf_json_cstr(b, v.when);
		buf_putc(b, ',');
		print_records(b, &h->arena, &v);
		buf_puts(b, "}\n");
	} else {
		history_plain(b, &h->arena, &v, h->o->local);
	}
	/*
	 * Its strings in one block: the key, NUL, the notification id (the
	 * two are the lifecycle's id, the first the key), NUL, when, NUL,
	 * the text, NUL.
	 */
	klen = strlen(c->key);
	wlen = strlen(v.when);
	nid = v.n.f[N_ID];
	if (__builtin_add_overflow(klen, nid.n, &size) ||
	    __builtin_add_overflow(size, wlen, &size) ||
	    __builtin_add_overflow(size, b->len, &size) ||
	    __builtin_add_overflow(size, 4, &size))
		errx(EXIT_SYSTEM, "a settled condition too long");
	if ((p = malloc(size)) == NULL)
		err(EXIT_SYSTEM, "malloc");
	it = history_slot(h);
	it->id = it->key = p;
	it->id_len = klen + 1 + nid.n;
	memcpy(p, c->key, klen + 1);
	if (nid.n > 0)
		memcpy(p + klen + 1, nid.p, nid.n);
	p[it->id_len] = '\0';
	it->when = p + it->id_len + 1;
	memcpy(it->when, v.when, wlen + 1);
	it->text = it->when + wlen + 1;
	it->text_len = b->len;
	memcpy(it->text, b->p, b->len);
	it->text[b->len] = '\0';
	it->rank = rank;
	settled_when(it, &when);
	settled_key_head(it);
	it->borrowed = false;
}

static int
by_place(const void *a, const void *b)
{
	const struct condition	*x = *(const struct condition * const *)a;
	const struct condition	*y = *(const struct condition * const *)b;

	return x->notification.off < y->notification.off ? -1 :
	    x->notification.off > y->notification.off;
}

struct conditions {
	struct condition	**v;
	size_t			  n, cap;
};

static void
conditions_add(struct conditions *all, struct condition *c)
{
	if (all->n == all->cap) {
		all->cap = all->cap ? all->cap * 2 : 64;
		if ((all->v = reallocarray(all->v, all->cap,
		    sizeof(*all->v))) == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	all->v[all->n++] = c;
}

/*
 * The settled conditions of one journal (or segment) into h: the
 * lifecycles newer ones replaced (journal_keep_past) and the latest
 * under each key, read in the order their records lie in the file.
 * That order is near the one they are sorted in (a record is written
 * when its condition changes), which halves the sort after, and walks
 * a segment's image forward rather than in the hash table's order.
 */
static void
history_of(struct history *h, struct journal *j, size_t rank)
{
	struct conditions	 all = { NULL, 0, 0 };
	struct condition	*c;
	struct buf		 b = { 0 };
	size_t			 i;

	for (i = 0; (c = state_past(j->st, i)) != NULL; i++)
		conditions_add(&all, c);
	for (c = state_first(j->st, &i); c != NULL; c = state_next(j->st, &i))
		conditions_add(&all, c);
	if (all.n > 1)
		qsort(all.v, all.n, sizeof(*all.v), by_place);
	for (i = 0; i < all.n; i++)
		history_add(h, j, all.v[i], rank, &b);
	free(all.v);
	buf_free(&b);
}

/*
 * By when settled: the seconds first, the instant within the same second
 * (the same text is the same instant: many are, settled together), then
 * the key, then the lifecycle: one order, whichever worker ended first.
 */
static int
settled_cmp(const struct settled *a, const struct settled *b)
{
	size_t	 n;
	int	 d;

	if (a->when_s != b->when_s)
		return a->when_s < b->when_s ? -1 : 1;
	if (a->when_frac != b->when_frac)
		return a->when_frac < b->when_frac ? -1 : 1;
	if ((a->when_long || b->when_long) &&
	    (d = rfc3339_cmp(a->when, b->when)) != 0)
		return d;
	if (a->key_head != b->key_head)
		return a->key_head < b->key_head ? -1 : 1;
	if ((d = strcmp(a->key, b->key)) != 0)
		return d;
	n = a->id_len < b->id_len ? a->id_len : b->id_len;
	if ((d = memcmp(a->id, b->id, n)) != 0)
		return d;
	return a->id_len < b->id_len ? -1 : a->id_len > b->id_len;
}

static int
by_time(const void *a, const void *b)
{
	return settled_cmp(a, b);
}

/* The lifecycles found from from on: one run of the output, sorted. */
static void
history_run(struct history *h, size_t from, bool sorted)
{
	size_t	*grown;

	if (!sorted && h->n - from > 1)
		qsort(h->v + from, h->n - from, sizeof(*h->v), by_time);
	if ((grown = reallocarray(h->runs, h->nruns + 1, sizeof(*grown))) ==
	    NULL)
		err(EXIT_SYSTEM, "reallocarray");
	h->runs = grown;
	h->runs[h->nruns++] = from;
}

/*
 * A segment's lifecycles go from the worker that found them to us as
 * bytes: each one's rank, its instant in two numbers (the seconds, the
 * fraction) and three strings, lengths first: its id (its key, NUL, its
 * notification id: the key is read from there), when, its text.
 */
static void
put_u64(struct buf *b, uint64_t v)
{
	buf_put(b, &v, sizeof(v));
}

static void
put_bytes(struct buf *b, const char *p, size_t n)
{
	put_u64(b, n);
	buf_put(b, p, n);
	buf_putc(b, '\0');
}

static bool
get_u64(char **p, const char *end, uint64_t *v)
{
	if ((size_t)(end - *p) < sizeof(*v))
		return false;
	memcpy(v, *p, sizeof(*v));
	*p += sizeof(*v);
	return true;
}

/* The string where it is (and *n its length); NULL: cut short. */
static char *
get_bytes(char **p, const char *end, size_t *n)
{
	uint64_t	 len;
	char		*s;

	if (!get_u64(p, end, &len) ||
	    len >= (uint64_t)(end - *p) || (*p)[len] != '\0')
		return NULL;
	s = *p;
	if (n != NULL)
		*n = (size_t)len;
	*p += len + 1;
	return s;
}

struct segments {
	struct history	*h;
	struct segment	*v;
	size_t		 n;	/* of them all: a segment's rank is n - index */
	size_t		*read;	/* the indexes of those to read */
};

/* In a worker: one segment's settled lifecycles, put as bytes. */
static bool
segment_history(size_t item, struct buf *out, void *arg)
{
	struct segments	*sg = arg;
	size_t		 i = sg->read[item], k;
	struct history	 mine = { sg->h->o, { 0 }, sg->h->now, NULL, 0, 0, NULL,
	    0, NULL, 0 };
	struct journal	 sj;
	struct plain	 plain;
	bool		 ok;

	if (!archive_plain(&sg->v[i], &plain))
		return false;
	if ((ok = plain.image != NULL ? journal_read_image(&sj, sg->v[i].path,
	    plain.image, plain.len) : journal_read_fd(&sj, sg->v[i].path,
	    plain.fd, sg->v[i].compressed)))
		history_of(&mine, &sj, sg->n - i);
	journal_close(&sj);
	if (mine.n > 1)
		qsort(mine.v, mine.n, sizeof(*mine.v), by_time);
	for (k = 0; k < mine.n; k++) {
		put_u64(out, mine.v[k].rank);
		put_u64(out, (uint64_t)mine.v[k].when_s);
		put_u64(out, mine.v[k].when_frac |
		    (uint64_t)mine.v[k].when_long << 32);
		put_bytes(out, mine.v[k].id, mine.v[k].id_len);
		put_bytes(out, mine.v[k].when, strlen(mine.v[k].when));
		put_bytes(out, mine.v[k].text, mine.v[k].text_len);
		settled_free(&mine.v[k]);
	}
	free(mine.v);
	arena_free(&mine.arena);
	return ok;
}

/* Here: a worker's lifecycles, into the history, their strings in place. */
static void
segment_take(size_t item, struct buf *got, void *arg)
{
	struct segments	*sg = arg;
	struct history	*h = sg->h;
	struct settled	 one;
	char		*p, *end, **grown;
	uint64_t	 rank, when_s, frac;
	size_t		 from = h->n;

	if (got->len == 0)
		return;
	if ((grown = reallocarray(h->blocks, h->nblocks + 1,
	    sizeof(*grown))) == NULL)
		err(EXIT_SYSTEM, "reallocarray");
	h->blocks = grown;
	h->blocks[h->nblocks++] = p = got->p;	/* ours now */
	end = p + got->len;
	*got = (struct buf){ NULL, 0, 0 };
	while (p < end) {
		memset(&one, 0, sizeof(one));
		if (!get_u64(&p, end, &rank) || !get_u64(&p, end, &when_s) ||
		    !get_u64(&p, end, &frac) ||
		    (one.id = get_bytes(&p, end, &one.id_len)) == NULL ||
		    (one.when = get_bytes(&p, end, NULL)) == NULL ||
		    (one.text = get_bytes(&p, end, &one.text_len)) == NULL)
			errx(EXIT_SYSTEM, "internal error: %s: what its worker "
			    "found is cut short", sg->v[sg->read[item]].path);
		one.key = one.id;	/* to its first NUL, within id_len */
		one.rank = (size_t)rank;
		one.when_s = (int64_t)when_s;
		one.when_frac = (uint32_t)frac;
		one.when_long = frac >> 32 != 0;
		settled_key_head(&one);
		one.borrowed = true;
		*history_slot(h) = one;
	}
	history_run(h, from, true);	/* its worker sorted them */
}

/* Indexes of segments, by their size on the disk, the largest first. */
static int
larger_first(const void *a, const void *b, void *segments)
{
	const struct segment	*v = segments;
	uint64_t		 x = v[*(const size_t *)a].size;
	uint64_t		 y = v[*(const size_t *)b].size;

	return x > y ? -1 : x < y;
}

/*
 * The segments that may hold what was settled in the range: a segment's
 * records span from its first record's time to the next segment's first
 * (its compaction copied what was live on), so one that ends before the
 * range or starts after it is not opened.  Workers decompress and read
 * them, one a core: a segment's reading is one core's work, and the
 * order they are done in is none of the output's, which is sorted.
 */
static int
history_archives(struct history *h, const char *journal)
{
	struct segments	 sg = { h, NULL, 0, NULL };
	const char	**names;
	size_t		 i, nread = 0;
	int64_t		 end;
	int		 status = 0;

	if (!archive_list(journal, &sg.v, &sg.n))
		return EXIT_SYSTEM;
	if ((sg.read = reallocarray(NULL, sg.n + 1, sizeof(*sg.read))) ==
	    NULL || (names = reallocarray(NULL, sg.n + 1, sizeof(*names))) ==
	    NULL)
		err(EXIT_SYSTEM, "reallocarray");
	for (i = sg.n; i-- > 0; ) {
		end = i + 1 < sg.n ? sg.v[i + 1].from : INT64_MAX;
		if (i + 1 < sg.n && sg.v[i + 1].seq == sg.v[i].seq)
			continue;	/* a compression cut short: read one */
		if (sg.v[i].from > h->o->until || end < h->o->since)
			continue;
		sg.read[nread++] = i;
	}
	/*
	 * The largest first: a worker reads one segment after another, and
	 * takes the next as it ends, so the last to end ends near the rest,
	 * and a worker's first segment makes its memory as large as any
	 * after it needs.
	 */
	qsort_r(sg.read, nread, sizeof(*sg.read), larger_first, sg.v);
	for (i = 0; i < nread; i++)
		names[i] = sg.v[sg.read[i]].path;
	if (!fanout(nread, names, segment_history, segment_take, &sg))
		status = EXIT_SYSTEM;
	free(names);
	free(sg.read);
	archive_list_free(sg.v, sg.n);
	return status;
}

static bool
same_lifecycle(const struct settled *a, const struct settled *b)
{
	return a->id_len == b->id_len && memcmp(a->id, b->id, a->id_len) == 0;
}

/*
 * A lifecycle kept on by compactions is found in each segment that
 * copied it, and its newest copy (the lowest rank: 0 is the live
 * journal) tells: the others are marked dropped, found by a table of
 * the ids.
 */
static void
newest_copies(struct settled *v, size_t n)
{
	size_t	*slot, cap = 16, i, at;

	while (cap < n * 2) {
		if (cap > SIZE_MAX / 4 / sizeof(*slot))
			errx(EXIT_SYSTEM, "too many lifecycles");
		cap *= 2;
	}
	if ((slot = calloc(cap, sizeof(*slot))) == NULL)	/* 0: empty */
		err(EXIT_SYSTEM, "calloc");
	for (i = 0; i < n; i++) {
		v[i].dropped = false;
		at = state_key_hash(v[i].id, v[i].id_len) & (cap - 1);
		while (slot[at] != 0 && !same_lifecycle(&v[slot[at] - 1], &v[i]))
			at = (at + 1) & (cap - 1);
		if (slot[at] == 0) {
			slot[at] = i + 1;
		} else if (v[i].rank < v[slot[at] - 1].rank) {
			v[slot[at] - 1].dropped = true;
			slot[at] = i + 1;
		} else {
			v[i].dropped = true;
		}
	}
	free(slot);
}

/*
 * The output is one sorted run each (the live journal's, each
 * segment's, sorted by its worker), merged: a heap of the runs by
 * their first lifecycle not yet printed.
 */
struct run {
	size_t	 at, end;
};

static void
run_sift(struct run *heap, size_t n, size_t i, const struct settled *v)
{
	struct run	 t;
	size_t		 l, m;

	for (;;) {
		m = i;
		l = 2 * i + 1;
		if (l < n && settled_cmp(&v[heap[l].at], &v[heap[m].at]) < 0)
			m = l;
		if (l + 1 < n &&
		    settled_cmp(&v[heap[l + 1].at], &v[heap[m].at]) < 0)
			m = l + 1;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

static void
history_print(const struct history *h)
{
	struct run	*heap;
	struct buf	 text;
	size_t		 n = 0, r, i, end;
	const struct settled *it;

	if ((heap = reallocarray(NULL, h->nruns + 1, sizeof(*heap))) == NULL)
		err(EXIT_SYSTEM, "reallocarray");
	for (r = 0; r < h->nruns; r++) {
		end = r + 1 < h->nruns ? h->runs[r + 1] : h->n;
		if (h->runs[r] < end)
			heap[n++] = (struct run){ h->runs[r], end };
	}
	for (i = n / 2; i-- > 0; )
		run_sift(heap, n, i, h->v);
	while (n > 0) {
		it = &h->v[heap[0].at++];
		if (!it->dropped) {
			text = (struct buf){ it->text, it->text_len, 0 };
			write_stdout(&text);
		}
		if (heap[0].at == heap[0].end)
			heap[0] = heap[--n];
		run_sift(heap, n, 0, h->v);
	}
	flush_stdout();
	free(heap);
}

static void
history_plain(struct buf *b, struct arena *a, const struct cview *v,
    bool local)
{
	bool		 resolved = sv_eq(v->n.f[N_STATUS], "resolved");

	show_time(b, sv_str(v->when), local);
	buf_puts(b, "  ");
	show_sv(b, sv_str(v->c->key));
	buf_puts(b, "  ");
	if (v->qs == Q_ANSWERED) {
		buf_puts(b, "answered ");
		answer_words(b, a, &v->q, NULL);
	} else if (v->qs != Q_NONE) {
		buf_puts(b, qstatus_name(v->qs));
		if (v->qs == Q_EXPIRED)
			buf_puts(b, " unanswered");
	}
	if (v->has_q && handover_words(b, v->c->handover, &v->q))
		resolved = false;	/* withdrawn: that says it */
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
status_history(struct journal *j, const struct history_opts *o,
    const char *now)
{
	struct history	 h = { o, { 0 }, now, NULL, 0, 0, NULL, 0, NULL, 0 };
	size_t		 i;
	int		 status = 0;

	if (!j->missing)
		history_of(&h, j, 0);
	history_run(&h, 0, false);
	if (o->range)
		status = history_archives(&h, j->path);
	newest_copies(h.v, h.n);
	history_print(&h);
	for (i = 0; i < h.n; i++)
		settled_free(&h.v[i]);
	free(h.runs);
	free(h.v);
	for (i = 0; i < h.nblocks; i++)
		free(h.blocks[i]);
	free(h.blocks);
	arena_free(&h.arena);
	return status;
}
