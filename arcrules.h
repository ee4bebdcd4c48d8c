/*
 * ARC 0.2's lifecycle and answer rules (arcrules.c): the condition under
 * an event's key as stored in, a change and a verdict out.  Whoever
 * applies (arcfilter.c) reads the current records, writes the change to
 * the journal and the verdict as a result line.
 */
#ifndef ARCRULES_H
#define ARCRULES_H

#include "arc.h"
#include "arcproblem.h"
#include "arcrecord.h"
#include "arcstate.h"

/* The condition under a key as stored: its records, parsed and as text. */
struct current {
	const struct condition	*c;	/* NULL: none under the key */
	struct rec		 n, q;
	bool			 has_n, has_q;
	const char		*ntext, *qtext;
};

/* What became of one event. */
struct verdict {
	int		 status;	/* 200, 201, 400, 404, 409, 413 */
	enum arc_code	 code;	/* ARC_OK: accepted */
	bool		 replayed;
	bool		 changed;	/* the change is to be recorded */
	const char	*path;	/* JSON Pointer of the member at fault */
	const char	*state;	/* not_open: the question's status */
	char		 message[160];
};

/* The key of a valid event: its request's, or derived for a keyless one. */
struct sv	 rules_key(struct arena *, const struct jval *);
/*
 * Applies one valid event at now (the recorded time; clock the one its
 * deadlines are judged by) to the condition cur under its key.
 */
void		 rules_apply(struct state *, struct arena *, const struct jval *,
		    const struct current *, const char *clock, const char *now,
		    struct change *, struct verdict *);
/* The question under cur expired by clock: true with the change. */
bool		 rules_expire(const struct current *, const char *clock,
		    const char *now, struct change *);
/*
 * A question whose waiter is gone (arcwaiter.h), withdrawn by the
 * consumer: the notice resolved (cancelled), the question cancelled, and
 * handover (a JSON object) saying why.  Only while it is pending and is
 * the one the waiter opened: question_id its id, else (not yet known to
 * the waiter) opened_by the event_id that opened it.  true: the change.
 */
bool		 rules_withdraw(const struct current *, const char *clock,
		    const char *now, struct sv question_id, struct sv opened_by,
		    const char *handover, struct change *);
/*
 * What became of an answered question's hand-over (handover: a receipt,
 * or why none came), recorded by the consumer on the notice's record.
 * Only while question_id is the answered question under the key.
 */
bool		 rules_handover(const struct current *, struct sv question_id,
		    const char *handover, struct change *);
/*
 * A hand-over's record, in the arena: {"WHAT":WHY,"by":BY,"question":ID}
 * (by null: left out); arc-journal(5) lists them.
 */
const char	*rules_handover_json(struct arena *, const char *what,
		    const char *why, struct sv by, struct sv question);
/*
 * What a condition's hand-over record (its JSON text, or NULL) says of
 * question q (id): which
 * (NULL: nothing of q), who, and when (taken) or why.
 */
struct handover {
	const char	*what;	/* "taken", "not_taken", "withdrawn", NULL */
	struct sv	 by, why;	/* why: a taken's time, else its reason */
};
void		 rules_handover_of(struct arena *, const char *handover,
		    struct sv q, struct handover *);
/* A person's dismissal of a notice or a settled question (a resolution). */
enum dismissal { DISMISS_OK, DISMISS_NOT_FOUND, DISMISS_NOT_ACTIVE,
    DISMISS_PENDING };
enum dismissal	 rules_dismiss(const struct current *, const char *clock,
		    const char *now, const char *source, struct change *);
/*
 * Whether v is what tmux gives for the x-arc hint: a pane "%N" (pane) or
 * an absolute socket path of at most 200 printable bytes, no quote,
 * backslash or comma.
 */
bool		 rules_hint_ok(struct sv v, bool pane);
/* The key a mirror line is about (null: none). */
struct sv	 mirror_key(const struct jval *);
/* A mirror line: another host's condition (or its removal), checked. */
enum arc_code	 rules_mirror(struct arena *, const struct jval *,
		    const struct current *, const char *now, const char *route,
		    struct change *, bool *changed, const char **why);

#endif /* ARCRULES_H */
