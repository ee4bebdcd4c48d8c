/*
 * arc-acp's byte stream: each direction read in chunks, each message
 * forwarded as it arrives (the editor's held while it may be the reply
 * to a racing question), scanned at its top level as it goes, and acted
 * on at its end.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arc.h"
#include "arcacpscan.h"
#include "arcacpout.h"
#include "arcacpjournal.h"
#include "arcacpask.h"
#include "arcacprace.h"
#include "arcacpstream.h"

struct method {
	const char	*s;
	size_t		 n;
};
#define METHOD(s)	{ s, sizeof(s) - 1 }

static const struct method agent_methods[] = {
	METHOD("session/request_permission"), METHOD("elicitation/create"),
	METHOD("$/cancel_request"), { NULL, 0 } };
static const struct method editor_methods[] = {
	METHOD("session/cancel"), METHOD("initialize"), METHOD("session/new"),
	METHOD("session/load"), METHOD("session/resume"), { NULL, 0 } };

static bool
listed(const char *m, size_t n, const struct method *list)
{
	for (; list->s != NULL; list++)
		if (list->n == n && memcmp(m, list->s, n) == 0)
			return true;
	return false;
}

/*
 * Whether s (of n bytes) holds the two or more bytes of what, found by
 * its byte at, which is rare in these messages: memchr, which is
 * vectorised, goes from one to the next (memmem went byte by byte, and
 * was three quarters of the proxy's instructions on session updates).
 */
static bool
has_after(const char *s, size_t n, char at, const char *what)
{
	const char	*end = s + n, *p = s;
	size_t		 k = strlen(what), lead = (size_t)(strchr(what, at) -
			    what);

	while ((p = memchr(p, at, (size_t)(end - p))) != NULL) {
		if ((size_t)(p - s) >= lead && (size_t)(end - p) >= k - lead &&
		    memcmp(p - lead, what, k) == 0)
			return true;
		p++;
	}
	return false;
}

/* The method a value as written names, of the list; else NULL. */
static const char *
method_named(const char *raw, size_t n, const struct method *list)
{
	struct jparse_error	 je;
	const struct jval	*v;

	if (n == 0)
		return NULL;
	arena_reset(&px.idarena);
	if ((v = json_parse(&px.idarena, raw, n, &je)) == NULL ||
	    v->type != J_STRING)
		return NULL;
	for (; list->s != NULL; list++)
		if (list->n == v->len && memcmp(v->s, list->s, v->len) == 0)
			return list->s;
	return NULL;
}

#define METHOD_PREFIX	RPC_PREFIX "\"method\":\""

/*
 * A message that starts as nearly all do, {"jsonrpc":"2.0","method":"M"
 * with M plain and short, is decided by M alone: the scanner would stop
 * there too.  When M is none that this direction acts on, the message is
 * only forwarded, to its newline.  From the agent, only a whole message
 * with no other "method" member and no \u escape in it passes so: the
 * editor may read a second method member, and the scanner counts them.
 * True when that is so.
 */
static bool
passes_through(const struct dir *d, const char *p, size_t n, bool whole)
{
	const size_t	 pre = sizeof(METHOD_PREFIX) - 1;
	const char	*m, *q, *end;

	if (n <= pre || memcmp(p, METHOD_PREFIX, pre) != 0)
		return false;
	m = p + pre;
	end = n - pre < sizeof(d->method) ? p + n : m + sizeof(d->method) - 1;
	for (q = m; q < end && *q != '"'; q++)
		if (*q == '\\' || (unsigned char)*q < 0x20)
			return false;	/* the scanner's to read */
	if (q == end)
		return false;	/* long, or not all here: the scanner's */
	if (listed(m, (size_t)(q - m), d == &px.a2e ? agent_methods :
	    editor_methods))
		return false;
	if (d != &px.a2e)
		return true;
	return whole && !has_after(q, (size_t)(p + n - q), 'm', "\"method\"") &&
	    !has_after(p, n, '\\', "\\u");
}

static void
msg_reset(struct dir *d)
{
	d->fresh = false;
	d->mid = d->drop = d->toolong = false;
	d->has_id = d->has_method = d->response = d->interesting = false;
	d->ours = NULL;
	d->method[0] = '\0';
	d->msg.len = 0;
	d->scanning = true;
	acp_scan_init(&d->sc);
	d->keep = true;
	d->held = d == &px.e2a && questions_racing();
}

/* Sends on what msg holds: the held start of a message. */
static void
release(struct dir *d)
{
	if (!d->held)
		return;
	d->held = false;
	out_emit(d, d->msg.p, d->msg.len);
	if (d->msg.len > 0)
		d->mid = true;
	if (!d->keep)
		d->msg.len = 0;
}

static void
no_copy(struct dir *d)
{
	d->keep = false;
	if (!d->held)
		d->msg.len = 0;
}

/* What the scanner just saw decides how the rest of the message goes. */
static void
decide(struct dir *d, enum acp_scan_ev ev)
{
	struct acp_scan		*s = &d->sc;
	const struct method	*list = d == &px.a2e ? agent_methods :
				    editor_methods;
	const char		*name;

	switch (ev) {
	case SC_ID:
		if (s->nid == 1 && s->vallen > 0) {
			d->has_id = true;
			memcpy(d->id, s->val, s->vallen);
			d->idlen = s->vallen;
		}
		break;
	case SC_METHOD:
		name = method_named(s->val, s->vallen, list);
		if (name != NULL && d->ours == NULL)
			d->ours = name;
		if (s->nmethod == 1) {
			d->has_method = true;
			d->interesting = name != NULL;
			if (name != NULL)
				strlcpy(d->method, name, sizeof(d->method));
		}
		break;
	case SC_RESPONSE:
		d->response = true;
		break;
	case SC_END:
	case SC_BAD:
		d->scanning = false;
		break;
	case SC_MORE:
		return;
	}
	if (d == &px.a2e) {
		/*
		 * Always forwarded, and read to its end (a second method may
		 * come); a copy only of what may be acted on.
		 */
		if (d->ours != NULL || !d->keep)
			return;
		if (d->has_method) {
			no_copy(d);
		} else if (d->response && d->has_id) {
			char cid[ID_MAX];
			size_t n;

			if (!acp_canon_id(d->id, d->idlen, cid, &n) ||
			    acp_pending_find(cid, n) == NULL)
				no_copy(d);
		}
		return;
	}
	/* editor to agent */
	if (d->has_method) {
		/* a request or a notification: never read as a reply */
		release(d);
		if (d->ours == NULL && d->keep)
			no_copy(d);
		if (!questions_racing() && d->ours == NULL)
			d->scanning = false;
		return;
	}
	if (!d->held && d->response && !d->toolong) {
		/* a reply when no question races: nothing to act on */
		no_copy(d);
		d->scanning = false;
	}
	/* held: to its end, then read whole */
}

/* Bytes of the current message, as its state says. */
static void
take(struct dir *d, const char *p, size_t n)
{
	if (n == 0 || d->drop)
		return;
	if (d->held) {
		if (d->msg.len + n > MSG_MAX) {
			/* too long to hold: it goes, and is read as it goes */
			d->keep = false;
			release(d);
			d->msg.len = 0;
			d->toolong = true;
		} else {
			buf_put(&d->msg, p, n);
			return;
		}
	}
	out_forward(d, p, n);
	d->mid = true;
	if (d->keep) {
		if (d->msg.len + n > MSG_MAX) {
			d->keep = false;
			d->msg.len = 0;
			d->toolong = true;
		} else {
			buf_put(&d->msg, p, n);
		}
	}
}

/*
 * The message ended at its newline (or its stream did).  False when the
 * editor's input waits for the journal (arcacprace.c).
 */
static bool
message_end(struct dir *d, const char *nl, bool complete)
{
	bool pass = true, wait = false;

	if (d->held) {
		if (complete)
			pass = race_held_end(d, &wait);
		if (pass) {
			out_emit(d, d->msg.p, d->msg.len);
			if (nl != NULL)
				out_forward(d, nl, 1);
		}
		d->held = false;
		if (!pass)
			d->keep = false;
	} else {
		if (nl != NULL && !d->drop)
			out_forward(d, nl, 1);
		/* forwarded as it came, while questions race */
		if (d == &px.e2a && complete && questions_racing()) {
			if (d->toolong && !d->has_method)
				race_unclear(d, "is longer than 1 MiB");
			else if (d->has_method && d->sc.nresult > 0)
				race_unclear(d, "is a request and a reply");
		}
	}
	if (complete && d == &px.a2e && (d->ours != NULL || d->keep)) {
		if (d->keep && d->msg.len > 0 && d->msg.p[d->msg.len - 1] == '\r')
			d->msg.len--;
		acp_agent_message(d);
	} else if (complete && d->keep && !d->toolong && d->msg.len > 0) {
		if (d->msg.p[d->msg.len - 1] == '\r')
			d->msg.len--;
		acp_editor_message(d);
	}
	d->msg.len = 0;
	d->mid = false;
	d->fresh = true;
	if (nl != NULL && d->inject.len > 0) {
		out_emit(d, d->inject.p, d->inject.len);
		d->inject.len = 0;
	}
	return !wait;
}

void
stream_process(struct dir *d)
{
	const char	*p = d->ibuf + d->ioff, *end = d->ibuf + d->ilen;

	while (p < end && !d->blocked) {
		const char	*nl;
		size_t		 n;
		bool		 start = false;

		if (d->fresh) {
			/* Whole messages that only pass, as one span. */
			const char *from = p;

			while (p < end &&
			    (nl = memchr(p, '\n', (size_t)(end - p))) != NULL &&
			    passes_through(d, p, (size_t)(nl - p), true))
				p = nl + 1;
			out_forward(d, from, (size_t)(p - from));
			if (p == end)
				break;
			msg_reset(d);
			start = true;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl != NULL ? nl : end) - p);
		if (start && passes_through(d, p, n, nl != NULL)) {
			/* what decide() does for SC_METHOD, not acted on */
			d->has_method = true;
			d->scanning = false;
			d->held = false;	/* nothing is held yet */
			d->keep = false;
		}
		while (d->scanning && n > 0) {
			enum acp_scan_ev	 ev;
			size_t			 used = acp_scan_feed(&d->sc, p,
						    n, &ev);

			take(d, p, used);
			p += used;
			n -= used;
			decide(d, ev);
		}
		take(d, p, n);
		p += n;
		if (nl != NULL) {
			p = nl + 1;
			if (!message_end(d, nl, true))
				break;	/* the rest waits for the journal */
		}
	}
	if (d->blocked) {
		d->ioff = (size_t)(p - d->ibuf);
	} else {
		d->ioff = d->ilen = 0;
	}
	out_span(d);
}

/* The end of a direction's input: a last message without its newline. */
void
stream_input_end(struct dir *d)
{
	d->in_eof = true;
	if (!d->fresh) {
		if (d->held) {
			out_emit(d, d->msg.p, d->msg.len);
			d->held = false;
		}
		d->inject.len = 0;	/* no boundary comes */
		d->fresh = true;
		d->msg.len = 0;
	}
	/* The editor closed its end: it answers nothing more, nor does arc. */
	if (d == &px.e2a)
		questions_withdraw("cancelled");
}

void
stream_read(struct dir *d)
{
	ssize_t r;

	if (d->blocked || d->ioff < d->ilen)
		return;	/* what was read waits for the journal */
	r = read(d->in, d->ibuf, IBUF_SIZE);
	if (r > 0) {
		d->ilen = (size_t)r;
		d->ioff = 0;
		stream_process(d);
		return;
	}
	if (r == -1 && (errno == EINTR))
		return;
	if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		if (d == &px.a2e && px.agent_exited)
			stream_input_end(d);	/* all the agent wrote is read */
		return;
	}
	if (r == -1)
		warn("reading from the %s", d->name);
	stream_input_end(d);
}


