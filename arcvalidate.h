/*
 * The contract's event rules (arcvalidate.c): every field rule of ARC 0.2
 * (arc(7), schemas/) checked on one line, every problem collected.
 */
#ifndef ARCVALIDATE_H
#define ARCVALIDATE_H

#include "arc.h"
#include "arcproblem.h"

enum event_type {
	EV_UNKNOWN = 0,
	EV_CREATED = 1 << 0,
	EV_UPDATED = 1 << 1,
	EV_SUBMITTED = 1 << 2,
	EV_RESOLVED = 1 << 3,
};
/*
 * Parses and checks one line: true when it is a valid ARC 0.2 event, else
 * false with every problem in *pr.  *root is the line's object whenever it
 * is one, valid or not (NULL otherwise).
 */
bool		 arc_validate_line(struct arena *, const char *, size_t,
		    struct problems *, struct jval **root);
enum event_type	 arc_event_type(const struct jval *);


#endif /* ARCVALIDATE_H */
