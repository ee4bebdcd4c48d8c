/*
 * libFuzzer target: the three ways to a state agree, and a compaction
 * keeps exactly what it should.  The input's lines are applied to a
 * scratch journal, the first half by one writer, which leaves a
 * checkpoint when it closes (the floor is 0), the rest by a second, which
 * starts from that checkpoint and stays open.  Then:
 *
 *   restore   a writer that loads the checkpoint and replays the records
 *             after it has the state of one that replays the whole file,
 *             and both have the live writer's: every condition, its
 *             texts and summary, and every event seen with its time;
 *   compact   the journal compacted at a later instant (retention and
 *             window chosen from the input), then replayed, holds the
 *             live state less what arc-journal(5) drops: each condition
 *             without a notification or retired, each event seen before
 *             the window.
 *
 * Lines that begin with @ or ! are a person's answers and dismissals
 * (act()).  The clock is fixed (ARC_NOW), so that a run can be replayed.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../arc.h"
#include "../arcrecord.h"
#include "../arcstate.h"
#include "../arcjournal.h"
#include "../arcfilter.h"
#include "scratch.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define T0		"2026-08-26T01:16:00Z"
#define LINES_MAX	64

/* An event seen: its identity, its content's hash, when. */
struct seen {
	uint8_t		 ident[16], content[16];
	int64_t		 when;
};

struct seen_set {
	struct seen	*v;
	size_t		 n;
};

static int
seen_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct seen));
}

/* The events st has seen since `since`, in a canonical order. */
static void
seen_of(struct state *st, int64_t since, struct seen_set *s)
{
	struct seen	 e;
	size_t		 at = 0, cap = 0;

	s->v = NULL;
	s->n = 0;
	memset(&e, 0, sizeof(e));
	while (state_next_seen(st, &at, e.ident, e.content, &e.when)) {
		if (e.when < since)
			continue;
		if (s->n == cap) {
			cap = cap ? 2 * cap : 16;
			if ((s->v = reallocarray(s->v, cap, sizeof(*s->v))) ==
			    NULL)
				err(1, "reallocarray");
		}
		s->v[s->n++] = e;
	}
	if (s->n > 0)
		qsort(s->v, s->n, sizeof(*s->v), seen_cmp);
}

static void
same_seen(struct state *want, int64_t since, struct state *got,
    const char *what)
{
	struct seen_set	 a, b;

	seen_of(want, since, &a);
	seen_of(got, INT64_MIN, &b);
	if (a.n != b.n || (a.n > 0 && memcmp(a.v, b.v, a.n *
	    sizeof(*a.v)) != 0))
		errx(1, "%s: the events seen differ (%zu, %zu)", what, a.n,
		    b.n);
	free(a.v);
	free(b.v);
}

static bool
same_str(const char *a, const char *b)
{
	return (a == NULL) == (b == NULL) && (a == NULL || strcmp(a, b) == 0);
}

/* c in journal x and r in journal y: the same texts, the same summary. */
static void
same_condition(struct journal *x, const struct condition *c,
    struct journal *y, const struct condition *r, struct arena *a,
    const char *what)
{
	const char	*p, *q;
	int		 k;

	for (k = 0; k < 2; k++) {
		arena_reset(a);
		p = journal_text(x, a, c, k);
		q = journal_text(y, a, r, k);
		if (!same_str(p, q))
			errx(1, "%s: a condition's %s differs", what,
			    k ? "question" : "notification");
	}
	if (strcmp(c->notification_id, r->notification_id) != 0 ||
	    c->active != r->active || c->priority != r->priority ||
	    c->qstatus != r->qstatus || c->due != r->due ||
	    c->changed != r->changed || !same_str(c->expires_at,
	    r->expires_at) || !same_str(c->dismissed, r->dismissed) ||
	    !same_str(c->route, r->route))
		errx(1, "%s: a condition's summary differs", what);
}

/*
 * got holds each condition of want, the same, and its events seen since
 * `since`; with now, only the conditions a compaction at now keeps: those
 * with a notification and not retired.
 */
static void
same_state(struct journal *want, struct journal *got, const char *now,
    int64_t retain, int64_t since, const char *what)
{
	struct arena		 a = { 0 };
	const struct condition	*c, *r;
	size_t			 at, kept = 0;

	for (c = state_first(want->st, &at); c != NULL;
	    c = state_next(want->st, &at)) {
		r = state_lookup(got->st, c->key);
		if (now != NULL && (c->notification.len == 0 ||
		    condition_retired(c, now, retain))) {
			if (r != NULL)
				errx(1, "%s: a condition that goes is kept",
				    what);
			continue;
		}
		if (r == NULL)
			errx(1, "%s: a condition is lost", what);
		same_condition(want, c, got, r, &a, what);
		kept++;
	}
	if (kept != state_count(got->st))
		errx(1, "%s: conditions appear from nowhere", what);
	same_seen(want->st, since, got->st, what);
	arena_free(&a);
}

/*
 * A person's act, since an answer must echo the nonce minted when its
 * question was stored: "@KEY CHOICE" answers the question under KEY as
 * arc-answer does (build_event; "@KEY =TEXT" with a text), "!KEY"
 * dismisses what is under KEY as arc-answer --dismiss does.
 */
static void
act(struct applier *ap, const char *p, size_t n, uint64_t lineno)
{
	struct answerer	 who = { "fuzz", NULL, "cli", NULL };
	struct arena	 a = { 0 };
	struct question	 qn;
	struct current	 cur;
	struct change	 ch;
	struct buf	 ev = { 0 };
	const char	*now = arc_now(), *at = journal_clock(&ap->j, now);
	char		 key[512], *sp;

	if (n > sizeof(key))
		return;
	memcpy(key, p + 1, n - 1);
	key[n - 1] = '\0';
	if (p[0] == '!') {
		current_of(&ap->j, &a, sv_str(key), &cur);
		if (rules_dismiss(&cur, now, at, "cli", &ch) == DISMISS_OK)
			journal_record(&ap->j, at, &ch);
	} else if ((sp = strchr(key, ' ')) != NULL) {
		*sp++ = '\0';
		find_question(&ap->j, &a, key, &qn);
		build_event(&ev, key, &qn, &who, sp[0] == '=' ? sp + 1 : sp,
		    sp[0] == '=');
		apply_one(ap, "fuzz", lineno, ev.p, ev.len, false);
		buf_free(&ev);
	}
	arena_free(&a);
}

/* Applies lines [from, to) of the input, each its own committed batch. */
static void
apply_lines(struct applier *ap, const char **line, const size_t *len,
    size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		if (!journal_lock(&ap->j, true))
			errx(1, "lock");
		if (len[i] > 1 && (line[i][0] == '@' || line[i][0] == '!'))
			act(ap, line[i], len[i], i + 1);
		else
			apply_one(ap, "fuzz", i + 1, line[i], len[i],
			    len[i] > ARC_LINE_MAX);
		ap->out.len = 0;	/* the results are not the point here */
		if (!journal_append(&ap->j))
			errx(1, "append");
		journal_unlock(&ap->j);
	}
}

/* A writer of path, caught up; from its checkpoint or from the start. */
static void
open_writer(struct journal *j, const char *path, bool checkpoint)
{
	if (!journal_open(j, path, true))
		errx(1, "the journal cannot be opened");
	j->checkpoint_floor = checkpoint ? 0 : UINT64_MAX;
	if (!journal_lock(j, true))
		errx(1, "the journal it wrote cannot be read back");
	journal_unlock(j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int64_t	 periods[] = { 0, 3600, 86400, 7 * 86400 };
	static char		 path[64];
	const char		*line[LINES_MAX], *p = (const char *)data;
	const char		*end = p + size, *nl;
	size_t			 len[LINES_MAX], n = 0;
	struct applier		 ap;
	struct journal		 restored, replayed, compacted;
	char			 now[64];
	int64_t			 retain, window;

	if (path[0] == '\0') {
		if (setenv("ARC_NOW", T0, 1) == -1 || !arc_now_init())
			errx(1, "ARC_NOW");
		/* tmpfs where there is one: its syncs cost nothing */
		snprintf(path, sizeof(path), "%s/arc-fuzz-replay.%ld",
		    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		    (long)getpid());
	}
	for (; p < end && n < LINES_MAX; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		line[n] = p;
		len[n++] = (size_t)(nl - p);
	}
	scratch_remove(path);

	/* The first half, then a checkpoint; the rest from it, kept open. */
	if (!applier_open(&ap, path))
		errx(1, "cannot open the scratch journal");
	ap.quiet = true;
	ap.j.checkpoint_floor = 0;
	apply_lines(&ap, line, len, 0, n / 2);
	applier_close(&ap);
	if (!applier_open(&ap, path))
		errx(1, "cannot open the scratch journal again");
	ap.quiet = true;
	ap.j.checkpoint_floor = 0;
	apply_lines(&ap, line, len, n / 2, n);

	open_writer(&restored, path, true);
	open_writer(&replayed, path, false);
	same_state(&replayed, &restored, NULL, 0, INT64_MIN,
	    restored.checkpoint > 0 ? "checkpoint restore" : "replay");
	same_state(&replayed, &ap.j, NULL, 0, INT64_MIN, "the live state");
	journal_close(&restored);

	/* Compacted at T0 plus 0 to 9 days, then replayed. */
	if (!rfc3339_after(T0, (int64_t)(size % 10) * 86400, now,
	    sizeof(now)))
		errx(1, "rfc3339_after");
	replayed.retain = retain = periods[size / 10 % 4];
	replayed.window = window = periods[size / 40 % 4];
	if (!journal_compact(&replayed, now))
		errx(1, "the compaction failed");
	open_writer(&compacted, path, false);
	same_state(&ap.j, &compacted, now, retain, instant_seconds(now) -
	    window, "compaction");
	journal_close(&compacted);
	journal_close(&replayed);
	applier_close(&ap);
	scratch_remove(path);
	return 0;
}
