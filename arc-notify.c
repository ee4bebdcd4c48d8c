/*
 * arc-notify: reach the person where they are.  Follows the journal with
 * the iterator arc-status --follow prints (arcfollow.h), in this process:
 * each change comes typed, its records as trees, polled beside the
 * session bus; and delivers each condition that needs the person
 * according to a policy (arcnotify.conf, arc-notify.conf(5)): a desktop notification over the freedesktop
 * protocol on the session bus, with one button per choice; a tmux status
 * refresh; a command.  Every delivery is taken back when the condition
 * settles, wherever it was settled.
 *
 * A button press answers here, through the applier, as the page does
 * (answer_seen, arcvia.c), bound to the digest the notification showed:
 * an action's key is "TAG/N", the question's tag (16 hex digits of its
 * digest) and the choice's place.  A press whose tag is not the current
 * question's is refused here, and again under the journal's lock; either
 * way the current question is shown again.
 *
 * D-Bus through sd-bus (libsystemd): one connection object, typed
 * message building with sd_bus_message_append ("a{sv}" hints in a line),
 * a pollable fd and match callbacks for the signals, and no main loop
 * imposed.  It is linked into this binary alone, so arc's other commands
 * never load libsystemd.
 *
 * Restarts: the ids of the notifications shown are kept in a small file
 * beside the journal (JOURNAL.notify); a start closes every one of them
 * before showing what is open now, and an exit closes what it showed, so
 * that no condition is ever shown twice nor a settled one brought back.
 * The same file keeps which open conditions the exec sink has had (a hash
 * of each one's key and creation), across exits too: a restart does not
 * push again what a phone already has, nor retry a failure given up.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "arc.h"
#include "arcterm.h"
#include "arcwords.h"
#include "arcstate.h"
#include "arcbind.h"
#include "arcfilter.h"
#include "arcusage.h"
#include "arcvia.h"
#include "arctmux.h"
#include "arcnotifyconf.h"
#include "arcjournal.h"
#include "arcoffdevice.h"
#include "arcspawn.h"
#include "arcview.h"
#include "arcdelivery.h"
#include "arcntfy.h"
#include "arcfollow.h"


#define NOTIFY_DEST	"org.freedesktop.Notifications"
#define NOTIFY_PATH	"/org/freedesktop/Notifications"
#define NOTIFY_IFACE	"org.freedesktop.Notifications"
#define LINE_MAX_BYTES	(4 * 1024 * 1024)
#define ACTIONS_MAX	16	/* buttons sent; the server shows what it can */
/* A popup's room for a question's message (arc-notify(1), "The room"). */
#define DESKTOP_CHARS	600
#define DESKTOP_LINES	12
#define TRIES_MAX	3	/* deliveries tried, then a failure stands */
#define RETRY_MS	1000	/* the first retry; then 4 times longer */
#define FOCUS_MS	2000	/* a pane in focus: look again this soon */
#define GONE_MS		30000	/* no server: try again this soon anyway */
#define RECEIPT_MS	8000	/* a receipt's notice, then it goes */
#define SOCKETS_MAX	8	/* tmux servers refreshed besides the default */
#define SENT_MARK	32	/* hex digits of a condition's mark */
#define SENT_MAX	4096	/* marks read back; a state file holds no more */
#define RECEIPTS_MAX	32	/* answers pushed whose receipt may follow */

static const char usage[] =
"usage: arc-notify [-j journal] [-f config] [-n]\n"
"       arc-notify --ntfy-setup [server]\n"
"\n"
"  -j journal  the journal to watch (default: $ARC_JOURNAL, else the usual)\n"
"  -f config   the policy (default: $XDG_CONFIG_HOME/arc/notify.conf)\n"
"  -n          check the config, print the rules as read, and exit\n"
"  --ntfy-setup [server]  print the lines and steps for ntfy (ntfy.sh)\n"
"  -h, --help  this text\n"
"  -V, --version  the version\n";

/* One condition that is active, as the follow stream last told it. */
struct cond {
	char		*key;
	struct arena	 arena;		/* its records as last told, parsed: */
	const struct jval *n, *i;	/* notification, interaction (or NULL) */
	bool		 question;	/* an interaction that is pending */
	char		 tag[TAG_SHOWN + 1];
	char		 created[40];
	uint32_t	 nid;		/* the desktop notification, or 0 */
	char		 shown_tag[TAG_SHOWN + 1];	/* what nid shows */
	int		 shown_waiting;	/* and whether it said anyone waits */
	int64_t		 shown_at;	/* ms, ARC clock: last shown */
	bool		 execd;		/* the exec sink ran for it */
	bool		 exec_known;	/* execd read from the state file */
	bool		 dismissed;	/* the person closed the toast */
	struct tmux_where where;	/* where the agent runs (x-arc), */
	bool		 has_where;	/* when it said so */
	char		 window[16];	/* its tmux window, once asked */
	struct conf_subject subject;	/* what the rules match */
	struct view	 view;		/* what a person is shown (arcview.c) */
	bool		 has_view;
	struct try {			/* a sink's deliveries that failed */
		unsigned	 tries;
		int64_t		 retry_at;	/* ms; 0: none due */
		bool		 gave_up;
		char		 why[160];	/* our words; "" none */
		char		 at[40];
	}		 desk_try, exec_try, ntfy_try;
	/* ntfy: the question pushed (its tag) and when; "" none */
	bool		 ntfy_sent;
	bool		 ntfy_known;	/* ntfy_sent read from the state file */
	char		 ntfy_tag[TAG_SHOWN + 1];
	int64_t		 ntfy_at;
	bool		 ntfy_again;	/* pushed again for a stale tap */
};

struct notifier {
	const char	*journal;	/* -j, or NULL */
	char		*statefile;
	struct conf	 conf;
	sd_bus		*bus;
	struct cond	**c;
	size_t		 nc, capc;
	bool		 synced;
	struct follower	*follow;	/* the journal's changes */
	int64_t		 gone_at;	/* ms: the server went away; 0 here */
	bool		 bus_lost;	/* the session bus itself went away */
	char		*deliveryfile;	/* failures standing (arcdelivery.c) */
	struct offdevice off;		/* what the exec sink may send */
	bool		 off_ok;	/* the setting was read */
	char		 owner[256];	/* the server's unique name; "" none */
	uint64_t	 forged;	/* signals from others, ignored */
	/* the exec sink's conditions an earlier run had (state file) */
	char		(*sent)[SENT_MARK + 1];
	size_t		 nsent;
	/* ntfy: the server, the reader of the answer topic, where it is */
	struct ntfy	*ntfy;
	pid_t		 ntfy_child;
	int		 ntfy_fd;
	char		 ntfy_since[64];	/* a message id or a Unix time */
	char		(*pushed)[SENT_MARK + 1];	/* an earlier run's */
	size_t		 npushed;
	uint64_t	 taps_ignored;	/* for keys never pushed, or stale */
	int64_t		 ntfy_down_until;	/* ms: a publish failed */
	int64_t		 ntfy_started;	/* ms: the reader's last start */
	/* questions pushed and answered, whose receipt the phone awaits */
	char		*awaiting[RECEIPTS_MAX];
	size_t		 nawaiting;
};

/* The signals that end arc-notify: each sets quit, caught in the loop. */
static const int stop_signals[] = { SIGTERM, SIGINT, SIGHUP };
static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static struct cond *
cond_find(struct notifier *nt, const char *key)
{
	size_t	i;

	for (i = 0; i < nt->nc; i++)
		if (strcmp(nt->c[i]->key, key) == 0)
			return nt->c[i];
	return NULL;
}

static struct cond *
cond_by_nid(struct notifier *nt, uint32_t nid)
{
	size_t	i;

	for (i = 0; nid != 0 && i < nt->nc; i++)
		if (nt->c[i]->nid == nid)
			return nt->c[i];
	return NULL;
}

static void
cond_drop(struct notifier *nt, struct cond *c)
{
	size_t	i;

	for (i = 0; i < nt->nc; i++)
		if (nt->c[i] == c) {
			nt->c[i] = nt->c[--nt->nc];
			break;
		}
	arena_free(&c->arena);
	free(c->key);
	free(c);
}

static const char *
str_of(struct arena *a, const struct jval *obj, const char *name)
{
	const struct jval *v = obj != NULL ? json_get(obj, name) : NULL;

	if (v == NULL || v->type != J_STRING)
		return NULL;
	return sv_cstr(a, sv_json(v));
}

/* ---- the clock ---- */

static int64_t
now_ms(void)
{
	return rfc3339_ms_between("1970-01-01T00:00:00Z", arc_now_advancing());
}

/* Minutes since local midnight, by the ARC clock (ARC_NOW in tests). */
static int
local_minutes(void)
{
	time_t		t = (time_t)(now_ms() / 1000);
	struct tm	tm;

	if (localtime_r(&t, &tm) == NULL)
		return 0;
	return tm.tm_hour * 60 + tm.tm_min;
}

/* ---- failed deliveries: retried, bounded, and recorded ---- */

/* Every failure standing, to the file arc-status reads. */
static void
failures_save(struct notifier *nt)
{
	struct delivery_failure	*v;
	size_t			 i, n = 0;

	if ((v = calloc(3 * nt->nc + 1, sizeof(*v))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	for (i = 0; i < nt->nc; i++) {
		struct cond *c = nt->c[i];
		if (c->desk_try.why[0] != '\0')
			v[n++] = (struct delivery_failure){ c->key, "desktop",
			    c->desk_try.why, c->desk_try.at, c->desk_try.tries,
			    c->desk_try.gave_up };
		if (c->exec_try.why[0] != '\0')
			v[n++] = (struct delivery_failure){ c->key, "exec",
			    c->exec_try.why, c->exec_try.at, c->exec_try.tries,
			    c->exec_try.gave_up };
		if (c->ntfy_try.why[0] != '\0')
			v[n++] = (struct delivery_failure){ c->key, "ntfy",
			    c->ntfy_try.why, c->ntfy_try.at, c->ntfy_try.tries,
			    c->ntfy_try.gave_up };
	}
	(void)delivery_save(nt->deliveryfile, v, n);
	free(v);
}

/*
 * A delivery failed: tried again after RETRY_MS, then 4 times longer,
 * TRIES_MAX times in all; the failure stands, visible in arc-status,
 * until one succeeds or the condition settles or changes.
 */
static void
failed(struct notifier *nt, struct cond *c, struct try *t, const char *sink,
    const char *why)
{
	struct buf	 b = { 0 };

	t->tries++;
	t->gave_up = t->tries >= TRIES_MAX;
	t->retry_at = t->gave_up ? 0 : now_ms() + ((int64_t)RETRY_MS <<
	    (2 * (t->tries - 1)));
	b.len = 0;
	term_safe(&b, why, strlen(why));
	(void)strlcpy(t->why, b.p != NULL ? b.p : "", sizeof(t->why));
	(void)strlcpy(t->at, arc_now_advancing(), sizeof(t->at));
	warnx("%s: the %s sink failed: %s (%u of %d tries)", safe(&b,
	    c->key), sink, t->why, t->tries, TRIES_MAX);
	buf_free(&b);
	failures_save(nt);
}

static void
succeeded(struct notifier *nt, struct try *t)
{
	bool had = t->why[0] != '\0';

	memset(t, 0, sizeof(*t));
	if (had)
		failures_save(nt);
}

/* ---- the state file: notification ids shown, exec deliveries ---- */

/*
 * A condition as the state file names it: its key and creation, hashed;
 * for ntfy with the tag of the question pushed, which a change renews.
 */
static void
sent_mark(const struct cond *c, const char *tag, char out[SENT_MARK + 1])
{
	struct buf	b = { 0 };
	char		hex[ARC_HEX_DIGEST];

	buf_puts(&b, c->key);
	buf_putc(&b, '\n');
	buf_puts(&b, c->created);
	if (tag != NULL) {
		buf_putc(&b, '\n');
		buf_puts(&b, tag);
	}
	sha256_hex(b.p, b.len, hex);
	memcpy(out, hex, SENT_MARK);
	out[SENT_MARK] = '\0';
	buf_free(&b);
}

/*
 * Lines: a desktop notification's id, or "x MARK" for a condition the
 * exec sink has had.  Until the stream is synced, the marks read back
 * that no condition has claimed yet are kept too.  Nothing to keep: no
 * file.
 */
static void
state_save(struct notifier *nt)
{
	struct buf	b = { 0 };
	char		*tmp, mark[SENT_MARK + 1];
	size_t		 i;
	int		 fd;

	for (i = 0; i < nt->nc; i++) {
		if (nt->c[i]->nid != 0)
			buf_printf(&b, "%u\n", nt->c[i]->nid);
		if (nt->c[i]->execd && nt->c[i]->created[0] != '\0') {
			sent_mark(nt->c[i], NULL, mark);
			buf_printf(&b, "x %s\n", mark);
		}
		if (nt->c[i]->ntfy_sent && nt->c[i]->created[0] != '\0') {
			sent_mark(nt->c[i], nt->c[i]->ntfy_tag, mark);
			buf_printf(&b, "n %s\n", mark);
		}
	}
	for (i = 0; !nt->synced && i < nt->nsent; i++)
		if (nt->sent[i][0] != '\0')	/* not claimed by a condition */
			buf_printf(&b, "x %s\n", nt->sent[i]);
	for (i = 0; !nt->synced && i < nt->npushed; i++)
		if (nt->pushed[i][0] != '\0')
			buf_printf(&b, "n %s\n", nt->pushed[i]);
	if (nt->ntfy != NULL)	/* where the answer topic is read from */
		buf_printf(&b, "t %s\n", nt->ntfy_since);
	if (b.len == 0) {
		if (unlink(nt->statefile) == -1 && errno != ENOENT)
			warn("%s", nt->statefile);
		return;
	}
	if ((fd = open_temporary(nt->statefile, "notify", &tmp)) == -1) {
		warn("%s", nt->statefile);
		buf_free(&b);
		return;
	}
	if (!write_all(fd, b.p, b.len) || close(fd) == -1 ||
	    rename(tmp, nt->statefile) == -1) {
		warn("%s", nt->statefile);
		(void)unlink(tmp);
	}
	free(tmp);
	buf_free(&b);
}

static void	desktop_close(struct notifier *, uint32_t);

static void
marks_add(char (**v)[SENT_MARK + 1], size_t *n, const char *mark)
{
	if (*n == SENT_MAX)
		return;
	if ((*v = reallocarray(*v, *n + 1, sizeof(**v))) == NULL)
		err(EXIT_SYSTEM, "reallocarray");
	memcpy((*v)[(*n)++], mark, SENT_MARK + 1);
}

/*
 * Closes what an earlier run showed and did not take back, and reads
 * back which conditions the exec sink and ntfy have had, and where the
 * answer topic was read to.
 */
static void
state_restore(struct notifier *nt)
{
	FILE		*fp;
	char		 line[64];
	const char	*errstr;
	long long	 id;
	size_t		 n;

	if ((fp = fopen(nt->statefile, "r")) == NULL) {
		if (errno != ENOENT)
			warn("%s", nt->statefile);
		return;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		n = strlen(line);
		if (n == 2 + SENT_MARK && line[0] == 'x' && line[1] == ' ' &&
		    strspn(line + 2, "0123456789abcdef") == SENT_MARK) {
			marks_add(&nt->sent, &nt->nsent, line + 2);
			continue;
		}
		if (n == 2 + SENT_MARK && line[0] == 'n' && line[1] == ' ' &&
		    strspn(line + 2, "0123456789abcdef") == SENT_MARK) {
			marks_add(&nt->pushed, &nt->npushed, line + 2);
			continue;
		}
		if (n > 2 && n - 2 < sizeof(nt->ntfy_since) && line[0] == 't' &&
		    line[1] == ' ' && strspn(line + 2, "abcdefghijklmnopqrstuv"
		    "wxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == n - 2) {
			memcpy(nt->ntfy_since, line + 2, n - 1);
			continue;
		}
		id = strtonum(line, 1, UINT32_MAX, &errstr);
		if (errstr == NULL)
			desktop_close(nt, (uint32_t)id);
	}
	(void)fclose(fp);
}

/* Whether an earlier run's exec sink had this condition (once asked). */
static bool
sent_before(struct notifier *nt, struct cond *c)
{
	char	 mark[SENT_MARK + 1];
	size_t	 i;

	if (c->exec_known || c->created[0] == '\0')
		return c->execd;
	c->exec_known = true;
	sent_mark(c, NULL, mark);
	for (i = 0; i < nt->nsent; i++)
		if (strcmp(nt->sent[i], mark) == 0) {
			nt->sent[i][0] = '\0';	/* its condition writes it now */
			c->execd = true;
			return true;
		}
	return false;
}

/* Whether this question, as it is now, was pushed (by an earlier run). */
static bool
pushed_before(struct notifier *nt, struct cond *c)
{
	char	 mark[SENT_MARK + 1];
	size_t	 i;

	if (c->ntfy_sent)
		return strcmp(c->ntfy_tag, c->tag) == 0;
	if (c->ntfy_known || c->created[0] == '\0')
		return false;
	c->ntfy_known = true;
	sent_mark(c, c->tag, mark);
	for (i = 0; i < nt->npushed; i++)
		if (strcmp(nt->pushed[i], mark) == 0) {
			nt->pushed[i][0] = '\0';
			c->ntfy_sent = true;
			(void)strlcpy(c->ntfy_tag, c->tag, sizeof(c->ntfy_tag));
			c->ntfy_at = now_ms();
			return true;
		}
	return false;
}

/* ---- running commands ---- */

/* Waits for a child of ours to end; its wait status, or -1. */
static int
reap(pid_t pid)
{
	int	 st;

	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	return st;
}

/* Runs argv, its stdin from text (or /dev/null); its exit status. */
enum quiet_out { LOUD, QUIET_STDOUT, QUIET_ALL };

static int
run(char *const argv[], const char *text, size_t len, enum quiet_out quiet_out)
{
	pid_t				 pid;
	int				 p[2] = { -1, -1 }, st;

	if (text != NULL && pipe2(p, O_CLOEXEC) == -1)
		err(EXIT_SYSTEM, "pipe2");
	pid = spawn_start(argv[0], argv, text != NULL ? p[0] : SPAWN_NULL,
	    quiet_out ? SPAWN_NULL : SPAWN_OURS, quiet_out == QUIET_ALL ?
	    SPAWN_NULL : SPAWN_OURS, true);
	if (p[0] != -1)
		(void)close(p[0]);
	if (pid == -1) {
		if (p[1] != -1)
			(void)close(p[1]);
		warn("%s", argv[0]);
		return -1;
	}
	if (p[1] != -1) {
		(void)write_all(p[1], text, len);
		(void)close(p[1]);
	}
	if ((st = reap(pid)) == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- the tmux sink ---- */

/*
 * refresh-client -S on the default server (or $TMUX's) and on each server
 * an agent said it runs under: the status line is current at once, and
 * its #(arc-status) run again, instead of after status-interval.
 */
static void
tmux_refresh(struct notifier *nt)
{
	const char *const args[] = { "refresh-client", "-S", NULL };
	const char	*seen[SOCKETS_MAX];
	size_t		 i, k, n = 0;

	if (!conf_tmux(&nt->conf))
		return;
	(void)tmux_run(NULL, args, NULL, 0);
	for (i = 0; i < nt->nc; i++) {
		if (!nt->c[i]->has_where)
			continue;
		for (k = 0; k < n; k++)
			if (strcmp(seen[k], nt->c[i]->where.socket) == 0)
				break;
		if (k < n || n == SOCKETS_MAX)
			continue;
		seen[n++] = nt->c[i]->where.socket;
		(void)tmux_run(seen[n - 1], args, NULL, 0);
	}
}

/*
 * The window's user option @arc_waiting: how many questions wait in the
 * panes of the window of c's pane (unset at none), for a
 * window-status-format such as #{?@arc_waiting,!,}.
 */
static void
tmux_window_mark(struct notifier *nt, struct cond *c)
{
	char		 count[24];
	const char	*args[] = { "set-option", "-w", "-t", NULL,
	    "@arc_waiting", NULL, NULL };
	size_t		 i, n = 0;

	if (!c->has_where || !conf_tmux(&nt->conf))
		return;
	if (c->window[0] == '\0' && !tmux_window_of(&c->where, c->window,
	    sizeof(c->window)))
		return;
	for (i = 0; i < nt->nc; i++)
		if (nt->c[i]->question && nt->c[i]->has_where &&
		    strcmp(nt->c[i]->window, c->window) == 0 &&
		    strcmp(nt->c[i]->where.socket, c->where.socket) == 0)
			n++;
	(void)snprintf(count, sizeof(count), "%zu", n);
	args[1] = n > 0 ? "-w" : "-wu";
	args[3] = c->window;
	args[5] = n > 0 ? count : NULL;
	(void)tmux_run(c->where.socket, args, NULL, 0);
}

/* ---- the exec sink ---- */

/*
 * The condition as a command gets it: the view a person is shown
 * (arcview.c), within the off-device setting, since a command is the way
 * to a push server; never a nonce or a digest.
 */
static int
exec_sink(struct notifier *nt, struct cond *c, const char *cmd, bool back)
{
	char *const	 argv[] = { "sh", "-c", (char *)cmd, NULL };
	struct arena	 a = { 0 };
	struct buf	 b = { 0 };
	struct view	 v;
	int		 rc;

	if (back)
		buf_printf(&b, "{\"change\":\"taken_back\",\"key\":");
	else
		buf_printf(&b, "{\"change\":\"deliver\",\"key\":");
	buf_json_cstr(&b, c->key);
	if (!back) {
		if (!nt->off_ok || !view_from_json(&v, &a, sv_str(c->key),
		    c->n, c->question ? c->i : NULL, &nt->off)) {
			arena_free(&a);
			buf_free(&b);
			return -2;	/* nothing may leave */
		}
		buf_puts(&b, ",\"view\":");
		view_json(&b, &v, arc_now_advancing());
	}
	buf_puts(&b, "}\n");
	rc = run(argv, b.p, b.len, LOUD);
	arena_free(&a);
	buf_free(&b);
	return rc;
}

/* ---- the desktop sink ---- */

/*
 * The view's safe text as the body's markup: entities for & < > " ',
 * nothing else to do (the view made it safe).
 */
static void
markup(struct buf *b, struct sv v)
{
	view_html(b, v);
}

static uint8_t
urgency(const char *priority)
{
	if (priority == NULL || strcmp(priority, "normal") == 0)
		return 1;
	if (strcmp(priority, "low") == 0)
		return 0;
	return 2;	/* high, critical */
}

/* Choice k's id, which its answer names; NULL when it cannot be named. */
static const struct jval *
choice_id(const struct jval *choices, size_t k)
{
	const struct jval	*id;

	if (choices == NULL || choices->type != J_ARRAY || k >= choices->n)
		return NULL;
	id = json_get(choices->items[k], "id");
	if (id == NULL || id->type != J_STRING || memchr(id->s, '\0',
	    id->len) != NULL)
		return NULL;
	return id;
}

/*
 * Whether a question's message fits a popup whole; *room: the bytes of it
 * shown.  One that does not is shown as far as it fits, with a word of how
 * much is not, and with only the choices that refuse.
 */
static bool
desktop_fits(const struct view *v, size_t *room)
{
	*room = view_room(v, DESKTOP_CHARS, DESKTOP_LINES);
	return *room == v->message.n;
}

/*
 * What became of the hand-over of an answer the desktop asked: a short
 * notice that expires by itself ("Claude Code took it 1 ms later"), so
 * that the person sees the agent took the answer, or that it did not.
 */
static void
desktop_receipt(struct notifier *nt, const struct view *v)
{
	sd_bus_message	*m = NULL, *reply = NULL;
	sd_bus_error	 e = SD_BUS_ERROR_NULL;
	struct buf	 sum = { 0 }, body = { 0 };

	if (nt->bus == NULL || v->handover.p == NULL)
		return;
	view_summary(&sum, v);
	buf_putc(&sum, '\0');
	markup(&body, v->handover);
	buf_putc(&body, '\0');
	if (sd_bus_message_new_method_call(nt->bus, &m, NOTIFY_DEST,
	    NOTIFY_PATH, NOTIFY_IFACE, "Notify") < 0 ||
	    sd_bus_message_append(m, "susss", "arc", 0, "", sum.p,
	    body.p) < 0 ||
	    sd_bus_message_append(m, "as", 0) < 0 ||
	    sd_bus_message_append(m, "a{sv}", 2, "urgency", "y", 0,
	    "category", "s", "im") < 0 ||
	    sd_bus_message_append(m, "i", RECEIPT_MS) < 0 ||
	    sd_bus_call(nt->bus, m, 5 * 1000000ULL, &e, &reply) < 0)
		warnx("desktop notifications: a receipt was not shown");
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	buf_free(&sum);
	buf_free(&body);
}

static int
desktop_show(struct notifier *nt, struct cond *c, const struct rule *r)
{
	sd_bus_message	*m = NULL, *reply = NULL;
	sd_bus_error	 e = SD_BUS_ERROR_NULL;
	struct buf	 sum = { 0 }, body = { 0 }, key = { 0 }, lab = { 0 };
	const struct view *v = &c->view;
	const char	*sound, *kind;
	const struct jval *choices = NULL;
	char		 left[32];
	uint32_t	 id;
	size_t		 k, room;
	int		 rc;
	bool		 fits;

	if (!c->has_view)
		return -EINVAL;
	kind = str_of(&c->arena, c->n, "kind");
	view_summary(&sum, v);
	buf_putc(&sum, '\0');

	/* The question as it fits: message, each choice with its detail. */
	fits = desktop_fits(v, &room);
	markup(&body, (struct sv){ v->message.p, room });
	if (!fits)
		buf_printf(&body, "\n\xe2\x9f\xa8%zu of %zu characters not "
		    "shown here: open it in the terminal (arc-answer) or on "
		    "the page to allow it\xe2\x9f\xa9", view_chars(v->message.p +
		    room, v->message.n - room), view_chars(v->message.p,
		    v->message.n));
	for (k = 0; c->question && k < v->nchoices; k++) {
		if (!fits && !view_refuses(&v->choices[k]))
			continue;	/* not seen whole: never allowed here */
		/* all of them, numbered: a server may show fewer buttons */
		buf_printf(&body, "\n%zu) ", k + 1);
		markup(&body, v->choices[k].label);
		if (v->choices[k].detail.p != NULL) {
			buf_puts(&body, " \xe2\x80\x94 ");
			markup(&body, v->choices[k].detail);
		}
	}
	/* the key too: two alike questions are two notifications */
	buf_putc(&body, '\n');
	markup(&body, v->shown_key);
	if (c->question && v->expires_at != NULL) {
		/* the time, not "3m left": a notification stays as shown */
		deadline_words(left, sizeof(left), v->expires_at,
		    arc_now_advancing());
		buf_printf(&body, " \xc2\xb7 answer by %s", left);
	}
	/* its waiter gone (a script's, that may wait again): said */
	if (c->question && v->waiting == 0)
		buf_puts(&body, " \xc2\xb7 no one is waiting now");
	buf_putc(&body, '\0');

	sound = r->sound != NULL ? r->sound : c->question ?
	    "message-new-instant" : kind != NULL && (strcmp(kind,
	    "completion") == 0 || strcmp(kind, "information") == 0) ?
	    "complete" : "dialog-information";

	if ((rc = sd_bus_message_new_method_call(nt->bus, &m, NOTIFY_DEST,
	    NOTIFY_PATH, NOTIFY_IFACE, "Notify")) < 0)
		goto fail;
	if ((rc = sd_bus_message_append(m, "susss", "arc", c->nid, "",
	    sum.p, body.p)) < 0)
		goto fail;
	if ((rc = sd_bus_message_open_container(m, 'a', "s")) < 0)
		goto fail;
	if ((rc = sd_bus_message_append(m, "ss", "default", "Show")) < 0)
		goto fail;
	/* Buttons only for a question shown whole here (view_answerable). */
	if (c->question && view_answerable(v))
		/* not shown: the record's choices give the ids answers name */
		choices = json_get(c->i, "choices");
	for (k = 0; choices != NULL && choices->type == J_ARRAY &&
	    k < choices->n && k < ACTIONS_MAX && k < v->nchoices; k++) {
		if (choice_id(choices, k) == NULL ||
		    (!fits && !view_refuses(&v->choices[k])))
			continue;
		key.len = 0;
		buf_printf(&key, "%s/%zu", c->tag, k + 1);
		buf_putc(&key, '\0');
		lab.len = 0;
		buf_put(&lab, v->choices[k].label.p, v->choices[k].label.n);
		buf_putc(&lab, '\0');
		if ((rc = sd_bus_message_append(m, "ss", key.p, lab.p)) < 0)
			goto fail;
	}
	if ((rc = sd_bus_message_close_container(m)) < 0)
		goto fail;
	if ((rc = sd_bus_message_append(m, "a{sv}", 4,
	    "urgency", "y", urgency(priority_name(v->priority)),
	    "sound-name", "s", sound,
	    "category", "s", c->question ? "im.received" : "im",
	    "x-arc-key", "s", c->key)) < 0)
		goto fail;
	if ((rc = sd_bus_message_append(m, "i", 0)) < 0)	/* never expires */
		goto fail;
	if ((rc = sd_bus_call(nt->bus, m, 5 * 1000000ULL, &e, &reply)) < 0)
		goto fail;
	if ((rc = sd_bus_message_read(reply, "u", &id)) < 0)
		goto fail;
	/* the bus routed the call to the name's owner: that is the server */
	if (sd_bus_message_get_sender(reply) != NULL &&
	    strlen(sd_bus_message_get_sender(reply)) < sizeof(nt->owner))
		(void)strcpy(nt->owner, sd_bus_message_get_sender(reply));
	c->nid = id;
	c->dismissed = false;
	nt->gone_at = 0;
	memcpy(c->shown_tag, c->tag, sizeof(c->tag));
	c->shown_waiting = v->waiting;
	c->shown_at = now_ms();
	rc = 0;
fail:
	if (rc < 0 && (sd_bus_error_has_name(&e,
	    "org.freedesktop.DBus.Error.ServiceUnknown") ||
	    sd_bus_error_has_name(&e,
	    "org.freedesktop.DBus.Error.NameHasNoOwner") ||
	    sd_bus_error_has_name(&e, "org.freedesktop.DBus.Error.NoReply"))) {
		/* no server now: held until one owns the name again */
		if (nt->gone_at == 0)
			warnx("desktop notifications: no server on the "
			    "session bus; waiting for one");
		nt->gone_at = now_ms();
	} else if (rc < 0) {
		char why[160];

		(void)snprintf(why, sizeof(why), "refused by the server: %s",
		    e.message != NULL ? e.message : strerror(-rc));
		failed(nt, c, &c->desk_try, "desktop", why);
	} else
		succeeded(nt, &c->desk_try);
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	buf_free(&sum);
	buf_free(&body);
	buf_free(&key);
	buf_free(&lab);
	return rc;
}

static void
desktop_close(struct notifier *nt, uint32_t id)
{
	sd_bus_error	e = SD_BUS_ERROR_NULL;
	int		rc;

	if (nt->bus == NULL || id == 0)
		return;
	rc = sd_bus_call_method(nt->bus, NOTIFY_DEST, NOTIFY_PATH,
	    NOTIFY_IFACE, "CloseNotification", &e, NULL, "u", id);
	if (rc < 0 && !sd_bus_error_has_name(&e,
	    "org.freedesktop.DBus.Error.UnknownMethod"))
		/* an id the server no longer knows is not an error */
		(void)0;
	sd_bus_error_free(&e);
}

/* ---- the policy, applied ---- */

/*
 * What the rules match, read once per record (in its arena): the loop
 * judges every condition at each wake, and must not allocate each time.
 * Not shown: what a person sees is the view (c->view), never these.
 */
static void
describe(struct cond *c)
{
	struct conf_subject *s = &c->subject;

	memset(s, 0, sizeof(*s));
	s->question = c->question;
	s->kind = str_of(&c->arena, c->n, "kind");
	s->priority = str_of(&c->arena, c->n, "priority");
	s->agent = str_of(&c->arena, c->n, "agent_name");	/* not shown */
	if (s->agent == NULL)
		s->agent = str_of(&c->arena, c->n, "agent");
	s->project = str_of(&c->arena, c->n, "project");	/* not shown */
	s->session = str_of(&c->arena, c->n, "session_id");	/* not shown */
}

/*
 * Whether a rule that says "unfocused" holds c back: its pane is the one
 * the person looks at (tmux says so), so the agent's own screen asks.
 */
static bool
in_focus(const struct rule *r, struct cond *c)
{
	return r->unfocused && c->has_where && tmux_focused(&c->where) == 1;
}

/* How long it has been open, in ms. */
static int64_t
age_ms(struct cond *c)
{
	if (c->created[0] == '\0')
		return INT64_MAX;
	return rfc3339_ms_between(c->created, arc_now_advancing());
}

/* ---- the ntfy sink ---- */

/*
 * The view that leaves for the phone: within the off-device setting, as
 * the exec sink's; false when nothing may leave.
 */
static bool
phone_view(struct notifier *nt, struct view *v, struct arena *a,
    const char *key, const struct jval *n, const struct jval *i)
{
	return nt->off_ok && view_from_json(v, a, sv_str(key), n, i, &nt->off);
}

/* Pushes the question as it is now; the ms until a retry, or 0. */
static int64_t
ntfy_send(struct notifier *nt, struct cond *c)
{
	struct arena	 a = { 0 };
	struct view	 v;
	char		 why[160];
	bool		 ok;

	if (!phone_view(nt, &v, &a, c->key, c->n, c->question ? c->i : NULL)) {
		(void)strlcpy(why, "the off-device setting cannot be read: "
		    "nothing sent", sizeof(why));
		ok = false;
	} else
		ok = ntfy_push(nt->ntfy, &v, why, sizeof(why));
	arena_free(&a);
	if (ok) {
		if (strcmp(c->ntfy_tag, c->tag) != 0)
			c->ntfy_again = false;	/* a new version: its own */
		c->ntfy_sent = true;
		nt->ntfy_down_until = 0;
		(void)strlcpy(c->ntfy_tag, c->tag, sizeof(c->ntfy_tag));
		c->ntfy_at = now_ms();
		succeeded(nt, &c->ntfy_try);
		state_save(nt);
		return 0;
	}
	failed(nt, c, &c->ntfy_try, "ntfy", why);
	/*
	 * A publish waits for the server (at most 10 s): one that failed
	 * holds the others back a while, so that a server gone does not
	 * stall the loop once for every question.
	 */
	nt->ntfy_down_until = now_ms() + RETRY_MS;
	return c->ntfy_try.gave_up ? INT64_MAX : c->ntfy_try.retry_at -
	    now_ms();
}

static int64_t
ntfy_due(struct notifier *nt, struct cond *c, const struct rule *r,
    int64_t age)
{
	int64_t	 w;

	if (nt->ntfy == NULL || c->ntfy_try.gave_up)
		return INT64_MAX;	/* a failure stands (arc-status) */
	if (nt->ntfy_down_until > now_ms() && !pushed_before(nt, c))
		return nt->ntfy_down_until - now_ms();
	if (pushed_before(nt, c)) {
		if (r->remind_ms <= 0)
			return INT64_MAX;
		if ((w = c->ntfy_at + r->remind_ms - now_ms()) > 0)
			return w;
		/* a reminder: the question pushed anew */
	}
	if (age < r->delay_ms)
		return r->delay_ms - age;
	if (conf_quiet(&nt->conf, c->subject.priority, local_minutes()))
		return 60 * 1000;
	if (in_focus(r, c))
		return FOCUS_MS;
	if (c->ntfy_try.retry_at > now_ms())
		return c->ntfy_try.retry_at - now_ms();
	if ((w = ntfy_send(nt, c)) == 0)
		return r->remind_ms > 0 ? r->remind_ms : INT64_MAX;
	return w > 0 ? w : 1;
}

/*
 * Delivers what is due for one condition; the ms until something more is
 * due (INT64_MAX: nothing).
 */
static int64_t
deliver(struct notifier *nt, struct cond *c)
{
	const struct conf_subject *s = &c->subject;
	const struct rule	*r;
	int64_t			 age = age_ms(c), wait = INT64_MAX, w;

	if ((r = conf_match(&nt->conf, s, SINK_DESKTOP)) != NULL) {
		if (age < r->delay_ms)
			w = r->delay_ms - age;
		else if (conf_quiet(&nt->conf, s->priority, local_minutes()))
			w = 60 * 1000;	/* look again in a minute */
		else if (nt->gone_at != 0 && now_ms() - nt->gone_at < GONE_MS)
			w = nt->gone_at + GONE_MS - now_ms();
		else if (nt->bus == NULL || c->desk_try.gave_up)
			w = INT64_MAX;	/* a failure stands (arc-status) */
		else if (c->desk_try.retry_at > now_ms())
			w = c->desk_try.retry_at - now_ms();
		else if (c->nid == 0 && !c->dismissed && in_focus(r, c))
			w = FOCUS_MS;
		else if (c->nid == 0 && !c->dismissed) {
			(void)desktop_show(nt, c, r);
			state_save(nt);
			w = r->remind_ms > 0 ? r->remind_ms : INT64_MAX;
		} else if (c->nid != 0 && (strcmp(c->shown_tag, c->tag) != 0 ||
		    c->shown_waiting != c->view.waiting)) {
			(void)desktop_show(nt, c, r);	/* in place */
			w = r->remind_ms > 0 ? r->remind_ms : INT64_MAX;
		} else if (r->remind_ms > 0) {
			w = c->shown_at + r->remind_ms - now_ms();
			if (w <= 0) {	/* a reminder pops up anew */
				desktop_close(nt, c->nid);
				c->nid = 0;
				(void)desktop_show(nt, c, r);
				state_save(nt);
				w = r->remind_ms;
			}
		} else
			w = INT64_MAX;
		/* a refusal just now: woken for its retry, not by chance */
		if (c->desk_try.why[0] != '\0' && !c->desk_try.gave_up &&
		    c->desk_try.retry_at != 0 &&
		    c->desk_try.retry_at - now_ms() < w)
			w = c->desk_try.retry_at - now_ms() > 0 ?
			    c->desk_try.retry_at - now_ms() : 1;
		if (w < wait)
			wait = w;
	} else if (c->nid != 0) {	/* the policy no longer wants it */
		desktop_close(nt, c->nid);
		c->nid = 0;
		state_save(nt);
	}
	if ((r = conf_match(&nt->conf, s, SINK_EXEC)) != NULL &&
	    r->command != NULL && !sent_before(nt, c)) {
		if (age < r->delay_ms)
			w = r->delay_ms - age;
		else if (conf_quiet(&nt->conf, s->priority, local_minutes()))
			w = 60 * 1000;
		else if (in_focus(r, c))
			w = FOCUS_MS;
		else if (c->exec_try.retry_at > now_ms())
			w = c->exec_try.retry_at - now_ms();
		else if ((w = exec_sink(nt, c, r->command, false)) == 0) {
			c->execd = true;
			succeeded(nt, &c->exec_try);
			state_save(nt);
			w = INT64_MAX;
		} else {
			char why[64];

			if (w == -2)
				(void)strlcpy(why, "the off-device setting "
				    "cannot be read: nothing sent", sizeof(why));
			else if (w < 0)
				(void)strlcpy(why, "the command did not run "
				    "or was killed", sizeof(why));
			else
				(void)snprintf(why, sizeof(why), "exit status "
				    "%lld", (long long)w);
			failed(nt, c, &c->exec_try, "exec", why);
			c->execd = c->exec_try.gave_up;
			if (c->execd)
				state_save(nt);
			w = c->execd ? INT64_MAX : c->exec_try.retry_at -
			    now_ms();
		}
		if (w < wait)
			wait = w;
	}
	if ((r = conf_match(&nt->conf, s, SINK_NTFY)) != NULL &&
	    (w = ntfy_due(nt, c, r, age)) < wait)
		wait = w;
	return wait;
}

/* Takes back every delivery of a condition that settled, and forgets it. */
static void
take_back(struct notifier *nt, struct cond *c)
{
	const struct rule	*r;

	if (c->nid != 0) {
		desktop_close(nt, c->nid);
		c->nid = 0;
		state_save(nt);
	}
	if (c->execd && (r = conf_match(&nt->conf, &c->subject,
	    SINK_EXEC)) != NULL &&
	    r->command != NULL)
		(void)exec_sink(nt, c, r->command, true);
	if (c->desk_try.why[0] != '\0' || c->exec_try.why[0] != '\0') {
		c->desk_try.why[0] = c->exec_try.why[0] = '\0';
		failures_save(nt);	/* settled: nothing stands for it */
	}
	if (c->question) {
		c->question = false;
		tmux_window_mark(nt, c);
	}
	cond_drop(nt, c);
}

/* ---- the phone told, and its taps ---- */

static void
await_receipt(struct notifier *nt, const char *key)
{
	if (nt->nawaiting == RECEIPTS_MAX) {	/* the oldest waits no more */
		free(nt->awaiting[0]);
		memmove(nt->awaiting, nt->awaiting + 1, (RECEIPTS_MAX - 1) *
		    sizeof(*nt->awaiting));
		nt->nawaiting--;
	}
	nt->awaiting[nt->nawaiting++] = xstrndup(key, strlen(key));
}

/* Whether the phone awaits this key's receipt; it is then no more. */
static bool
awaited(struct notifier *nt, const char *key)
{
	size_t	 i;

	for (i = 0; i < nt->nawaiting; i++)
		if (strcmp(nt->awaiting[i], key) == 0) {
			free(nt->awaiting[i]);
			nt->awaiting[i] = nt->awaiting[--nt->nawaiting];
			return true;
		}
	return false;
}

static void
phone_say(struct notifier *nt, const struct view *v, const struct buf *w)
{
	char	 why[160];

	if (!ntfy_say(nt->ntfy, v, w->p, why, sizeof(why)))
		warnx("ntfy: a follow-up was not sent: %s", why);
}

/*
 * A question pushed settled: the phone is told how (ntfy 2.11 can
 * neither replace nor delete a message, so a short follow-up), and, once
 * the agent took the answer, that it did.
 */
static void
ntfy_settled(struct notifier *nt, struct cond *c, enum follow_kind change,
    const struct follow_news *nw)
{
	struct arena		 a = { 0 };
	struct buf		 w = { 0 };
	struct view		 v;
	const struct jval	*n, *i, *resp, *id, *source;
	size_t			 k;

	if (nt->ntfy == NULL || !c->ntfy_sent || !c->question)
		return;	/* a notice gone needs no word */
	n = nw->n != NULL ? nw->n : c->n;
	i = nw->i != NULL ? nw->i : c->i;
	if (!phone_view(nt, &v, &a, c->key, n, i))
		goto done;
	if (v.qs == Q_ANSWERED) {
		buf_puts(&w, "Answered");
		resp = json_get(i, "response");
		id = resp != NULL ? json_get(resp, "choice_id") : NULL;
		for (k = 0; id != NULL && id->type == J_STRING &&
		    k < v.nchoices; k++)
			if (sv_same(v.choices[k].id, sv_json(id))) {
				buf_puts(&w, ": ");
				buf_put(&w, v.choices[k].label.p,
				    v.choices[k].label.n);
				break;
			}
		source = resp != NULL ? json_get(resp, "source") : NULL;
		if (source != NULL && source->type == J_STRING) {
			buf_puts(&w, " (");
			view_safe(&w, source->s, source->len, 64, false);
			buf_puts(&w, ")");
		}
		view_handover_tree(&v, &a, i, nw->handover, nw->waiting);
		if (v.handover.p != NULL) {
			buf_puts(&w, ". ");
			buf_put(&w, v.handover.p, v.handover.n);
		} else
			await_receipt(nt, c->key);
	} else if (v.qs == Q_EXPIRED || change == FOLLOW_EXPIRED)
		buf_puts(&w, "Expired: nobody answered in time.");
	else
		buf_puts(&w, "Closed: the agent asks no more.");
	buf_putc(&w, '\0');
	phone_say(nt, &v, &w);
done:
	buf_free(&w);
	arena_free(&a);
}

/* What became of an answer the phone was told of: the agent took it. */
static void
ntfy_receipt(struct notifier *nt, const struct follow_news *nw,
    const char *key)
{
	struct arena	 a = { 0 };
	struct buf	 w = { 0 };
	struct view	 v;

	if (nt->ntfy == NULL || !awaited(nt, key))
		return;
	if (phone_view(nt, &v, &a, key, nw->n, nw->i)) {
		view_handover_tree(&v, &a, nw->i, nw->handover, nw->waiting);
		if (v.handover.p != NULL) {
			buf_put(&w, v.handover.p, v.handover.n);
			buf_putc(&w, '\0');
			phone_say(nt, &v, &w);
		}
	}
	buf_free(&w);
	arena_free(&a);
}

static void
tap_ignored(struct notifier *nt, const char *what)
{
	nt->taps_ignored++;
	if ((nt->taps_ignored & (nt->taps_ignored - 1)) == 0)
		warnx("ntfy: %s was ignored (%llu so far)", what,
		    (unsigned long long)nt->taps_ignored);
}

/*
 * A message on the answer topic: a tap answers the question it was
 * shown with, through the applier, or nothing; a stale one brings the
 * current question back to the phone.  Where the topic was read to is
 * kept, so that a restart reads on from there.
 */
static void
ntfy_tapped(struct notifier *nt, const char *line, size_t len)
{
	struct arena		 a = { 0 }, va = { 0 };
	struct ntfy_tap		 t;
	struct view		 v;
	struct cond		*c;
	struct buf		 b = { 0 };
	const char		*said;

	if (!ntfy_tap(&a, line, len, &t)) {
		warnx("ntfy: a line of the answer topic that is not a message");
		goto done;
	}
	if (t.id != NULL && strlen(t.id) < sizeof(nt->ntfy_since))
		(void)strlcpy(nt->ntfy_since, t.id, sizeof(nt->ntfy_since));
	if (t.key == NULL) {
		tap_ignored(nt, "a message that is not a tap");
		goto save;
	}
	if ((c = cond_find(nt, t.key)) == NULL || !c->question ||
	    !c->ntfy_sent) {
		tap_ignored(nt, "a tap for no question pushed and open");
		goto save;
	}
	/*
	 * Bound to what the phone was shown: the tag pushed, and the
	 * question still as pushed.  A stale tap brings the question as
	 * it is now back to the phone, once a version pushed: a flood of
	 * forged tags rings it once.
	 */
	if (strcmp(t.tag, c->ntfy_tag) != 0 || strcmp(c->tag, c->ntfy_tag) !=
	    0) {
		if (c->ntfy_again) {
			tap_ignored(nt, "a tap on a question no longer shown");
			goto save;
		}
		warnx("%s: a tap on a question no longer shown was refused",
		    safe(&b, c->key));
		c->ntfy_again = true;
		c->ntfy_sent = false;	/* the current one, pushed again */
		goto save;
	}
	if (!phone_view(nt, &v, &va, c->key, c->n, c->i) ||
	    !ntfy_offers(nt->ntfy, &v, sv_str(t.choice))) {
		tap_ignored(nt, "a tap on a choice the phone was not offered");
		goto save;
	}
	said = answer_seen(nt->journal, &(struct seen_answer){ .key = c->key,
	    .tag = t.tag, .who = { "arc-notify", NULL, "ntfy", NULL },
	    .answer = t.choice, .off = &nt->off });
	if (strcmp(said, "changed") == 0 || strcmp(said, "failed") == 0)
		c->ntfy_sent = false;	/* the phone asks again, as it is now */
	if (strcmp(said, "answered") != 0 && strcmp(said, "sent") != 0)
		warnx("%s: a tap was not taken (%s)", safe(&b, c->key), said);
save:
	state_save(nt);
done:
	buf_free(&b);
	arena_free(&va);
	arena_free(&a);
}

/* ---- the follow stream ---- */

/*
 * A hand-over (the agent took an answer, or did not): told on the
 * desktop where the policy shows such a condition there.
 */
static void
receipt(struct notifier *nt, const struct follow_news *nw, const char *key)
{
	struct cond	 c;
	struct view	 v;

	memset(&c, 0, sizeof(c));
	c.n = nw->n;
	c.i = nw->i;
	if (c.n == NULL || c.i == NULL)
		return;
	ntfy_receipt(nt, nw, key);
	c.question = true;
	describe(&c);
	if (conf_match(&nt->conf, &c.subject, SINK_DESKTOP) != NULL &&
	    view_from_json(&v, &c.arena, sv_str(key), c.n, c.i, NULL)) {
		view_handover_tree(&v, &c.arena, c.i, nw->handover,
		    nw->waiting);
		desktop_receipt(nt, &v);
	}
	arena_free(&c.arena);
}

/*
 * One change of the journal.  Its records are parsed into an arena of
 * their own, which the condition keeps while it needs the person.
 */
static void
follow_change(struct notifier *nt, const struct follow_change *ch)
{
	struct arena		 a = { 0 };
	struct follow_news	 nw;
	const char		*status, *digest, *created;
	struct cond		*c;

	if (ch->kind == FOLLOW_SYNCED) {
		nt->synced = true;
		tmux_refresh(nt);
		return;
	}
	c = cond_find(nt, ch->key);
	(void)follow_news(nt->follow, ch, &a, &nw);
	status = str_of(&a, nw.i, "status");
	if (ch->kind == FOLLOW_HANDOVER) {
		receipt(nt, &nw, ch->key);
		goto done;
	}
	/* an answer and its receipt in one look: one change says both */
	if (ch->kind == FOLLOW_ANSWERED && nw.handover != NULL)
		receipt(nt, &nw, ch->key);
	if (ch->kind != FOLLOW_CURRENT && ch->kind != FOLLOW_OPENED &&
	    ch->kind != FOLLOW_UPDATED) {
		/* answered, expired, resolved, dismissed, removed */
		if (c != NULL) {
			ntfy_settled(nt, c, ch->kind, &nw);
			take_back(nt, c);
		}
		goto refresh;
	}
	if (nw.n == NULL)
		goto done;
	if (nw.i != NULL && (status == NULL || strcmp(status, "pending") != 0)) {
		/* a question no longer pending: nothing to ask any more */
		if (c != NULL) {
			ntfy_settled(nt, c, ch->kind, &nw);
			take_back(nt, c);
		}
		goto refresh;
	}
	if (c == NULL) {
		if ((c = calloc(1, sizeof(*c))) == NULL)
			err(EXIT_SYSTEM, "calloc");
		c->key = xstrndup(ch->key, ch->keylen);
		if (nt->nc == nt->capc) {
			nt->capc = nt->capc == 0 ? 16 : nt->capc * 2;
			if ((nt->c = reallocarray(nt->c, nt->capc,
			    sizeof(*nt->c))) == NULL)
				err(EXIT_SYSTEM, "reallocarray");
		}
		nt->c[nt->nc++] = c;
	}
	/* Its records, kept: the arena they were parsed into is its now. */
	arena_free(&c->arena);
	c->arena = a;
	a = (struct arena){ 0 };
	c->n = nw.n;
	c->i = nw.i;
	c->question = status != NULL && strcmp(status, "pending") == 0;
	digest = str_of(&c->arena, c->i, "digest");
	c->tag[0] = '\0';
	if (c->question && digest != NULL && strlen(digest) >= TAG_SHOWN) {
		memcpy(c->tag, digest, TAG_SHOWN);
		c->tag[TAG_SHOWN] = '\0';
	}
	created = str_of(&c->arena, c->i != NULL ? c->i : c->n, "created_at");
	(void)strlcpy(c->created, created != NULL ? created : "",
	    sizeof(c->created));
	if (strcmp(c->tag, c->shown_tag) != 0) {
		c->dismissed = false;	/* a changed question is shown again */
		if (c->desk_try.why[0] != '\0') {
			memset(&c->desk_try, 0, sizeof(c->desk_try));
			failures_save(nt);	/* and tried anew */
		}
	}
	c->has_view = view_from_json(&c->view, &c->arena, sv_str(c->key),
	    c->n, c->question ? c->i : NULL, NULL);
	if (c->has_view)
		view_handover_tree(&c->view, &c->arena, c->i, nw.handover,
		    nw.waiting);
	describe(c);
	if (!c->has_where)
		c->has_where = tmux_where_of(json_get(c->n, "x-arc"),
		    &c->where);
	if (c->question)
		tmux_window_mark(nt, c);
	(void)deliver(nt, c);
refresh:
	if (ch->kind != FOLLOW_CURRENT)
		tmux_refresh(nt);
done:
	arena_free(&a);
}

/* ---- a button pressed ---- */

static void
answer(struct notifier *nt, struct cond *c, const char *tag, size_t k)
{
	const struct jval	*choices, *id;
	const char		*said;
	char			*picked = NULL;
	struct buf		 b = { 0 };
	size_t			 room;

	choices = json_get(c->i, "choices");	/* not shown: the ids */
	id = k >= 1 ? choice_id(choices, k - 1) : NULL;

	if (!c->question || strcmp(tag, c->tag) != 0 || id == NULL ||
	    !c->has_view || k > c->view.nchoices ||
	    (!desktop_fits(&c->view, &room) &&
	    !view_refuses(&c->view.choices[k - 1]))) {
		warnx("%s: a press on a question no longer shown was refused",
		    safe(&b, c->key));
		goto again;
	}
	/* here, under the journal's lock, as the page answers */
	if ((picked = strndup(id->s, id->len)) == NULL)
		err(EXIT_SYSTEM, "strndup");
	said = answer_seen(nt->journal, &(struct seen_answer){ .key = c->key,
	    .tag = tag, .who = { "arc-notify", NULL, "arc-notify", NULL },
	    .answer = picked });
	free(picked);
	if (strcmp(said, "answered") == 0 || strcmp(said, "sent") == 0)
		goto done;	/* the follow stream will take it back */
	warnx("%s: the answer was not taken (%s)", safe(&b, c->key), said);
again:
	/*
	 * The current question, shown anew: the pressed one is closed (a
	 * server closes it after a press anyway, and its closing must not
	 * take the current one with it).
	 */
	desktop_close(nt, c->nid);
	c->nid = 0;
	c->dismissed = false;
	c->shown_tag[0] = '\0';
	(void)deliver(nt, c);
	state_save(nt);
done:
	buf_free(&b);
}

/*
 * Who sent a signal: the server's, only from the unique name that owns
 * org.freedesktop.Notifications now.  A match rule's sender holds for
 * broadcasts alone; a signal addressed to our own unique name reaches us
 * from any peer on the bus, so the handler looks.  Others' are ignored,
 * counted in the log (at 1, 2, 4, 8, ...: a flood is not a flood there).
 */
static void
forged(struct notifier *nt, sd_bus_message *m)
{
	const char	*who = sd_bus_message_get_sender(m);
	struct buf	 b = { 0 };

	nt->forged++;
	if ((nt->forged & (nt->forged - 1)) == 0)
		warnx("%s: a signal from %s, not the notification server, "
		    "was ignored (%llu so far)", sd_bus_message_get_member(m) ?
		    sd_bus_message_get_member(m) : "?", who != NULL ?
		    safe(&b, who) : "nobody", (unsigned long long)nt->forged);
	buf_free(&b);
}

static bool
from_server(struct notifier *nt, sd_bus_message *m)
{
	const char	*who = sd_bus_message_get_sender(m);

	if (who != NULL && nt->owner[0] != '\0' && strcmp(who,
	    nt->owner) == 0)
		return true;
	forged(nt, m);
	return false;
}

/* The name's owner now (GetNameOwner): "" when nobody holds it. */
static void
owner_ask(struct notifier *nt)
{
	sd_bus_error	 e = SD_BUS_ERROR_NULL;
	sd_bus_message	*reply = NULL;
	const char	*who;

	nt->owner[0] = '\0';
	if (sd_bus_call_method(nt->bus, "org.freedesktop.DBus",
	    "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
	    &e, &reply, "s", NOTIFY_DEST) >= 0 &&
	    sd_bus_message_read(reply, "s", &who) >= 0 &&
	    strlen(who) < sizeof(nt->owner))
		(void)strcpy(nt->owner, who);
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
}

static int
on_action(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	struct notifier	*nt = arg;
	struct cond	*c;
	const char	*key, *slash, *errstr;
	char		 tag[TAG_SHOWN + 1];
	uint32_t	 id;
	long long	 k;

	(void)e;
	if (!from_server(nt, m) || sd_bus_message_read(m, "us", &id,
	    &key) < 0)
		return 0;
	if ((c = cond_by_nid(nt, id)) == NULL)
		return 0;	/* not ours, or already taken back */
	if (strcmp(key, "default") == 0) {
		/* the toast itself, clicked: to the agent's pane */
		if (c->has_where)
			(void)tmux_jump(&c->where);
		return 0;
	}
	if ((slash = strchr(key, '/')) == NULL ||
	    (size_t)(slash - key) != TAG_SHOWN) {
		answer(nt, c, "", 0);
		return 0;
	}
	memcpy(tag, key, TAG_SHOWN);
	tag[TAG_SHOWN] = '\0';
	k = strtonum(slash + 1, 1, ACTIONS_MAX, &errstr);
	answer(nt, c, tag, errstr == NULL ? (size_t)k : 0);
	return 0;
}

static int
on_closed(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	struct notifier	*nt = arg;
	struct cond	*c;
	uint32_t	 id, reason;

	(void)e;
	if (!from_server(nt, m) || sd_bus_message_read(m, "uu", &id,
	    &reason) < 0)
		return 0;
	if ((c = cond_by_nid(nt, id)) == NULL)
		return 0;
	/*
	 * Closed by the person, or by the server (expired, stacked with
	 * another): not again until the question changes or a reminder is
	 * due; never shown over and over.
	 */
	c->nid = 0;
	c->dismissed = true;
	(void)reason;
	state_save(nt);
	return 0;
}

/*
 * The server left the bus (it died, or was replaced): what it showed is
 * gone with it.  One that takes the name shows again all that is open.
 */
static int
on_owner(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	struct notifier	*nt = arg;
	const char	*name, *old, *new;
	size_t		 i;

	(void)e;
	/* the bus's own word alone (its driver's name is its sender) */
	if (sd_bus_message_get_sender(m) == NULL ||
	    strcmp(sd_bus_message_get_sender(m), "org.freedesktop.DBus") != 0) {
		forged(nt, m);
		return 0;
	}
	if (sd_bus_message_read(m, "sss", &name, &old, &new) < 0 ||
	    strcmp(name, NOTIFY_DEST) != 0)
		return 0;
	if (strlen(new) < sizeof(nt->owner))
		(void)strcpy(nt->owner, new);
	else
		nt->owner[0] = '\0';
	for (i = 0; i < nt->nc; i++) {
		nt->c[i]->nid = 0;
		nt->c[i]->dismissed = false;
		nt->c[i]->shown_tag[0] = '\0';
	}
	if (*new == '\0') {
		warnx("desktop notifications: the server left the session "
		    "bus; waiting for one");
		nt->gone_at = now_ms();
	} else
		nt->gone_at = 0;	/* the loop shows them anew */
	state_save(nt);
	return 0;
}

/* ---- main ---- */

static char *
statefile_of(const char *journal)
{
	char	*p;

	if (journal == NULL)
		journal = getenv("ARC_JOURNAL");
	if (journal != NULL && *journal != '\0') {
		if (asprintf(&p, "%s.notify", journal) == -1)
			err(EXIT_SYSTEM, "asprintf");
		return p;
	}
	if (getenv("XDG_STATE_HOME") != NULL && *getenv("XDG_STATE_HOME") ==
	    '/') {
		if (asprintf(&p, "%s/arc/journal.notify",
		    getenv("XDG_STATE_HOME")) == -1)
			err(EXIT_SYSTEM, "asprintf");
	} else if (asprintf(&p, "%s/.local/state/arc/journal.notify",
	    getenv("HOME") != NULL ? getenv("HOME") : "") == -1)
		err(EXIT_SYSTEM, "asprintf");
	return p;
}

/* The reader of the answer topic, started anew when it ended. */
static void
ntfy_reader(struct notifier *nt, struct line_reader *tr)
{
	if (nt->ntfy_child > 0) {
		(void)kill(nt->ntfy_child, SIGTERM);
		(void)reap(nt->ntfy_child);
		line_reader_free(tr);
		(void)close(nt->ntfy_fd);
	}
	/* a reader that ended at once is not started again at once */
	if (nt->ntfy_started != 0 && now_ms() - nt->ntfy_started < 1000)
		(void)sleep(1);
	nt->ntfy_started = now_ms();
	nt->ntfy_child = ntfy_listen(nt->ntfy, nt->ntfy_since, &nt->ntfy_fd);
	line_reader_init(tr, nt->ntfy_fd, "the ntfy reader");
	line_reader_set(tr, LINE_MAX_BYTES, '\n');
}

/* Catches up with the journal and takes in each change; false: failed. */
static bool
take_news(struct notifier *nt)
{
	struct follow_change ch;

	if (!follow_look(nt->follow))
		return false;
	while (follow_next(nt->follow, &ch))
		follow_change(nt, &ch);
	return true;
}

static void
loop(struct notifier *nt)
{
	struct line_reader	 tr;
	struct pollfd		 pfd[3];
	const char		*line;
	size_t			 len, i;
	int64_t			 wait, w;
	uint64_t		 usec;
	enum line_status	 ls;
	struct timespec		 ts;
	sigset_t		 stops, open_mask, pending;
	int			 rc;

	/*
	 * TERM, INT and HUP are let in only while the loop sleeps: one that
	 * came while it delivered (a tmux refresh, a D-Bus call) would have
	 * set quit after the check, and a poll with no timeout never woken.
	 */
	(void)sigemptyset(&stops);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		(void)sigaddset(&stops, stop_signals[i]);
	if (sigprocmask(SIG_BLOCK, &stops, &open_mask) == -1)
		err(EXIT_SYSTEM, "sigprocmask");
	if (!take_news(nt))
		return;
	if (nt->ntfy != NULL)
		ntfy_reader(nt, &tr);
	while (!quit) {
		wait = INT64_MAX;
		for (i = 0; i < nt->nc; i++)
			if ((w = deliver(nt, nt->c[i])) < wait)
				wait = w;
		/* sd-bus's next time-out: an instant of CLOCK_MONOTONIC */
		if (nt->bus != NULL && sd_bus_get_timeout(nt->bus, &usec) >= 0 &&
		    usec != UINT64_MAX) {
			w = (int64_t)(usec / 1000) - monotonic_ms();
			if (w < wait)
				wait = w;
		}
		/* the journal's next look, due anyway (a deadline) */
		if ((w = follow_wait_ms(nt->follow)) < wait)
			wait = w;
		w = wait > 60000 ? 60000 : wait < 0 ? 0 : wait + 1;
		ts.tv_sec = (time_t)(w / 1000);
		ts.tv_nsec = (long)(w % 1000) * 1000000;
		pfd[0].fd = follow_fd(nt->follow);
		pfd[0].events = POLLIN;
		pfd[1].fd = nt->bus != NULL ? sd_bus_get_fd(nt->bus) : -1;
		pfd[1].events = nt->bus != NULL ?
		    (short)sd_bus_get_events(nt->bus) : 0;
		/* taps once the news is in: a tap is judged against it */
		pfd[2].fd = nt->ntfy != NULL && nt->synced ? nt->ntfy_fd : -1;
		pfd[2].events = POLLIN;
		pfd[0].revents = pfd[1].revents = pfd[2].revents = 0;
		if (ppoll(pfd, 3, wait == INT64_MAX ? NULL : &ts,
		    &open_mask) == -1) {
			if (errno == EINTR)
				continue;
			err(EXIT_SYSTEM, "poll");
		}
		/*
		 * A signal that came while a descriptor was ready stays
		 * pending (ppoll delivers it only when it ends the wait): a
		 * steady stream must not put the exit off.
		 */
		if (sigpending(&pending) == 0)
			for (i = 0; i < sizeof(stop_signals) /
			    sizeof(stop_signals[0]); i++)
				if (sigismember(&pending, stop_signals[i]) == 1)
					quit = 1;
		/* The journal's news first: a press is judged against it. */
		if (((pfd[0].revents & POLLIN) != 0 &&
		    follow_woken(nt->follow)) ||
		    follow_wait_ms(nt->follow) == 0) {
			if (!take_news(nt)) {
				warnx("the journal cannot be followed");
				break;
			}
		}
		if (pfd[2].fd != -1 && pfd[2].revents != 0) {
			do {
				ls = line_next(&tr, &line, &len);
				if (ls == LINE_OK)
					ntfy_tapped(nt, line, len);
			} while (ls == LINE_OK && line_pending(&tr));
			if (ls == LINE_EOF || ls == LINE_ERROR) {
				warnx("the ntfy reader ended; started again");
				ntfy_reader(nt, &tr);
			}
		}
		rc = 0;
		while (nt->bus != NULL && (rc = sd_bus_process(nt->bus,
		    NULL)) > 0)
			;
		if (rc < 0) {
			/*
			 * The bus went away: the session is ending, or its
			 * daemon died.  Nothing is lost (the journal holds
			 * every condition); a new run on the new bus shows
			 * them again (the user unit restarts it).
			 */
			warnx("the session bus: %s; exiting", strerror(-rc));
			nt->bus_lost = true;
			break;
		}
	}
	if (nt->ntfy != NULL)
		line_reader_free(&tr);
	(void)sigprocmask(SIG_SETMASK, &open_mask, NULL);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "ntfy-setup", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	struct notifier		 nt = { 0 };
	struct sigaction	 sa;
	const char		*config = NULL;
	char			*journal;
	bool			 check = false, need_bus = false, setup = false;
	bool			 need_ntfy = false;
	size_t			 i;
	int			 ch, st, rc;

	while ((ch = getopt_long(argc, argv, "f:hj:nV", longopts, NULL)) != -1)
		switch (ch) {
		case 'f':
			config = optarg;
			break;
		case 'j':
			nt.journal = optarg;
			break;
		case 'n':
			check = true;
			break;
		case 'S':
			setup = true;
			break;
		default:
			if (common_option(ch, usage, &st))
				return st;
			usage_print(stderr, usage, false);
			return EXIT_USAGE;
		}
	if (setup) {
		if (argc - optind > 1 || (optind < argc &&
		    strncmp(argv[optind], "https://", 8) != 0 &&
		    strncmp(argv[optind], "http://", 7) != 0))
			return usage_error(usage, "--ntfy-setup takes a "
			    "server's URL, http:// or https://");
		ntfy_setup(stdout, optind < argc ? argv[optind] :
		    "https://ntfy.sh");
		return fflush(stdout) == 0 ? 0 : EXIT_SYSTEM;
	}
	if (optind != argc)
		return usage_error(usage, "unexpected argument");
	if (!arc_now_init())
		errx(EXIT_USAGE, "ARC_NOW: not an RFC 3339 instant");
	if (!conf_load(&nt.conf, config)) {
		conf_free(&nt.conf);
		return EXIT_USAGE;
	}
	if (check) {
		conf_print(&nt.conf, stdout);
		conf_free(&nt.conf);
		return 0;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		(void)sigaction(stop_signals[i], &sa, NULL);
	sa.sa_handler = SIG_IGN;
	(void)sigaction(SIGPIPE, &sa, NULL);

	nt.statefile = statefile_of(nt.journal);
	journal = journal_default_path(nt.journal);
	nt.deliveryfile = delivery_path(journal);
	nt.off_ok = offdevice_read(journal, &nt.off);
	free(journal);
	(void)delivery_save(nt.deliveryfile, NULL, 0);	/* a new run */
	/* Rules without a desktop sink need no session bus. */
	for (i = 0; i < nt.conf.nrules; i++)
		if (nt.conf.rules[i].sink == SINK_DESKTOP &&
		    nt.conf.rules[i].notify)
			need_bus = true;
	if (need_bus && (rc = sd_bus_open_user(&nt.bus)) < 0) {
		if (rc == -ENOENT || rc == -ECONNREFUSED || rc == -ENOMEDIUM)
			errx(EXIT_SYSTEM, "no session bus to reach (%s): the "
			    "desktop rules need one; run arc-notify in a "
			    "desktop session, or without desktop rules "
			    "(arc-notify.conf(5))", strerror(-rc));
		errx(EXIT_SYSTEM, "the session bus: %s", strerror(-rc));
	}
	for (i = 0; i < nt.conf.nrules; i++)
		if (nt.conf.rules[i].sink == SINK_NTFY &&
		    nt.conf.rules[i].notify)
			need_ntfy = true;
	if (need_ntfy && (nt.ntfy = ntfy_open(&nt.conf.ntfy)) == NULL)
		errx(EXIT_USAGE, "the ntfy line (%s:%d) cannot be used",
		    nt.conf.path != NULL ? nt.conf.path : "notify.conf",
		    nt.conf.ntfy.lineno);
	if (!need_bus)
		goto no_bus;
	/*
	 * Only the server's own signals: another peer cannot press for you
	 * (the matches' sender filters broadcasts; from_server() the rest).
	 */
	if ((rc = sd_bus_match_signal(nt.bus, NULL, NOTIFY_DEST, NOTIFY_PATH,
	    NOTIFY_IFACE, "ActionInvoked", on_action, &nt)) < 0 ||
	    (rc = sd_bus_match_signal(nt.bus, NULL, NOTIFY_DEST, NOTIFY_PATH,
	    NOTIFY_IFACE, "NotificationClosed", on_closed, &nt)) < 0 ||
	    (rc = sd_bus_match_signal(nt.bus, NULL, "org.freedesktop.DBus",
	    "/org/freedesktop/DBus", "org.freedesktop.DBus",
	    "NameOwnerChanged", on_owner, &nt)) < 0)
		errx(EXIT_SYSTEM, "the session bus: %s", strerror(-rc));
	owner_ask(&nt);		/* after the match: no change goes unseen */
no_bus:
	state_restore(&nt);
	if (nt.ntfy != NULL && nt.ntfy_since[0] == '\0')
		/* the first run: taps from now on (the server's clock) */
		(void)snprintf(nt.ntfy_since, sizeof(nt.ntfy_since), "%lld",
		    (long long)time(NULL) - 1);
	if ((nt.follow = follow_open(nt.journal, NULL)) == NULL)
		return EXIT_SYSTEM;
	loop(&nt);

	/* Leaving: what was shown is taken back; nobody would answer it. */
	for (i = 0; i < nt.nc; i++) {
		if (!nt.bus_lost)
			desktop_close(&nt, nt.c[i]->nid);
		/* (after a lost bus too: its ids mean nothing to the next one) */
		nt.c[i]->nid = 0;
	}
	state_save(&nt);	/* what the exec sink had, for the next run */
	if (nt.bus != NULL)
		(void)sd_bus_flush(nt.bus);
	follow_close(nt.follow);
	if (nt.ntfy_child > 0) {
		(void)kill(nt.ntfy_child, SIGTERM);
		(void)close(nt.ntfy_fd);
		(void)reap(nt.ntfy_child);
	}
	ntfy_close(nt.ntfy);
	while (nt.nawaiting > 0)
		free(nt.awaiting[--nt.nawaiting]);
	free(nt.pushed);
	if (nt.bus != NULL)
		sd_bus_flush_close_unref(nt.bus);
	while (nt.nc > 0)
		cond_drop(&nt, nt.c[nt.nc - 1]);
	free(nt.c);
	free(nt.sent);
	free(nt.statefile);
	free(nt.deliveryfile);
	conf_free(&nt.conf);
	return quit && !nt.bus_lost ? 0 : EXIT_SYSTEM;
}
