/*
 * GitHub Copilot CLI's hooks as ARC requests (arc-hooks(7), "GitHub
 * Copilot CLI").  Shapes read from @github/copilot 1.0.102 and from its
 * own runs (t/fixtures/hooks/copilot): every payload holds sessionId,
 * timestamp (ms) and cwd; permissionRequest names itself (hookName) and
 * holds toolName and toolInput; a notification names itself
 * (hook_event_name); the others name nothing, so the hooks file gives
 * each command its event (ARC_HOOK_EVENT in the entry's env).
 *
 * permissionRequest is asked whole (the command, the file and its diff,
 * the MCP server, tool and arguments, the URL), or not at all; its
 * decision is {"behavior":"allow"} or {"behavior":"deny","message":...},
 * with "interrupt":true to stop the turn.  No decision (no answer, a
 * timeout) prints nothing: Copilot goes on to its own rules and dialog.
 */
#include <string.h>

#include "arc.h"
#include "archook.h"
#include "archost-copilot.h"

#define WHOLE_MAX	4000	/* ARC's message: characters */

/* The action, whole, into b; its title. */
static const char *
action(struct arena *a, struct buf *b, const char *tool, const struct jval *in)
{
	static const char *const bash[] = { "command", NULL };
	static const char *const edit[] = { "file_path", "diff", NULL };
	static const char *const fetch[] = { "url", NULL };
	const char	*slash = strchr(tool, '/');

	if (strcmp(tool, "bash") == 0) {
		hook_also(a, b, in, bash);
		buf_printf(b, "$ %s", hook_text(a, json_get(in, "command")));
		return "Permission to run a command";
	}
	if (strcmp(tool, "edit") == 0 || strcmp(tool, "create") == 0) {
		hook_also(a, b, in, edit);
		buf_printf(b, "%s\n%s", hook_shown(a, json_get(in, "file_path")),
		    hook_text(a, json_get(in, "diff")));
		return "Permission to write a file";
	}
	if (strcmp(tool, "web_fetch") == 0) {
		hook_also(a, b, in, fetch);
		buf_puts(b, hook_shown(a, json_get(in, "url")));
		return "Permission to fetch a web page";
	}
	if (slash != NULL && slash != tool && slash[1] != '\0') {
		buf_printf(b, "MCP server %s, tool %s, with:\n",
		    hook_line_of(a, hook_printf(a, "%.*s", (int)(slash - tool),
		    tool)), hook_line_of(a, slash + 1));
		json_write(b, in, JSON_JQ);
		return "Permission to use an MCP tool";
	}
	buf_printf(b, "%s: ", hook_line_of(a, tool));
	json_write(b, in, JSON_JQ);
	return "Permission to use a tool";
}


static bool
permission(struct arena *a, const struct jval *p, struct hook_who *w,
    struct hook_plan *pl)
{
	const struct jval	*in = json_get(p, "toolInput");
	const struct jval	*name = json_get(p, "toolName");
	struct hook_req		*r = &pl->req[0];
	struct buf		 b = { 0 }, call = { 0 };
	const char		*title;
	size_t			 len;

	if (name == NULL || name->type != J_STRING || in == NULL ||
	    in->type != J_OBJECT)
		return false;
	title = action(a, &b, hook_text(a, name), in);
	if ((len = hook_length(b.p)) > WHOLE_MAX) {
		pl->refused = hook_printf(a, "the call is %zu characters shown "
		    "whole, more than a question holds (%d); nothing was "
		    "asked", len, WHOLE_MAX);
		buf_free(&b);
		return true;
	}
	/* no call id in the payload: the call is what it asks */
	buf_puts(&call, "{\"toolInput\":");
	json_write(&call, in, JSON_JQ | JSON_SORTED);
	buf_puts(&call, ",\"toolName\":");
	json_write(&call, name, JSON_JQ);
	buf_putc(&call, '}');
	r->key = hook_printf(a, "%s:perm:%s", w->prefix, hook_sha16(a,
	    call.p));
	r->title = title;
	r->message = hook_printf(a, "%s", b.p);
	r->kind = "permission";
	r->text_max = -1;
	hook_choice(r, "allow", "Allow", NULL);
	hook_choice(r, "deny", "Deny", NULL);
	hook_choice(r, "stop", "Deny and stop", "the agent stops and waits for "
	    "you");
	pl->wait = WAIT_PERMISSION;
	pl->nreq = 1;
	buf_free(&b);
	buf_free(&call);
	return true;
}

static void
notification(struct arena *a, const struct jval *p, struct hook_who *w,
    struct hook_plan *pl)
{
	struct hook_req	*r = &pl->req[0];
	const char	*type = hook_line(a, json_get(p, "notification_type"));
	const char	*t = hook_text(a, json_get(p, "title"));
	const char	*msg = hook_or_else(a, json_get(p, "message"),
			    "Copilot CLI waits for you");
	bool		 perm = strcmp(type, "permission_prompt") == 0;

	/* a question of ours already asks it: no notice beside it */
	pl->unless_pending = perm;
	r->key = hook_printf(a, "%s:notice:%s", w->prefix, perm ?
	    "permission_prompt" : "other");
	r->kind = perm ? "blocked" : "information";
	r->priority = perm ? "high" : "normal";
	r->title = perm ? "Needs your permission" : "A notice";
	r->text_max = -1;
	r->message = hook_clip(a, hook_blank(t) ? msg : hook_printf(a,
	    "%s\n%s", hook_line_of(a, t), msg), 4000);
	pl->nreq = 1;
}

bool
copilot_plan(struct arena *a, const struct jval *p, const char *event,
    struct hook_who *w, struct hook_plan *pl)
{
	const char	*ev = hook_text(a, json_get(p, "hookName"));
	const char	*cwd = hook_text(a, json_get(p, "cwd"));
	const char	*project = hook_clip(a, hook_project(a, cwd), 200);
	const char	*sid = hook_line(a, json_get(p, "sessionId"));
	struct hook_req	*r = &pl->req[0];

	memset(pl, 0, sizeof(*pl));
	if (*ev == '\0' && json_is(json_get(p, "hook_event_name"),
	    "Notification"))
		ev = "notification";
	if (*ev == '\0' && event != NULL)
		ev = event;
	w->session = hook_session(a, sid);
	/* the session only hashed in keys: they leave under no-session */
	w->prefix = hook_printf(a, "%s:%s", w->client, hook_sha16(a, sid));
	w->cwd = *cwd != '\0' && hook_length(cwd) <= 1024 ? cwd : NULL;
	w->project = *project != '\0' ? project : NULL;
	w->turn = NULL;
	pl->known = true;
	if (strcmp(ev, "permissionRequest") == 0)
		return permission(a, p, w, pl);
	if (strcmp(ev, "notification") == 0)
		notification(a, p, w, pl);
	else if (strcmp(ev, "agentStop") == 0) {
		pl->sweep = true;
		r->key = hook_printf(a, "%s:stop", w->prefix);
		r->kind = "completion";
		r->priority = "normal";
		r->text_max = -1;
		r->title = "Finished";
		r->message = "Copilot CLI finished and is waiting for you.";
		pl->nreq = 1;
	} else if (strcmp(ev, "sessionEnd") == 0 ||
	    strcmp(ev, "userPromptSubmitted") == 0)
		pl->sweep = true;	/* the person is back, or gone */
	else
		pl->known = false;
	return true;
}

bool
copilot_reply(struct buf *b, struct arena *a, const struct jval *p,
    const struct hook_who *w, const struct hook_plan *pl,
    const struct jval *const *answer)
{
	const struct jval	*r, *cid, *src;
	const char		*c;

	(void)p;
	(void)w;
	if (pl->wait != WAIT_PERMISSION || pl->nreq == 0 || answer[0] == NULL)
		return false;
	r = json_get(answer[0], "response");
	cid = r != NULL ? json_get(r, "choice_id") : NULL;
	src = r != NULL ? json_get(r, "source") : NULL;
	c = cid != NULL && cid->type == J_STRING ? hook_text(a, cid) : "";
	if (strcmp(c, "allow") == 0) {
		buf_puts(b, "{\"behavior\":\"allow\"}");
		return true;
	}
	if (strcmp(c, "deny") != 0 && strcmp(c, "stop") != 0)
		return false;
	buf_puts(b, "{\"behavior\":\"deny\",\"message\":");
	buf_json_cstr(b, hook_printf(a, "Denied through arc (%s)%s",
	    hook_truthy(src) ? hook_text(a, src) : "arc", c[0] == 's' ?
	    "; stop and wait for the person" : ""));
	buf_puts(b, c[0] == 's' ? ",\"interrupt\":true}" : "}");
	return true;
}
