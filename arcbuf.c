/*
 * Memory the rest is built on: growable buffers (the one way output is
 * built), arenas (every value of one line, freed in one go), string views
 * into them, hex, and allocation that never returns NULL.
 */
#include <sys/mman.h>

#include <err.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"

/* ---- buffers ---- */

void
buf_reserve(struct buf *b, size_t more)
{
	size_t	 want, cap;
	char	*p;

	if (more > SIZE_MAX - b->len - 1)
		errx(EXIT_SYSTEM, "buffer size overflow");
	want = b->len + more + 1;
	if (want <= b->cap)
		return;
	cap = b->cap ? b->cap : 256;
	while (cap < want)
		cap = cap > SIZE_MAX / 2 ? want : cap * 2;
	if ((p = realloc(b->p, cap)) == NULL)
		err(EXIT_SYSTEM, "realloc");
	b->p = p;
	b->cap = cap;
}

void
buf_put(struct buf *b, const void *s, size_t n)
{
	/* room for n and the NUL, or grow */
	if (b->len >= b->cap || n >= b->cap - b->len)
		buf_reserve(b, n);
	if (n > 0)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void
buf_putc_slow(struct buf *b, char c)
{
	buf_put(b, &c, 1);
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	size_t	 room = b->cap > b->len ? b->cap - b->len : 0;
	int	 n;

	/* Formatted once where it fits, which is nearly always. */
	va_start(ap, fmt);
	n = vsnprintf(room > 0 ? b->p + b->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		errx(EXIT_SYSTEM, "vsnprintf");
	if ((size_t)n >= room) {
		buf_reserve(b, (size_t)n);
		va_start(ap, fmt);
		(void)vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* 1: a byte that is escaped (a control character, '"', '\\') */
static const char json_escaped[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1
};

static bool
word_escaped(uint64_t w)
{
	return word_has_below(w, 0x20) || word_has(w, '"') ||
	    word_has(w, '\\');
}

/*
 * How many of the n bytes at s need no escape: eight at a time, the last
 * few by a word that overlaps the ones already seen, then to the byte.
 */
static size_t
json_plain_prefix(const char *s, size_t n)
{
	size_t		 i = 0;
	uint64_t	 w;

	for (; n - i >= sizeof(w); i += sizeof(w)) {
		memcpy(&w, s + i, sizeof(w));
		if (word_escaped(w))
			break;
	}
	if (i < n && n - i < sizeof(w) && n >= sizeof(w)) {
		memcpy(&w, s + n - sizeof(w), sizeof(w));
		if (!word_escaped(w))
			return n;
	}
	while (i < n && !json_escaped[(unsigned char)s[i]])
		i++;
	return i;
}

/* Six bytes a byte at most (\u00xx) and the quotes; too long: an exit. */
size_t
json_quoted_max(size_t n)
{
	if (n > (SIZE_MAX - 3) / 6)
		errx(EXIT_SYSTEM, "string too long to quote");
	return 6 * n + 2;
}

/*
 * JSON.stringify's escaping, which RFC 8785 adopts: the short forms, \u00xx
 * for other control characters, every other character as it is.  Written
 * at o, which has room for json_quoted_max(n) bytes; returns the end.
 */
char *
json_quote_into(char *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t		 i = 0, run;

	*o++ = '"';
	while (i < n) {
		run = i + json_plain_prefix(s + i, n - i);
		memcpy(o, s + i, run - i);
		o += run - i;
		if ((i = run) == n)
			break;
		*o++ = '\\';
		switch (s[i]) {
		case '"':  *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '\b': *o++ = 'b'; break;
		case '\f': *o++ = 'f'; break;
		case '\n': *o++ = 'n'; break;
		case '\r': *o++ = 'r'; break;
		case '\t': *o++ = 't'; break;
		default:
			*o++ = 'u';
			*o++ = '0';
			*o++ = '0';
			*o++ = hex[(unsigned char)s[i] >> 4];
			*o++ = hex[(unsigned char)s[i] & 15];
		}
		i++;
	}
	*o++ = '"';
	return o;
}

/* The worst case is reserved once, so the quoting only copies. */
void
buf_json_str(struct buf *b, const char *s, size_t n)
{
	size_t	 room = json_quoted_max(n);

	if (b->len >= b->cap || room >= b->cap - b->len)
		buf_reserve(b, room);
	b->len = (size_t)(json_quote_into(b->p + b->len, s, n) - b->p);
	b->p[b->len] = '\0';
}

/*
 * A number in decimal: what buf_printf's %llu and %lld write, without
 * vsnprintf's cost (some 700 instructions a call; a journal record and
 * a result line take several numbers each).
 */
void
buf_u64(struct buf *b, uint64_t v)
{
	char	 d[20];
	size_t	 n = sizeof(d);

	do {
		d[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	buf_put(b, d + n, sizeof(d) - n);
}

void
buf_i64(struct buf *b, int64_t v)
{
	if (v < 0) {
		buf_putc(b, '-');
		buf_u64(b, (uint64_t)0 - (uint64_t)v);
	} else
		buf_u64(b, (uint64_t)v);
}

void
buf_json_cstr(struct buf *b, const char *s)
{
	if (s == NULL)
		buf_puts(b, "null");
	else
		buf_json_str(b, s, strlen(s));
}

void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* ---- arena ---- */

struct arena_chunk {
	struct arena_chunk	*next;
	size_t			 used, size;
	max_align_t		 data[];
};

#define ARENA_CHUNK (64 * 1024)

void *
arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk	*c = a->head;
	size_t			 size;
	void			*p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (c == NULL || c->size - c->used < n) {
		size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		if ((c = malloc(sizeof(*c) + size)) == NULL)
			err(EXIT_SYSTEM, "malloc");
		c->used = 0;
		c->size = size;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

/*
 * Room for n bytes more in the arena's current chunk, faulted in at once:
 * for what is about to fill it (a checkpoint's conditions).
 */
void
arena_reserve(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;

	if (c != NULL && c->size - c->used >= n)
		return;
	if (n > SIZE_MAX - sizeof(*c) || (c = malloc(sizeof(*c) + n)) == NULL)
		err(EXIT_SYSTEM, "malloc");
	c->used = 0;
	c->size = n;
	c->next = a->head;
	a->head = c;
	mem_prefault(c->data, n);
}

void
arena_reset(struct arena *a)
{
	struct arena_chunk *c, *next;

	if (a->head == NULL)
		return;
	for (c = a->head->next; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->head->next = NULL;
	a->head->used = 0;
}

void
arena_free(struct arena *a)
{
	arena_reset(a);
	free(a->head);
	a->head = NULL;
}


/*
 * Memory about to be written whole, faulted in by one call rather than a
 * page at a time: each fault is a trap into the kernel, dear in a virtual
 * machine (a checkpoint of 10,000 conditions took some 1,300 of them).
 * Only speed rides on it: a kernel without MADV_POPULATE_WRITE (before
 * 5.14) says EINVAL, and the pages are faulted as they are written.
 */
void
mem_prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	long		 ps = sysconf(_SC_PAGESIZE);
	uintptr_t	 page, from, to;

	if (ps <= 0 || n == 0 || (uintptr_t)p > UINTPTR_MAX - n)
		return;
	page = (uintptr_t)ps;
	from = ((uintptr_t)p + page - 1) & ~(page - 1);
	to = ((uintptr_t)p + n) & ~(page - 1);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

/* ---- string views ---- */

struct sv
sv_str(const char *s)
{
	struct sv v = { s, s ? strlen(s) : 0 };
	return v;
}

struct sv
sv_json(const struct jval *v)
{
	struct sv out = { NULL, 0 };

	if (v != NULL && v->type == J_STRING) {
		out.p = v->s;
		out.n = v->len;
	}
	return out;
}

bool
sv_eq(struct sv a, const char *b)
{
	return a.p != NULL && a.n == strlen(b) && memcmp(a.p, b, a.n) == 0;
}

bool
sv_same(struct sv a, struct sv b)
{
	if (a.p == NULL || b.p == NULL)
		return a.p == b.p;
	return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* A NUL-terminated copy in the arena, for what C strings must carry. */
const char *
sv_cstr(struct arena *a, struct sv v)
{
	char *s = arena_alloc(a, v.n + 1);

	memcpy(s, v.p, v.n);
	s[v.n] = '\0';
	return s;
}

const char *
sv_cstr_of(struct arena *a, struct sv v)
{
	return v.p == NULL ? "" : sv_cstr(a, v);
}

struct sv
sv_buf(struct arena *a, const struct buf *b)
{
	struct sv v;
	char *s = arena_alloc(a, b->len + 1);

	memcpy(s, b->p, b->len);
	s[b->len] = '\0';
	v.p = s;
	v.n = b->len;
	return v;
}

/* ---- hex ---- */

/* One more than each lowercase hex digit's value; 0 for other bytes. */
static const uint8_t hex_value[256] = {
	['0'] = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	['a'] = 11, 12, 13, 14, 15, 16,
};

int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Lowercase hex, already checked by is_hex. */
void
hex_bytes(const char *hex, uint8_t *out, size_t n)
{
	(void)hex_decode((struct sv){ hex, 2 * n }, out, n);
}

/* n bytes from exactly 2n lowercase hex digits, or false. */
bool
hex_decode(struct sv s, uint8_t *out, size_t n)
{
	const unsigned char	*h = (const unsigned char *)s.p;
	unsigned		 bad = 0, hi, lo;
	size_t			 i;

	if (s.p == NULL || s.n != 2 * n)
		return false;
	for (i = 0; i < n; i++) {
		hi = hex_value[h[2 * i]];
		lo = hex_value[h[2 * i + 1]];
		bad |= (hi == 0) | (lo == 0);
		out[i] = (uint8_t)((hi - 1) << 4 | (lo - 1));
	}
	return bad == 0;
}

bool
is_hex(struct sv s, size_t n)
{
	size_t i;

	if (s.p == NULL || s.n != n)
		return false;
	for (i = 0; i < n; i++)
		if (hex_value[(unsigned char)s.p[i]] == 0)
			return false;
	return true;
}

/* ---- allocation ---- */

char *
xstrndup(const char *s, size_t n)
{
	char *p;

	if ((p = malloc(n + 1)) == NULL)
		err(EXIT_SYSTEM, "malloc");
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

bool
sv_is(struct sv v, const char *s)
{
	size_t n = strlen(s);

	return v.p != NULL && v.n == n && memcmp(v.p, s, n) == 0;
}
