/*
 * An ARC 0.2 event as a producer writes it (arcevent.c).  arc-emit and
 * arc-hook build their events through these, so that both write one
 * envelope: the same members, in the same order, escaped the same way.
 * An event is written in three steps, each appending to a buf:
 *
 *	event_open()		{"arc_version":"0.2", ... "request":{
 *	event_member() ...	the request's own members
 *	event_response()	"response":{...}, when it asks
 *	event_close()		}, the extensions, }
 *
 * A NULL text anywhere is a member left out.
 */
#ifndef ARCEVENT_H
#define ARCEVENT_H

#include "arc.h"

struct event_head {
	const char	*type;		/* request.created, ... */
	const char	*event_id;	/* NULL: a new one is minted */
	const char	*sender_id, *sender_name, *sender_version;
	const char	*instance_id;
	const char	*session_id, *correlation_id, *project;
	const char	*cwd;		/* NULL: the working directory */
	const char	*turn_id, *native_request_id;
	const char	*pid;		/* digits, checked by the caller */
};

struct event_choice {
	const char	*id, *label, *detail;	/* detail NULL: none */
};

struct event_tail {
	const char	*notification_type;	/* x-agentnotify */
	const char	*tmux_pane, *tmux_socket;	/* x-arc: both or none */
};

/* The envelope up to the request's first member; *first is set. */
void	event_open(struct buf *, const struct event_head *, bool *first);
/* One string member "name":"value" of the object being written. */
void	event_member(struct buf *, bool *first, const char *name,
	    const char *value);
/*
 * The request's response: kind, the choices in order, text_max (digits,
 * or NULL) and the deadline.
 */
void	event_response(struct buf *, bool *first, const char *kind,
	    const struct event_choice *, size_t nchoices,
	    const char *text_max, const char *expires_at);
/* The end of the request and of the event, with its extensions. */
void	event_close(struct buf *, const struct event_tail *);

#endif /* ARCEVENT_H */
