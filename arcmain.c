/*
 * One program, named by argv[0]: arc-validate, arc-apply, arc-status,
 * arc-wait, arc-answer, arc-emit, arc-acp, arc-hook, arc-web.  Kept apart so that the fuzz targets
 * can link the front ends without it.
 */
#include <sys/prctl.h>

#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"

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
};

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
	warnx("run me as one of arc-validate, arc-apply, arc-answer, "
	    "arc-wait, arc-status, arc-emit, arc-acp, arc-hook or arc-web");
	return EXIT_USAGE;
}
