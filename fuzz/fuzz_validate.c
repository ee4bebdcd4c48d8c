/*
 * libFuzzer target: one input line through the validator, and a valid
 * event's canonical form (the content hash's input) after it.
 */
#include <stdlib.h>

#include "../arc.h"
#include "../arcvalidate.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct arena	 arena;
	static struct problems	 pr;
	struct jval		*root;
	struct buf		 b = { 0 };

	arena_reset(&arena);
	if (arc_validate_line(&arena, (const char *)data, size, &pr, &root))
		json_write(&b, root, JSON_CANONICAL);
	buf_free(&b);
	problems_clear(&pr);
	return 0;
}
