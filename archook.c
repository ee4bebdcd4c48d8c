/*
 * What every host's hook mapping shares: texts made as the shell adapters
 * made them with jq (so that a title, a key or a hash is the same as
 * before), and the ARC events a plan opens and closes, built as arc-emit
 * builds them.  Every string lives in the caller's arena.
 */
#include <err.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "archook.h"

/* False if any object in v has two members of one name. */
static bool
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

static const struct jval *payload_of(struct arena *, const char *, size_t);
static size_t hook_values(const char *, size_t);

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

/* At most how many JSON values n bytes of JSON text can hold. */
static size_t
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
		if ((k = utf8_seq(p, end)) == 0) {
			buf_put(&b, s, (size_t)((const char *)p - s));
			break;
		}
		p += k;
	}
	if (b.p != NULL) {	/* ill-formed: each bad part one U+FFFD */
		while (p < end) {
			if ((k = utf8_seq(p, end)) > 0) {
				buf_put(&b, p, k);
				p += k;
				continue;
			}
			buf_puts(&b, "\xef\xbf\xbd");
			/* a truncated sequence is one part */
			for (p++; p < end && (*p & 0xC0) == 0x80 &&
			    utf8_seq(p, end) == 0; p++)
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
	json_write(&b, v, JSON_JQ);
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
	return utf8_chars(s, strlen(s));
}

const char *
hook_clip(struct arena *a, const char *s, size_t n)
{
	size_t	 len = strlen(s), keep;
	char	*o;

	if (n == 0 || (keep = utf8_cut(s, len, n)) == len)
		return s;
	o = arena_alloc(a, keep + sizeof(UTF8_CUT));
	memcpy(o, s, keep);
	memcpy(o + keep, UTF8_CUT, sizeof(UTF8_CUT));
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

bool
hook_truthy(const struct jval *v)
{
	return v != NULL && v->type != J_NULL && v->type != J_FALSE;
}

bool
hook_has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

const char *
hook_canon(struct arena *a, const struct jval *v)
{
	struct buf	 b = { 0 };
	const char	*s;

	json_write(&b, v, JSON_JQ | JSON_SORTED);
	s = hook_printf(a, "%s", b.p);
	buf_free(&b);
	return s;
}

const char *
hook_shown(struct arena *a, const struct jval *v)
{
	const char *s = hook_text(a, v);

	return hook_has_control(s) ? hook_canon(a, v) : s;
}

/* Names point into the payload, with no NUL after them. */
bool
hook_named_one_of(const struct jmember *mb, const char *const *names)
{
	for (; *names != NULL; names++)
		if (mb->namelen == strlen(*names) &&
		    memcmp(mb->name, *names, mb->namelen) == 0)
			return true;
	return false;
}

struct jval
hook_without(struct arena *a, const struct jval *in, const char *const *names)
{
	struct jval	 o = *in;
	struct jmember	*kept;
	size_t		 i, n = 0;

	kept = arena_alloc(a, (in->n ? in->n : 1) * sizeof(*kept));
	for (i = 0; i < in->n; i++)
		if (!hook_named_one_of(&in->members[i], names))
			kept[n++] = in->members[i];
	o.members = kept;
	o.n = n;
	return o;
}

void
hook_also(struct arena *a, struct buf *b, const struct jval *in,
    const char *const *names)
{
	struct jval	 o;

	if (in == NULL || in->type != J_OBJECT ||
	    (o = hook_without(a, in, names)).n == 0)
		return;
	buf_puts(b, "Also: ");
	json_write(b, &o, JSON_JQ | JSON_SORTED);
	buf_putc(b, '\n');
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

void
hook_choice(struct hook_req *r, const char *id, const char *label,
    const char *detail)
{
	if (r->nchoices == HOOK_CHOICES_MAX)
		return;
	r->choice[r->nchoices].id = id;
	r->choice[r->nchoices].label = label;
	r->choice[r->nchoices].detail = detail;
	r->nchoices++;
}
