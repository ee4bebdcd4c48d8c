/*
 * The journal's history (arcarchive.c): the archive segments compaction
 * leaves beside the journal, compressed once closed, removed when older
 * or larger than the limits, and read back for arc-status --history.
 * arc-journal(5), "Archive segments", tells the names and the rules.
 */
#ifndef ARCARCHIVE_H
#define ARCARCHIVE_H

#include <sys/types.h>

#include "arc.h"

/* One segment of history, as its name (and, if plain, its records) tell. */
struct segment {
	char		*path;
	uint64_t	 seq;		/* of its last record */
	bool		 compressed;	/* JOURNAL.history.SEQ.FROM-TO.zst */
	int64_t		 from, to;	/* its records' times, in seconds */
	uint64_t	 size;		/* bytes on disk */
};

/* What is kept: for how long (seconds), and in how many bytes (0: any). */
struct keep {
	int64_t		 seconds;
	uint64_t	 bytes;
};

#define KEEP_HISTORY_DEFAULT	(90 * 86400)	/* segments stay 90 days */
#define ARCHIVE_LEVEL		9	/* zstd's level: see arc-journal(5) */
#define ARCHIVE_WINDOW_LOG	22	/* its window: 4 MiB */

/* The journal's segments, oldest first; false (and a warning): unreadable. */
bool	 archive_list(const char *journal, struct segment **, size_t *);
void	 archive_list_free(struct segment *, size_t);
/*
 * A segment's bytes as a plain journal: the file itself, or its
 * decompressed bytes in an anonymous file.  -1 (and a warning naming the
 * segment) when it cannot be read or its compressed frame is damaged.
 */
int	 archive_open(const struct segment *);
/*
 * The same for a reader that reads it whole: a compressed segment whose
 * plain bytes fit PLAIN_IN_MEMORY (256 MiB, and a sixteenth of what
 * memory_we_may_use() says) is decompressed into memory, image (len
 * bytes, to munmap(2)), fd -1; any other is archive_open()'s, image
 * NULL.  False (and a warning) as archive_open() fails.
 */
struct plain {
	int		 fd;
	char		*image;
	size_t		 len;
};
bool	 archive_plain(const struct segment *, struct plain *);
/* The limits from ARC_KEEP_HISTORY and ARC_KEEP_HISTORY_BYTES. */
void	 archive_keep_env(struct keep *);
/*
 * Compresses every closed plain segment, then removes what the limits no
 * longer keep, oldest first.  Never inside a hook's call: arc-apply
 * --compact and --archive run it, and archive_handoff() in a child.
 */
bool	 archive_maintain(const char *journal, int64_t now,
	    const struct keep *);
/* The same, in a detached child that outlives us and holds nothing of ours. */
void	 archive_handoff(const char *journal, int64_t now);

#endif /* ARCARCHIVE_H */
