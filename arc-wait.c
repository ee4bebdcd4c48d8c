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
#include <sys/stat.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcrules.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcusage.h"
#include "arcwords.h"
#include "arcsettle.h"

static const char usage[] =
"usage: arc-wait [-j journal] [-t duration] [--no-receipt] key\n"
"\n"
"Blocks until the current question under key is settled, then prints its\n"
"interaction record: exit 0 answered; 1 expired, cancelled, or no question;\n"
"124 when the duration passes first.\n"
"\n"
"  -j, --journal file    the journal (else $ARC_JOURNAL, else\n"
"                        $XDG_STATE_HOME/arc/journal or ~/.local/state/arc/journal)\n"
"  -t, --timeout dur     give up after dur: 90s, 10m, 2h, 1d, 1w, 1h30m, or\n"
"                        seconds (2.5)\n"
"  --no-receipt          record no receipt once the answer is written: for an\n"
"                        adapter that hands it on and records its own\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

/* Waits (arcsettle.c), then says what became of the question. */
static int
wait_for(const char *journal, const char *key, int64_t timeout,
    bool receipt)
{
	struct buf	 shown = { 0 }, record = { 0 };
	struct arena	 arena = { 0 };
	const struct jval *tree;
	struct rec	 q;
	struct settle	 settle = { .open = false };
	struct stat	 sb;
	char		 id[SETTLE_ID_MAX];
	int		 status = EXIT_SYSTEM, reader = -1;
	enum settled	 s;

	/*
	 * Whoever reads a pipe of ours may go away (an adapter killed): then
	 * nobody is there to hand the answer to, and we stop waiting too,
	 * within a second, so that the question shows nobody waits.
	 */
	if (fstat(STDOUT_FILENO, &sb) == 0 && (S_ISFIFO(sb.st_mode) ||
	    S_ISSOCK(sb.st_mode)))
		reader = STDOUT_FILENO;
	s = settle_wait(&settle, journal, key, timeout, reader, &arena, &tree,
	    id);

	switch (s) {
	case SETTLED_ANSWERED:
	case SETTLED_OTHER:
		/* printed in its full form: every member, nulls too */
		if (!rec_from_jval(tree, true, &q))
			errx(EXIT_SYSTEM, "the journal has a damaged record");
		rec_write(&record, &q, true, true);
		buf_putc(&record, '\n');
		write_stdout(&record);
		flush_stdout();
		status = s == SETTLED_ANSWERED ? 0 : EXIT_REJECTED;
		/* Handed over: the producer has the answer (a receipt). */
		if (s == SETTLED_ANSWERED && id[0] != '\0' && receipt)
			(void)settle_receipt(&settle, journal, key, id, NULL,
			    true);
		break;
	case SETTLED_NO_JOURNAL:
		warnx("%s: no question under this key (no journal yet)",
		    safe(&shown, key));
		status = EXIT_REJECTED;
		break;
	case SETTLED_NO_QUESTION:
	case SETTLED_NOTICE:
		warnx("%s: no question under this key%s", safe(&shown, key),
		    s == SETTLED_NOTICE ? " (a notice: nothing to answer)" :
		    "");
		status = EXIT_REJECTED;
		break;
	case SETTLED_TIMEOUT:
		status = EXIT_TIMEOUT;
		break;
	case SETTLED_STOPPED:
	case SETTLED_FAILED:
		break;
	}
	settle_done(&settle);
	buf_free(&shown);
	buf_free(&record);
	arena_free(&arena);
	return status;
}

int	wait_main(int, char **);	/* arcmain.c calls it */

int
wait_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "no-receipt", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct buf	 shown = { 0 };
	const char	*journal = NULL;
	int64_t		 timeout = -1;
	int		 ch, status;
	bool		 receipt = true;

	while ((ch = getopt_long(argc, argv, "j:t:hV", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'j':
			journal = optarg;
			break;
		case 'R':
			receipt = false;
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
	return wait_for(journal, argv[optind], timeout, receipt);
}
