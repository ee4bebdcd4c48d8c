/*
 * arc: the Attention Request Contract (ARC 0.2) as Unix filters.
 *
 * The story of the data, in the order it flows:
 *
 *   input line    one NDJSON line, at most ARC_LINE_MAX bytes (arcline.c)
 *     -> value    a strict JSON parse into an arena tree (arcjson.c)
 *     -> event    checked against every rule of ARC 0.2 (arcvalidate.c)
 *     -> change   applied to the condition of its key (arcstate.c)
 *     -> record   notification and interaction records (arcrecord.c),
 *                 appended to the journal, fsync'd, under flock (arcjournal.c)
 *     -> output   one result line per input line (arcfilter.c)
 *
 * Digests, nonces and identifiers are minted in arcdigest.c; instants are
 * parsed and compared in arctime.c.
 */
#ifndef ARC_H
#define ARC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARC_VERSION_STRING "0.2.0"
#define ARC_LINE_MAX	65536	/* bytes of one event, its newline not counted */
#define ARC_DEPTH_MAX	64	/* JSON nesting accepted in one line */
#define ARC_PROBLEMS_MAX 64	/* problems reported for one line */

/* Exit statuses of every command (CONTRACT.md). */
#define EXIT_REJECTED	1
#define EXIT_USAGE	2
#define EXIT_SYSTEM	3
#define EXIT_TIMEOUT	124

/* ---- growable byte buffer, the one way output is built ---- */
struct buf {
	char	*p;
	size_t	 len, cap;
};
void	 buf_reserve(struct buf *, size_t);
void	 buf_put(struct buf *, const void *, size_t);
void	 buf_puts(struct buf *, const char *);
void	 buf_putc_slow(struct buf *, char);
static inline void
buf_putc(struct buf *b, char c)
{
	if (b->len + 1 < b->cap) {
		b->p[b->len++] = c;
		b->p[b->len] = '\0';
	} else {
		buf_putc_slow(b, c);
	}
}
void	 buf_printf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 buf_json_str(struct buf *, const char *, size_t);	/* RFC 8785 escaping */
void	 buf_json_cstr(struct buf *, const char *);	/* NULL prints null */
void	 buf_free(struct buf *);

/* ---- arena: every value of one line lives here, freed in one go ---- */
struct arena_chunk;
struct arena {
	struct arena_chunk *head;
};
void	*arena_alloc(struct arena *, size_t);
void	 arena_reset(struct arena *);	/* keeps the first chunk */
void	 arena_free(struct arena *);

/* ---- JSON values (arcjson.c) ---- */
enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct jval;
struct jmember {
	const char	*name;	/* decoded UTF-8, may hold NUL bytes */
	size_t		 namelen;
	struct jval	*value;
	bool		 duplicate;	/* an earlier member has this name */
};

struct jval {
	enum jtype	 type;
	bool		 integer;	/* number literal: no fraction, no exponent */
	const char	*raw;	/* the value's text in the line */
	size_t		 rawlen;
	const char	*s;	/* string: decoded bytes; number: the literal */
	size_t		 len;
	size_t		 codepoints;	/* string only */
	size_t		 n;	/* members or items */
	struct jmember	*members;
	struct jval	**items;
};

struct jparse_error {
	size_t		 offset;	/* byte offset in the line */
	const char	*message;
};

struct jval	*json_parse(struct arena *, const char *, size_t,
		    struct jparse_error *);
struct jval	*json_parse_shallow(struct arena *, const char *, size_t,
		    struct jparse_error *, int keep_depth);
/* A pull parser, for reading a few members of a trusted object. */
struct jcursor {
	struct arena	*arena;
	const char	*p, *end;
	bool		 opened;
	bool		 nested;	/* ends at its bracket, not the text's end */
};
void		 json_cursor_open(struct jcursor *, struct arena *,
		    const char *, size_t);
void		 json_cursor_enter(struct jcursor *, struct jcursor *child);
void		 json_cursor_leave(struct jcursor *,
		    const struct jcursor *child);
int		 json_cursor_name(struct jcursor *, const char **, size_t *);
int		 json_cursor_item(struct jcursor *);
bool		 json_cursor_string(struct jcursor *, const char **, size_t *);
bool		 json_cursor_integer(struct jcursor *, int64_t *);
struct jval	*json_cursor_value(struct jcursor *);
bool		 json_cursor_skip(struct jcursor *);
const char	*json_cursor_skip_object(struct jcursor *, size_t);
struct jval	*json_get(const struct jval *, const char *);	/* first match */
bool		 json_is(const struct jval *, const char *);	/* string equals */
bool		 json_blank(const struct jval *);	/* only White_Space */
unsigned	 utf8_next(const unsigned char **);	/* decode, advance */

/* ---- problems and JSON Pointers ---- */
enum arc_code {
	ARC_OK = 0,
	ARC_INVALID,
	ARC_UNSUPPORTED_VERSION,
	ARC_TOO_LARGE,
	ARC_NOT_FOUND,
	ARC_CONFLICT,
	ARC_NOT_OPEN,
	ARC_DIGEST_MISMATCH,
	ARC_NONCE_MISMATCH,
	ARC_INVALID_ANSWER,
};
const char	*arc_code_name(enum arc_code);
int		 arc_code_status(enum arc_code);	/* HTTP-like status */

struct path_seg {
	const char	*name;	/* NULL: an array index */
	size_t		 len;
	size_t		 index;
};
struct path {
	struct path_seg	 seg[ARC_DEPTH_MAX + 2];
	int		 depth;
};
void	path_push_name(struct path *, const char *, size_t);
void	path_push_index(struct path *, size_t);
void	path_pop(struct path *);
void	path_format(const struct path *, struct buf *);	/* RFC 6901 */

struct problem {
	enum arc_code	 code;
	char		*path;	/* JSON Pointer, "" for the whole line */
	char		 message[160];	/* never quotes a value of the event */
};
struct problems {
	struct problem	 list[ARC_PROBLEMS_MAX];
	size_t		 n;
	size_t		 dropped;	/* found past ARC_PROBLEMS_MAX */
};
void	problems_add(struct problems *, enum arc_code, const struct path *,
	    const char *, ...) __attribute__((format(printf, 4, 5)));
void	problems_add_at(struct problems *, enum arc_code, const char *,
	    const char *, ...) __attribute__((format(printf, 4, 5)));
void	problems_clear(struct problems *);

/* ---- validation (arcvalidate.c) ---- */
enum event_type {
	EV_UNKNOWN = 0,
	EV_CREATED = 1 << 0,
	EV_UPDATED = 1 << 1,
	EV_SUBMITTED = 1 << 2,
	EV_RESOLVED = 1 << 3,
};
/*
 * Parses and checks one line: true when it is a valid ARC 0.2 event, else
 * false with every problem in *pr.  *root is the line's object whenever it
 * is one, valid or not (NULL otherwise).
 */
bool		 arc_validate_line(struct arena *, const char *, size_t,
		    struct problems *, struct jval **root);
enum event_type	 arc_event_type(const struct jval *);

/* ---- time (arctime.c) ---- */
struct arc_instant {
	int64_t		 seconds;	/* since 1970-01-01T00:00:00Z */
	const char	*fraction;	/* digits after the point, or "" */
	size_t		 fraction_len;
};
bool	 rfc3339_parse(const char *, size_t, struct arc_instant *);
int	 instant_cmp(const struct arc_instant *, const struct arc_instant *);
int	 rfc3339_cmp(const char *, const char *);	/* both valid */
/* The current time: ARC_NOW when it is set, else the system clock. */
bool	 arc_now_init(void);
const char *arc_now(void);
const char *arc_now_advancing(void);	/* ARC_NOW plus time since start */
bool	 rfc3339_after(const char *, int64_t, char *, size_t);
int64_t	 rfc3339_ms_between(const char *, const char *);

/* ---- digests, nonces, identifiers (arcdigest.c) ---- */
#define ARC_HEX_DIGEST 65
void	 sha256_hex(const void *, size_t, char out[ARC_HEX_DIGEST]);
void	 mint_nonce(char out[32]);	/* 128 random bits, base64url */
void	 mint_id(const char *prefix, char *out, size_t);
bool	 secret_equal(const char *, size_t, const char *, size_t);
uint32_t crc32c(const void *, size_t);	/* arccrc.c */
uint32_t crc32c_extend(uint32_t, const void *, size_t);
void	 canonical_value(struct buf *, const struct jval *);	/* RFC 8785 */

/* ---- input lines (arcline.c) ---- */
struct line_reader {
	int		 fd;
	const char	*name;	/* for diagnostics: a path or "-" */
	char		*buf;
	size_t		 start, end, cap;
	uint64_t	 lineno;
	bool		 eof;
	int		 read_errno;
	size_t		 max;	/* a longer line is LINE_TOO_LARGE */
	char		 sep;	/* what ends a line: '\n', or '\0' (-0) */
};
enum line_status { LINE_OK, LINE_TOO_LARGE, LINE_EOF, LINE_ERROR };
void	 line_reader_init(struct line_reader *, int, const char *);
/* Lines of at most max bytes, each ended by sep (after init, before use). */
void	 line_reader_set(struct line_reader *, size_t max, char sep);
void	 line_reader_free(struct line_reader *);
enum line_status line_next(struct line_reader *, const char **, size_t *);
bool	 line_pending(struct line_reader *);	/* more input ready now */
bool	 line_blank(const char *, size_t);

/* ---- diagnostics ---- */
void	 diag_problem(const char *name, uint64_t line, const struct problem *);
void	 diag_safe(struct buf *, const char *, size_t);	/* term_safe */
/* Producer text for a terminal: controls, bidi and invisibles escaped. */
void	 term_safe(struct buf *, const char *, size_t);

#endif /* ARC_H */
