/*
 * Producer text on a person's terminal.  Whatever a producer wrote (a
 * title, a message, a choice label, a key) may try to drive the terminal:
 * ESC and CSI sequences that clear or rewrite the screen, OSC sequences
 * that rename the pane or write the clipboard, a carriage return that
 * hides what came before, bidi overrides that reorder what follows.  What
 * a person approves must be what they saw, so every byte that is not
 * plain visible text is shown escaped: C0 and DEL as \xNN, C1 and the
 * Unicode format characters (bidi controls, zero-width and invisible
 * characters) as \uNNNN, bytes that are not UTF-8 as \xNN, and the
 * backslash itself as \x5c so that an escape cannot be forged.
 *
 * The rest of the file is the person's terminal as arc-answer drives it:
 * raw keys into a typed line, and a live block redrawn in place.
 */
#include <sys/ioctl.h>

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "arc.h"
#include "arcterm.h"

#define TYPED_MAX	16384	/* bytes typed on one line */

/* Unicode's format (Cf) characters and the invisible fillers. */
static bool
invisible(unsigned c)
{
	static const struct { unsigned lo, hi; } ranges[] = {
		{ 0x00ad, 0x00ad }, { 0x034f, 0x034f }, { 0x0600, 0x0605 },
		{ 0x061c, 0x061c }, { 0x06dd, 0x06dd }, { 0x070f, 0x070f },
		{ 0x0890, 0x0891 }, { 0x08e2, 0x08e2 }, { 0x115f, 0x1160 },
		{ 0x17b4, 0x17b5 }, { 0x180b, 0x180f }, { 0x200b, 0x200f },
		{ 0x2028, 0x202e }, { 0x2060, 0x206f }, { 0x3164, 0x3164 },
		{ 0xfe00, 0xfe0f }, { 0xfeff, 0xfeff }, { 0xffa0, 0xffa0 },
		{ 0xfff0, 0xfffb }, { 0x110bd, 0x110bd }, { 0x110cd, 0x110cd },
		{ 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 },
		{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
	};
	size_t i;

	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (c >= ranges[i].lo && c <= ranges[i].hi)
			return true;
	return false;
}

/*
 * How many of p's first n bytes are printable ASCII but the backslash,
 * shown as they are: most text is, and is then copied a run at a time,
 * tried eight bytes at a time, not decoded a character at a time.
 */
static size_t
plain_prefix(const unsigned char *p, size_t n)
{
	uint64_t	w;
	size_t		i;

	for (i = 0; n - i >= sizeof(w); i += sizeof(w)) {
		memcpy(&w, p + i, sizeof(w));
		if (word_unplain(w))
			break;
	}
	while (i < n && p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
		i++;
	return i;
}

void
term_safe(struct buf *b, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, len;
	unsigned		 c;

	while (i < n) {
		if ((len = plain_prefix(p + i, n - i)) > 0) {
			buf_put(b, p + i, len);
			if ((i += len) == n)
				break;
		}
		c = utf8_decode(p + i, n - i, &len);
		if (len == 0) {
			buf_printf(b, "\\x%02x", p[i]);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f || c == '\\')
			buf_printf(b, "\\x%02x", c);
		else if ((c >= 0x80 && c <= 0x9f) || invisible(c))
			buf_printf(b, c > 0xffff ? "\\U%08x" : "\\u%04x", c);
		else
			buf_put(b, p + i, len);
		i += len;
	}
}

/* ---- widths ---- */

/* wcwidth() needs a UTF-8 character type, whatever the locale says. */
static void
width_locale(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	if (setlocale(LC_CTYPE, "") == NULL ||
	    strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
		(void)setlocale(LC_CTYPE, "C.UTF-8");
}

/*
 * Display columns of text made of term_safe() output and our own words.
 * An ESC can only be ours (a CSI such as bold): it takes no room.
 */
size_t
term_width(const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, len, w = 0;
	unsigned		 c;
	int			 cw;

	width_locale();
	while (i < n) {
		if (p[i] == 0x1b) {
			for (i += 2; i < n && (p[i] < 0x40 || p[i] > 0x7e); i++)
				;
			i++;
			continue;
		}
		c = utf8_decode(p + i, n - i, &len);
		if (len == 0) {
			w++;
			i++;
			continue;
		}
		cw = c < 0x80 ? 1 : wcwidth((wchar_t)c);
		w += cw < 0 ? 1 : (size_t)cw;
		i += len;
	}
	return w;
}

/* Safe text (ours, or term_safe()'s) cut to cols columns, UTF8_CUT at a cut. */
void
term_cut(struct buf *out, const char *s, size_t n, size_t cols)
{
	size_t i = 0, len, w = 0, cw;

	if (term_width(s, n) <= cols) {
		buf_put(out, s, n);
		return;
	}
	while (i < n) {
		len = utf8_char(s + i, n - i);
		cw = term_width(s + i, len);
		if (w + cw + 1 > cols)	/* room for the mark, one column */
			break;
		buf_put(out, s + i, len);
		w += cw;
		i += len;
	}
	buf_puts(out, cols >= 1 ? UTF8_CUT : "");
}

void
term_fit(struct buf *out, const char *s, size_t n, size_t cols)
{
	struct buf safe = { 0 };

	term_safe(&safe, s, n);
	term_cut(out, safe.p != NULL ? safe.p : "", safe.len, cols);
	buf_free(&safe);
}

/* ---- the terminal in raw mode ---- */

/* Whatever ends the process (errx deep in a helper) restores the terminal. */
static struct tty *active;

static void
restore_at_exit(void)
{
	if (active != NULL && active->raw)
		(void)tcsetattr(active->fd, TCSADRAIN, &active->saved);
}

static void
tty_write(const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(STDOUT_FILENO, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return;	/* the terminal is gone */
		}
		p += w;
		n -= (size_t)w;
	}
}

void
tty_resized(struct tty *t)
{
	struct winsize ws;

	t->cols = 80;
	t->rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 &&
	    ws.ws_row > 0) {
		t->cols = ws.ws_col;
		t->rows = ws.ws_row;
	}
	if (t->cols < 20)
		t->cols = 20;
	if (t->rows < 4)
		t->rows = 4;
}

static bool
set_raw(struct tty *t)
{
	struct termios raw = t->saved;

	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	/* TCSADRAIN, not TCSAFLUSH: keys typed ahead are kept. */
	if (tcsetattr(t->fd, TCSADRAIN, &raw) == -1)
		return false;
	t->raw = true;
	return true;
}

/*
 * Output processing stays as it was (a newline still returns the
 * carriage); echo, line editing and signals from keys are ours.
 */
bool
tty_start(struct tty *t)
{
	static bool	 registered;

	memset(t, 0, sizeof(*t));
	t->fd = STDIN_FILENO;
	if (tcgetattr(t->fd, &t->saved) == -1 || !set_raw(t))
		return false;
	active = t;
	if (!registered && atexit(restore_at_exit) == 0)
		registered = true;
	width_locale();
	tty_resized(t);
	return true;
}

void
tty_end(struct tty *t)
{
	if (t->raw)
		(void)tcsetattr(t->fd, TCSADRAIN, &t->saved);
	t->raw = false;
	active = NULL;
	buf_free(&t->line);
}

bool
tty_pending(const struct tty *t)
{
	return t->in_at < t->in_len;
}

/* Ctrl-Z: the terminal as it was, stopped, then raw again and redrawn. */
static void
tty_suspend(struct tty *t)
{
	(void)tcsetattr(t->fd, TCSADRAIN, &t->saved);
	tty_write("\n", 1);
	(void)raise(SIGTSTP);
	(void)set_raw(t);
	t->drawn = 0;
	tty_resized(t);
}

static bool
is_key(cc_t set, unsigned char c)
{
	return set != _POSIX_VDISABLE && set == c;
}

static void
erase_back(struct buf *b, bool word)
{
	while (word && b->len > 0 && b->p[b->len - 1] == ' ')
		b->len--;
	do {
		while (b->len > 0 && ((unsigned char)b->p[b->len - 1] & 0xc0) ==
		    0x80)
			b->len--;
		if (b->len > 0)
			b->len--;
	} while (word && b->len > 0 && b->p[b->len - 1] != ' ');
	if (b->p != NULL)
		b->p[b->len] = '\0';
}

static enum tty_key
tty_key(struct tty *t, unsigned char c)
{
	const cc_t *cc = t->saved.c_cc;

	if (t->esc == 1) {	/* ESC: a sequence, or Alt and a key */
		t->esc = c == '[' || c == 'O' ? 2 : 0;
		return TTY_NONE;
	}
	if (t->esc == 2) {		/* arrows, function keys: ignored */
		if (c >= 0x40 && c <= 0x7e)
			t->esc = 0;
		return TTY_NONE;
	}
	if (c == 0x1b) {
		t->esc = 1;
		return TTY_NONE;
	}
	if (c == 0x03 || is_key(cc[VINTR], c))
		return TTY_INTERRUPT;
	if (c == 0x04 || is_key(cc[VEOF], c))
		return t->line.len == 0 ? TTY_EOF : TTY_NONE;
	if (c == '\r' || c == '\n')
		return TTY_ENTER;
	if (c == 0x7f || c == 0x08 || is_key(cc[VERASE], c)) {
		erase_back(&t->line, false);
		return TTY_EDIT;
	}
	if (c == 0x17 || is_key(cc[VWERASE], c)) {
		erase_back(&t->line, true);
		return TTY_EDIT;
	}
	if (c == 0x15 || is_key(cc[VKILL], c)) {
		t->line.len = 0;
		if (t->line.p != NULL)
			t->line.p[0] = '\0';
		return TTY_EDIT;
	}
	if (c == 0x1a || is_key(cc[VSUSP], c)) {
		tty_suspend(t);
		return TTY_EDIT;
	}
	if (c < 0x20 || t->line.len >= TYPED_MAX)
		return TTY_NONE;
	buf_putc(&t->line, (char)c);
	return TTY_EDIT;
}

/*
 * Handles the keys already read, or reads what is there (call it when
 * standard input is readable).  Stops at Enter, Ctrl-D or Ctrl-C: what
 * was typed after them waits for the next call.
 */
enum tty_key
tty_read(struct tty *t)
{
	enum tty_key	 k, seen = TTY_NONE;
	ssize_t		 n;

	if (!tty_pending(t)) {
		if ((n = read(t->fd, t->in, sizeof(t->in))) == -1)
			return errno == EINTR || errno == EAGAIN ? TTY_NONE :
			    TTY_GONE;
		if (n == 0)
			return TTY_GONE;
		t->in_at = 0;
		t->in_len = (size_t)n;
	}
	while (tty_pending(t)) {
		k = tty_key(t, (unsigned char)t->in[t->in_at++]);
		if (k == TTY_ENTER || k == TTY_EOF || k == TTY_INTERRUPT)
			return k;
		if (k == TTY_EDIT)
			seen = TTY_EDIT;
	}
	return seen;
}

/* Rows between the first row of text and the cursor at its end. */
static size_t
rows_above_end(const struct tty *t, const struct buf *text)
{
	const char	*p = text->p, *end = text->p + text->len, *nl;
	size_t		 rows = 0, w;

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		w = term_width(p, (size_t)(nl - p));
		if (nl == end)	/* the cursor's row (a full one waits) */
			return rows + (w == 0 ? 0 : (w - 1) / t->cols);
		rows += w == 0 ? 1 : (w + t->cols - 1) / t->cols;
		p = nl + 1;
	}
	return rows;
}

/* Replaces the live block with text; the cursor stays at its end. */
void
tty_live(struct tty *t, const struct buf *text)
{
	struct buf out = { 0 };

	buf_putc(&out, '\r');
	if (t->drawn > 0)
		buf_printf(&out, "\033[%zuA", t->drawn);
	buf_puts(&out, "\033[J");
	if (text->len > 0)
		buf_put(&out, text->p, text->len);
	tty_write(out.p, out.len);
	buf_free(&out);
	t->drawn = text->len > 0 ? rows_above_end(t, text) : 0;
}

/* Text that stays (ending in a newline), put where the live block was. */
void
tty_above(struct tty *t, const struct buf *text)
{
	tty_live(t, text);
	t->drawn = 0;
}

/* The last state of the live block, left on the screen, and a newline. */
void
tty_done(struct tty *t, const struct buf *text)
{
	tty_live(t, text);
	tty_write("\n", 1);
	t->drawn = 0;
}

const char *
safe(struct buf *b, const char *s)
{
	b->len = 0;
	if (*s == '\0')
		buf_puts(b, "\"\"");	/* an empty key is named, not left out */
	else
		term_safe(b, s, strlen(s));
	buf_putc(b, '\0');
	return b->p;
}
