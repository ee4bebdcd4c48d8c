/*
 * arc-hook: an agent's hooks as ARC requests, one program for every host
 * (Claude Code, Codex, Gemini CLI).  The hook's JSON payload on standard
 * input becomes events applied in-process through arc-apply's applier;
 * for a question it waits in-process as arc-wait does, then prints the
 * person's decision in the host's output format.  Each host's mapping is
 * a file of its own (archost-*.c).  See arc-hook(1) and arc-hooks(7).
 *
 * It never decides by accident: on any failure of its own it prints
 * nothing and exits 0, so that the host asks in its own dialog, and it
 * says why on standard error, never with the payload's text.
 */
#include <err.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcterm.h"
#include "arcproblem.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcusage.h"
#include "arcsettle.h"
#include "arcbell.h"
#include "arcwaiter.h"
#include "arcnarrow.h"
#include "archook.h"
#include "archost-claude.h"
#include "archost-gemini.h"
#include "archost-copilot.h"
#include "archooksettings.h"

#define TIMEOUT_DEFAULT	300	/* seconds (ARC_HOOK_TIMEOUT) */

struct host {
	const char	*name, *client, *title;	/* HOST; sender id, name */
	bool		(*plan)(struct arena *, const struct jval *,
			    struct hook_who *, struct hook_plan *);
	bool		(*reply)(struct buf *, struct arena *,
			    const struct jval *, const struct hook_who *,
			    const struct hook_plan *, const struct jval *const *);
	bool		 timed;	/* reads ARC_HOOK_TIMEOUT */
};

/*
 * Copilot CLI names the event in two payloads only: its hooks file gives
 * each command the event it runs for (ARC_HOOK_EVENT, in the env).
 */
static bool
copilot_plan_env(struct arena *a, const struct jval *p, struct hook_who *w,
    struct hook_plan *pl)
{
	return copilot_plan(a, p, getenv("ARC_HOOK_EVENT"), w, pl);
}

static const struct host hosts[] = {
	{ "claude-code", "claude-code", "Claude Code", claude_plan,
	    claude_reply, true },
	{ "codex", "codex", "Codex", claude_plan, claude_reply, true },
	{ "gemini", "gemini-cli", "Gemini CLI", gemini_plan, NULL, false },
	{ "copilot", "copilot-cli", "Copilot CLI", copilot_plan_env,
	    copilot_reply, true },
};

/* ---- one call ---- */

/*
 * Signals: TERM, INT and HUP withdraw the question.  The handler closes
 * the read end of a pipe whose write end the wait polls (arcsettle.c).
 */
static volatile sig_atomic_t	 stopped;
static volatile sig_atomic_t	 stop_reader = -1;
static bool			 finished;	/* exit as the code says */

static void
on_signal(int sig)
{
	int fd = stop_reader;

	(void)sig;
	stopped = 1;
	if (fd != -1) {
		stop_reader = -1;
		(void)close(fd);
	}
	bell_interrupt();	/* a sleep on the journal's bell ends */
}

/* Whatever ends the program before its end (err(3) too) exits 0. */
static void
exit_zero(void)
{
	if (!finished)
		_exit(0);
}

struct call {
	const struct host	*host;
	struct hook_who		 who;
	struct hook_plan	 plan;
	struct arena		 arena;	/* the payload, the plan */
	const struct jval	*payload;
	const char		*event;	/* named in messages */
	int64_t			 timeout;	/* seconds */
	int			 stop;	/* the pipe's write end */
	/* the questions this hook opened: interaction id and digest */
	char			 own_id[HOOK_REQS_MAX][40];
	char			 own_digest[HOOK_REQS_MAX][ARC_HEX_DIGEST];
	bool			 own[HOOK_REQS_MAX];
	/*
	 * Each question's waiter mark, held from before it is stored until
	 * the decision is handed over: a hook killed however it dies lets
	 * go of it, and whoever notices withdraws the question.
	 */
	struct waiter		 mark[HOOK_REQS_MAX];
	struct settle		 settle;	/* the waits' journal, kept */
	char			 opened_by[HOOK_REQS_MAX][40];	/* event_id */
	struct arena		 answers;
	const struct jval	*answer[HOOK_REQS_MAX];
};

static void	say(const char *, ...) __attribute__((format(printf, 1, 2)));

static void
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
}

static bool
session_key(const struct call *c, const char *key)
{
	size_t n = strlen(c->who.prefix);

	return strncmp(key, c->who.prefix, n) == 0 && key[n] == ':';
}

/* Whether key is one the plan closes. */
static bool
closes(const struct call *c, const char *key)
{
	size_t i;

	if (c->plan.sweep)
		return true;
	for (i = 0; i < c->plan.nresolve; i++)
		if (strcmp(key, c->plan.resolve[i]) == 0)
			return true;
	for (i = 0; i < c->plan.nprefix; i++)
		if (strncmp(key, c->plan.resolve_prefix[i],
		    strlen(c->plan.resolve_prefix[i])) == 0)
			return true;
	return false;
}

static void
apply_event(struct applier *ap, uint64_t line, const struct buf *ev)
{
	apply_one(ap, "arc-hook", line, ev->p, ev->len, ev->len >
	    ARC_LINE_MAX);
}

/* Resolves with outcome every key (n of them) in one batch; silent. */
static void
resolve_keys(struct applier *ap, const struct call *c, char **keys,
    size_t n, const char *outcome)
{
	struct buf	 ev = { 0 };
	size_t		 i;

	for (i = 0; i < n; i++) {
		ev.len = 0;
		hook_resolved(&ev, &c->who, keys[i], outcome);
		apply_event(ap, 0, &ev);
	}
	buf_free(&ev);
}

/* The active keys of the session that the plan closes (a locked journal). */
static size_t
keys_to_close(struct journal *j, const struct call *c, char ***out)
{
	struct condition	*cd;
	size_t			 at, n = 0, cap = 0;
	char			**k = NULL;

	for (cd = state_first(j->st, &at); cd != NULL;
	    cd = state_next(j->st, &at)) {
		if (!cd->active || !session_key(c, cd->key) ||
		    !closes(c, cd->key))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			if ((k = reallocarray(k, cap, sizeof(*k))) == NULL)
				err(EXIT_SYSTEM, "reallocarray");
		}
		k[n++] = cd->key;
	}
	*out = k;
	return n;
}

static bool
session_pending(struct journal *j, const struct call *c)
{
	struct condition	*cd;
	size_t			 at;
	const char		*now = arc_now();

	for (cd = state_first(j->st, &at); cd != NULL;
	    cd = state_next(j->st, &at))
		if (cd->active && session_key(c, cd->key) &&
		    condition_qstatus(cd, now) == Q_PENDING)
			return true;
	return false;
}

/*
 * Withdraws, of the questions this hook asked, those still its own and
 * open: not one that another hook's question has replaced under the same
 * key, nor one already answered or withdrawn.
 */
static void
release(struct call *c, const char *outcome)
{
	struct applier	 ap;
	struct condition *cd;
	struct rec	 q;
	char		*mine[HOOK_REQS_MAX];
	size_t		 i, n = 0;

	if (c->plan.wait == WAIT_NONE)
		return;
	for (i = 0; i < c->plan.nreq && !c->own[i]; i++)
		;
	if (i == c->plan.nreq)
		return;	/* none is ours: no journal to open */
	if (!applier_open(&ap, NULL) || !journal_lock(&ap.j, true)) {
		applier_close(&ap);
		return;
	}
	ap.quiet = ap.keep_out = true;
	for (i = 0; i < c->plan.nreq; i++) {
		if (!c->own[i] || (cd = state_lookup(ap.j.st,
		    c->plan.req[i].key)) == NULL || !cd->active ||
		    cd->qstatus == Q_ANSWERED || cd->interaction.len == 0)
			continue;
		arena_reset(&ap.arena);
		if (journal_rec(&ap.j, &ap.arena, cd, true, &q) != NULL &&
		    sv_is(q.f[I_ID], c->own_id[i]))
			mine[n++] = (char *)c->plan.req[i].key;
	}
	resolve_keys(&ap, c, mine, n, outcome);
	(void)applier_commit(&ap);
	applier_close(&ap);
}

/* Lets go of every waiter mark: nothing waits any more. */
static void
release_marks(struct call *c)
{
	size_t i;

	for (i = 0; i < HOOK_REQS_MAX; i++)
		waiter_release(&c->mark[i]);
	settle_done(&c->settle);
}

/*
 * The decision to the agent, then its receipt in the journal: written to
 * a reader that is there (a pipe whose reader is gone fails, SIGPIPE
 * ignored), the agent took it.  A decision that could not be handed over
 * leaves no receipt; the question stays answered, and says so.
 */
static void
hand_over(struct call *c, const struct buf *out)
{
	size_t	 i;
	bool	 taken = write_all(STDOUT_FILENO, out->p, out->len);

	if (!taken)
		say("cannot hand the decision to %s (%s); no receipt",
		    c->who.name, strerror(errno));
	for (i = 0; i < c->plan.nreq; i++)
		if (c->own[i] && !settle_receipt(&c->settle, NULL,
		    c->plan.req[i].key, c->own_id[i], c->who.name, taken))
			say("the receipt of the decision was not recorded");
}

/* Gives up without deciding: nothing on standard output, exit 0. */
static void __attribute__((noreturn))
give_up(struct call *c, const char *outcome, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
	release(c, outcome);
	release_marks(c);
	finished = true;
	exit(0);
}

/*
 * What the applier decided of request i, as it decided it (typed, not a
 * result line parsed again): the question it opened, its id and digest,
 * or the first refusal's code into *why.
 */
static void
own_question(struct call *c, struct applier *ap, size_t i, const char **why)
{
	struct condition	*cd;
	struct rec		 q;

	if (ap->last.code != ARC_OK) {
		if (*why == NULL)
			*why = arc_code_name(ap->last.code);
		return;
	}
	if ((cd = state_lookup(ap->j.st, c->plan.req[i].key)) == NULL ||
	    cd->interaction.len == 0 ||
	    journal_rec(&ap->j, &ap->arena, cd, true, &q) == NULL ||
	    q.f[I_ID].n >= sizeof(c->own_id[i]) ||
	    q.f[I_DIGEST].n >= sizeof(c->own_digest[i]))
		return;
	memcpy(c->own_id[i], q.f[I_ID].p, q.f[I_ID].n);
	c->own_id[i][q.f[I_ID].n] = '\0';
	memcpy(c->own_digest[i], q.f[I_DIGEST].p, q.f[I_DIGEST].n);
	c->own_digest[i][q.f[I_DIGEST].n] = '\0';
	c->own[i] = true;
}

/* Closes what the plan closes and opens what it opens, in one batch. */
static void
apply_plan(struct call *c)
{
	struct applier	 ap;
	struct buf	 ev = { 0 };
	char		 expires[64], **keys = NULL;
	const char	*why = NULL;
	size_t		 i, n;
	bool		 asks = c->plan.wait != WAIT_NONE;

	if (!applier_open(&ap, NULL) || !journal_lock(&ap.j, true)) {
		applier_close(&ap);
		if (c->plan.nreq > 0)
			give_up(c, "cancelled", "the journal did not take the "
			    "%s request", c->event);
		return;
	}
	ap.quiet = ap.keep_out = true;
	if (c->plan.unless_pending && session_pending(&ap.j, c)) {
		/* the question is already there: this notice would repeat it */
		applier_close(&ap);
		return;
	}
	if (c->plan.sweep || c->plan.nresolve > 0 || c->plan.nprefix > 0) {
		n = keys_to_close(&ap.j, c, &keys);
		resolve_keys(&ap, c, keys, n, "not_needed");
		free(keys);
		ap.out.len = 0;	/* best effort, silent */
	}
	if (asks && !rfc3339_after(arc_now(), c->timeout, expires,
	    sizeof(expires)))
		give_up(c, "cancelled", "ARC_HOOK_TIMEOUT is out of range");
	for (i = 0; i < c->plan.nreq; i++) {
		ev.len = 0;
		mint_id("evt_", c->opened_by[i], sizeof(c->opened_by[i]));
		if (asks)
			(void)waiter_hold(&c->mark[i], ap.j.path,
			    c->plan.req[i].key, c->opened_by[i], c->who.name);
		hook_event(&ev, &c->who, &c->plan.req[i], asks ? expires :
		    NULL, c->opened_by[i]);
		apply_event(&ap, i + 1, &ev);
		own_question(c, &ap, i, &why);
	}
	buf_free(&ev);
	if (!applier_commit(&ap)) {
		applier_close(&ap);
		give_up(c, "cancelled", "the journal did not take the %s "
		    "request", c->event);
	}
	for (i = 0; i < c->plan.nreq; i++)
		if (c->own[i])
			(void)waiter_claim(&c->mark[i], c->plan.req[i].key,
			    c->opened_by[i], c->who.name, c->own_id[i]);
	applier_close(&ap);
	if (why != NULL)
		give_up(c, "cancelled", "arc-apply did not take the %s request "
		    "(%s)", c->event, why);
}

/*
 * For the wait, which may last minutes with a payload read: writes only
 * in the journal's folder (its marks, the receipt, a compaction's files).
 */
static void
narrow(void)
{
	char	*path = journal_default_path(NULL);

	(void)narrow_writes_beside(path);
	free(path);
}

/* Waits for every question, in order, within one deadline. */
static void
wait_answers(struct call *c)
{
	char		 id[SETTLE_ID_MAX];
	int64_t		 deadline = monotonic_ms() + c->timeout * 1000, left;
	const struct jval *r;
	size_t		 i;

	for (i = 0; i < c->plan.nreq; i++) {
		if (stopped)
			break;
		if ((left = deadline - monotonic_ms()) < 1000)
			left = 1000;
		/* the settled record, parsed into the answers' arena */
		switch (settle_wait(&c->settle, NULL, c->plan.req[i].key,
		    left + 5000, c->stop, &c->answers, &r, id)) {
		case SETTLED_ANSWERED:
			if (!c->own[i] ||
			    !json_is(json_get(r, "id"), c->own_id[i]) ||
			    !json_is(json_get(r, "digest"), c->own_digest[i]))
				give_up(c, "cancelled", "the answer is to "
				    "another hook's question under the same "
				    "key; %s asks in its own dialog",
				    c->who.name);
			c->answer[i] = r;
			break;
		case SETTLED_OTHER:
			give_up(c, "cancelled", "no answer; the question is now "
			    "%s", json_get(r, "status") != NULL ?
			    hook_line(&c->answers, json_get(r, "status")) :
			    "gone");
			break;
		case SETTLED_NO_JOURNAL:
		case SETTLED_NO_QUESTION:
		case SETTLED_NOTICE:
			give_up(c, "cancelled", "no answer; the question is now "
			    "gone");
			break;
		case SETTLED_TIMEOUT:
			give_up(c, "expired", "no answer in %llds",
			    (long long)c->timeout);
			break;
		case SETTLED_STOPPED:
			break;
		case SETTLED_FAILED:
			give_up(c, "cancelled", "waiting for the answer failed");
			break;
		}
	}
	if (stopped)
		give_up(c, "cancelled", "stopped by a signal; the question is "
		    "withdrawn");
}

static bool
read_payload(struct buf *b)
{
	ssize_t n;

	for (;;) {
		buf_reserve(b, 65536);
		n = read(STDIN_FILENO, b->p + b->len, 65536);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return false;
		if (n == 0)
			return true;
		b->len += (size_t)n;
		b->p[b->len] = '\0';
		if (b->len > HOOK_PAYLOAD_MAX)
			return true;	/* too long: refused as it parses */
	}
}

/* The hook's timeout (ARC_HOOK_TIMEOUT), in seconds. */
static int64_t
hook_timeout(void)
{
	const char	*s = getenv("ARC_HOOK_TIMEOUT");
	int64_t		 t;

	if (s == NULL)
		return TIMEOUT_DEFAULT;
	if ((t = parse_duration(s)) > 0)
		return t;
	say("ARC_HOOK_TIMEOUT is not a duration such as 300, 90s, 10m or 1w; "
	    "waiting %d seconds", TIMEOUT_DEFAULT);
	return TIMEOUT_DEFAULT;
}

static void
setup_signals(struct call *c)
{
	struct sigaction	 sa;
	int			 p[2];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	(void)sigaction(SIGPIPE, &sa, NULL);
	c->stop = -1;
	if (pipe2(p, O_CLOEXEC) == 0) {
		stop_reader = p[0];
		c->stop = p[1];
	}
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	(void)sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
}

/*
 * The event's name for messages: letters only, else "unnamed" (Copilot
 * CLI's: hookName, or the event its hooks file gave the command).
 */
static const char *
event_named(struct arena *a, const struct jval *payload)
{
	const char	*e = hook_clip(a, hook_line(a, json_get(payload,
			    "hook_event_name")), 64);
	size_t		 n;

	if (*e == '\0')
		e = hook_clip(a, hook_line(a, json_get(payload, "hookName")),
		    64);
	if (*e == '\0' && getenv("ARC_HOOK_EVENT") != NULL)
		e = hook_clip(a, getenv("ARC_HOOK_EVENT"), 64);
	n = strlen(e);

	if (n < 1 || n > 40 || strspn(e, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz") != n)
		return "unnamed";
	return e;
}

static int
hook(const struct host *h)
{
	struct call	 c;
	struct buf	 in = { 0 }, out = { 0 };
	const char	*pane = getenv("TMUX_PANE"), *tmux = getenv("TMUX");
	const char	*why;

	memset(&c, 0, sizeof(c));
	c.host = h;
	c.who.client = h->client;
	c.who.name = h->title;
	setup_signals(&c);
	if (pane != NULL && *pane != '\0' && tmux != NULL && *tmux != '\0') {
		c.who.tmux_pane = pane;
		c.who.tmux_socket = hook_printf(&c.arena, "%.*s",
		    (int)strcspn(tmux, ","), tmux);
	}
	c.timeout = h->timed ? hook_timeout() : TIMEOUT_DEFAULT;
	c.event = "unnamed";
	if (!read_payload(&in))
		give_up(&c, "cancelled", "cannot read the payload");
	if ((c.payload = hook_payload(&c.arena, in.p ? in.p : "", in.len,
	    &why)) == NULL)
		give_up(&c, "cancelled", "%s", why);
	c.event = event_named(&c.arena, c.payload);
	if (!h->plan(&c.arena, c.payload, &c.who, &c.plan))
		give_up(&c, "cancelled", "cannot make sense of the %s payload",
		    c.event);
	if (stopped)
		give_up(&c, "cancelled", "stopped by a signal; nothing was "
		    "asked");
	if (!c.plan.known) {	/* said: the settings may name another */
		if (strcmp(c.event, "unnamed") == 0)
			say("the payload's hook_event_name is missing or not "
			    "a name; nothing done");
		else
			say("%s: not an event arc-hook %s acts on; nothing "
			    "done", c.event, h->name);
		goto done;
	}
	if (c.plan.refused != NULL) {	/* the host asks in its own dialog */
		say("%s: %s; %s asks in its own dialog", c.event,
		    c.plan.refused, c.who.name);
		goto done;
	}
	if (c.plan.nreq == 0 && !c.plan.sweep && c.plan.nresolve == 0 &&
	    c.plan.nprefix == 0)
		goto done;	/* nothing to do: no journal opened */
	apply_plan(&c);
	if (c.plan.wait == WAIT_NONE || c.plan.nreq == 0)
		goto done;
	narrow();
	wait_answers(&c);
	if (h->reply == NULL || !h->reply(&out, &c.arena, c.payload, &c.who,
	    &c.plan, c.answer))
		give_up(&c, "cancelled", "cannot turn the answer into %s's "
		    "format", c.who.name);
	if (stopped)
		give_up(&c, "cancelled", "stopped by a signal; the question is "
		    "withdrawn");
	buf_putc(&out, '\n');
	hand_over(&c, &out);
done:
	release_marks(&c);
	finished = true;
	buf_free(&in);
	buf_free(&out);
	arena_free(&c.answers);
	arena_free(&c.arena);
	return 0;
}

static const char usage[] =
"usage: arc-hook host\n"
"       arc-hook --settings host [--prefix dir] [--toml]\n"
"       arc-hook --install host [--prefix dir] [--file path]\n"
"       arc-hook --uninstall host [--file path]\n"
"\n"
"Runs as the host's hook: its JSON payload on standard input becomes ARC\n"
"requests; for a question, the person's decision is printed in the host's\n"
"format.  On any failure of its own it prints nothing and exits 0.  Hosts:\n"
"claude-code, codex, gemini, copilot.\n"
"\n"
"  --settings host       print the hooks for the host's settings file\n"
"  --install host        merge them into the host's settings file, keeping\n"
"                        every other hook; the file as it was in\n"
"                        FILE.arc-backup\n"
"  --uninstall host      take arc's hooks out of it again\n"
"  --prefix dir          arc-hook is in dir/bin\n"
"                        (default: the folder this arc-hook is in)\n"
"  --file path           with --install or --uninstall: this settings file\n"
"                        (default: the host's own, in your home)\n"
"  --toml                with --settings codex: as config.toml tables\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

int	hook_main(int, char **);	/* arcmain.c calls it */

/*
 * The folder this program is in, as the kernel started it (symbolic links
 * followed): the settings name the arc-hook that printed them, wherever
 * make install (or a package, or a build tree) put it.
 */
static bool
own_folder(struct buf *dir)
{
	char	 path[PATH_MAX], *slash;
	ssize_t	 n;

	if ((n = readlink("/proc/self/exe", path, sizeof(path) - 1)) == -1) {
		warn("/proc/self/exe; give --prefix");
		return false;
	}
	path[n] = '\0';
	if ((size_t)n == sizeof(path) - 1 ||	/* perhaps cut short */
	    (slash = strrchr(path, '/')) == NULL || path[0] != '/') {
		warnx("cannot tell the folder arc-hook is in; give --prefix");
		return false;
	}
	buf_put(dir, path, slash == path ? 1 : (size_t)(slash - path));
	if (hook_has_control(dir->p)) {
		warnx("the folder arc-hook is in has a control character in "
		    "its name, which cannot be written into a hook's command; "
		    "give --prefix");
		return false;
	}
	return true;
}

int
hook_main(int argc, char **argv)
{
	enum { O_SETTINGS = 256, O_PREFIX, O_TOML, O_INSTALL, O_UNINSTALL,
	    O_FILE };
	static const struct option longopts[] = {
		{ "settings", required_argument, NULL, O_SETTINGS },
		{ "install", required_argument, NULL, O_INSTALL },
		{ "uninstall", required_argument, NULL, O_UNINSTALL },
		{ "prefix", required_argument, NULL, O_PREFIX },
		{ "file", required_argument, NULL, O_FILE },
		{ "toml", no_argument, NULL, O_TOML },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*host = NULL, *prefix = NULL, *file = NULL;
	struct buf	 bindir = { 0 }, shown = { 0 }, text = { 0 };
	char		*path;
	size_t		 i;
	int		 ch, status, verb = 0, verbs = 0;
	bool		 toml = false;

	while ((ch = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (ch) {
		case O_SETTINGS:
		case O_INSTALL:
		case O_UNINSTALL:
			host = optarg;
			verb = ch;
			verbs++;
			break;
		case O_PREFIX: prefix = optarg; break;
		case O_FILE: file = optarg; break;
		case O_TOML: toml = true; break;
		default:
			if (common_option(ch, usage, &status))
				return status;
			break;
		}
	}
	if (verbs == 0) {
		/* a hook: whatever happens, exit 0 (2 would deny) */
		if (atexit(exit_zero) != 0 || argc - optind != 1 ||
		    prefix != NULL || file != NULL || toml) {
			usage_print(stderr, usage, false);
			return 0;
		}
		for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
			if (strcmp(argv[optind], hosts[i].name) == 0)
				return hook(&hosts[i]);
		warnx("%s: no such host (claude-code, codex, gemini or copilot); the "
		    "host asks in its own dialog", safe(&shown, argv[optind]));
		buf_free(&shown);
		return 0;
	}
	if (verbs > 1)
		return usage_error(usage, "one of --settings, --install and "
		    "--uninstall");
	if (optind != argc)
		return usage_error(usage, "--settings, --install and "
		    "--uninstall take no operand");
	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
		if (strcmp(host, hosts[i].name) == 0)
			break;
	if (i == sizeof(hosts) / sizeof(hosts[0]))
		return usage_error(usage, "%s: no such host (claude-code, "
		    "codex, gemini or copilot)", safe(&shown, host));
	if (toml && (verb != O_SETTINGS || strcmp(host, "codex") != 0))
		return usage_error(usage, "--toml: with --settings codex only "
		    "(Codex's config.toml)");
	if (file != NULL && verb == O_SETTINGS)
		return usage_error(usage, "--file: with --install or "
		    "--uninstall");
	if (prefix != NULL && verb == O_UNINSTALL)
		return usage_error(usage, "--prefix: --uninstall takes out "
		    "arc's hooks wherever they run it from");
	if (prefix != NULL) {
		if (hook_has_control(prefix))
			return usage_error(usage, "--prefix: a folder with a "
			    "control character in its name cannot be written "
			    "into a hook's command");
		buf_printf(&bindir, "%s/bin", prefix);
	} else if (!own_folder(&bindir))
		return EXIT_SYSTEM;
	if (verb == O_SETTINGS) {
		settings_text(&text, host, bindir.p, toml);
		write_stdout(&text);
		flush_stdout();
		buf_free(&text);
		buf_free(&bindir);
		return 0;
	}
	if ((path = file != NULL ? strdup(file) : settings_path(host)) ==
	    NULL) {
		buf_free(&bindir);
		if (file != NULL)
			err(EXIT_SYSTEM, "strdup");
		warnx("HOME is not set to a folder; give --file");
		return EXIT_USAGE;
	}
	status = settings_install(host, bindir.p, path, verb == O_UNINSTALL);
	if (status == 0 && verb == O_INSTALL && strcmp(host, "codex") == 0)
		printf("Codex asks you to review and trust new hooks when it "
		    "starts: arc does not do that for you.\n");
	if (fflush(stdout) == EOF && status == 0)
		status = EXIT_SYSTEM;
	free(path);
	buf_free(&bindir);
	return status;
}
