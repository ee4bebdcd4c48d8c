/*
 * Narrowing writes to a few folders with Landlock.  See arcnarrow.h.
 */
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "arc.h"
#include "arcnarrow.h"

/* Landlock ABI 3 (Linux 6.2); Debian 12's headers are 6.1's. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)
#endif

/* Every right that changes the file system, by the ABI that has it. */
static uint64_t
write_rights(long abi)
{
	uint64_t r = LANDLOCK_ACCESS_FS_WRITE_FILE |
	    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
	    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
	    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
	    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
	    LANDLOCK_ACCESS_FS_MAKE_SYM;

	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	return r;
}

/*
 * Writes only beneath dirs (n of them; a missing one is left out).  false,
 * with a word on standard error, where the kernel has no Landlock: the
 * program goes on unnarrowed.
 */
static bool
narrow_writes(const char *const *dirs, size_t n)
{
	struct landlock_ruleset_attr	 attr = { 0 };
	struct landlock_path_beneath_attr beneath = { 0 };
	long				 abi;
	size_t				 i;
	int				 rs, fd;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		warnx("the kernel has no Landlock (%s); not narrowed",
		    errno == EOPNOTSUPP ? "turned off" : "too old");
		return false;
	}
	attr.handled_access_fs = write_rights(abi);
	if ((rs = (int)syscall(SYS_landlock_create_ruleset, &attr,
	    sizeof(attr), 0)) == -1) {
		warn("landlock_create_ruleset; not narrowed");
		return false;
	}
	for (i = 0; i < n; i++) {
		if (dirs[i] == NULL || (fd = open(dirs[i], O_PATH | O_CLOEXEC |
		    O_DIRECTORY)) == -1)
			continue;
		beneath.allowed_access = attr.handled_access_fs;
		beneath.parent_fd = fd;
		if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH,
		    &beneath, 0) == -1)
			warn("landlock_add_rule %s", dirs[i]);
		(void)close(fd);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    syscall(SYS_landlock_restrict_self, rs, 0) == -1) {
		warn("landlock_restrict_self; not narrowed");
		(void)close(rs);
		return false;
	}
	(void)close(rs);
	return true;
}

bool
narrow_writes_beside(const char *path)
{
	char		*dir = parent_of(path);
	const char	*dirs[] = { dir };
	bool		 ok;

	ok = narrow_writes(dirs, 1);
	free(dir);
	return ok;
}
