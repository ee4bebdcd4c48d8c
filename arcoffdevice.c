/*
 * The off-device content policy: ARC 0.2 lets optional off-device routes
 * apply their configured content policy once the request is stored
 * locally.  One setting for every route of this host (the page of
 * arc-web, the broker of arc-mqtt, a push through arc-notify's exec sink
 * by way of arc-status --off-device):
 *
 *   everything    every field (the default)
 *   no-message    no message or prompt: a question that has one (ARC 0.2
 *                 asks one of every request) stays here, only its title,
 *                 agent, project and deadline leave (not its choices: an
 *                 "always" rule holds what the command held)
 *   title-only    the title, the kind, the priority and the times; not
 *                 the agent's name, the message, the prompt or the choices
 *   no-project    and no project (the last part of the producer's cwd)
 *   no-session    and no session, instance or turn ids (the hooks' and arc-acp's
 *                 keys carry a session only hashed)
 *
 * A question's digest covers its title, prompt and choices, so that a
 * question without its text could not be checked against its digest at
 * the other end, nor answered as shown: a withheld question leaves as a
 * notice, without its interaction record, its digest or its nonce.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcoffdevice.h"

#define SETTING_MAX	1024

/* The words of a setting (arc-web(8)); false for any other word. */
static bool
offdevice_parse(const char *s, struct offdevice *p)
{
	static const char blanks[] = " \t\r\n,";
	const char	*w;
	size_t		 n;
	bool		 level = false;

	p->level = OFF_EVERYTHING;
	p->project = p->session = true;
	for (w = s + strspn(s, blanks); *w != '\0'; w += n,
	    w += strspn(w, blanks)) {
		if (*w == '#') {	/* a comment, to the end of its line */
			n = strcspn(w, "\n");
			continue;
		}
		n = strcspn(w, blanks);
#define IS(word) (n == strlen(word) && strncmp(w, word, n) == 0)
		if (IS("no-project"))
			p->project = false;
		else if (IS("no-session"))
			p->session = false;
		else if (!level && (IS("everything") || IS("no-message") ||
		    IS("title-only"))) {
			p->level = IS("everything") ? OFF_EVERYTHING :
			    IS("no-message") ? OFF_NO_MESSAGE : OFF_TITLE_ONLY;
			level = true;
		} else
			return false;
#undef IS
	}
	return true;
}

bool
offdevice_read(const char *journal, struct offdevice *p)
{
	const char	*v = getenv("ARC_OFF_DEVICE");
	char		*dir, path[4096], text[SETTING_MAX + 1];
	struct stat	 sb;
	ssize_t		 r;
	size_t		 got = 0;
	int		 fd, len;

	if (v != NULL) {
		if (offdevice_parse(v, p))
			return true;
		warnx("ARC_OFF_DEVICE: not a setting (everything, no-message "
		    "or title-only; no-project, no-session)");
		return false;
	}
	if ((dir = parent_of(journal)) == NULL)
		return false;
	len = snprintf(path, sizeof(path), "%s/off-device", dir);
	free(dir);
	if (len < 0 || len >= (int)sizeof(path)) {
		warnx("the off-device setting's path is too long");
		return false;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return offdevice_parse("", p);
		warn("%s", path);
		return false;
	}
	/* Whoever may write it decides what leaves: ours, or root's. */
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (sb.st_mode & 022) != 0 || (sb.st_uid != geteuid() &&
	    sb.st_uid != 0)) {
		warnx("%s: not a file of ours that only we may write", path);
		(void)close(fd);
		return false;
	}
	while (got < sizeof(text) - 1) {
		if ((r = read(fd, text + got, sizeof(text) - 1 - got)) == -1) {
			if (errno == EINTR)
				continue;
			warn("%s", path);
			(void)close(fd);
			return false;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	(void)close(fd);
	text[got] = '\0';
	if (got == sizeof(text) - 1 || strlen(text) != got ||
	    !offdevice_parse(text, p)) {
		warnx("%s: not a setting (everything, no-message or "
		    "title-only; no-project, no-session)", path);
		return false;
	}
	return true;
}

bool
offdevice_apply(const struct offdevice *p, struct rec *n, struct rec *q)
{
	static const struct sv none = { NULL, 0 };
	bool	 text = false;

	if (n != NULL) {
		text = n->f[N_MESSAGE].p != NULL;
		if (p->level != OFF_EVERYTHING)
			n->f[N_MESSAGE] = none;
		if (!p->project)
			n->f[N_PROJECT] = none;
		if (!p->session)	/* a hook's instance is its session */
			n->f[N_SESSION_ID] = n->f[N_AGENT_INSTANCE] = none;
	}
	/* title-only: not who asks either (agent, project, session) */
	if (n != NULL && p->level == OFF_TITLE_ONLY)
		n->f[N_AGENT_NAME] = n->f[N_AGENT_INSTANCE] = n->f[N_AGENT] =
		    n->f[N_PROJECT] = n->f[N_SESSION_ID] = none;
	if (q == NULL)
		return p->level == OFF_EVERYTHING ||
		    (p->level == OFF_NO_MESSAGE && !text);
	if (!p->session || p->level == OFF_TITLE_ONLY)
		q->f[I_SESSION_ID] = q->f[I_TURN_ID] = none;
	if (p->level == OFF_EVERYTHING)
		return true;
	text = text || q->f[I_PROMPT].p != NULL;
	q->f[I_PROMPT] = none;
	/* a withheld question's choices (an "always" rule) stay here too */
	if (p->level == OFF_TITLE_ONLY || text)
		q->f[I_CHOICES] = none;
	return !text;
}

bool
offdevice_shows(const struct offdevice *p, const struct rec *n_in,
    const struct rec *q_in)
{
	struct rec	 n, q = *q_in;

	if (n_in != NULL)
		n = *n_in;
	return offdevice_apply(p, n_in != NULL ? &n : NULL, &q);
}
