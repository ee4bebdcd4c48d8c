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
 *
 * This file holds the ends (the agent started, signals, the editor gone)
 * and the loop; the proxy's parts, each on the ones before it, are named
 * in arcacpproxy.h.  What a lower part cannot do itself it leaves for the
 * loop: an editor gone (out_flush says so), the race's result (set by
 * arcacpjournal.c, read by arcacprace.c), the editor's input going on.
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
#include "arcacpproxy.h"
#include "arcacpout.h"
#include "arcacpjournal.h"
#include "arcacprace.h"
#include "arcacpstream.h"

int	acp_main(int, char **);


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


/* ---- the ends ---- */

static void
on_signal(int sig)
{
	int		 saved = errno;
	unsigned char	 c = (unsigned char)sig;

	/* A full pipe already holds a wake-up: nothing is lost. */
	if (write(px.sigpipe[1], &c, 1) == -1)
		errno = saved;
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
	questions_withdraw("cancelled");
	if (!px.e2a.in_eof)
		stream_input_end(&px.e2a);
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
			questions_withdraw("cancelled");
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

		(void)out_flush(&px.e2a);
		if (!out_flush(&px.a2e))
			editor_gone();
		apply_flush();
		if (px.e2a.in_eof && out_pending(&px.e2a) == 0 &&
		    px.e2a.out >= 0)
			close_agent_input();	/* the editor's end closed */
		if (!closing && px.agent_exited && px.a2e.in_eof &&
		    (out_pending(&px.a2e) == 0 || px.a2e.out_dead)) {
			closing = true;
			questions_withdraw("cancelled");
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
		} else if (!px.e2a.in_eof && out_pending(&px.e2a) < IBUF_SIZE &&
		    !px.e2a.out_dead) {
			ie = n;
			pfd[n++] = (struct pollfd){ px.e2a.in, POLLIN, 0 };
		} else if (!px.e2a.in_eof && px.e2a.out_dead) {
			/* the agent takes no more: what comes is dropped */
			ie = n;
			pfd[n++] = (struct pollfd){ px.e2a.in, POLLIN, 0 };
		}
		if (!px.a2e.in_eof && out_pending(&px.a2e) < IBUF_SIZE) {
			ia = n;
			pfd[n++] = (struct pollfd){ px.a2e.in, POLLIN, 0 };
		}
		if (!px.a2e.out_dead) {
			oe = n;
			pfd[n++] = (struct pollfd){ px.a2e.out,
			    out_pending(&px.a2e) > 0 ? POLLOUT : 0, 0 };
		}
		if (!px.e2a.out_dead && px.e2a.out >= 0 &&
		    out_pending(&px.e2a) > 0) {
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
				stream_read(&px.e2a);
			}
		}
		if (ia >= 0 && (pfd[ia].revents || px.agent_exited))
			stream_read(&px.a2e);
		else if (ia < 0 && px.agent_exited && !px.a2e.in_eof &&
		    out_pending(&px.a2e) < IBUF_SIZE)
			stream_read(&px.a2e);
		if (ao >= 0 && pfd[ao].revents)
			apply_read();
		if (px.decide.result_in) {
			/* the journal decided the race: then the editor's input */
			px.decide.result_in = false;
			race_decided(&px.decide.result_op,
			    px.decide.result_none ? NULL : px.decide.result.p,
			    px.decide.result.len);
			stream_process(&px.e2a);
		}
		(void)ap;
		for (i = qstart; i < n; i++)
			if (pfd[i].revents) {
				struct question *q = &px.q[qidx[i]];
				if (q->state == Q_WAITING && q->wfd == pfd[i].fd)
					question_wait_read(q);
			}
	}
	for (k = 0; k < QUESTIONS_MAX; k++)
		if (px.q[k].state != Q_FREE)
			question_free(&px.q[k]);
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
		acp_buf_set(&px.agent_id, "acp-agent", 9);

	acp_pipe(px.sigpipe);
	acp_nonblock(px.sigpipe[0]);
	acp_nonblock(px.sigpipe[1]);
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

	acp_pipe(toagent);
	acp_pipe(fromagent);
	px.agent = acp_spawn(argv[0], argv, toagent[0], fromagent[1], true);
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
	acp_cloexec(toagent[1]);
	acp_nonblock(toagent[1]);
	acp_nonblock(fromagent[0]);
	px.stdin_flags = fcntl(STDIN_FILENO, F_GETFL);
	px.stdout_flags = fcntl(STDOUT_FILENO, F_GETFL);
	if (px.stdin_flags == -1 || px.stdout_flags == -1)
		err(EXIT_SYSTEM, "standard input or output");
	acp_nonblock(STDIN_FILENO);
	acp_nonblock(STDOUT_FILENO);
	px.apply_in = px.apply_out = -1;
	c = run();
	(void)fcntl(STDIN_FILENO, F_SETFL, px.stdin_flags);
	(void)fcntl(STDOUT_FILENO, F_SETFL, px.stdout_flags);
	return c;
}
