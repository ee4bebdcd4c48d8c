/*
 * Gemini CLI's own hooks as ARC notices, mapped as the shell adapter
 * mapped them: Notification (ToolPermission) a "blocked" notice, high;
 * AfterAgent the session's requests resolved and a completion notice;
 * BeforeAgent and SessionEnd the session's requests resolved.  Nothing is
 * ever handed back: Gemini CLI decides as it would without the hook.
 */
#include <string.h>

#include "arc.h"
#include "archook.h"
#include "archost-gemini.h"

static bool
permission(struct arena *a, const struct jval *p, struct hook_who *w,
    struct hook_plan *pl)
{
	const struct jval	*d = json_get(p, "details"), *type;
	struct hook_req		*r = &pl->req[0];
	struct buf		 b = { 0 };
	const char		*t, *what = "";

	if (d == NULL || d->type == J_NULL || d->type == J_FALSE)
		d = NULL;
	else if (d->type != J_OBJECT)
		return false;
	t = hook_text(a, json_get(d, "title"));
	r->title = "Needs your permission";	/* generic: it leaves */
	type = json_get(d, "type");
	if (json_is(type, "exec")) {
		what = hook_printf(a, "$ %s", hook_text(a, json_get(d,
		    "command")));
	} else if (json_is(type, "edit")) {
		const struct jval *f = json_get(d, "filePath");
		if (f == NULL || f->type == J_NULL || f->type == J_FALSE)
			f = json_get(d, "fileName");
		what = hook_text(a, f);
	} else if (json_is(type, "mcp")) {
		what = hook_printf(a, "MCP server %s, tool %s", hook_text(a,
		    json_get(d, "serverName")), hook_text(a, json_get(d,
		    "toolName")));
	}
	if (*t != '\0')
		buf_printf(&b, "%s\n", hook_line(a, json_get(d, "title")));
	buf_puts(&b, hook_text(a, json_get(p, "message")));
	if (*what != '\0') {
		if (b.len > 0)
			buf_putc(&b, '\n');
		buf_puts(&b, what);
	}
	r->message = hook_clip(a, b.len > 0 ? hook_printf(a, "%s", b.p) :
	    "Gemini CLI waits for your permission", 4000);
	r->key = hook_printf(a, "%s:notice:permission", w->prefix);
	r->kind = "blocked";
	r->priority = "high";
	r->text_max = -1;
	pl->nreq = 1;
	buf_free(&b);
	return true;
}

bool
gemini_plan(struct arena *a, const struct jval *p, struct hook_who *w,
    struct hook_plan *pl)
{
	const char	*ev = hook_text(a, json_get(p, "hook_event_name"));
	const char	*cwd = hook_text(a, json_get(p, "cwd"));
	const char	*project = hook_project(a, cwd);
	struct hook_req	*r = &pl->req[0];
	const char	*msg;

	memset(pl, 0, sizeof(*pl));
	w->session = hook_session(a, hook_line(a, json_get(p, "session_id")));
	/* the session only hashed in keys: they leave under no-session */
	w->prefix = hook_printf(a, "%s:%s", w->client, hook_sha16(a,
	    hook_line(a, json_get(p, "session_id"))));
	w->cwd = *cwd != '\0' && hook_length(cwd) <= 1024 ? cwd : NULL;
	/* the root is no project here (gemini-hook's rule) */
	project = strcmp(project, "/") == 0 ? "" : hook_clip(a, project, 200);
	w->project = *project != '\0' ? project : NULL;
	w->turn = NULL;
	pl->known = true;
	if (strcmp(ev, "Notification") == 0) {
		if (strcmp(hook_line(a, json_get(p, "notification_type")),
		    "ToolPermission") != 0)
			return true;
		return permission(a, p, w, pl);
	}
	if (strcmp(ev, "AfterAgent") == 0) {
		pl->sweep = true;
		msg = hook_text(a, json_get(p, "prompt_response"));
		r->key = hook_printf(a, "%s:stop", w->prefix);
		r->kind = "completion";
		r->priority = "normal";
		r->text_max = -1;
		r->title = "Finished";
		r->message = hook_clip(a, *msg != '\0' ? msg :
		    "Gemini CLI finished and is waiting for you.", 1000);
		pl->nreq = 1;
	} else if (strcmp(ev, "BeforeAgent") == 0 ||
	    strcmp(ev, "SessionEnd") == 0)
		pl->sweep = true;
	else
		pl->known = false;
	return true;
}
