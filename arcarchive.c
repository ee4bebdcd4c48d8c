/*
 * Archive segments: the history compaction leaves beside the journal.
 * Each compaction keeps the old file, whole, as JOURNAL.history.SEQ (SEQ
 * the seq of its last record, arcjournal.c).  Once closed, a segment is
 * compressed here, with zstd (libzstd's streaming API; the reason, with
 * the ratios measured on our records, is in arc-journal(5)), into
 * JOURNAL.history.SEQ.FROM-TO.zst, FROM and TO the times of its first and
 * last record, so that a reader of a time range opens only the segments
 * that meet it.  Each record keeps its CRC inside the compressed frame,
 * and the frame has zstd's own checksum: damage is found either way.
 *
 * Compression is never done inside a call a hook waits on: arc-apply
 * --compact and --archive do it themselves, and a writer whose automatic
 * compaction left a segment hands the work to a detached child, which
 * runs at SCHED_IDLE.
 *
 * Crash safety, at every step: the compressed bytes go to a temporary
 * file (JOURNAL.compress.PID), synced, renamed into place, the folder
 * synced; only then is the plain segment unlinked.  A cut at any point
 * leaves the plain segment, or the compressed one, or both (the next run
 * unlinks the plain one); never neither.  Removal is one unlink(2).
 */
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "arc.h"
#include "arclog.h"
#include "arcarchive.h"

#define HISTORY		".history."
#define HISTORY_LEN	(sizeof(HISTORY) - 1)
#define COMPRESS	".compress."
#define COMPRESS_LEN	(sizeof(COMPRESS) - 1)
#define ZST		".zst"
#define STAMP_LEN	16	/* 20261201T142632Z */
#define SEQ_DIGITS	19	/* at most, as strtonum takes them */
#define CHUNK		(1024 * 1024)	/* read, compressed, let go */

/* ---- names ---- */

static void
stamp(int64_t t, char out[STAMP_LEN + 1])
{
	struct tm	tm;
	time_t		tt = (time_t)t;
	char		b[64];

	if (gmtime_r(&tt, &tm) == NULL || tm.tm_year + 1900 < 0 ||
	    tm.tm_year + 1900 > 9999) {
		strlcpy(out, "00000101T000000Z", STAMP_LEN + 1);
		return;
	}
	(void)snprintf(b, sizeof(b), "%04d%02d%02dT%02d%02d%02dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec);
	strlcpy(out, b, STAMP_LEN + 1);
}

static bool
digits(const char *s, size_t n)
{
	return n > 0 && strspn(s, "0123456789") >= n;
}

static int
two(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

static bool
unstamp(const char *s, int64_t *t)
{
	struct tm	tm;
	time_t		tt;

	if (!digits(s, 8) || s[8] != 'T' || !digits(s + 9, 6) ||
	    s[15] != 'Z')
		return false;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = two(s) * 100 + two(s + 2) - 1900;
	tm.tm_mon = two(s + 4) - 1;
	tm.tm_mday = two(s + 6);
	tm.tm_hour = two(s + 9);
	tm.tm_min = two(s + 11);
	tm.tm_sec = two(s + 13);
	if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return false;
	tt = timegm(&tm);
	*t = (int64_t)tt;
	return true;
}

/*
 * A name after "JOURNAL.history.": SEQ (plain) or SEQ.FROM-TO.zst.
 * Anything else is not ours (a temporary, a file a person put there).
 */
static bool
parse_name(const char *rest, struct segment *s)
{
	size_t		 n = strspn(rest, "0123456789");
	char		 num[SEQ_DIGITS + 1];
	const char	*why;
	long long	 seq;

	if (n == 0 || n > SEQ_DIGITS)
		return false;
	memcpy(num, rest, n);
	num[n] = '\0';
	seq = strtonum(num, 0, LLONG_MAX, &why);
	if (why != NULL)
		return false;
	s->seq = (uint64_t)seq;
	rest += n;
	if (*rest == '\0') {
		s->compressed = false;
		return true;
	}
	if (rest[0] != '.' || strlen(rest) != 1 + STAMP_LEN * 2 + 1 +
	    sizeof(ZST) - 1 || rest[1 + STAMP_LEN] != '-' ||
	    strcmp(rest + 1 + STAMP_LEN * 2 + 1, ZST) != 0 ||
	    !unstamp(rest + 1, &s->from) ||
	    !unstamp(rest + 2 + STAMP_LEN, &s->to))
		return false;
	s->compressed = true;
	return true;
}

/* ---- a plain segment's records ---- */

/* The recorded time of a record ("at", near its start), or false. */
static bool
line_at(const char *line, size_t len, int64_t *t)
{
	static const char	 key[] = "\"at\":\"";
	struct arc_instant	 in;
	const char		*p, *q;
	size_t			 look = len < 128 ? len : 128;

	if ((p = memmem(line, look, key, sizeof(key) - 1)) == NULL)
		return false;
	p += sizeof(key) - 1;
	if ((q = memchr(p, '"', (size_t)(line + len - p))) == NULL ||
	    !rfc3339_parse(p, (size_t)(q - p), &in))
		return false;
	*t = in.seconds;
	return true;
}

/*
 * Checks every record of a plain segment (its frame: the CRC of a
 * version 2 journal's record, the newline of a version 1 one) and finds
 * the times of its first and last records.  The byte of the first damage
 * in *bad when it fails.
 */
static bool
check_plain(const char *map, size_t len, int64_t *from, int64_t *to,
    uint64_t *bad)
{
	const char	*p = map, *end = map + len, *nl;
	size_t		 seen = 0, page = (size_t)sysconf(_SC_PAGESIZE);
	bool		 v2, first = true;
	int64_t		 t;

	*bad = 0;
	if (len < LOG_MAGIC_LEN || memcmp(map, LOG_MAGIC, LOG_MAGIC_LEN) != 0 ||
	    map[len - 1] != '\n')
		return false;
	v2 = strncmp(map, LOG_HEADER_V1 "\n", sizeof(LOG_HEADER_V1)) != 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL || (v2 && !log_frame_ok(p, (size_t)(nl - p))) ||
		    (!v2 && *p != '{')) {
			*bad = (uint64_t)(p - map);
			return false;
		}
		/* What is checked need not stay in our memory. */
		if ((size_t)(p - map) >= seen + CHUNK * 8) {
			seen = (size_t)(p - map) & ~(page - 1);
			(void)madvise((void *)map, seen, MADV_DONTNEED);
		}
		if (p != map && line_at(p, (size_t)(nl - p), &t)) {
			if (first)
				*from = t;
			*to = t;
			first = false;
		}
		p = nl + 1;
	}
	return true;
}

/* The span of a plain segment's records, without checking them. */
static void
plain_span(int fd, const struct stat *sb, struct segment *s)
{
	const char	*map, *p, *nl, *last;
	size_t		 len = (size_t)sb->st_size;

	s->from = s->to = (int64_t)sb->st_mtime;
	if (sb->st_size <= 0 || (uint64_t)sb->st_size > SIZE_MAX ||
	    (map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0)) ==
	    MAP_FAILED)
		return;
	/* The first record follows the header line. */
	if ((nl = memchr(map, '\n', len)) != NULL && nl + 1 < map + len) {
		p = nl + 1;
		nl = memchr(p, '\n', (size_t)(map + len - p));
		(void)line_at(p, nl != NULL ? (size_t)(nl - p) :
		    (size_t)(map + len - p), &s->from);
		/* The last: after the newline before the final one. */
		last = map + len - 1;
		while (last > p && last[-1] != '\n')
			last--;
		(void)line_at(last, (size_t)(map + len - last), &s->to);
	}
	(void)munmap((void *)map, len);
}

/* ---- the list ---- */

static int
by_seq(const void *pa, const void *pb)
{
	const struct segment *a = pa, *b = pb;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	/* The same seq twice: a compression cut short; plain first. */
	return (int)a->compressed - (int)b->compressed;
}

static char *
base_of(const char *journal)
{
	char *copy, *base;

	if ((copy = strdup(journal)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	if ((base = strdup(basename(copy))) == NULL)
		err(EXIT_SYSTEM, "strdup");
	free(copy);
	return base;
}

bool
archive_list(const char *journal, struct segment **out, size_t *count)
{
	char		*dir = parent_of(journal), *base = base_of(journal);
	size_t		 n = strlen(base), cap = 0;
	struct segment	*v = NULL, s;
	struct dirent	*e;
	struct stat	 sb;
	DIR		*d;
	int		 fd;

	*out = NULL;
	*count = 0;
	if ((d = opendir(dir)) == NULL) {
		bool gone = errno == ENOENT;
		if (!gone)
			warn("%s", dir);
		free(dir);
		free(base);
		return gone;
	}
	while ((e = readdir(d)) != NULL) {
		memset(&s, 0, sizeof(s));
		if (strncmp(e->d_name, base, n) != 0 ||
		    strncmp(e->d_name + n, HISTORY, HISTORY_LEN) != 0 ||
		    !parse_name(e->d_name + n + HISTORY_LEN, &s))
			continue;
		if ((fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC)) == -1)
			continue;	/* gone since, or not a file */
		if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
			(void)close(fd);
			continue;
		}
		s.size = (uint64_t)sb.st_size;
		if (!s.compressed)
			plain_span(fd, &sb, &s);
		(void)close(fd);
		if (asprintf(&s.path, "%s/%s", dir, e->d_name) == -1)
			err(EXIT_SYSTEM, "asprintf");
		if (*count == cap) {
			cap = cap ? cap * 2 : 16;
			if ((v = reallocarray(v, cap, sizeof(*v))) == NULL)
				err(EXIT_SYSTEM, "reallocarray");
		}
		v[(*count)++] = s;
	}
	(void)closedir(d);
	if (*count > 1)
		qsort(v, *count, sizeof(*v), by_seq);
	*out = v;
	free(dir);
	free(base);
	return true;
}

void
archive_list_free(struct segment *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* ---- reading ---- */

/* A compressed segment's bytes into fd; false (warned) on damage. */
static bool
decompress(const struct segment *s, const char *map, size_t len, int out)
{
	ZSTD_DStream	*z;
	ZSTD_inBuffer	 in = { map, len, 0 };
	ZSTD_outBuffer	 o;
	size_t		 cap = ZSTD_DStreamOutSize(), r = 1;
	char		*buf;
	bool		 ok = true;

	if ((z = ZSTD_createDStream()) == NULL || (buf = malloc(cap)) == NULL)
		err(EXIT_SYSTEM, "zstd");
	while (in.pos < in.size) {
		o = (ZSTD_outBuffer){ buf, cap, 0 };
		r = ZSTD_decompressStream(z, &o, &in);
		if (ZSTD_isError(r)) {
			warnx("%s: a damaged compressed segment (%s)", s->path,
			    ZSTD_getErrorName(r));
			ok = false;
			break;
		}
		if (!write_all(out, buf, o.pos)) {
			warn("%s: its decompressed bytes", s->path);
			ok = false;
			break;
		}
	}
	if (ok && (len == 0 || r != 0)) {
		warnx("%s: a damaged compressed segment (it ends early)",
		    s->path);
		ok = false;
	}
	free(buf);
	ZSTD_freeDStream(z);
	return ok;
}

int
archive_open(const struct segment *s)
{
	struct stat	 sb;
	void		*map;
	char		*dir;
	int		 fd, out;
	bool		 ok;

	if ((fd = open(s->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		warn("%s", s->path);
		return -1;
	}
	if (!s->compressed)
		return fd;
	if (fstat(fd, &sb) == -1 || (uint64_t)sb.st_size > SIZE_MAX) {
		warn("%s", s->path);
		(void)close(fd);
		return -1;
	}
	map = sb.st_size > 0 ? mmap(NULL, (size_t)sb.st_size, PROT_READ,
	    MAP_PRIVATE, fd, 0) : NULL;
	(void)close(fd);
	if (map == MAP_FAILED) {
		warn("%s", s->path);
		return -1;
	}
	/*
	 * Its plain bytes in a file of no name beside it (on the disk, gone
	 * when closed: they hold nonces), else in memory.
	 */
	dir = parent_of(s->path);
	out = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	free(dir);
	if (out == -1 && (out = memfd_create("arc-segment", MFD_CLOEXEC)) == -1)
		err(EXIT_SYSTEM, "memfd_create");
	ok = decompress(s, map, (size_t)sb.st_size, out);
	if (map != NULL)
		(void)munmap(map, (size_t)sb.st_size);
	if (!ok) {
		(void)close(out);
		return -1;
	}
	return out;
}

/* ---- compression ---- */

/* Compresses len bytes of map into fd, a frame with its checksum. */
static bool
compress_to(const char *map, size_t len, int fd, const char *tmp)
{
	ZSTD_CCtx	*z;
	ZSTD_inBuffer	 in = { map, 0, 0 };
	ZSTD_outBuffer	 o;
	size_t		 cap = ZSTD_CStreamOutSize(), r, done;
	size_t		 page = (size_t)sysconf(_SC_PAGESIZE);
	size_t		 window = (size_t)1 << ARCHIVE_WINDOW_LOG;
	char		*buf;
	bool		 ok = true;

	if ((z = ZSTD_createCCtx()) == NULL || (buf = malloc(cap)) == NULL)
		err(EXIT_SYSTEM, "zstd");
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel,
	    ARCHIVE_LEVEL)) || ZSTD_isError(ZSTD_CCtx_setParameter(z,
	    ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_windowLog,
	    ARCHIVE_WINDOW_LOG)) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(z, len)))
		errx(EXIT_SYSTEM, "zstd: its parameters refused");
	/*
	 * A chunk at a time, the pages read let go after each: the
	 * footprint is zstd's window, not the segment.
	 */
	do {
		in.size = len - in.pos > CHUNK ? in.pos + CHUNK : len;
		o = (ZSTD_outBuffer){ buf, cap, 0 };
		r = ZSTD_compressStream2(z, &o, &in, in.size == len ?
		    ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(r)) {
			warnx("%s: zstd: %s", tmp, ZSTD_getErrorName(r));
			ok = false;
			break;
		}
		if (!write_all(fd, buf, o.pos)) {
			warn("%s", tmp);
			ok = false;
			break;
		}
		if (in.pos > window + CHUNK) {
			done = (in.pos - window) & ~(page - 1);
			(void)madvise((void *)map, done, MADV_DONTNEED);
		}
	} while (in.size < len || r != 0);
	free(buf);
	ZSTD_freeCCtx(z);
	return ok;
}

static bool
sync_dir(int dfd, const char *dir)
{
	if (fsync(dfd) == -1) {
		warn("%s", dir);
		return false;
	}
	return true;
}

/*
 * One plain segment compressed: 1 done, 0 left (the live journal's other
 * name, another process at it, gone), -1 failed (warned).
 */
static int
compress_one(const char *journal, const char *dir, int dfd,
    const struct segment *s, const struct stat *live)
{
	struct stat	 sb, now;
	char		*tmp = NULL, *name = NULL, from[STAMP_LEN + 1],
			 to[STAMP_LEN + 1];
	char		*map = MAP_FAILED;
	const char	*rest;
	uint64_t	 bad;
	int64_t		 t0, t1;
	int		 fd, r, out = -1, done = -1;

	if ((fd = open(s->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : (warn("%s", s->path), -1);
	/*
	 * A second name of the live journal (a compaction cut between its
	 * link and its rename) is not history yet: the journal's next
	 * compaction takes that name away.  Another compressor that was
	 * first has unlinked it (the name is then another file's or none).
	 */
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_nlink > 1 || (live != NULL && sb.st_ino == live->st_ino &&
	    sb.st_dev == live->st_dev) || sb.st_size <= 0 ||
	    (uint64_t)sb.st_size > SIZE_MAX) {
		done = 0;
		goto out;
	}
	/* Each of its holders holds it for one call: we wait our turn. */
	while ((r = flock(fd, LOCK_EX)) == -1 && errno == EINTR)
		continue;
	if (r == -1 || stat(s->path, &now) == -1 || now.st_ino != sb.st_ino ||
	    now.st_dev != sb.st_dev) {
		done = 0;
		goto out;
	}
	if ((map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd,
	    0)) == MAP_FAILED) {
		warn("%s", s->path);
		goto out;
	}
	t0 = t1 = (int64_t)sb.st_mtime;
	if (!check_plain(map, (size_t)sb.st_size, &t0, &t1, &bad)) {
		warnx("%s: a damaged record at byte %llu; the segment is left "
		    "as it is", s->path, (unsigned long long)bad);
		goto out;
	}
	if ((out = open_temporary(journal, "compress", &tmp)) == -1)
		goto out;
	if (!compress_to(map, (size_t)sb.st_size, out, tmp))
		goto fail;
	if (fsync(out) == -1) {
		warn("%s", tmp);
		goto fail;
	}
	stamp(t0, from);
	stamp(t1, to);
	rest = strrchr(s->path, '/') != NULL ? strrchr(s->path, '/') + 1 :
	    s->path;
	if (asprintf(&name, "%s/%s.%s-%s" ZST, dir, rest, from, to) == -1)
		err(EXIT_SYSTEM, "asprintf");
	if (rename(tmp, name) == -1) {
		warn("rename %s", tmp);
		goto fail;
	}
	if (!sync_dir(dfd, dir))
		goto out;
	/* Only now that the compressed one is there for good. */
	if (unlink(s->path) == -1) {
		warn("%s", s->path);
		goto out;
	}
	done = sync_dir(dfd, dir) ? 1 : -1;
	goto out;
fail:
	(void)unlink(tmp);
out:
	if (out != -1)
		(void)close(out);
	if (map != MAP_FAILED)
		(void)munmap(map, (size_t)sb.st_size);
	(void)close(fd);
	free(tmp);
	free(name);
	return done;
}

/* Temporaries of compressors that died: they may hold nonces. */
static void
sweep(const char *journal, DIR *d)
{
	char		*base = base_of(journal);
	size_t		 n = strlen(base);
	struct dirent	*e;
	const char	*pid, *why;
	long long	 p;

	rewinddir(d);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, base, n) != 0 ||
		    strncmp(e->d_name + n, COMPRESS, COMPRESS_LEN) != 0)
			continue;
		pid = e->d_name + n + COMPRESS_LEN;
		p = strtonum(pid, 1, INT_MAX, &why);
		if (why != NULL || p == (long long)getpid() ||
		    kill((pid_t)p, 0) == 0 || errno != ESRCH)
			continue;
		(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	free(base);
}

/* ---- rotation ---- */

/*
 * Oldest first, compressed segments past the limits go.  A plain one
 * stays: it is not yet checked, or it is the live journal's other name.
 * The live journal and its checkpoint need no segment (compaction wrote
 * everything live into the journal), so none is kept for them.
 */
static bool
rotate(const struct segment *v, size_t n, int64_t now, const struct keep *k,
    int dfd, const char *dir)
{
	uint64_t	total = 0;
	size_t		i;
	bool		removed = false, ok = true;

	for (i = 0; i < n; i++)
		total += v[i].size;
	for (i = 0; i < n; i++) {
		if (!v[i].compressed)
			continue;
		if (!(k->seconds >= 0 && v[i].to < now - k->seconds) &&
		    !(k->bytes > 0 && total > k->bytes))
			continue;
		if (unlink(v[i].path) == -1) {
			if (errno != ENOENT) {
				warn("%s", v[i].path);
				ok = false;
			}
			continue;
		}
		total -= v[i].size;
		removed = true;
	}
	return (!removed || sync_dir(dfd, dir)) && ok;
}

/* ---- the limits, and who runs it ---- */

void
archive_keep_env(struct keep *k)
{
	const char	*v = getenv("ARC_KEEP_HISTORY"), *why;
	long long	 n;

	k->seconds = KEEP_HISTORY_DEFAULT;
	k->bytes = 0;
	if (v != NULL && strcmp(v, "forever") == 0)
		k->seconds = -1;
	else if (v != NULL && *v != '\0' && (k->seconds = parse_duration(v)) <
	    0) {
		warnx("ARC_KEEP_HISTORY is not a duration; using the default");
		k->seconds = KEEP_HISTORY_DEFAULT;
	}
	if ((v = getenv("ARC_KEEP_HISTORY_BYTES")) != NULL && *v != '\0') {
		n = strtonum(v, 0, LLONG_MAX, &why);
		if (why != NULL)
			warnx("ARC_KEEP_HISTORY_BYTES is %s; using the default",
			    why);
		else
			k->bytes = (uint64_t)n;
	}
}

bool
archive_maintain(const char *journal, int64_t now, const struct keep *k)
{
	char		*dir = parent_of(journal);
	struct segment	*v;
	struct stat	 live;
	size_t		 n, i;
	DIR		*d;
	bool		 ok = true, have_live;
	int		 r;

	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return errno == ENOENT;
	}
	sweep(journal, d);
	have_live = stat(journal, &live) == 0;
	if (!archive_list(journal, &v, &n)) {
		(void)closedir(d);
		free(dir);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (v[i].compressed)
			continue;
		/* A compressed one of the same seq: a cut before the unlink. */
		if ((r = compress_one(journal, dir, dirfd(d), &v[i],
		    have_live ? &live : NULL)) == -1)
			ok = false;
	}
	archive_list_free(v, n);
	/* Listed again: the names and sizes compression gave. */
	if (!archive_list(journal, &v, &n))
		ok = false;
	else if (!rotate(v, n, now, k, dirfd(d), dir))
		ok = false;
	archive_list_free(v, n);
	(void)closedir(d);
	free(dir);
	return ok;
}

/*
 * The child holds a shared lock on the journal's folder until it is
 * done, taken before the fork so that it is held as soon as we return:
 * whoever must see the segments at rest (a test, a backup) takes an
 * exclusive one, flock(1) on the folder, and waits for every child.
 */
void
archive_handoff(const char *journal, int64_t now)
{
	struct sched_param idle = { .sched_priority = 0 };
	struct keep	 k;
	char		*dir = parent_of(journal);
	pid_t		 pid, child;
	int		 status, fd, busy;

	archive_keep_env(&k);
	if ((busy = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1 &&
	    flock(busy, LOCK_SH | LOCK_NB) == -1) {
		(void)close(busy);
		busy = -1;
	}
	free(dir);
	if ((pid = fork()) == -1) {
		warn("fork");	/* the next compaction hands it on again */
		if (busy != -1)
			(void)close(busy);
		return;
	}
	if (pid == 0) {
		/* A child of init: no zombie, no terminal, nothing of ours. */
		if (setsid() == -1 || (child = fork()) == -1)
			_exit(1);
		if (child != 0)
			_exit(0);
		if (busy != -1 && busy <= STDERR_FILENO)
			busy = fcntl(busy, F_DUPFD, STDERR_FILENO + 1);
		if ((fd = open("/dev/null", O_RDWR)) != -1) {
			(void)dup2(fd, STDIN_FILENO);
			(void)dup2(fd, STDOUT_FILENO);
			(void)dup2(fd, STDERR_FILENO);
		}
		/* The lock's descriptor is kept, as 3; the rest is closed. */
		if (busy != -1 && busy != STDERR_FILENO + 1 &&
		    dup2(busy, STDERR_FILENO + 1) == -1)
			_exit(1);
		closefrom(busy != -1 ? STDERR_FILENO + 2 : STDERR_FILENO + 1);
		/* Only when the machine has nothing else to run. */
		(void)setpriority(PRIO_PROCESS, 0, 10);
		(void)sched_setscheduler(0, SCHED_IDLE, &idle);
		_exit(archive_maintain(journal, now, &k) ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		continue;
	if (busy != -1)
		(void)close(busy);
}
