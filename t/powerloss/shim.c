/*
 * An LD_PRELOAD recorder for the power-loss tests: it logs, in the order
 * the process issued them, the calls that change files under one folder
 * and the calls that make them durable, and every byte written to
 * standard output (what a caller was told).  t/powerloss/crashstates.py
 * replays the log to build every state a power loss could leave.
 *
 *	PL_LOG=FILE	the log, appended to (one line per call, one write(2)
 *			each, so that several processes may share it)
 *	PL_ROOT=DIR	only files under DIR are recorded (an absolute path)
 *	PL_KILL=CALL[:N] SIGKILL the process on its Nth (default 1st) call
 *			of CALL, before the call is made: fsync, fdatasync,
 *			sync (any of the syncs), unsynced (any sync once the
 *			process has written to a file under PL_ROOT: needs
 *			PL_LOG and PL_ROOT), rename
 *	PL_FAIL=CALL[:N] make the Nth call of CALL (fsync, fdatasync, sync)
 *			fail with EIO instead, as a disk that lost the write
 *
 * Log lines, fields separated by tabs, data in hex:
 *	open PID FD INO KIND CREATED TRUNC PATH	(KIND f or d)
 *	close PID FD		dup PID OLD NEW
 *	write PID INO OFFSET HEX	trunc PID INO LENGTH
 *	fsync PID INO		fdatasync PID INO	range PID INO
 *	syncall PID		(sync, syncfs)
 *	mkdir PID INO PATH	rmdir PID PATH		unlink PID PATH
 *	rename PID OLD NEW	link PID OLD NEW
 *	try-rename PID OLD NEW	(logged before the call, done or not)
 *	out PID HEX		(standard output)
 *	stdio PID PATH		(a stream opened for writing: not modelled)
 * Calls that fail are not logged: they changed nothing.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NFD	4096
#define LOGFD	1000

static int	 logfd = -1;
static char	 root[PATH_MAX];
static size_t	 rootlen;
static char	 killcall[32], failcall[32];
static long	 killat = 1, failat = 1;
static bool	 wrote;			/* to a file under the root */
static unsigned char fdstate[NFD];	/* 0 unknown, 1 ours, 2 not ours */
static ino_t	 fdino[NFD];

#define REAL(ret, name, args)						\
	static ret (*real_##name) args;					\
	static void load_##name(void) {					\
		if (real_##name == NULL)				\
			*(void **)&real_##name = dlsym(RTLD_NEXT, #name); \
	}

REAL(int, open, (const char *, int, ...))
REAL(int, openat, (int, const char *, int, ...))
REAL(int, mkostemp, (char *, int))
REAL(int, close, (int))
REAL(int, dup, (int))
REAL(int, dup2, (int, int))
REAL(int, dup3, (int, int, int))
REAL(ssize_t, write, (int, const void *, size_t))
REAL(ssize_t, pwrite, (int, const void *, size_t, off_t))
REAL(ssize_t, writev, (int, const struct iovec *, int))
REAL(ssize_t, pwritev, (int, const struct iovec *, int, off_t))
REAL(int, fsync, (int))
REAL(int, fdatasync, (int))
REAL(int, sync_file_range, (int, off_t, off_t, unsigned int))
REAL(void, sync, (void))
REAL(int, syncfs, (int))
REAL(int, ftruncate, (int, off_t))
REAL(int, truncate, (const char *, off_t))
REAL(int, rename, (const char *, const char *))
REAL(int, renameat, (int, const char *, int, const char *))
REAL(int, renameat2, (int, const char *, int, const char *, unsigned int))
REAL(int, link, (const char *, const char *))
REAL(int, linkat, (int, const char *, int, const char *, int))
REAL(int, unlink, (const char *))
REAL(int, unlinkat, (int, const char *, int))
REAL(int, mkdir, (const char *, mode_t))
REAL(int, mkdirat, (int, const char *, mode_t))
REAL(int, rmdir, (const char *))
REAL(FILE *, fopen, (const char *, const char *))
REAL(FILE *, fopen64, (const char *, const char *))

/* ---- the log ---- */

struct line {
	char	*p;
	size_t	 len, cap;
};

static void
put(struct line *l, const char *s, size_t n)
{
	if (l->p == NULL)
		return;
	if (l->len + n + 2 > l->cap) {
		size_t	 cap = (l->len + n + 2) * 2;
		char	*p = realloc(l->p, cap);
		if (p == NULL) {
			free(l->p);
			l->p = NULL;
			return;
		}
		l->p = p;
		l->cap = cap;
	}
	memcpy(l->p + l->len, s, n);
	l->len += n;
}

static void
start(struct line *l, const char *op)
{
	char	num[32];

	l->cap = 256;
	l->len = 0;
	l->p = malloc(l->cap);
	put(l, op, strlen(op));
	snprintf(num, sizeof(num), "\t%ld", (long)getpid());
	put(l, num, strlen(num));
}

static void
field(struct line *l, const char *s)
{
	put(l, "\t", 1);
	put(l, s, strlen(s));
}

static void
num(struct line *l, long long v)
{
	char	buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	field(l, buf);
}

static void
hex(struct line *l, const void *data, size_t n)
{
	static const char	 digits[] = "0123456789abcdef";
	const unsigned char	*d = data;
	char			 pair[2];
	size_t			 i;

	put(l, "\t", 1);
	for (i = 0; i < n; i++) {
		pair[0] = digits[d[i] >> 4];
		pair[1] = digits[d[i] & 15];
		put(l, pair, 2);
	}
}

/* One line, one write(2), on a descriptor opened O_APPEND. */
static void
finish(struct line *l)
{
	size_t	off = 0;
	long	w;

	if (l->p == NULL) {
		static const char msg[] = "powerloss shim: out of memory\n";
		(void)syscall(SYS_write, 2, msg, sizeof(msg) - 1);
		abort();
	}
	put(l, "\n", 1);
	while (off < l->len) {
		w = syscall(SYS_write, logfd, l->p + off, l->len - off);
		if (w <= 0) {
			if (w == -1 && errno == EINTR)
				continue;
			abort();
		}
		off += (size_t)w;
	}
	free(l->p);
	l->p = NULL;
}

/* ---- paths ---- */

/* The absolute, lexically normal form of PATH relative to DIRFD. */
static bool
absolute(int dirfd, const char *path, char *out)
{
	char	 base[PATH_MAX], tmp[PATH_MAX * 2], *comp, *save, *o;
	size_t	 n;

	if (path[0] == '/')
		base[0] = '\0';
	else if (dirfd == AT_FDCWD) {
		if (getcwd(base, sizeof(base)) == NULL)
			return false;
	} else {
		char	link[64];
		ssize_t	r;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
		if ((r = readlink(link, base, sizeof(base) - 1)) == -1)
			return false;
		base[r] = '\0';
	}
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/%s", base, path) >=
	    sizeof(tmp))
		return false;
	o = out;
	*o = '\0';
	for (comp = strtok_r(tmp, "/", &save); comp != NULL;
	    comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *slash = strrchr(out, '/');
			if (slash != NULL)
				*slash = '\0';
			o = out + strlen(out);
			continue;
		}
		n = strlen(comp);
		if ((size_t)(o - out) + n + 2 >= PATH_MAX)
			return false;
		*o++ = '/';
		memcpy(o, comp, n);
		o += n;
		*o = '\0';
	}
	if (out[0] == '\0')
		strcpy(out, "/");
	return true;
}

static bool
under_root(const char *abs)
{
	return rootlen > 0 && strncmp(abs, root, rootlen) == 0 &&
	    (abs[rootlen] == '/' || abs[rootlen] == '\0');
}

/* Whether a descriptor names a file under the root (found out once). */
static bool
ours(int fd)
{
	char		 link[64], target[PATH_MAX];
	struct stat	 sb;
	ssize_t		 r;

	if (logfd == -1 || fd < 0 || fd >= NFD || fd == logfd)
		return false;
	if (fdstate[fd] == 0) {
		fdstate[fd] = 2;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		if ((r = readlink(link, target, sizeof(target) - 1)) > 0) {
			target[r] = '\0';
			if (under_root(target) && fstat(fd, &sb) == 0) {
				struct line l;
				fdstate[fd] = 1;
				fdino[fd] = sb.st_ino;
				start(&l, "open");
				num(&l, fd);
				num(&l, (long long)sb.st_ino);
				field(&l, S_ISDIR(sb.st_mode) ? "d" : "f");
				num(&l, 0);
				num(&l, 0);
				field(&l, target);
				finish(&l);
			}
		}
	}
	return fdstate[fd] == 1;
}

static void
forget(int fd)
{
	if (fd >= 0 && fd < NFD)
		fdstate[fd] = 0;
}

/* ---- opening ---- */

static void
opened(int dirfd, const char *path, int fd, bool existed, int flags)
{
	char		 abs[PATH_MAX];
	struct stat	 sb;
	struct line	 l;

	if (fd < 0 || fd >= NFD || logfd == -1)
		return;
	forget(fd);
	if (!absolute(dirfd, path, abs) || !under_root(abs)) {
		fdstate[fd] = 2;
		return;
	}
	if (fstat(fd, &sb) == -1)
		return;
	fdstate[fd] = 1;
	fdino[fd] = sb.st_ino;
	start(&l, "open");
	num(&l, fd);
	num(&l, (long long)sb.st_ino);
	field(&l, S_ISDIR(sb.st_mode) ? "d" : "f");
	num(&l, !existed);
	num(&l, (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY);
	field(&l, abs);
	finish(&l);
}

static bool
exists(int dirfd, const char *path)
{
	struct stat sb;

	return fstatat(dirfd, path, &sb, AT_SYMLINK_NOFOLLOW) == 0;
}

static int
do_openat(int dirfd, const char *path, int flags, mode_t mode, bool at)
{
	bool	existed = logfd != -1 && exists(dirfd, path);
	int	fd;

	if (at) {
		load_openat();
		fd = real_openat(dirfd, path, flags, mode);
	} else {
		load_open();
		fd = real_open(path, flags, mode);
	}
	if (fd != -1) {
		int saved = errno;
		opened(dirfd, path, fd, existed, flags);
		errno = saved;
	}
	return fd;
}

static mode_t
mode_arg(int flags, va_list ap)
{
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		return (mode_t)va_arg(ap, unsigned int);
	return 0;
}

int
open(const char *path, int flags, ...)
{
	va_list	ap;
	mode_t	mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(AT_FDCWD, path, flags, mode, false);
}

int
open64(const char *path, int flags, ...)
{
	va_list	ap;
	mode_t	mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(AT_FDCWD, path, flags, mode, false);
}

int
openat(int dirfd, const char *path, int flags, ...)
{
	va_list	ap;
	mode_t	mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(dirfd, path, flags, mode, true);
}

int
openat64(int dirfd, const char *path, int flags, ...)
{
	va_list	ap;
	mode_t	mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	return do_openat(dirfd, path, flags, mode, true);
}

int
creat(const char *path, mode_t mode)
{
	return do_openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode,
	    false);
}

int
creat64(const char *path, mode_t mode)
{
	return creat(path, mode);
}

int
mkostemp(char *template, int flags)
{
	int fd;

	load_mkostemp();
	if ((fd = real_mkostemp(template, flags)) != -1) {
		int saved = errno;
		opened(AT_FDCWD, template, fd, false, 0);
		errno = saved;
	}
	return fd;
}

int
mkstemp(char *template)
{
	return mkostemp(template, 0);
}

static FILE *
stream(FILE *f, const char *path, const char *mode)
{
	char		abs[PATH_MAX];
	struct line	l;

	if (f != NULL && logfd != -1 && strpbrk(mode, "wa+") != NULL &&
	    absolute(AT_FDCWD, path, abs) && under_root(abs)) {
		start(&l, "stdio");
		field(&l, abs);
		finish(&l);
	}
	return f;
}

FILE *
fopen(const char *path, const char *mode)
{
	load_fopen();
	return stream(real_fopen(path, mode), path, mode);
}

FILE *
fopen64(const char *path, const char *mode)
{
	load_fopen64();
	return stream(real_fopen64(path, mode), path, mode);
}

int
close(int fd)
{
	int	 r;
	bool	 was = fd >= 0 && fd < NFD && fdstate[fd] == 1;

	load_close();
	if (fd == logfd && logfd != -1) {
		errno = EBADF;		/* the log outlives the program */
		return -1;
	}
	r = real_close(fd);
	forget(fd);
	if (was && logfd != -1) {
		struct line l;
		int saved = errno;
		start(&l, "close");
		num(&l, fd);
		finish(&l);
		errno = saved;
	}
	return r;
}

static int
duped(int old, int fd)
{
	if (fd != -1 && logfd != -1) {
		int saved = errno;
		forget(fd);
		if (ours(old)) {
			struct line l;
			fdstate[fd] = 1;
			fdino[fd] = fdino[old];
			start(&l, "dup");
			num(&l, old);
			num(&l, fd);
			finish(&l);
		}
		errno = saved;
	}
	return fd;
}

int
dup(int old)
{
	load_dup();
	return duped(old, real_dup(old));
}

int
dup2(int old, int new)
{
	load_dup2();
	return duped(old, real_dup2(old, new));
}

int
dup3(int old, int new, int flags)
{
	load_dup3();
	return duped(old, real_dup3(old, new, flags));
}

static void	 maybe_kill(const char *);

/* ---- writing ---- */

static bool
is_stdout(int fd)
{
	return logfd != -1 && fd == STDOUT_FILENO && !ours(fd);
}

static void
log_out(const void *p, size_t n)
{
	struct line l;

	start(&l, "out");
	hex(&l, p, n);
	finish(&l);
}

static void
log_write(int fd, off_t off, const void *p, size_t n)
{
	struct line l;

	wrote = true;
	start(&l, "write");
	num(&l, (long long)fdino[fd]);
	num(&l, (long long)off);
	hex(&l, p, n);
	finish(&l);
}

ssize_t
write(int fd, const void *p, size_t n)
{
	ssize_t	w;
	off_t	end;

	load_write();
	if (is_stdout(fd))
		log_out(p, n);
	w = real_write(fd, p, n);
	if (w > 0 && ours(fd)) {
		int saved = errno;
		if ((end = lseek(fd, 0, SEEK_CUR)) != -1)
			log_write(fd, end - w, p, (size_t)w);
		errno = saved;
	}
	return w;
}

ssize_t
pwrite(int fd, const void *p, size_t n, off_t off)
{
	ssize_t w;

	load_pwrite();
	if (is_stdout(fd))
		log_out(p, n);
	w = real_pwrite(fd, p, n, off);
	if (w > 0 && ours(fd)) {
		int saved = errno;
		log_write(fd, off, p, (size_t)w);
		errno = saved;
	}
	return w;
}

ssize_t
pwrite64(int fd, const void *p, size_t n, off_t off)
{
	return pwrite(fd, p, n, off);
}

/* The first N bytes of IOV, gathered (NULL when out of memory). */
static char *
gather(const struct iovec *iov, int cnt, size_t n)
{
	char	*buf = malloc(n + 1), *o = buf;
	int	 i;

	for (i = 0; buf != NULL && i < cnt && n > 0; i++) {
		size_t take = iov[i].iov_len < n ? iov[i].iov_len : n;
		memcpy(o, iov[i].iov_base, take);
		o += take;
		n -= take;
	}
	return buf;
}

static size_t
total(const struct iovec *iov, int cnt)
{
	size_t	n = 0;
	int	i;

	for (i = 0; i < cnt; i++)
		n += iov[i].iov_len;
	return n;
}

ssize_t
writev(int fd, const struct iovec *iov, int cnt)
{
	ssize_t	 w;
	off_t	 end;
	char	*buf;

	load_writev();
	if (is_stdout(fd) && (buf = gather(iov, cnt, total(iov, cnt)))) {
		log_out(buf, total(iov, cnt));
		free(buf);
	}
	w = real_writev(fd, iov, cnt);
	if (w > 0 && ours(fd)) {
		int saved = errno;
		if ((buf = gather(iov, cnt, (size_t)w)) == NULL)
			abort();
		if ((end = lseek(fd, 0, SEEK_CUR)) != -1)
			log_write(fd, end - w, buf, (size_t)w);
		free(buf);
		errno = saved;
	}
	return w;
}

ssize_t
pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	ssize_t	 w;
	char	*buf;

	load_pwritev();
	w = real_pwritev(fd, iov, cnt, off);
	if (w > 0 && ours(fd)) {
		int saved = errno;
		if ((buf = gather(iov, cnt, (size_t)w)) == NULL)
			abort();
		log_write(fd, off, buf, (size_t)w);
		free(buf);
		errno = saved;
	}
	return w;
}

/* Standard output through stdio: a stream whose writes come here. */
static ssize_t
out_write(void *cookie, const char *p, size_t n)
{
	size_t	off = 0;
	long	w;

	(void)cookie;
	log_out(p, n);
	while (off < n) {
		w = syscall(SYS_write, STDOUT_FILENO, p + off, n - off);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return off > 0 ? (ssize_t)off : -1;
		off += (size_t)w;
	}
	return (ssize_t)n;
}

/* ---- syncing ---- */


static void
maybe_kill(const char *call)
{
	static long	calls;
	bool		sync = strstr(call, "sync") != NULL;

	if (killcall[0] == '\0')
		return;
	if (strcmp(killcall, call) != 0 &&
	    !(strcmp(killcall, "sync") == 0 && sync) &&
	    !(strcmp(killcall, "unsynced") == 0 && sync && wrote))
		return;
	if (++calls >= killat)
		(void)kill(getpid(), SIGKILL);
}

static bool
maybe_fail(const char *call)
{
	static long calls;

	if (failcall[0] == '\0' || (strcmp(failcall, call) != 0 &&
	    !(strcmp(failcall, "sync") == 0 && strstr(call, "sync"))))
		return false;
	if (++calls != failat)
		return false;
	errno = EIO;
	return true;
}

static void
log_fd(const char *op, int fd)
{
	struct line l;

	if (!ours(fd))
		return;
	start(&l, op);
	num(&l, (long long)fdino[fd]);
	finish(&l);
}

int
fsync(int fd)
{
	int r;

	load_fsync();
	maybe_kill("fsync");
	if (maybe_fail("fsync"))
		return -1;
	if ((r = real_fsync(fd)) == 0) {
		int saved = errno;
		log_fd("fsync", fd);
		errno = saved;
	}
	return r;
}

int
fdatasync(int fd)
{
	int r;

	load_fdatasync();
	maybe_kill("fdatasync");
	if (maybe_fail("fdatasync"))
		return -1;
	if ((r = real_fdatasync(fd)) == 0) {
		int saved = errno;
		log_fd("fdatasync", fd);
		errno = saved;
	}
	return r;
}

int
sync_file_range(int fd, off_t off, off_t n, unsigned int flags)
{
	int r;

	load_sync_file_range();
	if ((r = real_sync_file_range(fd, off, n, flags)) == 0) {
		int saved = errno;
		log_fd("range", fd);
		errno = saved;
	}
	return r;
}

static void
log_syncall(void)
{
	struct line l;

	if (logfd == -1)
		return;
	start(&l, "syncall");
	finish(&l);
}

void
sync(void)
{
	load_sync();
	maybe_kill("sync");
	real_sync();
	log_syncall();
}

int
syncfs(int fd)
{
	int r;

	load_syncfs();
	maybe_kill("sync");
	if ((r = real_syncfs(fd)) == 0) {
		int saved = errno;
		log_syncall();
		errno = saved;
	}
	return r;
}

/* ---- sizes ---- */

static void
log_trunc(ino_t ino, off_t len)
{
	struct line l;

	start(&l, "trunc");
	num(&l, (long long)ino);
	num(&l, (long long)len);
	finish(&l);
}

int
ftruncate(int fd, off_t len)
{
	int r;

	load_ftruncate();
	if ((r = real_ftruncate(fd, len)) == 0 && ours(fd)) {
		int saved = errno;
		log_trunc(fdino[fd], len);
		errno = saved;
	}
	return r;
}

int
ftruncate64(int fd, off_t len)
{
	return ftruncate(fd, len);
}

int
truncate(const char *path, off_t len)
{
	char		abs[PATH_MAX];
	struct stat	sb;
	int		r;

	load_truncate();
	if ((r = real_truncate(path, len)) == 0 && logfd != -1 &&
	    absolute(AT_FDCWD, path, abs) && under_root(abs) &&
	    stat(path, &sb) == 0) {
		int saved = errno;
		log_trunc(sb.st_ino, len);
		errno = saved;
	}
	return r;
}

/* ---- names ---- */

static void
log_names(const char *op, int d1, const char *p1, int d2, const char *p2)
{
	char		a1[PATH_MAX], a2[PATH_MAX];
	struct line	l;
	int		saved = errno;

	if (logfd == -1 || !absolute(d1, p1, a1))
		return;
	if (p2 != NULL && !absolute(d2, p2, a2))
		return;
	if (!under_root(a1) && (p2 == NULL || !under_root(a2)))
		return;
	start(&l, op);
	field(&l, a1);
	if (p2 != NULL)
		field(&l, a2);
	finish(&l);
	errno = saved;
}

int
rename(const char *from, const char *to)
{
	int r;

	load_rename();
	log_names("try-rename", AT_FDCWD, from, AT_FDCWD, to);
	maybe_kill("rename");
	if ((r = real_rename(from, to)) == 0)
		log_names("rename", AT_FDCWD, from, AT_FDCWD, to);
	return r;
}

int
renameat(int d1, const char *from, int d2, const char *to)
{
	int r;

	load_renameat();
	log_names("try-rename", d1, from, d2, to);
	maybe_kill("rename");
	if ((r = real_renameat(d1, from, d2, to)) == 0)
		log_names("rename", d1, from, d2, to);
	return r;
}

int
renameat2(int d1, const char *from, int d2, const char *to,
    unsigned int flags)
{
	int r;

	load_renameat2();
	log_names("try-rename", d1, from, d2, to);
	maybe_kill("rename");
	if ((r = real_renameat2(d1, from, d2, to, flags)) == 0)
		log_names("rename", d1, from, d2, to);
	return r;
}

int
link(const char *from, const char *to)
{
	int r;

	load_link();
	if ((r = real_link(from, to)) == 0)
		log_names("link", AT_FDCWD, from, AT_FDCWD, to);
	return r;
}

int
linkat(int d1, const char *from, int d2, const char *to, int flags)
{
	int r;

	load_linkat();
	if ((r = real_linkat(d1, from, d2, to, flags)) == 0)
		log_names("link", d1, from, d2, to);
	return r;
}

int
unlink(const char *path)
{
	int r;

	load_unlink();
	if ((r = real_unlink(path)) == 0)
		log_names("unlink", AT_FDCWD, path, 0, NULL);
	return r;
}

int
unlinkat(int dirfd, const char *path, int flags)
{
	int r;

	load_unlinkat();
	if ((r = real_unlinkat(dirfd, path, flags)) == 0)
		log_names(flags & AT_REMOVEDIR ? "rmdir" : "unlink", dirfd,
		    path, 0, NULL);
	return r;
}

int
rmdir(const char *path)
{
	int r;

	load_rmdir();
	if ((r = real_rmdir(path)) == 0)
		log_names("rmdir", AT_FDCWD, path, 0, NULL);
	return r;
}

static void
made(int dirfd, const char *path)
{
	char		abs[PATH_MAX];
	struct stat	sb;
	struct line	l;
	int		saved = errno;

	if (logfd != -1 && absolute(dirfd, path, abs) && under_root(abs) &&
	    fstatat(dirfd, path, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		start(&l, "mkdir");
		num(&l, (long long)sb.st_ino);
		field(&l, abs);
		finish(&l);
	}
	errno = saved;
}

int
mkdir(const char *path, mode_t mode)
{
	int r;

	load_mkdir();
	if ((r = real_mkdir(path, mode)) == 0)
		made(AT_FDCWD, path);
	return r;
}

int
mkdirat(int dirfd, const char *path, mode_t mode)
{
	int r;

	load_mkdirat();
	if ((r = real_mkdirat(dirfd, path, mode)) == 0)
		made(dirfd, path);
	return r;
}

/* ---- start ---- */

__attribute__((constructor)) static void
shim_init(void)
{
	const char		*log = getenv("PL_LOG"), *r = getenv("PL_ROOT");
	const char		*k = getenv("PL_KILL"), *fl = getenv("PL_FAIL");
	char			*colon;
	int			 fd;
	static cookie_io_functions_t out = { .write = out_write };
	FILE			*f;

	if (k != NULL && strlen(k) < sizeof(killcall)) {
		strcpy(killcall, k);
		if ((colon = strchr(killcall, ':')) != NULL) {
			*colon = '\0';
			killat = strtol(colon + 1, NULL, 10);
		}
	}
	if (fl != NULL && strlen(fl) < sizeof(failcall)) {
		strcpy(failcall, fl);
		if ((colon = strchr(failcall, ':')) != NULL) {
			*colon = '\0';
			failat = strtol(colon + 1, NULL, 10);
		}
	}
	if (log == NULL || r == NULL || r[0] != '/' || strlen(r) >= PATH_MAX)
		return;
	strcpy(root, r);
	rootlen = strlen(root);
	while (rootlen > 1 && root[rootlen - 1] == '/')
		root[--rootlen] = '\0';
	fd = (int)syscall(SYS_openat, AT_FDCWD, log,
	    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd == -1)
		abort();
	if ((logfd = fcntl(fd, F_DUPFD_CLOEXEC, LOGFD)) == -1)
		abort();
	(void)syscall(SYS_close, fd);
	/* Results printed with stdio reach the log before the terminal. */
	if ((f = fopencookie(NULL, "w", out)) != NULL) {
		(void)setvbuf(f, NULL, _IOFBF, BUFSIZ);
		stdout = f;
	}
}
