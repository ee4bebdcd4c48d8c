/*
 * t/unit: the pure functions of the lower layers (L0-L3), each against a
 * statement of it that is not our own output: the CRC-32C check values
 * of RFC 3720 and the Castagnoli polynomial's catalogue, RFC 8785's
 * canonical JSON, RFC 3339's grammar, the durations arc(7) documents,
 * arcterm.h's safe-text rule, the journal's record codec read back, and
 * a stored record (and the view's choices) read member by member against
 * the strict parser's tree.
 * Prints TAP; run by t/unit.bats (make check), in well under a second.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../arc.h"
#include "../arcacpmsg.h"
#include "../arcterm.h"
#include "../arcrecord.h"
#include "../arcstate.h"
#include "../arclog.h"
#include "../arcsha256.h"
#include "../arcview.h"
#include "../arcwords.h"

static int	 tests, failures;

static void	 check(bool, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

static void
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		failures++;
}

/* ---- CRC-32C (arccrc.c) ---- */

/* The CRC-32C of n bytes, a bit at a time, as the polynomial defines it. */
static uint32_t
crc_by_bits(const unsigned char *p, size_t n)
{
	uint32_t	c = 0xffffffffu;
	int		k;

	while (n-- > 0) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? c >> 1 ^ 0x82f63b78u : c >> 1;
	}
	return c ^ 0xffffffffu;
}

/*
 * Every length to past three rounds of the three streams (3 x 128 bytes
 * each), at each of eight alignments, and in two parts cut anywhere:
 * where the streams are joined is where a CRC computed in pieces goes
 * wrong.
 */
static void
crc_lengths(void)
{
	static unsigned char	 data[1300 + 8];
	uint32_t		 x = 2463534242u;
	size_t			 i, n, off, bad = 0, cuts = 0;

	for (i = 0; i < sizeof(data); i++) {	/* xorshift32 */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (unsigned char)x;
	}
	for (off = 0; off < 8; off++)
		for (n = 0; n <= 1300; n++)
			bad += crc32c(data + off, n) != crc_by_bits(data + off, n);
	for (i = 0; i <= 1300; i += 13, cuts++)
		bad += crc32c_extend(crc32c(data, i), data + i, 1300 - i) !=
		    crc_by_bits(data, 1300);
	check(bad == 0, "crc32c: %zu lengths to 1,300 bytes at eight "
	    "alignments and %zu cuts the polynomial's, bit by bit: %zu not",
	    (size_t)8 * 1301, cuts, bad);
}

static void
crc(void)
{
	unsigned char	 zeros[32], ones[32], inc[32];
	size_t		 i;

	memset(zeros, 0, sizeof(zeros));
	memset(ones, 0xff, sizeof(ones));
	for (i = 0; i < sizeof(inc); i++)
		inc[i] = (unsigned char)i;
	/* the catalogue's check value, and RFC 3720 B.4's vectors */
	check(crc32c("123456789", 9) == 0xe3069283,
	    "crc32c: \"123456789\" is e3069283 (the check value)");
	check(crc32c(zeros, 32) == 0x8a9136aa,
	    "crc32c: 32 zero bytes are 8a9136aa (RFC 3720 B.4)");
	check(crc32c(ones, 32) == 0x62a8ab43,
	    "crc32c: 32 0xff bytes are 62a8ab43 (RFC 3720 B.4)");
	check(crc32c(inc, 32) == 0x46dd794e,
	    "crc32c: 00..1f is 46dd794e (RFC 3720 B.4)");
	check(crc32c_extend(crc32c("1234", 4), "56789", 5) == 0xe3069283,
	    "crc32c: extended in two parts is the whole's");
	crc_lengths();
}

/* ---- canonical JSON (arcdigest.c, RFC 8785) ---- */

static void
canon(const char *in, const char *want, const char *what)
{
	struct arena		 a = { 0 };
	struct buf		 b = { 0 };
	struct jparse_error	 e;
	const struct jval	*v;

	if ((v = json_parse(&a, in, strlen(in), &e)) == NULL) {
		check(false, "canonical JSON: %s: does not parse", what);
		arena_free(&a);
		return;
	}
	json_write(&b, v, JSON_CANONICAL);
	buf_putc(&b, '\0');
	check(strcmp(b.p, want) == 0, "canonical JSON: %s", what);
	if (strcmp(b.p, want) != 0)
		printf("#   got  %s\n#   want %s\n", b.p, want);
	buf_free(&b);
	arena_free(&a);
}

/*
 * RFC 8785 3.2.2.2's string escapes, wherever the byte falls: the
 * escaping scan steps over eight bytes at a time, so each is tried at
 * each of 24 offsets and the result held to the RFC's form, built here.
 */
static void
escapes_at_offsets(void)
{
	static const struct { char c; const char *as; } esc[] = {
		{ '"', "\\\"" }, { '\\', "\\\\" }, { '\b', "\\b" },
		{ '\f', "\\f" }, { '\n', "\\n" }, { '\r', "\\r" },
		{ '\t', "\\t" }, { '\0', "\\u0000" }, { 0x01, "\\u0001" },
		{ 0x1f, "\\u001f" },
	};
	struct buf	 b = { 0 };
	char		 in[24], want[64];
	size_t		 at, i, right = 0, tried = 0;

	for (at = 0; at < sizeof(in); at++)
		for (i = 0; i < sizeof(esc) / sizeof(esc[0]); i++, tried++) {
			memset(in, 'x', sizeof(in));
			in[at] = esc[i].c;
			snprintf(want, sizeof(want), "\"%.*s%s%.*s\"", (int)at,
			    in, esc[i].as, (int)(sizeof(in) - at - 1),
			    in + at + 1);
			b.len = 0;
			buf_json_str(&b, in, sizeof(in));
			right += b.len == strlen(want) &&
			    memcmp(b.p, want, b.len) == 0;
		}
	buf_free(&b);
	check(right == tried, "RFC 8785: each escaped character at each of "
	    "24 offsets, escaped as 3.2.2.2 has it (%zu of %zu)", right,
	    tried);
}

static void
canonical(void)
{
	canon("{ \"b\" : 2 , \"a\" : [ 1 , true , null ] }",
	    "{\"a\":[1,true,null],\"b\":2}", "members sorted, no white space");
	/* RFC 8785 3.2.3: sorted by UTF-16 code units, not code points */
	canon("{\"\\u20ac\":\"Euro Sign\",\"\\r\":\"Carriage Return\","
	    "\"\\ufb33\":\"Hebrew Letter Dalet With Dagesh\",\"1\":\"One\","
	    "\"\\ud83d\\ude00\":\"Emoji: Grinning Face\",\"\\u0080\":"
	    "\"Control\",\"\\u00f6\":\"Latin Small Letter O With Diaeresis\"}",
	    "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\xc2\x80\":"
	    "\"Control\",\"\xc3\xb6\":\"Latin Small Letter O With Diaeresis\","
	    "\"\xe2\x82\xac\":\"Euro Sign\",\"\xf0\x9f\x98\x80\":\"Emoji: "
	    "Grinning Face\",\"\xef\xac\xb3\":\"Hebrew Letter Dalet With "
	    "Dagesh\"}", "RFC 8785's sorting example, by UTF-16 code units");
	/* RFC 8785 3.2.2.2: the short escapes, \u00XX lowercase, else UTF-8 */
	canon("\"\\u0008\\u0009\\u000a\\u000c\\u000d\\u000f\\u0022\\u005c"
	    "\\u002f\\u20ac\"", "\"\\b\\t\\n\\f\\r\\u000f\\\"\\\\/\xe2\x82\xac\"",
	    "strings: the short escapes, \\u000f lowercase, / and the euro "
	    "as themselves");
}

/* ---- time and durations (arctime.c) ---- */

static void
times(void)
{
	struct arc_instant	 t;
	static const char	*good[] = { "2026-08-26T01:15:00Z",
	    "2026-08-26T01:15:00.123456Z", "2026-08-26T03:15:00+02:00",
	    "2024-02-29T00:00:00Z", "1985-04-12T23:20:50.52Z" };
	static const char	*bad[] = { "2026-08-26 01:15:00Z",
	    "2026-02-29T00:00:00Z", "2026-08-26T25:00:00Z",
	    "2026-08-26T01:60:00Z", "2026-08-26T01:15:00", "2026-8-26T01:15:00Z",
	    "2026-08-26T01:15:00.Z", "" };
	size_t			 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		check(rfc3339_parse(good[i], strlen(good[i]), &t),
		    "RFC 3339: %s is a time", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check(!rfc3339_parse(bad[i], strlen(bad[i]), &t),
		    "RFC 3339: \"%s\" is not", bad[i]);
	check(rfc3339_parse("1970-01-01T00:00:00Z", 20, &t) && t.seconds == 0,
	    "RFC 3339: the epoch is second 0");
	check(rfc3339_parse("2026-08-26T03:15:00+02:00", 25, &t) &&
	    t.seconds == 1787706900,
	    "RFC 3339: an offset counts (01:15Z on 2026-08-26 is 1787706900)");
	check(rfc3339_cmp("2026-08-26T01:15:00.5Z",
	    "2026-08-26T01:15:00.25Z") > 0, "RFC 3339: .5 is after .25");
	check(rfc3339_ms_between("2026-08-26T01:15:00Z",
	    "2026-08-26T01:16:01.5Z") == 61500, "61.5 s between two instants");
}

/* Whether second s (since the epoch) is written as gmtime_r(3) has it. */
static bool
written_as_libc(int64_t s)
{
	char		 got[64], want[64];
	struct tm	 tm;
	time_t		 t = (time_t)s;

	return gmtime_r(&t, &tm) != NULL && snprintf(want, sizeof(want),
	    "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
	    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec) > 0 &&
	    rfc3339_after("0000-01-01T00:00:00Z", s + 62167219200, got,
	    sizeof(got)) && strcmp(got, want) == 0;
}

/*
 * The instants arc writes, against the C library's calendar: every
 * 1,000,003rd second from 0000-01-01 to 9999-12-31, and the seconds at
 * the edges of the epoch, of the leap rules and of the range.
 */
static void
calendar(void)
{
	static const int64_t	 edges[] = { -62167219200, -62167219199,
	    -1, 0, 86399, 86400, 951782399, 951868800, -2203891201,
	    -2203891200, 4107542399, 4107542400, 253402300799 };
	int64_t			 s, n = 0, bad = 0;
	size_t			 i;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++, n++)
		bad += !written_as_libc(edges[i]);
	for (s = edges[0]; s <= 253402300799; s += 1000003, n++)
		bad += !written_as_libc(s);
	check(bad == 0, "RFC 3339 written: %lld instants from year 0000 to "
	    "9999 as gmtime_r has them (%lld differ)", (long long)n,
	    (long long)bad);
}

static void
durations(void)
{
	static const struct { const char *s; int64_t want; } d[] = {
		{ "90", 90 }, { "2.5", 3 }, { "90s", 90 }, { "10m", 600 },
		{ "2h", 7200 }, { "1d", 86400 }, { "1w", 604800 },
		{ "1h30m", 5400 }, { "1d12h", 129600 }, { "1m1.5s", 62 },
		{ "", -1 }, { "10x", -1 }, { "1s1m", -1 }, { "-5", -1 },
		{ "1h1h", -1 }, { "m", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		check(parse_duration(d[i].s) == d[i].want,
		    "duration \"%s\" is %lld", d[i].s, (long long)d[i].want);
	check(parse_duration_ms("1m1.5s") == 61500, "1m1.5s is 61500 ms");
}

/* ---- UTF-8 (arcutf8.c), against the Unicode Standard's Table 3-7 ---- */

static void
seq_is(const char *s, size_t want, const char *what)
{
	const unsigned char *p = (const unsigned char *)s;

	check(utf8_seq(p, p + strlen(s)) == want, "UTF-8: %s", what);
}

static void
utf8(void)
{
	const char	*mixed = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	struct buf	 b = { 0 };
	char		 o[4];
	size_t		 len;

	seq_is("A", 1, "ASCII is one byte");
	seq_is("\xc2\x80", 2, "U+0080, the first two-byte form");
	seq_is("\xc1\xbf", 0, "an overlong two-byte form (C1) is ill-formed");
	seq_is("\xe0\x9f\xbf", 0,
	    "an overlong three-byte form (E0 9F) is ill-formed");
	seq_is("\xe0\xa0\x80", 3, "U+0800, the first three-byte form");
	seq_is("\xed\x9f\xbf", 3, "U+D7FF, the last before the surrogates");
	seq_is("\xed\xa0\x80", 0, "a surrogate (ED A0) is ill-formed");
	seq_is("\xf0\x8f\xbf\xbf", 0,
	    "an overlong four-byte form (F0 8F) is ill-formed");
	seq_is("\xf4\x8f\xbf\xbf", 4, "U+10FFFF, the last code point");
	seq_is("\xf4\x90\x80\x80", 0, "past U+10FFFF (F4 90) is ill-formed");
	seq_is("\xf8\x88\x80\x80", 0, "F8 leads nothing");
	seq_is("\xe2\x82", 0, "a sequence cut short is ill-formed");
	check(utf8_decode((const unsigned char *)"\xf0\x9f\x98\x80", 4,
	    &len) == 0x1F600 && len == 4, "UTF-8: U+1F600 decodes from 4 bytes");
	check(utf8_put(o, 0x20AC) == 3 && memcmp(o, "\xe2\x82\xac", 3) == 0,
	    "UTF-8: U+20AC encodes as E2 82 AC");
	check(utf8_chars(mixed, strlen(mixed)) == 4,
	    "UTF-8: one, two, three and four bytes are four characters");
	check(utf8_chars("\xe2\x82" "a\xff", 4) == 4,
	    "UTF-8: each byte of an ill-formed part is a character");
	check(utf8_offset(mixed, strlen(mixed), 2) == 3 &&
	    utf8_offset(mixed, strlen(mixed), 9) == strlen(mixed),
	    "UTF-8: the offset of a character, or the end");
	check(utf8_cut(mixed, strlen(mixed), 4) == strlen(mixed),
	    "UTF-8: text that fits is kept whole");
	check(utf8_cut(mixed, strlen(mixed), 3) == 3,
	    "UTF-8: a cut to 3 keeps 2 characters, room for the mark");
	check(utf8_cut(mixed, strlen(mixed), 0) == 0, "UTF-8: a cut to none");
	acp_clip(&b, "abc\0\0", 5, 4, true);
	check(b.len == 3 && memcmp(b.p, "abc", 3) == 0,
	    "UTF-8: an ACP text's NULs are dropped, and count for nothing");
	b.len = 0;
	acp_clip(&b, "abcdef", 6, 4, true);
	check(b.len == 6 && memcmp(b.p, "abc" UTF8_CUT, 6) == 0,
	    "UTF-8: an ACP text cut to 4 characters: 3 and the mark");
	buf_free(&b);
}

/*
 * ---- the one rule for producer text (arcview.h), at every offset ----
 * Text the rule leaves alone is tried eight bytes at a time: a byte it
 * changes, or a run of VIEW_BLANK_RUN blanks, must be caught wherever it
 * falls in a word, and across two.
 */
static bool
view_safe_keeps(const char *in, size_t n)
{
	struct buf	 b = { 0 };
	bool		 same;

	view_safe(&b, in, n, 0, false);
	same = b.len == n && memcmp(b.p, in, n) == 0;
	buf_free(&b);
	return same;
}

static bool
view_safe_has(const char *in, size_t n, const char *what, size_t wn)
{
	struct buf	 b = { 0 };
	bool		 has;

	view_safe(&b, in, n, 0, false);
	has = memmem(b.p != NULL ? b.p : "", b.len, what, wn) != NULL;
	buf_free(&b);
	return has;
}

static void
view_rule(void)
{
	/* a C0 control, ESC, DEL, a C1 byte, bytes that are not UTF-8 */
	static const unsigned char	 changed[] = { 0x01, 0x0a, 0x1b, 0x1f,
	    0x7f, 0x80, 0x9b, 0xc3, 0xff, '\\' };
	char				 s[25], blanks[VIEW_BLANK_RUN];
	size_t				 at, i, n, kept = 0, caught = 0;
	size_t				 marked = 0, tried = 0;

	memset(blanks, ' ', sizeof(blanks));
	for (n = 0; n <= 24; n++) {
		memset(s, 'a', n);
		for (i = 0; i < n; i++)
			s[i] = "Printable ASCII: ~!{}[]"[i % 23];
		kept += view_safe_keeps(s, n);
	}
	check(kept == 25, "view rule: printable ASCII of 0 to 24 bytes is "
	    "kept as it is (%zu of 25)", kept);
	for (at = 0; at < 24; at++)
		for (i = 0; i < sizeof(changed); i++, tried++) {
			memset(s, 'a', 24);
			s[at] = (char)changed[i];
			/* (the backslash's escape is made of backslashes) */
			caught += !view_safe_keeps(s, 24) &&
			    (changed[i] == '\\' ||
			    !view_safe_has(s, 24, (char *)&changed[i], 1));
		}
	check(caught == tried, "view rule: a control, DEL, a byte that is not "
	    "UTF-8 or a backslash, at any of 24 offsets, never comes out as "
	    "it is (%zu of %zu)", caught, tried);
	for (at = 0; at + VIEW_BLANK_RUN <= 24; at++) {
		memset(s, 'a', 24);
		memcpy(s + at, blanks, VIEW_BLANK_RUN);
		marked += !view_safe_has(s, 24, blanks, VIEW_BLANK_RUN);
		memset(s, 'a', 24);
		memcpy(s + at, blanks, VIEW_BLANK_RUN - 1);
		marked += view_safe_keeps(s, 24);
	}
	check(marked == 2 * (24 - VIEW_BLANK_RUN + 1), "view rule: a run of "
	    "%d blanks at any offset is a mark, one fewer is kept (%zu of %d)",
	    VIEW_BLANK_RUN, marked, 2 * (24 - VIEW_BLANK_RUN + 1));
}

/* ---- safe text and the cut at a character (arcterm.c) ---- */

static void
safe_is(const char *in, size_t n, const char *want, const char *what)
{
	struct buf b = { 0 };

	term_safe(&b, in, n);
	buf_putc(&b, '\0');
	check(strcmp(b.p, want) == 0, "safe text: %s", what);
	if (strcmp(b.p, want) != 0)
		printf("#   got  %s\n", b.p);
	buf_free(&b);
}

/*
 * Plain text is copied eight bytes at a time: whatever is not plain is
 * escaped at any offset in a word, before, across and after its end.
 */
static void
safe_at_every_offset(void)
{
	static const struct { const char *in, *out; } odd[] = {
		{ "\x1b", "\\x1b" }, { "\\", "\\x5c" }, { "\x7f", "\\x7f" },
		{ "\xff", "\\xff" }, { "\xe2\x80\xae", "\\u202e" },
		{ "\xe2\x82\xac", "\xe2\x82\xac" }, { "\t", "\\x09" },
	};
	char		 in[64], want[64];
	size_t		 k, at, bad = 0, tried = 0;
	struct buf	 b = { 0 };

	for (k = 0; k < sizeof(odd) / sizeof(odd[0]); k++)
		for (at = 0; at <= 20; at++, tried++) {
			memset(in, 'a', at);
			memset(want, 'a', at);
			(void)snprintf(in + at, sizeof(in) - at, "%s~bcdefghij",
			    odd[k].in);
			(void)snprintf(want + at, sizeof(want) - at,
			    "%s~bcdefghij", odd[k].out);
			b.len = 0;
			term_safe(&b, in, strlen(in));
			if (b.len != strlen(want) || memcmp(b.p, want, b.len) != 0)
				bad++;
		}
	check(bad == 0, "safe text: seven kinds of odd byte at offsets 0 to "
	    "20 of plain text, each escaped or kept (%zu of %zu wrong)", bad,
	    tried);
	buf_free(&b);
}

static void
text(void)
{
	struct buf	 b = { 0 };
	const char	*eur = "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
			    "\xe2\x82\xac\xe2\x82\xac";	/* six euro signs */
	size_t		 cols, len;
	bool		 whole = true;

	safe_is("a\x1b[31mb", 7, "a\\x1b[31mb", "ESC is shown as \\x1b");
	safe_is("\xe2\x80\xae" "abc", 6, "\\u202eabc",
	    "the right-to-left override is shown as \\u202e");
	safe_is("a\\b", 3, "a\\x5cb", "the backslash itself is escaped");
	safe_is("\xff" "a", 2, "\\xffa", "a byte that is not UTF-8 is shown as \\xff");
	safe_is("\xc2\x9b", 2, "\\u009b", "a C1 control is escaped");
	safe_is("caf\xc3\xa9 \xe2\x82\xac", 9, "caf\xc3\xa9 \xe2\x82\xac",
	    "letters and the euro sign are themselves");
	safe_at_every_offset();
	/* cut to fewer columns than its six: never inside a character */
	for (cols = 3; cols <= 5; cols++) {
		b.len = 0;
		term_cut(&b, eur, strlen(eur), cols);
		buf_putc(&b, '\0');
		/* what is left before the mark is whole euro signs */
		len = strlen(b.p);
		if (len < 3 || strcmp(b.p + len - 3, UTF8_CUT) != 0 ||
		    (len - 3) % 3 != 0 || term_width(b.p, len) > cols)
			whole = false;
	}
	check(whole, "the cut: at a character, within the columns, marked "
	    "U+2026");
	b.len = 0;
	term_cut(&b, "short", 5, 10);
	check(b.len == 5 && memcmp(b.p, "short", 5) == 0,
	    "the cut: text that fits is not cut");
	buf_free(&b);
}

/* ---- the record codec (arclog.c) ---- */

static void
codec(void)
{
	struct arena		 a = { 0 };
	struct buf		 line = { 0 }, scratch = { 0 };
	struct change		 ch;
	struct log_record	 r;
	const char		*n = "{\"id\":\"ntf_1\",\"key\":\"deploy\","
				    "\"status\":\"active\",\"kind\":\"permission\","
				    "\"priority\":\"high\",\"created_at\":"
				    "\"2026-08-26T01:15:00Z\",\"updated_at\":"
				    "\"2026-08-26T01:15:00Z\"}";
	size_t			 i;
	bool			 every = true;

	memset(&ch, 0, sizeof(ch));
	if (!rec_parse(&a, n, false, &ch.n)) {
		check(false, "record codec: the notification parses");
		arena_free(&a);
		return;
	}
	ch.has_n = true;
	ch.dismissed = "cli";
	ch.handover = "{\"taken\":\"2026-08-26T01:15:01Z\",\"by\":\"Codex\","
	    "\"question\":\"int_1\"}";
	log_encode(&line, &scratch, 7, 6, "2026-08-26T01:15:01Z", &ch);
	check(line.len > 0 && line.p[line.len - 1] == '\n' &&
	    log_frame_ok(line.p, line.len - 1),
	    "record codec: one line, its frame and CRC whole");
	check(log_decode(&a, line.p, line.len - 1, 0, false, &r) &&
	    r.has_seq && r.seq == 7 && sv_eq(r.at, "2026-08-26T01:15:01Z") &&
	    sv_eq(r.put.ix.key, "deploy") && r.put.ix.qlen == 0 &&
	    sv_eq(r.put.dismissed, "cli") && r.put.handover.p != NULL &&
	    r.put.handover.n == strlen(ch.handover) &&
	    memcmp(r.put.handover.p, ch.handover, r.put.handover.n) == 0,
	    "record codec: read back, its seq, time, key, dismissal and "
	    "hand-over as written");
	/* the notification as given, where the index says it is */
	check(r.put.n.len == strlen(n) && r.put.n.off + r.put.n.len <
	    line.len && memcmp(line.p + r.put.n.off, n, strlen(n)) == 0,
	    "record codec: the notification's bytes where its span says");
	/* any one bit of the line changed: the frame no longer holds */
	for (i = 0; i + 1 < line.len; i++) {
		line.p[i] ^= 0x01;
		if (log_frame_ok(line.p, line.len - 1))
			every = false;
		line.p[i] ^= 0x01;
	}
	check(every, "record codec: one bit changed anywhere is found");
	buf_free(&line);
	buf_free(&scratch);
	arena_free(&a);
}

/* ---- a stored record read (arcrecord.c) ---- */

/* The tree's reading: the strict parse, then the field table. */
static bool
rec_by_tree(struct arena *a, const char *text, bool interaction,
    struct rec *r)
{
	struct jparse_error e;

	return rec_from_jval(json_parse_shallow(a, text, strlen(text), &e, 1),
	    interaction, r) && rec_sane(r, interaction);
}

static bool
same_rec(const struct rec *x, const struct rec *y)
{
	size_t i;

	for (i = 0; i < REC_FIELDS; i++)
		if ((x->f[i].p == NULL) != (y->f[i].p == NULL) ||
		    x->f[i].n != y->f[i].n || (x->f[i].n > 0 &&
		    memcmp(x->f[i].p, y->f[i].p, x->f[i].n) != 0))
			return false;
	return true;
}

/*
 * rec_parse reads a record member by member without building a tree; the
 * strict parser's tree, read by the same field table, is the statement
 * it must agree with: the same records taken, the same refused, every
 * field the same bytes.  Records as arc writes them and as it never
 * does, then each of them with every byte changed to each of a few that
 * matter to JSON, and cut short at every length.
 */
static void
records(void)
{
	static const struct {
		const char	*text;
		bool		 interaction;
	} base[] = {
		{ "{\"id\":\"ntf_1\",\"key\":\"deploy\",\"status\":\"resolved\","
		  "\"outcome\":\"answered\",\"kind\":\"permission\",\"type\":"
		  "\"permission_required\",\"priority\":\"high\",\"title\":"
		  "\"Codex needs permission\",\"message\":\"Run \\\"make\\\" \\u00e9 "
		  "\xc3\xa9\\n\",\"agent\":\"codex\",\"project\":\"arc\","
		  "\"created_at\":\"2026-08-26T01:15:00Z\",\"updated_at\":"
		  "\"2026-08-26T01:15:02Z\",\"resolved_at\":\"2026-08-26T01:15:02Z\","
		  "\"event_id\":\"evt_1\",\"x-arc\":{\"a\":[1,2.5e3,true,null]}}",
		  false },
		{ "{\"id\":\"int_1\",\"key\":\"deploy\",\"notification_id\":"
		  "\"ntf_1\",\"kind\":\"single_choice\",\"title\":\"Deploy?\","
		  "\"prompt\":\"Which?\",\"choices\":[{\"id\":\"a\",\"label\":"
		  "\"A \\ud83d\\ude00\"},{\"id\":\"b\",\"label\":\"B\"}],"
		  "\"expires_at\":\"2026-08-26T02:15:00Z\",\"status\":\"answered\","
		  "\"digest\":\"90a2c56c66f809b235d487c55e78cf98192b047bd0dc49ac0d8f2f"
		  "a7e557e385\",\"nonce\":\"UCKEbQWudIpi6ItFjAo9gw\",\"created_at\":"
		  "\"2026-08-26T01:15:00Z\",\"updated_at\":\"2026-08-26T01:15:02Z\","
		  "\"answered_at\":\"2026-08-26T01:15:02Z\",\"response\":{"
		  "\"choice_id\":\"a\"}}", true },
		/* not as arc writes: spaces, another order, nulls, a newer
		 * writer's members, a name escaped, one twice */
		{ " { \"key\" : \"k\" , \"st\\u0061tus\" :\"active\", \"id\":\"n\","
		  "\"zz\":{\"q\":[]},\"title\":null,\"\xc3\xa9\":1,\"\\u00e9\":2,"
		  "\"key\":\"k2\"} ", false },
		{ "{\"id\":\"int_2\",\"key\":\"k\",\"kind\":\"text\","
		  "\"text_max_length\":200,\"expires_at\":\"2026-08-26T02:15:00Z\","
		  "\"status\":\"pending\",\"digest\":\"90a2c56c66f809b235d487c55e78"
		  "cf98192b047bd0dc49ac0d8f2fa7e557e385\",\"response\":null}", true },
	};
	static const char bytes[] = { '"', '\\', ',', ':', '{', '}', '[', ']',
	    ' ', 'n', '0', 'x', '\x01', '\x80', '\xc3' };
	struct arena	 a = { 0 };
	struct rec	 fast, tree;
	char		 copy[1024];
	size_t		 i, at, b, len, cases = 0, taken = 0, differ = 0;
	bool		 ok, ok2;

	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		ok = rec_parse(&a, base[i].text, base[i].interaction, &fast);
		ok2 = rec_by_tree(&a, base[i].text, base[i].interaction, &tree);
		check(ok && ok2 && same_rec(&fast, &tree),
		    "record read: example %zu taken, each field as the tree "
		    "has it", i + 1);
		len = strlen(base[i].text);
		if (len >= sizeof(copy))
			abort();
		for (at = 0; at <= len; at++) {
			for (b = 0; b <= sizeof(bytes); b++) {
				memcpy(copy, base[i].text, len + 1);
				if (b == sizeof(bytes))
					copy[at] = '\0';	/* cut short */
				else if (at < len)
					copy[at] = bytes[b];
				else
					continue;
				ok = rec_parse(&a, copy, base[i].interaction,
				    &fast);
				ok2 = rec_by_tree(&a, copy,
				    base[i].interaction, &tree);
				cases++;
				taken += ok;
				if (ok != ok2 || (ok && !same_rec(&fast, &tree)))
					differ++;
				arena_reset(&a);
			}
		}
	}
	check(differ == 0 && taken > 0 && taken < cases,
	    "record read: %zu changed records, %zu taken, %zu read otherwise "
	    "than the tree reads them", cases, taken, differ);
	/* members before the object's brace: no record (a review found it) */
	check(!rec_parse(&a, ",\"key\":\"k\"{\"id\":\"n\",\"key\":\"k\","
	    "\"status\":\"active\"}", false, &fast) &&
	    !rec_by_tree(&a, ",\"key\":\"k\"{\"id\":\"n\",\"key\":\"k\","
	    "\"status\":\"active\"}", false, &tree),
	    "record read: members before the opening brace are refused");
	arena_free(&a);
}

/*
 * The view's choices, read from the record's raw array by a cursor,
 * against the strict parser's tree of the same array read with
 * json_get: the items that are objects with a string id, in order, each
 * member the first of its name, a label missing or not a string shown
 * as the id.
 */
static void
view_choices_read(void)
{
	const char	*n = "{\"id\":\"ntf_1\",\"key\":\"k\",\"status\":"
			    "\"active\",\"kind\":\"permission\"}";
	const char	*q = "{\"id\":\"int_1\",\"key\":\"k\",\"kind\":"
	    "\"single_choice\",\"choices\":[{\"id\":\"a\",\"label\":\"A\","
	    "\"detail\":\"d \\\"q\\\" {x}\"},\"{not\",{\"id\":1,\"label\":\"N\"},"
	    "{\"label\":\"L\",\"id\":\"b\",\"label\":\"L2\",\"x\":{\"id\":\"y\"}},"
	    "{\"id\":\"c\",\"label\":null},[{\"id\":\"z\"}],{\"id\":\"d\",\"id\":"
	    "\"e\",\"detail\":[\"}\"],\"label\":\"D\"},{\"id\":\"f\"},{\"id\":"
	    "\"g\",\"label\":\"G\\u0041\"},{\"id\":\"h\"}],\"expires_at\":"
	    "\"2026-08-26T02:15:00Z\",\"status\":\"pending\",\"digest\":"
	    "\"90a2c56c66f809b235d487c55e78cf98192b047bd0dc49ac0d8f2fa7e557e385\"}";
	struct arena		 a = { 0 };
	struct buf		 want = { 0 };
	struct rec		 nr, qr;
	struct view		 v;
	const struct jval	*list, *c;
	struct sv		 id, label, detail;
	size_t			 i, k = 0, same = 0;

	if (!rec_parse(&a, n, false, &nr) || !rec_parse(&a, q, true, &qr) ||
	    (list = question_choices(&a, &qr)) == NULL) {
		check(false, "view choices: the records parse");
		return;
	}
	view_build(&v, &a, sv_str("k"), &nr, &qr, Q_PENDING, NULL);
	for (i = 0; i < list->n; i++) {
		c = list->items[i];
		if (c->type != J_OBJECT ||
		    (id = sv_json(json_get(c, "id"))).p == NULL)
			continue;
		label = sv_json(json_get(c, "label"));
		detail = sv_json(json_get(c, "detail"));
		if (label.p == NULL)
			label = id;
		if (k < v.nchoices && sv_same(v.choices[k].id, id)) {
			want.len = 0;
			view_safe(&want, label.p, label.n, VIEW_LABEL_MAX,
			    false);
			same += v.choices[k].label.n == want.len &&
			    memcmp(v.choices[k].label.p, want.p, want.len) ==
			    0;
			want.len = 0;
			if (detail.p != NULL)
				view_safe(&want, detail.p, detail.n,
				    VIEW_DETAIL_MAX, false);
			same += (detail.p == NULL) ==
			    (v.choices[k].detail.p == NULL) &&
			    v.choices[k].detail.n == want.len &&
			    (want.len == 0 || memcmp(v.choices[k].detail.p,
			    want.p, want.len) == 0);
		}
		k++;
	}
	check(k == 7 && v.nchoices == k && same == 2 * k,
	    "view choices: %zu of the tree's %zu choices, %zu of %zu labels "
	    "and details the same", v.nchoices, k, same, 2 * k);
	buf_free(&want);
	arena_free(&a);
}

/*
 * One choice made alone (view_choice_of: what --history shows of an
 * answer) against the same choice in the whole view: the first with its
 * id, its shown id, label and detail the same bytes; an id no choice
 * has, none.
 */
static bool
choice_same(const struct view_choice *x, const struct view_choice *y)
{
	return sv_same(x->id, y->id) && sv_same(x->shown_id, y->shown_id) &&
	    sv_same(x->label, y->label) && (x->detail.p == NULL) ==
	    (y->detail.p == NULL) && (x->detail.p == NULL ||
	    sv_same(x->detail, y->detail));
}

static void
view_choice_alone(void)
{
	const char	*n = "{\"id\":\"ntf_1\",\"key\":\"k\",\"status\":"
			    "\"active\",\"kind\":\"permission\"}";
	const char	*q = "{\"id\":\"int_1\",\"key\":\"k\",\"kind\":"
	    "\"single_choice\",\"choices\":[{\"id\":\"a\",\"label\":\"A\","
	    "\"detail\":\"d \\\"q\\\" {x}\"},\"{not\",{\"id\":1,\"label\":\"N\"},"
	    "{\"label\":\"L\",\"id\":\"b\",\"x\":{\"id\":\"y\"}},{\"id\":\"c\","
	    "\"label\":null},{\"id\":\"a\",\"label\":\"second a\"},{\"id\":"
	    "\"e\\u0041\",\"label\":\"\\u202eE\\u001b[2J\"},{\"id\":\"f\\\\\","
	    "\"detail\":\"\\n\"},{\"id\":\"\"}],\"expires_at\":"
	    "\"2026-08-26T02:15:00Z\",\"status\":\"pending\",\"digest\":"
	    "\"90a2c56c66f809b235d487c55e78cf98192b047bd0dc49ac0d8f2fa7e557e385\"}";
	static const char *const absent[] = { "zz", "1", "A", "eA " };
	struct arena		 a = { 0 };
	struct rec		 nr, qr;
	struct view		 v;
	struct view_choice	 one;
	size_t			 i, k, same = 0, none = 0;

	if (!rec_parse(&a, n, false, &nr) || !rec_parse(&a, q, true, &qr)) {
		check(false, "a choice alone: the records parse");
		return;
	}
	view_build(&v, &a, sv_str("k"), &nr, &qr, Q_PENDING, NULL);
	for (i = 0; i < v.nchoices; i++) {
		for (k = 0; !sv_same(v.choices[k].id, v.choices[i].id); k++)
			;
		same += view_choice_of(&one, &a, &qr, v.choices[i].id) &&
		    choice_same(&one, &v.choices[k]);
	}
	for (i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		none += !view_choice_of(&one, &a, &qr, sv_str(absent[i]));
	check(v.nchoices == 7 && same == v.nchoices &&
	    none == sizeof(absent) / sizeof(absent[0]),
	    "a choice alone: %zu of %zu the view's first of its id, %zu of "
	    "%zu ids no choice has found none", same, v.nchoices, none,
	    sizeof(absent) / sizeof(absent[0]));
	arena_free(&a);
}

/* ---- SHA-256 (arcsha256.c) ---- */

/*
 * FIPS 180-2's examples (appendix B), then the processor's path against
 * libmd's on every length to three blocks and a few longer: the padding
 * is where a block function's caller goes wrong.
 */
static void
sha(void)
{
	static const struct {
		const char	*text;
		size_t		 repeat;
		const char	*hex;
	} fips[] = {
		{ "abc", 1, "ba7816bf8f01cfea414140de5dae2223"
		    "b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
		    "248d6a61d20638b8e5c026930c3e6039"
		    "a33ce45964ff2167f6ecedd419db06c1" },
		{ "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67"
		    "f1809a48a497200e046d39ccc7112cd0" },
		{ "", 1, "e3b0c44298fc1c149afbf4c8996fb924"
		    "27ae41e4649b934ca495991b7852b855" },
	};
	static unsigned char	 data[1000000];
	uint8_t			 a[SHA256_BYTES], b[SHA256_BYTES];
	char			 hex[ARC_HEX_DIGEST];
	size_t			 i, k, n, len, bad = 0, lengths[] = { 1000,
				    4095, 4096, 4097, 65536 };
	uint32_t		 x = 2463534242u;

	for (i = 0; i < sizeof(fips) / sizeof(fips[0]); i++) {
		len = strlen(fips[i].text);
		for (k = 0; k < fips[i].repeat; k++)
			memcpy(data + k * len, fips[i].text, len);
		sha256_hex(data, len * fips[i].repeat, hex);
		check(strcmp(hex, fips[i].hex) == 0, "SHA-256 of FIPS 180-2's "
		    "\"%.8s\"%s: %s", fips[i].text, fips[i].repeat > 1 ?
		    " a million times" : "", hex);
	}
	for (i = 0; i < sizeof(data); i++) {	/* xorshift32: any bytes */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (unsigned char)x;
	}
	for (n = 0; n <= 3 * 64 + 1; n++) {
		sha256(data, n, a);
		sha256_portable(data, n, b);
		bad += memcmp(a, b, sizeof(a)) != 0;
	}
	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		sha256(data + i, lengths[i], a);
		sha256_portable(data + i, lengths[i], b);
		bad += memcmp(a, b, sizeof(a)) != 0;
	}
	check(bad == 0, "SHA-256 %s the same as libmd's on lengths 0 to 193 "
	    "and five longer, unaligned: %zu differ",
	    sha256_accelerated() ? "with the processor's SHA instructions is" :
	    "(no SHA instructions here: libmd's own) is", bad);
}

/* ---- a deadline that stays on screen (arcwords.c) ---- */

static void
deadlines(void)
{
	static const struct {
		const char	*until, *now, *words;
	} cases[] = {
		{ "2026-12-06T21:00:00Z", "2026-12-06T22:00:00Z", "21:00" },
		{ "2026-12-06T23:59:00Z", "2026-12-06T22:00:00Z", "23:59" },
		/* under a day away, but tomorrow: never a bare time */
		{ "2026-12-07T21:00:00Z", "2026-12-06T22:00:00Z",
		    "tomorrow 21:00" },
		{ "2026-12-07T00:05:00Z", "2026-12-06T23:55:00Z",
		    "tomorrow 00:05" },
		{ "2027-01-01T09:30:00Z", "2026-12-31T10:00:00Z",
		    "tomorrow 09:30" },
		{ "2026-12-09T18:47:00Z", "2026-12-06T22:00:00Z",
		    "2026-12-09 18:47" },
		{ "not a time", "2026-12-06T22:00:00Z", "?" },
	};
	char	 w[32];
	size_t	 i;

	setenv("TZ", "UTC", 1);
	tzset();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		deadline_words(w, sizeof(w), cases[i].until, cases[i].now);
		check(strcmp(w, cases[i].words) == 0, "deadline %s at %s: "
		    "\"%s\" (want \"%s\")", cases[i].until, cases[i].now, w,
		    cases[i].words);
	}
}

int
main(void)
{
	crc();
	canonical();
	escapes_at_offsets();
	times();
	calendar();
	durations();
	utf8();
	text();
	view_rule();
	codec();
	records();
	view_choices_read();
	view_choice_alone();
	sha();
	deadlines();
	printf("1..%d\n", tests);
	return failures == 0 ? 0 : 1;
}
