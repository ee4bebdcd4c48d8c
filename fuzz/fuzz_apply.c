/*
 * libFuzzer target: a sequence of lines through the apply path on a
 * scratch journal, each line its own committed batch.  Afterwards the
 * state is rebuilt from the journal alone and must equal the state in
 * memory, condition by condition.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../arc.h"
#include "../arcstate.h"
#include "../arcjournal.h"
#include "../arcfilter.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct compare {
	struct journal	*mine, *rebuilt;
	struct arena	 a;
	size_t		 seen;
};

static void
same_condition(const struct condition *c, struct compare *cx)
{
	const struct condition	*r = state_lookup(cx->rebuilt->st, c->key);
	const char		*x, *y;
	int			 k;

	if (r == NULL)
		errx(1, "condition lost in the rebuild");
	for (k = 0; k < 2; k++) {
		x = journal_text(cx->mine, &cx->a, c, k);
		y = journal_text(cx->rebuilt, &cx->a, r, k);
		if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
			errx(1, "rebuilt record differs");
	}
	if (c->active != r->active || c->qstatus != r->qstatus ||
	    c->priority != r->priority || c->changed != r->changed ||
	    (c->expires_at == NULL) != (r->expires_at == NULL) ||
	    (c->route == NULL) != (r->route == NULL) ||
	    (c->dismissed == NULL) != (r->dismissed == NULL))
		errx(1, "rebuilt summary differs");
	cx->seen++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char	 path[64];
	struct applier	 ap;
	struct journal	 fresh;
	struct compare	 cx = { 0 };
	const struct condition *c;
	size_t		 at;
	const char	*p = (const char *)data, *end = p + size, *nl;
	uint64_t	 line = 0;

	if (path[0] == '\0') {
		if (!arc_now_init())
			errx(1, "ARC_NOW");
		snprintf(path, sizeof(path), "/tmp/arc-fuzz-apply.%ld",
		    (long)getpid());
	}
	(void)unlink(path);
	if (!applier_open(&ap, path))
		errx(1, "cannot open the scratch journal");
	ap.quiet = true;
	for (; p < end && line < 64; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		line++;
		if (!journal_lock(&ap.j, true))
			errx(1, "lock");
		apply_one(&ap, "fuzz", line, p, (size_t)(nl - p),
		    nl - p > ARC_LINE_MAX);
		ap.out.len = 0;	/* the results are not the point here */
		if (!journal_append(&ap.j))
			errx(1, "append");
		journal_unlock(&ap.j);
	}
	if (!journal_open(&fresh, path, false) || !journal_lock(&fresh, false))
		errx(1, "the journal it wrote cannot be read back");
	journal_unlock(&fresh);
	cx.mine = &ap.j;
	cx.rebuilt = &fresh;
	for (c = state_first(ap.j.st, &at); c != NULL;
	    c = state_next(ap.j.st, &at))
		same_condition(c, &cx);
	if (cx.seen != state_count(fresh.st))
		errx(1, "the rebuild has conditions memory does not");
	arena_free(&cx.a);
	journal_close(&fresh);
	applier_close(&ap);
	(void)unlink(path);
	return 0;
}
