/*
 * arc-apply --mirror: a local journal that mirrors another host's
 * conditions, fed by a subscription (examples/arc-mqtt).  Each input line
 * is a condition as that host publishes it,
 *
 *     {"notification":{...},"interaction":{...} or null}
 *     {"key":"K","removed":true}
 *
 * and replaces the condition under its key, so that arc-status counts it
 * and arc-answer --via answers it through its host.  Nothing here applies
 * ARC's rules: the host that owns the question does, when the answer
 * reaches it.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arccmd.h"

static void
mirror_line(struct applier *ap, const char *name, uint64_t lineno,
    const char *line, size_t len)
{
	struct jparse_error	 e;
	struct jval		*v;
	const char		*why = NULL;

	arena_reset(&ap->arena);
	v = json_parse(&ap->arena, line, len, &e);
	if (v == NULL || v->type != J_OBJECT)
		why = "not one JSON object";
	else if (!journal_lock(&ap->j, true))
		errx(EXIT_SYSTEM, "nothing was mirrored");
	else {
		if (state_mirror(ap->j.st, &ap->arena, v, arc_now(),
		    &ap->records, &why) && !applier_commit(ap))
			errx(EXIT_SYSTEM, "the mirror was not updated");
		journal_unlock(&ap->j);
		ap->records.len = 0;
	}
	if (why == NULL) {
		buf_printf(&ap->out, "{\"line\":%llu,\"status\":200}\n",
		    (unsigned long long)lineno);
	} else {
		struct buf d = { 0 };
		buf_printf(&ap->out, "{\"line\":%llu,\"status\":400,\"error\":"
		    "{\"code\":\"invalid\",\"message\":", (unsigned long long)
		    lineno);
		buf_json_cstr(&ap->out, why);
		buf_puts(&ap->out, "}}\n");
		if (!ap->quiet) {
			diag_safe(&d, name, strlen(name));
			warnx("%s:%llu: %s", d.p, (unsigned long long)lineno,
			    why);
		}
		buf_free(&d);
		ap->status = EXIT_REJECTED;
	}
	write_stdout(&ap->out);
	ap->out.len = 0;
	flush_stdout();
}

int
mirror_main(struct applier *ap, int argc, char **argv)
{
	static char		*stdin_only[] = { "-", NULL };
	struct line_reader	 r;
	enum line_status	 ls;
	const char		*line;
	size_t			 len;
	int			 i, fd;

	if (argc == 0)
		argv = stdin_only, argc = 1;
	for (i = 0; i < argc; i++) {
		if ((fd = open_input(argv[i])) == -1) {
			ap->status = EXIT_SYSTEM;
			continue;
		}
		line_reader_init(&r, fd, argv[i]);
		while ((ls = line_next(&r, &line, &len)) != LINE_EOF) {
			if (ls == LINE_ERROR) {
				ap->status = EXIT_SYSTEM;
				break;
			}
			if (ls == LINE_TOO_LARGE) {
				warnx("%s:%llu: longer than %d bytes", argv[i],
				    (unsigned long long)r.lineno, ARC_LINE_MAX);
				ap->status = EXIT_REJECTED;
				continue;
			}
			if (!line_blank(line, len))
				mirror_line(ap, argv[i], r.lineno, line, len);
		}
		line_reader_free(&r);
		close_input(fd);
	}
	return ap->status;
}
