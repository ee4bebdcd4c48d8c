/*
 * Times and states in words, and producer text for a person (arcwords.c):
 * what arc-status, arc-wait, arc-answer and the picker say.
 */
#ifndef ARCWORDS_H
#define ARCWORDS_H

#include "arc.h"
#include "arcterm.h"
#include "arcrecord.h"
#include "arcstate.h"

/*
 * How long a notice (an active condition without a question) counts as
 * needing someone after its last update, unless it is resolved or
 * dismissed first; arc-status(1) and arc(7) document it.
 */
#define NOTICE_SECONDS	(24 * 3600)

/* ---- time for a person ---- */
/* "45s", "12m", "3h20m", "2d": how long until an instant. */
void	time_left(char *, size_t, const char *until, const char *now);
/*
 * "18:47" on today's date, "tomorrow 09:30", else "2026-12-09 18:47": an
 * instant in the local zone, for a text that stays on screen (a desktop
 * notification) and so must not say "3m left" for ever.
 */
void	deadline_words(char *, size_t, const char *until, const char *now);
/*
 * A question's state in words, such as "waiting for an answer, 4 minutes
 * left" or "expired 4 minutes ago"; status is condition_qstatus()'s.
 */
void	question_words(struct buf *, const struct rec *q, enum qstatus,
	    const char *now);
/*
 * What became of the question's hand-over (the condition's record of it,
 * or NULL), after its state in words:
 * "; Claude Code took it 1 ms later", "; Claude Code did not take it (it
 * had stopped waiting)", ": no one waits for it any more"; nothing when
 * the record says nothing of q.  true: it was withdrawn for want of one.
 */
bool	handover_words(struct buf *, const char *handover,
	    const struct rec *q);
/* The same with "the agent" for whoever took it (its name withheld). */
bool	handover_words_unnamed(struct buf *, const char *handover,
	    const struct rec *q);
/* The condition's state in words: its question's, or the notice's. */
void	condition_words(struct buf *, const struct condition *,
	    const struct rec *n, const struct rec *q, enum qstatus,
	    const char *now);
/* "no question under this key", or "a notice, with no question..." */
void	no_question_words(struct buf *, struct state *, const char *key);

/* ---- producer text for a person ---- */
void	show_sv(struct buf *, struct sv);	/* term_safe; null is "" */

#endif /* ARCWORDS_H */
