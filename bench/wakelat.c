/*
 * Answer-to-wake latency of arc-wait: for each question, start arc-wait,
 * let it block, answer with arc-answer, and stamp (CLOCK_REALTIME) the
 * moment arc-wait's output arrives on our pipe.  Both commands' pipes are
 * watched at once: the waiter may run, and print, before the answer's
 * writer has printed its own result.
 *
 * The latency runs from the moment the answer's writer may write: this
 * harness holds a shared lock on the journal while arc-answer starts, so
 * that arc-answer waits at its exclusive lock, and lets it go at a time
 * it stamps itself.  From there on the answer's record is written and
 * synced, the bell rung, arc-wait woken, and its line read and printed.
 * The answer's accepted_at (taken under the lock, just before its record
 * is written) is in whole milliseconds, which alone adds half of one to
 * a median of latencies counted from it; that figure is printed too.
 * The hand-over runs from the answer durable (the first of arc-answer's
 * result and arc-wait's line on our pipes: each comes only after the
 * answer's fdatasync) until arc-wait has exited and is reaped, what a
 * producer blocked on arc-wait waits for.
 * usage: wakelat JOURNAL COUNT   (questions w1..wCOUNT already pending)
 */
#include <sys/file.h>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static pid_t
run(char *const argv[], int *out)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int p[2];

	if (pipe(p) == -1)
		exit(3);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0)
		exit(3);
	close(p[1]);
	*out = p[0];
	return pid;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* "...T07:16:49.104Z" -> ms since the epoch */
static double
accepted_ms(const char *s)
{
	struct tm tm = { 0 };
	int ms = 0;
	const char *p = strstr(s, "\"accepted_at\":\"");

	if (p == NULL || sscanf(p + 15, "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year,
	    &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec,
	    &ms) < 6)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return timegm(&tm) * 1e3 + ms;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 200, i, fw, fa;
	double *lat = calloc((size_t)n, sizeof(double));
	double *hand = calloc((size_t)n, sizeof(double));
	double *from_lock = calloc((size_t)n, sizeof(double));
	double *to_durable = calloc((size_t)n, sizeof(double));
	char key[32], buf[8192];

	for (i = 0; i < n; i++) {
		struct pollfd pfd[2];
		/* the pause bench/check's WAKELAT_PAUSE mirrors */
		struct timespec settle = { 0, 30 * 1000 * 1000 };
		size_t got = 0;
		ssize_t r;
		double woke, durable, exited, let_go;
		pid_t w, a;
		int lock;

		snprintf(key, sizeof(key), "w%d", i + 1);
		char *wait_argv[] = { "arc-wait", "-j", argv[1], "-t", "10",
		    key, NULL };
		char *answer_argv[] = { "arc-answer", "-j", argv[1], key, "a",
		    NULL };
		w = run(wait_argv, &fw);
		nanosleep(&settle, NULL);	/* let it block in poll(2) */
		/* arc-answer starts, and waits at its lock until let go */
		if ((lock = open(argv[1], O_RDONLY | O_CLOEXEC)) == -1 ||
		    flock(lock, LOCK_SH) == -1)
			exit(3);
		a = run(answer_argv, &fa);
		nanosleep(&settle, NULL);
		let_go = now_ms();
		if (flock(lock, LOCK_UN) == -1)
			exit(3);
		close(lock);
		/*
		 * Both pipes at once, each stamped as it becomes readable:
		 * arc-wait's line may come before arc-answer's result (the
		 * waiter runs as soon as the writer lets go of its lock).
		 */
		pfd[0] = (struct pollfd){ .fd = fa, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = fw, .events = POLLIN };
		durable = woke = -1;
		while (durable < 0 || woke < 0) {
			if (poll(pfd, 2, 10000) <= 0)
				exit(3);
			if (pfd[0].revents != 0) {
				durable = now_ms();
				pfd[0].fd = -1;
			}
			if (pfd[1].revents != 0) {
				woke = now_ms();
				pfd[1].fd = -1;
			}
		}
		waitpid(w, NULL, 0);
		exited = now_ms();
		while ((r = read(fa, buf + got, sizeof(buf) - 1 - got)) > 0)
			got += (size_t)r;
		buf[got] = '\0';
		waitpid(a, NULL, 0);
		close(fw);
		close(fa);
		lat[i] = woke - accepted_ms(buf);
		from_lock[i] = woke - let_go;
		to_durable[i] = durable - let_go;
		hand[i] = exited - (woke < durable ? woke : durable);
	}
	qsort(from_lock, (size_t)n, sizeof(double), cmp);
	printf("median %.2f ms, p99 %.2f ms, max %.2f ms over %d answers "
	    "(target: median < 1 ms)\n", from_lock[(n - 1) / 2],
	    from_lock[(int)(n * 0.99 + 0.5) - 1], from_lock[n - 1], n);
	qsort(to_durable, (size_t)n, sizeof(double), cmp);
	printf("arc-answer's own result at the harness (printed after its "
	    "sync, once it lets go of the lock): median %.2f ms\n",
	    to_durable[(n - 1) / 2]);
	qsort(lat, (size_t)n, sizeof(double), cmp);
	printf("the same from the answer's accepted_at (whole ms): median "
	    "%.2f ms, p99 %.2f ms\n", lat[(n - 1) / 2],
	    lat[(int)(n * 0.99 + 0.5) - 1]);
	qsort(hand, (size_t)n, sizeof(double), cmp);
	printf("hand-over, the answer durable until arc-wait has exited: "
	    "median %.2f ms, p99 %.2f ms (target: median <= 1 ms)\n",
	    hand[(n - 1) / 2], hand[(int)(n * 0.99 + 0.5) - 1]);
	return 0;
}
