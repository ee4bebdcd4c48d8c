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

/* The view's choice whose id is given, or NULL. */
static const struct view_choice *
choice_by_id(const struct view *w, const struct jval *id)
{
	size_t	 i;

	for (i = 0; id != NULL && i < w->nchoices; i++)
		if (w->choices[i].id.n == id->len &&
		    memcmp(w->choices[i].id.p, id->s, id->len) == 0)
			return &w->choices[i];
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
answer_words(struct buf *b, struct arena *a, const struct rec *q,
    const struct view *w)
{
	struct jparse_error	 e;
	const struct jval	*r, *id, *text;
	const struct view_choice *choice;

	r = json_parse(a, q->f[I_RESPONSE].p, q->f[I_RESPONSE].n, &e);
	if (r == NULL || r->type != J_OBJECT) {
		buf_puts(b, "none");
		return;
	}
	id = json_get(r, "choice_id");
	text = json_get(r, "text");
	if (id != NULL && id->type == J_STRING) {
		if ((choice = choice_by_id(w, id)) != NULL) {
			buf_put(b, choice->label.p, choice->label.n);
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

/* One settled condition, rendered, and where it was found. */
struct settled {
	char		*id;	/* key, NUL, notification id: one lifecycle */
	size_t		 id_len;
	size_t		 rank;	/* 0 the live journal, then older files */
	char		*when;
	int64_t		 when_s;
	char		*key;
	char		*text;	/* its line, words or JSON */
};

static void	history_plain(struct buf *, struct arena *,
		    const struct cview *, bool);

static bool
wanted(const struct history_opts *o, const struct cview *v, int64_t when)
{
	if (o->key != NULL && strcmp(o->key, v->c->key) != 0)
		return false;
	if (o->agent != NULL && !sv_eq(v->n.f[N_AGENT], o->agent))
		return false;
	return !o->range || (when >= o->since && when <= o->until);
}

/* One lifecycle into h, if it is settled and wanted. */
static void
history_add(struct history *h, struct journal *j, const struct condition *c,
    size_t rank, struct buf *b)
{
	struct settled		*it;
	struct cview		 v;
	size_t			 klen;
	int64_t			 when;

	if (c->notification.len == 0)
		return;
	arena_reset(&h->arena);
	view_of(j, &h->arena, c, h->now, &v);
	if ((v.when = settled_at(&h->arena, &v)) == NULL)
		return;
	when = instant_seconds(v.when);
	if (!wanted(h->o, &v, when))
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
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 32;
		if ((h->v = reallocarray(h->v, h->cap, sizeof(*h->v))) == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	it = &h->v[h->n++];
	klen = strlen(c->key);
	if (v.n.f[N_ID].n > SIZE_MAX - klen - 2)
		errx(EXIT_SYSTEM, "a notification id too long");
	it->id_len = klen + 1 + v.n.f[N_ID].n;
	if ((it->id = malloc(it->id_len + 1)) == NULL)
		err(EXIT_SYSTEM, "malloc");
	memcpy(it->id, c->key, klen + 1);
	if (v.n.f[N_ID].n > 0)
		memcpy(it->id + klen + 1, v.n.f[N_ID].p, v.n.f[N_ID].n);
	it->id[it->id_len] = '\0';
	it->rank = rank;
	it->when = xstrndup(v.when, strlen(v.when));
	it->when_s = when;
	it->key = xstrndup(c->key, strlen(c->key));
	it->text = xstrndup(b->p, b->len);
}

/*
 * The settled conditions of one journal (or segment) into h: the
 * lifecycles newer ones replaced (journal_keep_past), then the latest
 * under each key.
 */
static void
history_of(struct history *h, struct journal *j, size_t rank)
{
	const struct condition	*c;
	struct buf		 b = { 0 };
	size_t			 i;

	for (i = 0; (c = state_past(j->st, i)) != NULL; i++)
		history_add(h, j, c, rank, &b);
	for (c = state_first(j->st, &i); c != NULL; c = state_next(j->st, &i))
		history_add(h, j, c, rank, &b);
	buf_free(&b);
}

/*
 * The segments that may hold what was settled in the range, newest
 * first: a segment's records span from its first record's time to the
 * next segment's first (its compaction copied what was live on), so one
 * that ends before the range or starts after it is not opened.
 */
static int
history_archives(struct history *h, const char *journal)
{
	struct segment	*v;
	struct journal	 sj;
	size_t		*read, n, i, k, nread = 0;
	int64_t		 end;
	int		 fd, next = -1, status = 0;
	pid_t		 child, next_child = 0;

	if (!archive_list(journal, &v, &n))
		return EXIT_SYSTEM;
	if ((read = reallocarray(NULL, n + 1, sizeof(*read))) == NULL)
		err(EXIT_SYSTEM, "reallocarray");
	for (i = n; i-- > 0; ) {
		end = i + 1 < n ? v[i + 1].from : INT64_MAX;
		if (i + 1 < n && v[i + 1].seq == v[i].seq)
			continue;	/* a compression cut short: read one */
		if (v[i].from > h->o->until || end < h->o->since)
			continue;
		read[nread++] = i;
	}
	/* Each segment decompressed while the one before it is read. */
	if (nread > 0)
		next = archive_open_ahead(&v[read[0]], &next_child);
	for (k = 0; k < nread; k++) {
		i = read[k];
		fd = next;
		child = next_child;
		next = -1;
		next_child = 0;
		if (k + 1 < nread)
			next = archive_open_ahead(&v[read[k + 1]], &next_child);
		if (fd == -1 || !archive_opened(&v[i], child)) {
			if (fd != -1)
				(void)close(fd);
			status = EXIT_SYSTEM;
			continue;
		}
		if (!journal_read_fd(&sj, v[i].path, fd, v[i].compressed))
			status = EXIT_SYSTEM;
		else
			history_of(h, &sj, n - i);
		journal_close(&sj);
	}
	free(read);
	archive_list_free(v, n);
	return status;
}

static int
by_lifecycle(const void *pa, const void *pb)
{
	const struct settled	*a = pa, *b = pb;
	size_t			 n = a->id_len < b->id_len ? a->id_len :
	    b->id_len;
	int			 d = memcmp(a->id, b->id, n);

	if (d != 0)
		return d;
	if (a->id_len != b->id_len)
		return a->id_len < b->id_len ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/*
 * By when settled: the seconds first, the instant within the same second
 * (the same text is the same instant: many are, settled together), then
 * the key.
 */
static int
by_time(const void *pa, const void *pb)
{
	const struct settled	*a = pa, *b = pb;
	int			 d = 0;

	if (a->when_s != b->when_s)
		return a->when_s < b->when_s ? -1 : 1;
	if (strcmp(a->when, b->when) != 0)
		d = rfc3339_cmp(a->when, b->when);
	return d != 0 ? d : strcmp(a->key, b->key);
}

static void
history_plain(struct buf *b, struct arena *a, const struct cview *v,
    bool local)
{
	bool		 resolved = sv_eq(v->n.f[N_STATUS], "resolved");
	struct view	 w;

	show_time(b, sv_str(v->when), local);
	buf_puts(b, "  ");
	show_sv(b, sv_str(v->c->key));
	buf_puts(b, "  ");
	if (v->qs == Q_ANSWERED) {
		buf_puts(b, "answered ");
		view_build(&w, a, sv_str(v->c->key), &v->n, &v->q, v->qs,
		    NULL);
		answer_words(b, a, &v->q, &w);
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
	struct history	 h = { o, { 0 }, now, NULL, 0, 0 };
	struct buf	 b = { 0 };
	size_t		 i, kept;
	int		 status = 0;

	if (!j->missing)
		history_of(&h, j, 0);
	if (o->range)
		status = history_archives(&h, j->path);
	/* A lifecycle kept on by compactions: its newest copy tells. */
	if (h.n > 1)
		qsort(h.v, h.n, sizeof(*h.v), by_lifecycle);
	for (i = kept = 0; i < h.n; i++) {
		if (kept > 0 && h.v[kept - 1].id_len == h.v[i].id_len &&
		    memcmp(h.v[kept - 1].id, h.v[i].id, h.v[i].id_len) == 0) {
			free(h.v[i].id);
			free(h.v[i].when);
			free(h.v[i].key);
			free(h.v[i].text);
			continue;
		}
		h.v[kept++] = h.v[i];
	}
	h.n = kept;
	if (h.n > 1)
		qsort(h.v, h.n, sizeof(*h.v), by_time);
	for (i = 0; i < h.n; i++) {
		buf_puts(&b, h.v[i].text);
		write_stdout(&b);
		b.len = 0;
		free(h.v[i].id);
		free(h.v[i].when);
		free(h.v[i].key);
		free(h.v[i].text);
	}
	flush_stdout();
	buf_free(&b);
	free(h.v);
	arena_free(&h.arena);
	return status;
}
