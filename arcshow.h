/*
 * arc-status --show and --history (arcshow.c): one condition in full,
 * and what became of the settled ones.
 */
#ifndef ARCSHOW_H
#define ARCSHOW_H

#include "arc.h"
#include "arcjournal.h"

int	status_show(struct journal *, const char *key, bool json,
	    const char *now);
int	status_history(struct journal *, bool json, const char *now);

#endif /* ARCSHOW_H */
