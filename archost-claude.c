/*
 * Claude Code's hooks, and Codex's, as ARC requests: what each payload
 * opens or closes, and the decision handed back, mapped as the shell
 * adapter mapped them (arc-hooks(7) lists them event by event).  Where
 * jq would have stopped on a value of the wrong type, the plan fails, and
 * the host asks in its own dialog.
 */
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "archook.h"
#include "archost-claude.h"

struct map {
	struct arena		*a;
	const struct jval	*p;	/* the payload */
	struct hook_who		*w;
	bool			 claude;	/* not Codex */
	bool			 bad;	/* a value jq could not have taken */
	const char		*call, *offer, *server, *elicitation;
	const char		*ntype, *mode;
};

/* .name of v: null when v is null or has none; bad when v is no object. */
static const struct jval *
get(struct map *m, const struct jval *v, const char *name)
{
	if (v == NULL || v->type == J_NULL)
		return NULL;
	if (v->type != J_OBJECT) {
		m->bad = true;
		return NULL;
	}
	return json_get(v, name);
}

static const char *
text(struct map *m, const struct jval *v)
{
	return hook_text(m->a, v);
}

static const char *
line(struct map *m, const struct jval *v)
{
	return hook_line(m->a, v);
}

/* ---- the keys' parts ---- */

/* The call as PermissionRequest and what follows it see it. */
static const char *
call_of(struct map *m)
{
	static const char *const answered[] = { "answers", "annotations",
	    "metadata", NULL };
	const struct jval	*in = json_get(m->p, "tool_input");
	const struct jval	*name = json_get(m->p, "tool_name");
	struct buf		 b = { 0 };
	struct jval		 o;
	const char		*s;

	buf_puts(&b, "{\"tool_input\":");
	if (in != NULL && in->type == J_OBJECT) {
		o = hook_without(m->a, in, answered);
		json_write(&b, &o, JSON_JQ | JSON_SORTED);
	} else
		json_write(&b, in, JSON_JQ | JSON_SORTED);
	buf_puts(&b, ",\"tool_name\":");
	json_write(&b, name, JSON_JQ | JSON_SORTED);
	buf_putc(&b, '}');
	s = hook_sha16(m->a, b.p);
	buf_free(&b);
	return s;
}

/* The elicitation's own id, or one made of what it asks. */
static const char *
elicit_of(struct map *m)
{
	struct buf	 b = { 0 };
	const char	*s, *names[] = { "mcp_server_name", "message",
			    "requested_schema" };
	size_t		 i;

	buf_putc(&b, '{');
	for (i = 0; i < 3; i++) {
		const struct jval *v = json_get(m->p, names[i]);
		buf_printf(&b, "%s\"%s\":", i ? "," : "", names[i]);
		json_write(&b, v, JSON_JQ | JSON_SORTED);
	}
	buf_putc(&b, '}');
	s = hook_sha16(m->a, b.p);
	buf_free(&b);
	return s;
}

/* ---- texts ---- */

/*
 * What runs is what is shown (arc-hooks(7), "The whole action"): a
 * permission question's text holds every input of the call, or arc does
 * not ask it.  Its message is, in this order, the agent's words about the
 * call on a line of their own (its description, flattened to one line),
 * every input the mapping does not render as one line of JSON ("Also:"),
 * then the action itself, rendered whole: a command last, so that every
 * line from "$ " to the end is the command (the view marks each further
 * line "> "), and nothing after it can pass for something else.
 */
#define WHOLE_MAX	4000	/* ARC's message: characters */
#define DETAIL_MAX	500	/* ARC's choice detail: characters */

/* Lines as jq split them: one "\n" at the end dropped; "" has none. */
static size_t
count_lines(const char *s)
{
	size_t n = strlen(s), k = 0, i;

	if (n > 0 && s[n - 1] == '\n')
		n--;
	if (n == 0)
		return 0;
	for (i = 0, k = 1; i < n; i++)
		k += s[i] == '\n';
	return k;
}

/* Every line of s, each begun with mark, each on a line of its own. */
static void
every_line(struct buf *b, const char *s, const char *mark)
{
	size_t	 n = strlen(s), len;
	const char *p = s, *nl;

	if (n > 0 && s[n - 1] == '\n')
		n--;
	while (n > 0 && p <= s + n) {
		nl = memchr(p, '\n', (size_t)(s + n - p));
		len = (size_t)((nl != NULL ? nl : s + n) - p);
		buf_putc(b, '\n');
		buf_puts(b, mark);
		buf_put(b, p, len);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

static const char *
where(struct map *m, const struct jval *sug)
{
	static const char *const w[][2] = {
		{ "userSettings", "for you, everywhere" },
		{ "projectSettings", "in this project" },
		{ "localSettings", "in this project, for you" },
		{ "session", "for this session" },
		{ "cliArg", "for this run" },
	};
	const struct jval	*d = get(m, sug, "destination");
	const char		*s = hook_truthy(d) ? text(m, d) : "";
	size_t			 i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (strcmp(s, w[i][0]) == 0)
			return w[i][1];
	return hook_printf(m->a, "in %s", s);
}

/* Whether o's members are all among names (and o an object). */
static bool
only(const struct jval *o, const char *const *names)
{
	size_t i;

	if (o == NULL || o->type != J_OBJECT)
		return false;
	for (i = 0; i < o->n; i++)
		if (!hook_named_one_of(&o->members[i], names))
			return false;
	return true;
}

static bool
is_text(const struct jval *v)
{
	return v != NULL && v->type == J_STRING;
}

/* A rule as Claude Code writes one: Tool(content); false: not that shape. */
static bool
rule_text(struct buf *b, const struct jval *r)
{
	static const char *const names[] = { "toolName", "ruleContent", NULL };
	const struct jval *t = json_get(r, "toolName");
	const struct jval *c = json_get(r, "ruleContent");

	if (!only(r, names) || !is_text(t) || (c != NULL && !is_text(c)))
		return false;
	buf_put(b, t->s, t->len);
	if (c != NULL && c->len > 0) {
		buf_putc(b, '(');
		buf_put(b, c->s, c->len);
		buf_putc(b, ')');
	}
	return true;
}

/* Each string of an array, joined; false: not an array of strings. */
static bool
strings(struct buf *b, const struct jval *arr)
{
	size_t i;

	if (arr == NULL || arr->type != J_ARRAY || arr->n == 0)
		return false;
	for (i = 0; i < arr->n; i++) {
		if (!is_text(arr->items[i]))
			return false;
		buf_puts(b, i ? ", " : "");
		buf_put(b, arr->items[i]->s, arr->items[i]->len);
	}
	return true;
}

/*
 * What one suggestion grants, whole: every member it has is in the words,
 * or the suggestion is shown as its JSON.  Its words name the rules, the
 * behaviour they take, the mode or the folders, and where it is saved.
 */
static void
suggestion(struct map *m, struct buf *b, const struct jval *s)
{
	static const char *const rules_m[] = { "type", "rules", "behavior",
	    "destination", NULL };
	static const char *const mode_m[] = { "type", "mode", "destination",
	    NULL };
	static const char *const dirs_m[] = { "type", "directories",
	    "destination", NULL };
	const struct jval	*type = json_get(s, "type"), *v, *bh;
	struct buf		 w = { 0 };
	size_t			 i;
	bool			 ok = false;

	if (json_is(type, "addRules") || json_is(type, "replaceRules") ||
	    json_is(type, "removeRules")) {
		v = json_get(s, "rules");
		bh = json_get(s, "behavior");
		ok = only(s, rules_m) && is_text(bh) && v != NULL &&
		    v->type == J_ARRAY && v->n > 0;
		if (ok)
			buf_printf(&w, "%s %s rules ", json_is(type,
			    "addRules") ? "add the" : json_is(type,
			    "removeRules") ? "remove the" : "replace every",
			    text(m, bh));
		for (i = 0; ok && i < v->n; i++) {
			buf_puts(&w, i ? ", " : "");
			ok = rule_text(&w, v->items[i]);
		}
	} else if (json_is(type, "setMode")) {
		v = json_get(s, "mode");
		ok = only(s, mode_m) && is_text(v);
		if (ok)
			buf_printf(&w, "switch to %s mode", text(m, v));
	} else if (json_is(type, "addDirectories") ||
	    json_is(type, "removeDirectories")) {
		ok = only(s, dirs_m);
		buf_puts(&w, json_is(type, "addDirectories") ?
		    "allow the folders " : "remove the folders ");
		ok = ok && strings(&w, json_get(s, "directories"));
	}
	v = json_get(s, "destination");
	if (ok && v != NULL && !is_text(v))
		ok = false;
	if (ok && v != NULL)
		buf_printf(&w, " %s", where(m, s));
	if (ok && !hook_has_control(w.p))
		buf_put(b, w.p, w.len);
	else
		json_write(b, s, JSON_JQ | JSON_SORTED);
	buf_free(&w);
}


/* ---- the requests ---- */

/* The action of a call, whole, into b; its title. */
static const char *
action(struct map *m, struct buf *b, const char *tool, const struct jval *in,
    const struct jval *o)
{
	static const char *const bash[] = { "command", "description", NULL };
	static const char *const edit[] = { "file_path", "old_string",
	    "new_string", "replace_all", NULL };
	static const char *const write[] = { "file_path", "content", NULL };
	static const char *const notebook[] = { "notebook_path", "edit_mode",
	    "cell_id", "cell_type", "new_source", NULL };
	static const char *const fetch[] = { "url", "prompt", NULL };
	static const char *const search[] = { "query", NULL };
	const struct jval	*srv = json_get(m->p, "mcp_server"), *v;
	const char		*s;

	if (strcmp(tool, "Bash") == 0) {
		s = text(m, json_get(o, "description"));
		if (!hook_blank(s))
			buf_printf(b, "The agent's description: %s\n",
			    hook_line_of(m->a, s));
		hook_also(m->a, b, o, bash);
		buf_printf(b, "$ %s", text(m, json_get(o, "command")));
		return "Permission to run a command";
	}
	if (strcmp(tool, "Edit") == 0) {
		const char *old = text(m, json_get(o, "old_string"));
		const char *new = text(m, json_get(o, "new_string"));
		hook_also(m->a, b, o, edit);
		buf_printf(b, "%s: replace %zu line(s) with %zu%s",
		    hook_shown(m->a, json_get(o, "file_path")), count_lines(old),
		    count_lines(new), (v = json_get(o, "replace_all")) != NULL &&
		    v->type == J_TRUE ? ", every occurrence" : "");
		every_line(b, old, "- ");
		every_line(b, new, "+ ");
		return "Permission to edit a file";
	}
	if (strcmp(tool, "Write") == 0) {
		const char *c = text(m, json_get(o, "content"));
		hook_also(m->a, b, o, write);
		buf_printf(b, "%s: %zu line(s), %zu character(s)",
		    hook_shown(m->a, json_get(o, "file_path")), count_lines(c),
		    hook_length(c));
		every_line(b, c, "+ ");
		return "Permission to write a file";
	}
	if (strcmp(tool, "NotebookEdit") == 0) {
		hook_also(m->a, b, o, notebook);
		v = json_get(o, "edit_mode");
		buf_printf(b, "%s: %s ", hook_shown(m->a, json_get(o,
		    "notebook_path")), hook_truthy(v) ? hook_shown(m->a, v) : "replace");
		v = json_get(o, "cell_id");
		buf_printf(b, "cell %s", hook_truthy(v) ? hook_shown(m->a, v) : "");
		if (hook_truthy(v = json_get(o, "cell_type")))
			buf_printf(b, " (%s)", hook_shown(m->a, v));
		every_line(b, text(m, json_get(o, "new_source")), "+ ");
		return "Permission to edit a notebook";
	}
	if (strcmp(tool, "WebFetch") == 0) {
		hook_also(m->a, b, o, fetch);
		buf_puts(b, hook_shown(m->a, json_get(o, "url")));
		s = text(m, json_get(o, "prompt"));
		if (!hook_blank(s))
			buf_printf(b, "\nWhat the agent asks of the page: %s",
			    hook_line_of(m->a, s));
		return "Permission to fetch a web page";
	}
	if (strcmp(tool, "WebSearch") == 0) {
		hook_also(m->a, b, o, search);
		buf_printf(b, "Search for: %s", hook_shown(m->a, json_get(o,
		    "query")));
		return "Permission to search the web";
	}
	if ((srv != NULL && srv->type == J_OBJECT) ||
	    strncmp(tool, "mcp__", 5) == 0) {
		const char *rest = strncmp(tool, "mcp__", 5) == 0 ? tool + 5 :
		    tool, *sep = strstr(rest, "__"), *server, *t, *src;
		v = get(m, srv, "name");
		if (hook_truthy(v))
			server = text(m, v);
		else if (*rest == '\0')
			server = "";
		else
			server = sep != NULL ? hook_printf(m->a, "%.*s",
			    (int)(sep - rest), rest) : rest;
		t = sep != NULL && sep[2] != '\0' ? sep + 2 : tool;
		src = text(m, get(m, srv, "source"));
		buf_printf(b, "MCP server %s", hook_line_of(m->a, server));
		if (*src != '\0')
			buf_printf(b, " (%s)", hook_line_of(m->a, src));
		buf_printf(b, ", tool %s, with:\n", hook_line_of(m->a, t));
		json_write(b, in, JSON_JQ);
		return "Permission to use an MCP tool";
	}
	buf_printf(b, "%s: ", hook_shown(m->a, json_get(m->p, "tool_name")));
	json_write(b, in, JSON_JQ);
	return "Permission to use a tool";
}

/* A permission request: the whole action, or nothing asked. */
static void
permission(struct map *m, struct hook_plan *pl)
{
	const struct jval	*s = json_get(m->p, "permission_suggestions");
	const struct jval	*in = json_get(m->p, "tool_input"), *o;
	const char		*name = m->w->name, *tool, *title;
	struct hook_req		*r = &pl->req[0];
	struct buf		 b = { 0 }, d = { 0 };
	struct jval		 empty = { 0 };
	size_t			 i, len;

	if (!hook_truthy(s))
		s = NULL;
	else if (s->type != J_ARRAY)
		return;	/* jq's arrays: nothing is asked */
	empty.type = J_OBJECT;
	if (!hook_truthy(in))
		in = &empty;
	o = in->type == J_OBJECT ? in : &empty;
	tool = text(m, json_get(m->p, "tool_name"));
	title = action(m, &b, tool, in, o);
	if ((len = hook_length(b.p ? b.p : "")) > WHOLE_MAX) {
		pl->refused = hook_printf(m->a, "the call is %zu characters "
		    "shown whole, more than a question holds (%d); nothing was "
		    "asked", len, WHOLE_MAX);
		goto done;
	}
	r->message = hook_blank(b.p ? b.p : "") ? hook_printf(m->a,
	    "%s asks for permission", name) : hook_printf(m->a, "%s", b.p);
	r->title = title;
	r->key = hook_printf(m->a, "%s:perm:%s:%s", m->w->prefix, m->call,
	    m->offer);
	r->kind = "permission";
	r->text_max = -1;
	hook_choice(r, "allow", "Allow", NULL);
	/* "always": offered only when every rule it grants is shown */
	for (i = 0; m->claude && s != NULL && i < s->n; i++) {
		buf_puts(&d, i ? "; " : "");
		suggestion(m, &d, s->items[i]);
	}
	if (d.len > 0 && hook_length(d.p) <= DETAIL_MAX)
		hook_choice(r, "always", "Always allow", hook_printf(m->a,
		    "%s", d.p));
	hook_choice(r, "deny", "Deny", NULL);
	if (m->claude)
		hook_choice(r, "stop", "Deny and stop", "the agent stops and "
		    "waits for you");
	pl->nreq = 1;
done:
	buf_free(&b);
	buf_free(&d);
}


static size_t
options_of(struct map *m, const struct jval *q)
{
	const struct jval *o = get(m, q, "options");

	if (!hook_truthy(o))
		return 0;
	if (o->type != J_ARRAY) {
		m->bad = true;
		return 0;
	}
	return o->n;
}

/* AskUserQuestion: one single_choice question per question asked. */
static void
ask_user(struct map *m, struct hook_plan *pl)
{
	const struct jval	*qs = get(m, json_get(m->p, "tool_input"),
				    "questions"), *q, *opts, *ov;
	struct hook_req		*r;
	const char		*hd, *qt;
	size_t			 i, k, n;

	if (!hook_truthy(qs))
		return;
	if (qs->type != J_ARRAY) {
		m->bad = true;
		return;
	}
	if (qs->n == 0 || qs->n > HOOK_REQS_MAX)
		return;
	for (i = 0; i < qs->n; i++) {
		q = qs->items[i];
		ov = get(m, q, "multiSelect");
		n = options_of(m, q);
		if ((ov != NULL && ov->type == J_TRUE) || n < 2 || n > 12)
			return;
	}
	for (i = 0; i < qs->n && !m->bad; i++) {
		q = qs->items[i];
		r = &pl->req[i];
		r->key = hook_printf(m->a, "%s:ask:%s:%zu", m->w->prefix,
		    m->call, i + 1);
		r->kind = "question";
		r->text_max = -1;
		r->title = "A question for you";
		hd = line(m, get(m, q, "header"));
		qt = hook_or_else(m->a, get(m, q, "question"), hook_printf(m->a,
		    "%s asks a question", m->w->name));
		r->message = hook_clip(m->a, hook_blank(hd) ? qt :
		    hook_printf(m->a, "%s: %s", hd, qt), 4000);
		opts = get(m, q, "options");
		for (k = 0; k < opts->n; k++) {
			const struct jval *o = opts->items[k], *dv;
			const char *label = hook_or_else(m->a, get(m, o,
			    "label"), hook_printf(m->a, "Option %zu", k + 1));
			dv = get(m, o, "description");
			hook_choice(r, hook_printf(m->a, "o%zu", k + 1),
			    hook_clip(m->a, hook_line_of(m->a, label), 200),
			    hook_blank(text(m, dv)) ? NULL : hook_clip(m->a,
			    line(m, dv), 500));
		}
	}
	pl->nreq = qs->n;
}

static bool
has(const struct jval *o, const char *name)
{
	return json_get(o, name) != NULL;
}

/* Elicitation: what ARC can ask; the rest stays with the client. */
static void
elicit(struct map *m, struct hook_plan *pl)
{
	const struct jval	*schema = json_get(m->p, "requested_schema");
	const struct jval	*f = get(m, schema, "properties"), *s, *v;
	struct hook_req		*r = &pl->req[0];
	double			 max;

	if (!hook_truthy(f))
		f = NULL;
	else if (f->type != J_OBJECT) {
		m->bad = true;
		return;
	}
	r->key = hook_printf(m->a, "%s:elicit:%s:%s", m->w->prefix, m->server,
	    m->elicitation);
	r->title = "An MCP server asks";
	r->message = hook_clip(m->a, hook_printf(m->a, "MCP server %s: %s",
	    line(m, json_get(m->p, "mcp_server_name")), hook_or_else(m->a,
	    json_get(m->p, "message"), "it asks for input")), 4000);
	r->kind = "question";
	r->text_max = -1;
	if (strcmp(m->mode, "url") == 0)
		return;
	if (f == NULL || f->n == 0) {
		hook_choice(r, "accept", "Accept", NULL);
		hook_choice(r, "decline", "Decline", NULL);
		hook_choice(r, "cancel", "Cancel", NULL);
		pl->nreq = 1;
		return;
	}
	s = f->members[0].value;
	if (f->n != 1 || s->type != J_OBJECT || !json_is(json_get(s, "type"),
	    "string") || has(s, "enum") || has(s, "oneOf") || has(s, "anyOf") ||
	    has(s, "format") || has(s, "pattern"))
		return;
	r->field = hook_printf(m->a, "%.*s", (int)f->members[0].namelen,
	    f->members[0].name);
	r->text_max = 500;
	if ((v = json_get(s, "maxLength")) != NULL && v->type == J_NUMBER) {
		max = strtod(v->s, NULL);	/* floor, then 1 to 2000 */
		r->text_max = max >= 2000 ? 2000 : max < 1 ? 1 : (long)max;
	}
	if (!hook_truthy(v = json_get(s, "title")) &&
	    !hook_truthy(v = json_get(s, "description")))
		v = NULL;
	r->message = hook_clip(m->a, hook_printf(m->a, "%s\n\n%s", r->message,
	    v != NULL ? line(m, v) : hook_line_of(m->a, r->field)), 4000);
	pl->nreq = 1;
}

/*
 * Notices for Notification, by notification_type: kind, priority, title.
 * Titles are generic (no agent, path or URL: they leave under title-only);
 * the payload's own title and message are the notice's message.
 */
static const struct notice {
	const char	*type, *kind, *priority, *title;
} notices[] = {
	{ "permission_prompt", "blocked", "high", "Needs your permission" },
	{ "worker_permission_prompt", "blocked", "high",
	    "A worker needs permission" },
	{ "idle_prompt", "question", "normal", "Waiting for your input" },
	{ "auth_success", "information", "low", "Login succeeded" },
	{ "auth_storage_failure", "failure", "high", "Login needs attention" },
	{ "elicitation_dialog", "question", "high",
	    "An MCP server needs your input" },
	{ "elicitation_url_dialog", "question", "high",
	    "An MCP server asks you to open a link" },
	{ "elicitation_complete", "information", "low",
	    "An MCP server completed a request" },
	{ "elicitation_response", "information", "low",
	    "An MCP server got its answer" },
	{ "agent_needs_input", "question", "high",
	    "An agent needs your input" },
	{ "agent_completed", "completion", "normal", "An agent finished" },
	{ "push_notification", "information", "normal", "A message" },
	{ "computer_use_enter", "information", "low", "Using your computer" },
	{ "computer_use_exit", "information", "low",
	    "Done using your computer" },
	{ "quota_auto_resume_fired", "information", "normal",
	    "Resumed after a usage limit" },
	{ "quota_auto_resume_stale", "information", "low",
	    "Did not resume after a usage limit" },
	{ "quota_auto_resume_disabled", "information", "low",
	    "Will not resume after a usage limit" },
	{ "model_refusal_fallback", "information", "normal",
	    "Switched models" },
	{ "plugin_notification", "information", "normal", "A plugin says" },
};

static void
notification(struct map *m, struct hook_plan *pl)
{
	static const struct notice other = { NULL, "information", "normal",
	    "A notice" };
	const struct notice	*n = &other;
	struct hook_req		*r = &pl->req[0];
	const char		*t = text(m, json_get(m->p, "title")), *msg;
	size_t			 i;

	for (i = 0; i < sizeof(notices) / sizeof(notices[0]); i++)
		if (strcmp(m->ntype, notices[i].type) == 0)
			n = &notices[i];
	pl->unless_pending = strcmp(m->ntype, "permission_prompt") == 0 ||
	    strcmp(m->ntype, "elicitation_dialog") == 0;
	r->key = hook_printf(m->a, "%s:notice:%s", m->w->prefix, m->ntype);
	r->kind = n->kind;
	r->priority = n->priority;
	r->text_max = -1;
	r->title = n->title;
	msg = hook_or_else(m->a, json_get(m->p, "message"), n->title);
	r->message = hook_clip(m->a, hook_blank(t) ? msg : hook_printf(m->a,
	    "%s\n%s", hook_line_of(m->a, t), msg), 4000);
	pl->nreq = 1;
}

static void
stop(struct map *m, struct hook_plan *pl)
{
	const struct jval	*bg = json_get(m->p, "background_tasks");
	struct hook_req		*r = &pl->req[0];
	struct buf		 b = { 0 };
	double			 n = 0;

	if (hook_truthy(bg)) {
		if (bg->type == J_ARRAY || bg->type == J_OBJECT)
			n = (double)bg->n;
		else if (bg->type == J_STRING)
			n = (double)hook_length(text(m, bg));
		else if (bg->type == J_NUMBER)
			n = strtod(bg->s, NULL);	/* jq: its absolute value */
		else
			m->bad = true;	/* true has no length */
	}
	if (n < 0)
		n = -n;
	pl->sweep = true;
	r->key = hook_printf(m->a, "%s:stop", m->w->prefix);
	r->kind = "completion";
	r->text_max = -1;
	r->title = "Finished";
	buf_puts(&b, hook_clip(m->a, hook_or_else(m->a, json_get(m->p,
	    "last_assistant_message"), hook_printf(m->a, "%s finished and is "
	    "waiting for you.", m->w->name)), 1000));
	if (n > 0) {
		struct jval num = { 0 };
		num.type = J_NUMBER;
		num.s = hook_printf(m->a, "%.17g", n);
		buf_puts(&b, "\n(");
		json_write(&b, &num, JSON_JQ);
		buf_puts(&b, " background task(s) still running)");
	}
	r->message = hook_printf(m->a, "%s", b.p);
	pl->nreq = 1;
	buf_free(&b);
}

/* ---- the plan ---- */

static void
context(struct map *m)
{
	const struct jval	*p = m->p;
	const char		*cwd = text(m, json_get(p, "cwd"));
	const char		*project = hook_clip(m->a, hook_project(m->a,
				    cwd), 200);
	const char		*turn = hook_clip(m->a, line(m, json_get(p,
				    "turn_id")), 200);
	const char		*ev = text(m, json_get(p, "hook_event_name"));
	size_t			 n;

	m->w->session = hook_session(m->a, line(m, json_get(p,
	    "session_id")));
	/* the session only hashed in keys: they leave under no-session */
	m->w->prefix = hook_printf(m->a, "%s:%s", m->w->client,
	    hook_sha16(m->a, line(m, json_get(p, "session_id"))));
	m->w->cwd = *cwd != '\0' && hook_length(cwd) <= 1024 ? cwd : NULL;
	m->w->project = *project != '\0' ? project : NULL;
	m->w->turn = *turn != '\0' ? turn : NULL;
	m->ntype = line(m, json_get(p, "notification_type"));
	n = strlen(m->ntype);
	if (n < 1 || n > 40 || strspn(m->ntype,
	    "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		m->ntype = "other";
	m->mode = line(m, json_get(p, "mode"));
	if (strcmp(ev, "PermissionRequest") == 0 ||
	    strcmp(ev, "PostToolUse") == 0 ||
	    strcmp(ev, "PostToolUseFailure") == 0 ||
	    strcmp(ev, "PermissionDenied") == 0)
		m->call = call_of(m);
	if (strcmp(ev, "PermissionRequest") == 0) {
		const struct jval *s = json_get(p, "permission_suggestions");
		m->offer = hook_sha16(m->a, hook_truthy(s) ? hook_canon(m->a, s) : "[]");
	}
	if (strcmp(ev, "Elicitation") == 0 ||
	    strcmp(ev, "ElicitationResult") == 0) {
		const char *id = line(m, json_get(p, "elicitation_id"));
		m->server = hook_plain(m->a, 20, line(m, json_get(p,
		    "mcp_server_name")));
		m->elicitation = *id != '\0' ? hook_plain(m->a, 16, id) :
		    elicit_of(m);
	}
}

bool
claude_plan(struct arena *a, const struct jval *p, struct hook_who *w,
    struct hook_plan *pl)
{
	struct map	 m = { 0 };
	const char	*ev, *src;

	memset(pl, 0, sizeof(*pl));
	m.a = a;
	m.p = p;
	m.w = w;
	m.claude = strcmp(w->client, "codex") != 0;
	context(&m);
	ev = text(&m, json_get(p, "hook_event_name"));
	pl->known = true;
	if (strcmp(ev, "Notification") == 0) {
		notification(&m, pl);
	} else if (strcmp(ev, "PermissionRequest") == 0) {
		if (m.claude && strcmp(text(&m, json_get(p, "tool_name")),
		    "AskUserQuestion") == 0) {
			pl->wait = WAIT_ASK;
			ask_user(&m, pl);
		} else {
			pl->wait = WAIT_PERMISSION;
			permission(&m, pl);
		}
	} else if (strcmp(ev, "Elicitation") == 0 && m.claude) {
		pl->wait = WAIT_ELICIT;
		elicit(&m, pl);
	} else if (strcmp(ev, "ElicitationResult") == 0) {
		pl->resolve[pl->nresolve++] = hook_printf(a, "%s:elicit:%s:%s",
		    w->prefix, m.server, m.elicitation);
		pl->resolve[pl->nresolve++] = hook_printf(a,
		    "%s:notice:elicitation_dialog", w->prefix);
	} else if (strcmp(ev, "PostToolUse") == 0 ||
	    strcmp(ev, "PostToolUseFailure") == 0 ||
	    strcmp(ev, "PermissionDenied") == 0) {
		/* every question of the call, whatever rules each offered */
		pl->resolve[pl->nresolve++] = hook_printf(a,
		    "%s:notice:permission_prompt", w->prefix);
		pl->resolve_prefix[pl->nprefix++] = hook_printf(a,
		    "%s:perm:%s:", w->prefix, m.call);
		pl->resolve_prefix[pl->nprefix++] = hook_printf(a,
		    "%s:ask:%s:", w->prefix, m.call);
	} else if (strcmp(ev, "Stop") == 0) {
		stop(&m, pl);
	} else if (strcmp(ev, "UserPromptSubmit") == 0) {
		src = text(&m, json_get(p, "source"));
		pl->sweep = *src == '\0' || strcmp(src, "user") == 0;
	} else if (strcmp(ev, "SessionEnd") == 0 ||
	    strcmp(ev, "Interrupt") == 0) {
		pl->sweep = true;
	} else
		pl->known = false;
	return !m.bad;
}

/* ---- the decision ---- */

static const struct jval *
response(const struct jval *answer)
{
	return answer != NULL ? json_get(answer, "response") : NULL;
}

static bool
permission_reply(struct buf *b, const struct jval *p, const char *cid,
    const char *src, bool claude)
{
	buf_puts(b, "{\"hookSpecificOutput\":{\"hookEventName\":"
	    "\"PermissionRequest\",\"decision\":");
	if (strcmp(cid, "allow") == 0) {
		buf_puts(b, "{\"behavior\":\"allow\"}");
	} else if (strcmp(cid, "always") == 0 && claude) {
		const struct jval *s = json_get(p, "permission_suggestions");
		buf_puts(b, "{\"behavior\":\"allow\",\"updatedPermissions\":");
		if (s != NULL)
			json_write(b, s, JSON_JQ);
		else
			buf_puts(b, "null");
		buf_putc(b, '}');
	} else if (strcmp(cid, "deny") == 0 || (strcmp(cid, "stop") == 0 &&
	    claude)) {
		struct buf msg = { 0 };
		buf_printf(&msg, "Denied through arc (%s)%s", src,
		    cid[0] == 's' ? "; stop and wait for the person" : "");
		buf_puts(b, "{\"behavior\":\"deny\",\"message\":");
		buf_json_str(b, msg.p, msg.len);
		buf_puts(b, cid[0] == 's' ? ",\"interrupt\":true}" : "}");
		buf_free(&msg);
	} else
		return false;
	buf_puts(b, "}}");
	return true;
}

/* The option an answer chose ("oK"), as the client offered it. */
static const struct jval *
chosen(const struct jval *q, const char *cid)
{
	const struct jval	*opts = json_get(q, "options");
	char			*end;
	long			 k;

	if (cid[0] != 'o' || opts == NULL || opts->type != J_ARRAY)
		return NULL;
	k = strtol(cid + 1, &end, 10);
	if (*end != '\0' || k < 1 || (size_t)k > opts->n ||
	    opts->items[k - 1]->type != J_OBJECT)
		return NULL;
	return json_get(opts->items[k - 1], "label");
}

static bool
ask_reply(struct buf *b, struct arena *a, const struct jval *p,
    const struct hook_plan *pl, const struct jval *const *answer)
{
	static const char *const answers[] = { "answers", NULL };
	const struct jval	*in = json_get(p, "tool_input");
	const struct jval	*qs = json_get(in, "questions"), *q, *label;
	const struct jval	*r, *cid;
	struct buf		 ans = { 0 };
	size_t			 i, j;
	bool			 first = true;

	buf_putc(&ans, '{');
	for (i = 0; i < pl->nreq; i++) {
		q = qs->items[i];
		r = response(answer[i]);
		cid = r != NULL ? json_get(r, "choice_id") : NULL;
		if (cid == NULL || cid->type != J_STRING ||
		    (label = chosen(q, hook_text(a, cid))) == NULL ||
		    json_get(q, "question") == NULL ||
		    json_get(q, "question")->type != J_STRING)
			goto fail;
		/* a question asked twice: the later answer, in its place */
		for (j = i + 1; j < pl->nreq; j++)
			if (json_get(qs->items[j], "question") != NULL &&
			    sv_same(sv_json(json_get(qs->items[j], "question")),
			    sv_json(json_get(q, "question"))))
				break;
		if (j < pl->nreq)
			continue;
		if (!first)
			buf_putc(&ans, ',');
		first = false;
		json_write(&ans, json_get(q, "question"), JSON_JQ);
		buf_putc(&ans, ':');
		json_write(&ans, label, JSON_JQ);
	}
	buf_putc(&ans, '}');
	buf_puts(b, "{\"hookSpecificOutput\":{\"hookEventName\":"
	    "\"PermissionRequest\",\"decision\":{\"behavior\":\"allow\","
	    "\"updatedInput\":{");
	first = true;
	for (i = 0; i < in->n; i++) {
		const struct jmember *mb = &in->members[i];
		if (!first)
			buf_putc(b, ',');
		first = false;
		json_write(b, &(struct jval){ .type = J_STRING, .s = mb->name,
		    .len = mb->namelen }, JSON_JQ);
		buf_putc(b, ':');
		if (hook_named_one_of(mb, answers))
			buf_put(b, ans.p, ans.len);
		else
			json_write(b, mb->value, JSON_JQ);
	}
	if (json_get(in, "answers") == NULL) {
		buf_puts(b, first ? "\"answers\":" : ",\"answers\":");
		buf_put(b, ans.p, ans.len);
	}
	buf_puts(b, "}}}}");
	buf_free(&ans);
	return true;
fail:
	buf_free(&ans);
	return false;
}

static bool
elicit_reply(struct buf *b, const struct hook_plan *pl, const struct jval *r)
{
	const struct jval *t = r != NULL ? json_get(r, "text") : NULL;
	const struct jval *cid = r != NULL ? json_get(r, "choice_id") : NULL;

	buf_puts(b, "{\"hookSpecificOutput\":{\"hookEventName\":"
	    "\"Elicitation\",\"action\":");
	if (t != NULL && t->type == J_STRING && pl->req[0].field != NULL) {
		buf_puts(b, "\"accept\",\"content\":{");
		buf_json_cstr(b, pl->req[0].field);
		buf_putc(b, ':');
		buf_json_str(b, t->s, t->len);
		buf_putc(b, '}');
	} else if (json_is(cid, "accept") || json_is(cid, "decline") ||
	    json_is(cid, "cancel")) {
		buf_json_str(b, cid->s, cid->len);
	} else
		return false;
	buf_puts(b, "}}");
	return true;
}

bool
claude_reply(struct buf *b, struct arena *a, const struct jval *p,
    const struct hook_who *w, const struct hook_plan *pl,
    const struct jval *const *answer)
{
	const struct jval	*r = pl->nreq > 0 ? response(answer[0]) : NULL;
	const struct jval	*cid = r != NULL ? json_get(r, "choice_id") :
				    NULL, *src;
	bool			 claude = strcmp(w->client, "codex") != 0;
	const char		*c = cid != NULL && cid->type == J_STRING ?
				    hook_text(a, cid) : "";

	if (!claude && strcmp(c, "allow") != 0 && strcmp(c, "deny") != 0)
		return false;	/* Codex takes allow or deny only */
	src = r != NULL ? json_get(r, "source") : NULL;
	switch (pl->wait) {
	case WAIT_PERMISSION:
		return permission_reply(b, p, c, hook_truthy(src) ? hook_text(a,
		    src) : "arc", claude);
	case WAIT_ASK:
		return ask_reply(b, a, p, pl, answer);
	case WAIT_ELICIT:
		return elicit_reply(b, pl, r);
	case WAIT_NONE:
		break;
	}
	return false;
}
