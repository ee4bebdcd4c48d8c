/*
 * Writing an ARC event's envelope, for every event arc writes (arcevent.h).
 * Nothing here checks the event: arc-emit validates what it built before
 * printing it, and arc-apply validates whatever arc-hook hands it.
 */
#include <limits.h>
#include <unistd.h>

#include "arcevent.h"

void
event_member(struct buf *b, bool *first, const char *name, const char *value)
{
	if (value == NULL)
		return;
	buf_puts(b, *first ? "" : ",");
	*first = false;
	buf_json_cstr(b, name);
	buf_putc(b, ':');
	buf_json_cstr(b, value);
}

void
event_open(struct buf *b, const struct event_head *h, bool *first)
{
	char	 id[64], cwd[PATH_MAX];

	if (h->event_id == NULL)
		mint_id(h->id_prefix != NULL ? h->id_prefix : "evt_", id,
		    sizeof(id));
	buf_puts(b, "{\"arc_version\":\"0.2\",\"event_id\":");
	buf_json_cstr(b, h->event_id != NULL ? h->event_id : id);
	buf_puts(b, ",\"event_type\":");
	buf_json_cstr(b, h->type);
	buf_puts(b, ",\"occurred_at\":");
	buf_json_cstr(b, arc_now());
	buf_puts(b, ",\"sender\":{");
	*first = true;
	event_member(b, first, "id", h->sender_id);
	event_member(b, first, "name", h->sender_name);
	event_member(b, first, "version", h->sender_version);
	event_member(b, first, "instance_id", h->instance_id);
	buf_putc(b, '}');
	if (h->no_context) {
		buf_puts(b, ",\"request\":{");
		*first = true;
		return;
	}
	buf_puts(b, ",\"context\":{");
	*first = true;
	event_member(b, first, "session_id", h->session_id);
	event_member(b, first, "correlation_id", h->correlation_id);
	event_member(b, first, "project", h->project);
	/* No working directory (removed under us): no cwd member. */
	event_member(b, first, "cwd", h->cwd != NULL || h->no_cwd ? h->cwd :
	    getcwd(cwd, sizeof(cwd)));
	event_member(b, first, "turn_id", h->turn_id);
	event_member(b, first, "native_request_id", h->native_request_id);
	if (h->pid != NULL) {
		buf_puts(b, *first ? "\"pid\":" : ",\"pid\":");
		buf_puts(b, h->pid);
	}
	buf_puts(b, "},\"request\":{");
	*first = true;
}

void
event_response(struct buf *b, bool *first, const char *kind,
    const struct event_choice *c, size_t n, const char *text_max,
    const char *expires_at)
{
	size_t	 i;

	buf_puts(b, *first ? "" : ",");
	*first = false;
	buf_puts(b, "\"response\":{\"kind\":");
	buf_json_cstr(b, kind);
	if (n > 0) {
		buf_puts(b, ",\"choices\":[");
		for (i = 0; i < n; i++) {
			buf_puts(b, i > 0 ? ",{\"id\":" : "{\"id\":");
			buf_json_cstr(b, c[i].id);
			buf_puts(b, ",\"label\":");
			buf_json_cstr(b, c[i].label);
			if (c[i].detail != NULL) {
				buf_puts(b, ",\"detail\":");
				buf_json_cstr(b, c[i].detail);
			}
			buf_putc(b, '}');
		}
		buf_putc(b, ']');
	}
	if (text_max != NULL) {
		buf_puts(b, ",\"text_max_length\":");
		buf_puts(b, text_max);
	}
	buf_puts(b, ",\"expires_at\":");
	buf_json_cstr(b, expires_at);
	buf_putc(b, '}');
}

void
event_close(struct buf *b, const struct event_tail *t)
{
	bool	 x_arc = t->tmux_pane != NULL && t->tmux_socket != NULL;

	buf_putc(b, '}');
	if (t->notification_type != NULL || x_arc) {
		buf_puts(b, ",\"extensions\":{");
		if (t->notification_type != NULL) {
			buf_puts(b, "\"x-agentnotify\":{\"notification_type\":");
			buf_json_cstr(b, t->notification_type);
			buf_putc(b, '}');
		}
		if (x_arc) {
			if (t->notification_type != NULL)
				buf_putc(b, ',');
			buf_puts(b, "\"x-arc\":{\"tmux_pane\":");
			buf_json_cstr(b, t->tmux_pane);
			buf_puts(b, ",\"tmux_socket\":");
			buf_json_cstr(b, t->tmux_socket);
			buf_putc(b, '}');
		}
		buf_putc(b, '}');
	}
	buf_putc(b, '}');
}
