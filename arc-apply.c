/*
 * arc-apply: applies ARC events to the conditions in the journal and
 * prints one result line per event, each only once its record is on disk;
 * or, as one of its other verbs, compacts, salvages or mirrors a journal.
 * See arc-apply(1).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcjournal.h"
#include "arccmd.h"
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


static void
apply_usage(FILE *f)
{
	fprintf(f, "usage: arc-apply [-0q] [-j journal] [--answers] "
	    "[--batch count] [--retain duration]\n"
	    "                 [file ...]\n"
	    "       arc-apply [-j journal] --compact [--retain duration] "
	    "[--window duration]\n"
	    "       arc-apply -j journal --salvage new-journal\n"
	    "       arc-apply [-q] [-j journal] --mirror [--route command] "
	    "[file ...]\n");
}

int	apply_main(int, char **);	/* arcmain.c calls it */

int
apply_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "compact", no_argument, NULL, 'c' },
		{ "window", required_argument, NULL, 'w' },
		{ "retain", required_argument, NULL, 'r' },
		{ "salvage", required_argument, NULL, 's' },
		{ "mirror", no_argument, NULL, 'm' },
		{ "route", required_argument, NULL, 'R' },
		{ "answers", no_argument, NULL, 'A' },
		{ "null", no_argument, NULL, '0' },
		{ "batch", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct applier		 ap;
	struct line_reader	 r;
	struct batch		*b;
	const char		*journal = NULL, *salvage = NULL, *route = NULL;
	bool			 compact = false, quiet = false, mirror = false;
	bool			 answers = false, nul = false;
	int64_t			 window = -1, retain = -1, limit = BATCH_LINES;
	int			 ch, i, fd, status;
	char			*stdin_only[] = { "-", NULL };

	while ((ch = getopt_long(argc, argv, "0j:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			journal = optarg;
			break;
		case 'R':
			route = optarg;
			break;
		case 'A':
			answers = true;
			break;
		case '0':
			nul = true;
			break;
		case 'c':
			compact = true;
			break;
		case 'w':
			if ((window = parse_duration(optarg)) < 0) {
				warnx("--window takes a duration such as 7d, "
				    "24h, 90m or 3600");
				return EXIT_USAGE;
			}
			break;
		case 'r':
			if ((retain = parse_duration(optarg)) < 0) {
				warnx("--retain takes a duration such as 7d, "
				    "24h, 90m or 3600");
				return EXIT_USAGE;
			}
			break;
		case 's':
			salvage = optarg;
			break;
		case 'm':
			mirror = true;
			break;
		case 'b':
			limit = parse_duration(optarg);	/* a plain count */
			if (limit < 1 || limit > BATCH_LINES ||
			    strspn(optarg, "0123456789") != strlen(optarg)) {
				warnx("--batch takes a count from 1 to %d",
				    BATCH_LINES);
				return EXIT_USAGE;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			apply_usage(stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		default:
			apply_usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if ((compact || salvage != NULL) && argc > 0) {
		warnx("--compact and --salvage read no events");
		apply_usage(stderr);
		return EXIT_USAGE;
	}
	if (compact + (salvage != NULL) + mirror > 1) {
		warnx("--compact, --salvage or --mirror: give one");
		apply_usage(stderr);
		return EXIT_USAGE;
	}
	if (route != NULL && !mirror) {
		warnx("--route goes with --mirror");
		apply_usage(stderr);
		return EXIT_USAGE;
	}
	if ((answers || nul) && (compact || salvage != NULL || mirror)) {
		warnx("%s applies events: not with --compact, --salvage or "
		    "--mirror", answers ? "--answers" : "-0");
		apply_usage(stderr);
		return EXIT_USAGE;
	}
	if (salvage != NULL) {
		char *path = journal_default_path(journal);
		struct journal old;
		status = journal_open(&old, path, false) &&
		    journal_salvage(&old, salvage) ? 0 : EXIT_SYSTEM;
		journal_close(&old);
		free(path);
		return status;
	}
	if (!applier_open(&ap, journal)) {
		applier_close(&ap);
		return EXIT_SYSTEM;
	}
	ap.quiet = quiet;
	ap.answers_only = answers;
	if (retain >= 0)
		ap.j.retain = retain;
	if (window >= 0)
		ap.j.window = window;
	if (compact) {
		status = journal_compact(&ap.j, arc_now()) ? 0 : EXIT_SYSTEM;
		applier_close(&ap);
		return status;
	}
	if (mirror) {
		status = mirror_main(&ap, route != NULL ? route : "", argc,
		    argv);
		applier_close(&ap);
		return status;
	}
	/*
	 * Catch up at once: a torn tail is repaired and a damaged journal
	 * refused before any input is read, not at the first event.
	 */
	if (!journal_lock(&ap.j, true)) {
		applier_close(&ap);
		return EXIT_SYSTEM;
	}
	journal_unlock(&ap.j);
	if (argc == 0)
		argv = stdin_only, argc = 1;
	if ((b = calloc(1, sizeof(*b))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	for (i = 0; i < argc && ap.status != EXIT_SYSTEM; i++) {
		enum line_status ls;

		if ((fd = open_input(argv[i])) == -1) {
			ap.status = EXIT_SYSTEM;
			continue;
		}
		line_reader_init(&r, fd, argv[i]);
		if (nul)	/* -0: records end with NUL, as xargs -0 reads */
			line_reader_set(&r, ARC_LINE_MAX, '\0');
		while ((ls = batch_fill(&r, b, (size_t)limit)) != LINE_EOF ||
		    b->n > 0) {
			size_t k;

			if (b->n > 0) {
				if (!journal_lock(&ap.j, true))
					errx(EXIT_SYSTEM, "nothing was applied");
				for (k = 0; k < b->n; k++)
					apply_one(&ap, argv[i], b->lineno[k],
					    b->text.p + b->off[k], b->len[k],
					    b->too_large[k]);
				if (!applier_commit(&ap))
					errx(EXIT_SYSTEM, "%zu events from line "
					    "%llu on were not applied", b->n,
					    (unsigned long long)b->lineno[0]);
			}
			if (ls == LINE_ERROR) {
				errno = r.read_errno;
				warn("%s", argv[i]);
				ap.status = EXIT_SYSTEM;
				break;
			}
			if (ls == LINE_EOF)
				break;
		}
		line_reader_free(&r);
		close_input(fd);
	}
	status = ap.status;
	buf_free(&b->text);
	free(b);
	applier_close(&ap);
	return status;
}
