/*
 * arc-acp's proxy: its one state (arcacpproxy.h tells its story), and
 * the small helpers every part uses: descriptors, the one way a command
 * is started, a JSON-RPC id by its value, a member named once.
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
#include "arcspawn.h"
#include "arcacpproxy.h"

struct proxy px;

void
acp_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		err(EXIT_SYSTEM, "fcntl");
}

void
acp_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	if (fl == -1 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) == -1)
		err(EXIT_SYSTEM, "fcntl");
}

void
acp_pipe(int fd[2])
{
	if (pipe2(fd, O_CLOEXEC) == -1)
		err(EXIT_SYSTEM, "pipe");
}

/*
 * Starts a command with the given descriptors as its standard input and
 * output (-1: /dev/null for input, ours for output); its standard error
 * is ours.  Its signals are at their defaults, whatever ours are.
 */
pid_t
acp_spawn(const char *path, char *const argv[], int in, int out, bool search)
{
	return spawn_start(path, argv, in >= 0 ? in : SPAWN_NULL, out >= 0 ?
	    out : SPAWN_OURS, SPAWN_OURS, search);
}

/*
 * A number as JSON-RPC peers read it: a double (JavaScript's, and what
 * Python's 5.0 == 5 compares), -0 as 0.  False when it is none.
 */
bool
acp_id_number(const struct jval *v, double *d)
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
bool
acp_canon_id(const char *raw, size_t n, char out[ID_MAX], size_t *outlen)
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
	} else if (acp_id_number(v, &d)) {
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

bool
acp_cid_eq(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && memcmp(a, b, an) == 0;
}

bool
acp_buf_eq(const struct buf *b, const char *s, size_t n)
{
	return b->len == n && (n == 0 || memcmp(b->p, s, n) == 0);
}

void
acp_buf_set(struct buf *b, const char *s, size_t n)
{
	b->len = 0;
	buf_put(b, s, n);
}

const struct jval *
acp_get_unique(const struct jval *o, const char *name)
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

const struct jval *
acp_get_string(const struct jval *o, const char *name)
{
	const struct jval *v = acp_get_unique(o, name);

	return v != NULL && v->type == J_STRING ? v : NULL;
}

