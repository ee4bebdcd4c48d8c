/*
 * arc-acp's byte stream (arcacpstream.c): a direction read in chunks,
 * each message forwarded as it arrives and acted on at its end.
 */
#ifndef ARCACPSTREAM_H
#define ARCACPSTREAM_H

#include "arcacpproxy.h"

/* Reads what is there and processes it; its end, at the input's end. */
void	stream_read(struct dir *d);
/* Goes on with what was read (held while the journal decided). */
void	stream_process(struct dir *d);
/* The input ended: a last message without its newline goes as it is. */
void	stream_input_end(struct dir *d);

#endif /* ARCACPSTREAM_H */
