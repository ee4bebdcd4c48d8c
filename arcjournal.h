/*
 * The journal file (arcjournal.c): where conditions become durable.
 */
#ifndef ARCJOURNAL_H
#define ARCJOURNAL_H

#include <sys/types.h>

#include "arc.h"
#include "arcstate.h"

struct journal {
	char		*path;
	int		 fd;
	dev_t		 dev;
	ino_t		 ino;
	uint64_t	 offset;	/* bytes replayed into st */
	struct state	*st;
	struct arena	 arena;
	bool		 writable, exclusive;
	bool		 missing;	/* a reader found no file yet */
};

char	*journal_default_path(const char *);
bool	 journal_open(struct journal *, const char *, bool writable);
void	 journal_close(struct journal *);
bool	 journal_lock(struct journal *, bool exclusive);
void	 journal_unlock(struct journal *);
bool	 journal_append(struct journal *, const struct buf *);
bool	 journal_compact(struct journal *, const char *now, int64_t window);

#endif /* ARCJOURNAL_H */
