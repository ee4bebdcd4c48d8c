/*
 * What every host's hook mapping shares (archook.c): the plan a payload
 * becomes (what to close, what to open, what to wait for), the texts made
 * as the shell adapters made them with jq, keys, and the events built
 * from a plan.  Each host's mapping is a file of its own (archost-*.c).
 */
#ifndef ARCHOOK_H
#define ARCHOOK_H

#include "arc.h"
#include "arcevent.h"

#define HOOK_REQS_MAX	16	/* questions opened by one call */
#define HOOK_CHOICES_MAX 12	/* ARC's most */
#define HOOK_RESOLVE_MAX 4

/* One request to open: a notice, or a question when it has a response. */
struct hook_req {
	const char		*key, *kind, *priority;	/* priority: NULL */
	const char		*title, *message;
	struct event_choice	 choice[HOOK_CHOICES_MAX];	/* arcevent.h */
	size_t			 nchoices;
	long			 text_max;	/* a text answer; -1: none */
	const char		*field;	/* the elicitation's field, or NULL */
};

enum hook_wait { WAIT_NONE, WAIT_PERMISSION, WAIT_ASK, WAIT_ELICIT };

struct hook_plan {
	bool		 unless_pending;	/* nothing while one is pending */
	bool		 sweep;		/* resolve the session's requests */
	const char	*resolve[HOOK_RESOLVE_MAX];	/* these keys */
	const char	*resolve_prefix[HOOK_RESOLVE_MAX];	/* keys so begun */
	size_t		 nresolve, nprefix;
	enum hook_wait	 wait;	/* WAIT_NONE: open, then exit */
	/* Why nothing is asked (the action cannot be shown whole), or NULL. */
	const char	*refused;
	bool		 known;	/* an event the host's mapping reads */
	struct hook_req	 req[HOOK_REQS_MAX];
	size_t		 nreq;
};

/* Who asks, and where: every event's sender and context. */
struct hook_who {
	const char	*client, *name;	/* sender id and name */
	const char	*session, *prefix;	/* prefix: client:session */
	const char	*cwd, *project, *turn;	/* NULL: none */
	const char	*tmux_pane, *tmux_socket;	/* NULL: none */
};

#define HOOK_PAYLOAD_MAX (16 * 1024 * 1024)	/* bytes; more is refused */
/*
 * JSON values in a payload; more is refused before it is parsed, so that
 * its tree stays within a small multiple of its bytes whatever its shape
 * (each value is a node of about 80 bytes: "[0,0,..." is one a 2 bytes).
 */
#define HOOK_VALUES_MAX	(256 * 1024)

/*
 * A payload as the host sent it (*why, when NULL is returned: the reason): bytes that are not UTF-8 read as U+FFFD
 * (as jq read them), then one JSON object, strictly, with no member name
 * twice in any object; NULL when it is not.
 */
const struct jval *hook_payload(struct arena *, const char *, size_t,
		    const char **why);

/* ---- texts, as the adapters' jq made them ---- */
/* A string as it is, null as "", anything else as jq's tojson; no NUL. */
const char	*hook_text(struct arena *, const struct jval *);
/* hook_text with each run of control characters one space (jq's line). */
const char	*hook_line(struct arena *, const struct jval *);
const char	*hook_line_of(struct arena *, const char *);
/* At most n characters: n - 1 and an ellipsis when it is longer. */
const char	*hook_clip(struct arena *, const char *, size_t n);
bool		 hook_blank(const char *);	/* only White_Space, or "" */
/* hook_text, or dflt when that is blank. */
const char	*hook_or_else(struct arena *, const struct jval *,
		    const char *dflt);
size_t		 hook_length(const char *);	/* in characters */
const char	*hook_printf(struct arena *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
/* Neither absent, null nor false: jq's truth. */
bool		 hook_truthy(const struct jval *);
/* Whether s holds a control character (C0 or DEL). */
bool		 hook_has_control(const char *);
/* v as jq's tojson, its members sorted (jq -S). */
const char	*hook_canon(struct arena *, const struct jval *);
/* A name or a path as it is, or as hook_canon when it has controls. */
const char	*hook_shown(struct arena *, const struct jval *);
/* Whether mb is named one of names (NULL-terminated). */
bool		 hook_named_one_of(const struct jmember *,
		    const char *const *names);
/* The object in without the members named one of names. */
struct jval	 hook_without(struct arena *, const struct jval *in,
		    const char *const *names);
/*
 * "Also: " and the members of in that its rendering does not show (those
 * not named in names), sorted, on a line; nothing when there are none or
 * in is no object.
 */
void		 hook_also(struct arena *, struct buf *, const struct jval *in,
		    const char *const *names);
/* The start of the SHA-256 of s, 16 hex digits. */
const char	*hook_sha16(struct arena *, const char *);
/* s if it is 1 to max of [A-Za-z0-9._-] and no hash; else its hook_sha16. */
const char	*hook_plain(struct arena *, size_t max, const char *);
/* s if it is 1 to 40 of [A-Za-z0-9._-] (a session), else hook_sha16. */
const char	*hook_session(struct arena *, const char *);
/* The project a cwd is in: its last name, "/" for the root; "" none. */
const char	*hook_project(struct arena *, const char *cwd);

/* ---- the events ---- */
/*
 * The request.created event of r; expires: a question's deadline;
 * event_id: its id (NULL: a new one).
 */
void		 hook_event(struct buf *, const struct hook_who *,
		    const struct hook_req *, const char *expires,
		    const char *event_id);
/* Adds a choice to a question (at most HOOK_CHOICES_MAX). */
void		 hook_choice(struct hook_req *, const char *id,
		    const char *label, const char *detail);
/* The request.resolved event closing key with outcome. */
void		 hook_resolved(struct buf *, const struct hook_who *,
		    const char *key, const char *outcome);

#endif /* ARCHOOK_H */
