/*
 * An LD_PRELOAD that makes arc-status --history's workers (arcfanout.c)
 * go wrong in the two ways its parent must live through without
 * hanging: ARC_TEST_SEND_FAIL=N makes the process's Nth send(2) fail
 * with ENOBUFS (a worker that takes no item), ARC_TEST_BAD_HEAD set
 * makes each process's first frame head, 24 bytes written to a socket,
 * name another item (a worker gone wrong).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* POSIX's way round ISO C's function pointers */
#define REAL(f)	do { \
	if (real == NULL && (*(void **)&real = dlsym(RTLD_NEXT, f)) == NULL) \
		abort(); \
} while (0)

ssize_t
send(int fd, const void *p, size_t n, int flags)
{
	static ssize_t	(*real)(int, const void *, size_t, int);
	static long	 sent;
	const char	*fail = getenv("ARC_TEST_SEND_FAIL");

	REAL("send");
	if (fail != NULL && ++sent == strtol(fail, NULL, 10)) {
		errno = ENOBUFS;
		return -1;
	}
	return real(fd, p, n, flags);
}

ssize_t
write(int fd, const void *p, size_t n)
{
	static ssize_t	(*real)(int, const void *, size_t);
	static int	 heads;
	struct stat	 sb;
	uint64_t	 head[3];

	REAL("write");
	if (getenv("ARC_TEST_BAD_HEAD") != NULL && n == sizeof(head) &&
	    fstat(fd, &sb) == 0 && S_ISSOCK(sb.st_mode) && heads++ == 0) {
		memcpy(head, p, sizeof(head));
		head[0] += 1000;
		return real(fd, head, sizeof(head));
	}
	return real(fd, p, n);
}
