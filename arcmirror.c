/*
 * arc-apply --mirror: a local journal that mirrors another host's
 * conditions, fed by a subscription (examples/arc-mqtt).  Each input line
 * is a condition as that host publishes it, its keys HOST/KEY,
 *
 *     {"notification":{...},"interaction":{...} or null}
 *     {"key":"HOST/KEY","removed":true}
 *
 * and replaces the condition under its key, so that arc-status counts it
 * and arc-answer answers it through its host: by the route given here
 * (--route), which every mirrored condition keeps.  Nothing here applies
 * ARC's answer rules: the host that owns the question does, when the
 * answer reaches it.  What is checked here is that a question is the one
 * its digest names, so that nobody between the host and the person can
 * show one question and collect an answer to another.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcproblem.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcrules.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcmirror.h"

/* A mirror line holds two records of an event: each may escape it 6-fold. */
#define MIRROR_LINE_MAX	(16 * ARC_LINE_MAX)

/* The key a line is about, for a person: made safe, or "-". */
static void
line_key(struct buf *b, const struct jval *v)
{
	const struct jval *k = json_get(json_get(v, "notification"), "key");

	if (k == NULL)
		k = json_get(v, "key");
	if (k != NULL && k->type == J_STRING)
		diag_safe(b, k->s, k->len);
	else
		buf_puts(b, "-");
}

/*
 * Whether a question with this interaction id is held here as settled
 * under another key: a settled question republished under another host's
 * topic (its key HOST/KEY with another HOST) is the same question, and is
 * never brought back, whatever its key or time (arc-mqtt(1)).
 */
static bool
settled_elsewhere(struct applier *ap, struct sv key, const struct jval *v)
{
	const struct jval	*id = json_get(json_get(v, "interaction"), "id");
	struct condition	*c;
	struct rec		 q;
	size_t			 at;

	if (id == NULL || id->type != J_STRING || ap->j.st == NULL)
		return false;
	for (c = state_first(ap->j.st, &at); c != NULL;
	    c = state_next(ap->j.st, &at)) {
		if (c->interaction.len == 0 || (c->keylen == key.n &&
		    memcmp(c->key, key.p, key.n) == 0))
			continue;
		if (journal_rec(&ap->j, &ap->arena, c, true, &q) == NULL ||
		    !sv_same(q.f[I_ID], sv_json(id)))
			continue;
		if (!c->active || !sv_eq(q.f[I_STATUS], "pending"))
			return true;
	}
	return false;
}

static void
mirror_line(struct applier *ap, const char *route, const char *name,
    uint64_t lineno, const char *line, size_t len)
{
	struct jparse_error	 e;
	struct jval		*v;
	struct current		 cur;
	struct change		 ch;
	const char		*why = NULL, *now;
	enum arc_code		 code = ARC_INVALID;
	bool			 changed;

	arena_reset(&ap->arena);
	v = json_parse(&ap->arena, line, len, &e);
	if (v == NULL || v->type != J_OBJECT)
		why = "not one JSON object";
	else if (!journal_lock(&ap->j, true))
		errx(EXIT_SYSTEM, "nothing was mirrored");
	else {
		current_of(&ap->j, &ap->arena, mirror_key(v), &cur);
		now = journal_clock(&ap->j, arc_now());
		code = rules_mirror(&ap->arena, v, &cur, now, route, &ch,
		    &changed, &why);
		if (code == ARC_OK && ch.has_q && settled_elsewhere(ap,
		    mirror_key(v), v)) {
			code = ARC_CONFLICT;
			why = "/interaction/id: a question settled here under "
			    "another key; not brought back";
		}
		if (code == ARC_OK && changed)
			journal_record(&ap->j, now, &ch);
		if (code == ARC_OK && !applier_commit(ap))
			errx(EXIT_SYSTEM, "the mirror was not updated");
		journal_unlock(&ap->j);
	}
	if (why == NULL) {
		buf_printf(&ap->out, "{\"line\":%llu,\"status\":200}\n",
		    (unsigned long long)lineno);
	} else {
		struct buf d = { 0 }, k = { 0 };
		buf_printf(&ap->out, "{\"line\":%llu,\"status\":%d,",
		    (unsigned long long)lineno, arc_code_status(code));
		error_object(&ap->out, code, why, NULL, NULL);
		buf_puts(&ap->out, "}\n");
		if (!ap->quiet) {
			diag_safe(&d, name, strlen(name));
			if (v != NULL && v->type == J_OBJECT)
				line_key(&k, v);
			warnx("%s:%llu: %s%s%s", d.p, (unsigned long long)lineno,
			    k.len > 0 ? k.p : "", k.len > 0 ? ": " : "", why);
		}
		buf_free(&d);
		buf_free(&k);
		ap->status = EXIT_REJECTED;
	}
	write_stdout(&ap->out);
	ap->out.len = 0;
	flush_stdout();
}

int
mirror_main(struct applier *ap, const char *route, int argc, char **argv)
{
	static char		*stdin_only[] = { "-", NULL };
	struct line_reader	 r;
	enum line_status	 ls;
	const char		*line;
	size_t			 len;
	int			 i, fd;

	if (argc == 0)
		argv = stdin_only, argc = 1;
	for (i = 0; i < argc; i++) {
		if ((fd = open_input(argv[i])) == -1) {
			ap->status = EXIT_SYSTEM;
			continue;
		}
		line_reader_init(&r, fd, argv[i]);
		line_reader_set(&r, MIRROR_LINE_MAX, '\n');
		while ((ls = line_next(&r, &line, &len)) != LINE_EOF) {
			if (ls == LINE_ERROR) {
				ap->status = EXIT_SYSTEM;
				break;
			}
			if (ls == LINE_TOO_LARGE) {
				warnx("%s:%llu: longer than %d bytes", argv[i],
				    (unsigned long long)r.lineno,
				    MIRROR_LINE_MAX);
				ap->status = EXIT_REJECTED;
				continue;
			}
			if (!line_blank(line, len))
				mirror_line(ap, route, argv[i], r.lineno, line,
				    len);
		}
		line_reader_free(&r);
		close_input(fd);
	}
	return ap->status;
}
