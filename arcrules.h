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
