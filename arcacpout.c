/*
 * What each direction of arc-acp writes.  Bytes of the input being read
 * go out as a span of it, written from where they are when the output is
 * free; a message of arc-acp's own waits for the boundary between two of
 * the stream's.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arc.h"
#include "arcacpout.h"

/*
 * Bytes of the input being processed are forwarded as a span of ibuf:
 * written from there when the output is free, copied only when it is not
 * or when something else is emitted after them.
 */
static void
span_copy(struct dir *d)
{
	if (d->spanlen > 0 && !d->out_dead)
		buf_put(&d->obuf, d->span, d->spanlen);
	d->spanlen = 0;
}

void
out_span(struct dir *d)
{
	ssize_t w;

	if (d->spanlen > 0 && !d->out_dead && d->obuf.len == d->ooff) {
		w = write(d->out, d->span, d->spanlen);
		if (w > 0) {
			d->span += w;
			d->spanlen -= (size_t)w;
		}
		/* an error is out_flush's, on what is left */
	}
	span_copy(d);
}

/* Bytes of d's ibuf, in order. */
void
out_forward(struct dir *d, const char *p, size_t n)
{
	if (d->out_dead || n == 0)
		return;
	if (d->spanlen > 0 && d->span + d->spanlen == p) {
		d->spanlen += n;
		return;
	}
	span_copy(d);
	d->span = p;
	d->spanlen = n;
}

void
out_emit(struct dir *d, const char *p, size_t n)
{
	if (d->out_dead || n == 0)
		return;
	span_copy(d);
	buf_put(&d->obuf, p, n);
}

size_t
out_pending(const struct dir *d)
{
	return d->obuf.len - d->ooff;
}

/* One message of ours, between two of the stream's. */
void
out_inject(struct dir *d, const struct buf *m)
{
	if (d->out_dead)
		return;
	if (d->mid)
		buf_put(&d->inject, m->p, m->len);
	else
		out_emit(d, m->p, m->len);
}

/*
 * Writes what is pending; false when the output died here (the caller
 * acts on the editor gone: the journal's side is above this file).
 */
bool
out_flush(struct dir *d)
{
	while (out_pending(d) > 0 && !d->out_dead) {
		ssize_t w = write(d->out, d->obuf.p + d->ooff, out_pending(d));

		if (w > 0) {
			d->ooff += (size_t)w;
			continue;
		}
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (w == -1 && errno != EPIPE)
			warn("writing to the %s", d == &px.a2e ? "editor" :
			    "agent");
		d->out_dead = true;
		d->obuf.len = d->ooff = 0;
		return false;
	}
	if (out_pending(d) == 0 || d->out_dead)
		d->obuf.len = d->ooff = 0;
	return true;
}

