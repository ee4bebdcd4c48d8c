/*
 * One program, named by argv[0]: arc-validate, arc-apply, arc-status,
 * arc-wait, arc-answer, arc-emit, arc-acp, arc-hook, arc-web, arc-doctor.  Kept apart so that the fuzz targets
 * can link the front ends without it.  Named arc, it is the front
 * command, as git and tmux have one: "arc status" runs arc-status, from
 * the folder arc itself is in when it is there, else from PATH.
 */
#include <sys/prctl.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcusage.h"

/*
 * Each program's main, one a file named after its man page (arc-apply.c,
 * ...), as s6 names s6-svc.c; declared here, the one file that calls them.
 */
int	validate_main(int, char **);
int	apply_main(int, char **);
int	status_main(int, char **);
int	wait_main(int, char **);
int	answer_main(int, char **);
int	emit_main(int, char **);

int	acp_main(int, char **);	/* arc-acp.c */
int	web_main(int, char **);	/* arc-web.c: CGI, in $(PREFIX)/lib/arc */
int	hook_main(int, char **);	/* arc-hook.c: agents' hooks */
int	doctor_main(int, char **);	/* arc-doctor.c: is it set up? */

/*
 * narrow: the program never gains privileges again (no_new_privs, as
 * doas and signify pledge): nothing it runs is set-user-ID.  arc-acp runs
 * an agent, whose commands may be (sudo), and is left as it is.
 */
static const struct command {
	const char	*name;
	int		(*main)(int, char **);
	bool		 narrow;
} commands[] = {
	{ "arc-validate", validate_main, true },
	{ "arc-apply", apply_main, true },
	{ "arc-status", status_main, true },
	{ "arc-wait", wait_main, true },
	{ "arc-answer", answer_main, true },
	{ "arc-emit", emit_main, true },
	{ "arc-acp", acp_main, false },
	{ "arc-web", web_main, true },
	{ "arc-hook", hook_main, true },
	{ "arc-doctor", doctor_main, true },
};

static const char front_usage[] =
"usage: arc command [argument ...]\n"
"       arc help [command]\n"
"\n"
"  status    what needs you: the bar, --list, --show, --follow\n"
"  answer    answer an open question, or pick one\n"
"  wait      wait until a question is settled\n"
"  emit      build an ARC event\n"
"  apply     apply events to the journal\n"
"  validate  check ARC events\n"
"  hook      an agent's hook (Claude Code, Codex, Gemini CLI)\n"
"  acp       between an editor and an ACP agent\n"
"  notify    the desktop, tmux, a command, a phone\n"
"  mqtt      the MQTT bridge\n"
"  doctor    is arc set up to reach you? a line for each piece\n"
"  help      this list; help COMMAND: that command's\n"
"\n"
"  arc COMMAND runs arc-COMMAND (its page: man arc-COMMAND).\n"
"  -h, --help     this text\n"
"  -V, --version  the version\n";

static const char *const fronts[] = { "status", "answer", "wait", "emit",
    "apply", "validate", "hook", "acp", "notify", "mqtt", "doctor" };

/* Runs arc-NAME with the arguments, from arc's own folder or PATH. */
static int
run_command(const char *name, char **args)
{
	char	 self[PATH_MAX], path[PATH_MAX + 32], *slash;
	ssize_t	 n;

	if (snprintf(path, sizeof(path), "arc-%s", name) >= (int)sizeof(path))
		return EXIT_USAGE;
	args[0] = path;
	/* a path that fills the buffer may be cut: not taken */
	if ((n = readlink("/proc/self/exe", self, sizeof(self))) > 0 &&
	    (size_t)n < sizeof(self)) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			if (snprintf(path, sizeof(path), "%s/arc-%s", self,
			    name) < (int)sizeof(path) && access(path, X_OK) == 0)
				execv(path, args);
		}
	}
	(void)snprintf(path, sizeof(path), "arc-%s", name);
	execvp(path, args);
	n = errno;	/* warn may change it */
	warn("%s", path);
	return n == ENOENT ? 127 : 126;
}

static const char *
front_named(const char *word)
{
	size_t	 i;

	for (i = 0; i < sizeof(fronts) / sizeof(fronts[0]); i++)
		if (strcmp(word, fronts[i]) == 0)
			return fronts[i];
	warnx("%s: not a command of arc (arc help lists them)", word);
	return NULL;
}

static int
front(int argc, char **argv)
{
	char		*help[] = { NULL, "--help", NULL };
	const char	*name;

	if (argc < 2)
		return usage_error(front_usage, "a command, please");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		usage_print(stdout, front_usage, true);
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		print_version();
		return 0;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc > 3)
			return usage_error(front_usage, "help takes one command");
		if ((name = front_named(argv[2])) == NULL)
			return EXIT_USAGE;
		return run_command(name, help);
	}
	if ((name = front_named(argv[1])) == NULL) {
		usage_print(stderr, front_usage, false);
		return EXIT_USAGE;
	}
	return run_command(name, argv + 1);
}

int
main(int argc, char **argv)
{
	const char	*name = getprogname();
	size_t		 i;

	if (!arc_now_init()) {
		warnx("ARC_NOW is not an RFC 3339 date-time");
		return EXIT_USAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0) {
			if (commands[i].narrow &&
			    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
				err(EXIT_SYSTEM, "prctl(PR_SET_NO_NEW_PRIVS)");
			return commands[i].main(argc, argv);
		}
	if (strcmp(name, "arc") == 0)
		return front(argc, argv);
	warnx("run me as arc, or as one of arc-validate, arc-apply, "
	    "arc-answer, arc-wait, arc-status, arc-emit, arc-acp, arc-hook "
	    "or arc-web");
	return EXIT_USAGE;
}
