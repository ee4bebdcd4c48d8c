/*
 * libFuzzer target: a journal file's bytes through the loader, as a
 * writer would open it (torn tails are cut).  What loads must have its
 * records' texts where their index says, and must compact.  A mutated
 * record almost never keeps a valid checksum, so for inputs of an odd
 * length every line is sealed anew first: the loader behind the frame is
 * fuzzed too.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../arc.h"
#include "../arcjournal.h"
#include "scratch.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct walk {
	struct journal	*j;
	struct arena	 a;
};

static void
read_back(const struct condition *c, struct walk *w)
{
	struct rec	 r;
	const char	*t;

	/*
	 * The text is there; whether it parses is the command's to find
	 * when it uses it (a record whose index and checksum hold but whose
	 * text does not parse is damage found then, arc-journal(5)).
	 */
	arena_reset(&w->a);
	if ((t = journal_text(w->j, &w->a, c, false)) == NULL)
		errx(1, "a loaded notification has no text");
	(void)rec_parse(&w->a, t, false, &r);
	if ((t = journal_text(w->j, &w->a, c, true)) != NULL)
		(void)rec_parse(&w->a, t, true, &r);
	(void)condition_qstatus(c, "2026-08-26T01:16:00Z");
}


/* Each line's ,"crc":"........"} recomputed over the bytes before it. */
static void
reseal(uint8_t *d, size_t n)
{
	static const char	 tail[] = ",\"crc\":\"";
	size_t			 start = 0, end, t;
	char			 hex[9];

	while (start < n) {
		uint8_t *nl = memchr(d + start, '\n', n - start);
		end = nl != NULL ? (size_t)(nl - d) : n;
		if (end - start >= 19) {
			t = end - 18;
			if (memcmp(d + t, tail, 8) == 0) {
				snprintf(hex, sizeof(hex), "%08x",
				    crc32c(d + start, t - start));
				memcpy(d + t + 8, hex, 8);
			}
		}
		start = end + 1;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
	uint8_t		*data = malloc(size + 1);
	static char	 path[64];
	struct journal	 j;
	struct walk	 w = { 0 };
	int		 fd;

	if (data == NULL)
		err(1, "malloc");
	memcpy(data, input, size);
	if (size & 1)
		reseal(data, size);
	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/arc-fuzz-journal.%ld",
		    (long)getpid());
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1 ||
	    write(fd, data, size) != (ssize_t)size || close(fd) == -1)
		err(1, "%s", path);
	if (journal_open(&j, path, true) && journal_lock(&j, true)) {
		const struct condition *c;
		size_t at;
		w.j = &j;
		for (c = state_first(j.st, &at); c != NULL;
		    c = state_next(j.st, &at))
			read_back(c, &w);
		/* What it read, written again: the compaction's writer. */
		if (journal_compact(&j, "2026-08-26T01:16:00Z"))
			journal_unlock(&j);
	}
	arena_free(&w.a);
	journal_close(&j);
	scratch_remove(path);
	free(data);
	return 0;
}
