/*
 * arc-status --follow: the conditions as a stream, for notifiers and
 * bridges.  First every active condition ("current"), then one "synced"
 * line, then one NDJSON line per change until killed:
 *
 *   {"change":"opened","at":NOW,"key":K,"notification":{...},
 *    "interaction":{...}|null,"view":{...}|null}
 *
 * with change one of opened, updated, answered, expired, resolved,
 * dismissed, removed, handover (what became of an answer already
 * reported: the agent took it, or did not).  A pending question's line
 * says whether anyone waits for it ("waiting"), and a line of a
 * condition with a hand-over record carries it ("handover", arc's own).
 * The records are the full forms arc-apply prints,
 * for programs (a mirror takes them whole, digest and nonce, to answer
 * through); the view (arcview.c) is what a person is shown of them, its
 * text made safe by the one rule, for whatever shows the stream: this
 * file never chooses a field to show.
 *
 * How a change is seen: the journal's folder is watched with inotify, as
 * arc-wait does, so that appends and a compaction's rename both wake us.
 * After each catch-up the conditions are compared with what was last
 * reported, kept per active key: where a record now lives in the file
 * (cheap, and enough while the file is the same one) and, when that moved,
 * a hash of the record's full form, so that a compaction, which moves
 * every record without changing one, reports nothing.  A question expires
 * by time, not by a record: a timer set to the nearest deadline reports
 * it, and the record a waiter later writes for it reports nothing more.
 * The journal's own line format is never read here; only the state API.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcwords.h"
#include "arcrules.h"
#include "arcview.h"
#include "arcwaiter.h"
#include "arcfollow.h"

#define SAFETY_POLL_MS	5000	/* in case a wake-up is ever lost */
#define NO_INOTIFY_MS	1000	/* without inotify, a plain poll */

enum reported { CH_NONE, CH_CURRENT, CH_OPENED, CH_UPDATED, CH_ANSWERED,
    CH_EXPIRED, CH_RESOLVED, CH_DISMISSED, CH_REMOVED, CH_HANDOVER };

static const char *const change_names[] = { "none", "current", "opened",
    "updated", "answered", "expired", "resolved", "dismissed", "removed",
    "handover" };

/* What was last reported for one active condition. */
struct seen {
	char			*key;
	size_t			 keylen;
	char			 notification_id[32];
	char			*event_id;	/* the notification's */
	struct span		 n, i;	/* where its records were */
	uint64_t		 gen;	/* in which file */
	uint64_t		 pass;	/* the last catch-up that saw it */
	enum qstatus		 eff;	/* its question's status, by the clock */
	enum waiting		 waiting;	/* a pending one's waiter */
	char			 nhash[ARC_HEX_DIGEST], ihash[ARC_HEX_DIGEST];
	/* During a pass: what to report, and the condition to report. */
	enum reported		 change;
	const struct condition	*c;
	bool			 gone;	/* resolved or removed: drop after */
};

/* The reported conditions: a hash table of them by key, linear probing. */
struct seen_table {
	struct seen	**slot;
	size_t		  cap, n;
};

static size_t
key_hash(const char *key, size_t len)
{
	uint64_t h = 14695981039346656037ULL;	/* FNV-1a */

	while (len-- > 0)
		h = (h ^ (unsigned char)*key++) * 1099511628211ULL;
	return (size_t)h;
}

static size_t
seen_slot(const struct seen_table *t, const char *key, size_t len)
{
	size_t i = key_hash(key, len) & (t->cap - 1);

	while (t->slot[i] != NULL && (t->slot[i]->keylen != len ||
	    memcmp(t->slot[i]->key, key, len) != 0))
		i = (i + 1) & (t->cap - 1);
	return i;
}

static struct seen *
seen_find(const struct seen_table *t, const char *key, size_t len)
{
	return t->cap == 0 ? NULL : t->slot[seen_slot(t, key, len)];
}

static void
seen_add(struct seen_table *t, struct seen *e)
{
	struct seen	**old = t->slot;
	size_t		  oldcap = t->cap, i;

	if ((t->n + 1) * 2 > t->cap) {
		t->cap = t->cap == 0 ? 16 : t->cap * 2;
		if ((t->slot = calloc(t->cap, sizeof(*t->slot))) == NULL)
			err(EXIT_SYSTEM, "calloc");
		for (i = 0; i < oldcap; i++)
			if (old[i] != NULL)
				t->slot[seen_slot(t, old[i]->key,
				    old[i]->keylen)] = old[i];
		free(old);
	}
	t->slot[seen_slot(t, e->key, e->keylen)] = e;
	t->n++;
}

/* Takes an entry out, moving later ones of its run back (no tombstones). */
static void
seen_remove(struct seen_table *t, struct seen *e)
{
	size_t i = seen_slot(t, e->key, e->keylen), j, home;

	t->slot[i] = NULL;
	t->n--;
	for (j = (i + 1) & (t->cap - 1); t->slot[j] != NULL;
	    j = (j + 1) & (t->cap - 1)) {
		home = key_hash(t->slot[j]->key, t->slot[j]->keylen) &
		    (t->cap - 1);
		/* Move it back if its home is not within (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			t->slot[i] = t->slot[j];
			t->slot[j] = NULL;
			i = j;
		}
	}
}

static int
seen_cmp(const void *pa, const void *pb)
{
	const struct seen	*a = *(struct seen *const *)pa;
	const struct seen	*b = *(struct seen *const *)pb;
	size_t			 n = a->keylen < b->keylen ? a->keylen : b->keylen;
	int			 r = memcmp(a->key, b->key, n);

	if (r != 0)
		return r;
	return (a->keylen > b->keylen) - (a->keylen < b->keylen);
}

struct follower {
	struct journal		 j;
	struct arena		 arena;
	struct seen_table	 seen;
	struct seen		**changed;	/* this pass, by key */
	size_t			 nchanged, capchanged;
	struct buf		 n, i, v;	/* v: the view */
	struct buf		 h;	/* the line's waiting and handover */
	uint64_t		 gen, pass, offset;
	uint64_t		 before;	/* the offset of the pass before */
	bool			 same_file;	/* as the pass before's */
	struct waiting_set	 waiters;	/* the marks held, this pass */
	dev_t			 dev;
	ino_t			 ino;
	bool			 opened;	/* a file has been read */
	char			 now[64];
	char			*deadline;	/* the nearest pending one */
	const struct offdevice	*off;	/* --off-device: what leaves */
	/* The iterator: the look's changes, the next one, the one handed. */
	size_t			 next;
	struct seen		*handed;
	bool			 synced_due;	/* after the first look's */
	int			 watch;	/* the folder's inotify, or -1 */
	char			*base;	/* the journal's name in it */
	int64_t			 looked_at;	/* ms, monotonic */
};

static char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	return p;
}

/*
 * The line's own "waiting" and "handover", into f->h: for programs, as
 * the view has them for people; no agent's name where the setting keeps
 * the agent's.
 */
static void
handover_line(struct follower *f, const struct view *v,
    const struct condition *c, const struct rec *q)
{
	struct handover	 h;

	f->h.len = 0;
	if (v->waiting >= 0)
		buf_printf(&f->h, ",\"waiting\":%s", v->waiting ? "true" :
		    "false");
	if (q == NULL || c->handover == NULL)
		return;
	rules_handover_of(&f->arena, c->handover, q->f[I_ID], &h);
	if (h.what == NULL)
		return;
	buf_puts(&f->h, ",\"handover\":");
	buf_puts(&f->h, rules_handover_json(&f->arena, h.what,
	    sv_cstr_of(&f->arena, h.why), v->agent.p != NULL ? h.by :
	    sv_str(NULL), q->f[I_ID]));
}

/*
 * A condition's records in their full forms, into f->n and f->i; with
 * expired set, a question still recorded as pending reads "expired".
 * With view, its view too, into f->v (null when its notification cannot
 * be read), built with the same off-device setting: the view is not part
 * of what a change is judged by, since its time left changes by itself.
 */
static void
render(struct follower *f, const struct condition *c, bool expired,
    bool view)
{
	const char	*text;
	struct rec	 r;
	struct rec	 n;
	struct view	 v;
	bool		 q_goes = true, has_q = c->interaction.len != 0;
	bool		 parsed;

	f->n.len = f->i.len = f->v.len = f->h.len = 0;
	text = journal_text(&f->j, &f->arena, c, false);
	if (has_q) {
		(void)journal_rec(&f->j, &f->arena, c, true, &r);
		if (expired && sv_is(r.f[I_STATUS], "pending"))
			r.f[I_STATUS] = sv_str("expired");
	}
	parsed = text != NULL && rec_parse(&f->arena, text, false, &n);
	if (view && parsed) {
		/* before the setting blanks the records: it applies it too */
		view_build(&v, &f->arena, sv_str(c->key), &n, has_q ? &r :
		    NULL, has_q ? qstatus_of(r.f[I_STATUS]) : Q_NONE, f->off);
		view_handover(&v, &f->arena, has_q ? &r : NULL, c->handover,
		    waiting_of(&f->waiters, sv_str(c->key)) ==
		    WAITING_SOMEONE);
		view_json(&f->v, &v, f->now);
		handover_line(f, &v, c, has_q ? &r : NULL);
	} else if (view)
		buf_puts(&f->v, "null");
	if (f->off != NULL && parsed)
		q_goes = offdevice_apply(f->off, &n, has_q ? &r : NULL);
	if (parsed)	/* parsed once, for the view and for this */
		rec_write(&f->n, &n, false, true);
	else
		record_write_full(&f->n, &f->arena, text, false);
	if (!has_q || !q_goes) {
		buf_puts(&f->i, "null");
		return;
	}
	rec_write(&f->i, &r, true, true);
}

/* The notification's event_id, which a person's dismissal leaves as it was. */
static char *
event_id_of(struct follower *f, const struct condition *c)
{
	struct rec r;

	if (c->notification.len == 0)
		return NULL;
	(void)journal_rec(&f->j, &f->arena, c, false, &r);
	return xstrdup(sv_cstr_of(&f->arena, r.f[N_EVENT_ID]));
}

/* Keeps what is now reported for a condition: where, what, and when. */
static void
remember(struct follower *f, struct seen *e, const struct condition *c,
    enum qstatus eff, const char *nhash, const char *ihash)
{
	memcpy(e->nhash, nhash, sizeof(e->nhash));
	memcpy(e->ihash, ihash, sizeof(e->ihash));
	e->n = c->notification;
	e->i = c->interaction;
	e->gen = f->gen;
	e->eff = eff;
	memcpy(e->notification_id, c->notification_id,
	    sizeof(e->notification_id));
	free(e->event_id);
	e->event_id = event_id_of(f, c);
}

static bool
same_span(struct span a, struct span b)
{
	return a.off == b.off && a.len == b.len;
}

static enum reported
status_change(enum qstatus eff)
{
	return eff == Q_ANSWERED ? CH_ANSWERED : eff == Q_EXPIRED ?
	    CH_EXPIRED : CH_UPDATED;
}

/*
 * What changed in a condition.  Its records are read only when they moved
 * in the file, and reported only when their full forms differ; a question
 * recorded expired after its deadline was reported is not news.
 */
static enum reported
classify(struct follower *f, struct seen *e, const struct condition *c,
    enum qstatus eff)
{
	char		 nhash[ARC_HEX_DIGEST], ihash[ARC_HEX_DIGEST], *event_id;
	enum reported	 ch;
	bool		 dismissed;

	if (!c->active) {
		/* An answer settles the question and the condition at once. */
		if (eff == Q_ANSWERED && e->eff != Q_ANSWERED)
			return CH_ANSWERED;
		event_id = event_id_of(f, c);
		/*
		 * A person's dismissal carries no event of its own, and says
		 * who; a withdrawal for want of a waiter is a resolution.
		 */
		dismissed = c->dismissed != NULL && e->event_id != NULL &&
		    event_id != NULL && strcmp(event_id, e->event_id) == 0;
		free(event_id);
		return dismissed ? CH_DISMISSED : CH_RESOLVED;
	}
	if (e->gen == f->gen && same_span(e->n, c->notification) &&
	    same_span(e->i, c->interaction) &&
	    strcmp(e->notification_id, c->notification_id) == 0) {
		if (eff == e->eff)
			return CH_NONE;
		e->eff = eff;	/* by the clock: a deadline passed */
		return status_change(eff);
	}
	render(f, c, false, false);
	sha256_hex(f->n.p, f->n.len, nhash);
	sha256_hex(f->i.p, f->i.len, ihash);
	if (e->change == CH_CURRENT || e->change == CH_OPENED ||
	    strcmp(e->notification_id, c->notification_id) != 0)
		ch = e->change == CH_CURRENT ? CH_CURRENT : CH_OPENED;
	else if (eff != e->eff)
		ch = status_change(eff);
	else if (strcmp(nhash, e->nhash) == 0 &&
	    (strcmp(ihash, e->ihash) == 0 || eff == Q_EXPIRED))
		ch = CH_NONE;	/* moved by a compaction, or expiry recorded */
	else
		ch = CH_UPDATED;
	remember(f, e, c, eff, nhash, ihash);
	return ch;
}

static void
note_deadline(struct follower *f, const struct condition *c)
{
	if (c->expires_at == NULL)
		return;
	if (f->deadline == NULL || rfc3339_cmp(c->expires_at, f->deadline) < 0)
		f->deadline = c->expires_at;
}

/* A condition reported for the first time, with what to report. */
static struct seen *
seen_new(struct follower *f, const struct condition *c, enum reported ch)
{
	struct seen *e;

	if ((e = calloc(1, sizeof(*e))) == NULL ||
	    (e->key = malloc(c->keylen + 1)) == NULL)
		err(EXIT_SYSTEM, "calloc");
	memcpy(e->key, c->key, c->keylen + 1);
	e->keylen = c->keylen;
	seen_add(&f->seen, e);
	e->change = ch;
	return e;
}

static void
visit(const struct condition *c, void *arg)
{
	struct follower	*f = arg;
	struct seen	*e;
	enum qstatus	 eff;

	arena_reset(&f->arena);
	e = seen_find(&f->seen, c->key, c->keylen);
	if (e == NULL && !c->active) {
		/*
		 * Settled and reported before: news only if a hand-over
		 * record came since the last pass (in this same file).
		 */
		if (c->handover == NULL || f->pass == 1 || !f->same_file ||
		    c->notification.off < f->before)
			return;
		e = seen_new(f, c, CH_HANDOVER);
		e->pass = f->pass;
		e->c = c;
		e->gone = true;
		return;
	}
	eff = condition_qstatus(c, f->now);
	if (c->active && eff == Q_PENDING)
		note_deadline(f, c);
	if (e == NULL)
		e = seen_new(f, c, f->pass == 1 ? CH_CURRENT : CH_OPENED);
	e->change = classify(f, e, c, eff);
	if (c->active && eff == Q_PENDING) {
		/* A waiter come or gone changes what is shown, not a record. */
		enum waiting w = waiting_of(&f->waiters, sv_str(c->key));
		if (w != e->waiting && e->change == CH_NONE)
			e->change = CH_UPDATED;
		e->waiting = w;
	}
	e->pass = f->pass;
	e->c = c;
	e->gone = !c->active;	/* settled: reported once, then forgotten */
}

static void
forget(struct follower *f, struct seen *e)
{
	seen_remove(&f->seen, e);
	free(e->key);
	free(e->event_id);
	free(e);
}

static void
add_changed(struct follower *f, struct seen *e)
{
	if (f->nchanged == f->capchanged) {
		f->capchanged = f->capchanged == 0 ? 16 : f->capchanged * 2;
		f->changed = reallocarray(f->changed, f->capchanged,
		    sizeof(*f->changed));
		if (f->changed == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	f->changed[f->nchanged++] = e;
}

/* The look's changes, in key order, for follow_next to hand out. */
static void
gather(struct follower *f)
{
	struct seen	*e;
	size_t		 i;

	f->nchanged = f->next = 0;
	for (i = 0; i < f->seen.cap; i++) {
		if ((e = f->seen.slot[i]) == NULL)
			continue;
		if (e->pass != f->pass) {
			e->change = CH_REMOVED;	/* left the state while active */
			e->gone = true;
			e->c = NULL;
		}
		if (e->change != CH_NONE)
			add_changed(f, e);
	}
	if (f->nchanged > 1)
		qsort(f->changed, f->nchanged, sizeof(*f->changed), seen_cmp);
}

/* The change handed last is done with: a settled one is forgotten. */
static void
let_go(struct follower *f)
{
	struct seen *e = f->handed;

	if (e == NULL)
		return;
	f->handed = NULL;
	e->change = CH_NONE;
	e->c = NULL;
	if (e->gone)
		forget(f, e);
}

bool
follow_next(struct follower *f, struct follow_change *ch)
{
	struct seen *e;

	let_go(f);
	memset(ch, 0, sizeof(*ch));
	ch->at = f->now;
	if (f->next < f->nchanged) {
		e = f->handed = f->changed[f->next++];
		arena_reset(&f->arena);
		ch->kind = (enum follow_kind)(e->change - CH_CURRENT);
		ch->name = change_names[e->change];
		ch->key = e->key;
		ch->keylen = e->keylen;
		ch->cond = e->c;
		return true;
	}
	if (f->synced_due) {
		f->synced_due = false;
		ch->kind = FOLLOW_SYNCED;
		ch->name = "synced";
		return true;
	}
	return false;
}

void
follow_write(struct buf *out, struct follower *f,
    const struct follow_change *ch)
{
	const struct condition *c = ch->cond;

	buf_printf(out, "{\"change\":\"%s\",\"at\":", ch->name);
	buf_json_cstr(out, ch->at);
	if (ch->kind == FOLLOW_SYNCED) {
		buf_puts(out, "}\n");
		return;
	}
	buf_puts(out, ",\"key\":");
	buf_json_str(out, ch->key, ch->keylen);
	if (c != NULL) {
		render(f, c, condition_qstatus(c, f->now) == Q_EXPIRED, true);
		buf_puts(out, ",\"notification\":");
		buf_put(out, f->n.p, f->n.len);
		buf_puts(out, ",\"interaction\":");
		buf_put(out, f->i.p, f->i.len);
		buf_puts(out, ",\"view\":");
		buf_put(out, f->v.p, f->v.len);
		buf_put(out, f->h.p, f->h.len);
	} else {
		buf_puts(out, ",\"notification\":null,"
		    "\"interaction\":null,\"view\":null");
	}
	buf_puts(out, "}\n");
}

/* A record's text as a tree in a; NULL when it has none. */
static struct jval *
tree_of(struct follower *f, struct arena *a, const struct condition *c,
    bool interaction)
{
	const char		*text;
	struct jparse_error	 e;
	struct jval		*v;

	if ((interaction ? c->interaction.len : c->notification.len) == 0 ||
	    (text = journal_text(&f->j, a, c, interaction)) == NULL)
		return NULL;
	v = json_parse(a, text, strlen(text), &e);
	return v != NULL && v->type == J_OBJECT ? v : NULL;
}

/* A question recorded pending whose deadline passed reads "expired". */
static void
tree_expired(struct arena *a, struct jval *i)
{
	static const char	 word[] = "expired";
	struct jval		*v;
	size_t			 k;

	for (k = 0; k < i->n; k++)
		if (i->members[k].namelen == 6 &&
		    memcmp(i->members[k].name, "status", 6) == 0 &&
		    json_is(i->members[k].value, "pending")) {
			v = arena_alloc(a, sizeof(*v));
			memset(v, 0, sizeof(*v));
			v->type = J_STRING;
			v->raw = "\"expired\"";
			v->rawlen = sizeof(word) + 1;
			v->s = word;
			v->len = v->codepoints = sizeof(word) - 1;
			i->members[k].value = v;
		}
}

bool
follow_news(struct follower *f, const struct follow_change *ch,
    struct arena *a, struct follow_news *nw)
{
	const struct condition	*c = ch->cond;
	struct jval		*i;
	enum qstatus		 eff;

	memset(nw, 0, sizeof(*nw));
	nw->waiting = -1;
	if (c == NULL || f->off != NULL ||
	    (nw->n = tree_of(f, a, c, false)) == NULL)
		return false;
	eff = condition_qstatus(c, f->now);
	if ((i = tree_of(f, a, c, true)) != NULL && eff == Q_EXPIRED)
		tree_expired(a, i);
	nw->i = i;
	/* a hand-over record of this question's, not an earlier one's */
	if (i != NULL && c->handover != NULL) {
		struct handover h;

		rules_handover_of(a, c->handover, sv_json(json_get(i, "id")),
		    &h);
		if (h.what != NULL)
			nw->handover = c->handover;
	}
	if (i != NULL && c->active && eff == Q_PENDING)
		nw->waiting = waiting_of(&f->waiters, sv_str(c->key)) ==
		    WAITING_SOMEONE;
	return true;
}

/*
 * Catches up with the journal and gathers what changed.  False on a
 * system failure (the journal cannot be read safely).
 */
bool
follow_look(struct follower *f)
{
	struct follow_change	 ch;
	const struct condition	*c;
	size_t			 at;
	uint64_t		 gen = f->gen;

	while (follow_next(f, &ch))	/* a look's changes not taken */
		;
	free(f->deadline);
	f->deadline = NULL;
	f->looked_at = monotonic_ms();
	if (!journal_lock(&f->j, false))
		return false;
	if (f->j.fd != -1 && !f->j.missing && (!f->opened ||
	    f->j.dev != f->dev || f->j.ino != f->ino ||
	    f->j.offset < f->offset)) {
		f->gen++;	/* another file: every record moved */
		f->dev = f->j.dev;
		f->ino = f->j.ino;
		f->opened = true;
	}
	f->same_file = f->gen == gen;
	f->before = f->offset;
	f->offset = f->j.offset;
	f->pass++;
	waiting_look(&f->waiters, f->j.path);
	strlcpy(f->now, arc_now_advancing(), sizeof(f->now));
	for (c = state_first(f->j.st, &at); c != NULL;
	    c = state_next(f->j.st, &at))
		visit(c, f);
	/*
	 * Handed out without the lock, so that a slow reader holds no writer
	 * up: the state stays as it is until the next look, and the records
	 * are read by span from the file we hold open (a compaction renames
	 * a new one over it, never changes it).
	 */
	journal_unlock(&f->j);
	gather(f);
	f->synced_due = f->pass == 1;
	/* The deadline points into the state: keep a copy past the look. */
	f->deadline = f->deadline != NULL ? xstrdup(f->deadline) : NULL;
	return true;
}

/*
 * Opens the journal and watches its folder (folder_watch), made if
 * missing as every command makes the usual journal's (a -j one's must be
 * there): mode 0700, each new folder's name synced, so that a writer that
 * follows finds folders a power cut cannot take back.
 */
struct follower *
follow_open(const char *journal, const struct offdevice *off)
{
	struct follower	*f;
	char		*path, *copy;

	path = journal_default_path(journal);
	if (!journal_folder_ready(path, true)) {
		free(path);
		return NULL;	/* said why */
	}
	if ((f = calloc(1, sizeof(*f))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	f->off = off;
	if ((copy = strdup(path)) == NULL ||
	    (f->base = strdup(basename(copy))) == NULL)
		err(EXIT_SYSTEM, "strdup");
	free(copy);
	f->watch = folder_watch(path);
	if (!journal_open(&f->j, path, false)) {
		free(path);
		follow_close(f);
		return NULL;
	}
	free(path);
	return f;
}

int
follow_fd(const struct follower *f)
{
	return f->watch;
}

/*
 * Until the nearest deadline passes or the safety poll is due (without
 * inotify, a plain poll), counted from the last look.
 */
int64_t
follow_wait_ms(const struct follower *f)
{
	int64_t ms, due;

	ms = (f->watch == -1 ? NO_INOTIFY_MS : SAFETY_POLL_MS) -
	    (monotonic_ms() - f->looked_at);
	if (f->deadline != NULL) {
		due = rfc3339_ms_between(arc_now_advancing(), f->deadline) + 1;
		if (due < ms)
			ms = due;
	}
	return ms < 0 ? 0 : ms;
}

bool
follow_woken(struct follower *f)
{
	return f->watch != -1 && folder_watch_read(f->watch, f->base);
}

void
follow_close(struct follower *f)
{
	struct seen	*e;
	size_t		 i;

	if (f == NULL)
		return;
	for (i = 0; i < f->seen.cap; i++)
		if ((e = f->seen.slot[i]) != NULL) {
			free(e->key);
			free(e->event_id);
			free(e);
		}
	free(f->seen.slot);
	free(f->changed);
	if (f->watch != -1)
		(void)close(f->watch);
	free(f->base);
	free(f->deadline);
	buf_free(&f->n);
	buf_free(&f->i);
	buf_free(&f->v);
	buf_free(&f->h);
	waiting_free(&f->waiters);
	arena_free(&f->arena);
	journal_close(&f->j);
	free(f);
}

int
status_follow(const char *journal, const struct offdevice *off)
{
	struct follower		*f;
	struct follow_change	 ch;
	struct buf		 out = { 0 };
	int			 status = 0;

	if ((f = follow_open(journal, off)) == NULL)
		return EXIT_SYSTEM;
	for (;;) {
		if (!follow_look(f)) {
			status = EXIT_SYSTEM;
			break;
		}
		while (follow_next(f, &ch)) {
			follow_write(&out, f, &ch);
			/* Out as it goes: a line at a time, not every one's. */
			if (out.len >= 64 * 1024) {
				write_stdout(&out);
				out.len = 0;
			}
		}
		write_stdout(&out);
		flush_stdout();
		out.len = 0;
		/* until the journal changes; false: our reader has gone */
		if (!folder_sleep(f->watch, f->base, follow_wait_ms(f),
		    STDOUT_FILENO))
			break;
	}
	buf_free(&out);
	follow_close(f);
	return status;
}
