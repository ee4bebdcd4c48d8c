/*
 * What the person-facing commands share: reading the journal as it is now,
 * the current question under a key, and how long until an instant.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arccmd.h"
#include "arcshell.h"

/* Reads the journal as it is now, under a shared lock. */
bool
read_journal(struct journal *j, const char *option)
{
	char	*path = journal_default_path(option);
	bool	 ok = journal_open(j, path, false) && journal_lock(j, false);

	free(path);
	journal_unlock(j);
	return ok;
}

void
time_left(char *out, size_t n, const char *until, const char *now)
{
	struct arc_instant	 a, b;
	int64_t			 s;

	if (!rfc3339_parse(until, strlen(until), &a) ||
	    !rfc3339_parse(now, strlen(now), &b)) {
		strlcpy(out, "?", n);
		return;
	}
	s = a.seconds - b.seconds;
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(out, n, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(out, n, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		snprintf(out, n, "%lldh%02lldm", (long long)(s / 3600),
		    (long long)(s % 3600 / 60));
	else
		snprintf(out, n, "%lldd", (long long)(s / 86400));
}

/* Reads the current question under key from a locked, caught-up journal. */
void
find_question(struct journal *j, struct arena *a, const char *key,
    struct question *out)
{
	struct condition	*c = j->st ? state_lookup(j->st, key) : NULL;
	const char		*text;

	memset(out, 0, sizeof(*out));
	if (c == NULL || (text = condition_text(j->st, a, c, true)) == NULL)
		return;
	if (!rec_parse(a, text, true, &out->q))
		errx(EXIT_SYSTEM, "%s: unreadable record", j->path);
	out->text = (char *)text;
	out->found = true;
}

void
print_interaction(struct arena *a, const char *text)
{
	struct buf b = { 0 };

	record_write_full(&b, a, text, true);
	buf_putc(&b, '\n');
	write_stdout(&b);
	flush_stdout();
	buf_free(&b);
}
