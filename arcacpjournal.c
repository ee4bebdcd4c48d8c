/*
 * arc-acp's ARC side: the journal through the commands only.  One
 * arc-apply reads the events arc-acp writes (questions, withdrawals) and
 * prints a result line for each, in order; an arc-wait per open question
 * reports its answer.  An answer counts only when its interaction's id
 * and digest are the ones arc-apply gave this question.
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
#include "arcwaiter.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"
#include "arcsettle.h"
#include "arcevent.h"
#include "arcacpmsg.h"
#include "arcacpout.h"
#include "arcacpjournal.h"

static void
apply_start(void)
{
	int	 in[2], out[2];
	char	*argv[5];
	int	 a = 0;

	acp_pipe(in);
	acp_pipe(out);
	argv[a++] = (char *)"arc-apply";
	argv[a++] = (char *)"-q";
	if (px.journal != NULL) {
		argv[a++] = (char *)"-j";
		argv[a++] = (char *)px.journal;
	}
	argv[a] = NULL;
	px.apply = acp_spawn(px.apply_path, argv, in[0], out[1],
	    strchr(px.apply_path, '/') == NULL);
	(void)close(in[0]);
	(void)close(out[1]);
	if (px.apply == -1) {
		warn("%s", px.apply_path);
		(void)close(in[1]);
		(void)close(out[0]);
		px.apply_dead = true;
		return;
	}
	px.apply_in = in[1];
	px.apply_out = out[0];
	acp_nonblock(px.apply_in);
	acp_nonblock(px.apply_out);
}

static bool
apply_ready(void)
{
	if (px.apply_dead || px.apply_closing)
		return false;
	if (px.apply == 0)
		apply_start();
	return !px.apply_dead;
}

bool
apply_send(const struct buf *event, enum op_kind kind, int slot)
{
	struct op *op;

	if (!apply_ready() || px.op_n == sizeof(px.ops) / sizeof(px.ops[0]))
		return false;
	op = &px.ops[(px.op_head + px.op_n++) % (sizeof(px.ops) /
	    sizeof(px.ops[0]))];
	op->kind = kind;
	op->slot = slot;
	op->gen = px.q[slot].gen;
	buf_put(&px.apply_obuf, event->p, event->len);
	buf_putc(&px.apply_obuf, '\n');
	return true;
}

/* The envelope of arc-acp's events up to the request's first member. */
static void
acp_event_open(struct buf *e, struct event_head *h, bool *first)
{
	h->id_prefix = "evt_acp_";
	h->sender_id = px.agent_id.p;
	h->sender_name = px.agent_name.len > 0 ? px.agent_name.p : NULL;
	h->sender_version = px.agent_version.len > 0 ? px.agent_version.p :
	    NULL;
	h->instance_id = px.instance;
	event_open(e, h, first);
}

/* A request.resolved of arc-acp's: the question's key and outcome. */
void
acp_event_resolved(struct buf *e, const char *key, const char *outcome)
{
	struct event_head	 h = { .type = "request.resolved",
				    .no_context = true };
	bool			 first;

	acp_event_open(e, &h, &first);
	event_member(e, &first, "key", key);
	event_member(e, &first, "outcome", outcome);
	event_close(e, &(struct event_tail){ 0 });
}

/*
 * A copy of a text an event's member may carry whole (no NUL inside, not
 * blank, at most max characters), or NULL; the caller frees it.
 */
static char *
member_text(const struct jval *v, size_t max)
{
	char *s;

	if (v == NULL || v->type != J_STRING || v->codepoints > max ||
	    json_blank(v) || memchr(v->s, '\0', v->len) != NULL)
		return NULL;
	if ((s = strndup(v->s, v->len)) == NULL)
		err(EXIT_SYSTEM, "strndup");
	return s;
}

/*
 * The request.created of a question: its context from the session (the
 * agent's pid, the session, its folder and the project that folder
 * names, the tool call, the request's id), req the request's members up
 * to its response's, which expires_at ends.
 */
void
acp_event_created(struct buf *e, const struct question *q,
    const struct jval *sid, const struct session *s, const struct jval *tcid,
    const struct jval *id, const struct buf *req, const char *expires)
{
	struct event_head	 h = { .type = "request.created",
				    .no_cwd = true };
	char			 pid[24], *project = NULL, *number = NULL;
	char			*session, *correlation, *native = NULL;
	bool			 first;

	(void)snprintf(pid, sizeof(pid), "%ld", (long)px.agent);
	h.pid = pid;
	h.session_id = session = member_text(sid, 100);
	if (s != NULL && s->cwd.len > 0 && s->cwd.len <= 1024 &&
	    memchr(s->cwd.p, '\0', s->cwd.len) == NULL) {
		const char *base = s->cwd.p + s->cwd.len;
		size_t blen = 0;

		while (base > s->cwd.p && base[-1] == '/')
			base--;
		while (base > s->cwd.p && base[-1] != '/')
			base--, blen++;
		while (blen > 0 && base[blen - 1] == '/')
			blen--;
		h.cwd = s->cwd.p;
		if (blen > 0 && blen <= 200 &&
		    (project = strndup(base, blen)) == NULL)
			err(EXIT_SYSTEM, "strndup");
		h.project = project;
	}
	h.correlation_id = correlation = member_text(tcid, 200);
	if (id->type == J_STRING)
		h.native_request_id = native = member_text(id, 200);
	else if (id->type == J_NUMBER) {
		if ((number = strndup(id->raw, id->rawlen)) == NULL)
			err(EXIT_SYSTEM, "strndup");
		h.native_request_id = number;
	}
	acp_event_open(e, &h, &first);
	event_member(e, &first, "key", q->key);
	buf_putc(e, ',');
	buf_put(e, req->p, req->len);
	buf_puts(e, ",\"expires_at\":");
	buf_json_cstr(e, expires);
	buf_putc(e, '}');	/* the response's end */
	event_close(e, &(struct event_tail){ 0 });
	free(project);
	free(number);
	free(session);
	free(correlation);
	free(native);
}

void
question_free(struct question *q)
{
	question_wait_stop(q);
	waiter_release(&q->mark);
	acp_ask_free(&q->ask);
	buf_free(&q->session);
	buf_free(&q->wout);
	if (q->state != Q_FREE && !q->withdrawn)
		px.nracing--;
	q->state = Q_FREE;
	q->withdrawn = false;
}

/* Withdraws a question: its request is no longer arc's to answer. */
void
question_withdraw(struct question *q, const char *outcome)
{
	struct buf e = { 0 };

	if (q->state == Q_FREE || q->withdrawn || q->deciding)
		return;	/* a deciding one: its withdrawal is on the way */
	question_wait_stop(q);
	q->withdrawn = true;
	px.nracing--;
	acp_event_resolved(&e, q->key, outcome);
	if (!apply_send(&e, OP_RESOLVE, (int)(q - px.q)) ||
	    q->state == Q_WAITING)
		question_free(q);	/* an opening one is freed by its result */
	buf_free(&e);
}

void
questions_withdraw(const char *outcome)
{
	size_t i;

	for (i = 0; i < QUESTIONS_MAX; i++)
		question_withdraw(&px.q[i], outcome);
}

static void
wait_start(struct question *q)
{
	int	 out[2];
	char	*argv[7];
	int	 a = 0;

	acp_pipe(out);
	argv[a++] = (char *)"arc-wait";
	/* the receipt is ours, once the agent has the answer */
	argv[a++] = (char *)"--no-receipt";
	if (px.journal != NULL) {
		argv[a++] = (char *)"-j";
		argv[a++] = (char *)px.journal;
	}
	argv[a++] = (char *)"--";
	argv[a++] = q->key;
	argv[a] = NULL;
	q->wpid = acp_spawn(px.wait_path, argv, -1, out[1],
	    strchr(px.wait_path, '/') == NULL);
	(void)close(out[1]);
	if (q->wpid == -1) {
		warn("%s", px.wait_path);
		(void)close(out[0]);
		q->wpid = 0;
		question_withdraw(q, "cancelled");
		return;
	}
	q->wfd = out[0];
	acp_nonblock(q->wfd);
	q->state = Q_WAITING;
}

void
question_wait_stop(struct question *q)
{
	if (q->wpid > 0)
		(void)kill(q->wpid, SIGTERM);	/* reaped on SIGCHLD */
	q->wpid = 0;
	if (q->wfd > 0)
		(void)close(q->wfd);
	q->wfd = -1;
}

static void
drop_add(const char *cid, size_t n)
{
	struct drop *d;

	if (px.drop_n == DROPS_MAX) {	/* the oldest is forgotten */
		px.drop_head = (px.drop_head + 1) % DROPS_MAX;
		px.drop_n--;
	}
	d = &px.drops[(px.drop_head + px.drop_n++) % DROPS_MAX];
	memcpy(d->cid, cid, n);
	d->cidlen = n;
}

bool
late_reply_take(const char *cid, size_t n, bool take)
{
	size_t i;

	for (i = 0; i < px.drop_n; i++) {
		struct drop *d = &px.drops[(px.drop_head + i) % DROPS_MAX];

		if (!acp_cid_eq(d->cid, d->cidlen, cid, n))
			continue;
		if (take) {
			size_t j;

			for (j = i; j + 1 < px.drop_n; j++)
				px.drops[(px.drop_head + j) % DROPS_MAX] =
				    px.drops[(px.drop_head + j + 1) % DROPS_MAX];
			px.drop_n--;
		}
		return true;
	}
	return false;
}

struct question *
question_find(const char *cid, size_t n)
{
	size_t i;

	for (i = 0; i < QUESTIONS_MAX; i++)
		if (px.q[i].state != Q_FREE && !px.q[i].withdrawn &&
		    acp_cid_eq(px.q[i].cid, px.q[i].cidlen, cid, n))
			return &px.q[i];
	return NULL;
}

bool
questions_racing(void)
{
	return px.drop_n > 0 || px.nracing > 0;
}

/* The agent's name, as the person reads it in a receipt. */
static const char *
agent_named(void)
{
	return px.agent_name.len > 0 ? px.agent_name.p : px.agent_id.p;
}

/* While arc waits for its answer, the question is held by us. */
static void
hold_mark(struct question *q)
{
	char *path = journal_default_path(px.journal);

	if (waiter_hold(&q->mark, path, q->key, q->interaction,
	    agent_named()))
		(void)waiter_claim(&q->mark, q->key, q->interaction,
		    agent_named(), q->interaction);
	free(path);
}

/* The person answered through arc: the agent gets it, the editor lets go. */
static void
answered(struct question *q)
{
	struct jparse_error	 je;
	const struct jval	*rec, *resp, *v, *c, *t;
	struct buf		 m = { 0 }, result = { 0 };

	arena_reset(&px.arena);
	rec = json_parse(&px.arena, q->wout.p != NULL ? q->wout.p : "",
	    q->wout.len > 0 && q->wout.p[q->wout.len - 1] == '\n' ?
	    q->wout.len - 1 : q->wout.len, &je);
	if (rec == NULL || !json_is(acp_get_unique(rec, "status"), "answered"))
		goto done;	/* expired, withdrawn: nothing to either side */
	v = acp_get_string(rec, "id");
	c = acp_get_string(rec, "digest");
	if (v == NULL || c == NULL ||
	    !secret_equal(v->s, v->len, q->interaction, strlen(q->interaction)) ||
	    !secret_equal(c->s, c->len, q->digest, strlen(q->digest))) {
		warnx("question %s: the answer is to another question under "
		    "its key; the editor decides", q->key);
		goto done;
	}
	resp = acp_get_unique(rec, "response");
	c = acp_get_string(resp, "choice_id");
	t = acp_get_string(resp, "text");
	if (!acp_reply(&q->ask, c != NULL ? c->s : NULL, c != NULL ? c->len : 0,
	    t != NULL ? t->s : NULL, t != NULL ? t->len : 0, &result)) {
		warnx("question %s: the answer is none it offered; the editor "
		    "decides", q->key);
		goto done;
	}
	buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"id\":");
	buf_put(&m, q->id, q->idlen);
	buf_puts(&m, ",\"result\":");
	buf_put(&m, result.p, result.len);
	buf_puts(&m, "}\n");
	out_inject(&px.e2a, &m);
	/* Written to the agent whole: its receipt (not, if it is gone). */
	if (!px.e2a.mid)
		(void)out_flush(&px.e2a);
	if (px.e2a.out_dead || (!px.e2a.mid && out_pending(&px.e2a) == 0)) {
		struct settle s = { .open = false };
		(void)settle_receipt(&s, px.journal, q->key, q->interaction,
		    agent_named(), !px.e2a.out_dead);
		settle_done(&s);
	}
	m.len = 0;
	buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancel_request\","
	    "\"params\":{\"requestId\":");
	buf_put(&m, q->id, q->idlen);
	buf_puts(&m, "}}\n");
	out_inject(&px.a2e, &m);
	drop_add(q->cid, q->cidlen);
done:
	buf_free(&m);
	buf_free(&result);
	question_free(q);
}

void
question_wait_read(struct question *q)
{
	char	 b[4096];
	ssize_t	 r;

	for (;;) {
		r = read(q->wfd, b, sizeof(b));
		if (r > 0) {
			if (q->wout.len + (size_t)r > RESULT_MAX)
				q->wtoolong = true;
			else
				buf_put(&q->wout, b, (size_t)r);
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		break;	/* end, or an error: what came is all */
	}
	(void)close(q->wfd);
	q->wfd = -1;
	q->wpid = 0;	/* it exits: reaped on SIGCHLD */
	if (q->wtoolong) {
		warnx("question %s: arc-wait said too much", q->key);
		question_free(q);
		return;
	}
	answered(q);
}

/* One result line of arc-apply, for the oldest event it was sent. */
static void
apply_result(const char *line, size_t len)
{
	struct op		 op;
	struct question		*q;
	struct jparse_error	 je;
	const struct jval	*r, *st, *it, *id, *dg;

	if (px.op_n == 0) {
		warnx("arc-apply printed a line for no event");
		return;
	}
	op = px.ops[px.op_head];
	px.op_head = (px.op_head + 1) % (sizeof(px.ops) / sizeof(px.ops[0]));
	px.op_n--;
	q = &px.q[op.slot];
	if (op.kind == OP_DECIDE) {
		/* the race's to read (arcacprace.c), once this read is done */
		px.decide.result_in = true;
		px.decide.result_op = op;
		px.decide.result_none = line == NULL;
		acp_buf_set(&px.decide.result, line != NULL ? line : "",
		    line != NULL ? len : 0);
		return;
	}
	if (op.kind != OP_OPEN || q->gen != op.gen || q->state != Q_OPENING)
		return;
	if (q->withdrawn) {	/* its withdrawal is on the way */
		question_free(q);
		return;
	}
	arena_reset(&px.arena);
	r = line != NULL ? json_parse(&px.arena, line, len, &je) : NULL;
	st = acp_get_unique(r, "status");
	it = acp_get_unique(r, "interaction");
	id = acp_get_string(it, "id");
	dg = acp_get_string(it, "digest");
	if (st == NULL || st->type != J_NUMBER || !json_is(acp_get_unique(r,
	    "key"), q->key) || id == NULL || dg == NULL ||
	    id->len >= sizeof(q->interaction) || dg->len != 64 ||
	    !(st->len == 3 && memcmp(st->s, "201", 3) == 0)) {
		const struct jval *e = acp_get_unique(r, "error");
		const struct jval *code = acp_get_string(e, "code");
		const struct jval *path = acp_get_string(e, "path");

		warnx("arc-apply refused the question for request %s (%.*s%s%.*s)",
		    q->key, code != NULL ? (int)code->len : 6,
		    code != NULL ? code->s : "no key",
		    path != NULL ? " at " : "",
		    path != NULL && path->len < 80 ? (int)path->len : 0,
		    path != NULL ? path->s : "");
		question_free(q);
		return;
	}
	memcpy(q->interaction, id->s, id->len);
	q->interaction[id->len] = '\0';
	memcpy(q->digest, dg->s, 64);
	q->digest[64] = '\0';
	hold_mark(q);
	if (q->deciding) {
		q->state = Q_WAITING;	/* the editor replied: no arc-wait */
		return;
	}
	wait_start(q);
}

void
apply_read(void)
{
	char	 b[8192];
	ssize_t	 r;

	for (;;) {
		r = read(px.apply_out, b, sizeof(b));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r <= 0)
			break;
		for (ssize_t i = 0, s = 0; i < r; i++) {
			if (b[i] != '\n') {
				if (i + 1 == r) {
					if (px.apply_line.len + (size_t)(r - s) >
					    RESULT_MAX)
						px.apply_toolong = true;
					else
						buf_put(&px.apply_line, b + s,
						    (size_t)(r - s));
				}
				continue;
			}
			if (px.apply_line.len + (size_t)(i - s) > RESULT_MAX)
				px.apply_toolong = true;
			else
				buf_put(&px.apply_line, b + s, (size_t)(i - s));
			apply_result(px.apply_toolong ? NULL : px.apply_line.p,
			    px.apply_line.len);
			px.apply_line.len = 0;
			px.apply_toolong = false;
			s = i + 1;
		}
	}
	/* arc-apply is gone: what it did not answer is not arc's */
	(void)close(px.apply_out);
	px.apply_out = -1;
	if (px.apply_in >= 0)
		(void)close(px.apply_in);
	px.apply_in = -1;
	if (!px.apply_closing && !px.warned_apply) {
		warnx("arc-apply stopped; requests stay with the editor");
		px.warned_apply = true;
	}
	px.apply_dead = true;
	while (px.op_n > 0)
		apply_result(NULL, 0);
}

void
apply_flush(void)
{
	size_t left;

	while (px.apply_in >= 0 && (left = px.apply_obuf.len -
	    px.apply_ooff) > 0) {
		ssize_t w = write(px.apply_in, px.apply_obuf.p + px.apply_ooff,
		    left);

		if (w > 0) {
			px.apply_ooff += (size_t)w;
			continue;
		}
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		(void)close(px.apply_in);	/* its reader tells the rest */
		px.apply_in = -1;
	}
	px.apply_obuf.len = px.apply_ooff = 0;
	if (px.apply_closing && px.apply_in >= 0) {
		(void)close(px.apply_in);
		px.apply_in = -1;
	}
}

