/*
 * What arc-acp asks the person, and what it answers the agent with.
 *
 * session/request_permission becomes a permission question: its options
 * in the agent's order are the choices (the optionId as the choice id
 * when it fits ARC's pattern, else "opt-N"), the tool call's kind gives
 * the priority, and the title and message say what the agent wants in the
 * words a person decides on: the tool call's title, the command, the
 * files and the diff.  elicitation/create in form mode with one string
 * field (a text question) or one single-select enum field (a single_choice
 * question) becomes the same; anything else stays with the editor.
 *
 * Text is cut by code points with an ellipsis (titles at 200, messages
 * at 4000, labels at 200, details at 500, each excerpt line at 160) and
 * NULs are dropped; titles and labels are one line.  Everything else is
 * kept as the agent wrote it: the commands that show it to a person
 * escape what a terminal would obey (arc(7)).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcacpmsg.h"

#define TITLE_MAX	200
#define MESSAGE_MAX	4000
#define LABEL_MAX	200
#define LINE_MAX_CP	160
#define EXCERPT_LINES	8
#define LOCATIONS_MAX	8

/* ---- text ---- */

void
acp_clip(struct buf *b, const char *s, size_t n, size_t max, bool oneline)
{
	struct buf	 t = { 0 };
	size_t		 keep, i, k;

	if (memchr(s, '\0', n) != NULL) {	/* a NUL is no character here */
		for (i = 0; i < n; i++)
			if (s[i] != '\0')
				buf_putc(&t, s[i]);
		acp_clip(b, t.p != NULL ? t.p : "", t.len, max, oneline);
		buf_free(&t);
		return;
	}
	keep = utf8_cut(s, n, max);
	for (i = 0; i < keep; i += k) {
		k = utf8_char(s + i, keep - i);
		if (oneline && ((unsigned char)s[i] < 0x20 || s[i] == 0x7F))
			buf_putc(b, ' ');
		else
			buf_put(b, s + i, k);
	}
	if (keep < n)
		buf_puts(b, UTF8_CUT);
}

static bool
blank(const char *s, size_t n)
{
	struct jval v = { .type = J_STRING, .s = s, .len = n };

	return json_blank(&v);
}

/* The member's value when the object has it exactly once. */
static const struct jval *
member(const struct jval *o, const char *name)
{
	const struct jval	*found = NULL;
	size_t			 i, len = strlen(name);

	if (o == NULL || o->type != J_OBJECT)
		return NULL;
	for (i = 0; i < o->n; i++) {
		if (o->members[i].namelen != len ||
		    memcmp(o->members[i].name, name, len) != 0)
			continue;
		if (found != NULL)
			return NULL;	/* twice: the editor may read the other */
		found = o->members[i].value;
	}
	return found;
}

static const struct jval *
string_member(const struct jval *o, const char *name)
{
	const struct jval *v = member(o, name);

	return v != NULL && v->type == J_STRING ? v : NULL;
}

static bool
string_is(const struct jval *v, const char *s)
{
	return v != NULL && v->type == J_STRING && v->len == strlen(s) &&
	    memcmp(v->s, s, v->len) == 0;
}

static bool
fits_choice_id(const char *s, size_t n)
{
	size_t i;

	if (n < 1 || n > 64)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* ---- choices ---- */

static bool
choice_taken(const struct acp_ask *a, size_t upto, const char *id)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (strcmp(a->choice[i], id) == 0)
			return true;
	return false;
}

/*
 * Gives choice i its id: the value itself when it fits and no earlier
 * choice has it, else opt-N for the first N no choice of the request
 * uses (raw holds every value, so that a mapped id never shadows one).
 */
static bool
assign_choice(struct acp_ask *a, size_t i, const struct jval *const *raw,
    size_t n)
{
	const struct jval	*v = raw[i];
	size_t			 k, j;

	if (fits_choice_id(v->s, v->len)) {
		memcpy(a->choice[i], v->s, v->len);
		a->choice[i][v->len] = '\0';
		if (!choice_taken(a, i, a->choice[i]))
			goto value;
		return false;	/* the same optionId twice: ambiguous */
	}
	for (k = i + 1; k < 1000; k++) {
		bool used = false;

		(void)snprintf(a->choice[i], ACP_CHOICE_ID, "opt-%zu", k);
		for (j = 0; j < n && !used; j++)
			used = raw[j]->len == strlen(a->choice[i]) &&
			    memcmp(raw[j]->s, a->choice[i], raw[j]->len) == 0;
		if (!used && !choice_taken(a, i, a->choice[i]))
			goto value;
	}
	return false;
value:
	a->off[i] = a->values.len;
	buf_json_str(&a->values, v->s, v->len);
	a->len[i] = a->values.len - a->off[i];
	return true;
}

static void
put_choice(struct buf *req, const struct acp_ask *a, size_t i,
    const char *label, size_t llen, const char *detail, size_t dlen,
    const char *fallback)
{
	struct buf t = { 0 };

	if (i > 0)
		buf_putc(req, ',');
	buf_puts(req, "{\"id\":");
	buf_json_cstr(req, a->choice[i]);
	buf_puts(req, ",\"label\":");
	if (label == NULL || blank(label, llen))
		buf_puts(&t, fallback);
	else
		acp_clip(&t, label, llen, LABEL_MAX, true);
	buf_json_str(req, t.p != NULL ? t.p : "", t.len);
	if (detail != NULL && !blank(detail, dlen)) {
		t.len = 0;
		acp_clip(&t, detail, dlen, 500, true);
		buf_puts(req, ",\"detail\":");
		buf_json_str(req, t.p, t.len);
	}
	buf_putc(req, '}');
	buf_free(&t);
}

/* ---- what the agent wants, in words ---- */

/* Up to EXCERPT_LINES lines of s, each after mark, each cut. */
static void
excerpt(struct buf *m, const char *mark, const char *s, size_t n)
{
	size_t	 lines = 0;
	const char *p = s, *end = s + n;

	while (p < end && lines < EXCERPT_LINES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl != NULL ? nl : end;

		buf_puts(m, mark);
		acp_clip(m, p, (size_t)(le - p), LINE_MAX_CP, true);
		buf_putc(m, '\n');
		lines++;
		p = nl != NULL ? nl + 1 : end;
	}
	if (p < end)
		buf_printf(m, "%s\xE2\x80\xA6\n", mark);
}

static size_t
count_lines(const char *s, size_t n)
{
	size_t i, c = n > 0;

	for (i = 0; i + 1 < n; i++)
		if (s[i] == '\n')
			c++;
	return c;
}

static const char *
kind_verb(const struct jval *kind)
{
	static const struct { const char *kind, *verb; } verbs[] = {
		{ "execute", "run a command" },
		{ "edit", "edit a file" },
		{ "delete", "delete a file" },
		{ "move", "move a file" },
		{ "read", "read a file" },
		{ "search", "search" },
		{ "fetch", "fetch from the network" },
		{ "think", "think" },
		{ "switch_mode", "switch its mode" },
	};
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (string_is(kind, verbs[i].kind))
			return verbs[i].verb;
	return "use a tool";
}

/* The command of a tool call's rawInput: a string, or an array of them. */
static void
command_line(struct buf *m, const struct jval *raw)
{
	const struct jval	*c = member(raw, "command");
	struct buf		 t = { 0 };
	size_t			 i;

	if (c == NULL)
		return;
	if (c->type == J_STRING && !blank(c->s, c->len)) {
		buf_put(&t, c->s, c->len);
	} else if (c->type == J_ARRAY && c->n > 0) {
		for (i = 0; i < c->n; i++) {
			if (c->items[i]->type != J_STRING)
				goto out;
			if (i > 0)
				buf_putc(&t, ' ');
			buf_put(&t, c->items[i]->s, c->items[i]->len);
		}
	} else {
		return;
	}
	buf_puts(m, "$ ");
	acp_clip(m, t.p, t.len, 1000, false);
	buf_putc(m, '\n');
out:
	buf_free(&t);
}

static void
describe_call(struct buf *m, const struct jval *call, bool *said)
{
	const struct jval	*raw = member(call, "rawInput");
	const struct jval	*locs = member(call, "locations");
	const struct jval	*content = member(call, "content");
	const struct jval	*v;
	size_t			 i, shown;
	size_t			 before = m->len;

	command_line(m, raw);
	if ((v = string_member(raw, "description")) != NULL &&
	    !blank(v->s, v->len)) {
		acp_clip(m, v->s, v->len, 500, false);
		buf_putc(m, '\n');
	}
	if (locs != NULL && locs->type == J_ARRAY && locs->n > 0) {
		buf_puts(m, "in ");
		for (i = shown = 0; i < locs->n && shown < LOCATIONS_MAX; i++) {
			const struct jval *path = string_member(locs->items[i],
			    "path");
			const struct jval *line = member(locs->items[i], "line");

			if (path == NULL)
				continue;
			if (shown++ > 0)
				buf_puts(m, ", ");
			acp_clip(m, path->s, path->len, 300, true);
			if (line != NULL && line->type == J_NUMBER &&
			    line->integer && line->len < 12)
				buf_printf(m, ":%.*s", (int)line->len, line->s);
		}
		if (locs->n > shown)
			buf_printf(m, " and %zu more", locs->n - shown);
		buf_putc(m, '\n');
	}
	if (content != NULL && content->type == J_ARRAY) {
		for (i = 0; i < content->n; i++) {
			const struct jval *c = content->items[i];
			const struct jval *t = member(c, "type");

			if (string_is(t, "diff")) {
				const struct jval *path = string_member(c, "path");
				const struct jval *old = string_member(c, "oldText");
				const struct jval *new = string_member(c, "newText");

				if (path == NULL || new == NULL)
					continue;
				buf_puts(m, old != NULL ? "edit " : "new file ");
				acp_clip(m, path->s, path->len, 300, true);
				if (old != NULL)
					buf_printf(m, ": replace %zu line(s) with %zu\n",
					    count_lines(old->s, old->len),
					    count_lines(new->s, new->len));
				else
					buf_printf(m, ": %zu line(s)\n",
					    count_lines(new->s, new->len));
				if (old != NULL)
					excerpt(m, "- ", old->s, old->len);
				excerpt(m, "+ ", new->s, new->len);
			} else if (string_is(t, "content")) {
				const struct jval *b = member(c, "content");
				const struct jval *text = string_member(b, "text");

				const struct jval *desc = string_member(raw,
				    "description");

				/* the description again: said once */
				if (desc != NULL && text != NULL &&
				    desc->len == text->len &&
				    memcmp(desc->s, text->s, text->len) == 0)
					continue;
				if (string_is(member(b, "type"), "text") &&
				    text != NULL && !blank(text->s, text->len))
					excerpt(m, "", text->s, text->len);
			}
		}
	}
	/* Nothing above said it: the tool's input as the agent gave it. */
	if (m->len == before && raw != NULL && raw->type == J_OBJECT &&
	    raw->n > 0) {
		acp_clip(m, raw->raw, raw->rawlen, 1000, false);
		buf_putc(m, '\n');
	}
	*said = m->len > before;
}

/* The message, cut to ARC's bound, as a JSON string. */
static void
put_message(struct buf *req, struct buf *m, const char *fallback)
{
	struct buf t = { 0 };

	while (m->len > 0 && m->p[m->len - 1] == '\n')
		m->len--;
	if (m->len == 0 || blank(m->p, m->len)) {
		m->len = 0;
		buf_puts(m, fallback);
	}
	acp_clip(&t, m->p, m->len, MESSAGE_MAX, false);
	buf_puts(req, ",\"message\":");
	buf_json_str(req, t.p, t.len);
	buf_free(&t);
}

static void
put_title(struct buf *req, const char *s, size_t n)
{
	struct buf t = { 0 };

	acp_clip(&t, s, n, TITLE_MAX, true);
	buf_puts(req, ",\"title\":");
	buf_json_str(req, t.p != NULL ? t.p : "", t.len);
	buf_free(&t);
}

bool
acp_permission(const struct jval *params, const struct acp_who *who,
    struct buf *req, struct acp_ask *a, const char **why)
{
	const struct jval	*call = member(params, "toolCall");
	const struct jval	*opts = member(params, "options");
	const struct jval	*kind, *title;
	const struct jval	*ids[ACP_CHOICES_MAX];
	struct buf		 t = { 0 }, m = { 0 };
	bool			 high, said;
	size_t			 i;

	memset(a, 0, sizeof(*a));
	a->kind = ACP_PERMISSION;
	*why = NULL;
	if (call == NULL || call->type != J_OBJECT || opts == NULL ||
	    opts->type != J_ARRAY) {
		*why = "it has no toolCall or options";
		return false;
	}
	if (opts->n < 2 || opts->n > ACP_CHOICES_MAX) {
		*why = "ARC offers 2 to 12 choices";
		return false;
	}
	for (i = 0; i < opts->n; i++) {
		ids[i] = string_member(opts->items[i], "optionId");
		if (ids[i] == NULL || string_member(opts->items[i], "name") ==
		    NULL) {
			*why = "an option has no optionId or name";
			return false;
		}
	}
	a->n = opts->n;
	for (i = 0; i < a->n; i++)
		if (!assign_choice(a, i, ids, a->n)) {
			*why = "two options have one optionId";
			acp_ask_free(a);
			return false;
		}
	kind = member(call, "kind");
	title = string_member(call, "title");
	high = string_is(kind, "execute") || string_is(kind, "delete") ||
	    string_is(kind, "edit");

	/* generic: it leaves under title-only; the message names the call */
	buf_printf(&t, "Permission to %s", kind_verb(kind));
	buf_puts(req, "\"kind\":\"permission\"");
	put_title(req, t.p, t.len);
	if (title != NULL && !blank(title->s, title->len)) {
		acp_clip(&m, title->s, title->len, 1000, false);
		buf_putc(&m, '\n');
	}
	describe_call(&m, call, &said);
	t.len = 0;
	buf_printf(&t, "%s asks for permission", who->name);
	put_message(req, &m, t.p);
	buf_printf(req, ",\"priority\":\"%s\"", high ? "high" : "normal");
	buf_puts(req, ",\"response\":{\"kind\":\"permission\",\"choices\":[");
	for (i = 0; i < a->n; i++) {
		const struct jval *name = string_member(opts->items[i], "name");
		const struct jval *ok = string_member(opts->items[i], "kind");
		const char *detail = NULL;

		if (string_is(ok, "allow_once"))
			detail = "allow this once";
		else if (string_is(ok, "allow_always"))
			detail = "allow from now on";
		else if (string_is(ok, "reject_once"))
			detail = "reject this once";
		else if (string_is(ok, "reject_always"))
			detail = "reject from now on";
		put_choice(req, a, i, name->s, name->len, detail,
		    detail != NULL ? strlen(detail) : 0, "Option");
	}
	buf_putc(req, ']');
	buf_free(&t);
	buf_free(&m);
	return true;
}

/* ---- elicitation/create ---- */

bool
acp_elicitation(const struct jval *params, const struct acp_who *who,
    struct buf *req, struct acp_ask *a, const char **why)
{
	const struct jval	*schema = member(params, "requestedSchema");
	const struct jval	*props = member(schema, "properties");
	const struct jval	*msg = string_member(params, "message");
	const struct jval	*f, *en, *one, *ml, *label;
	const struct jval	*ids[ACP_CHOICES_MAX];
	struct buf		 t = { 0 }, m = { 0 };
	size_t			 i;

	memset(a, 0, sizeof(*a));
	*why = NULL;
	if (!string_is(member(params, "mode"), "form")) {
		*why = "only a form is asked through arc";
		return false;
	}
	if (props == NULL || props->type != J_OBJECT || props->n != 1 ||
	    props->members[0].value->type != J_OBJECT) {
		*why = "only a form of one field is asked through arc";
		return false;
	}
	f = props->members[0].value;
	if (!string_is(member(f, "type"), "string")) {
		*why = "only a string or single-select field is asked through arc";
		return false;
	}
	en = member(f, "enum");
	one = member(f, "oneOf");
	if (en != NULL && en->type == J_NULL)
		en = NULL;
	if (one != NULL && one->type == J_NULL)
		one = NULL;
	buf_json_str(&a->field, props->members[0].name,
	    props->members[0].namelen);
	label = string_member(f, "title");
	if (label == NULL || blank(label->s, label->len))
		label = string_member(f, "description");

	if (en == NULL && one == NULL) {
		const struct jval *fmt = member(f, "format");
		const struct jval *pat = member(f, "pattern");
		const struct jval *min = member(f, "minLength");

		if ((fmt != NULL && fmt->type != J_NULL) ||
		    (pat != NULL && pat->type != J_NULL) ||
		    (min != NULL && min->type == J_NUMBER &&
		    !(min->len == 1 && min->s[0] == '0'))) {
			*why = "a field with a format, pattern or minimum is left "
			    "to the editor";
			acp_ask_free(a);
			return false;
		}
		a->kind = ACP_TEXT;
		a->text_max = 500;
		ml = member(f, "maxLength");
		if (ml != NULL && ml->type == J_NUMBER && ml->integer) {
			const char *errstr;
			long long v;
			char num[24];

			if (ml->len < sizeof(num)) {
				memcpy(num, ml->s, ml->len);
				num[ml->len] = '\0';
				v = strtonum(num, 0, INT64_MAX, &errstr);
				if (errstr == NULL)
					a->text_max = v < 1 ? 1 : v > 2000 ? 2000 :
					    (int)v;
				else
					a->text_max = 2000;
			}
		}
	} else {
		const struct jval *list = en != NULL ? en : one;

		if (en != NULL && one != NULL) {
			*why = "a field with both enum and oneOf is left to the "
			    "editor";
			acp_ask_free(a);
			return false;
		}
		if (list->type != J_ARRAY || list->n < 2 ||
		    list->n > ACP_CHOICES_MAX) {
			*why = "ARC offers 2 to 12 choices";
			acp_ask_free(a);
			return false;
		}
		a->kind = ACP_CHOICE;
		a->n = list->n;
		for (i = 0; i < list->n; i++) {
			ids[i] = en != NULL ? list->items[i] :
			    member(list->items[i], "const");
			if (ids[i] == NULL || ids[i]->type != J_STRING) {
				*why = "a choice is not a string";
				acp_ask_free(a);
				return false;
			}
		}
		for (i = 0; i < a->n; i++)
			if (!assign_choice(a, i, ids, a->n)) {
				*why = "two choices are one value";
				acp_ask_free(a);
				return false;
			}
	}

	buf_puts(req, "\"kind\":\"question\"");
	/* generic, as a permission's: the message holds the label */
	put_title(req, "A question for you", 18);
	if (msg != NULL)
		buf_put(&m, msg->s, msg->len);
	if (label != NULL && !blank(label->s, label->len)) {
		buf_puts(&m, "\n\n");
		buf_put(&m, label->s, label->len);
	}
	t.len = 0;
	buf_printf(&t, "%s asks for input", who->name);
	put_message(req, &m, t.p);
	if (a->kind == ACP_TEXT) {
		buf_printf(req, ",\"response\":{\"kind\":\"text\","
		    "\"text_max_length\":%d", a->text_max);
	} else {
		buf_puts(req, ",\"response\":{\"kind\":\"single_choice\","
		    "\"choices\":[");
		for (i = 0; i < a->n; i++) {
			const struct jval *o = one != NULL ? one->items[i] : NULL;
			const struct jval *tl = string_member(o, "title");
			const struct jval *d = string_member(o, "description");

			if (tl == NULL)
				tl = ids[i];
			put_choice(req, a, i, tl->s, tl->len,
			    d != NULL ? d->s : NULL, d != NULL ? d->len : 0,
			    "Choice");
		}
		buf_putc(req, ']');
	}
	buf_free(&t);
	buf_free(&m);
	return true;
}

/* ---- the answer, as the agent takes it ---- */

bool
acp_reply(const struct acp_ask *a, const char *choice, size_t clen,
    const char *text, size_t tlen, struct buf *out)
{
	size_t i;

	if (a->kind == ACP_TEXT) {
		if (text == NULL || utf8_chars(text, tlen) > (size_t)a->text_max)
			return false;
		buf_puts(out, "{\"action\":\"accept\",\"content\":{");
		buf_put(out, a->field.p, a->field.len);
		buf_putc(out, ':');
		buf_json_str(out, text, tlen);
		buf_puts(out, "}}");
		return true;
	}
	if (choice == NULL)
		return false;
	for (i = 0; i < a->n; i++) {
		if (strlen(a->choice[i]) != clen ||
		    memcmp(a->choice[i], choice, clen) != 0)
			continue;
		if (a->kind == ACP_PERMISSION) {
			buf_puts(out, "{\"outcome\":{\"outcome\":\"selected\","
			    "\"optionId\":");
			buf_put(out, a->values.p + a->off[i], a->len[i]);
			buf_puts(out, "}}");
		} else {
			buf_puts(out, "{\"action\":\"accept\",\"content\":{");
			buf_put(out, a->field.p, a->field.len);
			buf_putc(out, ':');
			buf_put(out, a->values.p + a->off[i], a->len[i]);
			buf_puts(out, "}}");
		}
		return true;
	}
	return false;
}

void
acp_ask_free(struct acp_ask *a)
{
	buf_free(&a->values);
	buf_free(&a->field);
}
