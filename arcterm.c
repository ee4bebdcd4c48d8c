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
 */
#include "arc.h"

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

/* The code point at s[0..n), its length in *len; 0 with *len 0: not UTF-8. */
static unsigned
decode(const unsigned char *s, size_t n, size_t *len)
{
	unsigned	 c, min;
	size_t		 k, i;

	*len = 0;
	if (s[0] < 0x80) {
		*len = 1;
		return s[0];
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, c = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, c = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, c = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n < k)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*len = k;
	return c;
}

void
term_safe(struct buf *b, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, len;
	unsigned		 c;

	while (i < n) {
		c = decode(p + i, n - i, &len);
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
