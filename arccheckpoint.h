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
/*
 * Where a checkpoint's bytes lie while the state it gave reads them:
 * unchanged says they are still as they were when decoded (NULL: they
 * are in memory); damaged ends the command (changed: the file changed
 * under us; else its bytes are not as arc writes them, at byte at), and
 * returns only in a fuzzer; release lets them go, with the state.
 */
struct checkpoint_source {
	void		*arg;
	bool		(*unchanged)(void *);
	void		(*damaged)(void *, bool changed, uint64_t at);
	void		(*release)(void *);
};
/*
 * Its head, and the state it holds handed to an empty state to read when
 * asked (state_set_base): only the framing of each condition is read
 * now.  False: no checkpoint of ours; the bytes stay the caller's.
 */
bool		 checkpoint_decode(struct state *, const char *, size_t,
		    struct checkpoint_head *, const struct checkpoint_source *);
/* Frees what a decode cut short (a SIGBUS while it read) had taken. */
void		 checkpoint_abandon(void);

#endif /* ARCCHECKPOINT_H */
