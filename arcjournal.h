/*
 * The journal file (arcjournal.c): where conditions become durable.
 *
 * Its life, from creation to archive:
 *
 *   created   a header line, synced, linked into place whole
 *   appended  records, each with its seq, the seq known durable when it
 *             was written, and a CRC-32C; synced before any result
 *   read      under flock, each record's frame checked; bytes another
 *             process wrote are synced before they are acted on
 *   recovered an unfinished tail (a record cut short, a power cut's
 *             zeros) is cut; damage (records after it prove it durable, or
 *             a whole record fails its check) is refused (--salvage)
 *   compacted when its dead bytes outweigh its live ones: what is live
 *             goes to a new file renamed into place, the old file is kept
 *             beside it as an archive segment
 *   checkpointed  a large journal's state is kept beside it (a cache,
 *             arccheckpoint.c), so that a command replays only the records
 *             after it
 */
#ifndef ARCJOURNAL_H
#define ARCJOURNAL_H

#include <sys/types.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcbell.h"

struct journal {
	char		*path;
	int		 fd;
	dev_t		 dev;
	ino_t		 ino;
	uint64_t	 offset;	/* bytes replayed into st */
	uint64_t	 records;	/* replayed, the header not counted */
	struct state	*st;
	struct arena	 arena;
	bool		 writable, exclusive;
	bool		 missing;	/* a reader found no file yet */
	int		 version;	/* of the header; 0: an empty file */
	uint64_t	 first_seq;	/* the header's: records before this file */
	bool		 salvage;	/* skip damaged records, do not refuse */
	uint64_t	 skipped_at;	/* salvage: the last record skipped (its byte) */
	bool		 past;		/* history's: every lifecycle, no checkpoint */
	const char	*whole;		/* a scratch copy's or image's bytes */
	size_t		 whole_len;
	bool		 copy;		/* whole is it: a scratch copy, ours */
	bool		 lent;		/* whole is the caller's image */
	bool		 warned_tail;
	bool		 upgraded;	/* from version 1, by this lock */
	bool		 reread;	/* its state not whole: from the file */
	bool		 swept;		/* stale temporary files removed */
	bool		 looked;	/* caught up once: what comes since is read */
	/* Automatic compaction: when, and what it keeps. */
	bool		 checked;	/* retirement weighed once */
	uint64_t	 checked_size;
	uint64_t	 floor;		/* no compaction below these bytes */
	int64_t		 retain, window;
	/* The checkpoint: what it covers, and from what size one is kept. */
	uint64_t	 checkpoint, checkpoint_floor;
	uint64_t	 last_start;	/* the last record replayed or written */
	/* The sequence, durability and recorded time, as the file has them. */
	uint64_t	 seq;		/* of the last record */
	uint64_t	 durable;	/* records up to it are synced */
	bool		 check_seq;	/* each record's seq is one more */
	char		 latest[64];	/* the latest recorded time */
	struct arc_instant latest_t;	/* the same, parsed */
	/* The batch: records not yet on disk, to land at offset (+ header). */
	struct buf	 batch, scratch;
	uint64_t	 batch_at;	/* where the batch's first byte lands */
	size_t		 batch_ahead;	/* of it, written before its append */
	int		 ahead_error;	/* errno of a write ahead that failed */
	struct arena	 record_arena;	/* a record decoded as it is put */
	/* A compaction that found no room: the size then (0: none). */
	uint64_t	 nospace_at;
	bool		 nospace_known;	/* looked for its mark beside us */
	int		 compact_errno;	/* why the last one failed */
	/* The bell rung after each sync (arcbell.h), opened at the first. */
	struct bell	 bell;
	bool		 bell_tried;
	bool		 sweeping;	/* withdrawing questions nobody waits for */
};

char	*journal_default_path(const char *);
/* The usual one, whatever ARC_JOURNAL says: in XDG_STATE_HOME, or HOME. */
char	*journal_usual_path(void);
bool	 journal_folder_ready(const char *path, bool make);
bool	 journal_open(struct journal *, const char *path, bool writable);
/*
 * A segment of history (its plain bytes in fd), read as a reader reads.
 * scratch: fd is a decompressed copy no one else has, read from memory
 * whole and never synced.
 */
bool	 journal_read_fd(struct journal *, const char *name, int fd,
	    bool scratch);
/* The same, its plain bytes in memory: image, the caller's, kept past
 * journal_close. */
bool	 journal_read_image(struct journal *, const char *name, char *image,
	    size_t len);
void	 journal_close(struct journal *);
/*
 * Before the first read: keep every lifecycle the file holds, not only
 * the latest under each key (arc-status --history), replaying it whole.
 */
void	 journal_keep_past(struct journal *);
bool	 journal_lock(struct journal *, bool exclusive);
void	 journal_unlock(struct journal *);
/* The time of a change: now, unless the journal has recorded later. */
const char *journal_clock(struct journal *, const char *now);
/*
 * A change as a record in the batch, put into the state the way a replay
 * puts it; under the exclusive lock.  journal_append() stores the batch.
 */
void	 journal_record(struct journal *, const char *at,
	    const struct change *);
/* Stores the batch and syncs it: only then may a result be printed. */
bool	 journal_append(struct journal *);
/* The same without the sync, for a record that may be lost (a receipt). */
bool	 journal_append_unsynced(struct journal *);
/*
 * The one checked reader of a stored record: a condition's notification
 * or question as text in the arena, or NULL when it has none; a record a
 * checkpoint gave is checked (its CRC) first.  Damage, or a journal that
 * shrank under us: exit 3, naming the byte.
 */
const char *journal_text(struct journal *, struct arena *,
	    const struct condition *, bool interaction);
/* The same, parsed; the caller knows the condition has that part. */
const char *journal_rec(struct journal *, struct arena *,
	    const struct condition *, bool interaction, struct rec *);
bool	 journal_compact(struct journal *, const char *now);
/* After a writer's results are out: compacts if the journal has earned it. */
bool	 journal_maintain(struct journal *, const char *now);
/* Writes the readable records of a damaged journal to a new one. */
bool	 journal_salvage(struct journal *, const char *to);

#define RETAIN_DEFAULT	(7 * 86400)	/* settled conditions stay a week */
#define WINDOW_DEFAULT	(7 * 86400)	/* event ids are remembered a week */
#define FLOOR_DEFAULT	(1024 * 1024)	/* smaller journals are left alone */
#define CHECKPOINT_FLOOR_DEFAULT	(64 * 1024)	/* smaller ones are not checkpointed */

#endif /* ARCJOURNAL_H */
