/*
 * Work fanned out (arcfanout.h).  A worker is a process of our own that
 * does one item after another: it reads an item's number on its socket,
 * does it, and writes back a frame (the item's number, whether it was
 * done, the length of its bytes, the bytes), then waits for the next.
 * In turn in one process, an item finds the memory the last one made
 * the worker's own already there: a fresh page must be cleared, and on
 * a guest whose host took back the free memory it reported, faulted in
 * by the host too.
 *
 * We read every busy worker's socket as it fills (a worker blocked on a
 * full one would never end).  An item counts once its frame is whole and
 * says done.  A worker that ends in the middle of an item (killed, or
 * ended by err(3)) fails that item alone: those not yet given out go to
 * the others, or to a worker started in its place.  Workers die with us
 * (PR_SET_PDEATHSIG), and write nothing but their socket and their
 * warnings.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcfanout.h"

#define FANOUT_MAX	4	/* workers at once, on however many cores */

/* A frame's head: the item, 1 done or 0 failed, its bytes' length. */
#define HEAD_WORDS	3
#define HEAD_SIZE	(HEAD_WORDS * sizeof(uint64_t))

struct worker {
	pid_t		 pid;
	int		 fd;	/* a socket: items to it, frames from it */
	bool		 busy;	/* an item given, its frame not yet whole */
	bool		 closed;	/* told there are no more */
	size_t		 item;
	uint64_t	 head[HEAD_WORDS];
	size_t		 head_got;
	struct buf	 got;	/* the frame's bytes, head[2] of them */
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

/* n bytes, through signals and short reads: 1, 0 at the end, -1 failed. */
static int
read_exactly(int fd, void *to, size_t n)
{
	size_t	 got = 0;
	ssize_t	 r;

	while (got < n) {
		if ((r = read(fd, (char *)to + got, n - got)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			return got == 0 ? 0 : -1;
		got += (size_t)r;
	}
	return 1;
}

/* In the worker: items until we say there are no more. */
static void __attribute__((noreturn))
serve(int fd, fanout_work *work, void *arg)
{
	struct buf	 out = { 0 };
	uint64_t	 item, head[HEAD_WORDS];
	int		 r;
	bool		 done;

	while ((r = read_exactly(fd, &item, sizeof(item))) == 1) {
		out.len = 0;
		done = work((size_t)item, &out, arg);
		head[0] = item;
		head[1] = done;
		head[2] = done ? out.len : 0;
		if (!write_all(fd, (const char *)head, HEAD_SIZE) ||
		    (done && out.len > 0 && !write_all(fd, out.p, out.len)))
			_exit(1);
	}
	_exit(r == 0 ? 0 : 1);
}

/*
 * A worker in w[n], the others running before it: false, no worker (no
 * socket, no process), nothing started.
 */
static bool
start(struct worker *others, size_t n, fanout_work *work, void *arg)
{
	struct worker	*w = &others[n];
	pid_t		 parent = getpid();
	int		 s[2];
	size_t		 i;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) == -1)
		return false;
	(void)fflush(stdout);	/* nothing of ours for a worker to write */
	if ((w->pid = fork()) == -1) {
		(void)close(s[0]);
		(void)close(s[1]);
		return false;
	}
	if (w->pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);	/* gone already: nobody reads it */
		(void)close(s[0]);
		/* Our copies of the others' sockets would keep them open. */
		for (i = 0; i < n; i++)
			(void)close(others[i].fd);
		serve(s[1], work, arg);
	}
	(void)close(s[1]);
	w->fd = s[0];
	w->busy = w->closed = false;
	w->got = (struct buf){ NULL, 0, 0 };
	return true;
}

/* An item to an idle worker: false, it is gone (its end is read next). */
static bool
give(struct worker *w, size_t item)
{
	uint64_t	 n = item;

	if (send(w->fd, &n, sizeof(n), MSG_NOSIGNAL) != (ssize_t)sizeof(n))
		return false;
	w->busy = true;
	w->item = item;
	w->head_got = 0;
	return true;
}

/* No more items: the worker ends when it reads that. */
static void
dismiss(struct worker *w)
{
	(void)shutdown(w->fd, SHUT_WR);
	w->closed = true;
}

/*
 * The worker reaped.  One that ended in the middle of an item fails it:
 * killed, that is said here; ended by err(3), it said why itself.
 */
static void
ended(struct worker *w, const char *const *names)
{
	int	 status;

	while (waitpid(w->pid, &status, 0) == -1)
		if (errno != EINTR) {
			warn("waitpid");
			return;
		}
	if (w->busy && WIFSIGNALED(status))
		warnx("%s: its worker was killed (signal %d); skipped",
		    names[w->item], WTERMSIG(status));
}

enum heard { HEARD_MORE, HEARD_FRAME, HEARD_END, HEARD_WRONG };

/*
 * What the socket has now: more of a frame, a frame whole (its head in
 * w->head, its bytes in w->got), the worker's end (the socket closed),
 * or what is not a frame of the item given.
 */
static enum heard
hear(struct worker *w)
{
	ssize_t	 n;

	if (w->busy && w->head_got < HEAD_SIZE) {
		n = read(w->fd, (char *)w->head + w->head_got,
		    HEAD_SIZE - w->head_got);
		if (n > 0 && (w->head_got += (size_t)n) == HEAD_SIZE) {
			if (w->head[0] != w->item || w->head[1] > 1 ||
			    (w->head[1] == 0 && w->head[2] != 0) ||
			    w->head[2] > SIZE_MAX / 2)
				return HEARD_WRONG;
			w->got.len = 0;
			w->got.cap = (size_t)w->head[2] + 1;	/* exactly */
			if ((w->got.p = malloc(w->got.cap)) == NULL)
				err(EXIT_SYSTEM, "malloc");
		}
	} else if (w->busy && w->got.len < w->head[2]) {
		n = read(w->fd, w->got.p + w->got.len,
		    (size_t)w->head[2] - w->got.len);
		if (n > 0)
			w->got.len += (size_t)n;
	} else {
		char	 c;

		n = read(w->fd, &c, 1);	/* idle: only its end may come */
		if (n > 0)
			return HEARD_WRONG;
	}
	if (n == -1 && errno == EINTR)
		return HEARD_MORE;
	if (n <= 0)
		return HEARD_END;
	return w->busy && w->head_got == HEAD_SIZE &&
	    w->got.len == w->head[2] ? HEARD_FRAME : HEARD_MORE;
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
		for (i = 0; i < running; i++) {
			if (w[i].busy || w[i].closed)
				continue;
			if (next < items && give(&w[i], next))
				next++;
			else
				dismiss(&w[i]);
		}
		while (running < most && next < items) {
			if (start(w, running, work, arg)) {
				if (give(&w[running++], next)) {
					next++;
					continue;
				}
				/* one that takes no item is let go */
				dismiss(&w[running - 1]);
			}
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
			if (pfd[i].revents == 0)
				continue;
			switch (hear(&w[i])) {
			case HEARD_MORE:
				break;
			case HEARD_FRAME:
				w[i].busy = false;
				if (w[i].head[1] == 1)
					take(w[i].item, &w[i].got, arg);
				else
					ok = false;	/* it warned */
				buf_free(&w[i].got);
				break;
			case HEARD_WRONG:
				/* ours, gone wrong: it is ended, not heard on */
				if (w[i].busy) {
					warnx("%s: what its worker sent is not "
					    "what was asked; skipped",
					    names[w[i].item]);
					ok = false;
					w[i].busy = false;
				}
				(void)kill(w[i].pid, SIGKILL);
				/* FALLTHROUGH */
			case HEARD_END:
				(void)close(w[i].fd);
				ended(&w[i], names);
				if (w[i].busy)
					ok = false;
				buf_free(&w[i].got);
				w[i] = w[--running];
				break;
			}
		}
	}
	return ok;
}
