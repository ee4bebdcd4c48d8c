/*
 * arc-apply: applies ARC events to the conditions in the journal and
 * prints one result line per event, each only once its record is on disk;
 * or, as one of its other verbs, compacts, salvages or mirrors a journal,
 * or compresses and rotates its archive segments.
 * See arc-apply(1).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcarchive.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcusage.h"
#include "arcmirror.h"

#define BATCH_LINES	4096
#define BATCH_BYTES	(8 * 1024 * 1024)

/* Lines read together and committed under one lock and one fsync. */
struct batch {
	struct buf	 text;
	size_t		 n;
	size_t		 off[BATCH_LINES], len[BATCH_LINES];
	uint64_t	 lineno[BATCH_LINES];
	bool		 too_large[BATCH_LINES];
};

/* Reads one line, then as many more as are ready without waiting. */
static enum line_status
batch_fill(struct line_reader *r, struct batch *b, size_t limit)
{
	enum line_status	 ls;
	const char		*line;
	size_t			 len;

	b->n = 0;
	b->text.len = 0;
	do {
		ls = line_next(r, &line, &len);
		if (ls == LINE_EOF || ls == LINE_ERROR)
			return ls;
		if (ls == LINE_OK && line_blank(line, len))
			continue;
		b->too_large[b->n] = ls == LINE_TOO_LARGE;
		if (ls == LINE_TOO_LARGE)
			len = 0;
		b->off[b->n] = b->text.len;
		b->len[b->n] = len;
		b->lineno[b->n] = r->lineno;
		buf_put(&b->text, line, len);
		b->n++;
	} while (b->n < limit && b->text.len < BATCH_BYTES &&
	    line_pending(r));
	return LINE_OK;
}


static const char usage[] =
"usage: arc-apply [-0q] [-j journal] [--answers] [--netstrings] [--batch count]\n"
"                 [--retain duration] [--off-device] [file ...]\n"
"       arc-apply [-j journal] --compact [--retain duration] [--window duration]\n"
"                 [--keep-history duration] [--keep-history-bytes bytes]\n"
"       arc-apply [-j journal] --archive [--keep-history duration]\n"
"                 [--keep-history-bytes bytes]\n"
"       arc-apply [-j journal] --salvage new-journal\n"
"       arc-apply [-q] [-j journal] --mirror [--route command] [file ...]\n"
"\n"
"Applies ARC events to the conditions in the journal: one result line\n"
"per event, printed once its record is on disk.  Or, one of these at a\n"
"time: compacts the journal, compresses and rotates its archive segments,\n"
"salvages a damaged one, or keeps a mirror of another host's conditions.\n"
"\n"
"  -j, --journal file    the journal (else $ARC_JOURNAL, else\n"
"                        $XDG_STATE_HOME/arc/journal or ~/.local/state/arc/journal)\n"
"  -q, --quiet           no diagnostics; the result lines are the same\n"
"  -0, --null            events end with a NUL byte, not a newline\n"
"  --netstrings          events are netstrings, LEN:EVENT, (mosquitto_sub\n"
"                        -F '%l:%p,'): one message is one event\n"
"  --answers             apply response.submitted events only\n"
"  --off-device          result lines hold only what the off-device setting\n"
"                        lets leave the host (ARC_OFF_DEVICE, arc-web(8))\n"
"  --batch count         at most count events under one lock and fsync\n"
"                        (1 to 4096)\n"
"  --retain duration     how long a settled condition stays in the live\n"
"                        journal (90s 10m 2h 1d 1w; default 1w)\n"
"  --compact             compact the journal now, then --archive\n"
"  --archive             compress the closed archive segments, remove those\n"
"                        past the limits, oldest first\n"
"  --keep-history duration  how long segments stay (default\n"
"                        $ARC_KEEP_HISTORY, else 90d; forever: always)\n"
"  --keep-history-bytes bytes  at most this many bytes of segments\n"
"                        (default $ARC_KEEP_HISTORY_BYTES, else no limit)\n"
"  --window duration     with --compact: how long event ids are remembered\n"
"  --salvage new-journal copy what a damaged journal holds to new-journal\n"
"  --mirror              mirror another host's conditions (arc-mqtt)\n"
"  --route command       with --mirror: how an answer goes back to its host\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

enum verb { APPLY, COMPACT, ARCHIVE, SALVAGE, MIRROR };

struct apply_opts {
	enum verb	 verb;
	const char	*journal, *salvage, *route;
	bool		 quiet, answers, nul, netstrings, off_device;
	int64_t		 window, retain;	/* seconds; -1: the default */
	size_t		 batch;
	struct keep	 keep;		/* of archive segments */
	bool		 keep_given;
};

/* Events from each file, a batch under one lock and one fsync. */
static int
apply_events(struct applier *ap, const struct apply_opts *o, int argc,
    char **argv)
{
	static char		*stdin_only[] = { "-", NULL };
	struct line_reader	 r;
	struct batch		*b;
	enum line_status	 ls;
	size_t			 k;
	int			 i, fd;

	/*
	 * Catch up at once: a torn tail is repaired and a damaged journal
	 * refused before any input is read, not at the first event.
	 */
	if (!journal_lock(&ap->j, true))
		return EXIT_SYSTEM;
	journal_unlock(&ap->j);
	if (argc == 0)
		argv = stdin_only, argc = 1;
	if ((b = calloc(1, sizeof(*b))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	for (i = 0; i < argc && ap->status != EXIT_SYSTEM; i++) {
		if ((fd = open_input(argv[i])) == -1) {
			ap->status = EXIT_SYSTEM;
			continue;
		}
		line_reader_init(&r, fd, argv[i]);
		if (o->nul)	/* -0: records end with NUL, as xargs -0 reads */
			line_reader_set(&r, ARC_LINE_MAX, '\0');
		else if (o->netstrings)
			line_reader_netstrings(&r, ARC_LINE_MAX);
		while ((ls = batch_fill(&r, b, o->batch)) != LINE_EOF ||
		    b->n > 0) {
			if (b->n > 0) {
				if (!journal_lock(&ap->j, true))
					errx(EXIT_SYSTEM, "nothing was applied");
				for (k = 0; k < b->n; k++)
					apply_one(ap, argv[i], b->lineno[k],
					    b->text.p + b->off[k], b->len[k],
					    b->too_large[k]);
				if (!applier_commit(ap))
					errx(EXIT_SYSTEM, "%zu events from line "
					    "%llu on were not applied", b->n,
					    (unsigned long long)b->lineno[0]);
			}
			if (ls == LINE_ERROR) {
				errno = r.read_errno;
				warn("%s", argv[i]);
				ap->status = EXIT_SYSTEM;
				break;
			}
			if (ls == LINE_EOF)
				break;
		}
		line_reader_free(&r);
		close_input(fd);
	}
	buf_free(&b->text);
	free(b);
	return ap->status;
}

static int
salvage(const struct apply_opts *o)
{
	char		*path = journal_default_path(o->journal);
	struct journal	 old;
	int		 status;

	status = journal_open(&old, path, false) &&
	    journal_salvage(&old, o->salvage) ? 0 : EXIT_SYSTEM;
	journal_close(&old);
	free(path);
	return status;
}

/* Compresses the closed segments and removes what the limits let go. */
static int
archive(const struct apply_opts *o)
{
	char	*path = journal_default_path(o->journal);
	int	 status;

	status = archive_maintain(path, instant_seconds(arc_now()), &o->keep) ?
	    0 : EXIT_SYSTEM;
	free(path);
	return status;
}

/* The verb, with what it takes; a usage error otherwise. */
static int
check_usage(const struct apply_opts *o, int argc, int verbs)
{
	if (verbs > 1)
		return usage_error(usage, "--compact, --archive, --salvage or "
		    "--mirror: one at a time");
	if ((o->verb == COMPACT || o->verb == ARCHIVE ||
	    o->verb == SALVAGE) && argc > 0)
		return usage_error(usage, "--compact, --archive and --salvage "
		    "read no events");
	if (o->keep_given && o->verb != COMPACT && o->verb != ARCHIVE)
		return usage_error(usage, "--keep-history goes with --compact "
		    "or --archive");
	if (o->route != NULL && o->verb != MIRROR)
		return usage_error(usage, "--route goes with --mirror");
	if ((o->answers || o->nul || o->netstrings || o->off_device) &&
	    o->verb != APPLY)
		return usage_error(usage, "%s applies events: not with "
		    "--compact, --salvage or --mirror", o->answers ?
		    "--answers" : o->nul ? "-0" : o->netstrings ?
		    "--netstrings" : "--off-device");
	if (o->nul && o->netstrings)
		return usage_error(usage, "-0 or --netstrings: one framing");
	return 0;
}

int	apply_main(int, char **);	/* arcmain.c calls it */

int
apply_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "compact", no_argument, NULL, 'c' },
		{ "archive", no_argument, NULL, 'a' },
		{ "keep-history", required_argument, NULL, 'k' },
		{ "keep-history-bytes", required_argument, NULL, 'K' },
		{ "window", required_argument, NULL, 'w' },
		{ "retain", required_argument, NULL, 'r' },
		{ "salvage", required_argument, NULL, 's' },
		{ "mirror", no_argument, NULL, 'm' },
		{ "route", required_argument, NULL, 'R' },
		{ "answers", no_argument, NULL, 'A' },
		{ "off-device", no_argument, NULL, 'O' },
		{ "null", no_argument, NULL, '0' },
		{ "netstrings", no_argument, NULL, 'n' },
		{ "batch", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct apply_opts	 o = { .verb = APPLY, .window = -1,
	    .retain = -1, .batch = BATCH_LINES };
	struct applier		 ap;
	struct offdevice	 off;
	long long		 n;
	int64_t			 ms;
	int			 ch, status, verbs = 0;

	archive_keep_env(&o.keep);
	while ((ch = getopt_long(argc, argv, "0j:qhV", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'j': o.journal = optarg; break;
		case 'R': o.route = optarg; break;
		case 'A': o.answers = true; break;
		case 'O': o.off_device = true; break;
		case '0': o.nul = true; break;
		case 'n': o.netstrings = true; break;
		case 'q': o.quiet = true; break;
		case 'c': o.verb = COMPACT; verbs++; break;
		case 'a': o.verb = ARCHIVE; verbs++; break;
		case 'k':
			o.keep_given = true;
			if (strcmp(optarg, "forever") == 0) {
				o.keep.seconds = -1;
				break;
			}
			if (!duration_arg("--keep-history", optarg, &ms)) {
				usage_print(stderr, usage, false);
				return EXIT_USAGE;
			}
			o.keep.seconds = ms / 1000 + (ms % 1000 != 0);
			break;
		case 'K':
			o.keep_given = true;
			if (!count_arg("--keep-history-bytes", optarg, 0,
			    LLONG_MAX, &n)) {
				usage_print(stderr, usage, false);
				return EXIT_USAGE;
			}
			o.keep.bytes = (uint64_t)n;
			break;
		case 'm': o.verb = MIRROR; verbs++; break;
		case 's': o.verb = SALVAGE; o.salvage = optarg; verbs++; break;
		case 'w':
		case 'r':
			if (!duration_arg(ch == 'w' ? "--window" : "--retain",
			    optarg, &ms)) {
				usage_print(stderr, usage, false);
				return EXIT_USAGE;
			}
			*(ch == 'w' ? &o.window : &o.retain) = ms / 1000 +
			    (ms % 1000 != 0);
			break;
		case 'b':
			if (!count_arg("--batch", optarg, 1, BATCH_LINES, &n)) {
				usage_print(stderr, usage, false);
				return EXIT_USAGE;
			}
			o.batch = (size_t)n;
			break;
		default:
			if (common_option(ch, usage, &status))
				return status;
			break;
		}
	}
	argc -= optind;
	argv += optind;
	if ((status = check_usage(&o, argc, verbs)) != 0)
		return status;
	if (o.verb == SALVAGE)
		return salvage(&o);
	if (o.verb == ARCHIVE)
		return archive(&o);
	if (!applier_open(&ap, o.journal)) {
		applier_close(&ap);
		return EXIT_SYSTEM;
	}
	ap.quiet = o.quiet;
	ap.answers_only = o.answers;
	if (o.off_device) {
		if (!offdevice_read(ap.j.path, &off)) {
			applier_close(&ap);
			return EXIT_USAGE;
		}
		ap.off = &off;
	}
	if (o.retain >= 0)
		ap.j.retain = o.retain;
	if (o.window >= 0)
		ap.j.window = o.window;
	switch (o.verb) {
	case COMPACT:
		status = journal_compact(&ap.j, arc_now()) ? 0 : EXIT_SYSTEM;
		if (status == 0 && !archive_maintain(ap.j.path,
		    instant_seconds(arc_now()), &o.keep))
			status = EXIT_SYSTEM;
		break;
	case MIRROR:
		status = mirror_main(&ap, o.route != NULL ? o.route : "", argc,
		    argv);
		break;
	default:
		status = apply_events(&ap, &o, argc, argv);
		break;
	}
	applier_close(&ap);
	return status;
}
