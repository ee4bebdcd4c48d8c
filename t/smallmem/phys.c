/*
 * An LD_PRELOAD that makes the machine's memory small: sysconf(3) says
 * ARC_TEST_PHYS_PAGES pages of physical memory, where it is set, and
 * what the system says of everything else.  arc-status --history holds a
 * decompressed segment in memory only while it is a small part of the
 * machine's (arcarchive.c): this is how a test sees the other way.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

long
sysconf(int name)
{
	static long	(*real)(int);
	const char	*pages = getenv("ARC_TEST_PHYS_PAGES");

	if (name == _SC_PHYS_PAGES && pages != NULL)
		return strtol(pages, NULL, 10);
	if (real == NULL &&
	    (*(void **)&real = dlsym(RTLD_NEXT, "sysconf")) == NULL)
		abort();	/* POSIX's way round ISO C's function pointers */
	return real(name);
}
