/*
 * arc-validate: checks NDJSON ARC events against every rule of ARC 0.2;
 * valid lines pass through byte for byte, or with --report every line gets
 * a JSON verdict.  See arc-validate(1).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>

#include "arc.h"
#include "arcproblem.h"
#include "arcvalidate.h"
#include "arcfilter.h"
#include "arcusage.h"

static const char usage[] =
"usage: arc-validate [-q] [--report] [file ...]\n"
"\n"
"Checks NDJSON ARC 0.2 events: valid lines pass through byte for byte,\n"
"each invalid one is dropped with a diagnostic per problem.\n"
"\n"
"  -q, --quiet           no diagnostics on standard error\n"
"  --report              one JSON verdict per line instead of the lines\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

int	validate_main(int, char **);	/* arcmain.c calls it */

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

	while ((ch = getopt_long(argc, argv, "qhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'q':
			quiet = true;
			break;
		case 'r':
			report = true;
			break;
		default:
			if (common_option(ch, usage, &status))
				return status;
			break;
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
