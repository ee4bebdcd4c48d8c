/*
 * What a host's configuration holds (archooksettings.c): the hooks that
 * run arc-hook, printed for a person to paste (--settings), and merged
 * into the host's own settings file (--install), or taken out of it
 * (--uninstall), keeping every other hook and setting the file has.
 *
 * A hook is arc's when its command runs a program named arc-hook (after
 * any NAME=value words) with the host's name as its argument; every
 * other hook is the person's, and is written back as it was read.
 */
#ifndef ARCHOOKSETTINGS_H
#define ARCHOOKSETTINGS_H

#include "arc.h"

/* The hooks for host, each running bindir/arc-hook host. */
void	 settings_text(struct buf *, const char *host, const char *bindir,
	    bool toml);
/* The host's settings file, from $HOME (and CODEX_HOME); NULL: none. */
char	*settings_path(const char *host);
/*
 * Merges arc's hooks into the file (remove: takes them out), keeping a
 * copy of the file as it was in FILE.arc-backup when it changes it.
 * Says what it did on standard output.  0, or (nothing changed, said
 * why) 1 for a file the merge cannot read as settings, 3 for a failure.
 */
int	 settings_install(const char *host, const char *bindir,
	    const char *path, bool remove);
/*
 * What the file holds of arc's for host: how many hooks, the programs
 * they run and the ARC_JOURNAL they set ("" for none), each once, each
 * ended by a NUL (a path may hold a newline).  1: read; 0: no such file; -1: it cannot be read as settings
 * (said why).
 */
int	 settings_look(const char *host, const char *path, size_t *count,
	    struct buf *programs, struct buf *journals);

#endif /* ARCHOOKSETTINGS_H */
