/*
 * arc-status: what is waiting, as one line for a status bar, as counts in
 * JSON, or as a list.
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
#include "arcshell.h"

struct tally {
	const char	*now;
	size_t		 pending, active, by_priority[4];
	int		 highest;	/* -1: nothing active */
	char		*deadline;	/* the nearest, of pending questions */
};

static void
count_condition(const struct condition *c, void *arg)
{
	struct tally *t = arg;

	if (!c->active)
		return;
	t->active++;
	t->by_priority[c->priority]++;
	if ((int)c->priority > t->highest)
		t->highest = (int)c->priority;
	if (condition_qstatus(c, t->now) != Q_PENDING)
		return;
	t->pending++;
	if (t->deadline == NULL || rfc3339_cmp(c->expires_at, t->deadline) < 0)
		t->deadline = c->expires_at;
}

/*
 * --format: %p waiting questions, %a active conditions, %h the highest
 * priority, %d time to the nearest deadline, %% a percent sign.
 */
static bool
print_format(struct buf *b, const char *fmt, const struct tally *t)
{
	char left[32];

	for (; *fmt != '\0'; fmt++) {
		if (*fmt != '%') {
			buf_putc(b, *fmt);
			continue;
		}
		switch (*++fmt) {
		case 'p': buf_printf(b, "%zu", t->pending); break;
		case 'a': buf_printf(b, "%zu", t->active); break;
		case 'h':
			if (t->highest >= 0)
				buf_puts(b, priority_name(t->highest));
			break;
		case 'd':
			if (t->deadline != NULL) {
				time_left(left, sizeof(left), t->deadline,
				    t->now);
				buf_puts(b, left);
			}
			break;
		case '%': buf_putc(b, '%'); break;
		default:
			return false;
		}
	}
	return true;
}

struct listing {
	struct arena	 arena;
	struct state	*st;
	struct buf	*out;
	const char	*now;
};

static void
list_condition(const struct condition *c, void *arg)
{
	struct listing	*l = arg;
	struct rec	 n;

	if (!c->active)
		return;
	arena_reset(&l->arena);
	if (!rec_parse(&l->arena, condition_text(l->st, &l->arena, c, false),
	    false, &n))
		errx(EXIT_SYSTEM, "internal error: unreadable record");
	diag_safe(l->out, c->key, strlen(c->key));
	buf_printf(l->out, "\t%s\t%s\t%s\t", priority_name(c->priority),
	    qstatus_name(condition_qstatus(c, l->now)),
	    c->expires_at != NULL ? c->expires_at : "-");
	diag_safe(l->out, n.f[N_TITLE].p, n.f[N_TITLE].n);
	buf_putc(l->out, '\n');
}

static void
status_usage(FILE *f)
{
	fprintf(f, "usage: arc-status [-j journal] [--json | "
	    "--list | --format format]\n");
}

int
status_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "list", no_argument, NULL, 'l' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-cache", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct journal	 j;
	struct tally	 t = { 0 };
	struct buf	 out = { 0 };
	const char	*journal = NULL, *format = NULL;
	int		 ch, mode = 0, i;
	char		 left[32];

	while ((ch = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			journal = optarg;
			break;
		case 'J':
		case 'l':
		case 'f':
			if (mode != 0 && mode != ch) {
				status_usage(stderr);
				return EXIT_USAGE;
			}
			mode = ch;
			if (ch == 'f')
				format = optarg;
			break;
		case 'n':	/* --no-cache: there is no cache any more */
			break;
		case 'h':
			status_usage(stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		default:
			status_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		status_usage(stderr);
		return EXIT_USAGE;
	}
	if (!read_journal(&j, journal))
		return EXIT_SYSTEM;
	t.now = arc_now();
	t.highest = -1;
	if (j.st != NULL)
		state_foreach(j.st, count_condition, &t);

	if (mode == 'J') {
		buf_printf(&out, "{\"pending\":%zu,\"active\":%zu,"
		    "\"by_priority\":{", t.pending, t.active);
		for (i = 0; i < 4; i++)
			buf_printf(&out, "%s\"%s\":%zu", i ? "," : "",
			    priority_name(i), t.by_priority[i]);
		buf_puts(&out, "},\"highest_priority\":");
		buf_json_cstr(&out, t.highest >= 0 ? priority_name(t.highest) :
		    NULL);
		buf_puts(&out, ",\"next_deadline\":");
		buf_json_cstr(&out, t.deadline);
		buf_puts(&out, "}\n");
	} else if (mode == 'l') {
		struct listing l = { { 0 }, j.st, &out, t.now };
		state_foreach(j.st, list_condition, &l);
		arena_free(&l.arena);
	} else if (t.active > 0 && mode == 'f') {
		if (!print_format(&out, format, &t)) {
			warnx("--format: unknown conversion; use %%p %%a %%h "
			    "%%d or %%%%");
			journal_close(&j);
			buf_free(&out);
			return EXIT_USAGE;
		}
		buf_putc(&out, '\n');
	} else if (t.active > 0) {
		if (t.pending > 0)
			buf_printf(&out, "%zu waiting, ", t.pending);
		buf_printf(&out, "%zu active, %s", t.active,
		    priority_name(t.highest));
		if (t.deadline != NULL) {
			time_left(left, sizeof(left), t.deadline, t.now);
			buf_printf(&out, ", next deadline in %s", left);
		}
		buf_putc(&out, '\n');
	}
	write_stdout(&out);
	flush_stdout();
	buf_free(&out);
	journal_close(&j);
	return 0;
}
