/*
 * The benchmark's baseline: parse each line with cJSON and free it, with no
 * validation at all.  arc-validate is measured against this.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

int
main(void)
{
	char		*line = NULL;
	size_t		 cap = 0;
	ssize_t		 n;
	unsigned long	 parsed = 0, failed = 0;
	cJSON		*v;

	while ((n = getline(&line, &cap, stdin)) != -1) {
		if ((v = cJSON_ParseWithLength(line, (size_t)n)) == NULL)
			failed++;
		else
			parsed++;
		cJSON_Delete(v);
	}
	free(line);
	fprintf(stderr, "cjson-parse: %lu parsed, %lu failed\n", parsed, failed);
	return 0;
}
