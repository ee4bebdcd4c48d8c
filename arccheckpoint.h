/*
 * The checkpoint (arccheckpoint.c): the state as the journal's first
 * offset bytes leave it, and what ties it to that journal file.
 */
#ifndef ARCCHECKPOINT_H
#define ARCCHECKPOINT_H

#include "arcstate.h"

struct checkpoint_head {
	uint64_t	 dev, ino;	/* the journal file */
	uint64_t	 offset;	/* bytes covered, to a record's newline */
	uint64_t	 first_seq;	/* the journal header's */
	uint64_t	 seq, records;	/* the last record covered; how many */
	uint64_t	 last;		/* where that record starts */
	uint32_t	 last_crc;	/* of its line, newline included */
	char		 latest[64];	/* the latest time recorded */
};

bool		 checkpoint_write(struct state *,
		    const struct checkpoint_head *,
		    bool (*)(const char *, size_t, void *), void *);
bool		 checkpoint_decode(struct state *, const char *, size_t,
		    struct checkpoint_head *);

#endif /* ARCCHECKPOINT_H */
