/*
 * arc-acp's ARC side (arcacpjournal.c): the journal through one
 * arc-apply and an arc-wait per question, the events arc-acp writes, and
 * the questions themselves: opened, answered, withdrawn.
 */
#ifndef ARCACPJOURNAL_H
#define ARCACPJOURNAL_H

#include "arcacpproxy.h"

/* arc-apply: an event sent (its result comes back for op kind, slot). */
bool		 apply_send(const struct buf *event, enum op_kind kind,
		    int slot);
void		 apply_flush(void);	/* what it can take, now */
void		 apply_read(void);	/* its result lines, each acted on */
/* arc-acp's events: a question's request.created, its withdrawal. */
void		 acp_event_created(struct buf *e, const struct question *q,
		    const struct jval *sid, const struct session *s,
		    const struct jval *tcid, const struct jval *id,
		    const struct buf *req, const char *expires);
void		 acp_event_resolved(struct buf *e, const char *key,
		    const char *outcome);
/* The questions: found by their request's id, withdrawn, freed. */
struct question	*question_find(const char *cid, size_t n);
void		 question_withdraw(struct question *q, const char *outcome);
void		 questions_withdraw(const char *outcome);	/* every one */
void		 question_free(struct question *q);
bool		 questions_racing(void);	/* or a late reply to drop */
/* Its arc-wait: stopped, or read (at its end, the answer acted on). */
void		 question_wait_stop(struct question *q);
void		 question_wait_read(struct question *q);
/* A late reply of the editor's to drop (take: and forget it). */
bool		 late_reply_take(const char *cid, size_t n, bool take);

#endif /* ARCACPJOURNAL_H */
