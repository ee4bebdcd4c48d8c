/*
 * arc-acp's ARC side (arcacpask.c): acting on what the agent and the
 * editor send: a permission request or an elicitation asked, a session
 * and its folder learned, a cancellation.
 */
#ifndef ARCACPASK_H
#define ARCACPASK_H

#include "arcacpproxy.h"

/* The editor's request whose reply is read (by its id's value), or NULL. */
struct pending	*acp_pending_find(const char *cid, size_t n);
/* A whole message of the agent's, or of the editor's, kept to act on. */
void		 acp_agent_message(struct dir *d);
void		 acp_editor_message(struct dir *d);

#endif /* ARCACPASK_H */
