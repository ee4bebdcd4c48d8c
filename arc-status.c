/*
 * arc-status: what needs someone, as one line for a status bar, as counts
 * in JSON, or as a list; --show and --history (arcshow.c) look closer.
 * (JSON's "active" and "by_priority" keep their first meaning, every
 * active condition, for the scripts that read them; "attention" is what
 * the line counts.)
 *
 * The bar tells the truth: it counts the questions still waiting for an
 * answer (a pending question past its deadline has expired and stops
 * counting) and the notices (active conditions without a question) for
 * NOTICE_SECONDS after their last update, unless resolved or dismissed
 * first.  A condition whose question was answered, expired or cancelled
 * needs nobody: --list still shows it, and arc-answer --dismiss ends it.
 * When nothing counts, nothing is printed; when the journal cannot be
 * read, the bar says so instead of going blank.
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcusage.h"
#include "arcwords.h"
#include "arcbind.h"
#include "arcshow.h"
#include "arcfollow.h"
#include "arcview.h"
#include "arcdelivery.h"

#define UNREADABLE_MARK	"arc: journal unreadable\n"

/* What a condition is to the bar, in the order a person should see them. */
enum need { NEEDS_ANSWER, NOTICE, EXPIRED, QUIET };

struct item {
	const struct condition	*c;
	enum qstatus		 qs;
	enum need		 need;
	struct arc_instant	 due;	/* a waiting question's deadline */
	int64_t			 at;	/* otherwise: last update, or deadline */
};

/*
 * One pass over the conditions.  The line needs only counts and the most
 * urgent condition, so only --list keeps every item; and a notice's age
 * comes from the condition's summary, so that a bar over thousands of
 * notices reads no record but the one it shows.
 */
struct survey {
	struct journal	*j;
	struct arena	 arena, scratch;	/* records printed; records judged */
	const char	*now;
	int64_t		 now_s;
	bool		 all;	/* keep every active condition (--list) */
	struct item	*items;
	size_t		 n, cap;
	struct item	 best;	/* the most urgent that counts, if has_best */
	bool		 has_best;
	size_t		 count[QUIET + 1];
	int		 highest;	/* of what counts; -1: nothing counts */
	size_t		 active, by_priority[4];	/* every active condition */
	int		 highest_active;
	const char	*deadline;	/* the nearest, of waiting questions */
};

/* The item's notification, parsed into *r (in the survey's arena). */
static const struct rec *
notification_of(struct survey *s, const struct item *it, struct rec *r)
{
	(void)journal_rec(s->j, &s->arena, it->c, false, r);
	return r;
}

/*
 * What a person is shown of the item (arcview.c), its records read into
 * the survey's arena: every text a line or the list shows is the view's.
 */
static const struct view *
view_of(struct survey *s, const struct item *it, struct view *v)
{
	struct rec	 n, q;
	bool		 has_q;

	has_q = it->c->interaction.len != 0 && journal_rec(s->j, &s->arena,
	    it->c, true, &q) != NULL;
	(void)notification_of(s, it, &n);
	view_build(v, &s->arena, sv_str(it->c->key), &n, has_q ? &q : NULL,
	    has_q ? it->qs : Q_NONE, NULL);
	return v;
}

/* An instant of a record in seconds, or 0 when it has none. */
static int64_t
seconds_of_sv(struct arena *a, struct sv v)
{
	struct arc_instant t;

	if (v.p == NULL || !rfc3339_parse(sv_cstr(a, v), v.n, &t))
		return 0;
	return t.seconds;
}

/* An instant c's stored notification or question holds, in seconds. */
static int64_t
stored_seconds(struct survey *s, const struct condition *c,
    bool interaction, size_t field)
{
	struct rec r;

	arena_reset(&s->scratch);
	(void)journal_rec(s->j, &s->scratch, c, interaction, &r);
	return seconds_of_sv(&s->scratch, r.f[field]);
}

static void
classify(struct survey *s, struct item *it)
{
	const struct condition	*c = it->c;

	it->qs = condition_qstatus(c, s->now);
	switch (it->qs) {
	case Q_PENDING:
		it->need = NEEDS_ANSWER;
		if (c->expires_at == NULL || !rfc3339_parse(c->expires_at,
		    strlen(c->expires_at), &it->due))
			errx(EXIT_SYSTEM, "internal error: a question without "
			    "a deadline");
		return;
	case Q_NONE:
		if ((it->at = c->changed) <= 0)
			it->at = stored_seconds(s, c, false, N_UPDATED_AT);
		it->need = s->now_s - it->at < NOTICE_SECONDS ? NOTICE : QUIET;
		return;
	case Q_EXPIRED:
		it->at = c->expires_at != NULL ? seconds_of_sv(&s->arena,
		    sv_str(c->expires_at)) : stored_seconds(s, c, true,
		    I_EXPIRES_AT);
		it->need = s->now_s - it->at < NOTICE_SECONDS ? EXPIRED : QUIET;
		return;
	default:
		it->need = QUIET;
		return;
	}
}

/*
 * Most urgent first: waiting questions, then notices, then the rest; the
 * higher priority first; the nearest deadline first for questions, the
 * latest update first otherwise; then by key.
 */
static int
urgency(const void *pa, const void *pb)
{
	const struct item	*a = pa, *b = pb;
	int			 d;

	if (a->need != b->need)
		return a->need < b->need ? -1 : 1;
	if (a->c->priority != b->c->priority)
		return a->c->priority > b->c->priority ? -1 : 1;
	if (a->need == NEEDS_ANSWER) {
		if ((d = instant_cmp(&a->due, &b->due)) != 0)
			return d;
	} else if (a->at != b->at) {
		return a->at > b->at ? -1 : 1;
	}
	return strcmp(a->c->key, b->c->key);
}

static void
survey_condition(const struct condition *c, void *arg)
{
	struct survey	*s = arg;
	struct item	 it;
	bool		 counts;

	if (!c->active)
		return;
	memset(&it, 0, sizeof(it));
	it.c = c;
	classify(s, &it);
	counts = it.need == NEEDS_ANSWER || it.need == NOTICE;
	s->count[it.need]++;
	s->active++;
	s->by_priority[c->priority]++;
	if ((int)c->priority > s->highest_active)
		s->highest_active = (int)c->priority;
	if (counts && (int)c->priority > s->highest)
		s->highest = (int)c->priority;
	if (it.need == NEEDS_ANSWER && (s->deadline == NULL ||
	    rfc3339_cmp(c->expires_at, s->deadline) < 0))
		s->deadline = c->expires_at;
	if (counts && (!s->has_best || urgency(&it, &s->best) < 0)) {
		s->best = it;
		s->has_best = true;
	}
	if (!s->all)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		if ((s->items = reallocarray(s->items, s->cap,
		    sizeof(*s->items))) == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	s->items[s->n++] = it;
}

static void
survey(struct survey *s, struct journal *j, const char *now, bool all)
{
	struct arc_instant	 t;
	const struct condition	*c;
	size_t			 at;

	memset(s, 0, sizeof(*s));
	s->j = j;
	s->now = now;
	if (!rfc3339_parse(now, strlen(now), &t))
		errx(EXIT_SYSTEM, "internal error: the time is unreadable");
	s->now_s = t.seconds;
	s->all = all;
	s->highest = s->highest_active = -1;
	for (c = state_first(j->st, &at); c != NULL; c = state_next(j->st, &at))
		survey_condition(c, s);
	if (s->n > 1)
		qsort(s->items, s->n, sizeof(*s->items), urgency);
}

static void
survey_free(struct survey *s)
{
	free(s->items);
	arena_free(&s->arena);
	arena_free(&s->scratch);
}

/* The condition a person should look at first, or NULL. */
static struct item *
next_item(struct survey *s)
{
	return s->has_best ? &s->best : NULL;
}

/* Safe text on the line: tmux reads # as a format, so it is doubled. */
static void
bar_safe(struct buf *b, struct sv v, bool tmux)
{
	size_t	 i;

	for (i = 0; v.p != NULL && i < v.n; i++) {
		if (tmux && v.p[i] == '#')
			buf_putc(b, '#');
		buf_putc(b, v.p[i]);
	}
}

/* Producer text for a status line; for tmux, '#' doubled to stay text. */
static void
bar_text(struct buf *b, struct sv v, bool tmux)
{
	struct buf	 t = { 0 };

	show_sv(&t, v);
	bar_safe(b, (struct sv){ t.p, t.len }, tmux);
	buf_free(&t);
}

static bool
format_ok(const char *fmt)
{
	for (; (fmt = strchr(fmt, '%')) != NULL; fmt += 2)
		if (fmt[1] == '\0' || strchr("pnaxhdkt%", fmt[1]) == NULL)
			return false;
	return true;
}

/*
 * --format: %p waiting questions, %n notices, %a both (all that need
 * someone), %x expired questions, %h the highest priority, %d time to the
 * nearest deadline, %k the key and %t the title of the condition to look
 * at first, %% a percent sign.
 */
static void
print_format(struct buf *b, const char *fmt, struct survey *s, bool tmux)
{
	struct item	*next = next_item(s);
	struct view	 v;
	char		 left[32];

	for (; *fmt != '\0'; fmt++) {
		if (*fmt != '%') {
			buf_putc(b, *fmt);
			continue;
		}
		switch (*++fmt) {
		case 'p': buf_printf(b, "%zu", s->count[NEEDS_ANSWER]); break;
		case 'n': buf_printf(b, "%zu", s->count[NOTICE]); break;
		case 'a': buf_printf(b, "%zu", s->count[NEEDS_ANSWER] +
		    s->count[NOTICE]); break;
		case 'x': buf_printf(b, "%zu", s->count[EXPIRED]); break;
		case 'h':
			if (s->highest >= 0)
				buf_puts(b, priority_name(s->highest));
			break;
		case 'd':
			if (s->deadline != NULL) {
				time_left(left, sizeof(left), s->deadline,
				    s->now);
				buf_puts(b, left);
			}
			break;
		case 'k':
			if (next != NULL)
				bar_text(b, sv_str(next->c->key), tmux);
			break;
		case 't':
			if (next != NULL)
				bar_safe(b, view_of(s, next, &v)->title, tmux);
			break;
		default: buf_putc(b, '%'); break;	/* %%: format_ok */
		}
	}
}

/* "2 waiting, 1 notice, high, next deadline in 4m, 1 expired" */
static void
print_bar(struct buf *b, const struct survey *s)
{
	size_t	p = s->count[NEEDS_ANSWER], n = s->count[NOTICE];
	char	left[32];

	if (p > 0)
		buf_printf(b, "%zu waiting, ", p);
	if (n > 0)
		buf_printf(b, "%zu notice%s, ", n, n == 1 ? "" : "s");
	buf_puts(b, priority_name(s->highest));
	if (s->deadline != NULL) {
		time_left(left, sizeof(left), s->deadline, s->now);
		buf_printf(b, ", next deadline in %s", left);
	}
	if (s->count[EXPIRED] > 0)
		buf_printf(b, ", %zu expired", s->count[EXPIRED]);
	buf_putc(b, '\n');
}

static void
print_json(struct buf *b, struct survey *s)
{
	struct item	*next = next_item(s);
	struct rec	 nr;
	int		 i;

	buf_printf(b, "{\"pending\":%zu,\"active\":%zu,\"by_priority\":{",
	    s->count[NEEDS_ANSWER], s->active);
	for (i = 0; i < 4; i++)
		buf_printf(b, "%s\"%s\":%zu", i ? "," : "",
		    priority_name(i), s->by_priority[i]);
	buf_puts(b, "},\"highest_priority\":");
	buf_json_cstr(b, s->highest_active >= 0 ?
	    priority_name(s->highest_active) : NULL);
	buf_printf(b, ",\"notices\":%zu,\"expired\":%zu,\"attention\":%zu",
	    s->count[NOTICE], s->count[EXPIRED], s->count[NEEDS_ANSWER] +
	    s->count[NOTICE]);
	buf_puts(b, ",\"next_deadline\":");
	buf_json_cstr(b, s->deadline);
	buf_puts(b, ",\"next_key\":");
	buf_json_cstr(b, next != NULL ? next->c->key : NULL);
	buf_puts(b, ",\"next_title\":");
	if (next != NULL) {
		const struct rec *n = notification_of(s, next, &nr);
		/* not shown: --json is for programs, as the records are */
		buf_json_str(b, n->f[N_TITLE].p, n->f[N_TITLE].n);
	} else {
		buf_puts(b, "null");
	}
	buf_puts(b, "}\n");
}

/*
 * One tab-separated line per active condition, most urgent first: key,
 * priority, state, deadline and tag of a question waiting now ("-" for
 * anything else, however its expiry was recorded), title.
 */
static void
print_list(struct buf *b, struct survey *s)
{
	struct rec	 q;
	struct view	 v;
	struct sv	 t;
	struct buf	 why = { 0 };
	char		 tag[TAG_SHOWN + 1], *path;
	size_t		 i;
	bool		 waiting;

	path = delivery_path(s->j->path);
	for (i = 0; i < s->n; i++) {
		struct item *it = &s->items[i];
		waiting = it->qs == Q_PENDING;
		view_safe(b, it->c->key, strlen(it->c->key), VIEW_KEY_MAX,
		    false);
		buf_printf(b, "\t%s\t%s\t%s\t", priority_name(it->c->priority),
		    qstatus_name(it->qs), waiting ? it->c->expires_at : "-");
		arena_reset(&s->arena);	/* one line's records at a time */
		t = view_of(s, it, &v)->title;
		buf_put(b, t.p, t.n);
		strlcpy(tag, "-", sizeof(tag));
		if (waiting && journal_rec(s->j, &s->arena, it->c, true,
		    &q) != NULL)
			question_tag(tag, &q);
		buf_printf(b, "\t%s\t", tag);
		view_origin(b, &v);
		/* an eighth field, only when a delivery of it failed */
		if (delivery_words(&why, path, it->c->key, "", "; ") > 0) {
			buf_putc(b, '\t');
			buf_put(b, why.p, why.len);
			why.len = 0;
		}
		buf_putc(b, '\n');
	}
	buf_free(&why);
	free(path);
}

static const char usage[] =
"usage: arc-status [-j journal] [--json | --list | --format format [--tmux]]\n"
"       arc-status [-j journal] [--json] --show key\n"
"       arc-status [-j journal] [--json] --history [--since time]\n"
"                  [--until time] [--key key] [--agent agent]\n"
"       arc-status [-j journal] --follow [--off-device]\n"
"\n"
"What needs a person: one line for a status bar (nothing when nothing\n"
"does), or the conditions in a list, one in full, or what was decided.\n"
"\n"
"  -j, --journal file    the journal (else $ARC_JOURNAL, else\n"
"                        $XDG_STATE_HOME/arc/journal or ~/.local/state/arc/journal)\n"
"  --json                the counts (or --show, --history) as JSON\n"
"  --list                one tab-separated line per active condition: key,\n"
"                        priority, state, deadline, title, tag, who asks\n"
"  --format format       the line as format (%p %n %a %x %h %d %k %t %%)\n"
"  --tmux                with --format: producer text kept from tmux styles\n"
"  --show key            one condition in full, its tag for arc-answer --seen\n"
"  --history             who answered what, from where, and when\n"
"  --since time          with --history: settled at or after time (an RFC\n"
"                        3339 time, a date, today, yesterday, or a duration\n"
"                        ago: 90s 10m 2h 1d 1w);\n"
"                        the archive segments are read too\n"
"  --until time          with --history: settled at or before time\n"
"  --key key             with --history: that key's conditions only\n"
"  --agent agent         with --history: that agent's conditions only\n"
"  --follow              the active conditions, then one line per change\n"
"  --off-device          with --follow: only what the off-device setting\n"
"                        lets leave the host (ARC_OFF_DEVICE, arc-web(8))\n"
"  --no-cache            accepted and ignored, for old scripts: there is no\n"
"                        cache; every run reads the journal\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

enum mode { M_BAR, M_FORMAT, M_LIST, M_SHOW, M_HISTORY };

static const char *const mode_option[] = { "", "--format", "--list",
    "--show", "--history" };

int	status_main(int, char **);	/* arcmain.c calls it */

int
status_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "list", no_argument, NULL, 'l' },
		{ "format", required_argument, NULL, 'f' },
		{ "follow", no_argument, NULL, 'F' },
		{ "off-device", no_argument, NULL, 'O' },
		{ "tmux", no_argument, NULL, 'T' },
		{ "show", required_argument, NULL, 's' },
		{ "history", no_argument, NULL, 'H' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "key", required_argument, NULL, 'K' },
		{ "agent", required_argument, NULL, 'A' },
		{ "no-cache", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct journal	 j;
	struct survey	 s;
	struct history_opts ho = { .since = INT64_MIN, .until = INT64_MAX };
	const char	*since = NULL, *until = NULL;
	struct buf	 out = { 0 };
	const char	*journal = NULL, *format = NULL, *key = NULL;
	char		 now[64];
	enum mode	 mode = M_BAR, m;
	bool		 json = false, tmux = false, follow = false;
	bool		 off_device = false;
	struct offdevice off;
	char		*path;
	int		 ch, status = 0;

	while ((ch = getopt_long(argc, argv, "j:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			journal = optarg;
			break;
		case 'J':
			json = true;
			break;
		case 'l':
		case 'f':
		case 's':
		case 'H':
			m = ch == 'l' ? M_LIST : ch == 'f' ? M_FORMAT :
			    ch == 's' ? M_SHOW : M_HISTORY;
			if (mode != M_BAR && mode != m)
				return usage_error(usage, "%s and %s: "
				    "one at a time", mode_option[mode],
				    mode_option[m]);
			mode = m;
			if (ch == 'f')
				format = optarg;
			if (ch == 's')
				key = optarg;
			break;
		case 'T':
			tmux = true;
			break;
		case 'S':
			since = optarg;
			break;
		case 'U':
			until = optarg;
			break;
		case 'K':
			ho.key = optarg;
			break;
		case 'A':
			ho.agent = optarg;
			break;
		case 'F':
			follow = true;
			break;
		case 'O':
			off_device = true;
			break;
		case 'n':	/* --no-cache: there is no cache any more */
			break;
		default:
			if (common_option(ch, usage, &status))
				return status;
			break;
		}
	}
	if (optind != argc) {
		(void)usage_error(usage, "unexpected argument: %s",
		    safe(&out, argv[optind]));
		buf_free(&out);
		return EXIT_USAGE;
	}
	if (json && (mode == M_LIST || mode == M_FORMAT))
		return usage_error(usage, "--json and %s: one at a time",
		    mode_option[mode]);
	if (tmux && mode != M_FORMAT)
		return usage_error(usage, "--tmux goes with --format");
	if (mode == M_FORMAT && !format_ok(format))
		return usage_error(usage, "--format: unknown conversion; "
		    "use %%p %%n %%a %%x %%h %%d %%k %%t or %%%%");

	if ((since != NULL || until != NULL || ho.key != NULL ||
	    ho.agent != NULL) && mode != M_HISTORY)
		return usage_error(usage, "--since, --until, --key and --agent "
		    "go with --history");
	if (follow && (mode != M_BAR || json || tmux))
		return usage_error(usage, "--follow goes alone");
	if (off_device && !follow)
		return usage_error(usage, "--off-device goes with --follow");
	if (off_device) {
		path = journal_default_path(journal);
		if (!offdevice_read(path, &off)) {
			free(path);
			return EXIT_USAGE;
		}
		free(path);
	}
	if (follow)
		return status_follow(journal, off_device ? &off : NULL);
	if (!read_journal(&j, journal, mode == M_HISTORY)) {
		/* A status bar shows the failure rather than going blank. */
		if ((mode == M_BAR && !json) || mode == M_FORMAT) {
			buf_puts(&out, UNREADABLE_MARK);
			write_stdout(&out);
			flush_stdout();
			buf_free(&out);
		}
		journal_close(&j);
		return EXIT_SYSTEM;
	}
	strlcpy(now, arc_now(), sizeof(now));
	if ((since != NULL && !time_arg("--since", since, now, &ho.since)) ||
	    (until != NULL && !time_arg("--until", until, now, &ho.until))) {
		usage_print(stderr, usage, false);
		journal_close(&j);
		return EXIT_USAGE;
	}
	ho.range = since != NULL || until != NULL;
	ho.json = json;
	/* a person at a terminal reads local times; a script, UTC */
	ho.local = !json && isatty(STDOUT_FILENO);
	if (mode == M_SHOW || mode == M_HISTORY) {
		status = mode == M_SHOW ? status_show(&j, key, json, ho.local, now) :
		    status_history(&j, &ho, now);
		journal_close(&j);
		return status;
	}
	survey(&s, &j, now, mode == M_LIST);
	if (json) {
		print_json(&out, &s);
	} else if (mode == M_LIST) {
		print_list(&out, &s);
	} else if (s.highest >= 0 && mode == M_FORMAT) {
		print_format(&out, format, &s, tmux);
		buf_putc(&out, '\n');
	} else if (s.highest >= 0) {
		print_bar(&out, &s);
	}
	write_stdout(&out);
	flush_stdout();
	buf_free(&out);
	survey_free(&s);
	journal_close(&j);
	return status;
}
