/*
 * Writing a JSON value, the one writer, in the form its reader needs:
 *
 *   JSON_CANONICAL  RFC 8785's (members sorted by their UTF-16 code
 *                   units, -0 as 0, strings as buf_json_str writes them),
 *                   from which a content digest is taken;
 *   JSON_JQ         as jq 1.6's tojson writes it (its shortest numbers,
 *                   DEL escaped), so that a hook's key or hash is the one
 *                   the shell adapters made; with JSON_SORTED, members
 *                   sorted by their bytes, as jq -S sorts them.
 *
 * A value not there (NULL) is written null, as jq writes a missing member.
 */
#include <err.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"

/* The first UTF-16 code unit of a code point: RFC 8785 sorts on those. */
static unsigned
utf16_unit(unsigned cp, unsigned *second)
{
	if (cp < 0x10000) {
		*second = 0;
		return cp;
	}
	cp -= 0x10000;
	*second = 0xDC00 + (cp & 0x3FF);
	return 0xD800 + (cp >> 10);
}

static int
utf16_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	const unsigned char *p = (const unsigned char *)a, *pe = p + an;
	const unsigned char *q = (const unsigned char *)b, *qe = q + bn;
	unsigned x2 = 0, y2 = 0, x, y;

	/* ASCII sorts by its bytes as by its code units: that much at once */
	for (; p < pe && q < qe && *p < 0x80 && *q < 0x80; p++, q++)
		if (*p != *q)
			return *p < *q ? -1 : 1;
	while ((p < pe || x2) && (q < qe || y2)) {
		unsigned xs, ys;
		if (x2) {
			x = x2;
			x2 = 0;
		} else {
			x = utf16_unit(utf8_next(&p), &xs);
			x2 = xs;
		}
		if (y2) {
			y = y2;
			y2 = 0;
		} else {
			y = utf16_unit(utf8_next(&q), &ys);
			y2 = ys;
		}
		if (x != y)
			return x < y ? -1 : 1;
	}
	if ((p < pe || x2) == (q < qe || y2))
		return 0;
	return p < pe || x2 ? 1 : -1;
}

static int
canonical_member_cmp(const void *a, const void *b)
{
	const struct jmember *x = *(const struct jmember *const *)a;
	const struct jmember *y = *(const struct jmember *const *)b;

	return utf16_cmp(x->name, x->namelen, y->name, y->namelen);
}

static int
byte_member_cmp(const void *a, const void *b)
{
	const struct jmember	*x = *(const struct jmember *const *)a;
	const struct jmember	*y = *(const struct jmember *const *)b;
	size_t			 n = x->namelen < y->namelen ? x->namelen :
				    y->namelen;
	int			 c = memcmp(x->name, y->name, n);

	if (c != 0)
		return c;
	return x->namelen < y->namelen ? -1 : x->namelen > y->namelen;
}

/*
 * An object's members in order: the few an event's objects have by
 * insertion, in place (qsort's merge sort allocates and calls through a
 * pointer at every step), more by qsort.  Names in an object are unique.
 */
#define FEW_MEMBERS	16

static void
sort_members(const struct jmember **m, size_t n,
    int (*cmp)(const void *, const void *))
{
	const struct jmember	*t;
	size_t			 i, j;

	if (n > FEW_MEMBERS) {
		qsort(m, n, sizeof(*m), cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		t = m[i];
		for (j = i; j > 0 && cmp(&m[j - 1], &t) > 0; j--)
			m[j] = m[j - 1];
		m[j] = t;
	}
}

/*
 * A number as jq 1.6 prints it: the shortest digits that read back as the
 * same double, in plain notation unless the exponent is small or large
 * (jv_dtoa's g_fmt: 1e-05, 0.0001, 1e+17, 12345678901234567000).
 */
static void
jq_number(struct buf *b, const struct jval *v)
{
	char		 e[40], digits[24], *p, *x;
	double		 d;
	int		 prec, decpt, nd, i;

	d = strtod(v->s, NULL);
	if (isinf(d))
		d = d < 0 ? -DBL_MAX : DBL_MAX;
	for (prec = 1; prec <= 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec - 1, d);
		if (strtod(e, NULL) == d)
			break;
	}
	p = e;
	if (*p == '-') {
		buf_putc(b, '-');
		p++;
	}
	for (nd = 0; *p != 'e' && *p != '\0' && nd < (int)sizeof(digits) - 1;
	    p++)
		if (*p != '.')
			digits[nd++] = *p;
	digits[nd] = '\0';
	x = *p == 'e' ? p + 1 : p;
	decpt = (int)strtol(x, NULL, 10) + 1;
	while (nd > 1 && digits[nd - 1] == '0')
		digits[--nd] = '\0';
	if (d == 0) {
		buf_putc(b, '0');
		return;
	}
	if (decpt <= -4 || decpt > nd + 15) {
		buf_putc(b, digits[0]);
		if (nd > 1) {
			buf_putc(b, '.');
			buf_puts(b, digits + 1);
		}
		buf_printf(b, "e%c%02d", decpt - 1 < 0 ? '-' : '+',
		    abs(decpt - 1));
	} else if (decpt <= 0) {
		buf_puts(b, "0.");
		for (i = decpt; i < 0; i++)
			buf_putc(b, '0');
		buf_puts(b, digits);
	} else if (decpt >= nd) {
		buf_puts(b, digits);
		for (i = nd; i < decpt; i++)
			buf_putc(b, '0');
	} else {
		buf_put(b, digits, (size_t)decpt);
		buf_putc(b, '.');
		buf_puts(b, digits + decpt);
	}
}

/* A string as jq writes it: DEL escaped too, other bytes as they are. */
static void
jq_string(struct buf *b, const char *s, size_t n)
{
	size_t i, from = 0;

	buf_putc(b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != 0x7f && c != '"' && c != '\\')
			continue;
		buf_put(b, s + from, i - from);
		from = i + 1;
		switch (c) {
		case '"': buf_puts(b, "\\\""); break;
		case '\\': buf_puts(b, "\\\\"); break;
		case '\b': buf_puts(b, "\\b"); break;
		case '\f': buf_puts(b, "\\f"); break;
		case '\n': buf_puts(b, "\\n"); break;
		case '\r': buf_puts(b, "\\r"); break;
		case '\t': buf_puts(b, "\\t"); break;
		default: buf_printf(b, "\\u%04x", c); break;
		}
	}
	buf_put(b, s + from, n - from);
	buf_putc(b, '"');
}

void
json_write(struct buf *b, const struct jval *v, unsigned form)
{
	const struct jmember	 *few[FEW_MEMBERS], **m;
	size_t			  i;

	if (v == NULL) {
		buf_puts(b, "null");
		return;
	}
	switch (v->type) {
	case J_NULL: buf_puts(b, "null"); return;
	case J_FALSE: buf_puts(b, "false"); return;
	case J_TRUE: buf_puts(b, "true"); return;
	case J_NUMBER:
		if (form & JSON_JQ)
			jq_number(b, v);
		else if (v->len == 2 && memcmp(v->s, "-0", 2) == 0)
			buf_putc(b, '0');
		else	/* ARC's own numbers are integers: canonical as they are */
			buf_put(b, v->s, v->len);
		return;
	case J_STRING:
		if (form & JSON_JQ)
			jq_string(b, v->s, v->len);
		else
			buf_json_str(b, v->s, v->len);
		return;
	case J_ARRAY:
		buf_putc(b, '[');
		for (i = 0; i < v->n; i++) {
			if (i)
				buf_putc(b, ',');
			json_write(b, v->items[i], form);
		}
		buf_putc(b, ']');
		return;
	case J_OBJECT:
		m = v->n <= FEW_MEMBERS ? few : calloc(v->n, sizeof(*m));
		if (m == NULL)
			err(EXIT_SYSTEM, "calloc");
		for (i = 0; i < v->n; i++)
			m[i] = &v->members[i];
		if (form & JSON_CANONICAL)
			sort_members(m, v->n, canonical_member_cmp);
		else if (form & JSON_SORTED)
			sort_members(m, v->n, byte_member_cmp);
		buf_putc(b, '{');
		for (i = 0; i < v->n; i++) {
			if (i)
				buf_putc(b, ',');
			if (form & JSON_JQ)
				jq_string(b, m[i]->name, m[i]->namelen);
			else
				buf_json_str(b, m[i]->name, m[i]->namelen);
			buf_putc(b, ':');
			json_write(b, m[i]->value, form);
		}
		buf_putc(b, '}');
		if (m != few)
			free(m);
		return;
	}
}
