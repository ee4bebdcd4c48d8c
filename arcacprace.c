/*
 * arc-acp's race: the editor's reply and arc's answer to one question.
 * The editor's reply is held while the question's withdrawal goes
 * through arc-apply; its result says whether an answer through arc was
 * accepted first.  Whichever the journal took first reaches the agent,
 * the other never does.
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
#include "arcacprace.h"

/*
 * A message from the editor that may be the reply to a question but is
 * not one arc-acp reads unambiguously: it goes to the agent, and each
 * question it may answer is left to the editor.
 */
void
race_unclear(const struct dir *d, const char *why)
{
	char		 cid[ID_MAX];
	size_t		 cidlen, i;
	struct question	*q;

	for (i = 0; i < d->sc.nid && i < ACP_SCAN_IDS; i++) {
		if (d->sc.idlen[i] == 0 || !acp_canon_id(d->sc.id[i],
		    d->sc.idlen[i], cid, &cidlen) ||
		    (q = question_find(cid, cidlen)) == NULL || q->deciding)
			continue;
		warnx("question %s: the editor's message for its request %s; "
		    "the editor decides it", q->key, why);
		question_withdraw(q, "not_needed");
	}
}

/*
 * The editor replied to a question: the journal decides which answer
 * came first.  The question is withdrawn through arc-apply, and the reply
 * is held (with the rest of the editor's input) until arc-apply's result
 * says whether an answer through arc was accepted before it.
 */
static bool
decide_start(struct question *q, const struct buf *reply)
{
	struct buf e = { 0 };
	bool ok;

	acp_event_resolved(&e, q->key, "not_needed");
	ok = apply_send(&e, OP_DECIDE, (int)(q - px.q));
	buf_free(&e);
	if (!ok) {
		question_withdraw(q, "not_needed");
		return false;
	}
	question_wait_stop(q);	/* arc-apply's result is the one word on it now */
	q->deciding = true;
	px.decide.active = true;
	px.decide.slot = (int)(q - px.q);
	px.decide.gen = q->gen;
	acp_buf_set(&px.decide.reply, reply->p, reply->len);
	buf_putc(&px.decide.reply, '\n');
	px.e2a.blocked = true;
	return true;
}

/* arc-apply's result for the withdrawal of a question the editor replied to. */
void
race_decided(const struct op *op, const char *line, size_t len)
{
	struct question		*q = &px.q[op->slot];
	struct jparse_error	 je;
	const struct jval	*r, *it, *v, *c, *t;
	struct buf		 m = { 0 }, result = { 0 };
	bool			 mine = q->gen == op->gen && q->state != Q_FREE &&
				    q->deciding;
	bool			 arc = false;

	if (!px.decide.active || px.decide.slot != op->slot ||
	    px.decide.gen != op->gen)
		return;
	if (mine && line != NULL && q->interaction[0] != '\0') {
		arena_reset(&px.arena);
		r = json_parse(&px.arena, line, len, &je);
		it = acp_get_unique(r, "interaction");
		v = acp_get_string(it, "id");
		c = acp_get_string(it, "digest");
		if (json_is(acp_get_unique(it, "status"), "answered") && v != NULL &&
		    c != NULL && secret_equal(v->s, v->len, q->interaction,
		    strlen(q->interaction)) && secret_equal(c->s, c->len,
		    q->digest, strlen(q->digest))) {
			const struct jval *resp = acp_get_unique(it, "response");

			c = acp_get_string(resp, "choice_id");
			t = acp_get_string(resp, "text");
			arc = acp_reply(&q->ask, c != NULL ? c->s : NULL,
			    c != NULL ? c->len : 0, t != NULL ? t->s : NULL,
			    t != NULL ? t->len : 0, &result);
			if (!arc)
				warnx("question %s: the answer is none it "
				    "offered; the editor decides", q->key);
		}
	}
	if (arc) {
		/* accepted before the editor's reply: the agent gets it */
		buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"id\":");
		buf_put(&m, q->id, q->idlen);
		buf_puts(&m, ",\"result\":");
		buf_put(&m, result.p, result.len);
		buf_puts(&m, "}\n");
		out_emit(&px.e2a, m.p, m.len);
	} else {
		out_emit(&px.e2a, px.decide.reply.p, px.decide.reply.len);
	}
	buf_free(&m);
	buf_free(&result);
	px.decide.active = false;
	px.decide.reply.len = 0;
	if (mine)
		question_free(q);
	px.e2a.blocked = false;	/* the caller goes on with its input */
}

/*
 * The end of an editor's message held while questions race: what the
 * strict parser reads in it says whether it is a reply to one.  Returns
 * false when the message is not to be forwarded now (dropped, or held
 * for the journal's decision).
 */
bool
race_held_end(struct dir *d, bool *wait)
{
	struct jparse_error	 je;
	const struct jval	*msg, *id = NULL;
	struct question		*q;
	char			 cid[ID_MAX];
	size_t			 cidlen, i, nid = 0, nres = 0;
	bool			 method = false;

	*wait = false;
	arena_reset(&px.arena);
	msg = json_parse(&px.arena, d->msg.p, d->msg.len, &je);
	if (msg == NULL || msg->type != J_OBJECT) {
		race_unclear(d, "is not JSON as arc-acp reads it");
		return true;
	}
	for (i = 0; i < msg->n; i++) {
		const struct jmember *mb = &msg->members[i];

		if (mb->namelen == 2 && memcmp(mb->name, "id", 2) == 0) {
			nid++;
			id = mb->value;
		} else if (mb->namelen == 6 && memcmp(mb->name, "method",
		    6) == 0) {
			method = true;
		} else if ((mb->namelen == 6 && memcmp(mb->name, "result",
		    6) == 0) || (mb->namelen == 5 && memcmp(mb->name, "error",
		    5) == 0)) {
			nres++;
		}
	}
	if (nid == 0)
		return true;
	if (nid > 1) {
		race_unclear(d, "gives its id twice");
		return true;
	}
	if (method) {
		if (nres > 0)
			race_unclear(d, "is a request and a reply");
		return true;	/* a request: never read as a reply */
	}
	if (nres != 1) {
		race_unclear(d, nres == 0 ? "has no result or error" :
		    "gives its result twice");
		return true;
	}
	if (id->rawlen >= ID_MAX || !acp_canon_id(id->raw, id->rawlen, cid,
	    &cidlen))
		return true;
	if (late_reply_take(cid, cidlen, true))
		return false;	/* arc answered first: this reply is late */
	if ((q = question_find(cid, cidlen)) == NULL || q->deciding)
		return true;
	if (!decide_start(q, &d->msg))
		return true;
	*wait = true;
	return false;
}

