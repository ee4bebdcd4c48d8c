/*
 * arc-status --show and --history (arcshow.c): one condition in full,
 * and what became of the settled ones.
 */
#ifndef ARCSHOW_H
#define ARCSHOW_H

#include "arc.h"
#include "arcjournal.h"

/* local: times in the local zone, for a person at a terminal */
int	status_show(struct journal *, const char *key, bool json, bool local,
	    const char *now);
/* What --history shows: a time range (seconds) reads the archives too. */
struct history_opts {
	bool		 json;
	bool		 local;		/* times in the local zone */
	bool		 range;		/* since and until are given */
	int64_t		 since, until;
	const char	*key, *agent;	/* only these, when not NULL */
};
int	status_history(struct journal *, const struct history_opts *,
	    const char *now);

#endif /* ARCSHOW_H */
