/*
 * Handing an event to a command: the one way an event leaves by a
 * command's standard input (arc-answer --via, a mirror's route).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "arc.h"
#include "arcspawn.h"
#include "arcfilter.h"
#include "arcvia.h"

/*
 * Writes an event to sh -c command's standard input (a --via, or the route
 * a mirror recorded); its exit status.  Its standard output is ours, or out
 * when out is not -1 (a CGI's response is no place for a bridge's words).
 */
int
send_via(const char *command, const struct buf *ev, int out)
{
	struct sigaction	 ign, old;
	pid_t			 pid;
	int			 fd[2], st;
	size_t			 off = 0;
	ssize_t			 w;

	flush_stdout();
	if (pipe2(fd, O_CLOEXEC) == -1)
		err(EXIT_SYSTEM, "pipe");
	if ((pid = spawn_start("/bin/sh", (char *[]){ "sh", "-c",
	    (char *)command, NULL }, fd[0], out != -1 ? out : SPAWN_OURS,
	    SPAWN_OURS, false)) == -1)
		err(EXIT_SYSTEM, "/bin/sh");
	(void)close(fd[0]);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	(void)sigaction(SIGPIPE, &ign, &old);
	while (off < ev->len) {
		if ((w = write(fd[1], ev->p + off, ev->len - off)) == -1) {
			if (errno == EINTR)
				continue;
			break;	/* it stopped reading: its status tells */
		}
		off += (size_t)w;
	}
	(void)close(fd[1]);
	(void)sigaction(SIGPIPE, &old, NULL);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			err(EXIT_SYSTEM, "waitpid");
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
