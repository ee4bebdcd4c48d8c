/*
 * arc: the Attention Request Contract (ARC 0.2) as Unix filters.
 *
 * The story of the data, in the order it flows:
 *
 *   input line    one NDJSON line, at most ARC_LINE_MAX bytes (arcline.c)
 *     -> value    a strict JSON parse into an arena tree (arcjson.c)
 *     -> event    checked against every rule of ARC 0.2 (arcvalidate.c)
 *     -> change   what the rules make of it for its key (arcrules.c), and
 *                 a verdict
 *     -> record   the change as one journal line (arclog.c), appended,
 *                 fsync'd, under flock (arcjournal.c), and put into the
 *                 conditions in memory (arcstate.c), as a replay puts it
 *     -> output   one result line per input line (arcfilter.c)
 *
 * This header is the bottom layer, L0, which everything may use: buffers,
 * arenas, string views and hex (arcbuf.c), strict JSON (arcjson.c),
 * UTF-8 (arcutf8.c), time and durations (arctime.c), digests and ids
 * (arcdigest.c, arccrc.c), bounded input lines (arcline.c), files ours
 * alone (arcfile.c) and the memory we may use (arcmemory.c).  Every
 * other file that others call has a header of its own, which declares
 * only that file's functions; the layers are drawn in t/layers.
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

/* Exit statuses of every command (arc(7), EXIT STATUS). */
#define EXIT_REJECTED	1
#define EXIT_USAGE	2
#define EXIT_SYSTEM	3
#define EXIT_TIMEOUT	124

/*
 * ---- byte tests on eight bytes at once ----
 * For the scans that copy what needs no change a run at a time: whether
 * any byte of a word is below n (n <= 128), above n (n <= 127), or c.
 * Sean Anderson's "Bit Twiddling Hacks" (hasless, hasmore, haszero of
 * w ^ c), each exact as a yes or no, whatever the byte order.
 */
#define WORD_ONES	UINT64_C(0x0101010101010101)
#define WORD_HIGHS	UINT64_C(0x8080808080808080)

static inline bool
word_has_below(uint64_t w, unsigned n)
{
	return ((w - WORD_ONES * n) & ~w & WORD_HIGHS) != 0;
}

static inline bool
word_has_above(uint64_t w, unsigned n)
{
	return (((w + WORD_ONES * (127 - n)) | w) & WORD_HIGHS) != 0;
}

static inline bool
word_has(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (WORD_ONES * c);

	return ((x - WORD_ONES) & ~x & WORD_HIGHS) != 0;
}

/* Whether any of a word's bytes is not printable ASCII, or a backslash. */
static inline bool
word_unplain(uint64_t w)
{
	return word_has_below(w, 0x20) || word_has_above(w, 0x7e) ||
	    word_has(w, '\\');
}

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
size_t	 json_quoted_max(size_t);	/* the most a string of n bytes quotes to */
char	*json_quote_into(char *, const char *, size_t);
void	 buf_u64(struct buf *, uint64_t);	/* in decimal */
void	 buf_i64(struct buf *, int64_t);
void	 buf_json_cstr(struct buf *, const char *);	/* NULL prints null */
void	 buf_free(struct buf *);

/* ---- arena: every value of one line lives here, freed in one go ---- */
struct arena_chunk;
struct arena {
	struct arena_chunk *head;
};
void	*arena_alloc(struct arena *, size_t);
void	 arena_reserve(struct arena *, size_t);	/* faulted in at once */
void	 arena_reset(struct arena *);	/* keeps the first chunk */
void	 arena_free(struct arena *);

/* Memory about to be written whole, faulted in by one call (arcbuf.c). */
void	 mem_prefault(void *, size_t);

/* ---- string views into a line, an arena or a record (arcbuf.c) ---- */
struct sv {
	const char	*p;	/* NULL: null */
	size_t		 n;
};
struct jval;
struct sv	 sv_str(const char *);
struct sv	 sv_json(const struct jval *);	/* a string's; else null */
bool		 sv_eq(struct sv, const char *);
bool		 sv_same(struct sv, struct sv);
bool		 sv_is(struct sv, const char *);	/* not null, equal */
const char	*sv_cstr(struct arena *, struct sv);
const char	*sv_cstr_of(struct arena *, struct sv);
struct sv	 sv_buf(struct arena *, const struct buf *);

/* ---- hex and allocation (arcbuf.c) ---- */
bool		 is_hex(struct sv, size_t);	/* n lowercase hex digits */
bool		 hex_decode(struct sv, uint8_t *, size_t);
void		 hex_bytes(const char *, uint8_t *, size_t);	/* checked */
int		 hex_digit(int);	/* either case; -1: not a digit */
char		*xstrndup(const char *, size_t);	/* never NULL */

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
	bool		 dups;	/* a member named twice in it, at any depth */
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
bool		 json_cursor_checked(struct jcursor *, struct jval *);
bool		 json_cursor_skip(struct jcursor *);
const char	*json_cursor_skip_object(struct jcursor *, size_t);
bool		 json_plain(const char *, size_t);
struct jval	*json_get(const struct jval *, const char *);	/* first match */
bool		 json_is(const struct jval *, const char *);	/* string equals */
bool		 json_blank(const struct jval *);	/* only White_Space */

/* ---- UTF-8 (arcutf8.c) ---- */
/* The cut's one mark, U+2026: what ends text cut short. */
#define UTF8_CUT	"\xe2\x80\xa6"
/* Bytes of the well-formed sequence at p (Unicode table 3-7), or 0. */
size_t		 utf8_seq(const unsigned char *, const unsigned char *end);
/* Decodes one well-formed sequence (as utf8_seq found it) and advances. */
unsigned	 utf8_next(const unsigned char **);
/* The code point at p[0..n), its bytes in *len; *len 0: not well-formed. */
unsigned	 utf8_decode(const unsigned char *, size_t, size_t *len);
size_t		 utf8_put(char *, unsigned);	/* encodes; 1 to 4 bytes */
/* Bytes of the character at s: a well-formed sequence, else one byte. */
size_t		 utf8_char(const char *, size_t);
size_t		 utf8_chars(const char *, size_t);	/* characters */
/* The byte offset of character number chars (n when s has fewer). */
size_t		 utf8_offset(const char *, size_t, size_t chars);
/*
 * The bytes of s to keep so that they and UTF8_CUT make at most max
 * characters; n when s fits whole (and no mark is due).
 */
size_t		 utf8_cut(const char *, size_t, size_t max);

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
/*
 * A duration as every command and arc-mqtt take it: "90" (seconds), or
 * numbers with units from the largest down, w d h m s ("1w", "1d12h",
 * "1.5h", "90s"); milliseconds, or -1 for anything else.
 */
int64_t	 parse_duration_ms(const char *);
int64_t	 parse_duration(const char *);	/* whole seconds, rounded up */
/* The same written back exactly ("1d12h", "1m1.5s"): out, or NULL. */
#define ARC_DURATION_MAX 48
char	*format_duration(int64_t, char *, size_t);
/*
 * The one reader of a duration (seconds) or a size (bytes) from the
 * environment: otherwise when it is unset or empty, and when it is not
 * one, after a warning naming it.
 */
int64_t	 env_duration(const char *name, int64_t otherwise);
uint64_t env_bytes(const char *name, uint64_t otherwise);

/* ---- digests, nonces, identifiers (arcdigest.c) ---- */
#define ARC_HEX_DIGEST 65
void	 sha256_hex(const void *, size_t, char out[ARC_HEX_DIGEST]);
void	 mint_nonce(char out[32]);	/* 128 random bits, base64url */
void	 mint_id(const char *prefix, char *out, size_t);
void	 random_ready(void);	/* seeded now, not under a lock */
bool	 secret_equal(const char *, size_t, const char *, size_t);
uint32_t crc32c(const void *, size_t);	/* arccrc.c */
uint32_t crc32c_extend(uint32_t, const void *, size_t);

/* ---- writing a JSON value (arcjsonout.c) ---- */
#define JSON_CANONICAL	0x1	/* RFC 8785's form, a digest's input */
#define JSON_JQ		0x2	/* as jq 1.6's tojson writes it */
#define JSON_SORTED	0x4	/* with JSON_JQ: members by their bytes (-S) */
void	 json_write(struct buf *, const struct jval *, unsigned form);

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
	bool		 netstrings;	/* LEN:BYTES, records, not lines */
	uint64_t	 skip;	/* of a netstring too large: bytes left */
	bool		 skipping;	/* its bytes, then its comma */
};
enum line_status { LINE_OK, LINE_TOO_LARGE, LINE_EOF, LINE_ERROR };
void	 line_reader_init(struct line_reader *, int, const char *);
/* Lines of at most max bytes, each ended by sep (after init, before use). */
void	 line_reader_set(struct line_reader *, size_t max, char sep);
/*
 * Records as netstrings ("LEN:BYTES,", as mosquitto_sub -F '%l:%p,'
 * prints each message), whatever bytes they hold; a longer one than max
 * is LINE_TOO_LARGE, stepped over unread; a broken frame LINE_ERROR.
 */
void	 line_reader_netstrings(struct line_reader *, size_t max);
void	 line_reader_free(struct line_reader *);
enum line_status line_next(struct line_reader *, const char **, size_t *);
bool	 line_pending(struct line_reader *);	/* more input ready now */
bool	 line_blank(const char *, size_t);

/* ---- files ours alone, and watching their folder (arcfile.c) ---- */
struct stat;
char	*parent_of(const char *);
bool	 make_parents(const char *path);	/* mkdir -p 0700, synced */
bool	 sync_parent(const char *path);
bool	 folder_ours(const char *path);	/* nobody else may swap it */
bool	 file_ours(int, const char *path, struct stat *);
/* A setting beside the journal: 1 read, 0 none, -1 refused (said why). */
int	 setting_file(const char *journal, const char *name, char *text,
	    size_t size);
bool	 write_all(int, const char *, size_t);
int	 open_temporary(const char *path, const char *kind, char **tmp);
/*
 * A watch on a file's folder (inotify), so that an append and a rename
 * over it both wake a poll(2); -1 without inotify.
 */
int	 folder_watch(const char *path);
bool	 folder_watch_read(int, const char *base);	/* about base? */
bool	 folder_sleep(int, const char *base, int64_t ms, int out);
int64_t	 monotonic_ms(void);	/* for timeouts and deadlines */

/* ---- the memory we may use (arcmemory.c) ---- */
/* The machine's, or less where our control group (or one above) says. */
uint64_t memory_we_may_use(void);

#endif /* ARC_H */
