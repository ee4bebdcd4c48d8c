/*
 * Closing the loop from a shell: arc-status (what is waiting), arc-wait (a
 * producer blocks until its question is settled), arc-answer (a person or
 * a script answers) and arc-emit (a script produces an event).
 */
#include <sys/inotify.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arc.h"
#include "arccmd.h"

/* Reads the journal as it is now, under a shared lock. */
static bool
read_journal(struct journal *j, const char *option)
{
	char	*path = journal_default_path(option);
	bool	 ok = journal_open(j, path, false) && journal_lock(j, false);

	free(path);
	journal_unlock(j);
	return ok;
}

/* ---- arc-status ---- */

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

/* "45s", "12m", "3h20m", "2d": how long until an instant. */
static void
time_left(char *out, size_t n, const char *until, const char *now)
{
	struct arc_instant	 a, b;
	int64_t			 s;

	if (!rfc3339_parse(until, strlen(until), &a) ||
	    !rfc3339_parse(now, strlen(now), &b)) {
		strlcpy(out, "?", n);
		return;
	}
	s = a.seconds - b.seconds;
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(out, n, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(out, n, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		snprintf(out, n, "%lldh%02lldm", (long long)(s / 3600),
		    (long long)(s % 3600 / 60));
	else
		snprintf(out, n, "%lldd", (long long)(s / 86400));
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
	fprintf(f, "usage: arc-status [-j journal] [--json | --list | "
	    "--format format]\n");
}

int
status_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "list", no_argument, NULL, 'l' },
		{ "format", required_argument, NULL, 'f' },
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
		case 'h':
			status_usage(stdout);
			return 0;
		case 'V':
			printf("arc-status %s (ARC 0.2)\n", ARC_VERSION_STRING);
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
	if (out.len > 0 && fwrite(out.p, 1, out.len, stdout) != out.len)
		err(EXIT_SYSTEM, "standard output");
	flush_stdout();
	buf_free(&out);
	journal_close(&j);
	return 0;
}
