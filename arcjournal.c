/*
 * The journal: an append-only NDJSON file of records, shared by any number
 * of processes.  Each holds flock(2) while it catches up on what others
 * appended, applies, appends and syncs.  The file format, the recovery
 * rules and the compaction policy are told in arc-journal(5); this file is
 * their one implementation, as Redis keeps its append-only file's life in
 * aof.c.
 *
 * A record's frame: the JSON object, its last member "crc" holding the
 * CRC-32C (8 hex digits) of every byte before ,"crc":, then a newline.
 * Every record also holds "seq" (one more than the record before it) and
 * "durable" (the seq of the last record known to be on disk when it was
 * written), which tells an unfinished write from damage.
 */
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>

#include "arc.h"
#include "arcterm.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arclog.h"
#include "arccheckpoint.h"
#include "arcarchive.h"
#include "arcrules.h"
#include "arcwaiter.h"
#include "arcjournal.h"

#define RECORD_MAX	(64 * 1024 * 1024)	/* longest record accepted */
#define MAGIC		LOG_MAGIC
#define MAGIC_LEN	LOG_MAGIC_LEN
#define HEADER_V1	LOG_HEADER_V1
#define FOREVER		(INT64_C(1) << 40)	/* seconds: salvage keeps all */

/*
 * A file mapped for reading that someone cuts under us (a restore over
 * it, logrotate's copytruncate: nobody else's writes take our lock) would
 * kill us by SIGBUS.  While a map is read, SIGBUS returns to the reader,
 * which says the journal cannot be read (exit 3), as for any damage.
 */
static sigjmp_buf		 bus_jump;
static volatile sig_atomic_t	 bus_armed;
static void *volatile		 bus_map;	/* the map being read */
static volatile size_t		 bus_maplen;

/*
 * A checkpoint stays mapped while the state it gave reads its conditions
 * when asked (arccheckpoint.c): one cut under us then ends the command
 * with a word, there being no frame to return to.  A few at once.
 */
#define HELD_MAX	8
#define WRITE_AHEAD	(256 * 1024)	/* a batch past it is written as it grows */
static struct {
	const char *volatile	 map;
	volatile size_t		 len;
	char			 why[320];
	size_t			 whylen;
} held[HELD_MAX];

static void
on_bus(int sig, siginfo_t *si, void *ctx)
{
	const char	*addr = si->si_addr;
	int		 i;

	(void)ctx;
	/* A held checkpoint's first: it may be read inside an armed read. */
	for (i = 0; i < HELD_MAX; i++)
		if (held[i].map != NULL && addr >= held[i].map &&
		    addr < held[i].map + held[i].len) {
			ssize_t said = write(STDERR_FILENO, held[i].why,
			    held[i].whylen);

			(void)said;	/* nothing more can be said */
			_exit(EXIT_SYSTEM);
		}
	if (bus_armed) {
		bus_armed = 0;
		siglongjmp(bus_jump, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
catch_bus(void)
{
	static bool		 set;
	struct sigaction	 sa;

	if (set)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO;
	(void)sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGBUS, &sa, NULL);
	set = true;
}

/*
 * Around every read of a map: arm after mmap, disarm before munmap.  A
 * reader's sigsetjmp(bus_jump, 1) lives in a frame that outlasts the read
 * (catch_up's covers the recovery it calls), and on a SIGBUS calls
 * bus_caught, which lets the map go and says why.
 */
static void
bus_arm(void *map, size_t len)
{
	bus_map = map;
	bus_maplen = len;
	bus_armed = 1;
}

static void
bus_disarm(void)
{
	bus_armed = 0;
	bus_map = NULL;
}

/* The words for a journal cut short under a reader, mapped or read. */
static bool
shrank(const struct journal *j)
{
	warnx("%s: the journal shrank while it was read (rewritten in place?); "
	    "it cannot be read safely", j->path);
	return false;
}

static bool
bus_caught(const struct journal *j)
{
	if (bus_map != NULL && !(j->lent && bus_map == j->whole))
		(void)munmap(bus_map, bus_maplen);
	bus_map = NULL;
	return shrank(j);
}

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
	else
		return journal_usual_path();
	if (path == NULL)
		err(EXIT_SYSTEM, "malloc");
	return path;
}

/* The usual journal's path, or NULL when there is no home to put it in. */
static char *
usual_path(void)
{
	const char	*env;
	char		*path;
	int		 n;

	if ((env = getenv("XDG_STATE_HOME")) != NULL && *env == '/')
		n = asprintf(&path, "%s/arc/journal", env);
	else if ((env = getenv("HOME")) != NULL && *env != '\0')
		n = asprintf(&path, "%s/.local/state/arc/journal", env);
	else
		return NULL;
	if (n == -1)
		err(EXIT_SYSTEM, "malloc");
	return path;
}

char *
journal_usual_path(void)
{
	char	*path;

	if ((path = usual_path()) == NULL)
		errx(EXIT_USAGE, "no journal: use -j, or set ARC_JOURNAL or "
		    "HOME");
	return path;
}

/* ---- the frame ---- */

/* ---- files and folders, and who may touch them ---- */

/*
 * A new journal appears whole: its header is written and synced in a
 * temporary file, which is then linked into place (never over a file that
 * is there) and its folder synced.
 */
static bool
create_journal(const char *path)
{
	struct buf	 h = { 0 };
	char		*tmp;
	int		 fd;
	bool		 ok;

	if ((fd = open_temporary(path, "new", &tmp)) == -1) {
		free(tmp);
		return false;
	}
	log_header(&h, 0);
	/* Locked until its name is synced, as a compaction's new file is. */
	ok = flock(fd, LOCK_EX) == 0 && write_all(fd, h.p, h.len) &&
	    fdatasync(fd) == 0;
	if (!ok)
		warn("%s", tmp);
	if (ok && link(tmp, path) == -1 && errno != EEXIST) {
		warn("%s", path);
		ok = false;
	}
	(void)unlink(tmp);
	ok = ok && sync_parent(path);
	(void)close(fd);
	free(tmp);
	buf_free(&h);
	return ok;
}

/*
 * Temporary files a killed process left beside the journal: a compaction's
 * (only the holder of the exclusive lock compacts, and we hold a lock on
 * the file) and a creation's whose process is gone.  They may hold
 * nonces: they do not stay.
 */
static void
sweep_temporaries(struct journal *j)
{
	char		*dir = parent_of(j->path), *copy, *base;
	DIR		*d;
	struct dirent	*e;
	size_t		 n;

	j->swept = true;
	if ((copy = strdup(j->path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	base = basename(copy);
	n = strlen(base);
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			const char *rest = e->d_name + n, *pid;
			long p;
			if (strncmp(e->d_name, base, n) != 0)
				continue;
			bool unlocked = true;	/* made without the lock */
			if (strncmp(rest, ".compact.", 9) == 0) {
				pid = rest + 9;
				unlocked = false;
			} else if (strncmp(rest, ".new.", 5) == 0) {
				pid = rest + 5;
			} else if (strncmp(rest, ".checkpoint.", 12) == 0) {
				pid = rest + 12;
			} else {
				continue;
			}
			if (*pid == '\0' || strspn(pid, "0123456789") !=
			    strlen(pid) || strlen(pid) > 9)
				continue;	/* not a name we make */
			p = strtol(pid, NULL, 10);
			if (p == (long)getpid() || (unlocked && p > 0 &&
			    (kill((pid_t)p, 0) == 0 || errno != ESRCH)))
				continue;
			if (unlinkat(dirfd(d), e->d_name, 0) == 0)
				warnx("%s/%s: removed a stale temporary file",
				    dir, e->d_name);
		}
		(void)closedir(d);
	}
	free(copy);
	free(dir);
}

/*
 * The folders of the usual journal, or of ARC_JOURNAL's, are made as
 * needed.  A journal named by -j must be in a folder that exists: a typo
 * there would otherwise read as "nothing needs you", or store a question
 * where nobody looks.
 */
bool
journal_folder_ready(const char *path, bool make)
{
	const char	*env = getenv("ARC_JOURNAL");
	char		*usual, *dir;
	struct stat	 sb;
	bool		 made;

	usual = usual_path();
	made = (usual != NULL && strcmp(usual, path) == 0) ||
	    (env != NULL && strcmp(env, path) == 0);
	free(usual);
	if (made)
		return !make || make_parents(path);
	dir = parent_of(path);
	if (stat(dir, &sb) == -1 && errno == ENOENT) {
		warnx("%s: no such folder; a journal named by -j is kept "
		    "only in a folder that exists", dir);
		free(dir);
		return false;
	}
	free(dir);
	return true;
}

static bool
open_file(struct journal *j)
{
	struct stat	 sb;
	char		 head[MAGIC_LEN];
	ssize_t		 n;
	/* O_NONBLOCK: a FIFO in the journal's place must not hang us. */
	int		 flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
	    (j->writable ? O_RDWR : O_RDONLY);

	j->fd = -1;
	if (!journal_folder_ready(j->path, j->writable))
		return false;
	if (!folder_ours(j->path))
		return false;
	while ((j->fd = open(j->path, flags)) == -1) {
		if (errno == ELOOP) {
			warnx("%s: a symbolic link; refused", j->path);
			return false;
		}
		if (errno != ENOENT) {
			warn("%s", j->path);
			return false;
		}
		if (!j->writable) {
			j->missing = true;	/* nothing recorded yet */
			return true;
		}
		if (!create_journal(j->path))
			return false;
	}
	if (!file_ours(j->fd, j->path, &sb) ||
	    fcntl(j->fd, F_SETFL, fcntl(j->fd, F_GETFL) & ~O_NONBLOCK) == -1)
		goto refuse;
	/* Recognised by its first bytes before anything else is done. */
	n = pread(j->fd, head, sizeof(head), 0);
	if (n == -1) {
		warn("%s", j->path);
		goto refuse;
	}
	if (memcmp(head, MAGIC, (size_t)n) != 0 ||
	    ((size_t)n < MAGIC_LEN && (uint64_t)n != (uint64_t)sb.st_size)) {
		warnx("%s: not an arc journal; refused", j->path);
		goto refuse;
	}
	j->missing = false;
	j->version = 0;
	j->warned_tail = false;
	j->dev = sb.st_dev;
	j->ino = sb.st_ino;
	j->offset = 0;
	j->looked = false;
	j->checkpoint = j->last_start = 0;
	state_free(j->st);
	j->st = state_new(!j->writable);
	j->seq = j->durable = 0;
	j->latest[0] = '\0';
	return true;
refuse:
	(void)close(j->fd);
	j->fd = -1;
	return false;
}

static void	maybe_checkpoint(struct journal *);
static bool	catch_up(struct journal *);
static bool	durable_as_marked(struct journal *, const struct stat *);

bool
journal_open(struct journal *j, const char *path, bool writable)
{
	memset(j, 0, sizeof(*j));
	if ((j->path = strdup(path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	j->writable = writable;
	j->fd = -1;
	j->st = state_new(!writable);
	catch_bus();
	j->retain = env_duration("ARC_RETAIN", RETAIN_DEFAULT);
	j->window = env_duration("ARC_WINDOW", WINDOW_DEFAULT);
	j->floor = env_bytes("ARC_COMPACT_FLOOR", FLOOR_DEFAULT);
	j->checkpoint_floor = env_bytes("ARC_CHECKPOINT_FLOOR",
	    CHECKPOINT_FLOOR_DEFAULT);
	return open_file(j);
}

/*
 * A closed file of history (an archive segment, or its bytes decompressed
 * into fd or an image) replayed as a reader replays the journal, each
 * record's frame checked; name is for messages.  Nobody appends to it: no
 * lock, and no checkpoint.  fd, or the image, is the journal's, let go by
 * journal_close().  This sets one up, its bytes not yet read.
 */
static void
segment_setup(struct journal *j, const char *name, int fd)
{
	memset(j, 0, sizeof(*j));
	if ((j->path = strdup(name)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	j->fd = fd;
	j->st = state_new(true);
	journal_keep_past(j);	/* only history reads a segment */
	j->retain = RETAIN_DEFAULT;
	j->window = WINDOW_DEFAULT;
	j->floor = j->checkpoint_floor = UINT64_MAX;
	catch_bus();
}

bool
journal_read_fd(struct journal *j, const char *name, int fd, bool scratch)
{
	struct stat	 sb;
	char		 head[MAGIC_LEN];
	ssize_t		 n;

	segment_setup(j, name, fd);
	j->copy = scratch;
	if (fstat(fd, &sb) == -1) {
		warn("%s", name);
		return false;
	}
	if ((n = pread(fd, head, sizeof(head), 0)) == -1) {
		warn("%s", name);
		return false;
	}
	if ((size_t)n < MAGIC_LEN || memcmp(head, MAGIC, MAGIC_LEN) != 0) {
		warnx("%s: not an arc journal", name);
		return false;
	}
	j->dev = sb.st_dev;
	j->ino = sb.st_ino;
	return catch_up(j);
}

bool
journal_read_image(struct journal *j, const char *name, char *image,
    size_t len)
{
	segment_setup(j, name, -1);
	j->copy = j->lent = true;
	j->whole = image;
	j->whole_len = len;
	if (len < MAGIC_LEN || memcmp(image, MAGIC, MAGIC_LEN) != 0) {
		warnx("%s: not an arc journal", name);
		return false;
	}
	return catch_up(j);
}

void
journal_keep_past(struct journal *j)
{
	j->past = true;
	state_keep_past(j->st);
}

static void	cut_ahead(struct journal *);

void
journal_close(struct journal *j)
{
	/* A batch never appended is not left in the file. */
	if (j->fd != -1)
		cut_ahead(j);
	/* A writer leaves a checkpoint once, when it is done. */
	if (j->fd != -1 && j->st != NULL)
		maybe_checkpoint(j);
	if (j->fd != -1)
		(void)close(j->fd);
	j->fd = -1;
	if (j->whole != NULL && !j->lent)
		(void)munmap((void *)j->whole, j->whole_len);
	j->whole = NULL;
	state_free(j->st);
	j->st = NULL;
	arena_free(&j->arena);
	arena_free(&j->record_arena);
	buf_free(&j->batch);
	buf_free(&j->scratch);
	bell_close(&j->bell);
	j->bell_tried = false;
	free(j->path);
	j->path = NULL;
}

/* ---- reading, and recovering as a write-ahead log does ---- */

/* A version 2 header's seq (of the records before the file), or -1. */
static int64_t
header_v2_seq(struct journal *j, const char *line, size_t len)
{
	if (len > MAGIC_LEN + 1 && line[MAGIC_LEN] == '2' &&
	    line[MAGIC_LEN + 1] == ',' && log_frame_ok(line, len))
		return log_number(&j->arena, line, len, "seq");
	return -1;
}

/* The header: version 1 as it was, version 2 framed with its first seq. */
static bool
read_header(struct journal *j, const char *line, size_t len)
{
	int64_t seq;

	if (len == sizeof(HEADER_V1) - 1 && memcmp(line, HEADER_V1, len) == 0) {
		j->version = 1;
		j->seq = j->durable = 0;
		j->check_seq = false;
		return true;
	}
	if ((seq = header_v2_seq(j, line, len)) >= 0) {
		j->version = 2;
		j->first_seq = (uint64_t)seq;
		j->seq = j->durable = (uint64_t)seq;
		j->check_seq = !j->salvage;
		return true;
	}
	warnx("%s: not an arc journal (no header line it can read)", j->path);
	return false;
}

/* Cuts an unfinished tail; only a writer, holding LOCK_EX, may. */
static bool
cut_tail(struct journal *j, uint64_t at, uint64_t size)
{
	if (!j->writable || !j->exclusive) {
		if (!j->warned_tail)
			warnx("%s: ignoring a torn final record at byte "
			    "%llu", j->path, (unsigned long long)at);
		j->warned_tail = true;
		return true;	/* the next writer cuts it */
	}
	warnx("%s: dropping a torn final record at byte %llu (%llu bytes, "
	    "never acknowledged)", j->path, (unsigned long long)at,
	    (unsigned long long)(size - at));
	if (ftruncate(j->fd, (off_t)at) == -1 || fdatasync(j->fd) == -1) {
		warn("%s", j->path);
		return false;
	}
	return true;
}

/*
 * Whether a bad line holds a whole record run into the next one: a record
 * whose newline a changed byte turned into another.  (A power cut leaves
 * NULs where the newline's page was lost, never another byte.)  The line
 * may be the file's unfinished tail: a whole record and one byte.
 */
static bool
holds_a_record(const char *line, size_t len)
{
	const char	*p = line;
	size_t		 end, tries = 0;

	/* A record is a few kilobytes at most: a bounded search, not a hang. */
	while (tries++ < 256 &&
	    (p = memmem(p, len - (size_t)(p - line), "\"}", 2)) != NULL) {
		end = (size_t)(p - line) + 2;
		if (end < len && line[end] != '\0' && log_frame_ok(line, end))
			return true;
		p += 2;
	}
	return false;
}

#define SECTOR		512		/* what a disk writes whole, or not */
#define RECORD_START	"{\"seq\":"	/* how every record begins */

/*
 * Whether the bytes at file offsets [from, to) hold zeros as a power cut
 * leaves them, map holding the file from offset base to size: a write's
 * sectors or pages that never reached the disk while its size did.  Such
 * a run of NULs begins at a sector boundary or where the write began (a
 * line's start), and ends at a sector boundary, the end of the file, or
 * where the next write began (a record's start).  A byte changed to NUL
 * (a space with its bit 5 flipped) is a run of one inside a line: damage.
 */
static bool
power_cut_zeros(const char *map, uint64_t base, uint64_t from, uint64_t to,
    uint64_t size)
{
	const char	*z;
	uint64_t	 a, b;
	size_t		 rs = sizeof(RECORD_START) - 1;

	for (a = from; a < to; a = b) {
		if ((z = memchr(map + (a - base), '\0', (size_t)(to - a))) == NULL)
			return false;
		a = (uint64_t)(z - map) + base;
		for (b = a; b < size && map[b - base] == '\0'; b++)
			continue;
		if ((a % SECTOR == 0 || map[a - 1 - base] == '\n') &&
		    (b % SECTOR == 0 || b == size || (size - b >= rs &&
		    memcmp(map + (b - base), RECORD_START, rs) == 0)))
			return true;
	}
	return false;
}

/*
 * Whether the tail from a bad record to the end of the file is one whole
 * record, changed: it ends with its newline, and is one line, or two that
 * another byte in place of the newline between them makes a sound record
 * (a byte turned into a newline).  Its bytes are all there: not a write a
 * power cut interrupted, which leaves a record cut short, or zeros.
 */
static bool
whole_record(const char *p, size_t n)
{
	const char *nl;

	if (n == 0 || p[n - 1] != '\n')
		return false;
	if ((nl = memchr(p, '\n', n - 1)) == NULL)
		return true;
	if (memchr(nl + 1, '\n', (size_t)(p + n - 1 - (nl + 1))) != NULL)
		return false;
	return log_frame_mended(p, n - 1, (size_t)(nl - p));
}

/*
 * A record at j->offset failed its frame or could not be loaded (with
 * unfinished: the file's tail, with no newline).  A power cut leaves a
 * record cut short or zeros; a record written whole and changed since
 * may have been acknowledged.  So, in order:
 *  - a later record written when this one was already durable (its
 *    "durable" at or past this seq) proves it was acknowledged: damage,
 *    refused; so does a bad line that holds a whole record (its newline
 *    hit);
 *  - bad bytes that hold zeros as a power cut leaves them (sectors of an
 *    unsynced write never written, even with later ones on disk): nothing
 *    from here on was acknowledged, the tail is cut;
 *  - any other bad record before a valid one is damage;
 *  - a tail that is one whole record, its newline there (or, unfinished,
 *    a whole record and one NUL not a power cut's), was written whole and
 *    changed since: damage;
 *  - anything else (a record cut short, the stale bytes of a torn write)
 *    is an unfinished append, cut.
 */
static bool
recover(struct journal *j, uint64_t size, bool framed, bool unfinished)
{
	uint64_t	 page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t	 at = j->offset, base = at & ~(page - 1), bad = size;
	int64_t		 expected = (int64_t)j->seq + 1, d;
	const char	*p, *end, *nl;
	char		*map;
	bool		 found = false, proven = false, zeros, whole;

	if (framed || j->version != 2)
		goto damaged;	/* a sound frame with a wrong seq, or v1 */
	if (j->whole != NULL) {
		base = 0;
		map = (char *)j->whole;
	} else if ((map = mmap(NULL, (size_t)(size - base), PROT_READ,
	    MAP_PRIVATE, j->fd, (off_t)base)) == MAP_FAILED) {
		warn("%s: mmap", j->path);
		return false;
	}
	p = map + (at - base);
	end = map + (size - base);
	bus_arm(map, (size_t)(size - base));	/* caught in catch_up */
	for (; p < end && !proven; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (!found && holds_a_record(p, (size_t)(nl - p))) {
			proven = true;	/* a record acknowledged, then hit */
		} else if (p != map + (at - base) &&
		    log_frame_ok(p, (size_t)(nl - p))) {
			if (!found)
				bad = base + (uint64_t)(p - map);
			found = true;
			d = log_number(&j->arena, p, (size_t)(nl - p),
			    "durable");
			proven = d < 0 || d >= expected;
		}
	}
	zeros = !proven && power_cut_zeros(map, base, at, bad, size);
	/* Unfinished, whole is a sound record and one byte, not a newline. */
	whole = !proven && !found && (unfinished ? size - at > 1 &&
	    log_frame_ok(map + (at - base), (size_t)(size - at - 1)) :
	    whole_record(map + (at - base), (size_t)(size - at)));
	bus_disarm();
	if (map != j->whole)
		(void)munmap(map, (size_t)(size - base));
	if (!proven && (zeros || (!found && !whole)))
		return cut_tail(j, at, size);
damaged:
	warnx("%s: damaged record at byte %llu; the journal cannot be read "
	    "safely (arc-apply --salvage copies what is readable)", j->path,
	    (unsigned long long)at);
	return false;
}

/* Recorded time never runs backwards: the latest time seen is kept. */
static void
note_time(struct journal *j, struct sv t, const struct arc_instant *at)
{
	if (t.n >= sizeof(j->latest) || (j->latest[0] != '\0' &&
	    instant_cmp(&j->latest_t, at) >= 0))
		return;
	memcpy(j->latest, t.p, t.n);
	j->latest[t.n] = '\0';
	j->latest_t = *at;
	j->latest_t.fraction = j->latest + (at->fraction - t.p);
}

const char *
journal_clock(struct journal *j, const char *now)
{
	if (j->latest[0] != '\0' && rfc3339_cmp(j->latest, now) > 0)
		return j->latest;
	return now;
}

/*
 * One record, found at offset, put into the state: replay and live apply
 * alike.  False when it is damaged: it does not decode, its seq is not
 * one more than the last, or the state cannot take it.
 */
static bool
put_line(struct journal *j, const char *line, size_t len, uint64_t offset)
{
	struct log_record	 r;
	struct stored		 seen;
	uint8_t			 ident[16], content[16];
	size_t			 i;

	arena_reset(&j->record_arena);
	if (!log_decode(&j->record_arena, line, len, offset,
	    state_readers_only(j->st), &r))
		return false;
	if (r.header)
		return true;
	/* A record missing before this one, or one repeated, is damage. */
	if (j->check_seq && r.seq != j->seq + 1)
		return false;
	j->seq = r.seq;
	note_time(j, r.at, &r.at_instant);
	if (!state_put(j->st, &r.put))
		return false;
	memset(&seen, 0, sizeof(seen));
	seen.ident = ident;
	seen.hash = content;
	for (i = 0; r.seen != NULL && i < r.seen->n; i++) {
		if (!log_seen_item(r.seen, i, ident, content, &seen.at))
			return false;
		(void)state_put(j->st, &seen);
	}
	return true;
}

enum replayed { REPLAY_OK, REPLAY_BAD, REPLAY_BAD_FRAMED, REPLAY_FAIL };

/* Replays the complete records in data[0..n), found at j->offset on. */
static enum replayed
replay(struct journal *j, const char *data, size_t n, size_t *used)
{
	size_t	 start = 0, len;
	char	*nl;
	bool	 framed;

	*used = 0;
	while ((nl = memchr(data + start, '\n', n - start)) != NULL) {
		len = (size_t)(nl - (data + start));
		arena_reset(&j->arena);
		if (j->offset == 0) {
			if (!read_header(j, data, len))
				return REPLAY_FAIL;
		} else {
			framed = j->version != 2 || log_frame_ok(data + start, len);
			if (len > RECORD_MAX || !framed ||
			    !put_line(j, data + start, len, j->offset)) {
				if (!j->salvage)
					return framed ? REPLAY_BAD_FRAMED :
					    REPLAY_BAD;
				warnx("%s: skipping a damaged record at byte "
				    "%llu", j->path,
				    (unsigned long long)j->offset);
				j->skipped_at = j->offset;
			}
			j->records++;
			j->last_start = j->offset;
		}
		j->offset += len + 1;
		start += len + 1;
		*used = start;
	}
	return REPLAY_OK;
}

/* ---- the checkpoint: a large journal's state, kept beside it ---- */

static bool	replaced(struct journal *);

#define CHECKPOINT_MAX	(UINT64_C(1) << 30)	/* larger is not ours */

static char *
checkpoint_path(const struct journal *j)
{
	char *name;

	if (asprintf(&name, "%s.checkpoint", j->path) == -1)
		err(EXIT_SYSTEM, "asprintf");
	return name;
}

/*
 * len bytes of fd at off, through signals and short reads: false when it
 * ends before them (errno 0) or cannot be read (errno).
 */
static bool
read_whole_at(int fd, char *to, size_t len, uint64_t off)
{
	size_t	got = 0;
	ssize_t	n;

	while (got < len) {
		n = pread(fd, to + got, len - got, (off_t)(off + got));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = 0;
			return false;
		}
		got += (size_t)n;
	}
	return true;
}

/* The line [at, end) of the journal, read whole, or NULL. */
static char *
read_line(struct journal *j, uint64_t at, uint64_t end)
{
	size_t	 n = (size_t)(end - at);
	char	*line;

	if (end <= at || end - at > RECORD_MAX + 1)
		return NULL;
	if ((line = malloc(n)) == NULL)
		err(EXIT_SYSTEM, "malloc");
	if (!read_whole_at(j->fd, line, n, at)) {
		free(line);
		return NULL;
	}
	return line;
}

/*
 * A checkpoint mapped for the state it gave (checkpoint_source): the
 * file as it was read, to tell a change under us.
 */
struct held_checkpoint {
	void		*map;
	size_t		 len;
	int		 fd, slot;
	struct stat	 sb;
	char		*path;
};

static bool
held_unchanged(void *arg)
{
	struct held_checkpoint	*h = arg;
	struct stat		 now;

	/* (not its change time: a rename over it or its removal moves it) */
	return fstat(h->fd, &now) == 0 && now.st_size == h->sb.st_size &&
	    now.st_mtim.tv_sec == h->sb.st_mtim.tv_sec &&
	    now.st_mtim.tv_nsec == h->sb.st_mtim.tv_nsec;
}

/*
 * What a writer does once its results are out (a checkpoint, a
 * compaction) reads every condition softly: a checkpoint found damaged
 * then costs that housekeeping, said on stderr, never the result or the
 * exit status.  held_failed: the first such finding, to report.
 */
static bool			 held_soft;
static struct {
	bool		 failed, changed;
	uint64_t	 at;
	char		*path;
	dev_t		 dev;
	ino_t		 ino;
} held_failed;

/* The checkpoint at its path, if it is still the file that was read. */
static void
remove_read_checkpoint(const char *path, dev_t dev, ino_t ino)
{
	struct stat sb;

	if (lstat(path, &sb) == 0 && sb.st_dev == dev && sb.st_ino == ino &&
	    unlink(path) == -1 && errno != ENOENT)
		warn("%s", path);
}

/*
 * A checkpoint whose checksum holds but whose values are not as arc
 * writes them was not written by arc: removed, so that the next command
 * replays the journal.  One changed under us is left to whoever wrote it.
 * stands: the command's results are out, and stand.
 */
static void
held_say(const char *path, dev_t dev, ino_t ino, bool changed, uint64_t at,
    bool stands)
{
	if (changed) {
		warnx("%s: changed while it was read; %s", path, stands ?
		    "what was reported stands, and nothing more is done now" :
		    "run the command again");
		return;
	}
	remove_read_checkpoint(path, dev, ino);
	warnx("%s: not as arc writes it (byte %llu), though its checksum "
	    "holds: removed; %sthe journal is replayed next time", path,
	    (unsigned long long)at, stands ? "what was reported stands, and " :
	    "");
}

static void
held_damaged(void *arg, bool changed, uint64_t at)
{
	struct held_checkpoint *h = arg;

	if (held_soft) {
		if (!held_failed.failed) {
			held_failed.failed = true;
			held_failed.changed = changed;
			held_failed.at = at;
			held_failed.dev = h->sb.st_dev;
			held_failed.ino = h->sb.st_ino;
			if ((held_failed.path = strdup(h->path)) == NULL)
				err(EXIT_SYSTEM, "strdup");
		}
		return;
	}
	held_say(h->path, h->sb.st_dev, h->sb.st_ino, changed, at, false);
	exit(EXIT_SYSTEM);
}

/*
 * After housekeeping read softly: false (said once) if a checkpoint the
 * state still read from could not be read as it was; the state is then
 * not written anywhere.
 */
static bool
held_whole(struct journal *j)
{
	if (state_complete(j->st))
		return true;
	j->reread = true;	/* a process that goes on reads it all again */
	if (held_failed.failed) {
		held_say(held_failed.path, held_failed.dev, held_failed.ino,
		    held_failed.changed, held_failed.at, true);
		free(held_failed.path);
		held_failed.path = NULL;
		held_failed.failed = false;
	}
	return false;
}

static void
held_release(void *arg)
{
	struct held_checkpoint *h = arg;

	if (h->slot >= 0) {
		held[h->slot].map = NULL;
		held[h->slot].len = 0;
	}
	(void)munmap(h->map, h->len);
	(void)close(h->fd);
	free(h->path);
	free(h);
}

/*
 * Decodes a checkpoint's head and framing from a map, a SIGBUS while it
 * is read being a checkpoint not to be trusted; the map is then kept, for
 * the state to read its conditions when asked, and the descriptor with
 * it.  The file must not have changed while it was read.
 */
static bool
decode_mapped(struct state *st, int *fdp, const struct stat *before,
    const char *name, struct checkpoint_head *head)
{
	int				 fd = *fdp;
	struct checkpoint_source	 src;
	struct held_checkpoint		*h;
	struct stat			 after;
	size_t				 len = (size_t)before->st_size;
	void				*map;
	volatile int			 slot;
	int				 n;
	bool				 ok;

	for (slot = 0; slot < HELD_MAX && held[slot].map != NULL; slot++)
		continue;
	if (slot == HELD_MAX)
		return false;	/* (a replay serves) */
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		return false;
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    (h->path = strdup(name)) == NULL)
		err(EXIT_SYSTEM, "calloc");
	h->map = map;
	h->len = len;
	h->fd = fd;
	h->slot = -1;
	h->sb = *before;
	src.arg = h;
	src.unchanged = held_unchanged;
	src.damaged = held_damaged;
	src.release = held_release;
	if (sigsetjmp(bus_jump, 1) != 0) {
		if (bus_map != NULL)
			(void)munmap(bus_map, bus_maplen);
		bus_map = NULL;
		checkpoint_abandon();
		free(h->path);
		free(h);
		return false;
	}
	bus_arm(map, len);
	ok = checkpoint_decode(st, map, len, head, &src);
	bus_disarm();
	if (!ok) {
		(void)munmap(map, len);
		free(h->path);
		free(h);
		return false;
	}
	/* The state's now, with the map and fd: let go when it is freed. */
	*fdp = -1;
	n = snprintf(held[slot].why, sizeof(held[slot].why),
	    "%s: %s: cut while it was read; run the command again\n",
	    getprogname(), name);
	held[slot].whylen = n > 0 ? (size_t)n < sizeof(held[slot].why) ?
	    (size_t)n : sizeof(held[slot].why) - 1 : 0;
	held[slot].len = len;
	held[slot].map = map;
	h->slot = slot;
	return fstat(fd, &after) == 0 && after.st_size == before->st_size &&
	    after.st_mtim.tv_sec == before->st_mtim.tv_sec &&
	    after.st_mtim.tv_nsec == before->st_mtim.tv_nsec;
}

/*
 * Loads the checkpoint if it is of this very file: the same file (device
 * and inode), the same header, and a last record that is there, whole,
 * byte for byte (its CRC-32C) and with the seq it names.  Anything else,
 * and it is left for a replay from the start; a writer replaces it later.
 */
static bool
load_checkpoint(struct journal *j, uint64_t size)
{
	struct checkpoint_head	 head;
	struct state		*st = NULL;
	struct stat		 sb;
	char			*name = NULL, *line = NULL;
	char			*nl;
	int			 fd = -1;
	int64_t			 first_seq;
	bool			 ok = false;

	if (j->salvage || size < j->checkpoint_floor)
		return false;
	/* The header: a version 2 journal's, its first seq. */
	if ((line = read_line(j, 0, size < 256 ? size : 256)) == NULL ||
	    (nl = memchr(line, '\n', size < 256 ? size : 256)) == NULL ||
	    (first_seq = header_v2_seq(j, line, (size_t)(nl - line))) < 0)
		goto done;
	free(line);
	line = NULL;
	name = checkpoint_path(j);
	if ((fd = open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		goto done;	/* none yet */
	if (!file_ours(fd, name, &sb) || sb.st_size == 0 ||
	    (uint64_t)sb.st_size > CHECKPOINT_MAX)
		goto done;
	st = state_new(state_readers_only(j->st));
	if (!decode_mapped(st, &fd, &sb, name, &head) ||
	    head.dev != (uint64_t)j->dev || head.ino != (uint64_t)j->ino ||
	    head.first_seq != (uint64_t)first_seq || head.offset > size ||
	    (line = read_line(j, head.last, head.offset)) == NULL ||
	    line[head.offset - head.last - 1] != '\n' ||
	    !log_frame_ok(line, (size_t)(head.offset - head.last - 1)) ||
	    crc32c(line, (size_t)(head.offset - head.last)) != head.last_crc ||
	    log_number(&j->arena, line, (size_t)(head.offset - head.last -
	    1), "seq") != (int64_t)head.seq)
		goto done;
	state_free(j->st);
	j->st = st;
	st = NULL;
	j->seq = j->durable = head.seq;
	j->check_seq = true;
	j->latest[0] = '\0';
	if (head.latest[0] != '\0') {
		struct arc_instant t;
		if (!rfc3339_parse(head.latest, strlen(head.latest), &t))
			errx(EXIT_SYSTEM, "internal error: a checkpoint's time");
		note_time(j, sv_str(head.latest), &t);
	}
	j->version = 2;
	j->first_seq = (uint64_t)first_seq;
	j->offset = head.offset;
	j->records = head.records;
	j->last_start = head.last;
	j->checkpoint = head.offset;
	ok = true;
done:
	if (fd != -1)
		(void)close(fd);
	state_free(st);
	free(line);
	free(name);
	return ok;
}

/* The old file's checkpoint, after a compaction: no use to anyone now. */
static void
remove_checkpoint(struct journal *j)
{
	char *name = checkpoint_path(j);

	if (unlink(name) == -1 && errno != ENOENT)
		warn("%s", name);
	free(name);
	j->checkpoint = 0;
}

/* The checkpoint's bytes to its temporary file; on failure the fd is -1. */
static bool
checkpoint_out(const char *p, size_t n, void *arg)
{
	int *fd = arg;

	if (write_all(*fd, p, n))
		return true;
	(void)close(*fd);
	*fd = -1;
	return false;
}

/*
 * A writer, when it is done, keeps a checkpoint of a large journal once
 * the records after the last one pass a sixteenth of the file (and of the
 * floor), so that replaying them costs a call little, and pass the
 * checkpoint's own size, so that writing checkpoints costs at most what
 * appending did.  Not synced: lost or torn by a crash, it fails its checks
 * and the next writer makes another.
 */
static void
maybe_checkpoint(struct journal *j)
{
	struct checkpoint_head	 head;
	char			*tmp = NULL, *name = NULL, *line = NULL;
	uint64_t		 tail;
	int			 fd;

	if (!j->writable || j->missing || j->salvage || j->version != 2 ||
	    j->offset < j->checkpoint_floor || j->offset <= j->checkpoint ||
	    j->batch.len > 0)
		return;
	tail = j->offset - j->checkpoint;
	if (tail < j->checkpoint_floor / 16 + j->offset / 16 ||
	    tail < state_checkpoint_bytes(j->st))
		return;
	held_soft = true;	/* the results are out */
	(void)state_read_all(j->st);
	held_soft = false;
	if (!held_whole(j))
		return;
	memset(&head, 0, sizeof(head));
	head.dev = (uint64_t)j->dev;
	head.ino = (uint64_t)j->ino;
	head.offset = j->offset;
	head.first_seq = j->first_seq;
	head.seq = j->seq;
	head.records = j->records;
	strlcpy(head.latest, j->latest, sizeof(head.latest));
	head.last = j->last_start;
	/* The last record's bytes, so that another in its place is told. */
	if ((line = read_line(j, head.last, head.offset)) == NULL)
		goto done;
	head.last_crc = crc32c(line, (size_t)(head.offset - head.last));
	name = checkpoint_path(j);
	if ((fd = open_temporary(j->path, "checkpoint", &tmp)) == -1)
		goto done;
	if (!checkpoint_write(j->st, &head, checkpoint_out, &fd)) {
		warn("%s", tmp);
		(void)unlink(tmp);
		goto done;
	}
	if (close(fd) == -1) {
		warn("%s", tmp);
		(void)unlink(tmp);
		goto done;
	}
	/* Compacted since: the new file's checkpoint is not ours to replace. */
	if (replaced(j)) {
		(void)unlink(tmp);
		goto done;
	}
	if (rename(tmp, name) == -1) {
		warn("%s", tmp);
		(void)unlink(tmp);
		goto done;
	}
	j->checkpoint = j->offset;
done:
	free(line);
	free(tmp);
	free(name);
}

/*
 * Replays what was appended since j->offset, in place from read-only
 * mappings of at most WINDOW bytes, so that memory stays bounded however
 * long the journal (the lock keeps writers from cutting the file).
 */
#define WINDOW	(64 * 1024 * 1024)
/*
 * What came since the last look is mostly a few records: read, not
 * mapped (one call instead of mmap, madvise, a fault and munmap).  A
 * first look maps, from the checkpoint's end or the start.
 */
#define TAIL_READ	(64 * 1024)

static void	mark_synced(struct journal *);

static bool
catch_up(struct journal *j)
{
	struct stat	 sb;
	uint64_t	 page = (uint64_t)sysconf(_SC_PAGESIZE), size, base;
	uint64_t	 records = j->records;
	size_t		 used;
	/* volatile: changed after sigsetjmp (gcc -Wclobbered) */
	volatile size_t	 window = WINDOW;
	size_t		 maplen;
	char		*map;
	enum replayed	 r;

	if (j->fd == -1)	/* an image: its bytes are all there is */
		sb.st_size = (off_t)j->whole_len;
	else if (fstat(j->fd, &sb) == -1) {
		warn("%s", j->path);
		return false;
	}
	size = (uint64_t)sb.st_size;
	/*
	 * Nothing since (a writer let in after a read meanwhile, a waiter
	 * woken for another key): no map, no signal mask saved.
	 */
	if (j->offset != 0 && j->offset == size && (!j->copy ||
	    j->whole != NULL))
		return true;
	if (j->offset == 0 && (j->past || !load_checkpoint(j, size)))
		state_reserve(j->st, 0, (size_t)(size / 1024));
	records = j->records;
	if (sigsetjmp(bus_jump, 1) != 0) {
		/* bus_caught lets our map go; a lent image stays its owner's */
		if (bus_map == j->whole && !j->lent)
			j->whole = NULL;
		return bus_caught(j);
	}
	/* A scratch copy is ours alone: mapped once, whole, and kept. */
	if (j->copy && j->whole == NULL && size > 0 && size <= SIZE_MAX) {
		map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, j->fd, 0);
		if (map == MAP_FAILED) {
			warn("%s: mmap", j->path);
			return false;
		}
		j->whole = map;
		j->whole_len = (size_t)size;
	}
	while (j->offset < size) {
		static char tail[TAIL_READ];

		if (j->whole != NULL) {
			base = 0;
			maplen = j->whole_len;
			map = (char *)j->whole;
		} else if (j->looked && size - j->offset <= TAIL_READ &&
		    read_whole_at(j->fd, tail, (size_t)(size - j->offset),
		    j->offset)) {	/* else the map says what is wrong */
			base = j->offset;
			maplen = (size_t)(size - j->offset);
			map = tail;
		} else {
			base = j->offset & ~(page - 1);
			maplen = size - base < window ? (size_t)(size - base) :
			    window;
			map = mmap(NULL, maplen, PROT_READ, MAP_PRIVATE, j->fd,
			    (off_t)base);
			if (map == MAP_FAILED) {
				warn("%s: mmap", j->path);
				return false;
			}
			(void)madvise(map, maplen, MADV_SEQUENTIAL);
		}
		if (map != tail)
			bus_arm(map, maplen);
		r = replay(j, map + (j->offset - base),
		    (size_t)(base + maplen - j->offset), &used);
		bus_disarm();
		if (map != j->whole && map != tail)
			(void)munmap(map, maplen);
		if (r == REPLAY_FAIL)
			return false;
		if (r != REPLAY_OK) {
			if (!recover(j, size, r == REPLAY_BAD_FRAMED, false))
				return false;
			break;
		}
		if (used > 0)
			continue;
		/* No whole record in the window: the end, or a long one. */
		if (base + maplen == size) {
			if (j->offset == 0) {
				/* A header cut short: a creation v1 left. */
				if (j->writable && j->exclusive &&
				    ftruncate(j->fd, 0) == -1) {
					warn("%s", j->path);
					return false;
				}
				break;
			}
			if (j->salvage) {
				/* cut short, or its newline hit: skipped */
				warnx("%s: skipping an unfinished record at "
				    "byte %llu", j->path,
				    (unsigned long long)j->offset);
				j->skipped_at = j->offset;
				break;
			}
			/* Cut short, or a whole record whose newline was hit. */
			if (!(j->version == 2 ? recover(j, size, false, true) :
			    cut_tail(j, j->offset, size)))
				return false;
			break;
		}
		if (window > RECORD_MAX) {
			warnx("%s: record at byte %llu is longer than %d bytes",
			    j->path, (unsigned long long)j->offset,
			    RECORD_MAX);
			return false;
		}
		window *= 2;
	}
	/*
	 * What another process wrote may not be on disk yet (it may have
	 * died before its sync): it is synced before anything acts on it,
	 * unless its writer's mark on the bell says this very end was
	 * synced.  A failed sync is not retried: the page cache may already
	 * have dropped what it could not write.
	 */
	if (j->records > records && !j->salvage && !j->copy) {
		if (!durable_as_marked(j, &sb)) {
			if (fdatasync(j->fd) == -1) {
				warn("%s: cannot sync what another process "
				    "wrote", j->path);
				return false;
			}
			mark_synced(j);
		}
		j->durable = j->seq;
	}
	j->looked = true;
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

static bool	compact_locked(struct journal *, const char *now, bool adopt);

/* ---- questions nobody waits for any more (arcwaiter.h) ---- */

#define UNWAITED_MAX	64	/* a look's; the next look takes the rest */

/* Whether the condition's hand-over already says what became of q. */
static bool
handed_over(struct arena *a, const struct condition *c, struct sv q)
{
	struct handover h;

	rules_handover_of(a, c->handover, q, &h);
	return h.what != NULL;
}

/*
 * Under LOCK_EX: for each waiter gone, its question withdrawn if it was
 * its own and is still pending, or, answered and never handed over, said
 * so (a plain waiter's too: it died between the answer and its line).
 */
static void
withdraw_unwaited(struct journal *j, struct arena *a, struct unwaited *u,
    size_t n)
{
	const char	*now = arc_now(), *at = journal_clock(j, now);
	struct current	 cur;
	struct change	 ch;
	size_t		 i;

	for (i = 0; i < n; i++) {
		memset(&cur, 0, sizeof(cur));
		if ((cur.c = state_find(j->st, u[i].key)) == NULL ||
		    cur.c->interaction.len == 0)
			continue;
		cur.has_n = journal_rec(j, a, cur.c, false, &cur.n) != NULL;
		cur.has_q = journal_rec(j, a, cur.c, true, &cur.q) != NULL;
		if (u[i].held.p == NULL) {
			struct sv by = cur.n.f[N_AGENT_NAME].p != NULL ?
			    cur.n.f[N_AGENT_NAME] : cur.n.f[N_AGENT];
			if (cur.has_q && !handed_over(a, cur.c, cur.q.f[I_ID]) &&
			    rules_handover(&cur, cur.q.f[I_ID],
			    rules_handover_json(a, "not_taken",
			    "stopped_waiting", by, cur.q.f[I_ID]), &ch))
				journal_record(j, at, &ch);
			continue;
		}
		if (rules_withdraw(&cur, now, at, u[i].question, u[i].held,
		    rules_handover_json(a, "withdrawn", "no_waiter", u[i].by,
		    cur.q.f[I_ID]), &ch) ||
		    (u[i].question.p != NULL &&
		    !handed_over(a, cur.c, u[i].question) &&
		    rules_handover(&cur, u[i].question, rules_handover_json(a,
		    "not_taken", "stopped_waiting", u[i].by, u[i].question),
		    &ch)))
			journal_record(j, at, &ch);
	}
}

/*
 * Any arc command that takes the journal looks first for waiters gone:
 * the one who notices withdraws.  A reader that may write opens the
 * journal to write for it; one that may not leaves it to the next.
 */
static void
sweep_unwaited(struct journal *j)
{
	struct unwaited	 u[UNWAITED_MAX];
	struct journal	 w;
	struct arena	 a = { 0 };
	size_t		 n;

	/* (a batch of the caller's own waits for its own append) */
	if (j->past || j->salvage || j->missing || j->batch.len > 0 ||
	    !waiter_any_gone(j->path))
		return;
	if (!j->writable) {
		if (access(j->path, W_OK) == 0 &&
		    journal_open(&w, j->path, true) && journal_lock(&w, true))
			journal_unlock(&w);
		journal_close(&w);
		return;
	}
	j->sweeping = true;
	if (journal_lock(j, true)) {
		n = waiter_gone(j->path, &a, u, UNWAITED_MAX);
		withdraw_unwaited(j, &a, u, n);
		if (journal_append(j))
			waiter_forget(u, n);
		else
			waiter_keep(u, n);
		journal_unlock(j);
	}
	j->sweeping = false;
	arena_free(&a);
}

/* flock(2) through signals; false (warned) when it fails otherwise. */
static bool
lock_file(struct journal *j, int op)
{
	while (flock(j->fd, op) == -1)
		if (errno != EINTR) {
			warn("%s: flock", j->path);
			return false;
		}
	return true;
}

/*
 * Under a shared lock, the state brought up to date; false: it cannot be.
 * A torn final record is left unsaid: the writer we are cuts it, and
 * says so, once its lock is had.  The stale temporary files go now too,
 * not once the lock is ours: no compaction runs while we hold any lock
 * on the file the name still leads to.
 */
static bool
read_meanwhile(struct journal *j)
{
	bool	 ok, warned = j->warned_tail;

	if (!lock_file(j, LOCK_SH))
		return false;
	j->exclusive = false;
	j->warned_tail = true;
	ok = catch_up(j);
	j->warned_tail = warned;
	if (ok && j->writable && !j->swept && !replaced(j))
		sweep_temporaries(j);
	(void)flock(j->fd, LOCK_UN);
	return ok;
}

/*
 * Takes the lock and brings the state up to date.  A journal that was
 * compacted (renamed over) while we waited is reopened and replayed; a
 * version-1 journal is upgraded by the first writer that takes it.
 */
bool
journal_lock(struct journal *j, bool exclusive)
{
	bool	 read_ahead = exclusive, had;

	if (!j->sweeping)
		sweep_unwaited(j);
	for (;;) {
		if (j->missing) {
			if (!open_file(j))
				return false;
			if (j->missing)
				return true;	/* still nothing to read */
		}
		/*
		 * A writer that finds another holding the journal reads what
		 * is there meanwhile, as a reader would, under a shared lock;
		 * once its own lock is had, only what came since is left.
		 */
		had = false;
		if (read_ahead) {
			read_ahead = false;
			if (flock(j->fd, LOCK_EX | LOCK_NB) == 0)
				had = true;
			else if (errno == EWOULDBLOCK && !j->reread &&
			    !replaced(j) && !read_meanwhile(j))
				return false;
		}
		if (!had && !lock_file(j, exclusive ? LOCK_EX : LOCK_SH))
			return false;
		j->exclusive = exclusive;
		if (j->reread || replaced(j)) {
			j->reread = false;
			(void)close(j->fd);
			j->fd = -1;
			if (!open_file(j))
				return false;
			continue;
		}
		if (!catch_up(j))
			return false;
		if (!j->writable || !exclusive)
			return true;
		if (!j->swept)
			sweep_temporaries(j);
		if (j->version != 1)
			return true;
		warnx("%s: upgrading a version 1 journal", j->path);
		if (!compact_locked(j, arc_now(), false))
			return false;
		j->upgraded = true;	/* and so compacted, just now */
	}
}

void
journal_unlock(struct journal *j)
{
	if (j->fd != -1 && !j->missing)
		(void)flock(j->fd, LOCK_UN);
	j->exclusive = false;
}

/*
 * Appends records and syncs them: only then may a result be printed.  On
 * failure the file is cut back to where it was, and nothing is reported
 * as stored.
 */
/*
 * Where the batch will land: the end of the file, after the header that
 * an empty file gets first.  Spans get their final offsets as records are
 * encoded, so that the state never tells the batch from the file.
 */
static uint64_t
batch_base(struct journal *j)
{
	struct buf h = { 0 };
	uint64_t base = j->offset;

	if (base == 0) {
		log_header(&h, 0);
		base = h.len;
		buf_free(&h);
	}
	return base;
}

/*
 * The journal whose batch is partly in its file ahead of its append: a
 * command that ends before that append (an error said with errx, a record
 * found damaged mid-batch) has what went ahead cut off again at its exit,
 * as append cuts it on a failure, so that nothing of a batch nobody was
 * told of is taken as stored by the next reader.  One journal at a time,
 * and only in the process that wrote it (not a child that inherits it).
 */
static struct journal	*ahead_journal;
static pid_t		 ahead_pid;

/* The batch appended, cut, or given up: nothing of it is ahead any more. */
static void
ahead_done(struct journal *j)
{
	j->batch_ahead = 0;
	j->ahead_error = 0;
	if (ahead_journal == j)
		ahead_journal = NULL;
}

static void
cut_ahead(struct journal *j)
{
	if (j->batch_ahead > 0 && (ftruncate(j->fd, (off_t)j->offset) == -1 ||
	    fdatasync(j->fd) == -1))
		warn("%s: cannot cut back a batch not stored", j->path);
	ahead_done(j);
}

static void
cut_ahead_at_exit(void)
{
	if (ahead_journal != NULL && ahead_pid == getpid())
		cut_ahead(ahead_journal);
}

/* Whether j may write ahead: the one journal that does, its exit cared for. */
static bool
ahead_kept(struct journal *j)
{
	static bool registered;

	if (ahead_journal == j)
		return true;
	if (ahead_journal != NULL)
		return false;
	if (!registered) {
		if (atexit(cut_ahead_at_exit) != 0)
			return false;
		registered = true;
	}
	ahead_journal = j;
	ahead_pid = getpid();
	return true;
}

/*
 * A long batch goes to the file as it grows, and the kernel is asked to
 * start putting it on the disk: the sync that ends the batch then waits
 * for its last piece, not for all of it, and each piece is copied while
 * the processor still holds it.  Under the lock, unread; nothing is
 * reported before that sync, and a failure here or there cuts the file
 * back to where the batch began (append).
 */
static void
write_ahead(struct journal *j)
{
	uint64_t	 at = j->offset + j->batch_ahead;
	size_t		 n = j->batch.len - j->batch_ahead;

	if (j->ahead_error != 0 || !ahead_kept(j))
		return;
	if (lseek(j->fd, (off_t)at, SEEK_SET) == -1 ||
	    !write_all(j->fd, j->batch.p + j->batch_ahead, n)) {
		j->ahead_error = errno != 0 ? errno : EIO;
		return;
	}
#ifdef SYNC_FILE_RANGE_WRITE
	(void)sync_file_range(j->fd, (off_t)at, (off_t)n,
	    SYNC_FILE_RANGE_WRITE);
#endif
	j->batch_ahead += n;
}

void
journal_record(struct journal *j, const char *at, const struct change *ch)
{
	struct change		 c = *ch;
	const struct condition	*old;
	size_t			 start;

	if (j->batch.len == 0)
		j->batch_at = batch_base(j);
	/* A change the consumer makes to a mirrored condition keeps its route. */
	if (c.route == NULL && c.has_n &&
	    (old = state_find(j->st, c.n.f[N_KEY])) != NULL)
		c.route = old->route;
	start = j->batch.len;
	log_encode(&j->batch, &j->scratch, j->seq + 1, j->durable, at, &c);
	/* Put as a replay puts it: what is written is what is kept. */
	if (!put_line(j, j->batch.p + start, j->batch.len - start - 1,
	    j->batch_at + start))
		errx(EXIT_SYSTEM, "internal error: a record that does not "
		    "read back");
	if (j->offset > 0 && j->batch.len - j->batch_ahead >= WRITE_AHEAD)
		write_ahead(j);
}

static bool	append(struct journal *, bool sync);

/* The journal's bell, opened once when first wanted (NULL word: none). */
static struct bell *
journal_bell(struct journal *j)
{
	if (!j->bell_tried) {
		j->bell_tried = true;
		(void)bell_open(&j->bell, j->path);
	}
	return &j->bell;
}

/* What is durable now is worth a look: every waiter looks again. */
static void
journal_ring(struct journal *j)
{
	bell_ring(journal_bell(j));
}

/*
 * The end just synced, for the readers after us (arcbell.h): this file,
 * this offset, the bytes that end there.
 */
static void
mark_durable(struct journal *j, const char *written, size_t n)
{
	struct bell_mark	 m;
	struct stat		 sb;

	/* (no mark, and readers sync: what was written is shorter than a
	 * record, or the change time cannot be had) */
	if (n < BELL_TAIL || fstat(j->fd, &sb) == -1)
		return;
	memset(&m, 0, sizeof(m));
	m.dev = (uint64_t)j->dev;
	m.ino = (uint64_t)j->ino;
	m.end = j->offset;
	m.ctime_sec = (int64_t)sb.st_ctim.tv_sec;
	m.ctime_nsec = (uint32_t)sb.st_ctim.tv_nsec;
	memcpy(m.tail, written + n - BELL_TAIL, BELL_TAIL);
	bell_mark(journal_bell(j), &m);
}

/*
 * The end another process wrote, synced by us under the lock: marked as
 * its writer would have, so that the next one to read it syncs it no
 * more (a receipt, written unsynced, is synced once, by whoever comes
 * first).  Readers under a shared lock mark alike: the same bytes.
 */
static void
mark_synced(struct journal *j)
{
	char tail[BELL_TAIL];

	/* A reader marks a bell that is there; it makes none. */
	if (j->bell.word != NULL && j->offset >= BELL_TAIL &&
	    pread(j->fd, tail, sizeof(tail), (off_t)(j->offset - BELL_TAIL)) ==
	    (ssize_t)sizeof(tail))
		mark_durable(j, tail, sizeof(tail));
}

/*
 * Whether what was read is durable already: the bell's mark names this
 * file (sb, as the catch-up found it under the lock) and the very end
 * read, and the bytes before it are the ones it names.  Then the sync
 * that follows a catch-up is not needed.
 */
static bool
durable_as_marked(struct journal *j, const struct stat *sb)
{
	struct bell_mark	 m;
	unsigned char		 tail[BELL_TAIL];

	if (j->offset < BELL_TAIL)
		return false;
	/* A reader uses a bell that is there; it makes none (a segment). */
	if (!j->bell_tried && bell_open_existing(&j->bell, j->path))
		j->bell_tried = true;
	return bell_marked(&j->bell, &m) &&
	    m.dev == (uint64_t)j->dev && m.ino == (uint64_t)j->ino &&
	    m.end == j->offset && m.ctime_sec == (int64_t)sb->st_ctim.tv_sec &&
	    m.ctime_nsec == (uint32_t)sb->st_ctim.tv_nsec &&
	    pread(j->fd, tail, sizeof(tail), (off_t)(j->offset - BELL_TAIL)) ==
	    (ssize_t)sizeof(tail) && memcmp(tail, m.tail, sizeof(tail)) == 0;
}

/*
 * Appends the batch and syncs it: only then may a result be printed.  On
 * failure the file is cut back to where it was, and nothing is reported
 * as stored (the command then exits: its state holds the batch).
 */
bool
journal_append(struct journal *j)
{
	return append(j, true);
}

/*
 * A record nobody is told of and that may be lost (a receipt): written,
 * not synced, so that the agent waits for no sync.  The next writer
 * syncs it before it acts (arc-journal(5), Durability).
 */
bool
journal_append_unsynced(struct journal *j)
{
	return append(j, false);
}

static bool
append(struct journal *j, bool sync)
{
	struct buf	 h = { 0 };
	uint64_t	 start = j->offset;
	const char	*last;
	int		 saved;
	bool		 sync_failed = false;

	if (j->batch.len == 0)
		return true;
	if (j->offset == 0) {	/* an empty file: the header first */
		log_header(&h, 0);
		j->version = 2;
		j->first_seq = 0;
		j->check_seq = true;	/* others' records follow ours */
	}
	if (j->ahead_error != 0) {
		errno = j->ahead_error;
		goto fail;
	}
	if (lseek(j->fd, (off_t)(start + j->batch_ahead), SEEK_SET) == -1 ||
	    !write_all(j->fd, h.p, h.len) ||
	    !write_all(j->fd, j->batch.p + j->batch_ahead,
	    j->batch.len - j->batch_ahead))
		goto fail;
	/*
	 * Written, not yet durable: a waiter asleep takes a quarter of a
	 * millisecond to run again, which it spends now, during the sync,
	 * and then waits at the lock we hold until the sync is done.
	 */
	if (sync) {
		journal_ring(j);
		if (fdatasync(j->fd) == -1) {
			sync_failed = true;
			goto fail;
		}
	}
	last = memrchr(j->batch.p, '\n', j->batch.len - 1);
	j->last_start = start + h.len + (last != NULL ?
	    (uint64_t)(last - j->batch.p) + 1 : 0);
	j->offset = start + h.len + j->batch.len;
	if (sync) {
		j->durable = j->seq;
		mark_durable(j, j->batch.p, j->batch.len);
	}
	j->batch.len = 0;
	ahead_done(j);
	buf_free(&h);
	journal_ring(j);
	return true;
fail:
	saved = errno;
	ahead_done(j);
	/*
	 * Left uncut, the next reader's recovery cuts the torn tail.  The
	 * cut of a failed write is synced (what went ahead may be on the
	 * disk already); never after a failed sync, which a second one could
	 * take back (fsyncgate): the command exits, the next one syncs.
	 */
	if (ftruncate(j->fd, (off_t)start) == -1 ||
	    (!sync_failed && fdatasync(j->fd) == -1))
		warn("%s: cannot cut back a failed append", j->path);
	errno = saved;
	warn("%s: cannot store records", j->path);
	buf_free(&h);
	return false;
}

/* ---- reading a stored record ---- */

/*
 * Reads len bytes at off of the journal, or of the batch past its end:
 * false when the file ends before them or cannot be read (errno; 0: it
 * ended).
 */
static bool
read_at_soft(struct journal *j, char *to, size_t len, uint64_t off)
{
	if (j->whole != NULL) {
		if (off > j->whole_len || len > j->whole_len - off)
			errx(EXIT_SYSTEM, "internal error: a span past the "
			    "segment");
		memcpy(to, j->whole + off, len);
		return true;
	}
	if (j->batch.len > 0 && off >= j->batch_at) {
		if (off - j->batch_at + len > j->batch.len)
			errx(EXIT_SYSTEM, "internal error: a span past the "
			    "batch");
		memcpy(to, j->batch.p + (off - j->batch_at), len);
		return true;
	}
	return read_whole_at(j->fd, to, len, off);
}

static void
read_at(struct journal *j, char *to, size_t len, uint64_t off)
{
	if (!read_at_soft(j, to, len, off))
		errx(EXIT_SYSTEM, "%s: the journal changed under us "
		    "(reading byte %llu); it cannot be read safely",
		    j->path, (unsigned long long)off);
}

/* A checkpoint's span: its record's checksum, checked before any use. */
static void
frame_checked(const struct journal *j, const char *line, const struct span *sp)
{
	if (!log_frame_ok(line, sp->line_len))
		errx(EXIT_SYSTEM, "%s: a damaged record at byte %llu",
		    j->path, (unsigned long long)sp->line);
}

const char *
journal_text(struct journal *j, struct arena *a, const struct condition *c,
    bool interaction)
{
	const struct span	*sp = interaction ? &c->interaction :
	    &c->notification;
	char			*t, *line;

	if (sp->len == 0)
		return NULL;
	t = arena_alloc(a, (size_t)sp->len + 1);
	if (sp->unchecked) {
		line = arena_alloc(a, (size_t)sp->line_len);
		read_at(j, line, sp->line_len, sp->line);
		frame_checked(j, line, sp);
		memcpy(t, line + (sp->off - sp->line), sp->len);
	} else {
		read_at(j, t, sp->len, sp->off);
	}
	t[sp->len] = '\0';
	return t;
}

const char *
journal_rec(struct journal *j, struct arena *a, const struct condition *c,
    bool interaction, struct rec *r)
{
	const struct span	*sp = interaction ? &c->interaction :
	    &c->notification;
	const char		*t = journal_text(j, a, c, interaction);

	if (t == NULL)
		errx(EXIT_SYSTEM, "internal error: a condition without its %s",
		    interaction ? "question" : "notification");
	if (!rec_parse(a, t, interaction, r))
		errx(EXIT_SYSTEM, "%s: a damaged record at byte %llu (its text "
		    "does not parse)", j->path, (unsigned long long)sp->off);
	return t;
}

/* ---- compaction, archive segments, salvage ---- */

static void	nospace_scan(struct journal *, bool remove);
static void	nospace_mark(struct journal *, uint64_t size);

struct sink {
	int		 fd;
	const char	*path;
	int		 failed;	/* the errno of a failed write */
	uint64_t	 written;	/* bytes, the header's included */
};

/*
 * What a compaction wrote, for the writer that goes on with the file it
 * wrote (adopt_compacted): each condition's new place, as the replay of
 * its record puts it, and the file's counts.  whole: the file holds the
 * state as it is (nothing retired, no event seen let go); otherwise the
 * writer reads the new file again, as any other process does.
 */
struct moved {
	struct condition	*c;
	struct span		 n, q;
};

struct rewrite {
	bool		 whole;
	struct moved	*v;
	size_t		 n, cap;
	uint64_t	 records, last_start;
	uint64_t	 written;	/* the file's size */
	char		 at[64];	/* the time its records say */
};

static bool
sink_write(struct buf *b, void *arg)
{
	struct sink *s = arg;

	if (!write_all(s->fd, b->p, b->len)) {
		s->failed = errno;
		warn("%s", s->path);
		return false;
	}
#ifdef SYNC_FILE_RANGE_WRITE
	/* on its way to the disk now, not all of it at the sync */
	(void)sync_file_range(s->fd, (off_t)s->written, (off_t)b->len,
	    SYNC_FILE_RANGE_WRITE);
#endif
	s->written += b->len;
	return true;
}

#define FLUSH_AT	(1024 * 1024)

/* Whether the span lies whole in the record line of the other. */
static bool
in_line(const struct span *sp, const struct span *in)
{
	return sp->line == in->line && sp->line_len == in->line_len &&
	    sp->off >= in->line && sp->len <= in->line_len &&
	    sp->off - in->line <= in->line_len - sp->len;
}

/*
 * The line of a kept record, read from the old file whole and, a
 * checkpoint's, checked against its frame; false when the file ends
 * before it (rewritten in place under us: said, as a reader says it).
 */
static bool
kept_line(struct journal *j, const struct span *sp, const char **line)
{
	char *l = arena_alloc(&j->arena, (size_t)sp->line_len + 1);

	if (!read_at_soft(j, l, sp->line_len, sp->line)) {
		if (errno == 0)
			return shrank(j);
		warn("%s: reading byte %llu", j->path,
		    (unsigned long long)sp->line);
		return false;
	}
	if (sp->unchecked)
		frame_checked(j, l, sp);
	*line = l;
	return true;
}

/*
 * A kept condition's texts: its record's line read once when it holds
 * both (the rule).  Read, not mapped: a map of the old file faulted its
 * pages in one at a time, in the state's order, and let them go again to
 * keep the compaction's footprint the state's (12% of its time).
 */
static bool
kept_texts(struct journal *j, const struct condition *c, struct sv *n,
    struct sv *q)
{
	const struct span	*ns = &c->notification, *qs = &c->interaction;
	const char		*nl, *ql;

	if (!in_line(ns, ns) || (qs->len > 0 && !in_line(qs, qs))) {
		/* (not as a record is read: read as any text is) */
		*n = sv_str(journal_text(j, &j->arena, c, false));
		*q = qs->len > 0 ? sv_str(journal_text(j, &j->arena, c,
		    true)) : (struct sv){ NULL, 0 };
		return true;
	}
	if (!kept_line(j, ns, &nl))
		return false;
	ql = nl;
	if (qs->len > 0 && !in_line(qs, ns) && !kept_line(j, qs, &ql))
		return false;
	*n = (struct sv){ nl + (ns->off - ns->line), ns->len };
	*q = qs->len > 0 ? (struct sv){ ql + (qs->off - qs->line), qs->len } :
	    (struct sv){ NULL, 0 };
	return true;
}

/*
 * A salvaged copy never reopens a settled question.  A question that was
 * pending before a damaged record that salvage skipped, and that no later
 * record rewrote, may have been answered (expired, withdrawn) by the
 * record skipped, whose key cannot be trusted: so every such condition
 * is left out of the copy, its key named.
 */
static bool
salvage_leaves_out(struct journal *j, const struct condition *c)
{
	uint64_t	 last = c->notification.line;
	struct buf	 b = { 0 };

	if (!j->salvage || j->skipped_at == 0 || c->qstatus != Q_PENDING)
		return false;
	if (c->interaction.len > 0 && c->interaction.line > last)
		last = c->interaction.line;
	if (last > j->skipped_at)
		return false;
	warnx("%s: %s: left out of the copy: its question was pending before "
	    "the damaged record at byte %llu, which may have settled it "
	    "(a salvaged copy never reopens a settled question)", j->path,
	    safe(&b, c->key), (unsigned long long)j->skipped_at);
	buf_free(&b);
	return true;
}

/*
 * A kept condition's record, just written at out's start, read back as
 * a replay reads it: where its parts now are.  false: it cannot be
 * adopted (the caller reads the file again).
 */
static bool
moved_to(struct journal *j, struct rewrite *rw, struct condition *c,
    const struct sink *s, const struct buf *out, size_t start)
{
	struct log_record	 r;
	struct moved		*m;

	arena_reset(&j->record_arena);
	if (!log_decode(&j->record_arena, out->p + start, out->len - start - 1,
	    s->written + start, state_readers_only(j->st), &r) ||
	    r.put.n.len != c->notification.len ||
	    r.put.q.len != c->interaction.len)
		return false;
	if (rw->n == rw->cap) {
		rw->cap = rw->cap ? rw->cap * 2 : 1024;
		if ((rw->v = reallocarray(rw->v, rw->cap, sizeof(*rw->v))) ==
		    NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	m = &rw->v[rw->n++];
	m->c = c;
	m->n = r.put.n;
	m->q = r.put.q;
	return true;
}

/*
 * Writes, after a header, what the state keeps: every condition not
 * retired, one record each, then the events seen within the window, 512
 * a record; numbered on from the last record, and each as durable as the
 * whole file will be when it is renamed into place.
 */
static bool
write_kept(struct journal *j, struct sink *s,
    const char *now, int64_t retain, int64_t window, struct buf *out,
    struct rewrite *rw)
{
	const char		*at = journal_clock(j, now);
	struct condition	*c;
	uint64_t		 durable = j->seq;
	int64_t			 since = instant_seconds(now) - window, when;
	uint8_t			 ident[16], content[16];
	size_t			 i, start = 0, in_record = 0;
	struct sv		 ntext, qtext;

	log_header(out, j->seq);
	if (strlcpy(rw->at, at, sizeof(rw->at)) >= sizeof(rw->at))
		rw->whole = false;
	for (c = state_first(j->st, &i); c != NULL; c = state_next(j->st, &i)) {
		if (c->notification.len == 0 ||
		    condition_retired(c, now, retain) ||
		    salvage_leaves_out(j, c)) {
			rw->whole = false;
			continue;
		}
		arena_reset(&j->arena);
		start = out->len;
		if (!kept_texts(j, c, &ntext, &qtext))
			return false;
		log_encode_kept(out, ++j->seq, durable, at, c, ntext, qtext);
		rw->records++;
		rw->last_start = s->written + start;
		if (rw->whole && !moved_to(j, rw, c, s, out, start))
			rw->whole = false;
		if (out->len >= FLUSH_AT) {
			if (!sink_write(out, s))
				return false;
			out->len = 0;
		}
	}
	i = 0;
	start = 0;
	while (state_next_seen(j->st, &i, ident, content, &when)) {
		if (when < since) {
			rw->whole = false;
			continue;
		}
		if (in_record == 0)
			rw->records++;
		log_encode_seen(out, &start, &in_record, in_record == 0 ?
		    ++j->seq : j->seq, durable, at, ident, content, when);
		rw->last_start = s->written + start;
		if (in_record == 512)
			log_encode_seen_end(out, start, &in_record);
		if (in_record == 0 && out->len >= FLUSH_AT) {
			if (!sink_write(out, s))
				return false;
			out->len = 0;
		}
	}
	log_encode_seen_end(out, start, &in_record);
	return sink_write(out, s);
}

/*
 * Writes the state's live records to fd, a header first, and syncs them;
 * rw (zeroed, whole set) learns where they went.
 */
static bool
write_live(struct journal *j, int fd, const char *path, const char *now,
    int64_t retain, int64_t window, struct rewrite *rw)
{
	struct sink		 s = { fd, path, 0, 0 };
	struct buf		 out = { 0 };
	bool			 ok;

	ok = write_kept(j, &s, now, retain, window, &out, rw);
	rw->written = s.written;
	if (ok && fsync(fd) == -1) {
		s.failed = errno;
		warn("%s", path);
		ok = false;
	}
	j->compact_errno = s.failed;
	buf_free(&out);
	return ok;
}

/*
 * A compaction killed between its link and its rename left the journal
 * with a second name: that name is not history (the journal went on
 * growing under it), and goes.
 */
static void
unlink_other_names(struct journal *j, const struct stat *sb)
{
	char		*dir = parent_of(j->path), *copy, *base;
	DIR		*d;
	struct dirent	*e;
	struct stat	 o;
	size_t		 n;

	if ((copy = strdup(j->path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	base = basename(copy);
	n = strlen(base);
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, base, n) == 0 &&
			    strncmp(e->d_name + n, ".history.", 9) == 0 &&
			    fstatat(dirfd(d), e->d_name, &o,
			    AT_SYMLINK_NOFOLLOW) == 0 &&
			    o.st_ino == sb->st_ino && o.st_dev == sb->st_dev)
				(void)unlinkat(dirfd(d), e->d_name, 0);
		(void)closedir(d);
	}
	free(copy);
	free(dir);
}

/*
 * The journal as it was stays beside the new one, a segment of history
 * named by its last seq: nothing compaction drops is lost.  It is a
 * journal jq and arc-apply --salvage read as it is until arcarchive.c
 * compresses it (zstdcat then reads it; --salvage wants it decompressed).
 */
static bool
archive(struct journal *j, uint64_t last)
{
	struct stat	 a, b;
	char		*name;
	bool		 ok = true;

	if (asprintf(&name, "%s.history.%012llu", j->path,
	    (unsigned long long)last) == -1)
		err(EXIT_SYSTEM, "asprintf");
	if (fstat(j->fd, &b) == 0 && b.st_nlink > 1)
		unlink_other_names(j, &b);
	if (link(j->path, name) == -1 && !(errno == EEXIST &&
	    stat(name, &a) == 0 && fstat(j->fd, &b) == 0 &&
	    a.st_ino == b.st_ino && a.st_dev == b.st_dev)) {
		warn("%s", name);
		ok = false;
	}
	free(name);
	return ok && sync_parent(j->path);
}

/*
 * The writer goes on with the file its compaction wrote, the state it
 * has: each condition's spans moved to where its record now is, the
 * file's counts its own.  Nothing else differs from what a replay of the
 * new file builds, since the file was written from this very state and
 * nothing in it was left out (rw->whole); the replay of a large journal
 * (every record again, every event seen into a new table) is what it
 * spares.  false: the caller reads the new file, as before.
 */
static bool
adopt_compacted(struct journal *j, int fd, const struct rewrite *rw,
    uint64_t last)
{
	struct arc_instant	 at;
	struct stat		 sb;
	size_t			 i;

	/* (no record: a replay would know no time at all) */
	if (!rw->whole || rw->records == 0 || j->batch.len > 0 ||
	    !rfc3339_parse(rw->at, strlen(rw->at), &at) ||
	    fstat(fd, &sb) == -1 || (uint64_t)sb.st_size != rw->written)
		return false;
	for (i = 0; i < rw->n; i++) {
		rw->v[i].c->notification = rw->v[i].n;
		rw->v[i].c->interaction = rw->v[i].q;
	}
	(void)close(j->fd);	/* the old file's lock goes with it */
	j->fd = fd;
	j->dev = sb.st_dev;
	j->ino = sb.st_ino;
	j->offset = rw->written;
	j->records = rw->records;
	j->last_start = rw->last_start;
	j->first_seq = last;
	j->durable = j->seq;
	j->version = 2;
	j->check_seq = true;
	j->checkpoint = 0;
	j->warned_tail = false;
	j->checked = false;
	/* The time every record of the file says, as a replay notes it. */
	note_time(j, sv_str(rw->at), &at);
	return true;
}

/* Under LOCK_EX and caught up: the live state into a new file, renamed. */
static bool
compact_locked(struct journal *j, const char *now, bool adopt)
{
	struct rewrite	 rw = { .whole = adopt };	/* else nothing kept */
	char		*tmp;
	int		 fd;
	bool		 ok = false;
	uint64_t	 last = j->seq;

	j->compact_errno = 0;
	if ((fd = open_temporary(j->path, "compact", &tmp)) == -1)
		goto done;
	/*
	 * Locked until its name is synced: nobody may append to the new file
	 * while a power cut could still take its rename back.
	 */
	if (flock(fd, LOCK_EX) == -1) {
		warn("%s: flock", tmp);
		goto fail;
	}
	/* A file of no records since its header holds no history. */
	if (!write_live(j, fd, tmp, now, j->retain, j->window, &rw) ||
	    (last > j->first_seq && !archive(j, last)))
		goto fail;
	if (rename(tmp, j->path) == -1) {
		warn("rename %s", tmp);
		goto fail;
	}
	ok = sync_parent(j->path);
	journal_ring(j);	/* waiters reopen the new file */
	remove_checkpoint(j);
	nospace_scan(j, true);	/* it fits now: no mark stands */
	/*
	 * Closing the old file releases its lock: processes waiting on it
	 * find it renamed over, and reopen the new one.
	 */
	if (ok && adopt_compacted(j, fd, &rw, last))
		goto done;
	(void)close(fd);
	(void)close(j->fd);
	j->fd = -1;
	j->missing = true;
	j->checked = false;
	goto done;
fail:
	(void)close(fd);
	(void)unlink(tmp);
	if (j->compact_errno == ENOSPC || j->compact_errno == EDQUOT)
		nospace_mark(j, j->offset);
	/* The journal goes on as it was: its next record follows its last. */
	j->seq = j->durable = last;
	j->check_seq = j->version == 2;
	/* Its spans were never moved: the state is the old file's still. */
done:
	free(rw.v);
	free(tmp);
	return ok;
}

bool
journal_compact(struct journal *j, const char *now)
{
	bool ok;

	if (!journal_lock(j, true))
		return false;
	if (j->upgraded) {	/* compacted as it was upgraded, just now */
		j->upgraded = false;
		journal_unlock(j);
		return true;
	}
	if (j->missing)
		return true;
	ok = compact_locked(j, now, true);
	if (!ok || !j->missing)	/* adopted: the new file's lock is ours */
		journal_unlock(j);
	return ok;
}

/*
 * Compacts when the journal's dead bytes (records since replaced, and
 * conditions retired) outweigh its live ones, past a floor, as Redis
 * rewrites its AOF at a growth percentage.  Weighing retirement visits
 * every condition, so it is done once a process, and again each time the
 * file has doubled since; between those a cheap estimate that ignores
 * retirement decides.
 */
/*
 * A compaction that found no room on the disk leaves a mark beside the
 * journal, journal.nospace.SIZE (an empty file: it needs no room itself),
 * so that no writer tries again, writing up to the free space, until the
 * journal has grown by a quarter since; a compaction that succeeds takes
 * the marks away.  Looked for once a process, and only when one is due.
 */
#define NOSPACE	".nospace."

static void
nospace_scan(struct journal *j, bool remove)
{
	char		*dir = parent_of(j->path), *copy, *base;
	DIR		*d;
	struct dirent	*e;
	const char	*rest;
	size_t		 n;

	if ((copy = strdup(j->path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	base = basename(copy);
	n = strlen(base);
	j->nospace_at = 0;
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			rest = e->d_name + n;
			if (strncmp(e->d_name, base, n) != 0 ||
			    strncmp(rest, NOSPACE, sizeof(NOSPACE) - 1) != 0 ||
			    strspn(rest + sizeof(NOSPACE) - 1, "0123456789") !=
			    strlen(rest + sizeof(NOSPACE) - 1) ||
			    strlen(rest + sizeof(NOSPACE) - 1) > 19)
				continue;
			if (remove)
				(void)unlinkat(dirfd(d), e->d_name, 0);
			else {
				const char *why;
				long long at = strtonum(rest + sizeof(NOSPACE) -
				    1, 0, LLONG_MAX, &why);
				if (why == NULL && (uint64_t)at > j->nospace_at)
					j->nospace_at = (uint64_t)at;
			}
		}
		(void)closedir(d);
	}
	j->nospace_known = true;
	free(copy);
	free(dir);
}

static void
nospace_mark(struct journal *j, uint64_t size)
{
	char	*name;
	int	 fd;

	if (asprintf(&name, "%s" NOSPACE "%llu", j->path,
	    (unsigned long long)size) == -1)
		err(EXIT_SYSTEM, "asprintf");
	if ((fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) != -1)
		(void)close(fd);
	free(name);
	j->nospace_at = size;
	j->nospace_known = true;
}

static bool
compaction_due(struct journal *j, const char *now)
{
	uint64_t size = j->offset, live;

	if (size < j->floor)
		return false;
	if (j->checked && size < 2 * j->checked_size &&
	    size <= 2 * state_live_bytes(j->st, now, j->retain, j->window,
	    false))
		return false;
	/* (its results are out: what it reads now is read softly) */
	held_soft = true;
	live = state_live_bytes(j->st, now, j->retain, j->window, true);
	held_soft = false;
	if (!held_whole(j))
		return false;
	j->checked = true;
	j->checked_size = size;
	if (size <= 2 * live)
		return false;
	nospace_scan(j, false);	/* another writer's mark counts too */
	return j->nospace_at == 0 || size >= j->nospace_at + j->nospace_at / 4;
}

/*
 * A compaction here runs after the writer's results are out, but the
 * writer's caller (a hook) still waits for it to exit: the segment it
 * left is compressed by a detached child (arcarchive.c), not by us.
 */
bool
journal_maintain(struct journal *j, const char *now)
{
	if (!j->writable || j->missing)
		return true;
	if (!compaction_due(j, now))
		return true;
	if (!journal_compact(j, now))
		return false;
	archive_handoff(j->path, instant_seconds(now));
	return true;
}

/*
 * Reads a damaged journal as far as it can, skipping what fails its frame,
 * and writes the state it holds to a new journal: every condition, every
 * event remembered.  The damaged file is only read.
 */
bool
journal_salvage(struct journal *j, const char *to)
{
	struct rewrite	 rw = { .whole = false };	/* a copy: not ours */
	int		 fd;
	bool		 ok;

	j->salvage = true;
	/* A writer's state: the events seen are salvaged too. */
	state_free(j->st);
	j->st = state_new(false);
	if (!journal_lock(j, false))
		return false;
	if (!make_parents(to) || !folder_ours(to))
		return false;
	fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1) {
		warn("%s", to);
		return false;
	}
	ok = write_live(j, fd, to, arc_now(), FOREVER, FOREVER, &rw) &&
	    sync_parent(to);
	(void)close(fd);
	if (!ok)
		(void)unlink(to);
	journal_unlock(j);
	return ok;
}
