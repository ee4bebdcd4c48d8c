/*
 * Files ours alone: opened only when no other user could have put them
 * there, created whole, temporaries beside them, folders made and synced
 * so that a new name survives a power cut; and the watch on a folder
 * that wakes a reader when a file in it changes.
 */
#include <sys/inotify.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arc.h"

char *
parent_of(const char *path)
{
	char *copy, *dir;

	if ((copy = strdup(path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	dir = strdup(dirname(copy));
	free(copy);
	if (dir == NULL)
		err(EXIT_SYSTEM, "strdup");
	return dir;
}

/* mkdir -p with mode 0700, for the journal's missing parents. */
bool
make_parents(const char *path)
{
	char	*dir = parent_of(path), *p;
	bool	 ok = true;

	for (p = dir + 1; ok; p++) {
		bool last = *p == '\0';
		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) == 0) {
			/* A new folder's name must survive a power cut too. */
			char *up = parent_of(dir);
			int fd = open(up, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd == -1 || fsync(fd) == -1) {
				warn("%s", up);
				ok = false;
			}
			if (fd != -1)
				(void)close(fd);
			free(up);
		} else if (errno != EEXIST) {
			warn("%s", dir);
			ok = false;
		}
		if (last)
			break;
		*p = '/';
	}
	free(dir);
	return ok;
}

bool
sync_parent(const char *path)
{
	char	*dir = parent_of(path);
	int	 fd;
	bool	 ok = true;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    fsync(fd) == -1) {
		warn("%s", dir);
		ok = false;
	}
	if (fd != -1)
		(void)close(fd);
	free(dir);
	return ok;
}

/*
 * A folder where another user could swap the journal for a file of theirs:
 * writable by group or others without the sticky bit, or owned by another
 * user than us or root.
 */
bool
folder_ours(const char *path)
{
	char		*dir = parent_of(path);
	struct stat	 sb;
	bool		 ok = true;

	if (stat(dir, &sb) == -1) {
		ok = errno == ENOENT;	/* a reader: nothing recorded yet */
		if (!ok)
			warn("%s", dir);
	} else if ((sb.st_uid != geteuid() && sb.st_uid != 0) ||
	    ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX))) {
		warnx("%s: the journal's folder is writable by other users; "
		    "refused", dir);
		ok = false;
	}
	free(dir);
	return ok;
}

/* Ours alone: a regular file of our user that nobody else may write. */
bool
file_ours(int fd, const char *path, struct stat *sb)
{
	if (fstat(fd, sb) == -1) {
		warn("%s", path);
		return false;
	}
	if (!S_ISREG(sb->st_mode)) {
		warnx("%s: not a regular file; refused", path);
		return false;
	}
	if (sb->st_uid != geteuid()) {
		warnx("%s: owned by another user; refused", path);
		return false;
	}
	if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
		warnx("%s: writable by group or others; refused", path);
		return false;
	}
	return true;
}

/*
 * A setting in a file beside the journal (the off-device setting, arc-web's
 * origin): whoever may write it decides, so it is read only when it is a
 * regular file of ours or root's that nobody else may write, never
 * through a link.  1: read into text (NUL-terminated, at most size - 2
 * bytes, no NUL inside); 0: there is none; -1: refused or unreadable
 * (said on stderr).
 */
int
setting_file(const char *journal, const char *name, char *text, size_t size)
{
	char		*dir, path[4096];
	struct stat	 sb;
	ssize_t		 r;
	size_t		 got = 0;
	int		 fd, len;

	if (size < 2 || (dir = parent_of(journal)) == NULL)
		return -1;
	len = snprintf(path, sizeof(path), "%s/%s", dir, name);
	free(dir);
	if (len < 0 || len >= (int)sizeof(path)) {
		warnx("the %s setting's path is too long", name);
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return 0;
		warn("%s", path);
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (sb.st_mode & 022) != 0 || (sb.st_uid != geteuid() &&
	    sb.st_uid != 0)) {
		warnx("%s: not a file of ours that only we may write", path);
		(void)close(fd);
		return -1;
	}
	while (got < size - 1) {
		if ((r = read(fd, text + got, size - 1 - got)) == -1) {
			if (errno == EINTR)
				continue;
			warn("%s", path);
			(void)close(fd);
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	(void)close(fd);
	text[got] = '\0';
	if (got == size - 1 || strlen(text) != got) {
		warnx("%s: too long, or not text", path);
		return -1;
	}
	return 1;
}

bool
write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/*
 * A temporary file beside the journal, ours alone: never an existing file,
 * never through a link.  Open to read as well: a compaction's writer goes
 * on reading the journal it wrote.
 */
int
open_temporary(const char *path, const char *kind, char **tmp)
{
	int fd;

	if (asprintf(tmp, "%s.%s.%ld", path, kind, (long)getpid()) == -1)
		err(EXIT_SYSTEM, "asprintf");
	fd = open(*tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	/*
	 * One there already is a dead process's that had our pid (no live
	 * one has it, and we remove ours): it goes, as the sweep would.
	 */
	if (fd == -1 && errno == EEXIST && unlink(*tmp) == 0)
		fd = open(*tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd == -1 || fchmod(fd, 0600) == -1) {
		warn("%s", *tmp);
		if (fd != -1) {
			(void)close(fd);
			(void)unlink(*tmp);
		}
		return -1;
	}
	return fd;
}

/*
 * Watches the journal's folder, so that appends and a compaction's rename
 * both wake us.  Without inotify, the caller polls.
 */
int
folder_watch(const char *path)
{
	char	*copy, *dir;
	int	 fd;

	if ((fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		return -1;
	if ((copy = strdup(path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	dir = dirname(copy);
	if (inotify_add_watch(fd, dir, IN_MODIFY | IN_CLOSE_WRITE |
	    IN_MOVED_TO | IN_CREATE) == -1) {
		(void)close(fd);
		fd = -1;
	}
	free(copy);
	return fd;
}

/*
 * Reads the pending events; true when one concerns the journal itself (an
 * append, or a compaction renaming a new file over it), not a neighbour
 * (base NULL: when there was any).  The reads are bounded: a folder that
 * changes without pause (a trace written beside the journal) would
 * otherwise keep us reading and never looking; past the bound, we look.
 */
bool
folder_watch_read(int fd, const char *base)
{
	char	 ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t	 n;
	bool	 ours = false;
	int	 reads = 0;

	while ((n = read(fd, ev, sizeof(ev))) > 0) {
		if (++reads > 4)
			return true;
		char *p = ev;
		while (p < ev + n) {
			const struct inotify_event *e = (const void *)p;
			if (base == NULL ||
			    (e->len > 0 && strcmp(e->name, base) == 0))
				ours = true;
			/* A waiter's mark (arcwaiter.h): one came or went. */
			if (base != NULL && e->len > 0 &&
			    strncmp(e->name, base, strlen(base)) == 0 &&
			    strncmp(e->name + strlen(base), ".wait.", 6) == 0)
				ours = true;
			if (e->mask & IN_Q_OVERFLOW)
				ours = true;
			p += sizeof(*e) + e->len;
		}
	}
	return ours;
}

/* Milliseconds since an arbitrary start, from the monotonic clock. */
int64_t
monotonic_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(EXIT_SYSTEM, "clock_gettime");
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Sleeps until the watched folder (fd, from folder_watch; -1 for none)
 * reports a change to base, or ms pass.  false, at once, when out (a
 * descriptor whose reader may go away, or -1) has nobody reading it.
 */
bool
folder_sleep(int fd, const char *base, int64_t ms, int out)
{
	struct pollfd	 pfd[2];
	int64_t		 until = monotonic_ms() + (ms < 1 ? 1 : ms), left;
	int		 n = 0, w;

	if (out != -1) {
		pfd[n].fd = out;
		pfd[n++].events = 0;	/* POLLERR: a pipe's reader gone */
	}
	w = n;
	if (fd != -1) {
		pfd[n].fd = fd;
		pfd[n++].events = POLLIN;
	}
	while ((left = until - monotonic_ms()) > 0) {
		if (poll(pfd, (nfds_t)n, (int)(left > 60000 ? 60000 : left)) ==
		    -1) {
			if (errno == EINTR)
				continue;
			err(EXIT_SYSTEM, "poll");
		}
		if (out != -1 && (pfd[0].revents & (POLLERR | POLLHUP |
		    POLLNVAL)))
			return false;
		if (fd != -1 && (pfd[w].revents & POLLIN) &&
		    folder_watch_read(fd, base))
			break;
	}
	return true;
}
