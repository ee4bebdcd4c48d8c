/*
 * Who waits for a question: marks beside the journal that a waiter holds
 * locked while it waits.  See arcwaiter.h.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcwaiter.h"

#define MARK_INFIX	".wait."
#define MARK_HASH	32	/* hex digits of the key's SHA-256 */
#define MARK_MAX	4096	/* bytes of a mark: a key and an event_id */

static char *
mark_path(const char *journal_path, const char *key, size_t keylen)
{
	char	 hex[ARC_HEX_DIGEST], *path;

	sha256_hex(key, keylen, hex);
	if (asprintf(&path, "%s" MARK_INFIX "%.*s", journal_path, MARK_HASH,
	    hex) == -1)
		err(EXIT_SYSTEM, "asprintf");
	return path;
}

static bool
same_file(int fd, const char *path, struct stat *sb)
{
	struct stat	 at;

	return fstat(fd, sb) == 0 && lstat(path, &at) == 0 &&
	    at.st_dev == sb->st_dev && at.st_ino == sb->st_ino;
}

/* A mark's text. */
static void
mark_text(struct buf *b, const char *key, const char *held, const char *by,
    const char *question)
{
	buf_puts(b, "{\"key\":");
	buf_json_cstr(b, key);
	if (held != NULL) {
		buf_puts(b, ",\"held\":");
		buf_json_cstr(b, held);
		buf_puts(b, ",\"by\":");
		buf_json_cstr(b, by != NULL ? by : "the agent");
	}
	if (question != NULL) {
		buf_puts(b, ",\"question\":");
		buf_json_cstr(b, question);
	}
	buf_puts(b, "}\n");
}

/* A held mark: made whole and locked under a temporary name, renamed. */
static int
hold_new(const char *journal_path, const char *path, const char *key,
    const char *held, const char *by)
{
	struct buf	 b = { 0 };
	char		*tmp;
	int		 fd;

	if ((fd = open_temporary(journal_path, "new", &tmp)) == -1)
		return -1;
	mark_text(&b, key, held, by, NULL);
	if (flock(fd, LOCK_SH) == -1 || !write_all(fd, b.p, b.len) ||
	    rename(tmp, path) == -1) {
		warn("%s", path);
		(void)close(fd);
		(void)unlink(tmp);
		fd = -1;
	}
	buf_free(&b);
	free(tmp);
	return fd;
}

/* A plain waiter's mark: the one there, or a new one, locked shared. */
static int
hold_plain(const char *journal_path, const char *path, const char *key)
{
	struct stat	 sb;
	int		 fd, tries;

	for (tries = 0; tries < 8; tries++) {
		/*
		 * Open to write, though we never do: its close at our death
		 * is then a change a watcher of the folder sees.
		 */
		fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 && errno == ENOENT) {
			struct buf b = { 0 };
			char *tmp;
			if ((fd = open_temporary(journal_path, "new",
			    &tmp)) == -1)
				return -1;
			mark_text(&b, key, NULL, NULL, NULL);
			if (flock(fd, LOCK_SH) == -1 ||
			    !write_all(fd, b.p, b.len) ||
			    link(tmp, path) == -1) {
				(void)close(fd);
				fd = -1;
			}
			(void)unlink(tmp);
			buf_free(&b);
			free(tmp);
			if (fd != -1)
				return fd;
			continue;	/* another made it first: take that */
		}
		if (fd == -1) {
			warn("%s", path);
			return -1;
		}
		if (flock(fd, LOCK_SH) == 0 && same_file(fd, path, &sb))
			return fd;
		/* removed between our open and our lock: again */
		(void)close(fd);
	}
	warnx("%s: the mark keeps changing", path);
	return -1;
}

bool
waiter_hold(struct waiter *w, const char *journal_path, const char *key,
    const char *held, const char *by)
{
	struct stat	 sb;

	w->path = mark_path(journal_path, key, strlen(key));
	w->fd = held != NULL ? hold_new(journal_path, w->path, key, held, by) :
	    hold_plain(journal_path, w->path, key);
	if (w->fd != -1 && fstat(w->fd, &sb) == -1) {
		(void)close(w->fd);
		w->fd = -1;
	}
	if (w->fd == -1) {
		waiter_release(w);	/* frees the path: no mark */
		return false;
	}
	w->dev = sb.st_dev;
	w->ino = sb.st_ino;
	w->held = held != NULL;
	return true;
}

/*
 * Nobody reads a held mark while we live (a reader reads only what it
 * could lock), so it is rewritten in place.
 */
bool
waiter_claim(struct waiter *w, const char *key, const char *held,
    const char *by, const char *question)
{
	struct buf	 b = { 0 };
	bool		 ok;

	if (w->path == NULL)
		return false;
	mark_text(&b, key, held, by, question);
	ok = pwrite(w->fd, b.p, b.len, 0) == (ssize_t)b.len &&
	    ftruncate(w->fd, (off_t)b.len) == 0;
	buf_free(&b);
	return ok;
}

static bool	read_mark(int, struct arena *, struct unwaited *);

/* Whether the mark open at fd is a held one (an adapter's). */
static bool
held_by_another(int fd)
{
	struct arena	 a = { 0 };
	struct unwaited	 u;
	bool		 held;

	held = read_mark(fd, &a, &u) && u.held.p != NULL;
	arena_free(&a);
	return held;
}

void
waiter_release(struct waiter *w)
{
	struct stat	 sb;

	if (w->path != NULL && w->fd != -1) {
		/*
		 * Ours still: a held mark goes with its waiter, who settled
		 * or withdrew its question itself (a plain waiter beside it
		 * has nothing left to wait for).  A plain one goes when
		 * nobody else holds it, unless it is a held mark whose own
		 * waiter died before us: that stays for the sweep.
		 */
		if (lstat(w->path, &sb) == 0 && sb.st_dev == w->dev &&
		    sb.st_ino == w->ino && (w->held ||
		    (flock(w->fd, LOCK_EX | LOCK_NB) == 0 &&
		    !held_by_another(w->fd))))
			(void)unlink(w->path);
		(void)close(w->fd);
	}
	w->fd = -1;
	free(w->path);
	w->path = NULL;
}

/* Whether nobody holds the open mark fd: then it stays locked by us. */
static bool
unlocked(int fd)
{
	return flock(fd, LOCK_EX | LOCK_NB) == 0;
}

enum waiting
waiter_present(const char *journal_path, struct sv key)
{
	char		*path = mark_path(journal_path, key.p, key.n);
	int		 fd;
	enum waiting	 w = WAITING_NOBODY;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
		if (!unlocked(fd))
			w = WAITING_SOMEONE;
		(void)close(fd);
	}
	free(path);
	return w;
}

/* Calls each mark beside the journal: its name in the folder. */
static DIR *
marks_open(const char *journal_path, char **prefix)
{
	char	*copy, *dir;
	DIR	*d;

	if ((copy = strdup(journal_path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	if (asprintf(prefix, "%s" MARK_INFIX, basename(copy)) == -1)
		err(EXIT_SYSTEM, "asprintf");
	free(copy);
	dir = parent_of(journal_path);
	d = opendir(dir);
	free(dir);
	return d;
}

static bool
is_mark(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(name, prefix, n) == 0 && strlen(name + n) ==
	    MARK_HASH && strspn(name + n, "0123456789abcdef") == MARK_HASH;
}

static int
hash_cmp(const void *a, const void *b)
{
	return memcmp(a, b, MARK_HASH);
}

void
waiting_look(struct waiting_set *s, const char *journal_path)
{
	struct dirent	*e;
	char		*prefix;
	DIR		*d;
	int		 fd;

	s->n = 0;
	if ((d = marks_open(journal_path, &prefix)) == NULL) {
		free(prefix);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (!is_mark(e->d_name, prefix) || (fd = openat(dirfd(d),
		    e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		if (!unlocked(fd)) {
			if (s->n == s->cap) {
				s->cap = s->cap ? s->cap * 2 : 16;
				if ((s->hash = reallocarray(s->hash, s->cap,
				    sizeof(*s->hash))) == NULL)
					err(EXIT_SYSTEM, "reallocarray");
			}
			memcpy(s->hash[s->n], e->d_name + strlen(prefix),
			    MARK_HASH);
			s->hash[s->n++][MARK_HASH] = '\0';
		}
		(void)close(fd);
	}
	(void)closedir(d);
	free(prefix);
	if (s->n > 1)
		qsort(s->hash, s->n, sizeof(*s->hash), hash_cmp);
}

enum waiting
waiting_of(const struct waiting_set *s, struct sv key)
{
	char	 hex[ARC_HEX_DIGEST];

	if (s->n == 0 || key.p == NULL)
		return WAITING_NOBODY;
	sha256_hex(key.p, key.n, hex);
	return bsearch(hex, s->hash, s->n, sizeof(*s->hash), hash_cmp) !=
	    NULL ? WAITING_SOMEONE : WAITING_NOBODY;
}

void
waiting_free(struct waiting_set *s)
{
	free(s->hash);
	s->hash = NULL;
	s->n = s->cap = 0;
}

bool
waiter_any_gone(const char *journal_path)
{
	struct dirent	*e;
	char		*prefix;
	DIR		*d;
	bool		 gone = false;
	int		 fd;

	if ((d = marks_open(journal_path, &prefix)) == NULL) {
		free(prefix);
		return false;
	}
	while (!gone && (e = readdir(d)) != NULL) {
		if (!is_mark(e->d_name, prefix))
			continue;
		if ((fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			continue;
		/* A test, not a claim: the lock goes with the descriptor. */
		gone = unlocked(fd);
		(void)close(fd);
	}
	(void)closedir(d);
	free(prefix);
	return gone;
}

/* A mark's text, parsed: its key, and what a held one says. */
static bool
read_mark(int fd, struct arena *a, struct unwaited *u)
{
	struct jparse_error	 e;
	const struct jval	*r;
	char			*text = arena_alloc(a, MARK_MAX + 1);
	ssize_t			 n;

	if ((n = pread(fd, text, MARK_MAX, 0)) <= 0)
		return false;
	text[n] = '\0';
	if ((r = json_parse(a, text, (size_t)n, &e)) == NULL ||
	    r->type != J_OBJECT)
		return false;
	u->key = sv_json(json_get(r, "key"));
	u->held = sv_json(json_get(r, "held"));
	u->by = sv_json(json_get(r, "by"));
	u->question = sv_json(json_get(r, "question"));
	return u->key.p != NULL;
}

size_t
waiter_gone(const char *journal_path, struct arena *a, struct unwaited *out,
    size_t max)
{
	struct dirent	*e;
	struct stat	 sb;
	char		*prefix, *dir;
	DIR		*d;
	size_t		 n = 0;
	int		 fd;

	if ((d = marks_open(journal_path, &prefix)) == NULL) {
		free(prefix);
		return 0;
	}
	dir = parent_of(journal_path);
	while (n < max && (e = readdir(d)) != NULL) {
		char *path;
		if (!is_mark(e->d_name, prefix))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) == -1)
			err(EXIT_SYSTEM, "asprintf");
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 || !unlocked(fd) || !same_file(fd, path, &sb)) {
			if (fd != -1)
				(void)close(fd);
			free(path);
			continue;
		}
		if (read_mark(fd, a, &out[n])) {
			out[n].fd = fd;
			out[n++].path = path;
			continue;
		}
		/* A mark we cannot read: it goes. */
		(void)unlink(path);
		(void)close(fd);
		free(path);
	}
	(void)closedir(d);
	free(dir);
	free(prefix);
	return n;
}

/* Lets go of the listed marks: removed, or left for the next look. */
static void
let_go(struct unwaited *u, size_t n, bool remove)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (remove)
			(void)unlink(u[i].path);
		(void)close(u[i].fd);
		free(u[i].path);
		u[i].path = NULL;
		u[i].fd = -1;
	}
}

void
waiter_keep(struct unwaited *u, size_t n)
{
	let_go(u, n, false);
}

void
waiter_forget(struct unwaited *u, size_t n)
{
	let_go(u, n, true);
}
