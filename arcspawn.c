/*
 * The one starter of processes: posix_spawn(3) with every signal at its
 * default (POSIX_SPAWN_SETSIGDEF over the full set) and an empty mask
 * (POSIX_SPAWN_SETSIGMASK), and the three standard descriptors as asked.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include "arcspawn.h"

extern char **environ;

static int
stdio(posix_spawn_file_actions_t *fa, int fd, int to, int flags)
{
	if (fd == SPAWN_OURS)
		return 0;
	if (fd == SPAWN_NULL)
		return posix_spawn_file_actions_addopen(fa, to, "/dev/null",
		    flags, 0);
	return posix_spawn_file_actions_adddup2(fa, fd, to);
}

pid_t
spawn_start(const char *path, char *const argv[], int in, int out, int err,
    bool search)
{
	posix_spawn_file_actions_t	 fa;
	posix_spawnattr_t		 at;
	sigset_t			 all, none;
	pid_t				 pid;
	int				 e;

	if ((e = posix_spawn_file_actions_init(&fa)) != 0) {
		errno = e;
		return -1;
	}
	if ((e = posix_spawnattr_init(&at)) != 0) {
		(void)posix_spawn_file_actions_destroy(&fa);
		errno = e;
		return -1;
	}
	(void)sigfillset(&all);
	(void)sigemptyset(&none);
	if ((e = stdio(&fa, in, STDIN_FILENO, O_RDONLY)) == 0 &&
	    (e = stdio(&fa, out, STDOUT_FILENO, O_WRONLY)) == 0 &&
	    (e = stdio(&fa, err, STDERR_FILENO, O_WRONLY)) == 0 &&
	    (e = posix_spawnattr_setsigdefault(&at, &all)) == 0 &&
	    (e = posix_spawnattr_setsigmask(&at, &none)) == 0 &&
	    (e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF |
	    POSIX_SPAWN_SETSIGMASK)) == 0)
		e = search ? posix_spawnp(&pid, path, &fa, &at, argv, environ) :
		    posix_spawn(&pid, path, &fa, &at, argv, environ);
	(void)posix_spawn_file_actions_destroy(&fa);
	(void)posix_spawnattr_destroy(&at);
	if (e != 0) {
		errno = e;
		return -1;
	}
	return pid;
}

void
spawn_defaults(void)
{
	struct sigaction	 sa = { 0 };
	sigset_t		 none;
	int			 sig;

	sa.sa_handler = SIG_DFL;
	(void)sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &sa, NULL);	/* EINVAL: RT ones glibc keeps */
	(void)sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
}
