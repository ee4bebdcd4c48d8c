/*
 * Producer text made safe for a terminal, its width, and the raw terminal
 * (arcterm.c).
 */
#ifndef ARCTERM_H
#define ARCTERM_H

#include <termios.h>

#include "arc.h"

/*
 * Nothing a producer wrote reaches a terminal raw: C0 and C1 controls,
 * DEL, the bidi and invisible format characters, bytes that are not
 * UTF-8 and the backslash itself are shown escaped (\x1b, \u202e).
 */
void		 term_safe(struct buf *, const char *, size_t);
/* A string made safe in b (emptied first), for a message; "" is shown. */
const char	*safe(struct buf *, const char *);


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
/* Safe text cut to at most cols columns (UTF8_CUT marks a cut). */
void		 term_cut(struct buf *, const char *, size_t, size_t cols);
/* Producer text made safe, then cut. */
void		 term_fit(struct buf *, const char *, size_t, size_t cols);

#endif /* ARCTERM_H */
