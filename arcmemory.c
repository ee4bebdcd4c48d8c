/*
 * The memory a process of ours may use: the machine's, or less where a
 * control group it is in, or one above it, sets a limit (cgroup v2's
 * memory.max, v1's memory.limit_in_bytes), as a container does.  What is
 * held in anonymous memory counts against that limit and cannot be
 * written out to make room, as a file's pages can.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"

/* A limit file's number; UINT64_MAX for "max", none or anything else. */
static uint64_t
limit_in(const char *path)
{
	char		 text[32];
	const char	*errstr;
	long long	 v;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return UINT64_MAX;
	n = read(fd, text, sizeof(text) - 1);
	(void)close(fd);
	if (n <= 0)
		return UINT64_MAX;
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	v = strtonum(text, 0, LLONG_MAX, &errstr);
	return errstr == NULL ? (uint64_t)v : UINT64_MAX;
}

/* The least limit of the group rel (its path under root) and those above. */
static uint64_t
least_limit(const char *root, char *rel, const char *file)
{
	char		 path[PATH_MAX];
	char		*up;
	uint64_t	 least = UINT64_MAX, v;
	int		 n;

	for (;;) {
		n = snprintf(path, sizeof(path), "%s%s/%s", root, rel, file);
		if (n > 0 && (size_t)n < sizeof(path) &&
		    (v = limit_in(path)) < least)
			least = v;
		if ((up = strrchr(rel, '/')) == NULL || up == rel)
			return least;
		*up = '\0';
	}
}

uint64_t
memory_we_may_use(void)
{
	long		 pages = sysconf(_SC_PHYS_PAGES);
	long		 size = sysconf(_SC_PAGESIZE);
	uint64_t	 least, v;
	char		*line = NULL, *rel;
	size_t		 cap = 0;
	FILE		*f;

	if (pages <= 0 || size <= 0)
		return 0;
	least = (uint64_t)pages * (uint64_t)size;
	if ((f = fopen("/proc/self/cgroup", "re")) == NULL)
		return least;
	while (getline(&line, &cap, f) != -1) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "0::/", 4) == 0)
			v = least_limit("/sys/fs/cgroup", line + 3,
			    "memory.max");
		else if ((rel = strstr(line, ":memory:/")) != NULL)
			v = least_limit("/sys/fs/cgroup/memory", rel + 8,
			    "memory.limit_in_bytes");
		else
			continue;
		if (v < least)
			least = v;
	}
	free(line);
	(void)fclose(f);
	return least;
}
