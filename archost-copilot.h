/*
 * GitHub Copilot CLI's hooks (archost-copilot.c): its permissionRequest
 * as a question, its notices, and the decision in its output format.
 */
#ifndef ARCHOST_COPILOT_H
#define ARCHOST_COPILOT_H

#include "arc.h"
#include "archook.h"

/*
 * The plan of payload, an object, for the event it names (hookName,
 * hook_event_name) or, since most of Copilot's payloads name none, the
 * event the hooks file gave the command (event: ARC_HOOK_EVENT, or NULL).
 * False when the payload makes no sense (Copilot decides as it would).
 */
bool	copilot_plan(struct arena *, const struct jval *payload,
	    const char *event, struct hook_who *w, struct hook_plan *);
/* The decision for the plan's question, as permissionRequest takes it. */
bool	copilot_reply(struct buf *, struct arena *, const struct jval *payload,
	    const struct hook_who *w, const struct hook_plan *,
	    const struct jval *const *answer);

#endif /* ARCHOST_COPILOT_H */
