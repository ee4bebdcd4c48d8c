/*
 * arc-notify's push through ntfy (arcntfy.c).  A question goes to the
 * question topic as one message: the view's title and message (the one
 * view, within the off-device setting), its priority as ntfy's, and an
 * http action a choice offered, which publishes a tap to the answer
 * topic:
 *
 *   {"arc":"tap","key":KEY,"tag":TAG,"choice":ID}
 *
 * The tag (16 hex digits of the question's digest) binds the tap to the
 * question shown; the applier refuses it for any other.  The answer
 * topic is read back as ntfy's JSON stream by a child process, one
 * message a line on a pipe, from a position (since=) that survives a
 * restart, so the host opens no port and loses no tap.
 */
#ifndef ARCNTFY_H
#define ARCNTFY_H

#include <stdio.h>
#include <sys/types.h>

#include "arc.h"
#include "arcnotifyconf.h"
#include "arcview.h"

struct ntfy;	/* a server, its topics, the tokens read, a connection */

/* The server of the config, its token files read; NULL: said why. */
struct ntfy	*ntfy_open(const struct ntfy_conf *);
void		 ntfy_close(struct ntfy *);

/*
 * Whether the question may be answered with this choice from the phone:
 * one of the (at most three) actions its message offers.
 */
bool		 ntfy_offers(const struct ntfy *, const struct view *,
		    struct sv choice_id);
/* The message a view becomes, as ntfy's JSON publishing takes it. */
void		 ntfy_message(struct buf *, const struct ntfy *,
		    const struct view *);
/* Publishes the view's message; false with our words of why. */
bool		 ntfy_push(struct ntfy *, const struct view *, char *why,
		    size_t whylen);
/* A short follow-up about a question pushed ("Answered: Allow"). */
bool		 ntfy_say(struct ntfy *, const struct view *, const char *words,
		    char *why, size_t whylen);

/*
 * The answer topic's messages from since (a message id or a Unix time)
 * on, a JSON line each, on *fd, read by a child process that reconnects
 * on its own; its pid.
 */
pid_t		 ntfy_listen(struct ntfy *, const char *since, int *fd);

/* A tap, read from one of those lines; its strings live in the arena. */
struct ntfy_tap {
	const char	*id;		/* the message's: where to go on from */
	const char	*key, *tag, *choice;	/* NULL: not a tap */
};
bool		 ntfy_tap(struct arena *, const char *line, size_t len,
		    struct ntfy_tap *);

/* arc-notify --ntfy-setup: the lines and steps for a server. */
void		 ntfy_setup(FILE *, const char *server);

#endif /* ARCNTFY_H */
