/*
 * arc-doctor: is arc set up to reach this person?  Each piece is looked
 * at as it would run, and said in a line: the journal this shell's
 * commands use, the journal and the arc-hook each agent's hooks name,
 * the journal tmux's status line and arc-notify read, whether a session
 * bus is there, whether a web server's user could run the page on this
 * journal, the MQTT bridge's broker options; with --ask, a question
 * asked end to end, waiting for the person to answer it wherever it
 * reached them.
 *
 * It changes nothing but for --ask's question (and its withdrawal).
 * Exit 0 when nothing is wrong, 1 when something is (each said, FAIL).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcterm.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"
#include "arcevent.h"
#include "arcfilter.h"
#include "arcusage.h"
#include "arctmux.h"
#include "arcsettle.h"
#include "archooksettings.h"

#define ASK_SECONDS	120	/* --ask: how long the question waits */

static const char usage[] =
"usage: arc-doctor [-j journal] [--web-user user] [--ask]\n"
"\n"
"Says, a line each, whether arc is set up to reach you: the journal, the\n"
"agents' hooks, tmux, arc-notify, the session bus, the page's user, the\n"
"MQTT bridge.  Exit 0 when nothing is wrong, 1 when something is.\n"
"\n"
"  -j, --journal file    the journal (else $ARC_JOURNAL, else the usual)\n"
"  --web-user user       whether the page, run as user, can use it\n"
"  --ask                 ask a question end to end and wait up to 2 minutes\n"
"                        for you to answer it, wherever it reached you\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

int	doctor_main(int, char **);	/* arcmain.c calls it */

static int	failures;

/* One finding: ok, FAIL or -- (not set up), and its words. */
static void __attribute__((format(printf, 3, 4)))
say(const char *mark, const char *what, const char *fmt, ...)
{
	struct buf	 shown = { 0 };
	va_list		 ap;
	char		*words;

	va_start(ap, fmt);
	if (vasprintf(&words, fmt, ap) == -1)
		err(EXIT_SYSTEM, "vasprintf");
	va_end(ap);
	if (strcmp(mark, "FAIL") == 0)
		failures++;
	/* paths and names are the person's: shown safe */
	printf("%-4s  %-11s %s\n", mark, what, safe(&shown, words));
	free(words);
	buf_free(&shown);
}

/* ---- the journal ---- */

static void
look_journal(const char *option, const char *path)
{
	struct journal	 j;
	struct stat	 sb;
	char		*dir = parent_of(path);
	const struct condition *c;
	size_t		 at, open = 0;

	if (stat(dir, &sb) == -1) {
		if (option != NULL || (getenv("ARC_JOURNAL") != NULL &&
		    *getenv("ARC_JOURNAL") != '\0'))
			say("FAIL", "journal", "%s: no such folder; a typo? "
			    "(nothing was ever recorded there)", path);
		else
			say("--", "journal", "%s: nothing recorded yet", path);
		free(dir);
		return;
	}
	free(dir);
	if (!folder_ours(path)) {
		say("FAIL", "journal", "%s: arc's commands refuse it (said "
		    "above)", path);
		return;
	}
	if (stat(path, &sb) == -1) {
		say("--", "journal", "%s: nothing recorded yet", path);
		return;
	}
	if (sb.st_uid != geteuid()) {
		say("FAIL", "journal", "%s: owned by another user; arc's "
		    "commands refuse it", path);
		return;
	}
	memset(&j, 0, sizeof(j));
	if (!journal_open(&j, path, false) || !journal_lock(&j, false)) {
		journal_close(&j);
		say("FAIL", "journal", "%s: cannot be read (said above)",
		    path);
		return;
	}
	for (c = state_first(j.st, &at); c != NULL;
	    c = state_next(j.st, &at))
		open += c->active;
	journal_unlock(&j);
	journal_close(&j);
	say("ok", "journal", "%s: %zu open", path, open);
}

/* ---- the agents' hooks ---- */

/* A program as sh -c finds it: a path, or a name on PATH. */
static bool
runnable(const char *program)
{
	const char	*path = getenv("PATH"), *p, *colon;
	char		 full[PATH_MAX];

	if (strchr(program, '/') != NULL)
		return access(program, X_OK) == 0;
	for (p = path != NULL ? path : "/usr/bin:/bin"; ; p = colon + 1) {
		colon = strchr(p, ':');
		if (snprintf(full, sizeof(full), "%.*s/%s", colon != NULL ?
		    (int)(colon - p) : (int)strlen(p), p, program) <
		    (int)sizeof(full) && access(full, X_OK) == 0)
			return true;
		if (colon == NULL)
			return false;
	}
}

static void
look_hooks(const char *journal)
{
	static const char *const hosts[] = { "claude-code", "codex", "gemini",
	    "copilot" };
	struct buf	 programs = { 0 }, journals = { 0 };
	char		*path, *line, *named;
	size_t		 i, count;
	int		 r;

	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		if ((path = settings_path(hosts[i])) == NULL) {
			say("--", hosts[i], "HOME is not set: no settings to "
			    "look at");
			continue;
		}
		programs.len = journals.len = 0;
		r = settings_look(hosts[i], path, &count, &programs, &journals);
		if (r == 0)
			say("--", hosts[i], "no %s (arc-hook --install %s)", path,
			    hosts[i]);
		else if (r < 0)
			say("FAIL", hosts[i], "%s cannot be read as settings "
			    "(said above)", path);
		else if (count == 0)
			say("--", hosts[i], "%s: no hook of arc's (arc-hook "
			    "--install %s)", path, hosts[i]);
		for (line = programs.p; r > 0 && count > 0 && line != NULL &&
		    line < programs.p + programs.len;
		    line += strlen(line) + 1) {
			if (!runnable(line))
				say("FAIL", hosts[i], "%s runs %s, which is not "
				    "there: the agent asks in its own dialog "
				    "(arc-hook --install %s)", path, line,
				    hosts[i]);
			else
				say("ok", hosts[i], "%s: %zu hooks, running %s",
				    path, count, line);
		}
		for (line = journals.p; r > 0 && count > 0 && line != NULL &&
		    line < journals.p + journals.len;
		    line += strlen(line) + 1) {
			if (*line == '\0')
				continue;	/* the agent's own ARC_JOURNAL */
			named = journal_default_path(line);
			if (strcmp(named, journal) != 0)
				say("FAIL", hosts[i], "its hooks write to %s, "
				    "not to %s", named, journal);
			free(named);
		}
		free(path);
	}
	buf_free(&programs);
	buf_free(&journals);
}

/* ---- tmux and arc-notify ---- */

static void
look_tmux(const char *journal)
{
	const char	*env[] = { "show-environment", "-g", "ARC_JOURNAL",
			    NULL };
	const char	*status[] = { "show", "-gv", "status-right", NULL };
	const char	*left[] = { "show", "-gv", "status-left", NULL };
	char		 out[1024], bar[1024], *named;
	int		 rc;

	if ((rc = tmux_run(NULL, status, bar, sizeof(bar))) != 0) {
		say("--", "tmux", "no tmux server to ask");
		return;
	}
	if (strstr(bar, "arc-status") == NULL &&
	    (tmux_run(NULL, left, bar, sizeof(bar)) != 0 ||
	    strstr(bar, "arc-status") == NULL)) {
		say("--", "tmux", "the status line does not run arc-status "
		    "(README: tmux)");
		return;
	}
	out[0] = '\0';
	rc = tmux_run(NULL, env, out, sizeof(out));
	/* the server's own environment decides, else the usual one */
	named = rc == 0 && strncmp(out, "ARC_JOURNAL=", 12) == 0 ?
	    journal_default_path(out + 12) : journal_usual_path();
	if (strcmp(named, journal) != 0)
		say("FAIL", "tmux", "its status line reads %s, not %s "
		    "(tmux set-environment -g ARC_JOURNAL)", named, journal);
	else
		say("ok", "tmux", "its status line reads this journal");
	free(named);
}

/* The processes of ours named comm, after pid after (0: from the first). */
static pid_t
running_after(const char *comm, pid_t after)
{
	DIR		*d;
	struct dirent	*e;
	struct stat	 sb;
	char		 path[64], name[32];
	pid_t		 found = 0, pid;
	FILE		*f;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
		    strlen(e->d_name) > 20 ||
		    (pid = (pid_t)strtol(e->d_name, NULL, 10)) <= after ||
		    (found != 0 && pid > found))
			continue;
		(void)snprintf(path, sizeof(path), "/proc/%.20s/comm",
		    e->d_name);
		if (stat(path, &sb) == -1 || sb.st_uid != geteuid() ||
		    (f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(name, sizeof(name), f) != NULL) {
			name[strcspn(name, "\n")] = '\0';
			if (strcmp(name, comm) == 0)
				found = pid;
		}
		(void)fclose(f);
	}
	(void)closedir(d);
	return found;
}

static pid_t
running(const char *comm)
{
	return running_after(comm, 0);
}

/* What a process was started with: its -j, else its ARC_JOURNAL. */
static char *
journal_of(pid_t pid)
{
	char		 path[64], buf[16384], *p, *end, *option = NULL;
	ssize_t		 n;
	int		 fd;
	bool		 next = false;

	(void)snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, buf, sizeof(buf) - 1);
		(void)close(fd);
		buf[n > 0 ? n : 0] = '\0';
		for (p = buf, end = buf + (n > 0 ? n : 0); p < end;
		    p += strlen(p) + 1) {
			if (next)
				return journal_default_path(p);
			next = strcmp(p, "-j") == 0;
		}
	}
	(void)snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, buf, sizeof(buf) - 1);
		(void)close(fd);
		if (n > 0) {
			buf[n] = '\0';
			for (p = buf; p < buf + n; p += strlen(p) + 1)
				if (strncmp(p, "ARC_JOURNAL=", 12) == 0)
					option = p + 12;
		}
	}
	return option != NULL ? journal_default_path(option) :
	    journal_usual_path();
}

static void
look_notify(const char *journal)
{
	const char	*bus = getenv("DBUS_SESSION_BUS_ADDRESS");
	const char	*run = getenv("XDG_RUNTIME_DIR");
	char		 sock[PATH_MAX], *named;
	struct stat	 sb;
	pid_t		 pid;

	if ((bus != NULL && *bus != '\0') || (run != NULL &&
	    snprintf(sock, sizeof(sock), "%s/bus", run) < (int)sizeof(sock) &&
	    stat(sock, &sb) == 0 && S_ISSOCK(sb.st_mode)))
		say("ok", "desktop", "a session bus is there, for arc-notify's "
		    "desktop rules");
	else
		say("--", "desktop", "no session bus: arc-notify's desktop "
		    "rules need a desktop session");
	if ((pid = running("arc-notify")) == 0) {
		say("--", "notify", "arc-notify is not running (systemctl "
		    "--user enable --now arc-notify)");
		return;
	}
	for (; pid != 0; pid = running_after("arc-notify", pid)) {
		named = journal_of(pid);
		if (strcmp(named, journal) != 0)
			say("FAIL", "notify", "arc-notify (pid %ld) reads %s, "
			    "not %s", (long)pid, named, journal);
		else
			say("ok", "notify", "arc-notify (pid %ld) reads this "
			    "journal", (long)pid);
		free(named);
	}
}

/* ---- the page and the bridge ---- */

static void
look_web(const char *user, const char *journal)
{
	struct passwd *pw;

	if (user == NULL)
		return;
	if ((pw = getpwnam(user)) == NULL) {
		say("FAIL", "web", "%s: no such user", user);
		return;
	}
	if (pw->pw_uid != geteuid())
		say("FAIL", "web", "arc-web run as %s cannot use %s: arc uses "
		    "a journal only as the user it belongs to; run the page "
		    "as you (arc-web(8), a lighttpd of your own)", user,
		    journal);
	else
		say("ok", "web", "arc-web run as %s can use this journal",
		    user);
}

/* Whether the person runs the MQTT bridge: its units, or it running. */
static bool
mqtt_in_use(const char *config)
{
	static const char *const units[] = { "arc-mqtt-agent.service",
	    "arc-mqtt-person.service" };
	char	 path[PATH_MAX];
	size_t	 i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (snprintf(path, sizeof(path), "%s/systemd/user/%s", config,
		    units[i]) < (int)sizeof(path) && access(path, F_OK) == 0)
			return true;
	return running("arc-mqtt") != 0;
}

static void
look_mqtt(void)
{
	static const char *const clients[] = { "mosquitto_pub",
	    "mosquitto_sub" };
	const char	*xdg = getenv("XDG_CONFIG_HOME");
	const char	*home = getenv("HOME");
	char		 config[PATH_MAX], path[PATH_MAX];
	struct stat	 sb;
	size_t		 i;

	if (xdg != NULL && *xdg == '/')
		(void)snprintf(config, sizeof(config), "%s", xdg);
	else if (home != NULL && *home != '\0')
		(void)snprintf(config, sizeof(config), "%s/.config", home);
	else
		return;
	for (i = 0; i < sizeof(clients) / sizeof(clients[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", config, clients[i]) >=
		    (int)sizeof(path) || (stat(path, &sb) == 0 &&
		    sb.st_size > 0))
			continue;
		if (mqtt_in_use(config))
			say("FAIL", "mqtt", "no broker for arc-mqtt: %s is "
			    "missing or empty, and arc-mqtt refuses to start "
			    "without it (arc-mqtt(1))", path);
		else
			say("--", "mqtt", "no %s: the MQTT bridge is not set "
			    "up (arc-mqtt(1))", path);
		return;
	}
	say("ok", "mqtt", "%s/mosquitto_pub and _sub name the broker for "
	    "arc-mqtt", config);
}

/* ---- a question, end to end ---- */

static volatile sig_atomic_t stop_fd = -1;

static void
on_stop(int sig)
{
	(void)sig;
	if (stop_fd != -1)
		(void)close(stop_fd);
	stop_fd = -1;
}

/* Applies one event; false when the journal did not take it. */
static bool
apply_text(const char *journal, const struct buf *ev)
{
	struct applier	 ap;
	bool		 ok;

	if (!applier_open(&ap, journal) || !journal_lock(&ap.j, true)) {
		applier_close(&ap);
		return false;
	}
	ap.quiet = ap.keep_out = true;
	apply_one(&ap, "arc-doctor", 1, ev->p, ev->len, false);
	ok = ap.last.code == ARC_OK && applier_commit(&ap);
	applier_close(&ap);
	return ok;
}

static void
ask(const char *journal)
{
	static const struct event_choice seen[] = {
		{ "seen", "I see it", NULL }, { "done", "Done", NULL } };
	const struct event_head head = { .type = "request.created",
	    .sender_id = "arc-doctor", .sender_name = "arc doctor",
	    .no_context = true };
	struct settle		 s = { .open = false };
	struct arena		 a = { 0 };
	struct buf		 ev = { 0 };
	const struct jval	*rec, *resp;
	struct sigaction	 sa;
	char			 key[64], expires[64], id[SETTLE_ID_MAX];
	int			 p[2];
	bool			 first;
	int64_t			 began = monotonic_ms();

	(void)snprintf(key, sizeof(key), "arc-doctor:%ld", (long)getpid());
	if (!rfc3339_after(arc_now(), ASK_SECONDS, expires,
	    sizeof(expires)))
		errx(EXIT_SYSTEM, "the clock is out of range");
	event_open(&ev, &head, &first);
	event_member(&ev, &first, "key", key);
	event_member(&ev, &first, "kind", "question");
	event_member(&ev, &first, "title", "arc doctor");
	event_member(&ev, &first, "message", "Can you see this? Answer it "
	    "here, where it reached you.");
	event_member(&ev, &first, "priority", "high");
	event_response(&ev, &first, "single_choice", seen, 2, NULL, expires);
	event_close(&ev, &(struct event_tail){ 0 });
	if (!apply_text(journal, &ev)) {
		say("FAIL", "ask", "the journal did not take the question "
		    "(said above)");
		goto done;
	}
	printf("....  ask         a question is open (%s): answer it where it "
	    "reaches you; waiting %d s\n", key, ASK_SECONDS);
	(void)fflush(stdout);
	if (pipe2(p, O_CLOEXEC) == -1)
		err(EXIT_SYSTEM, "pipe2");
	stop_fd = p[0];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
	switch (settle_wait(&s, journal, key, ASK_SECONDS * 1000 + 2000, p[1],
	    &a, &rec, id)) {
	case SETTLED_ANSWERED:
		resp = json_get(rec, "response");
		say("ok", "ask", "answered in %lld s, through %s",
		    (long long)((monotonic_ms() - began + 500) / 1000),
		    json_get(resp, "source") != NULL &&
		    json_get(resp, "source")->type == J_STRING ?
		    sv_cstr_of(&a, sv_json(json_get(resp, "source"))) :
		    "an answer that names no source");
		break;
	case SETTLED_TIMEOUT:
	case SETTLED_OTHER:
		say("FAIL", "ask", "nobody answered in %d s: it reached no "
		    "surface you watch", ASK_SECONDS);
		break;
	default:
		say("FAIL", "ask", "the question was not answered (stopped, "
		    "or the journal failed)");
		break;
	}
	settle_done(&s);
	/* withdrawn, if still open: the doctor asks no more */
	ev.len = 0;
	event_open(&ev, &(struct event_head){ .type = "request.resolved",
	    .sender_id = "arc-doctor", .no_context = true }, &first);
	event_member(&ev, &first, "key", key);
	event_member(&ev, &first, "outcome", "cancelled");
	event_close(&ev, &(struct event_tail){ 0 });
	(void)apply_text(journal, &ev);
	if (stop_fd != -1)
		(void)close(p[0]);
	(void)close(p[1]);
done:
	buf_free(&ev);
	arena_free(&a);
}

int
doctor_main(int argc, char **argv)
{
	enum { O_WEB_USER = 256, O_ASK };
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "web-user", required_argument, NULL, O_WEB_USER },
		{ "ask", no_argument, NULL, O_ASK },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*option = NULL, *web_user = NULL;
	char		*journal;
	bool		 asking = false;
	int		 ch, status;

	while ((ch = getopt_long(argc, argv, "hj:V", longopts, NULL)) != -1)
		switch (ch) {
		case 'j':
			option = optarg;
			break;
		case O_WEB_USER:
			web_user = optarg;
			break;
		case O_ASK:
			asking = true;
			break;
		default:
			if (common_option(ch, usage, &status))
				return status;
			usage_print(stderr, usage, false);
			return EXIT_USAGE;
		}
	if (optind != argc)
		return usage_error(usage, "unexpected argument");
	if (!arc_now_init())
		errx(EXIT_USAGE, "ARC_NOW: not an RFC 3339 instant");
	journal = journal_default_path(option);
	look_journal(option, journal);
	look_hooks(journal);
	look_tmux(journal);
	look_notify(journal);
	look_web(web_user, journal);
	look_mqtt();
	if (asking)
		ask(option);
	free(journal);
	if (fflush(stdout) == EOF)
		return EXIT_SYSTEM;
	return failures > 0 ? EXIT_REJECTED : 0;
}
