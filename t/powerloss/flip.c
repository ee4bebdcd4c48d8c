/*
 * flip: flips single bits of a journal, changes every byte of its last
 * record, and deletes whole records from it, and checks through the
 * commands that every change is either detected or provably harmless.
 *
 *	flip [-l] [-s step] [-w workers] journal workdir
 *
 * A copy of the journal with one bit flipped is observed by running
 * arc-status --json on it (a reader) and then arc-apply --compact (a
 * writer, which rewrites the whole state: the notifications, questions,
 * answers and the events it remembers).  Each flip must be:
 *
 *  - refused: the writer exits 3 naming a byte offset within the line
 *    holding the flipped bit (or, in the first line, saying the file is
 *    not an arc journal), the reader exits 3 too, and the file is left
 *    byte for byte;
 *  - harmless: reader and writer exit 0 without a word, and the compacted
 *    journal is byte for byte the compaction of the unflipped one.
 *
 * A flip in the last record is refused like any other: the record was
 * written whole (it ends with its newline), and a power cut leaves a
 * record cut short or zeros, never a bit flipped (arc-journal(5),
 * Recovery).  Taking it for a torn write and cutting it is a failure.
 *
 * With -l, every byte of the last record, its newline too, is also set
 * to NUL, to a newline, and to its complement, one at a time; each must
 * be refused, except a NUL where a power cut could have left it: a run
 * of zeros a sector of the record's write could be (from a 512-byte
 * boundary or the record's start, to a boundary or the end of the file).
 * That one is a torn write: cut, naming the record's offset, the state
 * that of the journal without its last record.
 *
 * Deleting any whole line but the last must be refused (exit 3, naming
 * the offset where the missing record was); deleting the last one leaves
 * a journal that opens as if that record had never been written.  ARC_NOW
 * must be set (the compaction's time); the commands are taken from
 * $ARC_BIN, else from PATH.  Every STEPth bit is flipped (1: all of
 * them), and every bit of every newline (a flipped newline joins two
 * records).  Prints the counts; exits 1 when any change went unnoticed,
 * 2 on usage, 3 on a system error.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHOW	12		/* failures described, per worker */

struct bytes {
	unsigned char	*p;
	size_t		 len;
};

struct seen {
	int		 rc, reader_rc;
	bool		 exists;
	struct bytes	 after;		/* the journal after the writer */
	char		 err[4096];	/* the writer's standard error */
	char		 rerr[1024];	/* the reader's */
};

struct counts {
	long	tried, refused, harmless, failed;
	long	deleted, del_refused, del_failed;
	long	changed, ch_refused, ch_cut, ch_failed;
};

#define SECTOR	512		/* what a disk writes whole, or not */

static const char	*workdir;
static char		 status_cmd[PATH_MAX] = "arc-status";
static char		 apply_cmd[PATH_MAX] = "arc-apply";
static struct bytes	 orig, ref, refcut;
static size_t		*starts;	/* offsets of each line, and len */
static size_t		 nlines;

static void
usage(void)
{
	fprintf(stderr, "usage: flip [-l] [-s step] [-w workers] journal "
	    "workdir\n");
	exit(2);
}

static void
read_file(const char *path, struct bytes *b, bool *exists)
{
	struct stat	 sb;
	int		 fd;
	ssize_t		 r;
	size_t		 off = 0;

	free(b->p);
	b->p = NULL;
	b->len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		if (errno != ENOENT)
			err(3, "%s", path);
		*exists = false;
		return;
	}
	*exists = true;
	if (fstat(fd, &sb) == -1)
		err(3, "%s", path);
	if ((b->p = malloc((size_t)sb.st_size + 1)) == NULL)
		err(3, "malloc");
	while (off < (size_t)sb.st_size) {
		if ((r = read(fd, b->p + off, (size_t)sb.st_size - off)) <= 0)
			err(3, "%s", path);
		off += (size_t)r;
	}
	b->len = off;
	(void)close(fd);
}

/* Empties the worker's folder: compactions may leave files beside it. */
static void
clear(const char *dir)
{
	DIR		*d;
	struct dirent	*e;
	char		 p[PATH_MAX];

	if ((d = opendir(dir)) == NULL)
		err(3, "%s", dir);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p) == -1)
			err(3, "%s", p);
	}
	(void)closedir(d);
}

/* Runs ARGV with stderr into ERR; returns its exit status (-1 killed). */
static int
run(char *const argv[], char *errbuf, size_t errlen)
{
	int	 fds[2], status, null;
	pid_t	 pid;
	size_t	 got = 0;
	ssize_t	 r;
	char	 sink[512];

	if (pipe(fds) == -1)
		err(3, "pipe");
	if ((pid = fork()) == -1)
		err(3, "fork");
	if (pid == 0) {
		if ((null = open("/dev/null", O_RDWR)) == -1 ||
		    dup2(null, 0) == -1 || dup2(null, 1) == -1 ||
		    dup2(fds[1], 2) == -1)
			_exit(126);
		(void)close(fds[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	(void)close(fds[1]);
	for (;;) {
		if (got + 1 < errlen)
			r = read(fds[0], errbuf + got, errlen - got - 1);
		else
			r = read(fds[0], sink, sizeof(sink));
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (got + 1 < errlen)
			got += (size_t)r;
	}
	errbuf[got] = '\0';
	(void)close(fds[0]);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			err(3, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
observe(const char *dir, const unsigned char *p, size_t len, struct seen *s)
{
	char		 path[PATH_MAX];
	char		*reader[] = { status_cmd, "-j", path, "--json", NULL };
	char		*writer[] = { apply_cmd, "-j", path, "--compact", NULL };
	int		 fd;

	clear(dir);
	snprintf(path, sizeof(path), "%s/journal", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1 || write(fd, p, len) != (ssize_t)len || close(fd) == -1)
		err(3, "%s", path);
	s->reader_rc = run(reader, s->rerr, sizeof(s->rerr));
	s->rc = run(writer, s->err, sizeof(s->err));
	read_file(path, &s->after, &s->exists);
}

static bool
same(const struct bytes *a, const unsigned char *p, size_t len)
{
	return a->len == len && (len == 0 || memcmp(a->p, p, len) == 0);
}

/* The byte offset named in a message ("byte N"), or -1. */
static long long
named(const char *msg)
{
	const char	*b = msg;
	char		*end;
	long long	 n;

	while ((b = strstr(b, "byte ")) != NULL) {
		b += 5;
		n = strtoll(b, &end, 10);
		if (end != b && n >= 0)
			return n;
	}
	return -1;
}

static size_t
line_of(size_t byte)
{
	size_t lo = 0, hi = nlines;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (starts[mid] <= byte)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The length of the first line of S, at most 200 bytes. */
static int
first(const char *s)
{
	size_t n = strcspn(s, "\n");

	return n > 200 ? 200 : (int)n;
}

static void
report(FILE *out, long *shown, const char *what, const struct seen *s)
{
	if ((*shown)++ >= SHOW)
		return;
	fprintf(out, "%s: writer exit %d%s%.*s, reader exit %d%s%.*s\n", what,
	    s->rc, *s->err ? ": " : "", first(s->err), s->err, s->reader_rc,
	    *s->rerr ? ": " : "", first(s->rerr), s->rerr);
}

/* Whether the writer cut the last record as a torn write. */
static bool
cut_as_torn(const struct seen *s, long long n)
{
	return s->rc == 0 && s->reader_rc == 0 &&
	    n == (long long)starts[nlines - 1] && s->exists &&
	    same(&s->after, refcut.p, refcut.len);
}

static void
flips(const char *dir, long step, int worker, int workers, FILE *out,
    struct counts *c)
{
	struct seen	 s = { 0 };
	unsigned char	*p;
	size_t		 bit, byte, line;
	long		 k = 0, shown = 0;
	char		 what[160];
	long long	 n;

	if ((p = malloc(orig.len)) == NULL)
		err(3, "malloc");
	for (bit = 0; bit < orig.len * 8; bit++) {
		/* every STEPth bit, and every bit of every newline */
		if (bit % (size_t)step != 0 && orig.p[bit / 8] != '\n')
			continue;
		if (k++ % workers != worker)
			continue;
		byte = bit / 8;
		line = line_of(byte);
		memcpy(p, orig.p, orig.len);
		p[byte] ^= (unsigned char)(1u << (bit % 8));
		observe(dir, p, orig.len, &s);
		c->tried++;
		n = named(s.err);
		if (s.rc == 3 && s.reader_rc == 3 && s.exists &&
		    same(&s.after, p, orig.len) &&
		    ((n >= (long long)starts[line] &&
		    n < (long long)starts[line + 1]) ||
		    (line == 0 && strstr(s.err, "not an arc journal")))) {
			c->refused++;
			continue;
		}
		if (s.rc == 0 && s.reader_rc == 0 && s.err[0] == '\0' &&
		    s.rerr[0] == '\0' && s.exists &&
		    same(&s.after, ref.p, ref.len)) {
			c->harmless++;
			continue;
		}
		c->failed++;
		snprintf(what, sizeof(what), "bit %zu (byte %zu%s, line %zu "
		    "of %zu) %s", bit, byte,
		    orig.p[byte] == '\n' ? ", a newline" : "", line + 1, nlines,
		    cut_as_torn(&s, n) ? "taken for a torn write and cut" :
		    "undetected or misreported");
		report(out, &shown, what, &s);
	}
	free(p);
	free(s.after.p);
}

/*
 * Whether a NUL at byte k of the last record is zeros a power cut could
 * leave: the record's write (from its first byte to the end of the file)
 * cut in 512-byte sectors, k a whole piece of it.
 */
static bool
power_cut_nul(size_t k)
{
	size_t from = starts[nlines - 1];

	return (k % SECTOR == 0 || k == from) &&
	    ((k + 1) % SECTOR == 0 || k + 1 == orig.len);
}

/* Every byte of the last record set to NUL, to a newline, complemented. */
static void
last_bytes(const char *dir, int worker, int workers, FILE *out,
    struct counts *c)
{
	static const char *const how[] = { "a NUL", "a newline", "complemented" };
	struct seen	 s = { 0 };
	unsigned char	*p, to;
	size_t		 byte, last = nlines - 1;
	long		 k = 0, shown = 0;
	long long	 n;
	int		 v;
	char		 what[160];

	if ((p = malloc(orig.len)) == NULL)
		err(3, "malloc");
	for (byte = starts[last]; byte < orig.len; byte++) {
		for (v = 0; v < 3; v++) {
			to = v == 0 ? 0 : v == 1 ? '\n' :
			    (unsigned char)~orig.p[byte];
			if (to == orig.p[byte] || k++ % workers != worker)
				continue;
			memcpy(p, orig.p, orig.len);
			p[byte] = to;
			observe(dir, p, orig.len, &s);
			c->changed++;
			n = named(s.err);
			if (v == 0 && power_cut_nul(byte)) {
				if (cut_as_torn(&s, n)) {
					c->ch_cut++;
					continue;
				}
			} else if (s.rc == 3 && s.reader_rc == 3 && s.exists &&
			    same(&s.after, p, orig.len) &&
			    n == (long long)starts[last]) {
				c->ch_refused++;
				continue;
			}
			c->ch_failed++;
			snprintf(what, sizeof(what), "byte %zu of the last record "
			    "(at %zu, %zu bytes) made %s: %s", byte - starts[last],
			    starts[last], orig.len - starts[last], how[v],
			    v == 0 && power_cut_nul(byte) ?
			    "not cut as a torn write" : cut_as_torn(&s, n) ?
			    "taken for a torn write and cut" : "not refused");
			report(out, &shown, what, &s);
		}
	}
	free(p);
	free(s.after.p);
}

static void
deletions(const char *dir, FILE *out, struct counts *c)
{
	struct seen	 s = { 0 };
	unsigned char	*p;
	size_t		 i, cut, len;
	long		 shown = 0;
	char		 what[80];

	if ((p = malloc(orig.len)) == NULL)
		err(3, "malloc");
	for (i = 0; i < nlines; i++) {
		cut = starts[i + 1] - starts[i];
		len = orig.len - cut;
		memcpy(p, orig.p, starts[i]);
		memcpy(p + starts[i], orig.p + starts[i + 1],
		    orig.len - starts[i + 1]);
		observe(dir, p, len, &s);
		c->deleted++;
		if (i == nlines - 1) {
			/* as if it had never been written */
			if (s.rc == 0 && s.reader_rc == 0 &&
			    same(&s.after, refcut.p, refcut.len)) {
				c->del_refused++;
				continue;
			}
		} else if (s.rc == 3 && s.reader_rc == 3 && s.exists &&
		    same(&s.after, p, len) && (named(s.err) ==
		    (long long)starts[i] || (i == 0 &&
		    strstr(s.err, "not an arc journal")))) {
			c->del_refused++;
			continue;
		}
		c->del_failed++;
		snprintf(what, sizeof(what), "deleting line %zu of %zu", i + 1,
		    nlines);
		report(out, &shown, what, &s);
	}
	free(p);
	free(s.after.p);
}

int
main(int argc, char **argv)
{
	struct counts	 total = { 0 }, c;
	struct seen	 s = { 0 };
	long		 step = 1, workers = 2;
	bool		 last = false;
	int		 ch, i, status;
	size_t		 k;
	pid_t		*pids;
	int		(*pipes)[2];
	char		 dir[PATH_MAX], line[1024];
	const char	*bin;
	bool		 exists;
	FILE		*in;

	while ((ch = getopt(argc, argv, "ls:w:")) != -1) {
		switch (ch) {
		case 'l':
			last = true;
			break;
		case 's':
			step = strtol(optarg, NULL, 10);
			break;
		case 'w':
			workers = strtol(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2 || step < 1 || workers < 1 || workers > 64)
		usage();
	if (getenv("ARC_NOW") == NULL)
		errx(2, "set ARC_NOW: the compaction's time");
	workdir = argv[1];
	if ((bin = getenv("ARC_BIN")) != NULL && *bin != '\0') {
		snprintf(status_cmd, sizeof(status_cmd), "%s/arc-status", bin);
		snprintf(apply_cmd, sizeof(apply_cmd), "%s/arc-apply", bin);
	}
	read_file(argv[0], &orig, &exists);
	if (!exists || orig.len == 0 || orig.p[orig.len - 1] != '\n')
		errx(3, "%s: not a journal ending with a newline", argv[0]);
	if ((starts = calloc(orig.len + 2, sizeof(*starts))) == NULL)
		err(3, "calloc");
	for (k = 0; k < orig.len; k++)
		if (k == 0 || orig.p[k - 1] == '\n')
			starts[nlines++] = k;
	starts[nlines] = orig.len;

	/* What the unflipped journal compacts to, whole and without its
	 * last record. */
	snprintf(dir, sizeof(dir), "%s/ref", workdir);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		err(3, "%s", dir);
	observe(dir, orig.p, orig.len, &s);
	if (s.rc != 0 || s.reader_rc != 0 || s.err[0] != '\0')
		errx(3, "the unflipped journal does not compact cleanly "
		    "(exit %d): %s", s.rc, s.err);
	ref = s.after;
	s.after.p = NULL;
	observe(dir, orig.p, starts[nlines - 1], &s);
	if (s.rc != 0)
		errx(3, "the journal without its last record does not "
		    "compact (exit %d): %s", s.rc, s.err);
	refcut = s.after;
	s.after.p = NULL;

	if ((pids = calloc((size_t)workers, sizeof(*pids))) == NULL ||
	    (pipes = calloc((size_t)workers, sizeof(*pipes))) == NULL)
		err(3, "calloc");
	for (i = 0; i < workers; i++) {
		if (pipe(pipes[i]) == -1)
			err(3, "pipe");
		if ((pids[i] = fork()) == -1)
			err(3, "fork");
		if (pids[i] == 0) {
			FILE *out;
			(void)close(pipes[i][0]);
			if ((out = fdopen(pipes[i][1], "w")) == NULL)
				err(3, "fdopen");
			memset(&c, 0, sizeof(c));
			snprintf(dir, sizeof(dir), "%s/w%d", workdir, i);
			if (mkdir(dir, 0700) == -1 && errno != EEXIST)
				err(3, "%s", dir);
			flips(dir, step, i, (int)workers, out, &c);
			if (last)
				last_bytes(dir, i, (int)workers, out, &c);
			if (i == 0)
				deletions(dir, out, &c);
			fprintf(out, "counts %ld %ld %ld %ld %ld %ld %ld %ld %ld "
			    "%ld %ld\n", c.tried, c.refused, c.harmless,
			    c.failed, c.deleted, c.del_refused, c.del_failed,
			    c.changed, c.ch_refused, c.ch_cut, c.ch_failed);
			if (fclose(out) == EOF)
				err(3, "write");
			_exit(0);
		}
		(void)close(pipes[i][1]);
	}
	for (i = 0; i < workers; i++) {
		if ((in = fdopen(pipes[i][0], "r")) == NULL)
			err(3, "fdopen");
		while (fgets(line, sizeof(line), in) != NULL) {
			if (sscanf(line, "counts %ld %ld %ld %ld %ld %ld %ld %ld "
			    "%ld %ld %ld", &c.tried, &c.refused, &c.harmless,
			    &c.failed, &c.deleted, &c.del_refused,
			    &c.del_failed, &c.changed, &c.ch_refused, &c.ch_cut,
			    &c.ch_failed) == 11) {
				total.tried += c.tried;
				total.refused += c.refused;
				total.harmless += c.harmless;
				total.failed += c.failed;
				total.deleted += c.deleted;
				total.del_refused += c.del_refused;
				total.del_failed += c.del_failed;
				total.changed += c.changed;
				total.ch_refused += c.ch_refused;
				total.ch_cut += c.ch_cut;
				total.ch_failed += c.ch_failed;
			} else
				printf("flip: %s", line);
		}
		(void)fclose(in);
		if (waitpid(pids[i], &status, 0) == -1 ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			errx(3, "a worker failed");
	}
	if (step == 1)
		snprintf(line, sizeof(line), "every bit");
	else
		snprintf(line, sizeof(line), "1 bit in %ld and the newlines",
		    step);
	printf("flip: %zu bytes, %zu lines, %s: %ld flips tried, %ld refused, "
	    "%ld harmless, %ld undetected\n",
	    orig.len, nlines, line, total.tried, total.refused,
	    total.harmless, total.failed);
	if (last)
		printf("flip: every byte of the last record (%zu bytes) made "
		    "NUL, a newline, its complement: %ld changes, %ld refused, "
		    "%ld cut as a power cut's zeros, %ld wrong\n",
		    orig.len - starts[nlines - 1], total.changed,
		    total.ch_refused, total.ch_cut, total.ch_failed);
	printf("flip: %ld lines deleted one at a time, %ld detected or "
	    "harmless, %ld not\n", total.deleted, total.del_refused,
	    total.del_failed);
	return total.failed > 0 || total.del_failed > 0 ||
	    total.ch_failed > 0;
}
