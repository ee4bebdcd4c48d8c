/*
 * The commands' front ends: options, input files, output lines and exit
 * statuses.  One program, named by argv[0]: arc-validate, arc-apply,
 * arc-answer, arc-wait, arc-status, arc-emit.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arccmd.h"
#include "arcjournal.h"

/* ---- shared by the commands ---- */

int
open_input(const char *path)
{
	int fd;

	if (strcmp(path, "-") == 0)
		return STDIN_FILENO;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		warn("%s", path);
	return fd;
}

void
close_input(int fd)
{
	if (fd != STDIN_FILENO)
		(void)close(fd);
}

void
print_version(void)
{
	printf("%s %s (ARC 0.2)\n", getprogname(), ARC_VERSION_STRING);
}

/* Writes a buffer to standard output; a failed write is a system failure. */
void
write_stdout(const struct buf *b)
{
	if (b->len > 0 && fwrite(b->p, 1, b->len, stdout) != b->len)
		err(EXIT_SYSTEM, "standard output");
}

/* Writes what stdout holds; a failed write is a system failure. */
void
flush_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		err(EXIT_SYSTEM, "standard output");
}

void
print_problems_report(struct buf *b, uint64_t line, const struct problems *pr)
{
	size_t i;

	buf_printf(b, "{\"line\":%llu,\"valid\":%s", (unsigned long long)line,
	    pr->n == 0 ? "true" : "false");
	if (pr->n > 0) {
		buf_puts(b, ",\"errors\":[");
		for (i = 0; i < pr->n; i++) {
			const struct problem *p = &pr->list[i];
			if (i)
				buf_putc(b, ',');
			buf_puts(b, "{\"path\":");
			buf_json_cstr(b, p->path);
			buf_puts(b, ",\"code\":");
			buf_json_cstr(b, arc_code_name(p->code));
			buf_puts(b, ",\"message\":");
			buf_json_cstr(b, p->message);
			buf_putc(b, '}');
		}
		buf_putc(b, ']');
		if (pr->dropped)
			buf_printf(b, ",\"errors_not_shown\":%zu", pr->dropped);
	}
	buf_puts(b, "}\n");
}

void
diag_problems(const char *name, uint64_t line, const struct problems *pr)
{
	size_t i;

	for (i = 0; i < pr->n; i++)
		diag_problem(name, line, &pr->list[i]);
	if (pr->dropped)
		warnx("%s:%llu: %zu more problems not shown", name,
		    (unsigned long long)line, pr->dropped);
}

/* ---- arc-validate ---- */

static void
validate_usage(FILE *f)
{
	fprintf(f, "usage: arc-validate [-q] [--report] [file ...]\n");
}

int
validate_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "report", no_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct line_reader	 r;
	struct problems		 pr = { 0 };
	struct arena		 arena = { 0 };
	struct buf		 out = { 0 };
	struct jval		*root;
	const char		*line;
	size_t			 len;
	bool			 report = false, quiet = false;
	int			 ch, i, fd, status = 0;
	char			*stdin_only[] = { "-", NULL };

	while ((ch = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'q':
			quiet = true;
			break;
		case 'r':
			report = true;
			break;
		case 'h':
			validate_usage(stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		default:
			validate_usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		argv = stdin_only, argc = 1;

	for (i = 0; i < argc; i++) {
		enum line_status ls;

		if ((fd = open_input(argv[i])) == -1) {
			status = EXIT_SYSTEM;
			continue;
		}
		line_reader_init(&r, fd, argv[i]);
		while ((ls = line_next(&r, &line, &len)) != LINE_EOF) {
			if (ls == LINE_ERROR) {
				errno = r.read_errno;
				warn("%s", argv[i]);
				status = EXIT_SYSTEM;
				break;
			}
			if (ls == LINE_OK && line_blank(line, len))
				continue;
			arena_reset(&arena);
			(void)arc_validate_line(&arena, line, ls ==
			    LINE_TOO_LARGE ? ARC_LINE_MAX + 1 : len, &pr, &root);
			if (pr.n > 0 && status == 0)
				status = EXIT_REJECTED;
			out.len = 0;
			if (report) {
				print_problems_report(&out, r.lineno, &pr);
			} else if (pr.n == 0) {
				buf_put(&out, line, len);
				buf_putc(&out, '\n');
			}
			if (!quiet)
				diag_problems(argv[i], r.lineno, &pr);
			write_stdout(&out);
		}
		line_reader_free(&r);
		close_input(fd);
	}
	problems_clear(&pr);
	arena_free(&arena);
	buf_free(&out);
	flush_stdout();
	return status;
}

/* ---- arc-apply ---- */

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
print_string_or_null(struct buf *b, const struct jval *v)
{
	if (v != NULL && v->type == J_STRING)
		buf_json_str(b, v->s, v->len);
	else
		buf_puts(b, "null");
}

/* The result line of an event that failed validation. */
static void
invalid_result(struct buf *out, uint64_t lineno, const struct jval *root,
    const struct problems *pr)
{
	const struct problem	*p = &pr->list[0];
	const struct jval	*key = json_get(json_get(root, "request"), "key");

	buf_printf(out, "{\"line\":%llu,\"status\":%d,\"event_id\":",
	    (unsigned long long)lineno, arc_code_status(p->code));
	print_string_or_null(out, json_get(root, "event_id"));
	buf_puts(out, ",\"key\":");
	print_string_or_null(out, key);
	buf_puts(out, ",\"error\":{\"code\":");
	buf_json_cstr(out, arc_code_name(p->code));
	buf_puts(out, ",\"message\":");
	buf_json_cstr(out, p->message);
	buf_puts(out, ",\"path\":");
	buf_json_cstr(out, p->path);
	buf_puts(out, "}}\n");
}

/*
 * Validates and applies one event under the lock, adding its result line
 * to ap->out and its record to ap->records.
 */
void
apply_one(struct applier *ap, const char *name, uint64_t lineno,
    const char *line, size_t len, bool too_large)
{
	struct jval	*root;
	struct applied	 res;

	arena_reset(&ap->arena);
	if (!arc_validate_line(&ap->arena, line, too_large ? ARC_LINE_MAX + 1 :
	    len, &ap->pr, &root)) {
		invalid_result(&ap->out, lineno, root, &ap->pr);
		if (!ap->quiet)
			diag_problems(name, lineno, &ap->pr);
		ap->status = EXIT_REJECTED;
		return;
	}
	if (ap->answers_only && !json_is(json_get(root, "event_type"),
	    "response.submitted")) {
		problems_clear(&ap->pr);
		problems_add_at(&ap->pr, ARC_INVALID, "/event_type", "only "
		    "response.submitted events are taken here (--answers)");
		invalid_result(&ap->out, lineno, root, &ap->pr);
		if (!ap->quiet)
			diag_problems(name, lineno, &ap->pr);
		ap->status = EXIT_REJECTED;
		return;
	}
	ap->body.len = 0;
	state_apply(ap->j.st, &ap->arena, root, arc_now(), &ap->records,
	    &ap->body, &res);
	buf_printf(&ap->out, "{\"line\":%llu,\"status\":%d,",
	    (unsigned long long)lineno, res.status);
	if (res.replayed)
		buf_puts(&ap->out, "\"replayed\":true,");
	buf_puts(&ap->out, "\"event_id\":");
	print_string_or_null(&ap->out, json_get(root, "event_id"));
	buf_putc(&ap->out, ',');
	buf_put(&ap->out, ap->body.p, ap->body.len);
	buf_puts(&ap->out, "}\n");
	if (res.code != ARC_OK) {
		struct problem p = { res.code, (char *)res.path, "" };
		strlcpy(p.message, res.message, sizeof(p.message));
		if (!ap->quiet)
			diag_problem(name, lineno, &p);
		ap->status = EXIT_REJECTED;
	}
}

/* Results reach standard output only once their records are synced. */
bool
applier_commit(struct applier *ap)
{
	if (!journal_append(&ap->j, &ap->records))
		return false;
	ap->records.len = 0;
	journal_unlock(&ap->j);
	write_stdout(&ap->out);
	ap->out.len = 0;
	flush_stdout();
	/*
	 * With the results out, the journal may earn a compaction; one that
	 * fails (it said why) undoes nothing that was stored and reported.
	 */
	(void)journal_maintain(&ap->j, arc_now());
	return true;
}

bool
applier_open(struct applier *ap, const char *journal_option)
{
	char *path = journal_default_path(journal_option);
	bool ok;

	memset(ap, 0, sizeof(*ap));
	ok = journal_open(&ap->j, path, true);
	free(path);
	return ok;
}

void
applier_close(struct applier *ap)
{
	journal_close(&ap->j);
	arena_free(&ap->arena);
	problems_clear(&ap->pr);
	buf_free(&ap->records);
	buf_free(&ap->out);
	buf_free(&ap->body);
}

/*
 * A duration as people write it: "90" (seconds), "90s", "15m", "1.5h",
 * "7d", or units together from the largest down, "1h30m".  Milliseconds,
 * or -1 for anything else (a sign, a space, an unknown unit, an overflow).
 */
int64_t
parse_duration_ms(const char *s)
{
	static const struct { char unit; int64_t ms; } units[] = {
		{ 'd', 86400000 }, { 'h', 3600000 }, { 'm', 60000 },
		{ 's', 1000 },
	};
	int64_t		 total = 0, whole, frac, scale, ms;
	size_t		 u, next = 0, digits;
	const char	*p = s;

	if (*s == '\0')
		return -1;
	while (*p != '\0') {
		for (whole = 0, digits = 0; *p >= '0' && *p <= '9'; p++, digits++) {
			if (whole > (INT64_MAX - 9) / 10)
				return -1;
			whole = whole * 10 + (*p - '0');
		}
		frac = 0, scale = 1;
		if (*p == '.') {
			for (p++; *p >= '0' && *p <= '9'; p++, digits++)
				if (scale < 1000000)	/* finer is noise */
					frac = frac * 10 + (*p - '0'), scale *= 10;
			if (p[-1] == '.')
				return -1;
		}
		if (digits == 0)
			return -1;
		if (*p == '\0' && next == 0)
			u = 3;	/* a plain number: seconds */
		else
			for (u = next; u < 4 && units[u].unit != *p; u++)
				;
		if (u == 4)
			return -1;	/* unknown, repeated or out of order */
		if (*p != '\0')
			p++;
		next = u + 1;
		if (whole > INT64_MAX / units[u].ms)
			return -1;
		ms = whole * units[u].ms + frac * units[u].ms / scale;
		if (ms > INT64_MAX - total)
			return -1;
		total += ms;
	}
	return total;
}

/* A duration in whole seconds (a fraction rounds up), or -1. */
int64_t
parse_duration(const char *s)
{
	int64_t ms = parse_duration_ms(s);

	return ms < 0 ? -1 : ms / 1000 + (ms % 1000 != 0);
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
