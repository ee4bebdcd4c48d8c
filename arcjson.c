/*
 * Strict JSON for one line: RFC 8259 grammar, well-formed UTF-8 only, no
 * lone surrogates (raw or escaped), no white space but space, tab, CR, LF,
 * bounded nesting, and duplicate member names flagged for the caller.
 *
 * cJSON is lenient on every one of those points and keeps strings
 * NUL-terminated (an escaped \u0000 would cut a value short), so the product
 * parses with this small parser; values point into the line when they have
 * no escapes and into the line's arena otherwise.
 */
#include <err.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"

/* ---- the parser ---- */

struct parser {
	struct arena		*arena;
	const unsigned char	*p, *end, *start;
	const char		*error;
	const unsigned char	*error_at;
	int			 depth;
	int			 keep_depth;	/* deeper: checked, not kept */
};

static bool
fail(struct parser *ps, const unsigned char *at, const char *msg)
{
	if (ps->error == NULL) {
		ps->error = msg;
		ps->error_at = at;
	}
	return false;
}

static void
skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
	    *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int
hex4(const unsigned char *p, const unsigned char *end, unsigned *out)
{
	unsigned v = 0;
	int i;

	if (end - p < 4)
		return 0;
	for (i = 0; i < 4; i++) {
		unsigned char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return 0;
	}
	*out = v;
	return 1;
}

/* GCC's portable vectors: SSE2 on x86-64, NEON on arm64, scalar elsewhere. */
typedef unsigned char v16 __attribute__((vector_size(16)));

/*
 * The first byte from q on that plain ASCII text has not (a quote, a
 * backslash, a control byte or one with the high bit), or end: sixteen
 * bytes at a time, a block holding such a byte jumping straight to it.
 */
static const unsigned char *
plain_run(const unsigned char *q, const unsigned char *end)
{
	v16		v, special;
	uint64_t	half[2];

	while (end - q >= 16) {
		memcpy(&v, q, 16);
		special = (v >= 0x80) | (v < 0x20) | (v == '"') | (v == '\\');
		memcpy(half, &special, 16);
		if ((half[0] | half[1]) != 0)
			return q + (half[0] ? (size_t)__builtin_ctzll(half[0]) /
			    8 : 8 + (size_t)__builtin_ctzll(half[1]) / 8);
		q += 16;
	}
	while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
		q++;
	return q;
}

/* ps->p is just past the opening quote. */
static bool
parse_string(struct parser *ps, const char **out, size_t *outlen, size_t *cps)
{
	const unsigned char	*s = ps->p, *q = ps->p;
	size_t			 count = 0, len;
	bool			 escapes = false;
	char			*o;

	/* First pass: check and measure, plain ASCII runs at a time. */
	for (;;) {
		const unsigned char *run = plain_run(q, ps->end);
		count += (size_t)(run - q);
		q = run;
		if (q >= ps->end)
			return fail(ps, q, "unterminated string");
		if (*q == '"')
			break;
		if (*q < 0x20)
			return fail(ps, q, "control character in string");
		if (*q == '\\') {
			unsigned cp;
			escapes = true;
			if (q + 1 >= ps->end)
				return fail(ps, q, "unterminated string");
			switch (q[1]) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				q += 2;
				break;
			case 'u':
				if (!hex4(q + 2, ps->end, &cp))
					return fail(ps, q, "bad \\u escape");
				q += 6;
				if (cp >= 0xDC00 && cp <= 0xDFFF)
					return fail(ps, q - 6, "lone surrogate");
				if (cp >= 0xD800 && cp <= 0xDBFF) {
					unsigned lo;
					if (ps->end - q < 6 || q[0] != '\\' ||
					    q[1] != 'u' || !hex4(q + 2, ps->end,
					    &lo) || lo < 0xDC00 || lo > 0xDFFF)
						return fail(ps, q - 6,
						    "lone surrogate");
					q += 6;
				}
				break;
			default:
				return fail(ps, q, "bad escape in string");
			}
			count++;
			continue;
		}
		{
			size_t n = utf8_seq(q, ps->end);
			if (n == 0)
				return fail(ps, q, "invalid UTF-8");
			q += n;
			count++;
		}
	}
	ps->p = q + 1;
	*cps = count;
	len = (size_t)(q - s);
	if (!escapes) {
		*out = (const char *)s;
		*outlen = len;
		return true;
	}
	/* Second pass: decode; the result is never longer than the source. */
	o = arena_alloc(ps->arena, len + 1);
	*out = o;
	for (q = s; *q != '"';) {
		unsigned cp, lo;
		if (*q != '\\') {
			*o++ = (char)*q++;
			continue;
		}
		switch (q[1]) {
		case 'b': *o++ = '\b'; q += 2; break;
		case 'f': *o++ = '\f'; q += 2; break;
		case 'n': *o++ = '\n'; q += 2; break;
		case 'r': *o++ = '\r'; q += 2; break;
		case 't': *o++ = '\t'; q += 2; break;
		case 'u':
			(void)hex4(q + 2, ps->end, &cp);
			q += 6;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				(void)hex4(q + 2, ps->end, &lo);
				q += 6;
				cp = 0x10000 + ((cp - 0xD800) << 10) +
				    (lo - 0xDC00);
			}
			o += utf8_put(o, cp);
			break;
		default:
			*o++ = (char)q[1];
			q += 2;
		}
	}
	*o = '\0';
	*outlen = (size_t)(o - *out);
	return true;
}

static bool
is_digit(const unsigned char *p, const unsigned char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

static bool
parse_number(struct parser *ps, struct jval *v)
{
	const unsigned char *s = ps->p, *q = ps->p;

	v->integer = true;
	if (q < ps->end && *q == '-')
		q++;
	if (!is_digit(q, ps->end))
		return fail(ps, s, "bad number");
	if (*q == '0')
		q++;
	else
		while (is_digit(q, ps->end))
			q++;
	if (q < ps->end && *q == '.') {
		v->integer = false;
		q++;
		if (!is_digit(q, ps->end))
			return fail(ps, q, "bad number");
		while (is_digit(q, ps->end))
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		v->integer = false;
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (!is_digit(q, ps->end))
			return fail(ps, q, "bad number");
		while (is_digit(q, ps->end))
			q++;
	}
	v->type = J_NUMBER;
	v->s = (const char *)s;
	v->len = (size_t)(q - s);
	ps->p = q;
	return true;
}

static bool	parse_value(struct parser *, struct jval *);

static int
member_cmp(const void *a, const void *b)
{
	const struct jmember *x = *(struct jmember *const *)a;
	const struct jmember *y = *(struct jmember *const *)b;
	size_t n = x->namelen < y->namelen ? x->namelen : y->namelen;
	int c = memcmp(x->name, y->name, n);

	if (c != 0)
		return c;
	if (x->namelen != y->namelen)
		return x->namelen < y->namelen ? -1 : 1;
	return x < y ? -1 : x > y;	/* document order among equals */
}

static unsigned
name_bit(const struct jmember *m)
{
	unsigned h = (unsigned)m->namelen * 31;

	if (m->namelen > 0)
		h += (unsigned char)m->name[0] * 7 +
		    (unsigned char)m->name[m->namelen - 1];
	return h & 127;
}

/*
 * Flags every member whose name an earlier member already has; true
 * when one has.  Small objects use a 128-bit filter so that names are
 * compared only when two may be equal; large ones are sorted.
 */
static bool
mark_duplicates(struct parser *ps, struct jmember *m, size_t n)
{
	struct jmember	**sorted;
	uint64_t	  filter[2] = { 0, 0 };
	size_t		  i, j;
	bool		  any = false;

	if (n <= 64) {
		for (i = 0; i < n; i++) {
			unsigned bit = name_bit(&m[i]);
			if (filter[bit >> 6] & (UINT64_C(1) << (bit & 63))) {
				for (j = 0; j < i; j++)
					if (m[i].namelen == m[j].namelen &&
					    memcmp(m[i].name, m[j].name,
					    m[i].namelen) == 0) {
						m[i].duplicate = any = true;
						break;
					}
			}
			filter[bit >> 6] |= UINT64_C(1) << (bit & 63);
		}
		return any;
	}
	sorted = arena_alloc(ps->arena, n * sizeof(*sorted));
	for (i = 0; i < n; i++)
		sorted[i] = &m[i];
	qsort(sorted, n, sizeof(*sorted), member_cmp);
	for (i = 1; i < n; i++)
		if (sorted[i]->namelen == sorted[i - 1]->namelen &&
		    memcmp(sorted[i]->name, sorted[i - 1]->name,
		    sorted[i]->namelen) == 0)
			sorted[i]->duplicate = any = true;
	return any;
}

/*
 * Members and items are first collected in arena blocks that double, then
 * the final array is carved out; this keeps the parse one pass.
 */
static bool
parse_object(struct parser *ps, struct jval *v)
{
	struct jmember	*m = NULL, *grown;
	size_t		 n = 0, cap = 0;

	v->type = J_OBJECT;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		return true;
	}
	for (;;) {
		size_t cps;
		bool keep = ps->depth <= ps->keep_depth;

		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != '"')
			return fail(ps, ps->p, "expected a member name");
		if (!keep) {
			/* Checked byte for byte, but no node is built. */
			struct jmember scratch;
			struct jval value;
			ps->p++;
			if (!parse_string(ps, &scratch.name, &scratch.namelen,
			    &cps))
				return false;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, ps->p, "expected ':'");
			ps->p++;
			if (!parse_value(ps, &value))
				return false;
			goto next;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			grown = arena_alloc(ps->arena, cap * sizeof(*m));
			if (n)
				memcpy(grown, m, n * sizeof(*m));
			m = grown;
		}
		ps->p++;
		if (!parse_string(ps, &m[n].name, &m[n].namelen, &cps))
			return false;
		m[n].duplicate = false;
		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != ':')
			return fail(ps, ps->p, "expected ':'");
		ps->p++;
		m[n].value = arena_alloc(ps->arena, sizeof(struct jval));
		if (!parse_value(ps, m[n].value))
			return false;
		v->dups |= m[n].value->dups;
		n++;
next:
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == '}') {
			ps->p++;
			break;
		}
		return fail(ps, ps->p, "expected ',' or '}'");
	}
	v->members = m;
	v->n = n;
	v->dups |= mark_duplicates(ps, m, n);
	return true;
}

static bool
parse_array(struct parser *ps, struct jval *v)
{
	struct jval	**items = NULL, **grown;
	size_t		  n = 0, cap = 0;

	v->type = J_ARRAY;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		return true;
	}
	for (;;) {
		if (ps->depth > ps->keep_depth) {
			struct jval value;	/* checked, not kept */
			if (!parse_value(ps, &value))
				return false;
			goto next;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			grown = arena_alloc(ps->arena, cap * sizeof(*items));
			if (n)
				memcpy(grown, items, n * sizeof(*items));
			items = grown;
		}
		items[n] = arena_alloc(ps->arena, sizeof(struct jval));
		if (!parse_value(ps, items[n]))
			return false;
		v->dups |= items[n]->dups;
		n++;
next:
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == ']') {
			ps->p++;
			break;
		}
		return fail(ps, ps->p, "expected ',' or ']'");
	}
	v->items = items;
	v->n = n;
	return true;
}

static bool
literal(struct parser *ps, const char *word, enum jtype t, struct jval *v)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return fail(ps, ps->p, "unexpected token");
	ps->p += n;
	v->type = t;
	return true;
}

static bool	parse_token(struct parser *, struct jval *);

static bool
parse_value(struct parser *ps, struct jval *v)
{
	memset(v, 0, sizeof(*v));
	skip_ws(ps);
	v->raw = (const char *)ps->p;
	if (!parse_token(ps, v))
		return false;
	v->rawlen = (size_t)((const char *)ps->p - v->raw);
	return true;
}

static bool
parse_token(struct parser *ps, struct jval *v)
{
	bool ok;

	if (ps->p >= ps->end)
		return fail(ps, ps->p, "unexpected end of line");
	switch (*ps->p) {
	case '{':
	case '[':
		if (++ps->depth > ARC_DEPTH_MAX)
			return fail(ps, ps->p, "nesting too deep");
		ok = *ps->p == '{' ? parse_object(ps, v) : parse_array(ps, v);
		ps->depth--;
		return ok;
	case '"':
		ps->p++;
		v->type = J_STRING;
		return parse_string(ps, &v->s, &v->len, &v->codepoints);
	case 't':
		return literal(ps, "true", J_TRUE, v);
	case 'f':
		return literal(ps, "false", J_FALSE, v);
	case 'n':
		return literal(ps, "null", J_NULL, v);
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps, v);
		return fail(ps, ps->p, "unexpected token");
	}
}

/* Parses exactly one JSON value filling the whole of s[0..n). */
struct jval *
json_parse(struct arena *a, const char *s, size_t n, struct jparse_error *e)
{
	return json_parse_shallow(a, s, n, e, ARC_DEPTH_MAX);
}

/*
 * The same strict parse, but containers nested deeper than keep_depth are
 * checked without building their nodes: for records whose deeper parts
 * are only ever used as raw text.
 */
struct jval *
json_parse_shallow(struct arena *a, const char *s, size_t n,
    struct jparse_error *e, int keep_depth)
{
	struct parser	 ps = { 0 };
	struct jval	*v;

	ps.keep_depth = keep_depth;
	ps.arena = a;
	ps.start = ps.p = (const unsigned char *)s;
	ps.end = ps.p + n;
	v = arena_alloc(a, sizeof(*v));
	if (parse_value(&ps, v)) {
		skip_ws(&ps);
		if (ps.p == ps.end)
			return v;
		fail(&ps, ps.p, "trailing bytes after the value");
	}
	e->offset = (size_t)(ps.error_at - ps.start);
	e->message = ps.error;
	return NULL;
}

/* ---- a pull parser: one member, one item at a time ---- */

/*
 * For a caller that reads a few members of a large object it can trust to
 * be well-formed (a journal record its checksum vouches for): what it
 * reads gets the strict parse above; what it steps over is only scanned
 * for its end, and a value whose length it knows is not even scanned.
 */
void
json_cursor_open(struct jcursor *cur, struct arena *a, const char *s, size_t n)
{
	memset(cur, 0, sizeof(*cur));
	cur->arena = a;
	cur->p = s;
	cur->end = s + n;
}

void
json_cursor_enter(struct jcursor *parent, struct jcursor *child)
{
	json_cursor_open(child, parent->arena, parent->p,
	    (size_t)(parent->end - parent->p));
	child->nested = true;
}

void
json_cursor_leave(struct jcursor *parent, const struct jcursor *child)
{
	parent->p = child->p;
}

static const char *
ws_end(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* To the next member or item: 1, or 0 past the closing bracket. */
static int
cursor_next(struct jcursor *cur, char open, char close)
{
	const char *p = ws_end(cur->p, cur->end);

	if (p >= cur->end)
		return -1;
	if (!cur->opened) {
		if (*p != open)
			return -1;
		cur->opened = true;
		p = ws_end(p + 1, cur->end);
		if (p < cur->end && *p == close)
			goto ended;
	} else {
		if (*p == close)
			goto ended;
		if (*p != ',')
			return -1;
		p = ws_end(p + 1, cur->end);
	}
	cur->p = p;
	return 1;
ended:
	cur->p = ws_end(p + 1, cur->end);
	return cur->nested || cur->p == cur->end ? 0 : -1;
}

static void
cursor_parser(const struct jcursor *cur, struct parser *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->arena = cur->arena;
	ps->start = ps->p = (const unsigned char *)cur->p;
	ps->end = (const unsigned char *)cur->end;
	ps->keep_depth = ARC_DEPTH_MAX;
	ps->depth = 1;	/* inside the object */
}

/* 1: a member, the cursor at its value; 0: the object ended. */
int
json_cursor_name(struct jcursor *cur, const char **name, size_t *namelen)
{
	const char	*p = cur->p, *q;
	int		 more;

	/*
	 * As records are written: a comma, a name without escapes, a colon.
	 * Its bytes are left for the caller's comparison to judge: a name
	 * it knows is plain ASCII, and one it does not know it skips.
	 */
	if (cur->opened && cur->end - p > 3 && p[0] == ',' && p[1] == '"') {
		const char *stop = cur->end - p > 34 ? p + 34 : cur->end;
		for (q = p + 2; q < stop && *q != '"' && *q != '\\'; q++)
			;
		if (cur->end - q >= 2 && q[0] == '"' && q[1] == ':') {
			*name = p + 2;
			*namelen = (size_t)(q - *name);
			cur->p = ws_end(q + 2, cur->end);
			return 1;
		}
	}
	if ((more = cursor_next(cur, '{', '}')) != 1)
		return more;
	if (!json_cursor_string(cur, name, namelen))
		return -1;
	cur->p = ws_end(cur->p, cur->end);
	if (cur->p >= cur->end || *cur->p != ':')
		return -1;
	cur->p = ws_end(cur->p + 1, cur->end);
	return 1;
}

/* 1: the cursor at an array's next item; 0: the array ended. */
int
json_cursor_item(struct jcursor *cur)
{
	if (cur->opened && cur->p < cur->end && *cur->p == ',') {
		cur->p = ws_end(cur->p + 1, cur->end);
		return 1;
	}
	return cursor_next(cur, '[', ']');
}

bool
json_cursor_string(struct jcursor *cur, const char **s, size_t *len)
{
	struct parser		 ps;
	size_t			 cps;
	const unsigned char	*q, *end = (const unsigned char *)cur->end;

	/* Plain ASCII, as names and most values are: read in place. */
	if (cur->p < cur->end && *cur->p == '"' &&
	    (q = plain_run((const unsigned char *)cur->p + 1, end)) < end &&
	    *q == '"') {
		*s = cur->p + 1;
		*len = (size_t)((const char *)q - *s);
		cur->p = (const char *)q + 1;
		return true;
	}
	cursor_parser(cur, &ps);
	if (ps.p >= ps.end || *ps.p != '"')
		return false;
	ps.p++;
	if (!parse_string(&ps, s, len, &cps))
		return false;
	cur->p = (const char *)ps.p;
	return true;
}

/* An integer as JSON writes it (no fraction, no exponent), in int64_t. */
bool
json_cursor_integer(struct jcursor *cur, int64_t *out)
{
	const char	*p = cur->p;
	bool		 minus = false;
	uint64_t	 n = 0;
	size_t		 digits = 0;

	if (p < cur->end && *p == '-') {
		minus = true;
		p++;
	}
	if (p < cur->end && *p == '0' && p + 1 < cur->end && p[1] >= '0' &&
	    p[1] <= '9')
		return false;	/* a leading zero */
	for (; p < cur->end && *p >= '0' && *p <= '9'; p++) {
		if (++digits > 18)
			return false;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (digits == 0 || (p < cur->end && (*p == '.' || *p == 'e' ||
	    *p == 'E')))
		return false;
	*out = minus ? -(int64_t)n : (int64_t)n;
	cur->p = p;
	return true;
}

struct jval *
json_cursor_value(struct jcursor *cur)
{
	struct parser	 ps;
	struct jval	*v;

	cursor_parser(cur, &ps);
	v = arena_alloc(cur->arena, sizeof(*v));
	if (!parse_value(&ps, v))
		return NULL;
	cur->p = (const char *)ps.p;
	return v;
}

/*
 * The value at the cursor with every check of the strict parse, into v:
 * a string decoded, anything else as its raw text, a container checked
 * byte for byte but none of its nodes built.
 */
bool
json_cursor_checked(struct jcursor *cur, struct jval *v)
{
	struct parser	 ps;

	cursor_parser(cur, &ps);
	ps.keep_depth = ps.depth;
	if (!parse_value(&ps, v))
		return false;
	cur->p = (const char *)ps.p;
	return true;
}

/* A string's body that is plain ASCII, with nothing to escape. */
bool
json_plain(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	return plain_run(p, p + n) == p + n;
}

/* Past the closing quote of the string whose body starts at p. */
static const char *
string_end(const char *p, const char *end)
{
	const char *q, *b;

	for (;;) {
		if ((q = memchr(p, '"', (size_t)(end - p))) == NULL)
			return NULL;
		for (b = q; b > p && b[-1] == '\\'; b--)
			;
		if ((q - b) % 2 == 0)
			return q + 1;
		p = q + 1;
	}
}

/* Any value, scanned only for its end: strings, brackets, delimiters. */
bool
json_cursor_skip(struct jcursor *cur)
{
	const char	*p = cur->p, *end = cur->end;
	size_t		 depth = 0;

	do {
		if (p >= end)
			return false;
		switch (*p) {
		case '"':
			if ((p = string_end(p + 1, end)) == NULL)
				return false;
			break;
		case '{':
		case '[':
			depth++;
			p++;
			break;
		case '}':
		case ']':
			if (depth-- == 0)
				return false;
			p++;
			break;
		default:
			if (depth > 0) {
				p++;
				break;
			}
			/* A number or a literal, to the next delimiter. */
			while (p < end && *p != ',' && *p != '}' &&
			    *p != ']' && *p != ' ' && *p != '\t' &&
			    *p != '\n' && *p != '\r')
				p++;
			if (p == cur->p)
				return false;
		}
	} while (depth > 0);
	cur->p = p;
	return true;
}

/* An object value of len bytes, not read: its first and last byte only. */
const char *
json_cursor_skip_object(struct jcursor *cur, size_t len)
{
	const char *at = cur->p;

	if (len < 2 || (size_t)(cur->end - at) < len || at[0] != '{' ||
	    at[len - 1] != '}')
		return NULL;
	cur->p += len;
	return at;
}

struct jval *
json_get(const struct jval *o, const char *name)
{
	size_t i, n = strlen(name);

	if (o == NULL || o->type != J_OBJECT)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (o->members[i].namelen == n &&
		    memcmp(o->members[i].name, name, n) == 0)
			return o->members[i].value;
	return NULL;
}

bool
json_is(const struct jval *v, const char *s)
{
	size_t n = strlen(s);

	return v != NULL && v->type == J_STRING && v->len == n &&
	    memcmp(v->s, s, n) == 0;
}

/* Unicode White_Space, which C's isspace() does not know beyond ASCII. */
static bool
white_space(unsigned cp)
{
	return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 ||
	    cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
	    cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
	    cp == 0x3000;
}

bool
json_blank(const struct jval *v)
{
	const unsigned char	*p = (const unsigned char *)v->s;
	const unsigned char	*end = p + v->len;

	while (p < end)
		if (!white_space(utf8_next(&p)))
			return false;
	return true;
}
