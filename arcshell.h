/*
 * What the person-facing commands share (arcshell.c): arc-status,
 * arc-wait and arc-answer each live in a file of their own.
 */
#ifndef ARCSHELL_H
#define ARCSHELL_H

#include "arc.h"
#include "arcjournal.h"

struct question {
	bool		 found;
	struct rec	 q;
	char		*text;	/* the interaction record, journal form */
};

bool	read_journal(struct journal *, const char *option);
void	find_question(struct journal *, struct arena *, const char *key,
	    struct question *);
void	print_interaction(struct arena *, const char *text);
/* "45s", "12m", "3h20m", "2d": how long until an instant. */
void	time_left(char *, size_t, const char *until, const char *now);

#endif /* ARCSHELL_H */
