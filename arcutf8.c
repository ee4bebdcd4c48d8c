/*
 * UTF-8, the one way arc reads it: a well-formed sequence is the one Table
 * 3-7 of the Unicode Standard allows (no overlong form, no surrogate,
 * nothing past U+10FFFF), and every other byte is a character of its own.
 * Every count and every cut at a character goes through here, and every
 * cut that ends text ends it with the one mark, U+2026 (UTF8_CUT).
 */
#include <stddef.h>

#include "arc.h"

size_t
utf8_seq(const unsigned char *p, const unsigned char *end)
{
	unsigned char	c = p[0], lo = 0x80, hi = 0xBF;
	size_t		avail = (size_t)(end - p), len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (avail < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

unsigned
utf8_next(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	unsigned cp;

	if (p[0] < 0x80) {
		cp = p[0];
		*pp += 1;
	} else if (p[0] < 0xE0) {
		cp = (unsigned)(p[0] & 0x1F) << 6 | (p[1] & 0x3F);
		*pp += 2;
	} else if (p[0] < 0xF0) {
		cp = (unsigned)(p[0] & 0x0F) << 12 |
		    (unsigned)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
		*pp += 3;
	} else {
		cp = (unsigned)(p[0] & 0x07) << 18 |
		    (unsigned)(p[1] & 0x3F) << 12 |
		    (unsigned)(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
		*pp += 4;
	}
	return cp;
}

unsigned
utf8_decode(const unsigned char *p, size_t n, size_t *len)
{
	const unsigned char *q = p;

	if (n == 0 || (*len = utf8_seq(p, p + n)) == 0) {
		*len = 0;
		return 0;
	}
	return utf8_next(&q);
}

size_t
utf8_put(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t
utf8_char(const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 k;

	if (n == 0)
		return 0;
	return (k = utf8_seq(p, p + n)) > 0 ? k : 1;
}

size_t
utf8_chars(const char *s, size_t n)
{
	size_t i = 0, k = 0;

	while (i < n) {
		/* ASCII, the common case, without a call */
		if ((unsigned char)s[i] < 0x80)
			i++;
		else
			i += utf8_char(s + i, n - i);
		k++;
	}
	return k;
}

size_t
utf8_offset(const char *s, size_t n, size_t chars)
{
	size_t i = 0;

	while (i < n && chars-- > 0)
		i += utf8_char(s + i, n - i);
	return i;
}

size_t
utf8_cut(const char *s, size_t n, size_t max)
{
	if (max == 0)
		return 0;
	if (utf8_chars(s, n) <= max)
		return n;
	return utf8_offset(s, n, max - 1);	/* room for the mark */
}
