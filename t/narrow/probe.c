/*
 * An LD_PRELOAD for the tests of narrowing (arcnarrow.c): as the process
 * exits, it tries to create each file named in ARC_PROBE_WRITE (colon
 * separated) and says on standard error what came of it, so a test sees
 * whether the process could still write there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void probe(void) __attribute__((destructor));

static void
probe(void)
{
	const char	*list = getenv("ARC_PROBE_WRITE");
	char		*copy, *p, *save = NULL;
	int		 fd;

	if (list == NULL || (copy = strdup(list)) == NULL)
		return;
	for (p = strtok_r(copy, ":", &save); p != NULL;
	    p = strtok_r(NULL, ":", &save)) {
		fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		dprintf(2, "probe: %s: %s\n", p, fd == -1 ? strerror(errno) :
		    "written");
		if (fd != -1)
			(void)close(fd);
	}
	free(copy);
}
