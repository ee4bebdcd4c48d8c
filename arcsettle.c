/*
 * Waiting until the question under a key is settled: arc-wait's loop,
 * shared with arc-hook, which waits in-process.  Each look takes a shared
 * lock; in between, a sleep on the journal's bell (arcbell.h) until a
 * writer rings it, the question's deadline comes, or the timeout.  Where
 * the bell cannot be had (a folder we may not write), a sleep on the
 * folder's changes instead.  A question past its deadline is marked
 * expired in the journal, as judged by the one judge.
 */
#include <libgen.h>
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <sys/stat.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcrules.h"
#include "arcjournal.h"
#include "arcbell.h"
#include "arcwaiter.h"
#include "arcfilter.h"
#include "arcsettle.h"

enum marked { MARKED, NOT_MARKED, MARK_FAILED };

/*
 * Marks a due question expired in the journal, as judged at now (the one
 * judge, question_state()); NOT_MARKED when it was not due, or is no
 * longer pending, by the time the lock was had.
 */
static enum marked
mark_expired(struct journal *j, struct arena *a, const char *key,
    const char *now)
{
	struct current	 cur;
	struct change	 ch;
	enum marked	 m = NOT_MARKED;

	if (!journal_lock(j, true))
		return MARK_FAILED;
	arena_reset(a);
	current_of(j, a, sv_str(key), &cur);
	if (rules_expire(&cur, now, journal_clock(j, now), &ch)) {
		journal_record(j, journal_clock(j, now), &ch);
		m = journal_append(j) ? MARKED : MARK_FAILED;
	}
	journal_unlock(j);
	return m;
}

/* The stored record as a tree in the caller's arena. */
static void
keep_record(const struct jval **record, struct arena *into,
    const char *text)
{
	struct jparse_error	 e;
	size_t			 len = strlen(text);
	char			*copy = arena_alloc(into, len + 1);

	memcpy(copy, text, len + 1);
	if ((*record = json_parse(into, copy, len, &e)) == NULL)
		errx(EXIT_SYSTEM, "the journal has a damaged record (its text "
		    "does not parse)");
}

/* Whether stop's reader went away (a signal closed it). */
static bool
stop_gone(int stop)
{
	struct pollfd	 pfd = { .fd = stop, .events = 0 };

	return stop != -1 && poll(&pfd, 1, 0) == 1 &&
	    (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0;
}

/* How long to sleep before the next look (ms); -1: the timeout passed. */
static int64_t
nap(const struct question *qn, struct arena *a, const char *now,
    int64_t give_up, bool watched)
{
	int64_t wait_ms, left;

	wait_ms = rfc3339_ms_between(now, sv_cstr_of(a,
	    qn->q.f[I_EXPIRES_AT]));
	if (give_up >= 0) {
		if ((left = give_up - monotonic_ms()) <= 0)
			return -1;
		if (left < wait_ms)
			wait_ms = left;
	}
	if (!watched && wait_ms > 100)
		wait_ms = 100;	/* no inotify: poll */
	else if (wait_ms > 1000)
		wait_ms = 1000;	/* a slow poll, in case a watch is lost */
	/*
	 * Pending by the judge, yet due within the millisecond (or a clock
	 * at the end of time): a short sleep, never a spin.
	 */
	return wait_ms < 10 ? 10 : wait_ms;
}

static void
keep_id(char id[SETTLE_ID_MAX], const struct question *qn)
{
	struct sv v = qn->q.f[I_ID];

	id[0] = '\0';
	if (v.p != NULL && v.n < SETTLE_ID_MAX) {
		memcpy(id, v.p, v.n);
		id[v.n] = '\0';
	}
}

/* The journal, opened writable the first time; false: it failed. */
static bool
settle_open(struct settle *s, const char *path)
{
	if (s->open)
		return true;
	if (!journal_open(&s->j, path, true)) {
		journal_close(&s->j);
		return false;
	}
	s->open = true;
	return true;
}

void
settle_done(struct settle *s)
{
	if (s->open)
		journal_close(&s->j);
	s->open = false;
}

enum settled
settle_wait(struct settle *s, const char *journal, const char *key,
    int64_t timeout, int stop, struct arena *into,
    const struct jval **record, char id[SETTLE_ID_MAX])
{
	struct waiter	 mark = { 0 };
	struct journal	*jp = &s->j;
	struct question	 qn;
	struct arena	 arena = { 0 }, marking = { 0 };
	struct stat	 sb;
	struct bell	 bell = { 0 };
	char		*path, *base = NULL, *copy;
	int64_t		 give_up = -1, wait_ms;
	uint32_t	 rung = 0;
	int		 fd = -1;
	enum settled	 status;
	bool		 watched = false, belled = false, looked_again = false,
			 done = false;

	id[0] = '\0';
	*record = NULL;
	if (timeout >= 0)
		give_up = timeout < INT64_MAX / 2 ? monotonic_ms() + timeout :
		    INT64_MAX / 2;
	path = journal_default_path(journal);
	if (!journal_folder_ready(path, false)) {
		free(path);
		return SETTLED_FAILED;
	}
	if (stat(path, &sb) == -1 && errno == ENOENT) {
		free(path);
		return SETTLED_NO_JOURNAL;
	}
	if (!settle_open(s, path)) {
		free(path);
		return SETTLED_FAILED;
	}
	if ((copy = strdup(path)) == NULL ||
	    (base = strdup(basename(copy))) == NULL)
		err(EXIT_SYSTEM, "strdup");
	free(copy);
	for (status = SETTLED_FAILED; !done;) {
		const char *now;

		arena_reset(&arena);
		if (belled)
			rung = bell_listen(&bell);
		if (!journal_lock(jp, false))
			break;
		journal_unlock(jp);
		find_question(jp, &arena, key, &qn);
		if (!qn.found) {
			status = state_lookup(jp->st, key) != NULL ?
			    SETTLED_NOTICE : SETTLED_NO_QUESTION;
			break;
		}
		now = arc_now_advancing();
		if (sv_is(qn.q.f[I_STATUS], "pending") &&
		    question_status(&qn.q, now) == Q_EXPIRED) {
			/* Its deadline passed: say so in the journal. */
			switch (mark_expired(jp, &marking, key, now)) {
			case MARK_FAILED:
				done = true;
				break;
			case MARKED:
				continue;
			case NOT_MARKED:
				/*
				 * Settled meanwhile (answered, expired or
				 * replaced by another): look again.  The one
				 * judge agrees with itself, so a second time
				 * means the record itself is stale.
				 */
				if (!looked_again) {
					looked_again = true;
					continue;
				}
				keep_record(record, into, qn.text);
				status = SETTLED_OTHER;
				done = true;
				break;
			}
			break;
		}
		if (!sv_is(qn.q.f[I_STATUS], "pending")) {
			keep_record(record, into, qn.text);
			if (watched)	/* it waited: the answer is its own */
				keep_id(id, &qn);
			status = sv_is(qn.q.f[I_STATUS], "answered") ?
			    SETTLED_ANSWERED : SETTLED_OTHER;
			break;
		}
		/*
		 * Pending: listen for the bell (else watch the folder: only
		 * then, since an inotify instance is slow to release), look
		 * once more, then sleep until it rings or a deadline.
		 */
		if (!watched) {
			watched = true;
			if (access(path, W_OK) == 0)	/* else a reader's */
				(void)waiter_hold(&mark, path, key, NULL,
				    NULL);
			if (!(belled = bell_open(&bell, path)))
				fd = folder_watch(path);
			continue;
		}
		if ((wait_ms = nap(&qn, &arena, now, give_up,
		    belled || fd != -1)) < 0) {
			status = SETTLED_TIMEOUT;
			break;
		}
		if (belled) {
			if (!stop_gone(stop))
				(void)bell_sleep(&bell, rung, wait_ms + 1);
			if (stop_gone(stop)) {
				status = SETTLED_STOPPED;
				break;
			}
		} else if (!folder_sleep(fd, base, wait_ms + 1, stop)) {
			status = SETTLED_STOPPED;
			break;
		}
	}
	bell_close(&bell);
	waiter_release(&mark);
	if (fd != -1)
		(void)close(fd);
	free(path);
	free(base);
	arena_free(&arena);
	arena_free(&marking);
	return status;
}

bool
settle_receipt(struct settle *s, const char *journal, const char *key,
    const char *id, const char *by, bool taken)
{
	struct arena	 arena = { 0 };
	struct current	 cur;
	struct change	 ch;
	struct sv	 who;
	const char	*now, *at;
	char		*path;
	bool		 opened, ok = false;

	if (!s->open) {	/* a wait opened it as a rule: no path to find */
		path = journal_default_path(journal);
		opened = settle_open(s, path);
		free(path);
		if (!opened)
			return false;
	}
	if (!journal_lock(&s->j, true))
		return false;
	now = arc_now();
	at = journal_clock(&s->j, now);
	current_of(&s->j, &arena, sv_str(key), &cur);
	who = by != NULL ? sv_str(by) : !cur.has_n ? sv_str(NULL) :
	    cur.n.f[N_AGENT_NAME].p != NULL ? cur.n.f[N_AGENT_NAME] :
	    cur.n.f[N_AGENT];
	if (rules_handover(&cur, sv_str(id), rules_handover_json(&arena,
	    taken ? "taken" : "not_taken", taken ? at : "stopped_waiting",
	    who, sv_str(id)), &ch)) {
		journal_record(&s->j, at, &ch);
		ok = journal_append_unsynced(&s->j);
	}
	journal_unlock(&s->j);
	arena_free(&arena);
	return ok;
}
