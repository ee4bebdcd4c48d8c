/*
 * What the fuzz targets share: their scratch journals, removed with what
 * the writers left beside them (checkpoints, archive segments,
 * temporaries).  Linked into every target by make fuzz-build.
 */
#include <glob.h>
#include <stdio.h>
#include <unistd.h>

#include "scratch.h"

void
scratch_remove(const char *path)
{
	glob_t	 g;
	char	 pattern[256];
	size_t	 i;

	(void)unlink(path);
	if (snprintf(pattern, sizeof(pattern), "%s.*", path) >=
	    (int)sizeof(pattern) || glob(pattern, 0, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++)
		(void)unlink(g.gl_pathv[i]);
	globfree(&g);
}
