/*
 * arc-answer: a person or a script answers an open question.
 *
 * A script gives the key and the answer and reads arc-apply's result line.
 * A person on a terminal may give less: without an answer the question is
 * shown and asked, without a key a picker of the waiting questions comes
 * first (arcpick.c).  On a terminal the outcome is one line of words; the
 * result line, which carries the nonce and the digest, only with --json.
 * --dismiss clears what nobody will resolve, and --via hands the answer to
 * a command (a bridge to a remote agent host) instead of this journal; a
 * question mirrored from another host goes by the route its mirror
 * recorded, never into the mirror.  --seen binds the answer to the
 * question the person read (arcbind.c).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <termios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcterm.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcrules.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcusage.h"
#include "arcvia.h"
#include "arcwords.h"
#include "arcbind.h"
#include "arcshow.h"
#include "arcpick.h"

#define EXIT_INTERRUPTED	130	/* Ctrl-C, as a shell reports it */

struct opts {
	const char	*journal, *source, *device, *response_id, *text;
	const char	*via, *dismiss, *seen;
	bool		 emit, json, notices;
	bool		 hold;	/* a key before exiting: a popup closes with us */
	bool		 human;	/* words on a terminal, not JSON */
};

/*
 * Where an answer goes: this journal (arc-apply's rules), or elsewhere.  A
 * local target whose journal does not exist yet is read only (deferred)
 * until there is something to answer: a mistyped -j creates nothing.
 */
struct target {
	bool		 local, deferred;
	struct applier	 ap;	/* local */
	struct journal	 j;	/* --emit, --via, deferred: read only */
	struct journal	*jr;
	const char	*journal;	/* -j, for a deferred one */
};

static const char usage[] =
"usage: arc-answer [-j journal] [--json] [--response-id id] [--source name]\n"
"                  [--device-id id] [--emit | --via command] [--seen tag]\n"
"                  [--hold] [key [choice | --text text]]\n"
"       arc-answer [-j journal] [--source name] --dismiss key | --dismiss-notices\n"
"\n"
"Answers the question open under key, as a script or a person would.  A\n"
"script names the key whole; on a terminal a part of it will do, without\n"
"an answer it asks, without a key it shows a picker of the waiting\n"
"questions.\n"
"\n"
"  -j, --journal file    the journal (else $ARC_JOURNAL, else\n"
"                        $XDG_STATE_HOME/arc/journal or ~/.local/state/arc/journal)\n"
"  --json                print the result line even on a terminal\n"
"  --response-id id      the answer's idempotency key (else one is minted)\n"
"  --source name         where the answer comes from (default cli)\n"
"  --device-id id        the answering device\n"
"  --text text           a text answer, for a text question\n"
"  --emit                print the answer event instead of applying it\n"
"  --via command         write the answer event to command (run by sh)\n"
"                        instead\n"
"  --seen tag            answer only if the question is still the one whose\n"
"                        tag (8+ hex digits of its digest, as arc-status\n"
"                        prints it) was read; else show the new one, exit 1\n"
"  --hold                at a terminal, wait for a key before exiting, so\n"
"                        that the outcome can be read (a tmux popup closes\n"
"                        when arc-answer exits)\n"
"  --dismiss key         resolve a notice or a settled question as a person\n"
"  --dismiss-notices     dismiss every active condition not pending\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

/* ---- words for a person ---- */

static void
say(const struct buf *b)
{
	write_stdout(b);
	flush_stdout();
}

/* An answer as a person reads it: the choice's label, or the text. */
static void
answer_words(struct buf *b, const struct jval *choices, const char *answer,
    bool is_text)
{
	const struct jval	*id, *label;
	size_t			 i;

	if (is_text) {
		buf_putc(b, '"');
		term_fit(b, answer, strlen(answer), 60);
		buf_putc(b, '"');
		return;
	}
	for (i = 0; choices != NULL && i < choices->n; i++)
		if ((id = json_get(choices->items[i], "id")) != NULL &&
		    json_is(id, answer) && (label = json_get(choices->items[i],
		    "label")) != NULL) {
			term_safe(b, label->s, label->len);
			return;
		}
	term_safe(b, answer, strlen(answer));
}

/* The valid choices, on the terminal (labels never go to stderr). */
static void
list_choices(const struct jval *choices)
{
	const struct jval	*id, *label;
	struct buf		 b = { 0 }, w = { 0 };
	size_t			 i, width = 0, at;

	for (i = 0; i < choices->n; i++) {
		w.len = 0;
		if ((id = json_get(choices->items[i], "id")) != NULL)
			term_safe(&w, id->s, id->len);
		if (w.len > 0 && term_width(w.p, w.len) > width)
			width = term_width(w.p, w.len);
	}
	buf_puts(&b, "The choices are (by number or id):\n");
	for (i = 0; i < choices->n; i++) {
		id = json_get(choices->items[i], "id");
		label = json_get(choices->items[i], "label");
		buf_printf(&b, "  %zu) ", i + 1);
		at = b.len;
		if (id != NULL)
			term_safe(&b, id->s, id->len);
		if (label != NULL) {
			buf_printf(&b, "%*s", (int)(width + 2 -
			    term_width(b.p + at, b.len - at)), "");
			term_safe(&b, label->s, label->len);
		}
		buf_putc(&b, '\n');
	}
	buf_free(&w);
	say(&b);
	buf_free(&b);
}

/*
 * A result line in words: "deploy: Allow (accepted)" on standard output,
 * or why not on standard error (with the choices on the terminal when the
 * choice was not one of them).
 */
static void
say_result(struct journal *j, const char *key, const struct question *qn,
    const char *answer, bool is_text, const struct verdict *v)
{
	struct arena		 a = { 0 };
	const struct jval	*choices;
	struct buf		 b = { 0 };

	choices = qn->found ? question_choices(&a, &qn->q) : NULL;
	term_safe(&b, key, strlen(key));
	buf_puts(&b, ": ");
	if (v->code == ARC_OK) {
		answer_words(&b, choices, answer, is_text);
		buf_puts(&b, v->replayed ? " (accepted earlier)\n" :
		    " (accepted)\n");
		say(&b);
		goto done;
	}
	buf_puts(&b, "not answered: ");
	if (v->code == ARC_NOT_OPEN || (v->code == ARC_CONFLICT &&
	    qn->found && sv_is(qn->q.f[I_STATUS], "answered"))) {
		if (v->code == ARC_CONFLICT)
			buf_puts(&b, "already ");
		question_words(&b, &qn->q, question_status(&qn->q, arc_now()),
		    arc_now());
		struct condition *c = state_lookup(j->st, key);
		(void)handover_words(&b, c != NULL ? c->handover : NULL,
		    &qn->q);
	} else if (v->code == ARC_NOT_FOUND) {
		no_question_words(&b, j->st, key);
	} else {
		buf_puts(&b, v->message);	/* quotes no value */
	}
	if (v->code == ARC_INVALID_ANSWER && qn->found &&
	    is_text == (choices != NULL))
		buf_puts(&b, choices != NULL ? " (a choice question: give a "
		    "choice, not --text)" : " (a text question: answer with "
		    "--text)");
	warnx("%s", b.p);
	if (v->code == ARC_INVALID_ANSWER && choices != NULL && !is_text)
		list_choices(choices);
done:
	buf_free(&b);
	arena_free(&a);
}

/* ---- sending the answer ---- */

/*
 * The verdict of the result line a --via command printed last (it is in
 * f, a temporary file of at most REMOTE_MAX bytes read): false when its
 * output ends in no result line.  The line holds the nonce: it is read,
 * never shown; its message is made safe for the terminal.
 */
#define REMOTE_MAX	(1024 * 1024)
static bool
remote_verdict(FILE *f, struct verdict *v)
{
	struct arena		 a = { 0 };
	struct buf		 b = { 0 }, m = { 0 };
	struct jparse_error	 pe;
	const struct jval	*r, *st, *e, *c, *msg, *rp;
	const char		*line;
	char			 chunk[4096], num[8];
	size_t			 n, end;
	int			 k;
	bool			 ok = false;

	if (fflush(f) == EOF || fseek(f, 0, SEEK_SET) == -1)
		return false;
	while (b.len < REMOTE_MAX && (n = fread(chunk, 1, sizeof(chunk) <
	    REMOTE_MAX - b.len ? sizeof(chunk) : REMOTE_MAX - b.len, f)) > 0)
		buf_put(&b, chunk, n);
	end = b.len;
	while (end > 0 && b.p[end - 1] == '\n')
		end--;
	line = b.p;
	for (n = 0; n < end; n++)
		if (b.p[n] == '\n')
			line = b.p + n + 1;
	if (end == 0 || (r = json_parse(&a, line, (size_t)(b.p + end - line),
	    &pe)) == NULL || r->type != J_OBJECT ||
	    (st = json_get(r, "status")) == NULL || st->type != J_NUMBER)
		goto done;
	memset(v, 0, sizeof(*v));
	if (st->len < sizeof(num)) {	/* the literal, not NUL-ended */
		memcpy(num, st->s, st->len);
		num[st->len] = '\0';
		v->status = (int)strtonum(num, 100, 599, NULL);
	}
	v->code = v->status == 200 || v->status == 201 ? ARC_OK : ARC_INVALID;
	v->replayed = (rp = json_get(r, "replayed")) != NULL &&
	    rp->type == J_TRUE;
	if ((e = json_get(r, "error")) != NULL && e->type == J_OBJECT) {
		if ((c = json_get(e, "code")) != NULL && c->type == J_STRING)
			for (k = ARC_INVALID; k <= ARC_INVALID_ANSWER; k++)
				if (json_is(c, arc_code_name((enum arc_code)k)))
					v->code = (enum arc_code)k;
		if ((msg = json_get(e, "message")) != NULL &&
		    msg->type == J_STRING)
			term_safe(&m, msg->s, msg->len);
	}
	if (v->code != ARC_OK && m.len == 0)
		buf_puts(&m, "refused there");
	if (m.len > 0)
		(void)snprintf(v->message, sizeof(v->message), "%s", m.p);
	ok = true;
done:
	if (b.p != NULL)	/* nothing read: nothing to clear */
		explicit_bzero(b.p, b.len);
	buf_free(&b);
	buf_free(&m);
	arena_free(&a);
	return ok;
}

/*
 * Sends one answer to the question qn, found under the lock that is still
 * held: applies it here (the lock is released with the commit), prints
 * it (--emit), or hands it to --via.
 */
static int
send_answer(struct target *t, const struct opts *o, const char *key,
    const struct question *qn, const char *via, const char *answer,
    bool is_text)
{
	const char	*sender = getenv("ARC_SENDER");
	struct answerer	 who = { sender != NULL && *sender ? sender :
	    "arc-answer", o->response_id, o->source, o->device };
	struct buf	 ev = { 0 }, b = { 0 };
	struct arena	 a = { 0 };
	struct verdict	 remote;
	FILE		*out;
	int		 status;
	bool		 said = false;

	build_event(&ev, key, qn, &who, answer, is_text);
	buf_putc(&ev, '\n');
	if (via != NULL || !t->local) {
		journal_unlock(t->jr);
		if (o->emit) {
			say(&ev);
			status = 0;
		} else if (!qn->found) {
			term_safe(&b, key, strlen(key));
			buf_puts(&b, ": ");
			no_question_words(&b, t->jr->st, key);
			buf_puts(&b, " here; nothing was sent");
			if (t->ap.not_found_why != NULL)
				buf_printf(&b, "; %s", t->ap.not_found_why);
			warnx("%s", b.p);
			status = EXIT_REJECTED;
			said = true;
		} else if (o->human) {
			/* its words are read, not shown: a result line holds
			 * the nonce */
			if ((out = tmpfile()) == NULL)
				err(EXIT_SYSTEM, "a temporary file");
			status = send_via(via, &ev, fileno(out));
			if (remote_verdict(out, &remote)) {
				say_result(t->jr, key, qn, answer, is_text,
				    &remote);
				said = true;
			} else if (status == 0) {
				term_safe(&b, key, strlen(key));
				buf_puts(&b, ": ");
				answer_words(&b, question_choices(&a, &qn->q),
				    answer, is_text);
				buf_puts(&b, " (sent)\n");
				say(&b);
			}
			(void)fclose(out);
		} else
			status = send_via(via, &ev, -1);
		if (status != 0 && !said)
			warnx("%s: the --via command exited with %d", safe(&b,
			    key), status);
		goto done;
	}
	t->ap.quiet = o->human;
	/* no file name and line: the answer came from the command line */
	apply_one(&t->ap, NULL, 1, ev.p, ev.len - 1, false);
	if (o->human)	/* the result line stays off the screen: the verdict */
		t->ap.out.len = 0;
	if (!applier_commit(&t->ap))
		errx(EXIT_SYSTEM, "the answer was not applied");
	status = t->ap.status;
	if (o->human)
		say_result(t->jr, key, qn, answer, is_text, &t->ap.last);
done:
	buf_free(&ev);
	buf_free(&b);
	arena_free(&a);
	return status;
}

/*
 * The key as given: a person on a terminal may give a part of one (hook
 * keys are long), and sees the whole key it named; a script names it
 * whole, so that a part that is one key's today never answers another
 * question that it matches tomorrow.  *why: NULL, or why a script's part
 * was not taken, for its refusal.
 */
static const char part_refused[] = "a part of a key is taken only at a "
    "terminal: name the key whole";

static enum key_found
typed_key(struct state *st, const char *given, bool person, char **key,
    const char **why)
{
	*why = NULL;
	if (person)
		return key_typed(st, given, key);
	if (key_is_part(st, given))
		*why = part_refused;
	if ((*key = strdup(given)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	return KEY_EXACT;
}

/*
 * Opens a local target's journal: for writing when it is there, else read
 * only until there is something to answer, so that an answer to nothing
 * (a mistyped -j) creates no folder and no journal.
 */
static bool
target_open(struct target *t, const char *option)
{
	char		*path = journal_default_path(option);
	struct stat	 sb;
	bool		 ok;

	memset(&t->ap, 0, sizeof(t->ap));
	t->journal = option;
	t->deferred = lstat(path, &sb) == -1 && errno == ENOENT;
	ok = journal_open(&t->ap.j, path, !t->deferred);
	t->jr = &t->ap.j;
	free(path);
	return ok;
}

/* There is a question to answer now: the journal is opened for writing. */
static bool
target_writable(struct target *t)
{
	journal_unlock(t->jr);
	applier_close(&t->ap);
	t->deferred = false;
	if (!applier_open(&t->ap, t->journal))
		return false;
	t->jr = &t->ap.j;
	return true;
}

/*
 * Where an answer to the question under key goes: into this journal
 * (*via NULL), or to a command: --via, or the route that the mirror of
 * another host's question recorded.  A mirrored question is never
 * answered in the mirror: false (said why) when it has no route.
 */
static bool
answer_route(struct target *t, const struct opts *o, const char *key,
    const char **via)
{
	struct condition	*c = state_lookup(t->jr->st, key);
	struct buf		 b = { 0 };

	*via = o->via;
	if (!t->local || c == NULL || c->route == NULL)
		return true;
	if (c->route[0] != '\0') {
		*via = c->route;
		return true;
	}
	warnx("%s: a question of another host, mirrored here: answer it "
	    "with --via and its host's bridge (such as --via 'arc-mqtt send')",
	    safe(&b, key));
	buf_free(&b);
	return false;
}

/* --seen names another question than the current one: it is shown. */
static int
not_the_one_seen(struct target *t, const char *key)
{
	struct buf b = { 0 };

	warnx("%s: its tag is not the one given (--seen): the question "
	    "changed since it was read, or the tag is mistyped; nothing was "
	    "sent.  It is now:", safe(&b, key));
	buf_free(&b);
	(void)status_show(t->jr, key, false, isatty(STDOUT_FILENO), arc_now());
	return EXIT_REJECTED;
}

/*
 * The answer is on the command line: a choice (by id or number) or
 * --text, to the question under the key as typed (or a part of it).
 */
static int
answer_given(struct target *t, const struct opts *o, const char *given,
    const char *choice)
{
	struct question		 qn;
	struct arena		 a = { 0 };
	const struct jval	*id = NULL, *choices;
	struct buf		 b = { 0 };
	const char		*via = NULL;
	char			*picked = NULL, *key = NULL;
	size_t			 other = 0;
	int			 status;

	random_ready();		/* the answer's ids are minted under the lock */
again:
	if (!journal_lock(t->jr, t->local && !t->deferred))
		return EXIT_SYSTEM;
	free(key);
	if (typed_key(t->jr->st, given, o->human, &key,
	    &t->ap.not_found_why) == KEY_AMBIGUOUS) {
		status = EXIT_REJECTED;
		goto refused;
	}
	arena_reset(&a);
	find_question(t->jr, &a, key, &qn);
	if (qn.found && !answer_route(t, o, key, &via)) {
		status = EXIT_REJECTED;
		goto refused;
	}
	if (qn.found && t->local && t->deferred && via == NULL) {
		if (!target_writable(t)) {
			free(key);
			return EXIT_SYSTEM;
		}
		goto again;
	}
	if (qn.found && o->seen != NULL && !tag_names(o->seen, &qn.q)) {
		status = not_the_one_seen(t, key);
		goto refused;
	}
	choices = qn.found ? question_choices(&a, &qn.q) : NULL;
	if (choice != NULL && (id = choice_given(choices, choice, &other)) ==
	    NULL && other != 0) {
		warnx("%s: not answered: that is choice %lld by its number "
		    "and choice %zu by its id; leave the answer out on a "
		    "terminal to pick by number", safe(&b, key),
		    strtonum(choice, 0, 999999, NULL), other);
		if (o->human)
			list_choices(choices);
		status = EXIT_REJECTED;
		goto refused;
	}
	if (id != NULL && (picked = strndup(id->s, id->len)) == NULL)
		err(EXIT_SYSTEM, "strndup");
	status = send_answer(t, o, key, &qn, via, o->text != NULL ? o->text :
	    picked != NULL ? picked : choice, o->text != NULL);
	goto done;
refused:
	journal_unlock(t->jr);
done:
	free(picked);
	free(key);
	buf_free(&b);
	arena_free(&a);
	return status;
}

/*
 * A person is asked; the answer is sent only if the question under the
 * lock is still the one they saw.  If it changed, they see it again.
 */
static int
answer_asked(struct target *t, const struct opts *o, const char *given)
{
	struct person	*p;
	struct answer	 ans = { 0 };
	struct question	 qn;
	struct arena	 a = { 0 };
	enum asked	 r;
	const char	*via = NULL;
	char		*key = NULL;
	bool		 changed = false;
	int		 status;

	memset(&qn, 0, sizeof(qn));
	if (given != NULL) {
		if (!journal_lock(t->jr, false))
			return EXIT_SYSTEM;
		r = key_typed(t->jr->st, given, &key) == KEY_AMBIGUOUS ?
		    ASKED_LEFT : ASKED_ANSWER;
		journal_unlock(t->jr);
		if (r != ASKED_ANSWER) {
			free(key);
			return EXIT_REJECTED;
		}
	}
	if ((p = person_start(t->jr)) == NULL) {
		free(key);
		return EXIT_SYSTEM;
	}
	if (given == NULL)
		r = person_pick(p, &key);
	while (r == ASKED_ANSWER) {
		answer_free(&ans);
		if ((r = person_ask(p, key, changed, &ans)) != ASKED_ANSWER)
			break;
		/* Seen, so the journal is there now: it is written to. */
		if (t->local && t->deferred && !target_writable(t)) {
			r = ASKED_FAILED;
			break;
		}
		if (!journal_lock(t->jr, t->local)) {
			r = ASKED_FAILED;
			break;
		}
		arena_reset(&a);
		find_question(t->jr, &a, key, &qn);
		if (qn.found && sv_is(qn.q.f[I_DIGEST], ans.digest) &&
		    question_open(&qn.q, arc_now_advancing())) {
			if (!answer_route(t, o, key, &via)) {
				journal_unlock(t->jr);
				r = ASKED_LEFT;
			}
			break;		/* still the question they saw */
		}
		journal_unlock(t->jr);
		changed = true;
	}
	person_end(p);
	switch (r) {
	case ASKED_ANSWER:
		status = send_answer(t, o, key, &qn, via, ans.answer,
		    ans.is_text);
		break;
	case ASKED_CLOSED:
		warnx("%s", ans.why.p);
		status = EXIT_REJECTED;
		break;
	case ASKED_LEFT:
		status = EXIT_REJECTED;
		break;
	case ASKED_INTERRUPTED:
		status = EXIT_INTERRUPTED;
		break;
	default:
		status = EXIT_SYSTEM;
		break;
	}
	answer_free(&ans);
	arena_free(&a);
	free(key);
	return status;
}

/* ---- dismissing ---- */

struct notices {
	const char	*now;
	char		**keys;
	size_t		 n, cap;
};

static void
collect_notice(const struct condition *c, void *arg)
{
	struct notices *ns = arg;

	if (!c->active || condition_qstatus(c, ns->now) == Q_PENDING)
		return;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 16;
		if ((ns->keys = reallocarray(ns->keys, ns->cap,
		    sizeof(*ns->keys))) == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	if ((ns->keys[ns->n++] = strdup(c->key)) == NULL)
		err(EXIT_SYSTEM, "strdup");
}

static int
by_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Dismisses one key into the journal's batch; its line of words into out. */
static bool
dismiss_one(struct journal *j, struct arena *a, const char *key,
    const char *now, const char *source, const char *why, struct buf *out)
{
	struct current		 cur;
	struct change		 ch;
	struct buf		 w = { 0 }, k = { 0 };
	bool			 ok = false;
	enum dismissal		 d;

	current_of(j, a, sv_str(key), &cur);
	if (cur.has_n)
		condition_words(&w, cur.c, &cur.n, cur.has_q ? &cur.q : NULL,
		    cur.has_q ? question_status(&cur.q, now) : Q_NONE, now);
	d = rules_dismiss(&cur, now, journal_clock(j, now), source, &ch);
	if (d == DISMISS_OK)
		journal_record(j, journal_clock(j, now), &ch);
	switch (d) {
	case DISMISS_OK:
		term_safe(out, key, strlen(key));
		buf_puts(out, ": dismissed (");
		buf_put(out, w.p, w.len);
		buf_puts(out, ")\n");
		ok = true;
		break;
	case DISMISS_NOT_FOUND:
		warnx("%s: nothing under this key to dismiss%s%s", safe(&k,
		    key), why != NULL ? "; " : "", why != NULL ? why : "");
		break;
	case DISMISS_NOT_ACTIVE:
		warnx("%s: %s; nothing to dismiss", safe(&k, key), w.p);
		break;
	case DISMISS_PENDING:
		warnx("%s: %s; answer it, or let it expire, before dismissing "
		    "it", safe(&k, key), w.p);
		break;
	}
	buf_free(&w);
	buf_free(&k);
	return ok;
}

static int
dismiss(const struct opts *o)
{
	struct journal	 j;
	struct notices	 ns = { 0 };
	struct arena	 a = { 0 };
	struct buf	 out = { 0 };
	const struct condition *c;
	size_t		 at;
	char		*path = journal_default_path(o->journal);
	struct stat	 sb;
	bool		 there = lstat(path, &sb) == 0 || errno != ENOENT;
	size_t		 i;
	int		 status = 0;

	/* Nothing to dismiss in a journal that is not there: none is made. */
	if (!journal_open(&j, path, there) || !journal_lock(&j, there)) {
		free(path);
		journal_close(&j);
		return EXIT_SYSTEM;
	}
	free(path);
	ns.now = arc_now();
	if (o->dismiss != NULL) {
		const char *why;
		char *key;
		if (typed_key(j.st, o->dismiss, isatty(STDOUT_FILENO), &key,
		    &why) == KEY_AMBIGUOUS ||
		    !dismiss_one(&j, &a, key, ns.now, o->source, why, &out))
			status = EXIT_REJECTED;
		free(key);
	} else {
		for (c = state_first(j.st, &at); c != NULL;
		    c = state_next(j.st, &at))
			collect_notice(c, &ns);
		if (ns.n > 1)
			qsort(ns.keys, ns.n, sizeof(*ns.keys), by_key);
		for (i = 0; i < ns.n; i++) {
			arena_reset(&a);
			if (!dismiss_one(&j, &a, ns.keys[i], ns.now, o->source,
			    NULL, &out))
				status = EXIT_REJECTED;
		}
		if (ns.n == 0)
			buf_puts(&out, "nothing to dismiss\n");
	}
	if (!journal_append(&j)) {
		out.len = 0;
		status = EXIT_SYSTEM;
	}
	journal_unlock(&j);
	say(&out);
	for (i = 0; i < ns.n; i++)
		free(ns.keys[i]);
	free(ns.keys);
	buf_free(&out);
	arena_free(&a);
	journal_close(&j);
	return status;
}

/* ---- the command ---- */

static int
check_usage(const struct opts *o, int argc, bool *asked)
{
	if (o->dismiss != NULL || o->notices) {
		if (o->dismiss != NULL && o->notices)
			return usage_error(usage, "--dismiss and "
			    "--dismiss-notices: give one");
		if (argc > 0 || o->text || o->emit || o->via || o->json ||
		    o->response_id || o->device || o->seen || o->hold)
			return usage_error(usage, "dismissing takes no "
			    "answer, and only -j and --source");
		return 0;
	}
	if (argc > 2)
		return usage_error(usage, "too many arguments");
	if (argc == 2 && o->text != NULL)
		return usage_error(usage, "a choice and --text: give "
		    "one answer");
	if (argc == 0 && o->text != NULL)
		return usage_error(usage, "--text: which key?");
	if (o->text != NULL && line_blank(o->text, strlen(o->text)))
		return usage_error(usage, "--text: an empty answer is "
		    "not sent");
	if (o->seen != NULL && !tag_valid(o->seen))
		return usage_error(usage, "--seen takes a question's tag: "
		    "%d to 64 hex digits of its digest, as --show prints it",
		    TAG_MIN);
	if (o->emit && o->via != NULL)
		return usage_error(usage, "--emit and --via: give one");
	*asked = argc < 2 && o->text == NULL;
	if (*asked && o->emit)
		return usage_error(usage, "--emit needs the answer on "
		    "the command line");
	if (*asked && o->seen != NULL)
		return usage_error(usage, "--seen goes with an answer on "
		    "the command line (asked, the question is shown)");
	if (o->hold && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) ||
	    o->json || o->emit))
		return usage_error(usage, "--hold is for a person at a "
		    "terminal (not with --json or --emit)");
	if (*asked && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return usage_error(usage, argc == 0 ? "no key (the "
		    "picker needs a terminal)" : "no answer: give a choice or "
		    "--text (or run me on a terminal to be asked)");
	return 0;
}

/*
 * --hold: the outcome stays on screen until the person presses a key,
 * any key (Esc, an arrow: whatever bytes it sends), with the terminal in
 * its own mode again on every way out, a signal's too.
 */
static struct termios	 held_mode;

static void
hold_signal(int sig)
{
	(void)tcsetattr(STDIN_FILENO, TCSANOW, &held_mode);
	(void)signal(sig, SIG_DFL);
	(void)raise(sig);
}

static void
hold_until_key(void)
{
	static const int	 sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
	struct sigaction	 sa, old[4];
	struct termios		 raw;
	unsigned char		 c[64];
	size_t			 i;

	fputs("(any key closes this)", stdout);
	flush_stdout();
	if (tcgetattr(STDIN_FILENO, &held_mode) == -1)
		return;
	raw = held_mode;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = hold_signal;
	(void)sigemptyset(&sa.sa_mask);
	for (i = 0; i < 4; i++)
		(void)sigaction(sigs[i], &sa, &old[i]);
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0) {
		/* one read takes a key's every byte; EOF or an error ends too */
		while (read(STDIN_FILENO, c, sizeof(c)) == -1 && errno == EINTR)
			continue;
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &held_mode);
	}
	for (i = 0; i < 4; i++)
		(void)sigaction(sigs[i], &old[i], NULL);
	putchar('\n');
	flush_stdout();
}

/* Opens the journal (or the route), answers, closes: the exit status. */
static int
answer_run(const struct opts *o, int argc, char **argv, bool asked)
{
	struct target	 t;
	char		*path;
	int		 status;

	memset(&t, 0, sizeof(t));
	t.local = !o->emit && o->via == NULL;
	if (t.local) {
		if (!target_open(&t, o->journal)) {
			applier_close(&t.ap);
			return EXIT_SYSTEM;
		}
	} else {
		t.jr = &t.j;
		path = journal_default_path(o->journal);
		if (!journal_open(&t.j, path, false)) {
			free(path);
			return EXIT_SYSTEM;
		}
		free(path);
	}
	if (asked)
		status = answer_asked(&t, o, argc > 0 ? argv[0] : NULL);
	else
		status = answer_given(&t, o, argv[0], argc == 2 ? argv[1] :
		    NULL);
	if (t.local)
		applier_close(&t.ap);
	else
		journal_close(&t.j);
	return status;
}

int	answer_main(int, char **);	/* arcmain.c calls it */

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
		{ "via", required_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'J' },
		{ "dismiss", required_argument, NULL, 'D' },
		{ "dismiss-notices", no_argument, NULL, 'N' },
		{ "seen", required_argument, NULL, 'S' },
		{ "hold", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct opts	 o = { .source = "cli" };
	bool		 asked = false;
	int		 ch, status;

	while ((ch = getopt_long(argc, argv, "j:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j': o.journal = optarg; break;
		case 'r': o.response_id = optarg; break;
		case 's': o.source = optarg; break;
		case 'd': o.device = optarg; break;
		case 'T': o.text = optarg; break;
		case 'e': o.emit = true; break;
		case 'v': o.via = optarg; break;
		case 'J': o.json = true; break;
		case 'D': o.dismiss = optarg; break;
		case 'N': o.notices = true; break;
		case 'S': o.seen = optarg; break;
		case 'H': o.hold = true; break;
		default:
			if (common_option(ch, usage, &status))
				return status;
			break;
		}
	}
	argc -= optind;
	argv += optind;
	if ((status = check_usage(&o, argc, &asked)) != 0)
		return status;
	if (o.dismiss != NULL || o.notices)
		return dismiss(&o);
	o.human = !o.json && !o.emit && isatty(STDOUT_FILENO);
	status = answer_run(&o, argc, argv, asked);
	/* held on a failure too: what went wrong is what must be read */
	if (o.hold)
		hold_until_key();
	return status;
}
