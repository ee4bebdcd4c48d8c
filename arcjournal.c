/*
 * The journal: an append-only NDJSON file of records, shared by any number
 * of processes.  Each holds flock(2) while it catches up on what others
 * appended, applies, appends and syncs.  As in Redis's append-only file, a
 * torn final record (a crash mid-append) is cut off with a warning, while a
 * damaged record anywhere else stops the command: it is never skipped.
 */
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcjournal.h"

#define RECORD_MAX	(64 * 1024 * 1024)	/* longest record accepted */

/* -j, then $ARC_JOURNAL, $XDG_STATE_HOME/arc/journal, ~/.local/state/... */
char *
journal_default_path(const char *option)
{
	const char	*env;
	char		*path;

	if (option != NULL)
		path = strdup(option);
	else if ((env = getenv("ARC_JOURNAL")) != NULL && *env != '\0')
		path = strdup(env);
	else if ((env = getenv("XDG_STATE_HOME")) != NULL && *env == '/') {
		if (asprintf(&path, "%s/arc/journal", env) == -1)
			path = NULL;
	} else if ((env = getenv("HOME")) != NULL && *env != '\0') {
		if (asprintf(&path, "%s/.local/state/arc/journal", env) == -1)
			path = NULL;
	} else {
		errx(EXIT_USAGE, "no journal: use -j, or set ARC_JOURNAL or "
		    "HOME");
	}
	if (path == NULL)
		err(EXIT_SYSTEM, "malloc");
	return path;
}

static char *
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
static bool
make_parents(const char *path)
{
	char	*dir = parent_of(path), *p;
	bool	 ok = true;

	for (p = dir + 1; ok; p++) {
		bool last = *p == '\0';
		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
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

static bool
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

static bool
open_file(struct journal *j)
{
	struct stat	 sb;
	int		 flags = O_CLOEXEC | (j->writable ? O_RDWR : O_RDONLY);

	j->fd = -1;
	if (j->writable) {
		if (!make_parents(j->path))
			return false;
		j->fd = open(j->path, flags | O_CREAT | O_EXCL, 0600);
		if (j->fd != -1) {
			/* Ours alone, whatever the umask says. */
			if (fchmod(j->fd, 0600) == -1 ||
			    !sync_parent(j->path)) {
				warn("%s", j->path);
				return false;
			}
		} else if (errno != EEXIST) {
			warn("%s", j->path);
			return false;
		}
	}
	if (j->fd == -1 && (j->fd = open(j->path, flags)) == -1) {
		if (errno == ENOENT && !j->writable) {
			j->missing = true;	/* nothing recorded yet */
			return true;
		}
		warn("%s", j->path);
		return false;
	}
	if (fstat(j->fd, &sb) == -1) {
		warn("%s", j->path);
		return false;
	}
	j->missing = false;
	j->dev = sb.st_dev;
	j->ino = sb.st_ino;
	j->offset = 0;
	state_free(j->st);
	j->st = state_new();
	state_set_file(j->st, j->fd);
	if (!j->writable)
		state_for_readers(j->st);
	return true;
}

bool
journal_open(struct journal *j, const char *path, bool writable)
{
	memset(j, 0, sizeof(*j));
	if ((j->path = strdup(path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	j->writable = writable;
	j->fd = -1;
	j->st = state_new();
	return open_file(j);
}

void
journal_close(struct journal *j)
{
	if (j->fd != -1)
		(void)close(j->fd);
	j->fd = -1;
	state_free(j->st);
	j->st = NULL;
	arena_free(&j->arena);
	free(j->path);
	j->path = NULL;
}

/* Cuts a torn final record; only a writer, holding LOCK_EX, may. */
static bool
repair_tail(struct journal *j, uint64_t at, uint64_t torn)
{
	if (!j->writable || !j->exclusive)
		return true;	/* the next writer repairs it */
	warnx("%s: dropping a torn final record at byte %llu (%llu bytes)",
	    j->path, (unsigned long long)at, (unsigned long long)torn);
	if (ftruncate(j->fd, (off_t)at) == -1 || fdatasync(j->fd) == -1) {
		warn("%s", j->path);
		return false;
	}
	return true;
}

/* Replays the complete records in data[0..n), found at j->offset on. */
static bool
replay(struct journal *j, const char *data, size_t n, size_t *used)
{
	size_t	 start = 0, len;
	char	*nl;

	while ((nl = memchr(data + start, '\n', n - start)) != NULL) {
		len = (size_t)(nl - (data + start));
		arena_reset(&j->arena);
		if (j->offset == 0 && (len != strlen(JOURNAL_HEADER) ||
		    memcmp(data, JOURNAL_HEADER, len) != 0)) {
			warnx("%s: not an arc journal (no header line)",
			    j->path);
			return false;
		}
		if (len > RECORD_MAX || !state_load_record(j->st, &j->arena,
		    data + start, len, j->offset)) {
			warnx("%s: damaged record at byte %llu; the journal "
			    "cannot be read safely", j->path,
			    (unsigned long long)j->offset);
			return false;
		}
		j->offset += len + 1;
		start += len + 1;
	}
	*used = start;
	return true;
}

/*
 * Replays what was appended since j->offset, in place from read-only
 * mappings of at most WINDOW bytes, so that memory stays bounded however
 * long the journal (the lock keeps writers from cutting the file).
 */
#define WINDOW	(64 * 1024 * 1024)

static bool
catch_up(struct journal *j)
{
	struct stat	 sb;
	uint64_t	 page = (uint64_t)sysconf(_SC_PAGESIZE), size, base;
	size_t		 maplen, used, window = WINDOW;
	char		*map;
	bool		 ok;

	if (fstat(j->fd, &sb) == -1) {
		warn("%s", j->path);
		return false;
	}
	size = (uint64_t)sb.st_size;
	if (j->offset == 0)
		state_expect_bytes(j->st, size);
	while (j->offset < size) {
		base = j->offset & ~(page - 1);
		maplen = size - base < window ? (size_t)(size - base) : window;
		map = mmap(NULL, maplen, PROT_READ, MAP_PRIVATE, j->fd,
		    (off_t)base);
		if (map == MAP_FAILED) {
			warn("%s: mmap", j->path);
			return false;
		}
		(void)madvise(map, maplen, MADV_SEQUENTIAL);
		ok = replay(j, map + (j->offset - base),
		    (size_t)(base + maplen - j->offset), &used);
		(void)munmap(map, maplen);
		if (!ok)
			return false;
		if (used > 0)
			continue;
		/* No whole record in the window: the end, or a long one. */
		if (base + maplen == size)
			return repair_tail(j, j->offset, size - j->offset);
		if (window > RECORD_MAX) {
			warnx("%s: record at byte %llu is longer than %d bytes",
			    j->path, (unsigned long long)j->offset,
			    RECORD_MAX);
			return false;
		}
		window *= 2;
	}
	return true;
}

static bool
replaced(struct journal *j)
{
	struct stat sb;

	if (stat(j->path, &sb) == -1)
		return errno == ENOENT;
	return sb.st_dev != j->dev || sb.st_ino != j->ino;
}

/*
 * Takes the lock and brings the state up to date.  A journal that was
 * compacted (renamed over) while we waited is reopened and replayed.
 */
bool
journal_lock(struct journal *j, bool exclusive)
{
	for (;;) {
		if (j->missing) {
			if (!open_file(j))
				return false;
			if (j->missing)
				return true;	/* still nothing to read */
		}
		while (flock(j->fd, exclusive ? LOCK_EX : LOCK_SH) == -1) {
			if (errno != EINTR) {
				warn("%s: flock", j->path);
				return false;
			}
		}
		j->exclusive = exclusive;
		if (!replaced(j))
			break;
		(void)close(j->fd);
		j->fd = -1;
		if (!open_file(j))
			return false;
	}
	return catch_up(j);
}

void
journal_unlock(struct journal *j)
{
	if (j->fd != -1 && !j->missing)
		(void)flock(j->fd, LOCK_UN);
	j->exclusive = false;
}

static bool
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
 * Appends records and syncs them: only then may a result be printed.  On
 * failure the file is cut back to where it was, and nothing is reported
 * as stored.
 */
bool
journal_append(struct journal *j, const struct buf *records)
{
	uint64_t start = j->offset, base;
	int saved;

	if (records->len == 0)
		return true;
	if (j->offset == 0 && !write_all(j->fd, JOURNAL_HEADER "\n",
	    sizeof(JOURNAL_HEADER)))
		goto fail;
	base = j->offset == 0 ? sizeof(JOURNAL_HEADER) : j->offset;
	if (lseek(j->fd, 0, SEEK_END) == -1 ||
	    !write_all(j->fd, records->p, records->len) ||
	    fdatasync(j->fd) == -1)
		goto fail;
	j->offset = base + records->len;
	state_batch_stored(j->st, base);
	return true;
fail:
	saved = errno;
	(void)ftruncate(j->fd, (off_t)start);
	errno = saved;
	warn("%s: cannot store records", j->path);
	return false;
}

/*
 * Rewrites the journal to what the current state and the idempotency
 * window need: a new file, synced, renamed over the old one.
 */
bool
journal_compact(struct journal *j, const char *now, int64_t window)
{
	struct buf	 out = { 0 };
	char		*tmp;
	int		 fd;
	bool		 ok = false;

	if (!journal_lock(j, true))
		return false;
	state_compact(j->st, &j->arena, now, window, &out);
	if (asprintf(&tmp, "%s.compact.%ld", j->path, (long)getpid()) == -1)
		err(EXIT_SYSTEM, "asprintf");
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		warn("%s", tmp);
		goto done;
	}
	if (fchmod(fd, 0600) == -1 || !write_all(fd, out.p, out.len) ||
	    fsync(fd) == -1) {
		warn("%s", tmp);
		(void)close(fd);
		(void)unlink(tmp);
		goto done;
	}
	if (rename(tmp, j->path) == -1) {
		warn("rename %s", tmp);
		(void)close(fd);
		(void)unlink(tmp);
		goto done;
	}
	ok = sync_parent(j->path);
	/*
	 * Closing the old file releases its lock: processes waiting on it
	 * find it renamed over, and reopen the new one.
	 */
	(void)close(fd);
	(void)close(j->fd);
	j->fd = -1;
	j->missing = true;
done:
	if (!ok)
		journal_unlock(j);
	free(tmp);
	buf_free(&out);
	return ok;
}
