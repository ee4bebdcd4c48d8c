/*
 * tmux, asked and told: the x-arc hint checked again (a producer wrote
 * it: a pane "%N" and an absolute socket path of printable bytes, or
 * nothing; and the socket one tmux of ours could have made, see
 * socket_ours), and tmux run with plain arguments by spawn_start (arcspawn.c): a pane
 * id or a socket path never meets a shell, and never a format either
 * (tmux expands #{...} in -F and display -p only, whose text is ours).
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcspawn.h"
#include "arcrules.h"
#include "arctmux.h"


#define ARGS_MAX	16

/* The hint checked again by the rules' own test (a record may be old). */
static bool
hint_ok(const struct jval *v, bool pane, char *out, size_t outlen)
{
	struct sv	s = sv_json(v);

	if (!rules_hint_ok(s, pane) || s.n >= outlen)
		return false;
	memcpy(out, s.p, s.n);
	out[s.n] = '\0';
	return true;
}

/*
 * A producer names the socket; only one of ours is connected to: a
 * socket our user owns, in a folder our user owns that nobody else may
 * enter (no group or other access at all: the rule tmux holds its own
 * socket folder, /tmp/tmux-UID, to).  Nobody else can then put another
 * socket under that name between this check and tmux's connect.  Links
 * are not followed, for the socket or its folder.
 */
static bool
socket_ours(const char *path)
{
	struct stat	 sb;
	char		*dir;
	bool		 ok;

	if (lstat(path, &sb) == -1 || !S_ISSOCK(sb.st_mode) ||
	    sb.st_uid != getuid())
		return false;
	dir = parent_of(path);
	ok = lstat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) &&
	    sb.st_uid == getuid() && (sb.st_mode & (S_IRWXG | S_IRWXO)) == 0;
	free(dir);
	return ok;
}

bool
tmux_where_of(const struct jval *x, struct tmux_where *w)
{
	memset(w, 0, sizeof(*w));
	if (x == NULL || x->type != J_OBJECT)
		return false;
	if (!hint_ok(json_get(x, "tmux_pane"), true, w->pane,
	    sizeof(w->pane)) || !hint_ok(json_get(x, "tmux_socket"), false,
	    w->socket, sizeof(w->socket)) || !socket_ours(w->socket)) {
		memset(w, 0, sizeof(*w));
		return false;
	}
	return true;
}

int
tmux_run(const char *socket, const char *const args[], char *out,
    size_t outlen)
{
	char				*argv[ARGS_MAX + 4];
	pid_t				 pid;
	ssize_t				 r;
	size_t				 n = 0, got = 0;
	int				 p[2] = { -1, -1 }, st;
	char				 sink[256];

	argv[n++] = "tmux";
	if (socket != NULL) {
		argv[n++] = "-S";
		argv[n++] = (char *)socket;
	}
	for (; *args != NULL && n < ARGS_MAX + 3; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	if (outlen > 0)
		out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	pid = spawn_start("tmux", argv, SPAWN_NULL, p[1], SPAWN_NULL, true);
	(void)close(p[1]);
	if (pid == -1) {
		(void)close(p[0]);
		return -1;
	}
	for (;;) {	/* all of it, so that tmux never blocks on the pipe */
		if (got + 1 < outlen)
			r = read(p[0], out + got, outlen - 1 - got);
		else
			r = read(p[0], sink, sizeof(sink));
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (got + 1 < outlen)
			got += (size_t)r;
	}
	(void)close(p[0]);
	if (outlen > 0) {
		out[got] = '\0';
		out[strcspn(out, "\n")] = '\0';
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int
tmux_focused(const struct tmux_where *w)
{
	const char *const args[] = { "display-message", "-p", "-t", w->pane,
	    "#{pane_active}#{window_active}#{?session_attached,1,0}", NULL };
	char	out[16];

	if (w->pane[0] == '\0' || tmux_run(w->socket, args, out,
	    sizeof(out)) != 0 || strlen(out) < 3)
		return -1;
	return strncmp(out, "111", 3) == 0 ? 1 : 0;
}

bool
tmux_jump(const struct tmux_where *w)
{
	const char *const win[] = { "select-window", "-t", w->pane, NULL };
	const char *const pane[] = { "select-pane", "-t", w->pane, NULL };
	const char *const sw[] = { "switch-client", "-t", w->pane, NULL };

	if (w->pane[0] == '\0')
		return false;
	if (tmux_run(w->socket, win, NULL, 0) != 0 ||
	    tmux_run(w->socket, pane, NULL, 0) != 0)
		return false;
	/* no client attached: the pane is current in its session all the same */
	(void)tmux_run(w->socket, sw, NULL, 0);
	return true;
}

bool
tmux_window_of(const struct tmux_where *w, char *id, size_t idlen)
{
	const char *const args[] = { "display-message", "-p", "-t", w->pane,
	    "#{window_id}", NULL };

	return w->pane[0] != '\0' && tmux_run(w->socket, args, id,
	    idlen) == 0 && id[0] == '@';
}
