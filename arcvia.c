/*
 * An answer from a surface that showed the question (the desktop's
 * button, the page's form), applied here through the applier or sent by
 * a mirror's route; and handing an event to a command, the one way an
 * event leaves by a command's standard input (arc-answer --via, a route).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "arc.h"
#include "arcspawn.h"
#include "arcnarrow.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcjournal.h"
#include "arcoffdevice.h"
#include "arcfilter.h"
#include "arcbind.h"
#include "arcvia.h"

/*
 * Writes an event to sh -c command's standard input (a --via, or the route
 * a mirror recorded); its exit status.  Its standard output is ours, or out
 * when out is not -1 (a CGI's response is no place for a bridge's words).
 */
int
send_via(const char *command, const struct buf *ev, int out)
{
	struct sigaction	 ign, old;
	pid_t			 pid;
	int			 fd[2], st;
	size_t			 off = 0;
	ssize_t			 w;

	flush_stdout();
	if (pipe2(fd, O_CLOEXEC) == -1)
		err(EXIT_SYSTEM, "pipe");
	if ((pid = spawn_start("/bin/sh", (char *[]){ "sh", "-c",
	    (char *)command, NULL }, fd[0], out != -1 ? out : SPAWN_OURS,
	    SPAWN_OURS, false)) == -1)
		err(EXIT_SYSTEM, "/bin/sh");
	(void)close(fd[0]);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	(void)sigaction(SIGPIPE, &ign, &old);
	while (off < ev->len) {
		if ((w = write(fd[1], ev->p + off, ev->len - off)) == -1) {
			if (errno == EINTR)
				continue;
			break;	/* it stopped reading: its status tells */
		}
		off += (size_t)w;
	}
	(void)close(fd[1]);
	(void)sigaction(SIGPIPE, &old, NULL);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			err(EXIT_SYSTEM, "waitpid");
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* A mirror's question, by its route; the route's words go nowhere. */
static const char *
by_route(struct journal *j, const char *route, const struct buf *ev)
{
	int	 null, status;

	journal_unlock(j);
	if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1) {
		warn("/dev/null");
		return "failed";
	}
	status = send_via(route, ev, null);
	(void)close(null);
	if (status != 0)
		warnx("a mirrored question's route exited with %d", status);
	return status == 0 ? "sent" : "refused";
}

const char *
answer_seen(const char *journal_option, const struct seen_answer *sa)
{
	struct applier		 ap;
	struct question		 qn;
	struct arena		 a = { 0 };
	struct buf		 ev = { 0 };
	struct condition	*c;
	struct rec		 shown, n;
	const char		*said, *ntext;

	if (!applier_open(&ap, journal_option) || !journal_lock(&ap.j, true)) {
		applier_close(&ap);	/* (safe after a failed open) */
		return "failed";
	}
	find_question(&ap.j, &a, sa->key, &qn);
	c = state_lookup(ap.j.st, sa->key);
	if (qn.found)
		shown = qn.q;
	if (!qn.found || !question_open(&qn.q, arc_now()))
		said = "closed";
	else if (sa->off != NULL && ((ntext = c != NULL ?
	    journal_text(&ap.j, &a, c, false) : NULL) == NULL ||
	    !rec_parse(&a, ntext, false, &n) ||
	    !offdevice_shows(sa->off, &n, &shown)))
		said = "withheld";	/* never shown: never answered */
	else if (!tag_names(sa->tag, &qn.q))
		said = "changed";
	else if (c != NULL && c->route != NULL && c->route[0] == '\0')
		said = "mirrored";	/* another host's, with no way there */
	else {
		build_event(&ev, sa->key, &qn, &sa->who, sa->answer,
		    sa->is_text);
		if (c != NULL && c->route != NULL) {
			buf_putc(&ev, '\n');
			said = by_route(&ap.j, c->route, &ev);
			goto done;
		}
		if (sa->narrow)
			(void)narrow_writes_beside(ap.j.path);
		ap.quiet = true;
		apply_one(&ap, sa->who.source, 1, ev.p, ev.len, false);
		ap.out.len = 0;	/* the result line holds the nonce */
		said = !applier_commit(&ap) ? "failed" :
		    ap.last.code == ARC_OK ? "answered" : "refused";
		goto done;
	}
	journal_unlock(&ap.j);
done:
	if (ev.p != NULL)
		explicit_bzero(ev.p, ev.len);
	buf_free(&ev);
	applier_close(&ap);
	arena_free(&a);
	return said;
}
