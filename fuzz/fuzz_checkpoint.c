/*
 * libFuzzer target: a checkpoint file's bytes through its decoder, for a
 * writer and for a reader.  Whatever it accepts must be a state that can
 * be looked in, walked (every condition read then), weighed and
 * checkpointed again.  A mutated file almost never
 * keeps its checksum, so for inputs of an odd length the checksum (the
 * last four bytes) is recomputed first: the decoder behind it is fuzzed
 * too.
 */
#include <stdlib.h>
#include <string.h>

#include "../arc.h"
#include "../arcstate.h"
#include "../arccheckpoint.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MAGIC_LEN	17	/* "arc checkpoint 3\n" */

static void
visit(const struct condition *c, size_t *n)
{
	(void)condition_qstatus(c, "2026-08-26T01:16:00Z");
	(void)condition_retired(c, "2026-08-26T01:16:00Z", 0);
	*n += c->keylen;
}

/* A condition not as arc writes it ends a command; here, it is skipped. */
static void
damaged(void *arg, bool changed, uint64_t at)
{
	(void)arg;
	(void)changed;
	(void)at;
}

static bool
discard(const char *p, size_t n, void *arg)
{
	(void)p;
	(void)n;
	(void)arg;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
	uint8_t			*data = malloc(size + 1);
	struct checkpoint_head	 head;
	struct state		*st;
	size_t			 n = 0, at;
	const struct condition	*c;
	uint32_t		 crc;
	int			 readers, i;
	const struct checkpoint_source src = { NULL, NULL, damaged, NULL };
	static const uint8_t	 ident[16];

	if (data == NULL)
		return 0;
	memcpy(data, input, size);
	if (size % 2 == 1 && size >= MAGIC_LEN + 4) {
		crc = crc32c(data, size - 4);
		for (i = 0; i < 4; i++)
			data[size - 4 + i] = (uint8_t)(crc >> (8 * i));
	}
	for (readers = 0; readers < 2; readers++) {
		st = state_new(readers);
		if (!checkpoint_decode(st, (const char *)data, size, &head,
		    &src)) {
			state_free(st);
			continue;
		}
		/* a lookup and an event's, as one writer makes them */
		(void)state_lookup(st, "deploy");
		(void)state_seen(st, ident, ident);
		for (c = state_first(st, &at); c != NULL;
		    c = state_next(st, &at))
			visit(c, &n);
		(void)state_live_bytes(st, "2026-08-26T01:16:00Z", 0, 0, true);
		(void)checkpoint_write(st, &head, discard, NULL);
		state_free(st);
	}
	free(data);
	return 0;
}
