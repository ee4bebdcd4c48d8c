/*
 * An ARC 0.2 event as a producer writes it (arcevent.c).  Every event arc
 * writes is built through these (arc-emit's, arc-hook's, arc-acp's, and
 * an answer's response.submitted), so that all write one envelope: the
 * same members, in the same order, escaped the same way.
 * An event is written in three steps, each appending to a buf:
 *
 *	event_open()		{"arc_version":"0.2", ... "request":{
 *	event_member() ...	the request's own members
 *	event_response()	"response":{...}, when it asks
 *	event_close()		}, the extensions, }

 * (A response.submitted closes its request after event_open's members
 * and writes its "response" object; event_close then ends that object.)
 *
 * A NULL text anywhere is a member left out.
 */
#ifndef ARCEVENT_H
#define ARCEVENT_H

#include "arc.h"

struct event_head {
	const char	*type;		/* request.created, ... */
	const char	*event_id;	/* NULL: a new one is minted */
	const char	*id_prefix;	/* of a minted one; NULL: "evt_" */
	const char	*sender_id, *sender_name, *sender_version;
	const char	*instance_id;
	const char	*session_id, *correlation_id, *project;
	const char	*cwd;		/* NULL: the working directory */
	const char	*turn_id, *native_request_id;
	const char	*pid;		/* digits, checked by the caller */
	bool		 no_context;	/* no context object at all */
	bool		 no_cwd;	/* cwd NULL: none, not ours */
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
