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
			printf("arc-validate %s (ARC 0.2)\n", ARC_VERSION_STRING);
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
			if (ls == LINE_TOO_LARGE)
				(void)arc_validate_line(&arena, line,
				    ARC_LINE_MAX + 1, &pr);
			else
				(void)arc_validate_line(&arena, line, len, &pr);
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
			if (out.len > 0 &&
			    fwrite(out.p, 1, out.len, stdout) != out.len)
				err(EXIT_SYSTEM, "standard output");
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

/* ---- dispatch on the name the program was run by ---- */

static const struct command {
	const char	*name;
	int		(*main)(int, char **);
} commands[] = {
	{ "arc-validate", validate_main },
};

int
main(int argc, char **argv)
{
	const char	*name = getprogname();
	size_t		 i;

	if (!arc_now_init()) {
		warnx("ARC_NOW is not an RFC 3339 date-time");
		return EXIT_USAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].main(argc, argv);
	warnx("run me as one of arc-validate, arc-apply, arc-answer, "
	    "arc-wait, arc-status or arc-emit");
	return EXIT_USAGE;
}
