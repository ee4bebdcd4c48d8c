/*
 * An answer sent, and an event handed to a command (arcvia.c).
 */
#ifndef ARCVIA_H
#define ARCVIA_H

#include "arc.h"
#include "arcoffdevice.h"
#include "arcfilter.h"

/* A surface's answer to the question it showed. */
struct seen_answer {
	const char		*key;
	const char		*tag;	/* the question's, as shown */
	struct answerer		 who;
	const char		*answer;	/* a choice's id, or the text */
	bool			 is_text;
	const struct offdevice	*off;	/* shown under it; NULL: at home */
	bool			 narrow;	/* writes only in the journal's folder */
};
/*
 * Applies the answer here, under the journal's lock, only while the
 * question is open, was shown (off) and is the one shown (its tag); one
 * mirrored from another host goes by the route its mirror recorded, its
 * words to /dev/null, never into the mirror.  What came of it, in words a
 * surface may say: "answered", "refused", "closed", "withheld",
 * "changed", "sent", "mirrored" (no route), or "failed" (the journal).
 */
const char	*answer_seen(const char *journal_option,
		    const struct seen_answer *);

/*
 * An event (a line) to sh -c command's standard input: --via, or a
 * mirror's route; its exit status.  out: its standard output (-1: ours).
 */
int	send_via(const char *command, const struct buf *ev, int out);

#endif /* ARCVIA_H */
