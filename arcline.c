/*
 * NDJSON input in bounded memory: a line longer than ARC_LINE_MAX is
 * skipped to its newline without being kept, however long it is.  And the
 * diagnostics that name a line, printed so that no byte of the input can
 * drive the terminal.
 */
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"

#define READER_CAP (4 * ARC_LINE_MAX)

void
line_reader_init(struct line_reader *r, int fd, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->name = name;
	r->cap = READER_CAP;
	r->max = ARC_LINE_MAX;
	r->sep = '\n';
	if ((r->buf = malloc(r->cap)) == NULL)
		err(EXIT_SYSTEM, "malloc");
}

void
line_reader_set(struct line_reader *r, size_t max, char sep)
{
	char *p;

	r->sep = sep;
	r->max = max;
	if (max + 1 > r->cap / 4) {
		if ((p = realloc(r->buf, 4 * (max + 1))) == NULL)
			err(EXIT_SYSTEM, "realloc");
		r->buf = p;
		r->cap = 4 * (max + 1);
	}
}

void
line_reader_free(struct line_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* Reads more at the end of the buffer; false at end of file or error. */
static bool
fill(struct line_reader *r)
{
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->end == r->cap)
		return true;
	for (;;) {
		n = read(r->fd, r->buf + r->end, r->cap - r->end);
		if (n > 0) {
			r->end += (size_t)n;
			return true;
		}
		if (n == 0) {
			r->eof = true;
			return false;
		}
		if (errno != EINTR) {
			r->read_errno = errno;
			return false;
		}
	}
}

void
line_reader_netstrings(struct line_reader *r, size_t max)
{
	line_reader_set(r, max, ',');
	r->netstrings = true;
}

/* One netstring: its length, its bytes whole (max at most), its comma. */
static enum line_status
netstring_next(struct line_reader *r, const char **line, size_t *len)
{
	uint64_t	 n;
	size_t		 at, k;

	for (;;) {
		if (r->skipping) {	/* a too large one's rest, unread */
			k = r->end - r->start;
			if (k > r->skip)
				k = (size_t)r->skip;
			r->start += k;
			r->skip -= k;
			if (r->start == r->end) {
				if (fill(r))
					continue;
				if (r->read_errno)
					return LINE_ERROR;
				goto broken;	/* cut short */
			}
			if (r->skip > 0)
				continue;
			r->skipping = false;
			if (r->buf[r->start++] != ',')
				goto broken;
			r->lineno++;
			*line = r->buf + r->start;
			*len = 0;
			return LINE_TOO_LARGE;
		}
		/* LEN: up to 10 digits and a colon */
		for (at = r->start, n = 0; at < r->end && at - r->start < 11 &&
		    r->buf[at] >= '0' && r->buf[at] <= '9'; at++)
			n = n * 10 + (uint64_t)(r->buf[at] - '0');
		if (at < r->end && (r->buf[at] != ':' || at == r->start ||
		    at - r->start > 10))
			goto broken;
		if (at < r->end && n > r->max) {
			r->start = at + 1;
			r->skip = n;
			r->skipping = true;
			continue;
		}
		if (at < r->end && r->end - (at + 1) > n) {
			if (r->buf[at + 1 + n] != ',')
				goto broken;
			*line = r->buf + at + 1;
			*len = (size_t)n;
			r->start = at + 2 + (size_t)n;
			r->lineno++;
			return LINE_OK;
		}
		if (r->eof) {
			if (r->start == r->end)
				return LINE_EOF;
			goto broken;
		}
		if (!fill(r) && r->read_errno)
			return LINE_ERROR;
	}
broken:
	r->read_errno = EPROTO;	/* not one netstring after another */
	return LINE_ERROR;
}

enum line_status
line_next(struct line_reader *r, const char **line, size_t *len)
{
	char	*nl;
	bool	 skipping = false;

	if (r->netstrings)
		return netstring_next(r, line, len);
	for (;;) {
		nl = memchr(r->buf + r->start, r->sep, r->end - r->start);
		if (nl != NULL) {
			*line = r->buf + r->start;
			*len = (size_t)(nl - *line);
			r->start = (size_t)(nl - r->buf) + 1;
			r->lineno++;
			return skipping || *len > r->max ?
			    LINE_TOO_LARGE : LINE_OK;
		}
		if (r->end - r->start > r->max) {
			/* Too long already: forget it, keep looking for its end. */
			skipping = true;
			r->start = r->end = 0;
		}
		if (r->eof || r->read_errno) {
			if (r->read_errno)
				return LINE_ERROR;
			if (r->end > r->start || skipping) {
				*line = r->buf + r->start;
				*len = r->end - r->start;
				r->start = r->end;
				r->lineno++;
				return skipping ? LINE_TOO_LARGE : LINE_OK;
			}
			return LINE_EOF;
		}
		if (!fill(r) && r->read_errno)
			return LINE_ERROR;
	}
}

/* Whether the next line can be had without waiting: group commit's cue. */
bool
line_pending(struct line_reader *r)
{
	struct pollfd pfd;

	if (memchr(r->buf + r->start, r->sep, r->end - r->start) != NULL)
		return true;
	if (r->eof)
		return r->end > r->start;
	pfd.fd = r->fd;
	pfd.events = POLLIN;
	return poll(&pfd, 1, 0) > 0;
}

bool
line_blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' &&
		    s[i] != '\f' && s[i] != '\v')
			return false;
	return true;
}
