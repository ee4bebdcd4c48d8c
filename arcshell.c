/*
 * Closing the loop from a shell: arc-status (what is waiting), arc-wait (a
 * producer blocks until its question is settled), arc-answer (a person or
 * a script answers) and arc-emit (a script produces an event).
 */
#include <sys/inotify.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
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

/*
 * The status cache, beside the journal: the active conditions' summaries
 * as of a journal offset, so that a status bar that asks every second
 * replays only what was appended since.  It is trusted only for the same
 * file (device and inode) still holding the same 32 bytes before that
 * offset; anything else, a damaged cache included, means a full read.
 * Line 1: {"arc_status_cache":1,"dev":D,"ino":I,"offset":O,"check":HEX}
 * Then one line per active condition: [key,priority,qstatus,expires,nid]
 */
#define CACHE_REWRITE	(64 * 1024)	/* bytes replayed that earn a rewrite */
#define CACHE_MAX	(256 * 1024 * 1024)

static bool
check_bytes(struct journal *j, uint64_t offset, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char	 b[32];
	size_t		 n = offset < 32 ? (size_t)offset : 32, i;

	if (pread(j->fd, b, n, (off_t)(offset - n)) != (ssize_t)n)
		return false;
	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[b[i] >> 4];
		hex[2 * i + 1] = digits[b[i] & 15];
	}
	hex[2 * n] = '\0';
	return true;
}

static char *
cache_path(const struct journal *j)
{
	char *p;

	if (asprintf(&p, "%s.status", j->path) == -1)
		err(EXIT_SYSTEM, "asprintf");
	return p;
}

/* Loads the cache into j's state; the offset to resume from, or 0. */
static uint64_t
cache_load(struct journal *j)
{
	struct arena		 a = { 0 };
	struct jparse_error	 e;
	struct stat		 sb;
	struct line_reader	 r;
	const struct jval	*v;
	const char		*line;
	size_t			 len;
	uint64_t		 offset = 0, n;
	char			*path = cache_path(j), hex[65];
	int			 fd;
	bool			 ok = false;

	if (j->missing || (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		free(path);
		return 0;
	}
	line_reader_init(&r, fd, path);
	if (fstat(fd, &sb) == -1 || sb.st_size > CACHE_MAX ||
	    line_next(&r, &line, &len) != LINE_OK ||
	    (v = json_parse(&a, line, len, &e)) == NULL)
		goto done;
	if (!json_get(v, "arc_status_cache") || !json_get(v, "offset") ||
	    (n = strtoull(json_get(v, "offset")->s, NULL, 10)) == 0 ||
	    strtoull(json_get(v, "dev") ? json_get(v, "dev")->s : "x", NULL,
	    10) != (uint64_t)j->dev || strtoull(json_get(v, "ino") ?
	    json_get(v, "ino")->s : "x", NULL, 10) != (uint64_t)j->ino ||
	    fstat(j->fd, &sb) == -1 || n > (uint64_t)sb.st_size ||
	    !check_bytes(j, n, hex) || !json_is(json_get(v, "check"), hex))
		goto done;
	for (;;) {
		enum line_status ls = line_next(&r, &line, &len);
		if (ls == LINE_EOF)
			break;
		arena_reset(&a);
		if (ls != LINE_OK || (v = json_parse(&a, line, len, &e)) ==
		    NULL || v->type != J_ARRAY || v->n != 5 ||
		    v->items[0]->type != J_STRING ||
		    v->items[1]->type != J_STRING ||
		    v->items[2]->type != J_STRING ||
		    v->items[4]->type != J_STRING)
			goto done;
		if (v->items[3]->type == J_STRING &&
		    !rfc3339_parse(v->items[3]->s, v->items[3]->len,
		    &(struct arc_instant){ 0 }))
			goto done;
		state_add_summary(j->st, sv_json(v->items[0]),
		    priority_of(sv_json(v->items[1])),
		    qstatus_of(sv_json(v->items[2])), sv_json(v->items[3]),
		    sv_json(v->items[4]));
	}
	offset = n;
	ok = true;
done:
	line_reader_free(&r);
	(void)close(fd);
	arena_free(&a);
	free(path);
	if (!ok && state_count(j->st) > 0) {
		/* A partial load is no load: start over from nothing. */
		state_free(j->st);
		j->st = state_new();
		state_set_file(j->st, j->fd);
		state_for_readers(j->st);
	}
	return ok ? offset : 0;
}

struct cache_writer {
	struct buf	*out;
};

static void
cache_condition(const struct condition *c, void *arg)
{
	struct buf *b = ((struct cache_writer *)arg)->out;

	if (!c->active)
		return;
	buf_putc(b, '[');
	buf_json_str(b, c->key, c->keylen);
	buf_puts(b, ",\"");
	buf_puts(b, priority_name(c->priority));
	buf_puts(b, "\",\"");
	buf_puts(b, qstatus_name(c->qstatus));
	buf_puts(b, "\",");
	buf_json_cstr(b, c->expires_at);
	buf_putc(b, ',');
	buf_json_cstr(b, c->notification_id);
	buf_puts(b, "]\n");
}

/* Writes the cache through a new file and a rename; failures are quiet. */
static void
cache_save(struct journal *j)
{
	struct cache_writer	 w;
	struct buf		 b = { 0 };
	char			*path = cache_path(j), *tmp, hex[65];
	int			 fd;

	if (!check_bytes(j, j->offset, hex) ||
	    asprintf(&tmp, "%s.XXXXXX", path) == -1) {
		free(path);
		return;
	}
	buf_printf(&b, "{\"arc_status_cache\":1,\"dev\":%llu,\"ino\":%llu,"
	    "\"offset\":%llu,\"check\":\"%s\"}\n",
	    (unsigned long long)j->dev, (unsigned long long)j->ino,
	    (unsigned long long)j->offset, hex);
	w.out = &b;
	state_foreach(j->st, cache_condition, &w);
	if ((fd = mkstemp(tmp)) != -1) {
		if (fchmod(fd, 0600) == 0 &&
		    write(fd, b.p, b.len) == (ssize_t)b.len &&
		    close(fd) == 0) {
			if (rename(tmp, path) == -1)
				(void)unlink(tmp);
		} else {
			(void)close(fd);
			(void)unlink(tmp);
		}
	}
	free(tmp);
	free(path);
	buf_free(&b);
}

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
	fprintf(f, "usage: arc-status [-j journal] [--no-cache] [--json | "
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
	bool		 use_cache = true;
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
		case 'n':
			use_cache = false;
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
	if (mode == 'l' || !use_cache) {
		/* The list needs every record's text: a full read. */
		if (!read_journal(&j, journal))
			return EXIT_SYSTEM;
	} else {
		char *path = journal_default_path(journal);
		uint64_t from;
		bool ok = journal_open(&j, path, false);

		free(path);
		from = ok ? cache_load(&j) : 0;
		j.offset = from;
		if (!ok || !journal_lock(&j, false))
			return EXIT_SYSTEM;
		journal_unlock(&j);
		if (!j.missing && j.offset - from >= CACHE_REWRITE)
			cache_save(&j);
	}
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

/* ---- the current question under a key ---- */

struct question {
	bool		 found;
	struct rec	 q;
	char		*text;	/* the interaction record, journal form */
};

/* Reads the current question under key from a locked, caught-up journal. */
static void
find_question(struct journal *j, struct arena *a, const char *key,
    struct question *out)
{
	struct condition	*c = j->st ? state_lookup(j->st, key) : NULL;
	const char		*text;

	memset(out, 0, sizeof(*out));
	if (c == NULL || (text = condition_text(j->st, a, c, true)) == NULL)
		return;
	if (!rec_parse(a, text, true, &out->q))
		errx(EXIT_SYSTEM, "%s: unreadable record", j->path);
	out->text = (char *)text;
	out->found = true;
}

static void
print_interaction(struct arena *a, const char *text)
{
	struct buf b = { 0 };

	record_write_full(&b, a, text, true);
	buf_putc(&b, '\n');
	write_stdout(&b);
	flush_stdout();
	buf_free(&b);
}

/* ---- arc-wait ---- */

static void
wait_usage(FILE *f)
{
	fprintf(f, "usage: arc-wait [-j journal] [-t seconds] key\n");
}

/* Milliseconds since an arbitrary start, from the monotonic clock. */
static int64_t
monotonic_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(EXIT_SYSTEM, "clock_gettime");
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Watches the journal's folder, so that appends and a compaction's rename
 * both wake us.  Without inotify, the caller polls.
 */
static int
watch_journal(const char *path)
{
	char	*copy, *dir;
	int	 fd;

	if ((fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		return -1;
	if ((copy = strdup(path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	dir = dirname(copy);
	if (inotify_add_watch(fd, dir, IN_MODIFY | IN_CLOSE_WRITE |
	    IN_MOVED_TO | IN_CREATE) == -1) {
		(void)close(fd);
		fd = -1;
	}
	free(copy);
	return fd;
}

/*
 * Reads the pending events; true when one concerns the journal itself (an
 * append, or a compaction renaming a new file over it), not a neighbour.
 */
static bool
drain(int fd, const char *base)
{
	char	 ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t	 n;
	bool	 ours = false;

	while ((n = read(fd, ev, sizeof(ev))) > 0) {
		char *p = ev;
		while (p < ev + n) {
			const struct inotify_event *e = (const void *)p;
			if (e->len > 0 && strcmp(e->name, base) == 0)
				ours = true;
			if (e->mask & IN_Q_OVERFLOW)
				ours = true;
			p += sizeof(*e) + e->len;
		}
	}
	return ours;
}

/* Marks a due question expired in the journal; false on a system failure. */
static bool
mark_expired(struct journal *j, const char *key)
{
	struct buf	 records = { 0 };
	bool		 ok;

	if (!journal_lock(j, true))
		return false;
	ok = !state_expire(j->st, &j->arena, key, arc_now_advancing(),
	    &records) || journal_append(j, &records);
	journal_unlock(j);
	buf_free(&records);
	return ok;
}

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
	struct journal	 j;
	struct question	 qn;
	struct arena	 arena = { 0 };
	struct stat	 sb;
	const char	*journal = NULL, *key;
	char		*path, *end, *base = NULL;
	double		 seconds = -1;
	int64_t		 give_up = -1, wait_ms;
	int		 ch, fd, status;

	while ((ch = getopt_long(argc, argv, "j:t:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			journal = optarg;
			break;
		case 't':
			seconds = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || !(seconds >= 0) ||
			    seconds > 1e9) {
				wait_usage(stderr);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			wait_usage(stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		default:
			wait_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		wait_usage(stderr);
		return EXIT_USAGE;
	}
	key = argv[optind];
	if (seconds >= 0)
		give_up = monotonic_ms() + (int64_t)(seconds * 1000);
	path = journal_default_path(journal);
	if (stat(path, &sb) == -1 && errno == ENOENT) {
		warnx("no question under this key");
		free(path);
		return EXIT_REJECTED;
	}
	fd = watch_journal(path);
	if (!journal_open(&j, path, true)) {
		free(path);
		return EXIT_SYSTEM;
	}
	{
		char *copy = strdup(path);
		if (copy == NULL || (base = strdup(basename(copy))) == NULL)
			err(EXIT_SYSTEM, "strdup");
		free(copy);
	}
	free(path);
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
			warnx("no question under this key");
			status = EXIT_REJECTED;
			break;
		}
		now = arc_now_advancing();
		if (sv_is(qn.q.f[I_STATUS], "pending") &&
		    rfc3339_ms_between(now, sv_cstr_of(&arena,
		    qn.q.f[I_EXPIRES_AT])) <= 0) {
			/* Its deadline passed: say so in the journal. */
			if (!mark_expired(&j, key)) {
				status = EXIT_SYSTEM;
				break;
			}
			continue;
		}
		if (!sv_is(qn.q.f[I_STATUS], "pending")) {
			print_interaction(&arena, qn.text);
			status = sv_is(qn.q.f[I_STATUS], "answered") ? 0 :
			    EXIT_REJECTED;
			break;
		}
		/* Pending: sleep until the journal changes or a deadline. */
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
		if (fd == -1) {
			(void)poll(NULL, 0, (int)wait_ms + 1);
		} else {
			/* Sleep on until the journal itself changes. */
			struct pollfd pfd = { fd, POLLIN, 0 };
			int64_t until = monotonic_ms() + wait_ms + 1, left;
			while ((left = until - monotonic_ms()) > 0 &&
			    poll(&pfd, 1, (int)left) > 0 && !drain(fd, base))
				;
		}
	}
	if (fd != -1)
		(void)close(fd);
	free(base);
	arena_free(&arena);
	journal_close(&j);
	return status;
}

/* ---- arc-answer ---- */

static void
answer_usage(FILE *f)
{
	fprintf(f, "usage: arc-answer [-j journal] [--response-id id] "
	    "[--source name] [--device-id id]\n"
	    "                  [--emit] key [choice_id | --text text]\n");
}

static size_t
codepoints(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

static char *
read_answer_line(void)
{
	char	*line = NULL;
	size_t	 cap = 0;
	ssize_t	 n;

	if ((n = getline(&line, &cap, stdin)) == -1) {
		free(line);
		return NULL;
	}
	if (n > 0 && line[n - 1] == '\n')
		line[n - 1] = '\0';
	return line;
}

/*
 * Shows the question on the terminal and reads the answer: a choice by its
 * number or id, or a text within its bound.  Returns the choice id (or the
 * text) to free, or NULL when the person gave none.
 */
static char *
ask_on_terminal(struct arena *a, const struct question *qn, bool *is_text)
{
	struct jparse_error	 e;
	const struct jval	*choices = NULL;
	const char		*kind = sv_cstr_of(a, qn->q.f[I_KIND]);
	char			 left[32], *line;
	size_t			 i, max = 0;

	*is_text = strcmp(kind, "text") == 0;
	if (!*is_text && strcmp(kind, "permission") != 0 &&
	    strcmp(kind, "single_choice") != 0) {
		warnx("cannot show a question of this kind; not answering");
		return NULL;
	}
	printf("%s\n%s\n", sv_cstr_of(a, qn->q.f[I_TITLE]),
	    sv_cstr_of(a, qn->q.f[I_PROMPT]));
	if (*is_text) {
		max = strtoul(sv_cstr_of(a, qn->q.f[I_TEXT_MAX_LENGTH]), NULL,
		    10);
	} else {
		choices = json_parse(a, qn->q.f[I_CHOICES].p,
		    qn->q.f[I_CHOICES].n, &e);
		for (i = 0; choices != NULL && i < choices->n; i++) {
			const struct jval *d = json_get(choices->items[i],
			    "detail");
			printf("  %zu) %s%s%s\n", i + 1, sv_cstr_of(a,
			    (struct sv){ json_get(choices->items[i], "label")->s,
			    json_get(choices->items[i], "label")->len }),
			    d ? " - " : "", d ? sv_cstr_of(a,
			    (struct sv){ d->s, d->len }) : "");
		}
	}
	time_left(left, sizeof(left), sv_cstr_of(a, qn->q.f[I_EXPIRES_AT]),
	    arc_now());
	for (;;) {
		if (*is_text)
			printf("Answer (%zu characters at most; %s left): ", max,
			    left);
		else
			printf("Answer [1-%zu] (%s left): ", choices ?
			    choices->n : 0, left);
		fflush(stdout);
		if ((line = read_answer_line()) == NULL)
			return NULL;
		if (*is_text) {
			if (codepoints(line) <= max)
				return line;
			printf("That is %zu characters; %zu at most.\n",
			    codepoints(line), max);
		} else {
			char *end;
			unsigned long k = strtoul(line, &end, 10);
			for (i = 0; choices && i < choices->n; i++) {
				const struct jval *id = json_get(
				    choices->items[i], "id");
				if ((*end == '\0' && *line != '\0' &&
				    k == i + 1) || (strlen(line) == id->len &&
				    memcmp(line, id->s, id->len) == 0)) {
					free(line);
					return strndup(id->s, id->len);
				}
			}
			printf("Choose one of 1-%zu.\n", choices ? choices->n :
			    0);
		}
		free(line);
	}
}

int
answer_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "response-id", required_argument, NULL, 'r' },
		{ "source", required_argument, NULL, 's' },
		{ "device-id", required_argument, NULL, 'd' },
		{ "text", required_argument, NULL, 'T' },
		{ "emit", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct journal	 j;
	struct question	 qn;
	struct arena	 arena = { 0 };
	struct applier	 ap;
	struct buf	 ev = { 0 };
	const char	*journal = NULL, *source = "cli", *device = NULL;
	const char	*response_id = NULL, *text = NULL, *choice = NULL, *key;
	const char	*sender = getenv("ARC_SENDER");
	char		 event_id[40], minted_rid[40], *asked = NULL, *path;
	bool		 emit = false, asked_text = false, interactive;
	struct journal	*jr = NULL;
	int		 ch, status;

	while ((ch = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j': journal = optarg; break;
		case 'r': response_id = optarg; break;
		case 's': source = optarg; break;
		case 'd': device = optarg; break;
		case 'T': text = optarg; break;
		case 'e': emit = true; break;
		case 'h':
			answer_usage(stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		default:
			answer_usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > 2 || (argc == 2 && text != NULL)) {
		answer_usage(stderr);
		return EXIT_USAGE;
	}
	key = argv[0];
	choice = argc == 2 ? argv[1] : NULL;

	/* The question's digest and nonce, from the journal. */
	interactive = choice == NULL && text == NULL;
	if (interactive &&
	    (emit || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		warnx("give a choice_id or --text (or run me on a terminal to "
		    "be asked)");
		answer_usage(stderr);
		return EXIT_USAGE;
	}
	/*
	 * One journal, read once.  --emit only reads it; an answer given
	 * here finds its question and is applied under one exclusive lock;
	 * a person is asked with no lock held, and the answer then carries
	 * the digest of the question they saw.
	 */
	path = journal_default_path(journal);
	if (emit) {
		jr = &j;
		if (!journal_open(jr, path, false) || !journal_lock(jr, false)) {
			status = EXIT_SYSTEM;
			goto done;
		}
		journal_unlock(jr);
	} else {
		jr = &ap.j;
		if (!applier_open(&ap, path) ||
		    !journal_lock(jr, !interactive)) {
			status = EXIT_SYSTEM;
			goto done;
		}
	}
	find_question(jr, &arena, key, &qn);
	if (interactive) {
		journal_unlock(jr);
		status = EXIT_REJECTED;
		if (!qn.found || !sv_is(qn.q.f[I_STATUS], "pending")) {
			warnx("no open question under this key");
			goto done;
		}
		if ((asked = ask_on_terminal(&arena, &qn, &asked_text)) ==
		    NULL)
			goto done;
		if (asked_text)
			text = asked;
		else
			choice = asked;
		if (!journal_lock(jr, true)) {
			status = EXIT_SYSTEM;
			goto done;
		}
	}

	mint_id("evt_", event_id, sizeof(event_id));
	if (response_id == NULL) {
		mint_id("resp_", minted_rid, sizeof(minted_rid));
		response_id = minted_rid;
	}
	buf_puts(&ev, "{\"arc_version\":\"0.2\",\"event_id\":");
	buf_json_cstr(&ev, event_id);
	buf_puts(&ev, ",\"event_type\":\"response.submitted\",\"occurred_at\":");
	buf_json_cstr(&ev, arc_now());
	buf_puts(&ev, ",\"sender\":{\"id\":");
	buf_json_cstr(&ev, sender != NULL && *sender ? sender : "arc-answer");
	buf_puts(&ev, "},\"request\":{\"key\":");
	buf_json_cstr(&ev, key);
	buf_puts(&ev, "},\"response\":{\"response_id\":");
	buf_json_cstr(&ev, response_id);
	/* With no question there is nothing to echo; the answer is 404. */
	buf_puts(&ev, ",\"digest\":");
	if (qn.found)
		buf_json_str(&ev, qn.q.f[I_DIGEST].p, qn.q.f[I_DIGEST].n);
	else
		buf_puts(&ev, "\"0000000000000000000000000000000000000000"
		    "000000000000000000000000\"");
	if (qn.found && qn.q.f[I_NONCE].p != NULL) {
		buf_puts(&ev, ",\"nonce\":");
		buf_json_str(&ev, qn.q.f[I_NONCE].p, qn.q.f[I_NONCE].n);
	}
	buf_puts(&ev, text != NULL ? ",\"text\":" : ",\"choice_id\":");
	buf_json_cstr(&ev, text != NULL ? text : choice);
	buf_puts(&ev, ",\"source\":");
	buf_json_cstr(&ev, source);
	if (device != NULL) {
		buf_puts(&ev, ",\"device_id\":");
		buf_json_cstr(&ev, device);
	}
	buf_puts(&ev, "}}");

	if (emit) {
		buf_putc(&ev, '\n');
		write_stdout(&ev);
		flush_stdout();
		status = 0;
	} else {
		/* The same path and rules as arc-apply; first valid wins. */
		apply_one(&ap, "answer", 1, ev.p, ev.len, false);
		if (!applier_commit(&ap))
			errx(EXIT_SYSTEM, "the answer was not applied");
		status = ap.status;
	}
done:
	if (jr == &j)
		journal_close(&j);
	else if (jr == &ap.j)
		applier_close(&ap);
	arena_free(&arena);
	free(path);
	free(asked);
	buf_free(&ev);
	return status;
}
