/*
 * The journal as a stream of changes (arcfollow.c): an iterator over what
 * became of each condition since the last look, that a program polls
 * beside its other descriptors (arc-notify) or that arc-status --follow
 * prints as NDJSON lines, one per change.
 *
 *   follow_open     the active conditions become the first look's
 *   follow_look     "current" changes, then one "synced"; each later look
 *   follow_next     the changes since, in key order, one at a time
 *   follow_news     a change's records as JSON trees, for this process
 *   follow_write    a change as the stream's line, for another
 *
 * A change and its news are good until the next follow_next or
 * follow_look; the news lives in the arena the caller gives it.
 */
#ifndef ARCFOLLOW_H
#define ARCFOLLOW_H

#include "arc.h"
#include "arcoffdevice.h"

enum follow_kind { FOLLOW_CURRENT, FOLLOW_OPENED, FOLLOW_UPDATED,
    FOLLOW_ANSWERED, FOLLOW_EXPIRED, FOLLOW_RESOLVED, FOLLOW_DISMISSED,
    FOLLOW_REMOVED, FOLLOW_HANDOVER, FOLLOW_SYNCED };

struct follow_change {
	enum follow_kind	 kind;
	const char		*name;	/* the stream's word for it */
	const char		*at;	/* when it was seen */
	const char		*key;	/* NULL for synced */
	size_t			 keylen;
	const struct condition	*cond;	/* the condition; NULL: removed */
};

/* What a program in this process reads of a change, typed. */
struct follow_news {
	const struct jval	*n, *i;	/* the records (i NULL: none); i's
					   status reads expired once it is */
	const char		*handover;	/* its hand-over record, or NULL */
	int			 waiting;	/* a pending question's waiter:
						   1 someone, 0 none, -1 not known */
};

struct follower;
struct condition;

/* NULL when the journal cannot be opened (said why). off: --off-device. */
struct follower	*follow_open(const char *journal_option,
		    const struct offdevice *off);
void		 follow_close(struct follower *);
/* The descriptor to poll for POLLIN (-1: none), and when to look anyway. */
int		 follow_fd(const struct follower *);
int64_t		 follow_wait_ms(const struct follower *);
/* The descriptor was ready: whether the journal may have changed. */
bool		 follow_woken(struct follower *);
/* Catches up with the journal; false on a failure to read it (said). */
bool		 follow_look(struct follower *);
bool		 follow_next(struct follower *, struct follow_change *);
/* A change's records, parsed into a (false: removed, or off-device). */
bool		 follow_news(struct follower *, const struct follow_change *,
		    struct arena *a, struct follow_news *);
void		 follow_write(struct buf *, struct follower *,
		    const struct follow_change *);

/* arc-status --follow: the stream on standard output until its reader
   goes. */
int		 status_follow(const char *journal_option,
		    const struct offdevice *off);

#endif /* ARCFOLLOW_H */
