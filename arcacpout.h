/*
 * arc-acp: what each direction writes (arcacpout.c): bytes of its input
 * forwarded where they are, messages of ours between two of the stream's.
 */
#ifndef ARCACPOUT_H
#define ARCACPOUT_H

#include "arcacpproxy.h"

/* Bytes of d's input, in order, written from where they are if it can. */
void	out_forward(struct dir *d, const char *p, size_t n);
void	out_span(struct dir *d);	/* the span, now, or copied */
/* Bytes of ours, after what is forwarded. */
void	out_emit(struct dir *d, const char *p, size_t n);
/* One message of ours, between two of the stream's. */
void	out_inject(struct dir *d, const struct buf *m);
size_t	out_pending(const struct dir *d);
/* Writes what is pending; false when the output died here. */
bool	out_flush(struct dir *d);

#endif /* ARCACPOUT_H */
