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
 * What a compaction copied forward, records the segments before already
 * hold byte for byte, and its records of the events it saw, which no
 * reader of history needs, are left out of the compressed form
 * (copies_end).
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
#include <sys/prctl.h>
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
#include <zstd_errors.h>

#include "arc.h"
#include "arcspawn.h"
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

/*
 * What a compressed segment may unpack to: the size its frame declares
 * (our compressor always pledges it), at most PLAIN_RATIO times its
 * compressed bytes and never past PLAIN_MAX, so that a hostile or damaged
 * segment cannot fill the disk before anything in it is checked.
 */
#define PLAIN_RATIO	1024
#define PLAIN_MAX	(UINT64_C(16) << 30)

/* Why a frame's declared size is not one to unpack to, or NULL. */
static const char *
declared_size_wrong(unsigned long long declared, size_t len)
{
	if (declared == ZSTD_CONTENTSIZE_ERROR ||
	    declared == ZSTD_CONTENTSIZE_UNKNOWN)
		return "no frame that declares its size";
	if (declared > PLAIN_MAX || declared / PLAIN_RATIO > len)
		return "it claims more than a segment can hold";
	if (declared < LOG_MAGIC_LEN)
		return "too small to hold a journal";
	return NULL;
}

/*
 * Where a compressed segment's plain bytes go: a file (write(2) as zstd
 * gives them), or memory mapped for their declared size (image, len).
 */
struct plain_out {
	int		 fd;
	char		*image;
	size_t		 len;
};

/*
 * A compressed segment's bytes into out; false (warned) on damage.  Into
 * a file they are written as zstd gives them, never more than the frame
 * holds: a mapped file sized by the frame's own (unchecked) claim would
 * reserve what a flipped bit says, and a full disk would be a SIGBUS
 * there.  Into memory (a size archive_plain() has bounded) zstd writes
 * the frame whole in one pass, straight into place.
 */
static bool
decompress(const struct segment *s, const char *map, size_t len,
    struct plain_out *out)
{
	ZSTD_DStream	*z;
	ZSTD_inBuffer	 in = { map, len, 0 };
	ZSTD_outBuffer	 o;
	size_t		 cap = ZSTD_DStreamOutSize(), r = 1, at, n, in_was;
	unsigned long long declared;
	uint64_t	 written = 0;
	char		*buf = NULL;
	const char	*why;

	declared = len > 0 ? ZSTD_getFrameContentSize(map, len) :
	    ZSTD_CONTENTSIZE_ERROR;
	/* The frame read again: the file may have changed since the map. */
	if ((why = declared_size_wrong(declared, len)) == NULL &&
	    out->image != NULL && declared != out->len)
		why = "it changed as it was read";
	if (why != NULL) {
		warnx("%s: a damaged compressed segment (%s); skipped",
		    s->path, why);
		return false;
	}
	if ((z = ZSTD_createDStream()) == NULL ||
	    (out->image == NULL && (buf = malloc(cap)) == NULL))
		err(EXIT_SYSTEM, "zstd");
	while (why == NULL && in.pos < in.size) {
		at = out->image != NULL ? (size_t)written : 0;
		o = out->image != NULL ? (ZSTD_outBuffer){ out->image,
		    out->len, at } : (ZSTD_outBuffer){ buf, cap, 0 };
		in_was = in.pos;
		r = ZSTD_decompressStream(z, &o, &in);
		/* In one pass, zstd says so of a frame past its declared size. */
		if (ZSTD_isError(r)) {
			why = ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ?
			    "more than its frame declares" : ZSTD_getErrorName(r);
			break;
		}
		n = o.pos - at;		/* what came now, at o.dst + at */
		/* Its first bytes are a journal's, before more is written. */
		if (written < LOG_MAGIC_LEN && n > 0 &&
		    memcmp((char *)o.dst + at, &LOG_MAGIC[written],
		    n < LOG_MAGIC_LEN - written ? n : LOG_MAGIC_LEN -
		    written) != 0) {
			why = "not a journal inside";
			break;
		}
		/* In memory: full, and the frame would go on. */
		if (n > declared - written || (n == 0 && in.pos == in_was)) {
			why = "more than its frame declares";
			break;
		}
		if (out->image == NULL && !write_all(out->fd, buf, n)) {
			warn("%s: its decompressed bytes", s->path);
			free(buf);
			ZSTD_freeDStream(z);
			return false;
		}
		written += n;
		if (r == 0 && in.pos < in.size)
			why = "bytes after its frame";
	}
	if (why == NULL && (r != 0 || written != declared))
		why = "it ends early";
	if (why != NULL)
		warnx("%s: a damaged compressed segment (%s); skipped",
		    s->path, why);
	free(buf);
	ZSTD_freeDStream(z);
	return why == NULL;
}

/*
 * The file a compressed segment's plain bytes go to: one of no name
 * beside it (on the disk, gone when closed: they hold nonces), else in
 * memory.
 */
static int
scratch_beside(const char *path)
{
	char	*dir = parent_of(path);
	int	 out = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	free(dir);
	if (out == -1 && (out = memfd_create("arc-segment", MFD_CLOEXEC)) == -1)
		err(EXIT_SYSTEM, "memfd_create");
	return out;
}

/* A compressed segment mapped, for decompress(); NULL (warned) if not. */
static char *
compressed_map(const struct segment *s, size_t *len)
{
	static char	 nothing[1];	/* an empty file's: mmap refuses 0 */
	struct stat	 sb;
	void		*map;
	int		 fd;

	if ((fd = open(s->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		warn("%s", s->path);
		return NULL;
	}
	if (fstat(fd, &sb) == -1 || (uint64_t)sb.st_size > SIZE_MAX) {
		warn("%s", s->path);
		(void)close(fd);
		return NULL;
	}
	*len = (size_t)sb.st_size;
	map = *len > 0 ? mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0) :
	    nothing;
	(void)close(fd);
	if (map == MAP_FAILED) {
		warn("%s", s->path);
		return NULL;
	}
	return map;
}

static void
compressed_unmap(char *map, size_t len)
{
	if (len > 0)
		(void)munmap(map, len);
}

/* A scratch file once the segment mapped at map is in it; -1 if not. */
static int
decompressed(const struct segment *s, const char *map, size_t len)
{
	struct plain_out out = { scratch_beside(s->path), NULL, 0 };

	if (decompress(s, map, len, &out))
		return out.fd;
	(void)close(out.fd);
	return -1;
}

int
archive_open(const struct segment *s)
{
	size_t	 len;
	char	*map;
	int	 fd;

	if (!s->compressed) {
		if ((fd = open(s->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC)) == -1)
			warn("%s", s->path);
		return fd;
	}
	if ((map = compressed_map(s, &len)) == NULL)
		return -1;
	fd = decompressed(s, map, len);
	compressed_unmap(map, len);
	return fd;
}

/*
 * The most plain bytes a reader holds in memory: PLAIN_IN_MEMORY, and
 * no more than a sixteenth of what memory we may use (as many workers as
 * there are cores, at most four, may hold one each).
 */
#define PLAIN_IN_MEMORY	(UINT64_C(256) << 20)

static uint64_t
in_memory_max(void)
{
	uint64_t	 part = memory_we_may_use() / 16;

	return part < PLAIN_IN_MEMORY ? part : PLAIN_IN_MEMORY;
}

/*
 * Where a segment is decompressed in memory: one mapping a process keeps
 * and uses again for the next, grown (its pages kept) for a larger one.
 * A worker that reads segment after segment faults in only the largest
 * one's pages, once.  Reserved, not yet memory: a page is ours once zstd
 * writes it; left out of a core dump, as the nonces in it are.  Not in
 * huge pages: on a guest whose host takes back the free memory it is
 * told of (ours, CI's), each fresh 2 MiB page is faulted in by the host,
 * which made a first listing take twice a second one (arc-journal(5)).
 */
static struct {
	char	*p;
	size_t	 len;
} scratch;

static char *
scratch_of(size_t len)
{
	void	*p;

	if (len <= scratch.len)
		return scratch.p;
	p = scratch.p == NULL ? mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) :
	    mremap(scratch.p, scratch.len, len, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, len, MADV_DONTDUMP);
	scratch.p = p;
	scratch.len = len;
	return p;
}

bool
archive_plain(const struct segment *s, struct plain *p)
{
	struct plain_out out = { -1, NULL, 0 };
	unsigned long long declared;
	size_t		 len;
	char		*map;
	bool		 ok;

	*p = (struct plain){ -1, NULL, 0 };
	if (!s->compressed)
		return (p->fd = archive_open(s)) != -1;
	if ((map = compressed_map(s, &len)) == NULL)
		return false;
	declared = len > 0 ? ZSTD_getFrameContentSize(map, len) :
	    ZSTD_CONTENTSIZE_ERROR;
	/*
	 * In memory where it is a small part of it; otherwise a file (and
	 * decompress() says what is wrong with a size it will not take).
	 */
	if (declared_size_wrong(declared, len) == NULL &&
	    declared <= in_memory_max() &&
	    (out.image = scratch_of((size_t)declared)) != NULL) {
		out.len = (size_t)declared;
		if ((ok = decompress(s, map, len, &out))) {
			p->image = out.image;
			p->len = out.len;
		}
	} else {
		ok = (p->fd = decompressed(s, map, len)) != -1;
	}
	compressed_unmap(map, len);
	return ok;
}

/* ---- compaction's copies, left out of a compressed segment ---- */

/*
 * Each compaction writes every live condition again at the head of the
 * new journal, records whose "durable" is the header's seq.  A copy that
 * says, byte for byte past its seq, durable and at, what the newest
 * record of its key in the previous segment (already compressed, whole
 * and sound) says, is history that segment holds: it is left out of this
 * one's compressed form, and the header names the seq of the last copy
 * left out, so that the records read on without a gap.
 *
 * The compaction's records of events seen follow its copies.  They serve
 * the live journal's idempotency alone (no reader of history reads them),
 * and each compaction within the window writes the same ones again: 38%
 * of a segment's compressed bytes, measured.  Once every copy before them
 * is left out, they are left out too.
 */
#define FRAME_TAIL	18	/* ,"crc":"XXXXXXXX"} */

struct copy {
	const char	*key, *part;	/* into the previous segment's bytes */
	size_t		 keylen, partlen;
	int64_t		 changed;
};

/* Whether the line at p is a compaction's record of events seen. */
static bool
seen_record(const char *p, const char *nl)
{
	static const char	 seen[] = "\",\"seen\":[[";
	size_t			 n = (size_t)(nl - p);

	return memmem(p, n < 128 ? n : 128, seen, sizeof(seen) - 1) != NULL;
}

/* A number after "name": at p (digits only), or false. */
static bool
number_after(const char *p, const char *end, const char *name, uint64_t *n)
{
	size_t	l = strlen(name);

	if ((size_t)(end - p) < l || memcmp(p, name, l) != 0)
		return false;
	p += l;
	if (p >= end || *p < '0' || *p > '9')
		return false;
	for (*n = 0; p < end && *p >= '0' && *p <= '9'; p++) {
		if (*n > (UINT64_MAX - 9) / 10)
			return false;
		*n = *n * 10 + (uint64_t)(*p - '0');
	}
	return true;
}

/*
 * A record's key (the index's, as encoded), the part of it a copy
 * repeats (its index and its condition, up to its CRC) and when its
 * condition last changed: a copy's "since", else the record's own time.
 */
static bool
record_parts(const char *line, size_t len, struct copy *c)
{
	static const char	 since[] = "\",\"since\":",
				 key[] = ",\"index\":{\"key\":\"";
	const char		*end = line + len, *p, *q;
	uint64_t		 n;

	if (len < FRAME_TAIL + 2 || (q = memmem(line, len < 512 ? len : 512,
	    key, sizeof(key) - 1)) == NULL || end - FRAME_TAIL <= q ||
	    !line_at(line, len, &c->changed))
		return false;
	c->part = q;
	c->partlen = (size_t)(end - FRAME_TAIL - q);
	if ((p = memmem(line, (size_t)(q - line), since, sizeof(since) - 1))
	    != NULL) {
		if (!number_after(p + 1, q, ",\"since\":", &n) ||
		    n > INT64_MAX)
			return false;
		c->changed = (int64_t)n;
	}
	q += sizeof(key) - 1;
	for (p = q; p < end && *p != '"'; p++)
		if (*p == '\\' && ++p == end)
			return false;
	if (p >= end)
		return false;
	c->key = q;
	c->keylen = (size_t)(p - q);
	return true;
}

static uint64_t
key_hash(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	while (n-- > 0)
		h = (h ^ (unsigned char)*p++) * 1099511628211ULL;
	return h;
}

static struct copy *
copy_slot(struct copy *t, size_t cap, const char *key, size_t n)
{
	size_t i = (size_t)key_hash(key, n) & (cap - 1);

	while (t[i].key != NULL && (t[i].keylen != n ||
	    memcmp(t[i].key, key, n) != 0))
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* Every key's newest record in a sound journal's bytes. */
static struct copy *
newest_of(const char *map, size_t len, size_t *capp)
{
	struct copy	*t, *o, c, *s;
	size_t		 cap = 1024, n = 0, i;
	const char	*p, *end = map + len, *nl;

	if ((t = calloc(cap, sizeof(*t))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	if ((p = memchr(map, '\n', len)) == NULL)
		return t;
	for (p++; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		if (!record_parts(p, (size_t)(nl - p), &c))
			continue;
		if ((n + 1) * 2 > cap) {
			o = t;
			if ((t = calloc(cap * 2, sizeof(*t))) == NULL)
				err(EXIT_SYSTEM, "calloc");
			for (i = 0; i < cap; i++)
				if (o[i].key != NULL)
					*copy_slot(t, cap * 2, o[i].key,
					    o[i].keylen) = o[i];
			free(o);
			cap *= 2;
		}
		s = copy_slot(t, cap, c.key, c.keylen);
		if (s->key == NULL)
			n++;
		*s = c;
	}
	*capp = cap;
	return t;
}

/*
 * Whether copy c says what record o does: the same change time, the same
 * index and condition, byte for byte.  What o says past its condition
 * (an event's own fields, such as what it superseded) is its own and
 * stays in its segment.
 */
static bool
repeats(const struct copy *o, const struct copy *c)
{
	static const char	 n[] = ",\"notification\":",
				 q[] = ",\"interaction\":";
	const char		*rest = o->part + c->partlen;
	size_t			 left = o->partlen - c->partlen;

	if (o->changed != c->changed || o->partlen < c->partlen ||
	    memcmp(o->part, c->part, c->partlen) != 0)
		return false;
	return left == 0 || (*rest == ',' &&
	    !(left >= sizeof(n) - 1 && memcmp(rest, n, sizeof(n) - 1) == 0) &&
	    !(left >= sizeof(q) - 1 && memcmp(rest, q, sizeof(q) - 1) == 0));
}

#define LOOKBACK	4	/* older segments a copy is looked for in */

/* An older segment's bytes, decompressed, and its keys' newest records. */
struct older {
	const struct segment	*seg;
	const char		*map;
	size_t			 len, cap;
	struct copy		*t;
};

/* Loads one, checked: every record sound; false if it cannot be. */
static bool
older_load(struct older *o)
{
	struct stat	 sb;
	uint64_t	 bad;
	int64_t		 t0, t1;
	int		 fd;

	o->map = MAP_FAILED;
	if ((fd = archive_open(o->seg)) == -1)
		return false;
	if (fstat(fd, &sb) == 0 && sb.st_size > 0 &&
	    (uint64_t)sb.st_size <= SIZE_MAX) {
		o->len = (size_t)sb.st_size;
		o->map = mmap(NULL, o->len, PROT_READ, MAP_SHARED, fd, 0);
	}
	(void)close(fd);
	if (o->map == MAP_FAILED)
		return false;
	if (!check_plain(o->map, o->len, &t0, &t1, &bad)) {
		(void)munmap((void *)o->map, o->len);
		o->map = MAP_FAILED;
		return false;
	}
	o->t = newest_of(o->map, o->len, &o->cap);
	/* Only the few records a copy is compared with are read again. */
	(void)madvise((void *)o->map, o->len, MADV_DONTNEED);
	return true;
}

/*
 * Where a plain segment's records past its copies start (0: none left
 * out), and the seq of its last copy left out.  prev: the compressed
 * segments before it, newest first, the first the one it follows on
 * from (its last seq our header's).  A copy's key is looked for in the
 * newest of them first; the next older one is asked only when that one
 * does not hold the key (it left out its own copy).
 */
static size_t
copies_end(const char *map, size_t len, const struct segment *prev,
    size_t nprev, uint64_t *last)
{
	struct older	 o[LOOKBACK];
	struct copy	 c, *s;
	const char	*p, *q, *end = map + len, *nl;
	size_t		 cut = 0, loaded = 0, k;
	uint64_t	 head, seq, durable;

	if (nprev == 0 || !prev[0].compressed ||
	    !number_after(map, end, LOG_MAGIC "2,\"seq\":", &head) ||
	    prev[0].seq != head || (p = memchr(map, '\n', len)) == NULL)
		return 0;
	if (nprev > LOOKBACK)
		nprev = LOOKBACK;
	p++;
	if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL ||
	    !number_after(p, nl, "{\"seq\":", &seq) ||
	    (p = memchr(p, ',', (size_t)(nl - p))) == NULL ||
	    !number_after(p + 1, nl, "\"durable\":", &durable) ||
	    durable != head)
		return 0;
	o[0].seg = &prev[0];
	if (!older_load(&o[0]))
		return 0;
	loaded = 1;
	/* Its last record the one ours follows. */
	for (nl = o[0].map + o[0].len - 1; nl > o[0].map && nl[-1] != '\n';
	    nl--)
		continue;
	if (!number_after(nl, o[0].map + o[0].len, "{\"seq\":", &seq) ||
	    seq != head)
		goto out;
	*last = head;
	for (p = (const char *)memchr(map, '\n', len) + 1; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL ||
		    !number_after(p, nl, "{\"seq\":", &seq) ||
		    seq != *last + 1 ||
		    (q = memchr(p, ',', (size_t)(nl - p))) == NULL ||
		    !number_after(q + 1, nl, "\"durable\":",
		    &durable) || durable != head)
			break;
		if (seen_record(p, nl)) {
			*last = seq;
			cut = (size_t)(nl + 1 - map);
			continue;
		}
		if (!record_parts(p, (size_t)(nl - p), &c))
			break;
		for (k = 0, s = NULL; k < nprev; k++) {
			if (k == loaded) {
				if (!prev[k].compressed ||
				    prev[k].seq >= prev[k - 1].seq)
					break;
				o[k].seg = &prev[k];
				if (!older_load(&o[k]))
					break;
				loaded++;
			}
			s = copy_slot(o[k].t, o[k].cap, c.key, c.keylen);
			if (s->key != NULL)
				break;
		}
		if (s == NULL || s->key == NULL || !repeats(s, &c))
			break;
		*last = seq;
		cut = (size_t)(nl + 1 - map);
	}
out:
	for (k = 0; k < loaded; k++) {
		free(o[k].t);
		(void)munmap((void *)o[k].map, o[k].len);
	}
	return cut;
}

/* ---- compression ---- */

/* Compresses len bytes of map into fd, a frame with its checksum. */
static bool
compress_to(const struct buf *head, const char *map, size_t from, size_t len,
    int fd, const char *tmp)
{
	ZSTD_CCtx	*z;
	ZSTD_inBuffer	 in = { map, from, from };
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
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(z, head->len + len -
	    from)))
		errx(EXIT_SYSTEM, "zstd: its parameters refused");
	/* A header of our own first, when the copies are left out. */
	if (head->len > 0) {
		ZSTD_inBuffer h = { head->p, head->len, 0 };

		do {
			o = (ZSTD_outBuffer){ buf, cap, 0 };
			r = ZSTD_compressStream2(z, &o, &h, ZSTD_e_continue);
			if (ZSTD_isError(r)) {
				warnx("%s: zstd: %s", tmp,
				    ZSTD_getErrorName(r));
				ok = false;
			} else if (!write_all(fd, buf, o.pos)) {
				warn("%s", tmp);
				ok = false;
			}
		} while (ok && h.pos < h.size);
	}
	/*
	 * A chunk at a time, the pages read let go after each: the
	 * footprint is zstd's window, not the segment.
	 */
	while (ok) {
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
		if (in.size == len && r == 0)
			break;
	}
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
    const struct segment *s, const struct segment *prev, size_t nprev,
    struct segment *made, const struct stat *live)
{
	struct buf	 head = { 0 };
	size_t		 cut;
	uint64_t	 last;
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
	if ((cut = copies_end(map, (size_t)sb.st_size, prev, nprev,
	    &last)) > 0)
		log_header(&head, last);
	if (!compress_to(&head, map, cut, (size_t)sb.st_size, out, tmp))
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
	*made = *s;
	made->compressed = true;
	made->path = name;
	name = NULL;
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
	buf_free(&head);
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
	const char	*v = getenv("ARC_KEEP_HISTORY");

	k->seconds = v != NULL && strcmp(v, "forever") == 0 ? -1 :
	    env_duration("ARC_KEEP_HISTORY", KEEP_HISTORY_DEFAULT);
	k->bytes = env_bytes("ARC_KEEP_HISTORY_BYTES", 0);
}

/* The compressed segments before the next, newest first, owned. */
static void
recent_push(struct segment *r, size_t *n, const struct segment *s)
{
	if (*n > 0 && r[0].seq == s->seq) {
		free(r[0].path);
		r[0] = *s;
		return;
	}
	if (*n == LOOKBACK)
		free(r[--*n].path);
	memmove(r + 1, r, *n * sizeof(*r));
	r[0] = *s;
	++*n;
}

static void
recent_clear(struct segment *r, size_t *n)
{
	while (*n > 0)
		free(r[--*n].path);
}

/* The compressed segment of a seq, if there is one now. */
static bool
compressed_as(const char *journal, uint64_t seq, struct segment *out)
{
	struct segment	*v;
	size_t		 n, i;
	bool		 found = false;

	if (!archive_list(journal, &v, &n))
		return false;
	for (i = 0; i < n && !found; i++)
		if (v[i].seq == seq && v[i].compressed) {
			*out = v[i];
			if ((out->path = strdup(v[i].path)) == NULL)
				err(EXIT_SYSTEM, "strdup");
			found = true;
		}
	archive_list_free(v, n);
	return found;
}

bool
archive_maintain(const char *journal, int64_t now, const struct keep *k)
{
	char		*dir = parent_of(journal);
	struct segment	*v, recent[LOOKBACK], made;
	struct stat	 live;
	size_t		 n, i, nrecent = 0;
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
	/*
	 * Oldest first: the segments before one are compressed, their bytes
	 * final, before the copies they hold are left out of it.  A plain
	 * one left plain (damaged, another's) ends the run: the next keeps
	 * everything.
	 */
	for (i = 0; i < n; i++) {
		if (v[i].compressed) {
			made = v[i];
			if ((made.path = strdup(v[i].path)) == NULL)
				err(EXIT_SYSTEM, "strdup");
			recent_push(recent, &nrecent, &made);
			continue;
		}
		/* A compressed one of the same seq: a cut before the unlink. */
		made.path = NULL;
		if ((r = compress_one(journal, dir, dirfd(d), &v[i], recent,
		    nrecent, &made, have_live ? &live : NULL)) == -1)
			ok = false;
		/* Another compressor's (a child before us), done meanwhile. */
		if (r == 1 || (r == 0 && compressed_as(journal, v[i].seq,
		    &made)))
			recent_push(recent, &nrecent, &made);
		else
			recent_clear(recent, &nrecent);
	}
	recent_clear(recent, &nrecent);
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
		spawn_defaults();
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
