/*
 * Work fanned out (arcfanout.h).  Each worker writes its result to a
 * pipe; we read every running worker's pipe as it fills (a worker
 * blocked on a full pipe would never end), and reap it at its pipe's
 * end: its bytes count only when it exited 0, having written them all.
 * Workers die with us (PR_SET_PDEATHSIG), and write nothing but their
 * pipe and their warnings.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcfanout.h"

#define FANOUT_MAX	4	/* workers at once, on however many cores */
#define FANOUT_READ	65536	/* a pipe's bytes read at a time */

struct worker {
	pid_t		 pid;
	int		 fd;
	size_t		 item;
	bool		 broken;	/* its pipe failed us */
	struct buf	 got;
};

/* The cores we may run on (taskset, a container's share), at most four. */
static size_t
jobs(void)
{
	cpu_set_t	 set;
	long		 n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > FANOUT_MAX ? FANOUT_MAX : (size_t)n;
}

/* An item done by the caller itself. */
static bool
here(size_t item, fanout_work *work, fanout_take *take, void *arg)
{
	struct buf	 out = { 0 };
	bool		 ok;

	if ((ok = work(item, &out, arg)))
		take(item, &out, arg);
	buf_free(&out);
	return ok;
}

/* false: no worker (no pipe, no process), nothing started. */
static bool
start(struct worker *w, size_t item, fanout_work *work, void *arg)
{
	struct buf	 out = { 0 };
	pid_t		 parent = getpid();
	int		 p[2];
	bool		 ok;

	if (pipe2(p, O_CLOEXEC) == -1)
		return false;
	(void)fflush(stdout);	/* nothing of ours for a worker to write */
	if ((w->pid = fork()) == -1) {
		(void)close(p[0]);
		(void)close(p[1]);
		return false;
	}
	if (w->pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);	/* gone already: nobody reads it */
		(void)close(p[0]);
		ok = work(item, &out, arg) && write_all(p[1], out.p != NULL ?
		    out.p : "", out.len);
		_exit(ok ? 0 : 1);
	}
	(void)close(p[1]);
	w->fd = p[0];
	w->item = item;
	w->broken = false;
	memset(&w->got, 0, sizeof(w->got));
	return true;
}

/* What the pipe has now; true at its end (the pipe closed). */
static bool
drain(struct worker *w, const char *name)
{
	ssize_t	 n;

	buf_reserve(&w->got, FANOUT_READ);
	n = read(w->fd, w->got.p + w->got.len, FANOUT_READ);
	if (n > 0) {
		w->got.len += (size_t)n;
		return false;
	}
	if (n == -1 && errno == EINTR)
		return false;
	if (n == -1) {
		warn("%s: its worker's pipe", name);
		w->broken = true;
	}
	(void)close(w->fd);
	return true;
}

/* The worker reaped: whether it did its item whole. */
static bool
ended(struct worker *w, const char *name)
{
	int	 status;

	while (waitpid(w->pid, &status, 0) == -1)
		if (errno != EINTR) {
			warn("%s: waitpid", name);
			return false;
		}
	if (WIFSIGNALED(status))
		warnx("%s: its worker was killed (signal %d); skipped", name,
		    WTERMSIG(status));
	return !w->broken && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool
fanout(size_t items, const char *const *names, fanout_work *work,
    fanout_take *take, void *arg)
{
	struct worker		 w[FANOUT_MAX];
	struct pollfd		 pfd[FANOUT_MAX];
	struct sigaction	 sa;
	size_t			 most = jobs(), running = 0, next = 0, i;
	bool			 ok = true;

	/* SIGCHLD ignored (inherited so) would reap them before we could. */
	if (sigaction(SIGCHLD, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
		(void)signal(SIGCHLD, SIG_DFL);
	while (next < items || running > 0) {
		while (running < most && next < items) {
			if (start(&w[running], next, work, arg))
				running++;
			else
				ok = here(next, work, take, arg) && ok;
			next++;
		}
		if (running == 0)
			continue;
		for (i = 0; i < running; i++) {
			pfd[i].fd = w[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		if (poll(pfd, running, -1) == -1) {
			if (errno == EINTR)
				continue;
			err(EXIT_SYSTEM, "poll");
		}
		/* From the last: an ended worker's place takes the last's. */
		for (i = running; i-- > 0; ) {
			if (pfd[i].revents == 0 ||
			    !drain(&w[i], names[w[i].item]))
				continue;
			if (ended(&w[i], names[w[i].item]))
				take(w[i].item, &w[i].got, arg);
			else
				ok = false;
			buf_free(&w[i].got);
			w[i] = w[--running];
		}
	}
	return ok;
}
