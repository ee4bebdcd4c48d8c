/*
 * libFuzzer target: any bytes as a hook payload, for each host (the first
 * byte picks it), through the mapping arc-hook(1) runs: the payload read
 * strictly, its plan, every event the plan would apply, and, for a
 * question, the decision for an answer of its first choice.  No crash; no
 * event that arc-validate refuses; no key beyond ARC's 100 characters of
 * [A-Za-z0-9._:-]; no question opened for a payload that is not a
 * request (PermissionRequest, Elicitation); a decision is one JSON object;
 * and a permission question is the whole call or none (arc-hooks(7), "The
 * whole action"): its message shows every member of tool_input.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "../arc.h"
#include "../arcproblem.h"
#include "../arcvalidate.h"
#include "../archook.h"
#include "../archost-claude.h"
#include "../archost-gemini.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
valid(struct arena *a, const struct buf *ev)
{
	struct problems	 pr = { 0 };
	struct jval	*root;

	if (!arc_validate_line(a, ev->p, ev->len, &pr, &root))
		errx(1, "an event arc-validate refuses: %s at %s",
		    pr.list[0].message, pr.list[0].path);
	problems_clear(&pr);
}

static void
plain_key(const char *k)
{
	size_t n = strlen(k);

	if (n < 1 || n > 100 || strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789._:-") != n)
		errx(1, "a key beyond ARC's 100 plain characters");
}

static bool
has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

/* s as one line, its blanks at both ends dropped. */
static const char *
flat(struct arena *a, const char *s)
{
	const char	*l = hook_line_of(a, s);
	char		*t;
	size_t		 n;

	l += strspn(l, " ");
	t = arena_alloc(a, strlen(l) + 1);
	memcpy(t, l, strlen(l) + 1);
	for (n = strlen(t); n > 0 && t[n - 1] == ' '; n--)
		t[n - 1] = '\0';
	return t;
}

/*
 * A member is shown when its value's JSON (either order) is in the
 * message, or every line of its text is, read as one line (the agent's
 * words are flattened so).  replace_all is shown in words, or not when
 * false, its default.
 */
static void
whole(struct arena *a, const struct jval *in, const char *msg)
{
	const char	*fm = flat(a, msg);
	struct buf	 j = { 0 }, k = { 0 };
	size_t		 i;

	if (in == NULL || in->type != J_OBJECT)
		return;
	for (i = 0; i < in->n; i++) {
		const struct jmember *mb = &in->members[i];
		const struct jval *v = mb->value;
		bool shown = true;
		j.len = k.len = 0;
		if (mb->namelen == 11 && memcmp(mb->name, "replace_all", 11) ==
		    0)
			continue;
		json_write(&j, v, JSON_JQ);
		json_write(&k, v, JSON_JQ | JSON_SORTED);
		if (has(msg, j.p) || has(msg, k.p))
			continue;
		if (v->type == J_STRING) {
			const char *t = hook_text(a, v), *nl;
			while (shown) {
				nl = strchr(t, '\n');
				shown = has(fm, flat(a, nl != NULL ?
				    hook_printf(a, "%.*s", (int)(nl - t), t) :
				    t));
				if (nl == NULL)
					break;
				t = nl + 1;
			}
		} else
			shown = false;
		if (!shown)
			errx(1, "a permission question that does not show "
			    "the member %.*s of tool_input", (int)mb->namelen,
			    mb->name);
	}
	buf_free(&j);
	buf_free(&k);
}

/* The answer arc-wait would hand back: the first choice, or a text. */
static const struct jval *
answer_to(struct arena *a, const struct hook_req *r)
{
	struct buf		 b = { 0 };
	struct jparse_error	 e;
	const struct jval	*v;
	char			*text;

	buf_puts(&b, "{\"id\":\"int_0\",\"status\":\"answered\",\"response\":{");
	if (r->nchoices > 0) {
		buf_puts(&b, "\"choice_id\":");
		buf_json_cstr(&b, r->choice[0].id);
	} else
		buf_puts(&b, "\"text\":\"42\"");
	buf_puts(&b, ",\"source\":\"phone\"}}");
	text = arena_alloc(a, b.len + 1);
	memcpy(text, b.p, b.len + 1);
	v = json_parse(a, text, b.len, &e);
	buf_free(&b);
	if (v == NULL)
		errx(1, "the answer does not parse");
	return v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const client[] = { "claude-code", "codex",
	    "gemini-cli" };
	static const char *const name[] = { "Claude Code", "Codex",
	    "Gemini CLI" };
	struct arena		 a = { 0 }, v = { 0 };
	struct hook_who		 w = { 0 };
	struct hook_plan	 pl;
	struct buf		 ev = { 0 };
	const struct jval	*p, *ans[HOOK_REQS_MAX];
	const char		*event, *why;
	int			 h;
	size_t			 i;
	bool			 ok, request;

	if (size < 1)
		return 0;
	h = data[0] % 3;
	w.client = client[h];
	w.name = name[h];
	if (data[0] & 0x80) {	/* inside tmux, a hint arc checks again */
		w.tmux_pane = "%7";
		w.tmux_socket = "/tmp/tmux-1000/default";
	}
	if ((p = hook_payload(&a, (const char *)data + 1, size - 1, &why)) ==
	    NULL)
		goto done;
	ok = h < 2 ? claude_plan(&a, p, &w, &pl) : gemini_plan(&a, p, &w,
	    &pl);
	if (!ok)
		goto done;
	event = hook_text(&a, json_get(p, "hook_event_name"));
	request = strcmp(event, "PermissionRequest") == 0 ||
	    strcmp(event, "Elicitation") == 0;
	for (i = 0; i < pl.nreq; i++) {
		const struct hook_req *r = &pl.req[i];
		bool asks = r->nchoices > 0 || r->text_max >= 0;
		if (asks && (!request || pl.wait == WAIT_NONE))
			errx(1, "a question for a payload that asks nothing");
		if (pl.wait == WAIT_PERMISSION)
			whole(&a, json_get(p, "tool_input"), r->message);
		plain_key(r->key);
		ev.len = 0;
		hook_event(&ev, &w, r, pl.wait != WAIT_NONE ?
		    "2099-01-01T00:00:00Z" : NULL, NULL);
		arena_reset(&v);
		valid(&v, &ev);
		ans[i] = answer_to(&a, r);
	}
	for (i = 0; i < pl.nresolve; i++) {
		plain_key(pl.resolve[i]);
		ev.len = 0;
		hook_resolved(&ev, &w, pl.resolve[i], "not_needed");
		arena_reset(&v);
		valid(&v, &ev);
	}
	if (h < 2 && pl.wait != WAIT_NONE && pl.nreq > 0) {
		ev.len = 0;
		if (claude_reply(&ev, &a, p, &w, &pl, ans)) {
			struct jparse_error e;
			const struct jval *r;
			arena_reset(&v);
			if ((r = json_parse(&v, ev.p, ev.len, &e)) == NULL ||
			    r->type != J_OBJECT)
				errx(1, "a decision that is not one JSON object");
		}
	}
done:
	buf_free(&ev);
	arena_free(&a);
	arena_free(&v);
	return 0;
}
