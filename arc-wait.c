/*
 * arc-wait: a producer blocks until its question is settled.
 */

#include <libgen.h>
#include <poll.h>
#include <time.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcrules.h"
#include "arcjournal.h"
#include "arccmd.h"
#include "arcwords.h"

static const char usage[] =
"usage: arc-wait [-j journal] [-t duration] key\n"
"\n"
"Blocks until the current question under key is settled, then prints its\n"
"interaction record: exit 0 answered; 1 expired, cancelled, or no question;\n"
"124 when the duration passes first.\n"
"\n"
"  -j, --journal file    the journal (else $ARC_JOURNAL, else\n"
"                        $XDG_STATE_HOME/arc/journal or ~/.local/state/arc/journal)\n"
"  -t, --timeout dur     give up after dur: 90s, 10m, 2h, 1d, 1w, 1h30m, or\n"
"                        seconds (2.5)\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

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

/*
 * Until the question under key is settled, or timeout ms (-1: never)
 * pass: each look a shared lock, then a sleep on the journal's folder
 * until it changes, the deadline comes or the timeout.
 */
static int
wait_for(const char *journal, const char *key, int64_t timeout)
{
	struct journal	 j;
	struct question	 qn;
	struct arena	 arena = { 0 }, marking = { 0 };
	struct stat	 sb;
	struct buf	 shown = { 0 };
	char		*path, *base = NULL;
	int64_t		 give_up = -1, wait_ms;
	int		 fd = -1, status;
	bool		 watched = false, looked_again = false;

	if (timeout >= 0)
		give_up = timeout < INT64_MAX / 2 ? monotonic_ms() + timeout :
		    INT64_MAX / 2;
	path = journal_default_path(journal);
	if (stat(path, &sb) == -1 && errno == ENOENT) {
		warnx("%s: no question under this key (no journal yet)",
		    safe(&shown, key));
		buf_free(&shown);
		free(path);
		return EXIT_REJECTED;
	}
	if (!journal_open(&j, path, true)) {
		journal_close(&j);
		buf_free(&shown);
		free(path);
		return EXIT_SYSTEM;
	}
	{
		char *copy = strdup(path);
		if (copy == NULL || (base = strdup(basename(copy))) == NULL)
			err(EXIT_SYSTEM, "strdup");
		free(copy);
	}
	for (status = -1; status < 0;) {
		const char *now;

		arena_reset(&arena);
		if (!journal_lock(&j, false)) {
			status = EXIT_SYSTEM;
			break;
		}
		journal_unlock(&j);
		find_question(&j, &arena, key, &qn);
		if (!qn.found) {
			warnx("%s: no question under this key%s", safe(&shown,
			    key), state_lookup(j.st, key) != NULL ?
			    " (a notice: nothing to answer)" : "");
			status = EXIT_REJECTED;
			break;
		}
		now = arc_now_advancing();
		if (sv_is(qn.q.f[I_STATUS], "pending") &&
		    question_status(&qn.q, now) == Q_EXPIRED) {
			/* Its deadline passed: say so in the journal. */
			switch (mark_expired(&j, &marking, key, now)) {
			case MARK_FAILED:
				status = EXIT_SYSTEM;
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
				print_interaction(&arena, qn.text);
				status = EXIT_REJECTED;
				break;
			}
			break;
		}
		if (!sv_is(qn.q.f[I_STATUS], "pending")) {
			print_interaction(&arena, qn.text);
			status = sv_is(qn.q.f[I_STATUS], "answered") ? 0 :
			    EXIT_REJECTED;
			break;
		}
		/*
		 * Pending: watch the journal (only now: a question already
		 * settled costs no inotify instance, whose release is slow),
		 * look once more, then sleep until it changes or a deadline.
		 */
		if (!watched) {
			watched = true;
			fd = folder_watch(path);
			continue;
		}
		wait_ms = rfc3339_ms_between(now, sv_cstr_of(&arena,
		    qn.q.f[I_EXPIRES_AT]));
		if (give_up >= 0) {
			int64_t left = give_up - monotonic_ms();
			if (left <= 0) {
				status = EXIT_TIMEOUT;
				break;
			}
			if (left < wait_ms)
				wait_ms = left;
		}
		if (fd == -1 && wait_ms > 100)
			wait_ms = 100;	/* no inotify: poll */
		else if (wait_ms > 1000)
			wait_ms = 1000;	/* a slow poll, in case a watch is lost */
		/*
		 * Pending by the judge, yet due within the millisecond (or a
		 * clock at the end of time): a short sleep, never a spin.
		 */
		if (wait_ms < 10)
			wait_ms = 10;
		(void)folder_sleep(fd, base, wait_ms + 1, -1);
	}
	if (fd != -1)
		(void)close(fd);
	free(path);
	free(base);
	buf_free(&shown);
	arena_free(&arena);
	arena_free(&marking);
	journal_close(&j);
	return status;
}

int	wait_main(int, char **);	/* arcmain.c calls it */

int
wait_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct buf	 shown = { 0 };
	const char	*journal = NULL;
	int64_t		 timeout = -1;
	int		 ch, status;

	while ((ch = getopt_long(argc, argv, "j:t:hV", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'j':
			journal = optarg;
			break;
		case 't':
			if (!duration_arg("-t", optarg, &timeout)) {
				usage_print(stderr, usage, false);
				return EXIT_USAGE;
			}
			break;
		default:
			if (common_option(ch, usage, &status))
				return status;
			break;
		}
	}
	if (argc == optind)
		return usage_error(usage, "no key given");
	if (argc - optind > 1) {
		(void)usage_error(usage, "one key at a time; %s is one "
		    "too many", safe(&shown, argv[optind + 1]));
		buf_free(&shown);
		return EXIT_USAGE;
	}
	return wait_for(journal, argv[optind], timeout);
}
