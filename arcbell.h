/*
 * The journal's doorbell (arcbell.c).  A small file beside the journal,
 * journal.wake, mapped shared by every process that opens it: its first
 * word counts the rings, its second how many sleep on it.  A writer rings
 * once its records are durable (after fdatasync), and once before, as it
 * syncs, so that a sleeper is running again by then; a waiter reads the
 * count, looks at the journal under its lock (which the writer holds
 * until the sync is done), and sleeps on the count with a futex until it
 * moves.  Leaving a futex costs nothing, where releasing an
 * inotify instance waits for the kernel's grace period (8-23 ms measured
 * here): so the waiter hands an answer over and exits without that wait.
 *
 * Past the two words, the journal's durable end as its last writer
 * synced it (bell_mark): a reader that has read to that very end, of
 * that very file, need not sync it again before it acts.
 *
 * The file is its owner's (one another user owns, or that group or
 * others may write, is refused), as the journal is.  A ring tells only
 * "look again"; a mark is trusted only when the bytes it names are
 * there, at the same end of the same file, changed last when it was
 * marked.
 */
#ifndef ARCBELL_H
#define ARCBELL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct bell {
	_Atomic uint32_t *word;	/* [0] rings, [1] sleepers; NULL: none */
};

/*
 * Opens (making if missing, mode 0600) the bell of the journal at path.
 * false when it cannot be had (a folder we may not write, a file that is
 * not ours): the caller then watches the folder instead.
 */
bool		 bell_open(struct bell *, const char *journal_path);
/* The same, only when the bell is there already (a reader's way). */
bool		 bell_open_existing(struct bell *, const char *journal_path);
void		 bell_close(struct bell *);
/*
 * The count of rings now, read before looking at the journal; from then
 * on a signal's bell_interrupt() moves it, so a sleep after a signal that
 * came between the look and the sleep does not begin.
 */
uint32_t	 bell_listen(struct bell *);
/* After the records are durable: every sleeper looks again. */
void		 bell_ring(struct bell *);
/*
 * Sleeps until the count moves past seen, ms pass, or bell_interrupt()
 * runs (in a signal handler).  true when it moved.
 */
bool		 bell_sleep(struct bell *, uint32_t seen, int64_t ms);
/*
 * Async-signal-safe: ends this process's bell_sleep (it rings the bell it
 * sleeps on, so the other sleepers look once more for nothing).
 */
void		 bell_interrupt(void);

/*
 * The journal's durable end: the file (device, inode, and its change
 * time after the sync: an inode used again, or the file written again
 * with the same bytes, has another), the offset its records are durable
 * to, and the bytes that end there (a record's frame, whose CRC names
 * it).  Set by a writer after its fdatasync, under the journal's
 * exclusive lock; read under the shared lock.
 */
#define BELL_TAIL	20
struct bell_mark {
	uint64_t	 dev, ino, end;
	int64_t		 ctime_sec;
	uint32_t	 ctime_nsec;
	unsigned char	 tail[BELL_TAIL];
};
void		 bell_mark(struct bell *, const struct bell_mark *);
/* false: no bell, or no mark on it yet. */
bool		 bell_marked(struct bell *, struct bell_mark *);

#endif /* ARCBELL_H */
