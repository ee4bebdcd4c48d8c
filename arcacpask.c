/*
 * arc-acp's ARC side: acting on what the agent and the editor send.  A
 * permission request or an elicitation is asked through arc, with its
 * session's folder as the project; the editor's replies to the requests
 * that name sessions are read for their folders; a cancellation
 * withdraws the questions it concerns.
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
#include "arcacpmsg.h"
#include "arcacpout.h"
#include "arcacpjournal.h"
#include "arcacpask.h"

static bool
plain(const char *s, size_t n, size_t max)
{
	size_t i;

	if (n < 1 || n > max)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* A part of a key: the text when it is short and plain, else a hash. */
static void
key_part(struct buf *k, const char *s, size_t n, size_t max)
{
	char h[ARC_HEX_DIGEST];

	if (plain(s, n, max)) {
		buf_put(k, s, n);
		return;
	}
	sha256_hex(s, n, h);
	buf_put(k, h, 16);
}

/*
 * The id's part of a key: a number as its value (5.0 is 5), a string as
 * its text when that is short, plain and cannot be read as a number, else
 * a hash of the id's canonical form, which is quoted for a string: a
 * number and a string never share a part.
 */
static void
id_part(struct buf *k, const struct jval *id, const char *cid, size_t n)
{
	char h[ARC_HEX_DIGEST];

	if (id->type == J_STRING ? plain(id->s, id->len, 16) &&
	    id->s[0] != '-' && !(id->s[0] >= '0' && id->s[0] <= '9') :
	    plain(cid, n, 16)) {
		buf_put(k, id->type == J_STRING ? id->s : cid,
		    id->type == J_STRING ? id->len : n);
		return;
	}
	sha256_hex(cid, n, h);
	buf_put(k, h, 16);
}

/* ---- acting on what the agent sends ---- */

/* A request of the agent's that arc does not ask, and why (no text of it). */
static void
left(const char *method, const char *why)
{
	if (strcmp(method, "$/cancel_request") == 0)
		warnx("the agent's $/cancel_request is not acted on: %s", why);
	else
		warnx("a %s request stays with the editor: %s", method, why);
}

static struct session *
session_find(const char *id, size_t n)
{
	size_t i;

	for (i = 0; i < SESSIONS_MAX; i++)
		if (px.sess[i].used && acp_buf_eq(&px.sess[i].id, id, n))
			return &px.sess[i];
	return NULL;
}

static void
session_add(const struct buf *id, const struct buf *cwd)
{
	struct session *s = session_find(id->p, id->len);

	if (s == NULL) {
		s = &px.sess[px.sess_next];
		px.sess_next = (px.sess_next + 1) % SESSIONS_MAX;
		s->used = true;
		acp_buf_set(&s->id, id->p, id->len);
	}
	acp_buf_set(&s->cwd, cwd->p != NULL ? cwd->p : "", cwd->len);
}

static struct question *
q_slot(void)
{
	size_t i;

	for (i = 0; i < QUESTIONS_MAX; i++)
		if (px.q[i].state == Q_FREE) {
			memset(&px.q[i], 0, sizeof(px.q[i]));
			px.q[i].wfd = -1;
			px.q[i].gen = ++px.gen;
			return &px.q[i];
		}
	return NULL;
}

/* session/request_permission or elicitation/create: ask it through arc. */
static void
ask(const struct jval *msg, bool permission)
{
	const struct jval	*id = acp_get_unique(msg, "id");
	const struct jval	*params = acp_get_unique(msg, "params");
	const struct jval	*sid = acp_get_string(params, "sessionId");
	const struct jval	*call = acp_get_unique(params, "toolCall");
	const struct jval	*tcid = acp_get_string(call, "toolCallId");
	struct question		*q;
	struct session		*s = NULL;
	struct acp_who		 who;
	struct buf		 req = { 0 }, e = { 0 }, k = { 0 };
	const char		*why = NULL;
	char			 cid[ID_MAX], expires[64];
	size_t			 cidlen;
	bool			 ok;
	struct acp_ask		 a;

	const char		*what = permission ?
				    "session/request_permission" :
				    "elicitation/create";
	double			 num;

	if (id == NULL || id->rawlen >= ID_MAX ||
	    !acp_canon_id(id->raw, id->rawlen, cid, &cidlen)) {
		left(what, "its id is not one arc-acp reads");
		return;
	}
	if (id->type != J_STRING && !(acp_id_number(id, &num) &&
	    num == floor(num) && fabs(num) <= 9007199254740991.0)) {
		left(what, "its id is neither a string nor a whole number "
		    "that peers read alike");
		return;
	}
	if (acp_duplicated(msg)) {
		left(what, "a member is given twice in it");
		return;
	}
	if (question_find(cid, cidlen) != NULL) {
		left(what, "it reuses the id of a request still open");
		return;
	}
	/* The agent took arc's answer to the old one: its id is free again. */
	(void)late_reply_take(cid, cidlen, true);
	if (px.e2a.in_eof || px.e2a.out_dead) {
		left(what, "the agent's input from the editor is closed");
		return;
	}
	if (px.apply_dead || px.apply_closing) {
		left(what, "arc-apply is not running");
		return;
	}
	who.name = px.agent_name.len > 0 ? px.agent_name.p : px.agent_id.p;
	ok = permission ? acp_permission(params, &who, &req, &a,
	    &why) : acp_elicitation(params, &who, &req, &a, &why);
	if (!ok) {
		left(what, why);
		acp_ask_free(&a);
		buf_free(&req);
		return;
	}
	if ((q = q_slot()) == NULL) {
		if (!px.warned_full)
			warnx("%d questions are open; more stay with the editor",
			    QUESTIONS_MAX);
		px.warned_full = true;
		left(what, "too many questions are open");
		acp_ask_free(&a);
		buf_free(&req);
		return;
	}
	q->ask = a;
		memcpy(q->cid, cid, cidlen);
	q->cidlen = cidlen;
	memcpy(q->id, id->raw, id->rawlen);
	q->idlen = id->rawlen;
	if (sid != NULL) {
		acp_buf_set(&q->session, sid->s, sid->len);
		s = session_find(sid->s, sid->len);
	}

	/* acp:AGENT:SESSION:INSTANCE:ID, within ARC's 100 characters */
	buf_puts(&k, "acp:");
	{
		/* "@scope/name": the name is what a person knows it by */
		const char *slash = memrchr(px.agent_id.p, '/', px.agent_id.len);
		const char *an = slash != NULL ? slash + 1 : px.agent_id.p;
		size_t alen = px.agent_id.len - (size_t)(an - px.agent_id.p);

		key_part(&k, an, alen, 24);
	}
	buf_putc(&k, ':');
	if (sid != NULL) {	/* hashed: keys leave under no-session */
		char h[ARC_HEX_DIGEST];
		sha256_hex(sid->s, sid->len, h);
		buf_put(&k, h, 16);
	} else
		buf_putc(&k, '-');
	buf_printf(&k, ":%s:", px.instance);
	id_part(&k, id, cid, cidlen);
	strlcpy(q->key, k.p, sizeof(q->key));
	for (size_t i = 0; i < QUESTIONS_MAX; i++)
		if (&px.q[i] != q && px.q[i].state != Q_FREE &&
		    strcmp(px.q[i].key, q->key) == 0) {
			left(what, "its question's key is another open one's");
			question_free(q);
			goto out;
		}

	if (!rfc3339_after(arc_now(), px.timeout, expires, sizeof(expires))) {
		warnx("cannot tell when a question would expire");
		question_free(q);
		goto out;
	}
	acp_event_created(&e, q, sid, s, tcid, id, &req, expires);
	if (e.len > ARC_LINE_MAX || !apply_send(&e, OP_OPEN, (int)(q - px.q))) {
		left(what, "its question cannot be sent to arc-apply");
		question_free(q);
		goto out;
	}
	q->state = Q_OPENING;
	px.nracing++;
out:
	buf_free(&req);
	buf_free(&e);
	buf_free(&k);
}

struct pending *
acp_pending_find(const char *cid, size_t n)
{
	size_t i;

	for (i = 0; i < PENDING_MAX; i++)
		if (px.pend[i].used && acp_cid_eq(px.pend[i].cid, px.pend[i].cidlen,
		    cid, n))
			return &px.pend[i];
	return NULL;
}

/* The agent's reply to initialize or session/new, /load, /resume. */
static void
agent_reply(const struct jval *msg, struct pending *p)
{
	const struct jval *res = acp_get_unique(msg, "result");

	p->used = false;
	if (res == NULL || res->type != J_OBJECT)
		return;
	if (p->kind == P_INIT) {
		const struct jval *info = acp_get_unique(res, "agentInfo");
		const struct jval *name = acp_get_string(info, "name");
		const struct jval *title = acp_get_string(info, "title");
		const struct jval *ver = acp_get_string(info, "version");

		if (name != NULL && !json_blank(name)) {
			px.agent_id.len = 0;
			acp_clip(&px.agent_id, name->s, name->len, 100, true);
		}
		if (title == NULL || json_blank(title))
			title = name;
		if (title != NULL && !json_blank(title)) {
			px.agent_name.len = 0;
			acp_clip(&px.agent_name, title->s, title->len, 160, true);
		}
		if (ver != NULL && ver->codepoints <= 100) {
			px.agent_version.len = 0;
			buf_put(&px.agent_version, ver->s, ver->len);
		}
		return;
	}
	if (p->kind == P_NEW) {
		const struct jval *sid = acp_get_string(res, "sessionId");

		if (sid == NULL)
			return;
		acp_buf_set(&p->session, sid->s, sid->len);
	}
	if (p->session.len > 0)
		session_add(&p->session, &p->cwd);
}

/* $/cancel_request from the agent: that request's question goes. */
static void
agent_cancel(const struct jval *msg)
{
	const struct jval	*rid = acp_get_unique(acp_get_unique(msg, "params"),
				    "requestId");
	struct question		*q;
	char			 cid[ID_MAX];
	size_t			 cidlen;

	if (rid == NULL || rid->rawlen >= ID_MAX ||
	    !acp_canon_id(rid->raw, rid->rawlen, cid, &cidlen)) {
		left("$/cancel_request", "its requestId is not one arc-acp "
		    "reads");
		return;
	}
	if ((q = question_find(cid, cidlen)) != NULL)
		question_withdraw(q, "cancelled");
}

/*
 * A message of the agent's, whole.  One that names a method acted on is
 * acted on only when the strict parser reads it and each member it uses
 * is given once; else it stays with the editor, and stderr says why.
 */
void
acp_agent_message(struct dir *d)
{
	struct jparse_error	 je;
	const struct jval	*msg, *m, *id;
	struct pending		*p;
	char			 cid[ID_MAX], why[96];
	size_t			 cidlen;
	const char		*what = d->ours;

	if (what != NULL) {
		if (d->sc.nmethod > 1) {
			left(what, "its method is given twice");
			return;
		}
		if (d->sc.nid > 1) {
			left(what, "its id is given twice");
			return;
		}
		if (d->sc.nparams > 1) {
			left(what, "its params are given twice");
			return;
		}
		if (d->sc.nresult > 0) {
			left(what, "it is a reply too (result or error)");
			return;
		}
		if (d->toolong) {
			left(what, "it is longer than 1 MiB");
			return;
		}
	} else if (!d->keep || d->toolong) {
		return;
	}
	arena_reset(&px.arena);
	if ((msg = json_parse(&px.arena, d->msg.p, d->msg.len, &je)) == NULL ||
	    msg->type != J_OBJECT) {
		if (what != NULL) {
			(void)snprintf(why, sizeof(why), "it is not JSON as "
			    "arc-acp reads it (%s, at byte %zu)", msg == NULL ?
			    je.message : "not an object", msg == NULL ?
			    je.offset : 0);
			left(what, why);
		}
		return;
	}
	m = acp_get_unique(msg, "method");
	id = acp_get_unique(msg, "id");
	if (what == NULL) {
		if (m == NULL && id != NULL && id->rawlen < ID_MAX &&
		    acp_canon_id(id->raw, id->rawlen, cid, &cidlen) &&
		    (p = acp_pending_find(cid, cidlen)) != NULL)
			agent_reply(msg, p);
		return;
	}
	if (!json_is(m, what)) {
		left(what, "the scanner and the parser read its method "
		    "differently");
		return;
	}
	if (strcmp(what, "$/cancel_request") == 0)
		agent_cancel(msg);
	else
		ask(msg, strcmp(what, "session/request_permission") == 0);
}

/* ---- acting on what the editor sends ---- */

static void
editor_request(const struct jval *msg, const struct jval *m)
{
	const struct jval	*id = acp_get_unique(msg, "id");
	const struct jval	*params = acp_get_unique(msg, "params");
	struct pending		*p;
	enum pend_kind		 kind;
	size_t			 i;

	if (json_is(m, "session/cancel")) {
		const struct jval *sid = acp_get_string(params, "sessionId");

		for (i = 0; sid != NULL && i < QUESTIONS_MAX; i++)
			if (px.q[i].state != Q_FREE &&
			    acp_buf_eq(&px.q[i].session, sid->s, sid->len))
				question_withdraw(&px.q[i], "cancelled");
		return;
	}
	if (json_is(m, "initialize"))
		kind = P_INIT;
	else if (json_is(m, "session/new"))
		kind = P_NEW;
	else if (json_is(m, "session/load") || json_is(m, "session/resume"))
		kind = P_LOAD;
	else
		return;
	if (id == NULL || id->rawlen >= ID_MAX)
		return;
	p = &px.pend[px.pend_next];
	px.pend_next = (px.pend_next + 1) % PENDING_MAX;
	if (!acp_canon_id(id->raw, id->rawlen, p->cid, &p->cidlen)) {
		p->used = false;
		return;
	}
	p->used = true;
	p->kind = kind;
	p->session.len = p->cwd.len = 0;
	if (kind != P_INIT) {
		const struct jval *cwd = acp_get_string(params, "cwd");
		const struct jval *sid = acp_get_string(params, "sessionId");

		if (cwd != NULL)
			acp_buf_set(&p->cwd, cwd->s, cwd->len);
		if (sid != NULL && kind == P_LOAD)
			acp_buf_set(&p->session, sid->s, sid->len);
	}
}

void
acp_editor_message(struct dir *d)
{
	struct jparse_error	 je;
	const struct jval	*msg, *m;

	if (d->ours != NULL && d->sc.nmethod > 1) {
		warnx("the editor's %s is not acted on: its method is given "
		    "twice", d->ours);
		return;
	}
	arena_reset(&px.arena);
	if ((msg = json_parse(&px.arena, d->msg.p, d->msg.len, &je)) == NULL ||
	    msg->type != J_OBJECT)
		return;
	if ((m = acp_get_unique(msg, "method")) != NULL)
		editor_request(msg, m);
}

