/*
 * Waiting until the question under a key is settled (arcsettle.c): the
 * one wait, arc-wait's and arc-hook's.
 */
#ifndef ARCSETTLE_H
#define ARCSETTLE_H

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"

/*
 * One waiter's journal: opened by its first wait and kept open until
 * settle_done(), so that the receipt after the hand-over reads only what
 * came since (no open, no replay, no sync of what it already synced).
 */
struct settle {
	struct journal	 j;
	bool		 open;
};
/* Closes the journal a wait or a receipt opened. */
void		settle_done(struct settle *);

enum settled {
	SETTLED_ANSWERED,	/* answered: its record in *record */
	SETTLED_OTHER,		/* expired or cancelled: its record */
	SETTLED_NO_JOURNAL,	/* no journal yet: no question */
	SETTLED_NO_QUESTION,	/* nothing under the key */
	SETTLED_NOTICE,		/* a notice under the key: nothing to answer */
	SETTLED_TIMEOUT,	/* timeout passed first */
	SETTLED_STOPPED,	/* stop's reader went away (a signal) */
	SETTLED_FAILED		/* the journal failed; it said why */
};

#define SETTLE_ID_MAX	64	/* an interaction id's bytes, and its NUL */

/*
 * Blocks until the current question under key is settled or timeout ms
 * pass (-1: never).  stop: the write end of a pipe whose read end, once
 * closed (by a signal handler), ends the wait; -1: none.  *record gets
 * the settled interaction record as a tree, parsed into the arena
 * "into" (the record as stored: no member that is null), and id the
 * question's id when this call waited for it to be settled (its answer
 * is this waiter's to hand over), else "".
 * While it waits, it holds the key's waiter mark (arcwaiter.h).
 */
enum settled	settle_wait(struct settle *, const char *journal_option,
		    const char *key,
		    int64_t timeout, int stop, struct arena *into,
		    const struct jval **record, char id[SETTLE_ID_MAX]);
/*
 * The receipt: the answer to question id under key was handed over to
 * by (NULL: the question's sender, by name) at this instant; or, taken
 * false, could not be (its reader had gone).  Recorded without a sync
 * (it may be lost, never the answer); false: not recorded (the question
 * is no longer that answered one, or the journal failed).
 */
bool		settle_receipt(struct settle *, const char *journal_option,
		    const char *key,
		    const char *id, const char *by, bool taken);

#endif /* ARCSETTLE_H */
