/*
 * What a person sees in arc-answer: a picker of the waiting questions and
 * the prompt of one question.  Both stay live while they are open: the
 * time left counts down every second, and the journal is watched (inotify
 * on its folder, and a look at every tick) so that a question answered
 * elsewhere, expired or changed by its producer is shown as it is now,
 * never answered as it was.  Producer text reaches the screen only
 * through term_safe(); a message's lines are drawn behind a "|" gutter so
 * that no message can pass itself off as our choices or our prompt.
 * "jN" jumps the person's tmux client to the pane entry N's agent said it
 * runs in (the record's x-arc hint, checked again by arctmux.c).
 */

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcterm.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcwords.h"
#include "arcbind.h"
#include "arctmux.h"
#include "arcview.h"
#include "arcwaiter.h"
#include "arcpick.h"

struct person {
	struct tty	 tty;
	struct journal	*j;
	int		 watch;	/* inotify on the journal's folder */
	struct arena	 arena;	/* the question on the screen */
	struct arena	 scratch;	/* the journal as it is now */
	struct buf	 note;	/* a line above the prompt */
	struct sigaction old[5];	/* as many as caught[] */
};

static volatile sig_atomic_t	 signalled, resized;
static const int		 caught[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				    SIGWINCH };

static void
on_signal(int sig)
{
	if (sig == SIGWINCH)
		resized = 1;
	else
		signalled = sig;
}

/* ---- time ---- */

/* "43m 12s", "2h 05m", "3d 04h": a countdown that moves every second. */
static void
countdown(struct buf *b, int64_t ms)
{
	int64_t s = ms <= 0 ? 0 : (ms + 999) / 1000;

	if (s < 60)
		buf_printf(b, "%llds", (long long)s);
	else if (s < 3600)
		buf_printf(b, "%lldm %02llds", (long long)(s / 60),
		    (long long)(s % 60));
	else if (s < 86400)
		buf_printf(b, "%lldh %02lldm", (long long)(s / 3600),
		    (long long)(s % 3600 / 60));
	else
		buf_printf(b, "%lldd %02lldh", (long long)(s / 86400),
		    (long long)(s % 86400 / 3600));
}

/* ---- choices ---- */

/* ---- the session: terminal, signals, the journal watched ---- */

/*
 * Watches the journal's folder, so that appends and a compaction's rename
 * both wake us; any change there is a reason to look (a look is cheap).
 */
struct person *
person_start(struct journal *j)
{
	struct person		*p;
	struct sigaction	 sa;
	size_t			 i;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	if (!tty_start(&p->tty)) {
		warn("standard input");
		free(p);
		return NULL;
	}
	p->j = j;
	p->watch = folder_watch(j->path);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll(2) wakes */
	(void)sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		(void)sigaction(caught[i], &sa, &p->old[i]);
	return p;
}

void
person_end(struct person *p)
{
	size_t i;

	if (p == NULL)
		return;
	tty_end(&p->tty);
	for (i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		(void)sigaction(caught[i], &p->old[i], NULL);
	if (p->watch != -1)
		(void)close(p->watch);
	arena_free(&p->arena);
	arena_free(&p->scratch);
	buf_free(&p->note);
	free(p);
}

void
answer_free(struct answer *a)
{
	free(a->key);
	free(a->answer);
	buf_free(&a->why);
	memset(a, 0, sizeof(*a));
}

/* Brings the state up to date; false on a system failure (warned). */
static bool
catch_up(struct person *p)
{
	if (!journal_lock(p->j, false))
		return false;
	journal_unlock(p->j);
	return true;
}

/*
 * Bold on (or off), unless NO_COLOR is set and not empty (no-color.org):
 * then the terminal gets no styling at all.
 */
static void
bold(struct buf *b, bool on)
{
	const char *no = getenv("NO_COLOR");

	if (no == NULL || no[0] == '\0')
		buf_puts(b, on ? "\033[1m" : "\033[0m");
}

enum wake { WAKE_TICK, WAKE_KEY, WAKE_SIGNAL };

/* Sleeps until a key, a change of the journal, a signal or ms pass. */
static enum wake
person_wait(struct person *p, int64_t ms)
{
	struct pollfd	 pfd[2] = { { p->tty.fd, POLLIN, 0 },
			    { p->watch, POLLIN, 0 } };
	int		 n;

	if (tty_pending(&p->tty))
		return WAKE_KEY;
	if (signalled || resized)
		return WAKE_SIGNAL;
	n = poll(pfd, p->watch == -1 ? 1 : 2, (int)(ms < 10 ? 10 : ms));
	if (n == -1)
		return WAKE_SIGNAL;	/* EINTR: a signal's flag is set */
	if (p->watch != -1 && pfd[1].revents != 0)
		(void)folder_watch_read(p->watch, NULL);
	return pfd[0].revents != 0 ? WAKE_KEY : WAKE_TICK;
}

/* A signal woke us: true when it means leave; a resize is redrawn. */
static bool
person_signalled(struct person *p)
{
	if (resized) {
		resized = 0;
		tty_resized(&p->tty);
	}
	return signalled != 0;
}

/* The typed line as it is shown: made safe like producer text. */
static void
typed(struct buf *b, const struct tty *t)
{
	term_safe(b, t->line.p != NULL ? t->line.p : "", t->line.len);
}

static void
clear_typed(struct person *p)
{
	p->tty.line.len = 0;
	if (p->tty.line.p != NULL)
		p->tty.line.p[0] = '\0';
}

/* Leaves the prompt on the screen, with what was typed and a newline. */
static void
leave_prompt(struct person *p, const char *prompt, const char *mark)
{
	struct buf b = { 0 };

	buf_puts(&b, prompt);
	typed(&b, &p->tty);
	buf_puts(&b, mark);
	tty_done(&p->tty, &b);
	buf_free(&b);
}

/* ---- the picker ---- */

struct item {
	const char	*key;
	enum priority	 priority;
	const char	*expires;
	struct rec	 n, q;
	struct view	 v;
};

struct items {
	struct journal	*j;
	struct arena	*arena;
	const char	*now;
	struct item	*v;
	size_t		 n, cap;
};

static void
collect(const struct condition *c, void *arg)
{
	struct items	*it = arg;
	struct item	*i;
	const char	*nt, *qt;

	if (!c->active || condition_qstatus(c, it->now) != Q_PENDING)
		return;
	if (it->n == it->cap) {
		it->cap = it->cap ? it->cap * 2 : 16;
		if ((it->v = reallocarray(it->v, it->cap, sizeof(*it->v))) ==
		    NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	i = &it->v[it->n];
	i->key = c->key;
	i->priority = c->priority;
	i->expires = c->expires_at;
	if ((nt = journal_text(it->j, it->arena, c, false)) == NULL ||
	    (qt = journal_text(it->j, it->arena, c, true)) == NULL ||
	    !rec_parse(it->arena, nt, false, &i->n) ||
	    !rec_parse(it->arena, qt, true, &i->q))
		return;
	view_build(&i->v, it->arena, sv_str(c->key), &i->n, &i->q, Q_PENDING,
	    NULL);
	view_handover(&i->v, it->arena, &i->q, c->handover,
	    waiter_present(it->j->path, sv_str(c->key)) == WAITING_SOMEONE);
	it->n++;
}

/* Most urgent first: priority, then the nearest deadline, then the key. */
static int
by_urgency(const void *a, const void *b)
{
	const struct item	*x = a, *y = b;
	int			 c;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if ((c = rfc3339_cmp(x->expires, y->expires)) != 0)
		return c;
	return strcmp(x->key, y->key);
}

/* One line of a picker entry: our words and producer text, cut to fit. */
static void
entry_line(struct buf *out, struct buf *line, size_t cols)
{
	term_cut(out, line->p != NULL ? line->p : "", line->len, cols);
	buf_putc(out, '\n');
	line->len = 0;
}

static void
draw_entry(struct buf *out, size_t k, const struct item *i, const char *now,
    size_t cols)
{
	const struct view	*v = &i->v;
	struct buf		 l = { 0 };
	struct sv		 m = v->message;
	const char		*nl = m.p != NULL ? memchr(m.p, '\n', m.n) : NULL;
	size_t			 lines = 1, at;

	buf_printf(&l, "%3zu) [%s] ", k, priority_name(i->priority));
	buf_put(&l, v->title.p, v->title.n);
	entry_line(out, &l, cols);

	buf_puts(&l, "     ");
	buf_put(&l, m.p, nl != NULL ? (size_t)(nl - m.p) : m.n);
	for (at = 0; nl != NULL && at < m.n; at++)
		if (m.p[at] == '\n')
			lines++;
	if (lines > 1)
		buf_printf(&l, " (+%zu line%s)", lines - 1,
		    lines == 2 ? "" : "s");
	entry_line(out, &l, cols);

	buf_puts(&l, "     ");
	countdown(&l, rfc3339_ms_between(now, i->expires));
	buf_puts(&l, " left");
	if (v->waiting == 0)
		buf_puts(&l, ", no one is waiting now");
	buf_puts(&l, " - ");
	view_origin(&l, v);
	buf_puts(&l, " - key ");
	buf_put(&l, v->shown_key.p, v->shown_key.n);
	buf_printf(&l, " - tag %s", v->tag);
	if (v->has_where)
		buf_puts(&l, " - j jumps there");
	entry_line(out, &l, cols);
	buf_free(&l);
}

/* Draws the picker live, or (with a mark, even "") leaves it on the screen. */
static void
draw_picker(struct person *p, const struct items *it, const char *now,
    const char *prompt, const char *mark)
{
	struct buf	 b = { 0 };
	size_t		 cols = p->tty.cols - 1, room, shown, k;

	if (it->n == 0)
		buf_puts(&b, "Nothing is waiting; questions show here as they "
		    "come.\n");
	else
		buf_printf(&b, "%zu question%s waiting, most urgent first:\n",
		    it->n, it->n == 1 ? "" : "s");
	/* The whole picker fits on the screen, or it could not be redrawn. */
	room = p->tty.rows - 3 - (p->note.len > 0 ? 1 : 0);
	shown = it->n <= room / 3 ? it->n : room > 0 ? (room - 1) / 3 : 0;
	for (k = 0; k < shown; k++)
		draw_entry(&b, k + 1, &it->v[k], now, cols);
	if (shown < it->n)
		buf_printf(&b, "     ... and %zu more, less urgent (type the "
		    "number)\n", it->n - shown);
	if (p->note.len > 0 && mark == NULL) {
		buf_put(&b, p->note.p, p->note.len);
		buf_putc(&b, '\n');
	}
	buf_puts(&b, prompt);
	typed(&b, &p->tty);
	if (mark != NULL) {
		buf_puts(&b, mark);
		tty_done(&p->tty, &b);
	} else {
		tty_live(&p->tty, &b);
	}
	buf_free(&b);
}

/* "jN" (j alone: 1): the person's tmux client to entry N's agent. */
static void
jump(struct person *p, const struct items *it, const char *s, size_t n)
{
	struct tmux_where	 w;
	struct jparse_error	 pe;
	const struct item	*i;
	struct sv		 x;
	size_t			 k = 1;

	buf_free(&p->note);
	if (n > 1 && n <= 7 && strspn(s + 1, "0123456789") == n - 1)
		k = strtoul(s + 1, NULL, 10);
	else if (n != 1)
		k = 0;
	if (k < 1 || k > it->n) {
		buf_printf(&p->note, "j jumps to 1's agent, j2 to 2's, ...");
		return;
	}
	i = &it->v[k - 1];
	x = i->n.f[N_X_ARC];
	if (x.p == NULL || !tmux_where_of(json_parse(&p->scratch, x.p, x.n,
	    &pe), &w)) {
		buf_printf(&p->note, "%zu did not say where its agent runs.",
		    k);
		return;
	}
	if (!tmux_jump(&w))
		buf_printf(&p->note, "tmux could not show pane %s.", w.pane);
	else
		buf_printf(&p->note, "Jumped to pane %s (%zu).", w.pane, k);
}

/* The picker's answer to Enter: 0 stay, 1 picked, -1 leave. */
static int
picked(struct person *p, const struct items *it, char **key)
{
	const char	*s = p->tty.line.p != NULL ? p->tty.line.p : "";
	size_t		 n, k = 0;

	s += strspn(s, " ");
	n = strcspn(s, " ");
	if (n == 1 && (*s == 'q' || *s == 'Q'))
		return -1;
	if (n >= 1 && (*s == 'j' || *s == 'J')) {
		jump(p, it, s, n);
		return 0;
	}
	if (n == 0 && it->n > 0)
		k = 1;
	else if (n > 0 && n <= 6 && strspn(s, "0123456789") == n)
		k = strtoul(s, NULL, 10);
	buf_free(&p->note);
	if (k < 1 || k > it->n) {
		if (it->n == 0)
			buf_puts(&p->note, "Nothing to pick yet; q leaves.");
		else
			buf_printf(&p->note, "Type a number from 1 to %zu "
			    "(Enter takes 1), or q to leave.", it->n);
		return 0;
	}
	if ((*key = strdup(it->v[k - 1].key)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	return 1;
}

enum asked
person_pick(struct person *p, char **key)
{
	struct items		 it = { 0 };
	const struct condition	*c;
	enum asked		 r = ASKED_LEFT;
	enum tty_key		 k;
	char			 prompt[96];
	size_t			 at;
	int			 how;

	*key = NULL;
	for (;;) {
		if (!catch_up(p)) {
			r = ASKED_FAILED;
			break;
		}
		arena_reset(&p->scratch);
		it.n = 0;
		it.j = p->j;
		it.arena = &p->scratch;
		it.now = arc_now_advancing();
		for (c = state_first(p->j->st, &at); c != NULL;
		    c = state_next(p->j->st, &at))
			collect(c, &it);
		if (it.n > 1)
			qsort(it.v, it.n, sizeof(*it.v), by_urgency);
		if (it.n == 0)
			strlcpy(prompt, "q leaves: ", sizeof(prompt));
		else if (it.n == 1)
			strlcpy(prompt, "Pick 1 (Enter takes it, j1 jumps "
			    "there, q leaves): ", sizeof(prompt));
		else
			snprintf(prompt, sizeof(prompt), "Pick 1-%zu (Enter "
			    "takes 1, jN jumps there, q leaves): ", it.n);
		draw_picker(p, &it, it.now, prompt, NULL);
		switch (person_wait(p, 1000)) {
		case WAKE_SIGNAL:
			if (!person_signalled(p))
				continue;
			draw_picker(p, &it, it.now, prompt, "");
			r = ASKED_INTERRUPTED;
			goto done;
		case WAKE_TICK:
			continue;
		case WAKE_KEY:
			break;
		}
		switch ((k = tty_read(&p->tty))) {
		case TTY_ENTER:
			if ((how = picked(p, &it, key)) == 0) {
				clear_typed(p);
				continue;
			}
			draw_picker(p, &it, it.now, prompt, "");
			r = how > 0 ? ASKED_ANSWER : ASKED_LEFT;
			goto done;
		case TTY_EOF:
		case TTY_INTERRUPT:
		case TTY_GONE:
			draw_picker(p, &it, it.now, prompt,
			    k == TTY_INTERRUPT ? "^C" : "");
			r = k == TTY_EOF ? ASKED_LEFT : ASKED_INTERRUPTED;
			goto done;
		default:
			continue;
		}
	}
done:
	buf_free(&p->note);
	clear_typed(p);
	free(it.v);
	return r;
}

/* ---- one question ---- */

/* The question, as it stays on the screen above the prompt. */
static void
show_question(struct person *p, const char *key, const struct rec *q,
    const struct jval *choices, bool changed)
{
	struct buf		 b = { 0 };
	struct condition	*c = state_lookup(p->j->st, key);
	struct rec		 n;
	struct view		 v;
	const char		*nt;
	struct sv		 m;
	size_t			 i, at, end;
	bool			 ids = choice_ids_shown(choices);

	if (changed)
		buf_puts(&b, "\nThe question changed while it was open here. "
		    "This is it now:\n");
	buf_putc(&b, '\n');
	if (c == NULL || (nt = journal_text(p->j, &p->arena, c,
	    false)) == NULL || !rec_parse(&p->arena, nt, false, &n))
		memset(&n, 0, sizeof(n));
	view_build(&v, &p->arena, sv_str(key), &n, q, Q_PENDING, NULL);
	if (c != NULL)
		view_handover(&v, &p->arena, q, c->handover,
		    waiter_present(p->j->path, sv_str(key)) ==
		    WAITING_SOMEONE);
	if (c != NULL) {
		buf_printf(&b, "[%s] ", priority_name(c->priority));
		view_origin(&b, &v);
		buf_puts(&b, " - key ");
		buf_put(&b, v.shown_key.p, v.shown_key.n);
		buf_printf(&b, " - tag %s", v.tag);
		if (v.waiting == 0)
			buf_puts(&b, " - no one is waiting now");
		buf_putc(&b, '\n');
	}
	bold(&b, true);
	buf_put(&b, v.title.p, v.title.n);
	bold(&b, false);
	buf_putc(&b, '\n');
	/* The message line by line behind a gutter (blank runs: the view's). */
	m = v.message;
	for (at = 0; m.p != NULL && at < m.n; at = end + 1) {
		for (end = at; end < m.n && m.p[end] != '\n'; end++)
			;
		buf_puts(&b, "  | ");
		buf_put(&b, m.p + at, end - at);
		buf_putc(&b, '\n');
	}
	for (i = 0; i < v.nchoices; i++) {
		buf_printf(&b, "  %zu) ", i + 1);
		buf_put(&b, v.choices[i].label.p, v.choices[i].label.n);
		if (ids) {	/* typed by number, or by this */
			buf_puts(&b, " (");
			buf_put(&b, v.choices[i].shown_id.p,
			    v.choices[i].shown_id.n);
			buf_putc(&b, ')');
		}
		if (v.choices[i].detail.p != NULL) {
			buf_puts(&b, " - ");
			buf_put(&b, v.choices[i].detail.p,
			    v.choices[i].detail.n);
		}
		buf_putc(&b, '\n');
	}
	tty_above(&p->tty, &b);
	buf_free(&b);
}

/* Enter at the prompt: true with an answer to send, else a note. */
static bool
accept(struct person *p, const struct jval *choices, size_t max,
    struct answer *out)
{
	const char		*s = p->tty.line.p ? p->tty.line.p : "";
	const struct jval	*id;
	size_t			 n = p->tty.line.len, k;
	char			*trim;

	buf_free(&p->note);
	if (choices == NULL) {
		if (strspn(s, " ") == n) {
			buf_puts(&p->note, "An empty answer is not sent: type "
			    "one, or Ctrl-D to leave.");
			return false;
		}
		if ((k = utf8_chars(s, n)) > max) {
			buf_printf(&p->note, "That is %zu characters; %zu at "
			    "most.", k, max);
			return false;
		}
		if ((out->answer = strdup(s)) == NULL)
			err(EXIT_SYSTEM, "strdup");
		return true;
	}
	if ((trim = strdup(s + strspn(s, " "))) == NULL)
		err(EXIT_SYSTEM, "strdup");
	trim[strcspn(trim, " ")] = '\0';
	id = choice_typed(choices, trim);
	free(trim);
	if (id == NULL) {
		buf_printf(&p->note, "Type the number shown, 1 to %zu, or an "
		    "id that is not a number.", choices->n);
		return false;
	}
	if ((out->answer = strndup(id->s, id->len)) == NULL)
		err(EXIT_SYSTEM, "strndup");
	return true;
}

static void
not_open_words(struct person *p, const char *key, const struct question *qn,
    const char *now, bool while_open, struct buf *why)
{
	term_safe(why, key, strlen(key));
	buf_puts(why, ": ");
	if (!qn->found) {
		no_question_words(why, p->j->st, key);
		return;
	}
	question_words(why, &qn->q, question_status(&qn->q, now), now);
	buf_puts(why, while_open ? " while it was open here; nothing was sent" :
	    "; nothing to answer");
}

static void
draw_prompt(struct person *p, const char *expires, const char *prompt,
    const char *now)
{
	struct buf	 b = { 0 };
	int64_t		 ms = rfc3339_ms_between(now, expires);

	if (p->note.len > 0) {
		buf_put(&b, p->note.p, p->note.len);
		buf_putc(&b, '\n');
	}
	if (ms < 60000)
		bold(&b, true);
	buf_puts(&b, "Expires in ");
	countdown(&b, ms);
	buf_putc(&b, '.');
	if (ms < 60000)
		bold(&b, false);
	buf_putc(&b, '\n');
	buf_puts(&b, prompt);
	typed(&b, &p->tty);
	tty_live(&p->tty, &b);
	buf_free(&b);
}

enum asked
person_ask(struct person *p, const char *key, bool changed,
    struct answer *out)
{
	struct question		 qn, now_q;
	const struct jval	*choices;
	const char		*now, *kind, *expires;
	char			 prompt[128];
	size_t			 max = 0;
	enum tty_key		 k;
	const struct buf	 none = { 0 };

	memset(out, 0, sizeof(*out));
again:
	arena_reset(&p->arena);
	if (!catch_up(p))
		return ASKED_FAILED;
	find_question(p->j, &p->arena, key, &qn);
	now = arc_now_advancing();
	if (!qn.found || !question_open(&qn.q, now)) {
		not_open_words(p, key, &qn, now, changed, &out->why);
		return ASKED_CLOSED;
	}
	kind = sv_cstr_of(&p->arena, qn.q.f[I_KIND]);
	expires = sv_cstr_of(&p->arena, qn.q.f[I_EXPIRES_AT]);
	/* not shown: the ids an answer names (show_question shows the view) */
	choices = question_choices(&p->arena, &qn.q);
	if (strcmp(kind, "text") == 0) {
		max = strtoul(sv_cstr_of(&p->arena,
		    qn.q.f[I_TEXT_MAX_LENGTH]), NULL, 10);
		snprintf(prompt, sizeof(prompt), "Your answer (at most %zu "
		    "characters; Ctrl-D leaves): ", max);
		choices = NULL;
	} else if (choices != NULL) {
		snprintf(prompt, sizeof(prompt), "Answer 1-%zu or a choice's "
		    "id (Ctrl-D leaves): ", choices->n);
	} else {
		term_safe(&out->why, key, strlen(key));
		buf_puts(&out->why, ": cannot show a question of this kind; "
		    "not answering");
		return ASKED_CLOSED;
	}
	show_question(p, key, &qn.q, choices, changed);
	strlcpy(out->digest, sv_cstr_of(&p->arena, qn.q.f[I_DIGEST]),
	    sizeof(out->digest));
	for (;;) {
		now = arc_now_advancing();
		draw_prompt(p, expires, prompt, now);
		switch (person_wait(p, rfc3339_ms_between(now, expires) % 1000
		    + 1)) {
		case WAKE_SIGNAL:
			if (!person_signalled(p))
				break;
			leave_prompt(p, prompt, "");
			return ASKED_INTERRUPTED;
		case WAKE_TICK:
			break;
		case WAKE_KEY:
			switch ((k = tty_read(&p->tty))) {
			case TTY_ENTER:
				if (!accept(p, choices, max, out)) {
					clear_typed(p);
					break;
				}
				leave_prompt(p, prompt, "");
				clear_typed(p);
				if ((out->key = strdup(key)) == NULL)
					err(EXIT_SYSTEM, "strdup");
				out->is_text = choices == NULL;
				return ASKED_ANSWER;
			case TTY_EOF:
			case TTY_INTERRUPT:
			case TTY_GONE:
				leave_prompt(p, prompt, k == TTY_INTERRUPT ?
				    "^C" : "");
				return k == TTY_EOF ? ASKED_LEFT :
				    ASKED_INTERRUPTED;
			default:
				break;
			}
			break;
		}
		/* The journal now: the same question, still open? */
		if (!catch_up(p))
			return ASKED_FAILED;
		arena_reset(&p->scratch);
		find_question(p->j, &p->scratch, key, &now_q);
		now = arc_now_advancing();
		if (now_q.found && question_open(&now_q.q, now) &&
		    sv_is(now_q.q.f[I_DIGEST], out->digest))
			continue;
		tty_live(&p->tty, &none);	/* the prompt goes */
		clear_typed(p);
		buf_free(&p->note);
		if (now_q.found && question_open(&now_q.q, now)) {
			changed = true;	/* the producer changed it */
			goto again;
		}
		not_open_words(p, key, &now_q, now, true, &out->why);
		return ASKED_CLOSED;
	}
}
