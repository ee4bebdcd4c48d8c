/*
 * The person's side of arc-answer: their terminal (arcterm.c) and the
 * picker and prompt shown on it (arcpick.c).
 */
#ifndef ARCPICK_H
#define ARCPICK_H

#include <termios.h>

#include "arc.h"
#include "arcjournal.h"

/* ---- the terminal (arcterm.c) ---- */

/*
 * The terminal in raw mode: keys are read one by one into the line being
 * typed, and a "live block" at the bottom of the screen (a countdown, the
 * prompt and the typed line) is redrawn in place.
 */
struct tty {
	int		 fd;		/* standard input, a terminal */
	struct termios	 saved;
	bool		 raw;
	unsigned	 cols, rows;
	struct buf	 line;		/* what is typed, as typed */
	char		 in[512];	/* read, not yet handled */
	size_t		 in_at, in_len;
	int		 esc;		/* inside an escape sequence */
	size_t		 drawn;	/* live rows above the cursor */
};

enum tty_key {
	TTY_NONE,	/* nothing more to handle now */
	TTY_EDIT,	/* the typed line changed */
	TTY_ENTER,	/* the line is complete */
	TTY_EOF,	/* Ctrl-D on an empty line */
	TTY_INTERRUPT,	/* Ctrl-C */
	TTY_GONE,	/* the terminal went away */
};

bool		 tty_start(struct tty *);
void		 tty_end(struct tty *);
void		 tty_resized(struct tty *);
bool		 tty_pending(const struct tty *);
enum tty_key	 tty_read(struct tty *);
void		 tty_live(struct tty *, const struct buf *);
void		 tty_above(struct tty *, const struct buf *);
void		 tty_done(struct tty *, const struct buf *);

/* Display columns of text that term_safe() wrote. */
size_t		 term_width(const char *, size_t);
/* Safe text cut to at most cols columns ("..." marks a cut). */
void		 term_cut(struct buf *, const char *, size_t, size_t cols);
/* Producer text made safe, then cut. */
void		 term_fit(struct buf *, const char *, size_t, size_t cols);

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

/* The question's choices (NULL for a text question), parsed in the arena. */
const struct jval *question_choices(struct arena *, const struct rec *);
/* "no question under this key", or "a notice, with no question..." */
void		 no_question_words(struct buf *, struct journal *,
		    const char *);
/* Pending, and its deadline not passed. */
bool		 question_open(const struct rec *, const char *now);
/* The question's status now: a pending one past its deadline is expired. */
enum qstatus	 question_status(const struct rec *, const char *now);

#endif /* ARCPICK_H */
