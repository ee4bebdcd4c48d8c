/*
 * Deliveries that failed (arcdelivery.c): arc-notify's record, in a small
 * file beside the journal (JOURNAL.delivery), of each sink that could not
 * deliver a condition and why, read by arc-status --show and --list so
 * that a failure is never only on arc-notify's standard error.
 */
#ifndef ARCDELIVERY_H
#define ARCDELIVERY_H

#include "arc.h"

struct delivery_failure {
	const char	*key;
	const char	*sink;		/* "desktop", "exec" */
	const char	*why;		/* our words; never producer text raw */
	const char	*at;		/* RFC 3339 */
	unsigned	 tries;
	bool		 final;		/* no more tries */
};

/* JOURNAL.delivery for a journal's path (malloc'd). */
char	*delivery_path(const char *journal);
/* Replaces the file with these (none: removes it); false, warned. */
bool	 delivery_save(const char *path, const struct delivery_failure *,
	    size_t);
/*
 * The failures recorded for key (NULL: any), each as one line of words
 * after prefix ("exec: exit status 7, 3 tries, gave up at ..."), into b;
 * how many.  A missing file is none; one not ours is not read.
 */
size_t	 delivery_words(struct buf *, const char *path, const char *key,
	    const char *prefix, const char *sep);

#endif /* ARCDELIVERY_H */
