/*
 * Claude Code's hooks, and Codex's, which speak Claude Code's format
 * (archost-claude.c): a payload's plan, and the decision in the host's
 * output format.
 */
#ifndef ARCHOST_CLAUDE_H
#define ARCHOST_CLAUDE_H

#include "arc.h"
#include "archook.h"

/*
 * The plan of payload, an object, for w->client "claude-code" or "codex"
 * (w->name is the host's name); fills w's context.  False when the
 * payload makes no sense (the host asks in its own dialog).
 */
bool	claude_plan(struct arena *, const struct jval *payload,
	    struct hook_who *w, struct hook_plan *);
/*
 * The decision for the plan's questions, answer[i] the interaction record
 * of question i as answered: the host's reply, one JSON line.  False when
 * the answers make none (the host asks in its own dialog).
 */
bool	claude_reply(struct buf *, struct arena *, const struct jval *payload,
	    const struct hook_who *w, const struct hook_plan *,
	    const struct jval *const *answer);

#endif /* ARCHOST_CLAUDE_H */
