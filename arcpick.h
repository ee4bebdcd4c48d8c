/*
 * The person's side of arc-answer (arcpick.c): the picker of the waiting
 * questions and the prompt of one, live on their terminal (arcterm.h).
 */
#ifndef ARCPICK_H
#define ARCPICK_H

#include "arc.h"
#include "arcjournal.h"
#include "arcterm.h"

/* ---- the picker and the prompt (arcpick.c) ---- */

enum asked {
	ASKED_ANSWER,		/* an answer to apply */
	ASKED_LEFT,		/* the person left: Ctrl-D, or q */
	ASKED_INTERRUPTED,	/* Ctrl-C, or a signal */
	ASKED_CLOSED,		/* the question is not open (said why) */
	ASKED_FAILED,		/* a system failure (said why) */
};

/* What a person answered, to the question they saw. */
struct answer {
	char		*key;
	char		*answer;	/* a choice id, or a text */
	bool		 is_text;
	char		 digest[ARC_HEX_DIGEST];	/* its digest */
	struct buf	 why;	/* ASKED_CLOSED: its state, in words */
};

struct person;

struct person	*person_start(struct journal *);
void		 person_end(struct person *);
enum asked	 person_pick(struct person *, char **key);
enum asked	 person_ask(struct person *, const char *key, bool changed,
		    struct answer *);
void		 answer_free(struct answer *);


#endif /* ARCPICK_H */
