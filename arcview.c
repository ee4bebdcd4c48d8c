/*
 * One view of a question: what a person is shown, built once from the
 * stored records, for every surface.  The terminal, the desktop, the page
 * and a push command each used to choose their own fields, their own cut
 * and their own set of characters to drop, and they drifted: the desktop
 * and the page dropped the choices' details (the rule an "Always allow"
 * adds), the desktop cut inside a UTF-8 character and lost the whole
 * notification, the page passed bidi overrides the others stripped.
 * Here, as jq's jv_dump is the one writer of a value and tmux's
 * format_expand the one expander of what is shown, the fields are chosen
 * once, the off-device setting applied once, and the text made safe once:
 *
 *   - every character that could drive a terminal or hide or reorder what
 *     is read (C0 and C1 controls, DEL, the bidi and invisible format
 *     characters, bytes that are not UTF-8, and the backslash so that no
 *     escape can be forged) is shown escaped, as arcterm.c's term_safe()
 *     writes it, on every surface;
 *   - a run of blanks (VIEW_BLANK_RUN or more) is one mark "⟨N blanks⟩",
 *     and a run of blank lines one line "⟨N blank lines⟩", so that nothing
 *     can be pushed out of sight;
 *   - a command (from a line that begins "$ ", as the hooks write one,
 *     last in their message) has every further line marked "> ", as a
 *     shell marks a continuation, so that no line of it can pass for the
 *     agent's words about it, nor its end for other text;
 *   - a text longer than its bound (ARC's own maxima: a valid event is
 *     never cut) is cut in its middle, at a character, with a mark of how
 *     much was cut, so that the end of a command stays in view.
 *
 * The surfaces differ only in how they write safe text (HTML entities, a
 * JSON string, a terminal's columns), never in what is safe.
 */
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcterm.h"
#include "arcrecord.h"
#include "arcbind.h"
#include "arcoffdevice.h"
#include "arcstate.h"
#include "arcwords.h"
#include "arcview.h"

#define MARK_OPEN	"\xe2\x9f\xa8"	/* ⟨ */
#define MARK_CLOSE	"\xe2\x9f\xa9"	/* ⟩ */

/* ---- the one rule for producer text ---- */

/* The length of a blank at s (space, no-break and wide spaces), or 0. */
static size_t
blank_at(const unsigned char *s, size_t n)
{
	if (n >= 1 && s[0] == ' ')
		return 1;
	if (n >= 2 && s[0] == 0xc2 && s[1] == 0xa0)
		return 2;
	if (n >= 3 && s[0] == 0xe2 && s[1] == 0x80 &&
	    (s[2] <= 0x8a || s[2] == 0xaf))
		return 3;
	if (n >= 3 && s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f)
		return 3;
	if (n >= 3 && s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80)
		return 3;
	return 0;
}

/* How lines go on: a command's continuation, blank lines pending. */
struct shape {
	bool	 lines, command, started, at_start;
	size_t	 blank_lines;	/* in a row, not yet written */
	size_t	 line;		/* lines begun */
};

/* Part of one line: blank runs marked, the rest as term_safe writes it. */
static void
put_run(struct buf *b, const char *s, size_t n)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, k, at, blanks;

	while (i < n) {
		for (at = i, blanks = 0; i < n && (k = blank_at(p + i,
		    n - i)) > 0; i += k)
			blanks++;
		if (blanks >= VIEW_BLANK_RUN)
			buf_printf(b, " " MARK_OPEN "%zu blanks" MARK_CLOSE " ",
			    blanks);
		else if (blanks > 0)
			buf_put(b, s + at, i - at);
		for (at = i; i < n && blank_at(p + i, n - i) == 0; )
			i += utf8_char(s + i, n - i);
		term_safe(b, s + at, i - at);
	}
}

static void
new_line(struct buf *b, struct shape *sh)
{
	if (sh->started)
		buf_putc(b, '\n');
	sh->started = true;
	if (sh->command && sh->line > 0)
		buf_puts(b, "> ");
	sh->line++;
}

/* Blank lines held back, written now that a line follows them. */
static void
flush_blank_lines(struct buf *b, struct shape *sh)
{
	if (sh->blank_lines == 0)
		return;
	if (sh->blank_lines == 1 && sh->started) {
		new_line(b, sh);	/* one blank line: a paragraph */
	} else {
		new_line(b, sh);
		buf_printf(b, MARK_OPEN "%zu blank line%s" MARK_CLOSE,
		    sh->blank_lines, sh->blank_lines == 1 ? "" : "s");
	}
	sh->blank_lines = 0;
}

static bool
all_blank(const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		if ((k = blank_at((const unsigned char *)s + i, n - i)) == 0)
			return false;
		i += k;
	}
	return true;
}

/* A piece of text, its lines shaped; a line may go on in the next piece. */
static void
shape_piece(struct buf *b, struct shape *sh, const char *s, size_t n)
{
	const char	*p = s, *end = s + n, *nl;
	size_t		 len;

	if (!sh->lines) {
		put_run(b, s, n);
		return;
	}
	while (p <= end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl != NULL ? nl : end) - p);
		if (sh->at_start) {
			if (nl != NULL && all_blank(p, len)) {
				sh->blank_lines++;
				p = nl + 1;
				continue;
			}
			if (nl == NULL && len == 0)
				break;	/* the piece ends at a line's start */
			flush_blank_lines(b, sh);
			new_line(b, sh);
			/* every line after a command's first is the command's */
			if (len >= 2 && memcmp(p, "$ ", 2) == 0)
				sh->command = true;
			sh->at_start = false;
		}
		put_run(b, p, len);
		if (nl == NULL)
			break;
		sh->at_start = true;
		p = nl + 1;
	}
}

_Static_assert(VIEW_BLANK_RUN == 8, "plain()'s run of blanks is eight");

/* A word's bytes that are blanks, each as its high bit (exact). */
static uint64_t
word_blanks(uint64_t w)
{
	uint64_t x = w ^ (WORD_ONES * ' ');

	return ~(((x & ~WORD_HIGHS) + ~WORD_HIGHS) | x | ~WORD_HIGHS);
}

/*
 * Whether the rule leaves s as it is: printable ASCII but the backslash,
 * no run of VIEW_BLANK_RUN blanks, no line break, within max.  Most text
 * is, and is then copied at once rather than a character at a time; it
 * is tried eight bytes at a time, a run of blanks counted across words
 * from the blanks that end one and begin the next.
 */
static bool
plain(const char *s, size_t n, size_t max)
{
	uint64_t	 w, blank, other;
	size_t		 i, run = 0;

	if (max > 0 && n > max)
		return false;
	for (i = 0; n - i >= sizeof(w); i += sizeof(w)) {
		memcpy(&w, s + i, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w);	/* s[i] the lowest byte */
#endif
		if (word_unplain(w))
			return false;
		blank = word_blanks(w);
		if (blank == WORD_HIGHS) {
			run += sizeof(w);
		} else {
			other = ~blank & WORD_HIGHS;
			run += (size_t)__builtin_ctzll(other) / 8;	/* first */
			if (run >= VIEW_BLANK_RUN)
				return false;
			run = (size_t)__builtin_clzll(other) / 8;	/* last */
		}
		if (run >= VIEW_BLANK_RUN)
			return false;
	}
	for (; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ||
		    s[i] == '\\')
			return false;
		run = s[i] == ' ' ? run + 1 : 0;
		if (run >= VIEW_BLANK_RUN)
			return false;
	}
	return true;
}

void
view_safe(struct buf *b, const char *s, size_t n, size_t max, bool lines)
{
	struct shape	 sh = { lines, false, false, true, 0, 0 };
	size_t		 chars, head, tail, h, t;

	if (s == NULL)
		return;
	if (plain(s, n, max)) {
		buf_put(b, s, n);
		return;
	}
	if (!lines)
		sh.at_start = false;
	chars = utf8_chars(s, n);
	if (max > 0 && chars > max) {
		head = max - max / 4;
		tail = max / 4;
		h = utf8_offset(s, n, head);
		t = utf8_offset(s, n, chars - tail);
		shape_piece(b, &sh, s, h);
		if (sh.at_start && sh.lines) {
			flush_blank_lines(b, &sh);
			new_line(b, &sh);
			sh.at_start = false;
		}
		buf_printf(b, UTF8_CUT MARK_OPEN "%zu characters cut" MARK_CLOSE
		    UTF8_CUT, chars - head - tail);
		shape_piece(b, &sh, s + t, n - t);
	} else {
		shape_piece(b, &sh, s, n);
	}
	/* Trailing blank lines: one is a final newline; more are marked. */
	if (sh.lines && sh.blank_lines > 1)
		flush_blank_lines(b, &sh);
}

void
view_html(struct buf *b, struct sv v)
{
	size_t	i;

	for (i = 0; v.p != NULL && i < v.n; i++)
		switch (v.p[i]) {
		case '&': buf_puts(b, "&amp;"); break;
		case '<': buf_puts(b, "&lt;"); break;
		case '>': buf_puts(b, "&gt;"); break;
		case '"': buf_puts(b, "&quot;"); break;
		case '\'': buf_puts(b, "&#39;"); break;
		case '\0': break;
		default: buf_putc(b, v.p[i]); break;
		}
}

/* ---- the view ---- */

/* Safe text of a record's field, in the arena (null stays null). */
static struct sv
safe_sv(struct arena *a, struct buf *t, struct sv v, size_t max, bool lines)
{
	if (v.p == NULL)
		return v;
	t->len = 0;
	view_safe(t, v.p, v.n, max, lines);
	return sv_buf(a, t);
}

/*
 * The choices' id, label and detail, each the first of its name as
 * json_get would find it, and only a string: read from the record's
 * raw array, which the strict parse that stored or read the record has
 * checked whole, so a cursor steps over the rest unbuilt.
 */
static bool
choice_members(struct jcursor *item, struct sv *id, struct sv *label,
    struct sv *detail)
{
	static const char *const names[] = { "id", "label", "detail" };
	struct sv	*to[] = { id, label, detail };
	bool		 seen[] = { false, false, false };
	const char	*name;
	size_t		 namelen, k;
	int		 more;

	*id = *label = *detail = (struct sv){ NULL, 0 };
	while ((more = json_cursor_name(item, &name, &namelen)) == 1) {
		for (k = 0; k < 3; k++)
			if (sv_eq((struct sv){ name, namelen }, names[k]))
				break;
		if (k < 3 && !seen[k] && item->p < item->end &&
		    *item->p == '"') {
			seen[k] = true;
			if (!json_cursor_string(item, &to[k]->p, &to[k]->n))
				return false;
			continue;
		}
		if (k < 3)
			seen[k] = true;
		if (!json_cursor_skip(item))
			return false;
	}
	return more == 0;
}

/*
 * The next choice of a list: 1 with its members (id null: none given),
 * 0 at the list's end, -1 when the list cannot be read on.
 */
static int
choice_next(struct jcursor *list, struct sv *id, struct sv *label,
    struct sv *detail)
{
	struct jcursor	 item;

	while (json_cursor_item(list) == 1) {
		if (*list->p != '{') {
			if (!json_cursor_skip(list))
				return -1;
			continue;
		}
		json_cursor_enter(list, &item);
		if (!choice_members(&item, id, label, detail))
			return -1;
		json_cursor_leave(list, &item);
		return 1;
	}
	return 0;
}

static void
choice_make(struct view_choice *vc, struct arena *a, struct buf *t,
    struct sv id, struct sv label, struct sv detail)
{
	vc->id = id;
	vc->shown_id = safe_sv(a, t, vc->id, VIEW_LABEL_MAX, false);
	vc->label = safe_sv(a, t, label, VIEW_LABEL_MAX, false);
	if (vc->label.p == NULL)
		vc->label = vc->shown_id;
	vc->detail = safe_sv(a, t, detail, VIEW_DETAIL_MAX, false);
}

static void
view_choices(struct view *v, struct arena *a, struct buf *t,
    const struct rec *q)
{
	struct jcursor		 list;
	struct view_choice	*grown;
	struct sv		 id, label, detail;
	size_t			 cap = 0;

	if (q->f[I_CHOICES].p == NULL)
		return;
	json_cursor_open(&list, a, q->f[I_CHOICES].p, q->f[I_CHOICES].n);
	while (choice_next(&list, &id, &label, &detail) == 1) {
		if (id.p == NULL)
			continue;
		if (v->nchoices == cap) {
			if (cap > SIZE_MAX / 2 / sizeof(*grown))
				return;
			cap = cap ? cap * 2 : 4;
			grown = arena_alloc(a, cap * sizeof(*grown));
			if (v->nchoices > 0)
				memcpy(grown, v->choices,
				    v->nchoices * sizeof(*grown));
			v->choices = grown;
		}
		choice_make(&v->choices[v->nchoices++], a, t, id, label,
		    detail);
	}
}

bool
view_choice_of(struct view_choice *vc, struct arena *a, const struct rec *q,
    struct sv id)
{
	struct jcursor	 list;
	struct sv	 cid, label, detail;
	struct buf	 t = { 0 };
	bool		 found = false;

	if (q->f[I_CHOICES].p == NULL)
		return false;
	json_cursor_open(&list, a, q->f[I_CHOICES].p, q->f[I_CHOICES].n);
	while (!found && choice_next(&list, &cid, &label, &detail) == 1) {
		if (cid.p != NULL && sv_same(cid, id)) {
			choice_make(vc, a, &t, cid, label, detail);
			found = true;
		}
	}
	buf_free(&t);
	return found;
}

void
view_build(struct view *v, struct arena *a, struct sv key,
    const struct rec *n_in, const struct rec *q_in, enum qstatus qs,
    const struct offdevice *off)
{
	struct rec	 n = *n_in, q;
	struct buf	 t = { 0 };
	struct sv	 title, message;
	const char	*kind;

	memset(v, 0, sizeof(*v));
	v->waiting = -1;
	if (q_in != NULL)
		q = *q_in;
	if (off != NULL) {
		if (q_in != NULL && !offdevice_shows(off, n_in, q_in))
			v->withheld = true;
		(void)offdevice_apply(off, &n, q_in != NULL ? &q : NULL);
	}
	v->key = key;
	v->shown_key = safe_sv(a, &t, key, VIEW_KEY_MAX, false);
	v->agent = safe_sv(a, &t, n.f[N_AGENT_NAME], VIEW_NAME_MAX, false);
	v->agent_id = safe_sv(a, &t, n.f[N_AGENT], VIEW_NAME_MAX, false);
	v->project = safe_sv(a, &t, n.f[N_PROJECT], VIEW_NAME_MAX, false);
	v->session = safe_sv(a, &t, n.f[N_SESSION_ID], VIEW_NAME_MAX, false);
	v->kind = safe_sv(a, &t, n.f[N_KIND], VIEW_NAME_MAX, false);
	v->priority = priority_of(n.f[N_PRIORITY]);
	v->has_where = n.f[N_X_ARC].p != NULL;
	title = n.f[N_TITLE];
	message = n.f[N_MESSAGE];
	if (q_in != NULL) {
		v->has_q = true;
		v->qs = qs;
		if (q.f[I_TITLE].p != NULL)
			title = q.f[I_TITLE];
		/* the question's message is what its digest covers */
		message = q.f[I_PROMPT].p != NULL || v->withheld ?
		    q.f[I_PROMPT] : message;
		/* a withheld question leaves no part of its digest */
		if (!v->withheld)
			question_tag(v->tag, q_in);
		kind = sv_cstr_of(a, q.f[I_KIND]);
		v->answer_kind = strcmp(kind, "permission") == 0 ?
		    "permission" : strcmp(kind, "single_choice") == 0 ?
		    "single_choice" : strcmp(kind, "text") == 0 ? "text" :
		    NULL;
		if (q.f[I_EXPIRES_AT].p != NULL)
			v->expires_at = sv_cstr(a, q.f[I_EXPIRES_AT]);
		if (q.f[I_TEXT_MAX_LENGTH].p != NULL)
			v->text_max = strtoul(sv_cstr(a,
			    q.f[I_TEXT_MAX_LENGTH]), NULL, 10);
		if (!v->withheld || q.f[I_CHOICES].p != NULL)
			view_choices(v, a, &t, &q);
	}
	v->title = safe_sv(a, &t, title, VIEW_TITLE_MAX, false);
	v->message = safe_sv(a, &t, message, VIEW_MESSAGE_MAX, true);
	buf_free(&t);
}

bool
view_from_json(struct view *v, struct arena *a, struct sv key,
    const struct jval *nj, const struct jval *qj,
    const struct offdevice *off)
{
	struct rec	 n, q;

	if (nj == NULL || !rec_from_jval(nj, false, &n))
		return false;
	if (qj != NULL && (qj->type != J_OBJECT ||
	    !rec_from_jval(qj, true, &q)))
		qj = NULL;
	view_build(v, a, key, &n, qj != NULL ? &q : NULL, qj != NULL ?
	    qstatus_of(q.f[I_STATUS]) : Q_NONE, off);
	return true;
}

void
view_handover(struct view *v, struct arena *a, const struct rec *q,
    const char *handover, int waiting)
{
	struct buf	 b = { 0 };
	struct sv	 w;

	v->waiting = v->has_q && v->qs == Q_PENDING ? waiting : -1;
	v->handover.p = NULL;
	v->handover.n = 0;
	if (q == NULL || !v->has_q || handover == NULL)
		return;
	/* Under the off-device setting, no name where the agent's is kept. */
	if (v->agent.p != NULL)
		(void)handover_words(&b, handover, q);
	else
		(void)handover_words_unnamed(&b, handover, q);
	if (b.len > 2) {	/* "; " or ": " leads it, after a state */
		w = sv_buf(a, &b);
		v->handover.p = w.p + 2;
		v->handover.n = w.n - 2;
	}
	buf_free(&b);
}

void
view_handover_tree(struct view *v, struct arena *a, const struct jval *qj,
    const char *handover, int waiting)
{
	struct rec q;

	view_handover(v, a, qj != NULL && qj->type == J_OBJECT &&
	    rec_from_jval(qj, true, &q) ? &q : NULL, handover, waiting);
}

bool
view_answerable(const struct view *v)
{
	return v->has_q && v->qs == Q_PENDING && !v->withheld &&
	    v->answer_kind != NULL && (strcmp(v->answer_kind, "text") == 0 ||
	    v->nchoices > 0);
}

size_t
view_chars(const char *s, size_t n)
{
	return utf8_chars(s, n);
}

size_t
view_room(const struct view *v, size_t chars, size_t lines)
{
	const char	*s = v->message.p;
	size_t		 n = v->message.n, i = 0, line_end = 0, k = 0, l = 1;

	if (s == NULL)
		return 0;
	while (i < n) {
		if (s[i] == '\n') {
			line_end = i;
			if (++l > lines)
				return line_end;
		}
		if (k++ == chars)	/* a first line too long: cut in it */
			return line_end > 0 ? line_end : i;
		i += utf8_char(s + i, n - i);
	}
	return n;
}

bool
view_refuses(const struct view_choice *c)
{
	static const char *const refusing[] = { "deny", "stop", "reject",
	    "decline", "cancel" };
	size_t	i;

	for (i = 0; i < sizeof(refusing) / sizeof(refusing[0]); i++)
		if (sv_is(c->id, refusing[i]))
			return true;
	return false;
}

/* ---- the view as JSON ---- */

/*
 * A member: member is its name as JSON has it, comma and colon included,
 * a string literal (its size is taken).
 */
#define json_sv(b, member, v)	json_member((b), (member), \
	    sizeof(member) - 1, (v))

static void
json_member(struct buf *b, const char *member, size_t n, struct sv v)
{
	buf_put(b, member, n);
	if (v.p == NULL)
		buf_put(b, "null", 4);
	else
		buf_json_str(b, v.p, v.n);
}

void
view_json(struct buf *b, const struct view *v, const char *now)
{
	size_t	i;
	int64_t	left;

	buf_puts(b, "{\"key\":");
	buf_json_str(b, v->key.p, v->key.n);
	json_sv(b, ",\"shown_key\":", v->shown_key);
	json_sv(b, ",\"agent\":", v->agent);
	json_sv(b, ",\"agent_id\":", v->agent_id);
	json_sv(b, ",\"project\":", v->project);
	json_sv(b, ",\"session\":", v->session);
	json_sv(b, ",\"title\":", v->title);
	json_sv(b, ",\"message\":", v->message);
	json_sv(b, ",\"kind\":", v->kind);
	buf_puts(b, ",\"priority\":\"");
	buf_puts(b, priority_name(v->priority));
	buf_putc(b, '"');
	if (!v->has_q) {
		buf_puts(b, ",\"question\":null}");
		return;
	}
	buf_puts(b, ",\"question\":{\"status\":\"");
	buf_puts(b, qstatus_name(v->qs));
	buf_puts(b, "\",\"tag\":\"");
	buf_puts(b, v->tag);
	buf_putc(b, '"');
	buf_puts(b, ",\"kind\":");
	buf_json_cstr(b, v->answer_kind);
	buf_puts(b, ",\"expires_at\":");
	buf_json_cstr(b, v->expires_at);
	left = v->expires_at != NULL && now != NULL ?
	    rfc3339_ms_between(now, v->expires_at) : -1;
	if (left >= 0)
		buf_printf(b, ",\"seconds_left\":%lld",
		    (long long)(left / 1000));
	if (v->answer_kind != NULL && strcmp(v->answer_kind, "text") == 0)
		buf_printf(b, ",\"text_max_length\":%zu", v->text_max);
	buf_puts(b, ",\"choices\":[");
	for (i = 0; i < v->nchoices; i++) {
		buf_puts(b, i > 0 ? ",{\"id\":" : "{\"id\":");
		buf_json_str(b, v->choices[i].id.p, v->choices[i].id.n);
		json_sv(b, ",\"label\":", v->choices[i].label);
		json_sv(b, ",\"detail\":", v->choices[i].detail);
		buf_putc(b, '}');
	}
	buf_puts(b, "],\"withheld\":");
	buf_puts(b, v->withheld ? "true" : "false");
	buf_puts(b, ",\"answerable\":");
	buf_puts(b, view_answerable(v) ? "true" : "false");
	buf_puts(b, ",\"waiting\":");
	buf_puts(b, v->waiting < 0 ? "null" : v->waiting ? "true" : "false");
	json_sv(b, ",\"handover\":", v->handover);
	buf_puts(b, "}}");
}

#define SESSION_SHOWN	6	/* characters: a session's short name */

void
view_origin(struct buf *b, const struct view *v)
{
	struct sv	 s = v->session;
	size_t		 at, chars;

	if (v->agent.p != NULL || v->agent_id.p != NULL)
		buf_put(b, v->agent.p != NULL ? v->agent.p : v->agent_id.p,
		    v->agent.p != NULL ? v->agent.n : v->agent_id.n);
	else
		buf_puts(b, "agent");
	if (v->project.p != NULL) {
		buf_puts(b, " in ");
		buf_put(b, v->project.p, v->project.n);
	}
	if (s.p == NULL || s.n == 0)
		return;
	/* the last characters: a UUID's, a prefixed id's, tell them apart */
	for (at = s.n, chars = 0; at > 0 && chars < SESSION_SHOWN; chars++)
		while (at > 0 && ((unsigned char)s.p[--at] & 0xc0) == 0x80)
			;
	buf_puts(b, ", session ");
	buf_put(b, s.p + at, s.n - at);
}

void
view_summary(struct buf *sum, const struct view *v)
{
	/* Plain text, no markup: the view's safe text as it is. */
	view_origin(sum, v);
	buf_puts(sum, ": ");
	if (v->title.p != NULL)
		buf_put(sum, v->title.p, v->title.n);
	else
		buf_put(sum, v->shown_key.p, v->shown_key.n);
}
