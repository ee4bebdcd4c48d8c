/*
 * One view of a question (arcview.c): what a person is shown of a
 * condition, built once from its stored records, with its text made safe
 * by one set of rules and the off-device setting applied; every surface
 * (the prompt and the picker, arc-status --show and --list, arc-notify's
 * desktop and exec sinks, arc-web's cards) renders this and reads no
 * record itself.
 */
#ifndef ARCVIEW_H
#define ARCVIEW_H

#include "arc.h"
#include "arcrecord.h"
#include "arcbind.h"
#include "arcoffdevice.h"

/*
 * Bounds of what is shown, in characters of the producer's text: ARC
 * 0.2's own maxima, so that nothing a valid event says is ever cut; a
 * longer text (a mirror's, a record from elsewhere) is cut in its middle,
 * at a character, with a mark saying how much.
 */
#define VIEW_KEY_MAX		100
#define VIEW_NAME_MAX		200
#define VIEW_TITLE_MAX		200
#define VIEW_MESSAGE_MAX	4000
#define VIEW_LABEL_MAX		200
#define VIEW_DETAIL_MAX		500
/* A run of this many blanks or more is shown as one mark. */
#define VIEW_BLANK_RUN		8

struct view_choice {
	struct sv	 id;		/* as given: what an answer names */
	struct sv	 shown_id;	/* the rest safe text: */
	struct sv	 label, detail;	/* detail null: none */
};

struct view {
	struct sv	 key;		/* as given, for answering */
	struct sv	 shown_key;
	/* safe text; null: not given, or not to leave (off-device) */
	struct sv	 agent, agent_id, project, session;
	struct sv	 title, message, kind;
	enum priority	 priority;
	bool		 has_q;		/* a question (the rest is its) */
	enum qstatus	 qs;
	const char	*answer_kind;	/* "permission", "single_choice", "text" */
	const char	*expires_at;	/* NULL: none */
	char		 tag[TAG_SHOWN + 1];
	size_t		 text_max;	/* a text question's bound */
	struct view_choice *choices;
	size_t		 nchoices;
	bool		 withheld;	/* off-device: its text stays here */
	bool		 has_where;	/* the record says where it runs */
	/* Set by view_handover(): a pending question's waiter, -1 unknown. */
	int		 waiting;
	struct sv	 handover;	/* "Claude Code took it 1 ms later" */
};

/*
 * The view of a condition's records (q NULL: a notice); qs is the
 * question's state now.  off NULL: shown on this host, everything;
 * else what the off-device setting lets leave, and a question whose text
 * stays here is withheld: shown without its text and not answerable.
 * Everything lives in the arena.
 */
void	view_build(struct view *, struct arena *, struct sv key,
	    const struct rec *n, const struct rec *q, enum qstatus,
	    const struct offdevice *);
/* The same from the records as trees (a follower's news, arcfollow.h). */
bool	view_from_json(struct view *, struct arena *, struct sv key,
	    const struct jval *n, const struct jval *q,
	    const struct offdevice *);
/*
 * What became of the question's hand-over (the condition's record of it,
 * arcrules.h) in words, and for a pending one whether anyone waits for
 * its answer (waiting: 0 nobody, 1 someone, -1 not known).  Without
 * this, neither is shown.
 */
void	view_handover(struct view *, struct arena *, const struct rec *q,
	    const char *handover, int waiting);
/* The same with the question as a tree (NULL: none). */
void	view_handover_tree(struct view *, struct arena *,
	    const struct jval *q, const char *handover, int waiting);
/*
 * Who asks, in the one order every surface gives it: the agent (its name,
 * else its id), the project, the session's short name (its last 6
 * characters, which tell two sessions of one agent apart): "claude in
 * shop, session 4e5f6a".  The view's safe text, plain.
 */
void	view_origin(struct buf *, const struct view *);
/* A notification's summary line: who asks (view_origin), and the title. */
void	view_summary(struct buf *, const struct view *);
/* Whether the question can be answered from a surface showing it. */
bool	view_answerable(const struct view *);

/*
 * A surface with less room than a question (the desktop, a push): the
 * bytes of the view's message that fit in chars characters and lines
 * lines, whole lines only (a first line longer than chars cut at a
 * character); v->message.n when all of it fits.  A question
 * that does not fit offers there only the choices that refuse
 * (view_refuses): nobody allows what they have not seen whole.
 */
size_t	view_room(const struct view *, size_t chars, size_t lines);
/* Characters in n bytes of safe text. */
size_t	view_chars(const char *, size_t n);
/* A choice that refuses: its id deny, stop, reject, decline or cancel. */
bool	view_refuses(const struct view_choice *);
/*
 * The first choice of q whose id is id, made as view_build() makes it,
 * the others not: false when q has none.  What answered a question is
 * shown from it where the rest of the view is not.
 */
bool	view_choice_of(struct view_choice *, struct arena *,
	    const struct rec *q, struct sv id);

/*
 * The one rule for producer text: C0 and C1 controls, DEL, the bidi and
 * invisible format characters, bytes that are not UTF-8 and the
 * backslash are shown escaped as the terminal shows them (\x1b,
 * \u202e); a run of VIEW_BLANK_RUN blanks or more is one mark; text
 * longer than max characters is cut in its middle with a mark.  With
 * lines, line breaks are kept, a run of blank lines is one mark, and a
 * command (from a line that begins "$ ") has every further line marked
 * "> " as its own; without, a line break is escaped like any control.
 */
void	view_safe(struct buf *, const char *, size_t, size_t max, bool lines);
/* Text for HTML and desktop markup: & < > " ' as entities, NUL dropped. */
void	view_html(struct buf *, struct sv);
/* The view as JSON (the exec sink's): safe text, JSON-escaped. */
void	view_json(struct buf *, const struct view *, const char *now);

#endif /* ARCVIEW_H */
