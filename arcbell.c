/*
 * The journal's doorbell: a futex word in a shared mapping of a small
 * file, rung by writers after their sync.  See arcbell.h.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arc.h"
#include "arcbell.h"

#define BELL_SIZE	64	/* two words, then the durable end */
#define MARK_AT		8

_Static_assert(MARK_AT + sizeof(struct bell_mark) <= BELL_SIZE,
    "the durable end fits the bell");

/* The word this process sleeps on, for bell_interrupt(). */
static _Atomic uint32_t *volatile sleeping_on;

static long
futex(_Atomic uint32_t *word, int op, uint32_t val,
    const struct timespec *timeout)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, timeout, NULL, 0);
}

static bool
open_bell(struct bell *w, const char *journal_path, int creat)
{
	struct stat	 sb;
	char		*path;
	void		*map;
	int		 fd;

	w->word = NULL;
	if (asprintf(&path, "%s.wake", journal_path) == -1)
		err(EXIT_SYSTEM, "asprintf");
	fd = open(path, O_RDWR | creat | O_NOFOLLOW | O_CLOEXEC, 0600);
	free(path);
	if (fd == -1)
		return false;
	/* Ours alone, as the journal is: nobody else may ring or stop it. */
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & 022) != 0 ||
	    (sb.st_size < BELL_SIZE && ftruncate(fd, BELL_SIZE) == -1)) {
		(void)close(fd);
		return false;
	}
	map = mmap(NULL, BELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	(void)close(fd);	/* the mapping keeps the file */
	if (map == MAP_FAILED)
		return false;
	w->word = map;
	return true;
}

bool
bell_open(struct bell *w, const char *journal_path)
{
	return open_bell(w, journal_path, O_CREAT);
}

bool
bell_open_existing(struct bell *w, const char *journal_path)
{
	return open_bell(w, journal_path, 0);
}

void
bell_close(struct bell *w)
{
	if (w->word == NULL)
		return;
	if (sleeping_on == w->word)
		sleeping_on = NULL;
	(void)munmap((void *)w->word, BELL_SIZE);
	w->word = NULL;
}

uint32_t
bell_listen(struct bell *w)
{
	sleeping_on = w->word;
	return atomic_load(&w->word[0]);
}

void
bell_ring(struct bell *w)
{
	if (w->word == NULL)
		return;
	atomic_fetch_add(&w->word[0], 1);
	/*
	 * A sleeper counts itself before it sleeps, and the kernel compares
	 * the count as it puts it to sleep: either it sees our ring, or we
	 * see it and wake it.  Nobody asleep: no system call.
	 */
	if (atomic_load(&w->word[1]) != 0)
		(void)futex(&w->word[0], FUTEX_WAKE, INT_MAX, NULL);
}

bool
bell_sleep(struct bell *w, uint32_t seen, int64_t ms)
{
	struct timespec	 ts;

	if (atomic_load(&w->word[0]) != seen)
		return true;
	if (ms < 0)
		ms = 0;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	atomic_fetch_add(&w->word[1], 1);
	/* EAGAIN: it moved first; EINTR, ETIMEDOUT: the caller looks. */
	(void)futex(&w->word[0], FUTEX_WAIT, seen, &ts);
	atomic_fetch_sub(&w->word[1], 1);
	return atomic_load(&w->word[0]) != seen;
}

void
bell_interrupt(void)
{
	_Atomic uint32_t *word = sleeping_on;
	int		  saved = errno;

	if (word != NULL) {
		atomic_fetch_add(&word[0], 1);
		(void)futex(&word[0], FUTEX_WAKE, INT_MAX, NULL);
	}
	errno = saved;
}

void
bell_mark(struct bell *w, const struct bell_mark *m)
{
	if (w->word != NULL)
		memcpy((char *)w->word + MARK_AT, m, sizeof(*m));
}

bool
bell_marked(struct bell *w, struct bell_mark *m)
{
	if (w->word == NULL)
		return false;
	memcpy(m, (char *)w->word + MARK_AT, sizeof(*m));
	return m->end != 0;
}
