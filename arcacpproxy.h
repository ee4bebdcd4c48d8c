/*
 * arc-acp's proxy (arcacpproxy.c and the parts beside it): its state,
 * one for the run, and the small helpers every part uses.
 *
 * The editor's messages go to the agent (e2a) and the agent's to the
 * editor (a2e), each direction a struct dir: what was read (ibuf), what
 * waits to be written (obuf, and a span of ibuf written from where it
 * is), and the one message being read, scanned at its top level
 * (arcacpscan.h) and copied when it may be acted on.  A question is a
 * request of the agent's that arc asks too: its slot in q[], the
 * arc-apply result that opened it, its arc-wait, its waiter mark.  ops[]
 * are the events sent to arc-apply, in order, whose result lines come
 * back in the same order.  decide is the one editor's reply held while
 * the journal decides whether arc's answer came first.
 *
 * The parts, each on the ones before it:
 *   arcacpout.c      what each direction writes
 *   arcacpjournal.c  the ARC side: arc-apply, arc-wait, the questions
 *   arcacpask.c      the ARC side: acting on what either end sends
 *   arcacprace.c     the editor's reply and arc's answer: one decision
 *   arcacpstream.c   the byte stream of a direction, message by message
 *   arc-acp.c        the ends, the loop, the command line
 */
#ifndef ARCACPPROXY_H
#define ARCACPPROXY_H

#include <sys/types.h>

#include <stdbool.h>
#include <stdint.h>
#include <limits.h>

#include "arc.h"
#include "arcwaiter.h"
#include "arcacpmsg.h"
#include "arcacpscan.h"

#define IBUF_SIZE	(256 * 1024)	/* one read */
#define MSG_MAX		(1024 * 1024)	/* the one message acted on */
#define ID_MAX		ACP_ID_MAX	/* a JSON-RPC id, as text */
#define QUESTIONS_MAX	32	/* open at once; more stay with the editor */
#define DROPS_MAX	64	/* late replies still to drop */
#define PENDING_MAX	16	/* editor requests whose replies we read */
#define SESSIONS_MAX	64
#define RESULT_MAX	(1024 * 1024)	/* a result line of arc-apply */
#define RPC_PREFIX	"{\"jsonrpc\":\"2.0\","

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

struct proxy {
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
		/* arc-apply's result for it, come in (arcacpjournal.c) */
		bool		 result_in, result_none;
		struct op	 result_op;
		struct buf	 result;
	} decide;
	int		 sigpipe[2];
	int		 stdin_flags, stdout_flags;
};

/* The one proxy of a run: arc-acp.c fills it, every part reads it. */
extern struct proxy px;


void	acp_nonblock(int fd);
void	acp_cloexec(int fd);
void	acp_pipe(int fd[2]);
pid_t	acp_spawn(const char *path, char *const argv[], int in,
	    int out, bool search);
bool	acp_id_number(const struct jval *v, double *d);
bool	acp_canon_id(const char *raw, size_t n, char out[ID_MAX],
	    size_t *outlen);
bool	acp_cid_eq(const char *a, size_t an, const char *b, size_t bn);
bool	acp_buf_eq(const struct buf *b, const char *s, size_t n);
void	acp_buf_set(struct buf *b, const char *s, size_t n);
/* A member named once (NULL: none, or named twice); a string's. */
const struct jval	*acp_get_unique(const struct jval *o, const char *name);
const struct jval	*acp_get_string(const struct jval *o, const char *name);

#endif /* ARCACPPROXY_H */
