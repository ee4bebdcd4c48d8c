/*
 * arc-acp: a permission proxy for the Agent Client Protocol.
 *
 * The editor starts `arc-acp -- AGENT ARG...` where it started AGENT.
 * arc-acp runs AGENT on two pipes and forwards every message both ways,
 * byte for byte and in order (ACP is newline-delimited JSON-RPC 2.0), and
 * leaves AGENT's standard error on its own.  When the agent asks the
 * editor for permission (session/request_permission) or for one field of
 * input (elicitation/create), the request goes to the editor as usual and
 * the same question opens in the arc journal: whoever answers first wins.
 *
 *   the person answers through arc first: the agent gets the answer as
 *     the editor's reply would have carried it, the editor gets
 *     $/cancel_request for that request, and its late reply is dropped;
 *   the editor answers first: its reply goes on, the question is withdrawn;
 *   session/cancel from the editor, $/cancel_request from the agent, the
 *     editor or the agent going away: the questions concerned are
 *     withdrawn; a question that expires decides nothing.
 *
 * Streaming.  Each direction is read in chunks and each message is
 * forwarded as it arrives, except an editor's message that may be the
 * reply to a question in the race, which is held until its id is known
 * (and, when it is such a reply, until it ends: it is forwarded or
 * dropped whole).  A top-level scanner finds "id", "method", "result" and
 * "error" as the bytes go by; past them a message is only searched for
 * its newline.  A message that begins as notifications do,
 * {"jsonrpc":"2.0","method":"M", with a plain M that this direction does
 * not act on, is decided by M without the scanner (it would stop there
 * too), and the run of such whole messages in a read is forwarded as one
 * span, written from the read buffer when the output is free.  What is
 * acted on is copied, one message at a time, up to MSG_MAX bytes; a
 * longer one is forwarded and not acted on.  Nothing is ever dropped but
 * the one late reply.
 *
 * The journal is reached through the commands only: one arc-apply reads
 * the events arc-acp writes (questions, withdrawals) and prints a result
 * line for each; an arc-wait per open question reports its answer.  An
 * answer counts only when its interaction's id and digest are the ones
 * arc-apply gave this question.  Nothing here prints a nonce, a digest,
 * a prompt, a label or an answer.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "arcspawn.h"
#include "arcwaiter.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"
#include "arcsettle.h"
#include "arcacpmsg.h"
#include "arcacpscan.h"
#include "arcevent.h"
#include "arcusage.h"

int	acp_main(int, char **);


#define IBUF_SIZE	(256 * 1024)	/* one read */
#define MSG_MAX		(1024 * 1024)	/* the one message acted on */
#define ID_MAX		ACP_ID_MAX	/* a JSON-RPC id, as text */
#define QUESTIONS_MAX	32	/* open at once; more stay with the editor */
#define DROPS_MAX	64	/* late replies still to drop */
#define PENDING_MAX	16	/* editor requests whose replies we read */
#define SESSIONS_MAX	64
#define RESULT_MAX	(1024 * 1024)	/* a result line of arc-apply */
#define CLOSE_SECONDS	10	/* for arc-apply to take the last events */

static const char usage_text[] =
"usage: arc-acp [-j journal] [-t duration] [--] agent [arg ...]\n"
"\n"
"Runs agent as an ACP permission proxy: every message passes both ways\n"
"unchanged; a permission request also opens the question in the journal,\n"
"and whoever answers first, the editor or arc, wins.\n"
"\n"
"  -j, --journal file    the journal (else $ARC_JOURNAL, else the usual)\n"
"  -t, --timeout duration  a question expires after duration (default 1h;\n"
"                        90s 10m 2h 1d 1w 1h30m, or seconds: 2.5)\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

#define RPC_PREFIX	"{\"jsonrpc\":\"2.0\","

/* ---- state ---- */

struct dir {
	const char	*name;	/* for diagnostics: "editor", "agent" */
	int		 in, out;
	bool		 in_eof;
	bool		 out_dead;	/* closed or failed: output discarded */
	char		*ibuf;
	size_t		 ilen, ioff;
	struct buf	 obuf;
	size_t		 ooff;
	const char	*span;	/* bytes of ibuf to forward, not yet copied */
	size_t		 spanlen;
	struct buf	 inject;	/* our own messages, at the next boundary */
	/* the message being read */
	bool		 fresh;	/* at its first byte */
	bool		 mid;	/* some of it is forwarded */
	bool		 held;	/* msg holds bytes not yet forwarded */
	bool		 keep;	/* msg is a copy kept to act on */
	bool		 drop;	/* its bytes are discarded */
	bool		 scanning;
	bool		 toolong;
	struct buf	 msg;
	struct acp_scan	 sc;
	char		 id[ID_MAX];	/* its first id, as written */
	size_t		 idlen;
	bool		 has_id, has_method, response, interesting;
	const char	*ours;	/* a method member names one acted on */
	char		 method[40];	/* its first method, unescaped */
	bool		 blocked;	/* e2a: a reply waits for the journal */
};

enum q_state { Q_FREE, Q_OPENING, Q_WAITING };

struct question {
	enum q_state	 state;
	unsigned	 gen;
	bool		 withdrawn;
	char		 id[ID_MAX];	/* raw, as the agent wrote it */
	size_t		 idlen;
	char		 cid[ID_MAX];	/* by value: canon_id() */
	size_t		 cidlen;
	bool		 deciding;	/* the editor replied: the journal decides */
	struct buf	 session;	/* the ACP sessionId, decoded */
	char		 key[101];
	char		 interaction[128];
	char		 digest[ARC_HEX_DIGEST];
	struct acp_ask	 ask;
	pid_t		 wpid;
	int		 wfd;
	struct buf	 wout;
	bool		 wtoolong;
	/*
	 * Its waiter mark (arcwaiter.h), held while arc waits for the
	 * answer: arc-acp killed hard, the question is withdrawn.
	 */
	struct waiter	 mark;
};

enum op_kind { OP_OPEN, OP_RESOLVE, OP_DECIDE };
struct op {
	enum op_kind	 kind;
	int		 slot;
	unsigned	 gen;
};

enum pend_kind { P_INIT, P_NEW, P_LOAD };
struct pending {
	bool		 used;
	enum pend_kind	 kind;
	char		 cid[ID_MAX];
	size_t		 cidlen;
	struct buf	 session, cwd;
};

struct session {
	bool		 used;
	struct buf	 id, cwd;
};

struct drop {
	char		 cid[ID_MAX];
	size_t		 cidlen;
};

static struct proxy {
	const char	*journal;
	int64_t		 timeout;	/* seconds a question stays open */
	char		 apply_path[PATH_MAX], wait_path[PATH_MAX];
	char		 instance[9];	/* this proxy, in keys */
	const char	*agent_cmd;
	pid_t		 agent;
	int		 agent_status;
	bool		 agent_exited;
	struct dir	 e2a, a2e;	/* editor to agent, agent to editor */
	/* the agent */
	struct buf	 agent_id, agent_name, agent_version;
	/* arc-apply */
	pid_t		 apply;
	int		 apply_in, apply_out;
	bool		 apply_dead, apply_closing;
	struct buf	 apply_obuf;
	size_t		 apply_ooff;
	struct buf	 apply_line;
	bool		 apply_toolong;
	struct op	 ops[QUESTIONS_MAX * 4];
	size_t		 op_head, op_n;
	struct question	 q[QUESTIONS_MAX];
	size_t		 nracing;	/* of q: open and not withdrawn */
	unsigned	 gen;
	struct drop	 drops[DROPS_MAX];
	size_t		 drop_head, drop_n;
	struct pending	 pend[PENDING_MAX];
	size_t		 pend_next;
	struct session	 sess[SESSIONS_MAX];
	size_t		 sess_next;
	struct arena	 arena;	/* the message acted on */
	struct arena	 idarena;	/* ids */
	struct buf	 idtmp;
	bool		 warned_full, warned_apply;
	/* the editor's reply to a question, held until the journal decides */
	struct {
		bool		 active;
		int		 slot;
		unsigned	 gen;
		struct buf	 reply;	/* the whole message and its newline */
	} decide;
	int		 sigpipe[2];
	int		 stdin_flags, stdout_flags;
} px;

/* ---- small helpers ---- */

static void
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		err(EXIT_SYSTEM, "fcntl");
}

static void
set_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	if (fl == -1 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) == -1)
		err(EXIT_SYSTEM, "fcntl");
}

static void
xpipe(int fd[2])
{
	if (pipe2(fd, O_CLOEXEC) == -1)
		err(EXIT_SYSTEM, "pipe");
}

static void
on_signal(int sig)
{
	int		 saved = errno;
	unsigned char	 c = (unsigned char)sig;

	(void)write(px.sigpipe[1], &c, 1);
	errno = saved;
}

/* The command beside this program when there is one, else by PATH. */
static void
find_command(const char *argv0, const char *name, char *out, size_t n)
{
	char		 self[PATH_MAX];
	ssize_t		 len;
	char		*slash;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len > 0) {
		self[len] = '\0';
	} else if (strchr(argv0, '/') != NULL &&
	    strlen(argv0) < sizeof(self)) {
		strlcpy(self, argv0, sizeof(self));
	} else {
		self[0] = '\0';
	}
	if ((slash = strrchr(self, '/')) != NULL) {
		*slash = '\0';
		if ((size_t)snprintf(out, n, "%s/%s", self, name) < n &&
		    access(out, X_OK) == 0)
			return;
	}
	strlcpy(out, name, n);	/* spawn_start finds it on PATH */
}

/*
 * Starts a command with the given descriptors as its standard input and
 * output (-1: /dev/null for input, ours for output); its standard error
 * is ours.  Its signals are at their defaults, whatever ours are.
 */
static pid_t
spawn(const char *path, char *const argv[], int in, int out, bool search)
{
	return spawn_start(path, argv, in >= 0 ? in : SPAWN_NULL, out >= 0 ?
	    out : SPAWN_OURS, SPAWN_OURS, search);
}

/*
 * A number as JSON-RPC peers read it: a double (JavaScript's, and what
 * Python's 5.0 == 5 compares), -0 as 0.  False when it is none.
 */
static bool
id_number(const struct jval *v, double *d)
{
	char	 num[ID_MAX], *end;

	if (v->type != J_NUMBER || v->len >= sizeof(num))
		return false;
	memcpy(num, v->s, v->len);
	num[v->len] = '\0';
	errno = 0;
	*d = strtod(num, &end);
	if (*end != '\0' || !isfinite(*d))
		return false;
	if (*d == 0)
		*d = 0;	/* -0 */
	return true;
}

/*
 * A JSON-RPC id by its value, as text: a string as its RFC 8785 form (in
 * quotes), a number as the double it is (5, 5.0 and 5e0 are one id; never
 * a string), null as null.  False for anything else.
 */
static bool
canon_id(const char *raw, size_t n, char out[ID_MAX], size_t *outlen)
{
	struct jparse_error	 je;
	struct jval		*v;
	double			 d;
	int			 w;

	arena_reset(&px.idarena);
	v = json_parse(&px.idarena, raw, n, &je);
	if (v == NULL)
		return false;
	px.idtmp.len = 0;
	if (v->type == J_STRING || v->type == J_NULL) {
		json_write(&px.idtmp, v, JSON_CANONICAL);
	} else if (id_number(v, &d)) {
		w = snprintf(out, ID_MAX, "%.17g", d);
		if (w < 0 || w >= ID_MAX)
			return false;
		*outlen = (size_t)w;
		return true;
	} else {
		return false;
	}
	if (px.idtmp.len >= ID_MAX)
		return false;
	memcpy(out, px.idtmp.p, px.idtmp.len);
	*outlen = px.idtmp.len;
	return true;
}

static bool
cid_eq(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && memcmp(a, b, an) == 0;
}

static bool
acp_buf_eq(const struct buf *b, const char *s, size_t n)
{
	return b->len == n && (n == 0 || memcmp(b->p, s, n) == 0);
}

static void
buf_set(struct buf *b, const char *s, size_t n)
{
	b->len = 0;
	buf_put(b, s, n);
}

static const struct jval *
get_unique(const struct jval *o, const char *name)
{
	const struct jval	*found = NULL;
	size_t			 i, len = strlen(name);

	if (o == NULL || o->type != J_OBJECT)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (o->members[i].namelen == len &&
		    memcmp(o->members[i].name, name, len) == 0) {
			if (found != NULL)
				return NULL;
			found = o->members[i].value;
		}
	return found;
}

static const struct jval *
get_string(const struct jval *o, const char *name)
{
	const struct jval *v = get_unique(o, name);

	return v != NULL && v->type == J_STRING ? v : NULL;
}

/* ---- output: what each direction forwards ---- */

/*
 * Bytes of the input being processed are forwarded as a span of ibuf:
 * written from there when the output is free, copied only when it is not
 * or when something else is emitted after them.
 */
static void
span_copy(struct dir *d)
{
	if (d->spanlen > 0 && !d->out_dead)
		buf_put(&d->obuf, d->span, d->spanlen);
	d->spanlen = 0;
}

static void
span_out(struct dir *d)
{
	ssize_t w;

	if (d->spanlen > 0 && !d->out_dead && d->obuf.len == d->ooff) {
		w = write(d->out, d->span, d->spanlen);
		if (w > 0) {
			d->span += w;
			d->spanlen -= (size_t)w;
		}
		/* an error is dir_flush's, on what is left */
	}
	span_copy(d);
}

/* Bytes of d's ibuf, in order. */
static void
forward(struct dir *d, const char *p, size_t n)
{
	if (d->out_dead || n == 0)
		return;
	if (d->spanlen > 0 && d->span + d->spanlen == p) {
		d->spanlen += n;
		return;
	}
	span_copy(d);
	d->span = p;
	d->spanlen = n;
}

static void
emit(struct dir *d, const char *p, size_t n)
{
	if (d->out_dead || n == 0)
		return;
	span_copy(d);
	buf_put(&d->obuf, p, n);
}

static size_t
pending_out(const struct dir *d)
{
	return d->obuf.len - d->ooff;
}

/* One message of ours, between two of the stream's. */
static void
inject(struct dir *d, const struct buf *m)
{
	if (d->out_dead)
		return;
	if (d->mid)
		buf_put(&d->inject, m->p, m->len);
	else
		emit(d, m->p, m->len);
}

static void editor_gone(void);

static void
dir_flush(struct dir *d)
{
	while (pending_out(d) > 0 && !d->out_dead) {
		ssize_t w = write(d->out, d->obuf.p + d->ooff, pending_out(d));

		if (w > 0) {
			d->ooff += (size_t)w;
			continue;
		}
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w == -1 && errno != EPIPE)
			warn("writing to the %s", d == &px.a2e ? "editor" :
			    "agent");
		d->out_dead = true;
		if (d == &px.a2e)
			editor_gone();
	}
	if (pending_out(d) == 0 || d->out_dead)
		d->obuf.len = d->ooff = 0;
}

/* ---- the journal: arc-apply and arc-wait ---- */

static void
apply_start(void)
{
	int	 in[2], out[2];
	char	*argv[5];
	int	 a = 0;

	xpipe(in);
	xpipe(out);
	argv[a++] = (char *)"arc-apply";
	argv[a++] = (char *)"-q";
	if (px.journal != NULL) {
		argv[a++] = (char *)"-j";
		argv[a++] = (char *)px.journal;
	}
	argv[a] = NULL;
	px.apply = spawn(px.apply_path, argv, in[0], out[1],
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
	set_nonblock(px.apply_in);
	set_nonblock(px.apply_out);
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

static bool
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
static void
event_resolved(struct buf *e, const char *key, const char *outcome)
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
static void
created_event(struct buf *e, const struct question *q,
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

static void wait_stop(struct question *);

static void
q_free(struct question *q)
{
	wait_stop(q);
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
static void
withdraw(struct question *q, const char *outcome)
{
	struct buf e = { 0 };

	if (q->state == Q_FREE || q->withdrawn || q->deciding)
		return;	/* a deciding one: its withdrawal is on the way */
	wait_stop(q);
	q->withdrawn = true;
	px.nracing--;
	event_resolved(&e, q->key, outcome);
	if (!apply_send(&e, OP_RESOLVE, (int)(q - px.q)) ||
	    q->state == Q_WAITING)
		q_free(q);	/* an opening one is freed by its result */
	buf_free(&e);
}

static void
withdraw_all(const char *outcome)
{
	size_t i;

	for (i = 0; i < QUESTIONS_MAX; i++)
		withdraw(&px.q[i], outcome);
}

static void
wait_start(struct question *q)
{
	int	 out[2];
	char	*argv[7];
	int	 a = 0;

	xpipe(out);
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
	q->wpid = spawn(px.wait_path, argv, -1, out[1],
	    strchr(px.wait_path, '/') == NULL);
	(void)close(out[1]);
	if (q->wpid == -1) {
		warn("%s", px.wait_path);
		(void)close(out[0]);
		q->wpid = 0;
		withdraw(q, "cancelled");
		return;
	}
	q->wfd = out[0];
	set_nonblock(q->wfd);
	q->state = Q_WAITING;
}

static void
wait_stop(struct question *q)
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

static bool
drop_take(const char *cid, size_t n, bool take)
{
	size_t i;

	for (i = 0; i < px.drop_n; i++) {
		struct drop *d = &px.drops[(px.drop_head + i) % DROPS_MAX];

		if (!cid_eq(d->cid, d->cidlen, cid, n))
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

static struct question *
q_find(const char *cid, size_t n)
{
	size_t i;

	for (i = 0; i < QUESTIONS_MAX; i++)
		if (px.q[i].state != Q_FREE && !px.q[i].withdrawn &&
		    cid_eq(px.q[i].cid, px.q[i].cidlen, cid, n))
			return &px.q[i];
	return NULL;
}

static bool
racing(void)
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
	if (rec == NULL || !json_is(get_unique(rec, "status"), "answered"))
		goto done;	/* expired, withdrawn: nothing to either side */
	v = get_string(rec, "id");
	c = get_string(rec, "digest");
	if (v == NULL || c == NULL ||
	    !secret_equal(v->s, v->len, q->interaction, strlen(q->interaction)) ||
	    !secret_equal(c->s, c->len, q->digest, strlen(q->digest))) {
		warnx("question %s: the answer is to another question under "
		    "its key; the editor decides", q->key);
		goto done;
	}
	resp = get_unique(rec, "response");
	c = get_string(resp, "choice_id");
	t = get_string(resp, "text");
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
	inject(&px.e2a, &m);
	/* Written to the agent whole: its receipt (not, if it is gone). */
	if (!px.e2a.mid)
		dir_flush(&px.e2a);
	if (px.e2a.out_dead || (!px.e2a.mid && pending_out(&px.e2a) == 0)) {
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
	inject(&px.a2e, &m);
	drop_add(q->cid, q->cidlen);
done:
	buf_free(&m);
	buf_free(&result);
	q_free(q);
}

static void
wait_read(struct question *q)
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
		q_free(q);
		return;
	}
	answered(q);
}

static void decided(const struct op *, const char *, size_t);

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
		decided(&op, line, len);
		return;
	}
	if (op.kind != OP_OPEN || q->gen != op.gen || q->state != Q_OPENING)
		return;
	if (q->withdrawn) {	/* its withdrawal is on the way */
		q_free(q);
		return;
	}
	arena_reset(&px.arena);
	r = line != NULL ? json_parse(&px.arena, line, len, &je) : NULL;
	st = get_unique(r, "status");
	it = get_unique(r, "interaction");
	id = get_string(it, "id");
	dg = get_string(it, "digest");
	if (st == NULL || st->type != J_NUMBER || !json_is(get_unique(r,
	    "key"), q->key) || id == NULL || dg == NULL ||
	    id->len >= sizeof(q->interaction) || dg->len != 64 ||
	    !(st->len == 3 && memcmp(st->s, "201", 3) == 0)) {
		const struct jval *e = get_unique(r, "error");
		const struct jval *code = get_string(e, "code");
		const struct jval *path = get_string(e, "path");

		warnx("arc-apply refused the question for request %s (%.*s%s%.*s)",
		    q->key, code != NULL ? (int)code->len : 6,
		    code != NULL ? code->s : "no key",
		    path != NULL ? " at " : "",
		    path != NULL && path->len < 80 ? (int)path->len : 0,
		    path != NULL ? path->s : "");
		q_free(q);
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

static void
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

static void
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

/* ---- keys ---- */

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
		buf_set(&s->id, id->p, id->len);
	}
	buf_set(&s->cwd, cwd->p != NULL ? cwd->p : "", cwd->len);
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
	const struct jval	*id = get_unique(msg, "id");
	const struct jval	*params = get_unique(msg, "params");
	const struct jval	*sid = get_string(params, "sessionId");
	const struct jval	*call = get_unique(params, "toolCall");
	const struct jval	*tcid = get_string(call, "toolCallId");
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
	    !canon_id(id->raw, id->rawlen, cid, &cidlen)) {
		left(what, "its id is not one arc-acp reads");
		return;
	}
	if (id->type != J_STRING && !(id_number(id, &num) &&
	    num == floor(num) && fabs(num) <= 9007199254740991.0)) {
		left(what, "its id is neither a string nor a whole number "
		    "that peers read alike");
		return;
	}
	if (acp_duplicated(msg)) {
		left(what, "a member is given twice in it");
		return;
	}
	if (q_find(cid, cidlen) != NULL) {
		left(what, "it reuses the id of a request still open");
		return;
	}
	/* The agent took arc's answer to the old one: its id is free again. */
	(void)drop_take(cid, cidlen, true);
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
		buf_set(&q->session, sid->s, sid->len);
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
			q_free(q);
			goto out;
		}

	if (!rfc3339_after(arc_now(), px.timeout, expires, sizeof(expires))) {
		warnx("cannot tell when a question would expire");
		q_free(q);
		goto out;
	}
	created_event(&e, q, sid, s, tcid, id, &req, expires);
	if (e.len > ARC_LINE_MAX || !apply_send(&e, OP_OPEN, (int)(q - px.q))) {
		left(what, "its question cannot be sent to arc-apply");
		q_free(q);
		goto out;
	}
	q->state = Q_OPENING;
	px.nracing++;
out:
	buf_free(&req);
	buf_free(&e);
	buf_free(&k);
}

static struct pending *
pending_find(const char *cid, size_t n)
{
	size_t i;

	for (i = 0; i < PENDING_MAX; i++)
		if (px.pend[i].used && cid_eq(px.pend[i].cid, px.pend[i].cidlen,
		    cid, n))
			return &px.pend[i];
	return NULL;
}

/* The agent's reply to initialize or session/new, /load, /resume. */
static void
agent_reply(const struct jval *msg, struct pending *p)
{
	const struct jval *res = get_unique(msg, "result");

	p->used = false;
	if (res == NULL || res->type != J_OBJECT)
		return;
	if (p->kind == P_INIT) {
		const struct jval *info = get_unique(res, "agentInfo");
		const struct jval *name = get_string(info, "name");
		const struct jval *title = get_string(info, "title");
		const struct jval *ver = get_string(info, "version");

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
		const struct jval *sid = get_string(res, "sessionId");

		if (sid == NULL)
			return;
		buf_set(&p->session, sid->s, sid->len);
	}
	if (p->session.len > 0)
		session_add(&p->session, &p->cwd);
}

/* $/cancel_request from the agent: that request's question goes. */
static void
agent_cancel(const struct jval *msg)
{
	const struct jval	*rid = get_unique(get_unique(msg, "params"),
				    "requestId");
	struct question		*q;
	char			 cid[ID_MAX];
	size_t			 cidlen;

	if (rid == NULL || rid->rawlen >= ID_MAX ||
	    !canon_id(rid->raw, rid->rawlen, cid, &cidlen)) {
		left("$/cancel_request", "its requestId is not one arc-acp "
		    "reads");
		return;
	}
	if ((q = q_find(cid, cidlen)) != NULL)
		withdraw(q, "cancelled");
}

/*
 * A message of the agent's, whole.  One that names a method acted on is
 * acted on only when the strict parser reads it and each member it uses
 * is given once; else it stays with the editor, and stderr says why.
 */
static void
agent_message(struct dir *d)
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
	m = get_unique(msg, "method");
	id = get_unique(msg, "id");
	if (what == NULL) {
		if (m == NULL && id != NULL && id->rawlen < ID_MAX &&
		    canon_id(id->raw, id->rawlen, cid, &cidlen) &&
		    (p = pending_find(cid, cidlen)) != NULL)
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
	const struct jval	*id = get_unique(msg, "id");
	const struct jval	*params = get_unique(msg, "params");
	struct pending		*p;
	enum pend_kind		 kind;
	size_t			 i;

	if (json_is(m, "session/cancel")) {
		const struct jval *sid = get_string(params, "sessionId");

		for (i = 0; sid != NULL && i < QUESTIONS_MAX; i++)
			if (px.q[i].state != Q_FREE &&
			    acp_buf_eq(&px.q[i].session, sid->s, sid->len))
				withdraw(&px.q[i], "cancelled");
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
	if (!canon_id(id->raw, id->rawlen, p->cid, &p->cidlen)) {
		p->used = false;
		return;
	}
	p->used = true;
	p->kind = kind;
	p->session.len = p->cwd.len = 0;
	if (kind != P_INIT) {
		const struct jval *cwd = get_string(params, "cwd");
		const struct jval *sid = get_string(params, "sessionId");

		if (cwd != NULL)
			buf_set(&p->cwd, cwd->s, cwd->len);
		if (sid != NULL && kind == P_LOAD)
			buf_set(&p->session, sid->s, sid->len);
	}
}

static void
editor_message(struct dir *d)
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
	if ((m = get_unique(msg, "method")) != NULL)
		editor_request(msg, m);
}

/* ---- the editor's reply and arc's answer: one decision ---- */

/*
 * A message from the editor that may be the reply to a question but is
 * not one arc-acp reads unambiguously: it goes to the agent, and each
 * question it may answer is left to the editor.
 */
static void
editor_unclear(const struct dir *d, const char *why)
{
	char		 cid[ID_MAX];
	size_t		 cidlen, i;
	struct question	*q;

	for (i = 0; i < d->sc.nid && i < ACP_SCAN_IDS; i++) {
		if (d->sc.idlen[i] == 0 || !canon_id(d->sc.id[i],
		    d->sc.idlen[i], cid, &cidlen) ||
		    (q = q_find(cid, cidlen)) == NULL || q->deciding)
			continue;
		warnx("question %s: the editor's message for its request %s; "
		    "the editor decides it", q->key, why);
		withdraw(q, "not_needed");
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

	event_resolved(&e, q->key, "not_needed");
	ok = apply_send(&e, OP_DECIDE, (int)(q - px.q));
	buf_free(&e);
	if (!ok) {
		withdraw(q, "not_needed");
		return false;
	}
	wait_stop(q);	/* arc-apply's result is the one word on it now */
	q->deciding = true;
	px.decide.active = true;
	px.decide.slot = (int)(q - px.q);
	px.decide.gen = q->gen;
	buf_set(&px.decide.reply, reply->p, reply->len);
	buf_putc(&px.decide.reply, '\n');
	px.e2a.blocked = true;
	return true;
}

static void process(struct dir *);

/* arc-apply's result for the withdrawal of a question the editor replied to. */
static void
decided(const struct op *op, const char *line, size_t len)
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
		it = get_unique(r, "interaction");
		v = get_string(it, "id");
		c = get_string(it, "digest");
		if (json_is(get_unique(it, "status"), "answered") && v != NULL &&
		    c != NULL && secret_equal(v->s, v->len, q->interaction,
		    strlen(q->interaction)) && secret_equal(c->s, c->len,
		    q->digest, strlen(q->digest))) {
			const struct jval *resp = get_unique(it, "response");

			c = get_string(resp, "choice_id");
			t = get_string(resp, "text");
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
		emit(&px.e2a, m.p, m.len);
	} else {
		emit(&px.e2a, px.decide.reply.p, px.decide.reply.len);
	}
	buf_free(&m);
	buf_free(&result);
	px.decide.active = false;
	px.decide.reply.len = 0;
	if (mine)
		q_free(q);
	px.e2a.blocked = false;
	process(&px.e2a);	/* what the editor sent after it */
}

/*
 * The end of an editor's message held while questions race: what the
 * strict parser reads in it says whether it is a reply to one.  Returns
 * false when the message is not to be forwarded now (dropped, or held
 * for the journal's decision).
 */
static bool
editor_held_end(struct dir *d, bool *wait)
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
		editor_unclear(d, "is not JSON as arc-acp reads it");
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
		editor_unclear(d, "gives its id twice");
		return true;
	}
	if (method) {
		if (nres > 0)
			editor_unclear(d, "is a request and a reply");
		return true;	/* a request: never read as a reply */
	}
	if (nres != 1) {
		editor_unclear(d, nres == 0 ? "has no result or error" :
		    "gives its result twice");
		return true;
	}
	if (id->rawlen >= ID_MAX || !canon_id(id->raw, id->rawlen, cid,
	    &cidlen))
		return true;
	if (drop_take(cid, cidlen, true))
		return false;	/* arc answered first: this reply is late */
	if ((q = q_find(cid, cidlen)) == NULL || q->deciding)
		return true;
	if (!decide_start(q, &d->msg))
		return true;
	*wait = true;
	return false;
}

/* ---- streaming a direction ---- */

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
	return whole && memmem(q, (size_t)(p + n - q), "\"method\"", 8) ==
	    NULL && memmem(p, n, "\\u", 2) == NULL;
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
	d->held = d == &px.e2a && racing();
}

/* Sends on what msg holds: the held start of a message. */
static void
release(struct dir *d)
{
	if (!d->held)
		return;
	d->held = false;
	emit(d, d->msg.p, d->msg.len);
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

			if (!canon_id(d->id, d->idlen, cid, &n) ||
			    pending_find(cid, n) == NULL)
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
		if (!racing() && d->ours == NULL)
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
	forward(d, p, n);
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
 * editor's input waits for the journal (decide_start).
 */
static bool
message_end(struct dir *d, const char *nl, bool complete)
{
	bool pass = true, wait = false;

	if (d->held) {
		if (complete)
			pass = editor_held_end(d, &wait);
		if (pass) {
			emit(d, d->msg.p, d->msg.len);
			if (nl != NULL)
				forward(d, nl, 1);
		}
		d->held = false;
		if (!pass)
			d->keep = false;
	} else {
		if (nl != NULL && !d->drop)
			forward(d, nl, 1);
		/* forwarded as it came, while questions race */
		if (d == &px.e2a && complete && racing()) {
			if (d->toolong && !d->has_method)
				editor_unclear(d, "is longer than 1 MiB");
			else if (d->has_method && d->sc.nresult > 0)
				editor_unclear(d, "is a request and a reply");
		}
	}
	if (complete && d == &px.a2e && (d->ours != NULL || d->keep)) {
		if (d->keep && d->msg.len > 0 && d->msg.p[d->msg.len - 1] == '\r')
			d->msg.len--;
		agent_message(d);
	} else if (complete && d->keep && !d->toolong && d->msg.len > 0) {
		if (d->msg.p[d->msg.len - 1] == '\r')
			d->msg.len--;
		editor_message(d);
	}
	d->msg.len = 0;
	d->mid = false;
	d->fresh = true;
	if (nl != NULL && d->inject.len > 0) {
		emit(d, d->inject.p, d->inject.len);
		d->inject.len = 0;
	}
	return !wait;
}

static void
process(struct dir *d)
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
			forward(d, from, (size_t)(p - from));
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
	span_out(d);
}

/* The end of a direction's input: a last message without its newline. */
static void
input_end(struct dir *d)
{
	d->in_eof = true;
	if (!d->fresh) {
		if (d->held) {
			emit(d, d->msg.p, d->msg.len);
			d->held = false;
		}
		d->inject.len = 0;	/* no boundary comes */
		d->fresh = true;
		d->msg.len = 0;
	}
	/* The editor closed its end: it answers nothing more, nor does arc. */
	if (d == &px.e2a)
		withdraw_all("cancelled");
}

static void
dir_read(struct dir *d)
{
	ssize_t r;

	if (d->blocked || d->ioff < d->ilen)
		return;	/* what was read waits for the journal */
	r = read(d->in, d->ibuf, IBUF_SIZE);
	if (r > 0) {
		d->ilen = (size_t)r;
		d->ioff = 0;
		process(d);
		return;
	}
	if (r == -1 && (errno == EINTR))
		return;
	if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		if (d == &px.a2e && px.agent_exited)
			input_end(d);	/* all the agent wrote is read */
		return;
	}
	if (r == -1)
		warn("reading from the %s", d->name);
	input_end(d);
}


/* ---- the ends ---- */

static void
close_agent_input(void)
{
	struct dir *d = &px.e2a;

	if (d->out >= 0) {
		(void)close(d->out);
		d->out = -1;
	}
	d->out_dead = true;
	d->obuf.len = d->ooff = 0;
	d->spanlen = 0;
	d->inject.len = 0;
}

/* The editor went away: the questions go, and the agent's input ends. */
static void
editor_gone(void)
{
	withdraw_all("cancelled");
	if (!px.e2a.in_eof)
		input_end(&px.e2a);
	close_agent_input();
}

static void
reap(void)
{
	pid_t	 pid;
	int	 st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == px.agent) {
			px.agent_exited = true;
			px.agent_status = WIFEXITED(st) ? WEXITSTATUS(st) :
			    WIFSIGNALED(st) ? 128 + WTERMSIG(st) : EXIT_SYSTEM;
		} else if (pid == px.apply) {
			px.apply = -1;
		}
	}
}

static void
signals(void)
{
	unsigned char	 b[64];
	ssize_t		 r, i;

	while ((r = read(px.sigpipe[0], b, sizeof(b))) > 0)
		for (i = 0; i < r; i++) {
			if (b[i] == SIGCHLD)
				continue;
			/* TERM, INT, HUP: to the agent; its exit ends us */
			withdraw_all("cancelled");
			if (!px.agent_exited)
				(void)kill(px.agent, b[i]);
		}
	reap();
}

static int
run(void)
{
	struct pollfd	 pfd[6 + QUESTIONS_MAX];
	int		 qidx[6 + QUESTIONS_MAX], qstart;
	struct timespec	 closing_since = { 0, 0 };
	bool		 closing = false;
	size_t		 k;

	for (;;) {
		int	 n = 0, i, timeout = -1;
		int	 ie = -1, ia = -1, oe = -1, oa = -1, is = -1, ap = -1,
			 ao = -1;

		dir_flush(&px.e2a);
		dir_flush(&px.a2e);
		apply_flush();
		if (px.e2a.in_eof && pending_out(&px.e2a) == 0 &&
		    px.e2a.out >= 0)
			close_agent_input();	/* the editor's end closed */
		if (!closing && px.agent_exited && px.a2e.in_eof &&
		    (pending_out(&px.a2e) == 0 || px.a2e.out_dead)) {
			closing = true;
			withdraw_all("cancelled");
			px.apply_closing = true;
			apply_flush();
			(void)clock_gettime(CLOCK_MONOTONIC, &closing_since);
		}
		if (closing) {
			struct timespec now;

			if (px.apply_out < 0)
				break;
			(void)clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - closing_since.tv_sec >= CLOSE_SECONDS) {
				warnx("arc-apply did not finish in %d seconds",
				    CLOSE_SECONDS);
				break;
			}
			timeout = 200;
		}

		if (px.e2a.blocked) {
			/* the editor's input waits for the journal */
		} else if (!px.e2a.in_eof && pending_out(&px.e2a) < IBUF_SIZE &&
		    !px.e2a.out_dead) {
			ie = n;
			pfd[n++] = (struct pollfd){ px.e2a.in, POLLIN, 0 };
		} else if (!px.e2a.in_eof && px.e2a.out_dead) {
			/* the agent takes no more: what comes is dropped */
			ie = n;
			pfd[n++] = (struct pollfd){ px.e2a.in, POLLIN, 0 };
		}
		if (!px.a2e.in_eof && pending_out(&px.a2e) < IBUF_SIZE) {
			ia = n;
			pfd[n++] = (struct pollfd){ px.a2e.in, POLLIN, 0 };
		}
		if (!px.a2e.out_dead) {
			oe = n;
			pfd[n++] = (struct pollfd){ px.a2e.out,
			    pending_out(&px.a2e) > 0 ? POLLOUT : 0, 0 };
		}
		if (!px.e2a.out_dead && px.e2a.out >= 0 &&
		    pending_out(&px.e2a) > 0) {
			oa = n;
			pfd[n++] = (struct pollfd){ px.e2a.out, POLLOUT, 0 };
		}
		is = n;
		pfd[n++] = (struct pollfd){ px.sigpipe[0], POLLIN, 0 };
		if (px.apply_out >= 0) {
			ao = n;
			pfd[n++] = (struct pollfd){ px.apply_out, POLLIN, 0 };
		}
		if (px.apply_in >= 0 && px.apply_obuf.len > px.apply_ooff &&
		    n < (int)(sizeof(pfd) / sizeof(pfd[0]))) {
			ap = n;
			pfd[n++] = (struct pollfd){ px.apply_in, POLLOUT, 0 };
		}
		qstart = n;
		for (k = 0; k < QUESTIONS_MAX; k++)
			if (px.q[k].state == Q_WAITING && px.q[k].wfd >= 0 &&
			    n < (int)(sizeof(pfd) / sizeof(pfd[0]))) {
				qidx[n] = (int)k;
				pfd[n++] = (struct pollfd){ px.q[k].wfd, POLLIN,
				    0 };
			}
		if (px.agent_exited && !px.a2e.in_eof)
			timeout = 0;	/* read what is left, then end */
		if (poll(pfd, (nfds_t)n, timeout) == -1) {
			if (errno == EINTR)
				continue;
			err(EXIT_SYSTEM, "poll");
		}
		if (pfd[is].revents)
			signals();
		if (oe >= 0 && (pfd[oe].revents & (POLLERR | POLLHUP)) &&
		    !px.a2e.out_dead) {
			px.a2e.out_dead = true;
			px.a2e.obuf.len = px.a2e.ooff = 0;
			editor_gone();
		}
		if (oa >= 0 && (pfd[oa].revents & (POLLERR | POLLHUP)))
			close_agent_input();
		if (ie >= 0 && pfd[ie].revents) {
			if (px.e2a.out_dead) {
				char junk[8192];
				ssize_t r = read(px.e2a.in, junk, sizeof(junk));
				if (r == 0 || (r == -1 && errno != EINTR &&
				    errno != EAGAIN))
					px.e2a.in_eof = true;
			} else {
				dir_read(&px.e2a);
			}
		}
		if (ia >= 0 && (pfd[ia].revents || px.agent_exited))
			dir_read(&px.a2e);
		else if (ia < 0 && px.agent_exited && !px.a2e.in_eof &&
		    pending_out(&px.a2e) < IBUF_SIZE)
			dir_read(&px.a2e);
		if (ao >= 0 && pfd[ao].revents)
			apply_read();
		(void)ap;
		for (i = qstart; i < n; i++)
			if (pfd[i].revents) {
				struct question *q = &px.q[qidx[i]];
				if (q->state == Q_WAITING && q->wfd == pfd[i].fd)
					wait_read(q);
			}
	}
	for (k = 0; k < QUESTIONS_MAX; k++)
		if (px.q[k].state != Q_FREE)
			q_free(&px.q[k]);
	if (px.apply > 0) {
		if (px.apply_in >= 0)
			(void)close(px.apply_in);
		if (px.apply_out >= 0)
			(void)close(px.apply_out);
	}
	return px.agent_status;
}

static void
dir_init(struct dir *d, const char *name, int in, int out)
{
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->in = in;
	d->out = out;
	d->fresh = true;
	if ((d->ibuf = malloc(IBUF_SIZE)) == NULL)
		err(EXIT_SYSTEM, "malloc");
}

int
acp_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa;
	int64_t	 ms;
	int	 c, toagent[2], fromagent[2], status;
	uint32_t r;
	const char *base;

	px.timeout = 3600;
	px.journal = NULL;
	while ((c = getopt_long(argc, argv, "+hj:t:V", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			px.journal = optarg;
			break;
		case 't':
			if (!duration_arg("-t", optarg, &ms)) {
				usage_print(stderr, usage_text, false);
				return EXIT_USAGE;
			}
			if (ms == 0 || ms > INT64_C(100) * 365 * 86400 * 1000)
				return usage_error(usage_text, "-t %s: from a "
				    "second to 100 years", optarg);
			px.timeout = ms / 1000 + (ms % 1000 != 0);
			break;
		default:
			(void)common_option(c, usage_text, &status);
			return status;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return usage_error(usage_text, "no agent to run");
	find_command(getprogname(), "arc-apply", px.apply_path,
	    sizeof(px.apply_path));
	find_command(getprogname(), "arc-wait", px.wait_path,
	    sizeof(px.wait_path));
	r = arc4random();
	(void)snprintf(px.instance, sizeof(px.instance), "%08x", r);
	px.agent_cmd = argv[0];
	base = strrchr(argv[0], '/');
	base = base != NULL && base[1] != '\0' ? base + 1 : argv[0];
	acp_clip(&px.agent_id, base, strlen(base), 100, true);
	if (px.agent_id.len == 0 || json_blank(&(struct jval){ .type = J_STRING,
	    .s = px.agent_id.p, .len = px.agent_id.len }))
		buf_set(&px.agent_id, "acp-agent", 9);

	xpipe(px.sigpipe);
	set_nonblock(px.sigpipe[0]);
	set_nonblock(px.sigpipe[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	(void)sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGCHLD, &sa, NULL) == -1 ||
	    sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1 ||
	    sigaction(SIGHUP, &sa, NULL) == -1)
		err(EXIT_SYSTEM, "sigaction");
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) == -1)
		err(EXIT_SYSTEM, "sigaction");

	xpipe(toagent);
	xpipe(fromagent);
	px.agent = spawn(argv[0], argv, toagent[0], fromagent[1], true);
	if (px.agent == -1) {
		int e = errno;

		warn("%s", argv[0]);
		return e == ENOENT ? 127 : 126;
	}
	(void)close(toagent[0]);
	(void)close(fromagent[1]);
	dir_init(&px.e2a, "editor", STDIN_FILENO, toagent[1]);
	dir_init(&px.a2e, "agent", fromagent[0], STDOUT_FILENO);
	/* Fewer, larger reads and writes on a busy session (Linux). */
	(void)fcntl(toagent[1], F_SETPIPE_SZ, 1024 * 1024);
	(void)fcntl(fromagent[0], F_SETPIPE_SZ, 1024 * 1024);
	(void)fcntl(STDIN_FILENO, F_SETPIPE_SZ, 1024 * 1024);	/* if pipes */
	(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1024 * 1024);
	set_cloexec(toagent[1]);
	set_nonblock(toagent[1]);
	set_nonblock(fromagent[0]);
	px.stdin_flags = fcntl(STDIN_FILENO, F_GETFL);
	px.stdout_flags = fcntl(STDOUT_FILENO, F_GETFL);
	if (px.stdin_flags == -1 || px.stdout_flags == -1)
		err(EXIT_SYSTEM, "standard input or output");
	set_nonblock(STDIN_FILENO);
	set_nonblock(STDOUT_FILENO);
	px.apply_in = px.apply_out = -1;
	c = run();
	(void)fcntl(STDIN_FILENO, F_SETFL, px.stdin_flags);
	(void)fcntl(STDOUT_FILENO, F_SETFL, px.stdout_flags);
	return c;
}
