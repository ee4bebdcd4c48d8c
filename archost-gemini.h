/*
 * Gemini CLI's own hooks (archost-gemini.c): notices and their
 * resolution only; nothing is ever handed back.
 */
#ifndef ARCHOST_GEMINI_H
#define ARCHOST_GEMINI_H

#include "arc.h"
#include "archook.h"

/* The plan of payload, an object; fills w's context.  False: nonsense. */
bool	gemini_plan(struct arena *, const struct jval *payload,
	    struct hook_who *w, struct hook_plan *);

#endif /* ARCHOST_GEMINI_H */
