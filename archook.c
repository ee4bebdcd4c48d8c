/*
 * What every host's hook mapping shares: texts made as the shell adapters
 * made them with jq (so that a title, a key or a hash is the same as
 * before), and the ARC events a plan opens and closes, built as arc-emit
 * builds them.  Every string lives in the caller's arena.
 */
#include <err.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "archook.h"

/* ---- values as jq 1.6 writes them ---- */

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

static int
member_cmp(const void *a, const void *b)
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

void
hook_json(struct buf *b, const struct jval *v, bool sorted)
{
	const struct jmember	**m;
	size_t			  i;

	if (v == NULL) {	/* a member that is not there, as jq's null */
		buf_puts(b, "null");
		return;
	}
	switch (v->type) {
	case J_NULL: buf_puts(b, "null"); return;
	case J_FALSE: buf_puts(b, "false"); return;
	case J_TRUE: buf_puts(b, "true"); return;
	case J_NUMBER: jq_number(b, v); return;
	case J_STRING: jq_string(b, v->s, v->len); return;
	case J_ARRAY:
		buf_putc(b, '[');
		for (i = 0; i < v->n; i++) {
			if (i)
				buf_putc(b, ',');
			hook_json(b, v->items[i], sorted);
		}
		buf_putc(b, ']');
		return;
	case J_OBJECT:
		if ((m = calloc(v->n ? v->n : 1, sizeof(*m))) == NULL)
			err(EXIT_SYSTEM, "calloc");
		for (i = 0; i < v->n; i++)
			m[i] = &v->members[i];
		if (sorted)
			qsort(m, v->n, sizeof(*m), member_cmp);
		buf_putc(b, '{');
		for (i = 0; i < v->n; i++) {
			if (i)
				buf_putc(b, ',');
			jq_string(b, m[i]->name, m[i]->namelen);
			buf_putc(b, ':');
			hook_json(b, m[i]->value, sorted);
		}
		buf_putc(b, '}');
		free(m);
		return;
	}
}

bool
hook_no_duplicates(const struct jval *v)
{
	size_t i;

	if (v == NULL)
		return true;
	if (v->type == J_ARRAY)
		for (i = 0; i < v->n; i++)
			if (!hook_no_duplicates(v->items[i]))
				return false;
	if (v->type == J_OBJECT)
		for (i = 0; i < v->n; i++)
			if (v->members[i].duplicate ||
			    !hook_no_duplicates(v->members[i].value))
				return false;
	return true;
}

/* ---- the payload ---- */

/* Length of the well-formed UTF-8 sequence at p (Unicode table 3-7), or 0. */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t	n = (size_t)(end - p), len, i;
	unsigned char lo = 0x80, hi = 0xBF;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
		len = 3;
		if (p[0] == 0xE0)
			lo = 0xA0;
		else if (p[0] == 0xED)
			hi = 0x9F;
	} else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
		len = 4;
		if (p[0] == 0xF0)
			lo = 0x90;
		else if (p[0] == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

static const struct jval *payload_of(struct arena *, const char *, size_t);

const struct jval *
hook_payload(struct arena *a, const char *s, size_t n, const char **why)
{
	const struct jval *v = NULL;

	if (n > HOOK_PAYLOAD_MAX)
		*why = hook_printf(a, "the payload is over %d bytes",
		    HOOK_PAYLOAD_MAX);
	else if (hook_values(s, n) > HOOK_VALUES_MAX)
		*why = hook_printf(a, "the payload holds more than %d JSON "
		    "values", HOOK_VALUES_MAX);
	else if ((v = payload_of(a, s, n)) == NULL)
		*why = "the payload is not one JSON object in UTF-8";
	return v;
}

size_t
hook_values(const char *s, size_t n)
{
	size_t	 i, k = 1;
	bool	 in_string = false;

	/* every value but the first follows one of [ { , : outside strings */
	for (i = 0; i < n; i++) {
		if (in_string) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in_string = false;
		} else if (s[i] == '"')
			in_string = true;
		else if (s[i] == '[' || s[i] == '{' || s[i] == ',' ||
		    s[i] == ':')
			k++;
	}
	return k;
}

static const struct jval *
payload_of(struct arena *a, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	const unsigned char	*end = p + n;
	struct jparse_error	 e;
	const struct jval	*v;
	struct buf		 b = { 0 };
	size_t			 k;

	while (p < end) {
		if ((k = utf8_len(p, end)) == 0) {
			buf_put(&b, s, (size_t)((const char *)p - s));
			break;
		}
		p += k;
	}
	if (b.p != NULL) {	/* ill-formed: each bad part one U+FFFD */
		while (p < end) {
			if ((k = utf8_len(p, end)) > 0) {
				buf_put(&b, p, k);
				p += k;
				continue;
			}
			buf_puts(&b, "\xef\xbf\xbd");
			/* a truncated sequence is one part */
			for (p++; p < end && (*p & 0xC0) == 0x80 &&
			    utf8_len(p, end) == 0; p++)
				;
		}
		s = arena_alloc(a, b.len + 1);
		memcpy((char *)s, b.p, b.len + 1);
		n = b.len;
		buf_free(&b);
	}
	v = json_parse(a, s, n, &e);
	if (v == NULL || v->type != J_OBJECT || !hook_no_duplicates(v))
		return NULL;
	return v;
}

/* ---- texts ---- */

static const char *
keep(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

const char *
hook_printf(struct arena *a, const char *fmt, ...)
{
	struct buf	 b = { 0 };
	va_list		 ap;
	const char	*s;
	char		*p;
	int		 n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		err(EXIT_SYSTEM, "vasprintf");
	s = keep(a, p, (size_t)n);
	free(p);
	buf_free(&b);
	return s;
}

const char *
hook_text(struct arena *a, const struct jval *v)
{
	struct buf	 b = { 0 };
	const char	*s;
	char		*o;
	size_t		 i;

	if (v == NULL || v->type == J_NULL)
		return "";
	if (v->type == J_STRING) {
		if (memchr(v->s, '\0', v->len) == NULL)
			return keep(a, v->s, v->len);
		o = arena_alloc(a, v->len + 1);
		s = o;
		for (i = 0; i < v->len; i++)
			if (v->s[i] != '\0')
				*o++ = v->s[i];
		*o = '\0';
		return s;
	}
	hook_json(&b, v, false);
	s = keep(a, b.p, b.len);
	buf_free(&b);
	return s;
}

static bool
control(unsigned char c)
{
	return (c >= 0x01 && c <= 0x1f) || c == 0x7f;
}

const char *
hook_line_of(struct arena *a, const char *s)
{
	size_t	 n = strlen(s);
	char	*o, *p;

	o = p = arena_alloc(a, n + 1);
	while (*s != '\0') {
		if (control((unsigned char)*s)) {
			while (control((unsigned char)*s))
				s++;
			*o++ = ' ';
		} else
			*o++ = *s++;
	}
	*o = '\0';
	return p;
}

const char *
hook_line(struct arena *a, const struct jval *v)
{
	return hook_line_of(a, hook_text(a, v));
}

size_t
hook_length(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

const char *
hook_clip(struct arena *a, const char *s, size_t n)
{
	const char	*p;
	char		*o;
	size_t		 k = 0;

	if (n == 0 || hook_length(s) <= n)
		return s;
	/* n - 1 characters, then the ellipsis */
	for (p = s; *p != '\0'; p++) {
		if (((unsigned char)*p & 0xC0) != 0x80 && k++ == n - 1)
			break;
	}
	o = arena_alloc(a, (size_t)(p - s) + 4);
	memcpy(o, s, (size_t)(p - s));
	memcpy(o + (p - s), "\xe2\x80\xa6", 4);
	return o;
}

bool
hook_blank(const char *s)
{
	struct jval v = { 0 };

	v.type = J_STRING;
	v.s = s;
	v.len = strlen(s);
	return json_blank(&v);
}

const char *
hook_or_else(struct arena *a, const struct jval *v, const char *dflt)
{
	const char *s = hook_text(a, v);

	return hook_blank(s) ? dflt : s;
}

const char *
hook_sha16(struct arena *a, const char *s)
{
	char hex[ARC_HEX_DIGEST];

	sha256_hex(s, strlen(s), hex);
	return keep(a, hex, 16);
}

static bool
plain_of(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n < 1 || n > max || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789._-") != n)
		return false;
	return true;
}

const char *
hook_plain(struct arena *a, size_t max, const char *s)
{
	if (plain_of(s, max) && !(strlen(s) == 16 &&
	    strspn(s, "0123456789abcdef") == 16))
		return s;
	return hook_sha16(a, s);
}

const char *
hook_session(struct arena *a, const char *s)
{
	return plain_of(s, 40) ? s : hook_sha16(a, s);
}

const char *
hook_project(struct arena *a, const char *cwd)
{
	size_t		 n = strlen(cwd);
	const char	*slash;

	while (n > 0 && cwd[n - 1] == '/')
		n--;
	for (slash = cwd + n; slash > cwd && slash[-1] != '/'; slash--)
		;
	if (slash < cwd + n)
		return keep(a, slash, (size_t)(cwd + n - slash));
	return cwd[0] == '/' ? "/" : "";
}

/* ---- the events, as arc-emit builds them (arcevent.h) ---- */

static void
head(struct buf *b, const struct hook_who *w, const char *type,
    const char *event_id, bool *first)
{
	const struct event_head	 h = {
		.type = type, .event_id = event_id,
		.sender_id = w->client, .sender_name = w->name,
		.session_id = w->session, .project = w->project, .cwd = w->cwd,
		.turn_id = w->turn,
	};

	event_open(b, &h, first);
}

static void
tail(struct buf *b, const struct hook_who *w)
{
	const struct event_tail	 t = {
		.tmux_pane = w->tmux_pane, .tmux_socket = w->tmux_socket,
	};

	event_close(b, &t);
}

void
hook_event(struct buf *b, const struct hook_who *w, const struct hook_req *r,
    const char *expires, const char *event_id)
{
	char	 text_max[24];
	bool	 first;

	head(b, w, "request.created", event_id, &first);
	event_member(b, &first, "key", r->key);
	event_member(b, &first, "kind", r->kind);
	event_member(b, &first, "title", r->title);
	event_member(b, &first, "message", r->message);
	event_member(b, &first, "priority", r->priority);
	if (r->nchoices > 0 || r->text_max >= 0) {
		if (r->text_max >= 0)
			(void)snprintf(text_max, sizeof(text_max), "%ld",
			    r->text_max);
		event_response(b, &first, r->nchoices == 0 ? "text" :
		    strcmp(r->kind, "permission") == 0 ? "permission" :
		    "single_choice", r->choice, r->nchoices,
		    r->text_max >= 0 ? text_max : NULL, expires);
	}
	tail(b, w);
}

void
hook_resolved(struct buf *b, const struct hook_who *w, const char *key,
    const char *outcome)
{
	bool	 first;

	head(b, w, "request.resolved", NULL, &first);
	event_member(b, &first, "key", key);
	event_member(b, &first, "outcome", outcome);
	tail(b, w);
}
