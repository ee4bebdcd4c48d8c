/*
 * The journal's doorbell (arcbell.c).  A small file beside the journal,
 * journal.wake, mapped shared by every process that opens it: its first
 * word counts the rings, its second how many sleep on it.  A writer rings
 * once its records are durable (after fdatasync, never before); a waiter
 * reads the count, looks at the journal, and sleeps on the count with a
 * futex until it moves.  Leaving a futex costs nothing, where releasing an
 * inotify instance waits for the kernel's grace period (8-23 ms measured
 * here): so the waiter hands an answer over and exits without that wait.
 *
 * The file holds no data of the journal's; anyone who may write the
 * journal's folder may ring it.  A ring tells only "look again".
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

#endif /* ARCBELL_H */
