/*
 * Conditions in memory, and the records that carry them to the journal.
 *
 * A condition is the latest lifecycle under one key: its notification
 * record and its current question (interaction record), each kept as the
 * exact JSON text last written, parsed again only when an event touches
 * it.  Replaying the journal therefore costs one parse per record and no
 * per-field allocation.
 */
#ifndef ARCSTATE_H
#define ARCSTATE_H

#include <string.h>

#include "arc.h"

/* A string view into a line, an arena or a record; p == NULL is null. */
struct sv {
	const char	*p;
	size_t		 n;
};

enum { N_ID, N_KEY, N_STATUS, N_OUTCOME, N_KIND, N_TYPE, N_PRIORITY, N_TITLE,
    N_MESSAGE, N_AGENT, N_AGENT_NAME, N_AGENT_INSTANCE, N_PROJECT,
    N_SESSION_ID, N_CORRELATION_ID, N_CREATED_AT, N_UPDATED_AT,
    N_RESOLVED_AT, N_EVENT_ID, N_FIELDS };

enum { I_ID, I_KEY, I_NOTIFICATION_ID, I_KIND, I_TITLE, I_PROMPT, I_CHOICES,
    I_TEXT_MAX_LENGTH, I_EXPIRES_AT, I_STATUS, I_DIGEST, I_NONCE,
    I_SESSION_ID, I_TURN_ID, I_NATIVE_REQUEST_ID, I_CREATED_AT,
    I_UPDATED_AT, I_ANSWERED_AT, I_RESPONSE, I_FIELDS };
_Static_assert((int)I_FIELDS >= (int)N_FIELDS, "struct rec holds both");

struct rec {
	struct sv	 f[I_FIELDS];	/* the longer of the two */
};

enum qstatus { Q_NONE, Q_PENDING, Q_ANSWERED, Q_EXPIRED, Q_CANCELLED,
    Q_SUPERSEDED };
enum priority { P_LOW, P_NORMAL, P_HIGH, P_CRITICAL };

/*
 * Where a record's JSON text is: in the journal file, or in the batch; and
 * the line that holds it, whose checksum a span a checkpoint gave (not
 * replayed, so not yet checked) has checked when the text is read.
 */
struct span {
	uint64_t	 off;	/* IN_BATCH set: an offset in the batch */
	uint64_t	 line;	/* the line's start, likewise */
	uint32_t	 len;	/* 0: no such record */
	uint32_t	 line_len;	/* without its newline */
	bool		 unchecked;
};
#define IN_BATCH	(UINT64_C(1) << 63)

struct condition {
	char		*key;
	size_t		 keylen;
	char		 notification_id[32];
	struct span	 notification, interaction;
	/* What arc-status and arc-wait read without the journal: */
	bool		 active;
	enum priority	 priority;
	enum qstatus	 qstatus;	/* as recorded; see condition_qstatus */
	char		*expires_at;	/* of a pending question only */
	int64_t		 due;		/* the same in seconds */
	int64_t		 changed;	/* its latest updated_at, in seconds */
	char		*dismissed;	/* by whom, when a person dismissed it */
	/*
	 * A mirror's (arc-apply --mirror): the command that takes an answer
	 * to its host ("" none recorded); NULL for a condition of this host.
	 */
	char		*route;
};

struct state;

struct state	*state_new(void);
void		 state_free(struct state *);
size_t		 state_count(const struct state *);

/* The journal file, whose records the conditions point into. */
void		 state_set_file(struct state *, int);
void		 state_for_readers(struct state *);
void		 state_expect_bytes(struct state *, uint64_t);
/* The sequence: the last record's seq, and whether each must be one more. */
void		 state_set_seq(struct state *, uint64_t, bool check);
uint64_t	 state_seq(const struct state *);
void		 state_all_durable(struct state *);
/* The time of a change: now, or the latest time recorded if later. */
const char	*state_clock(struct state *, const char *now);
/* Replays one journal record found at a file offset; false if damaged. */
bool		 state_load_record(struct state *, struct arena *,
		    const char *, size_t, uint64_t);
/* The batch's records are now on disk, from this file offset on. */
void		 state_batch_stored(struct state *, uint64_t);
/* A condition's record as JSON text in the arena, or NULL. */
const char	*condition_text(struct state *, struct arena *,
		    const struct condition *, bool interaction);
/* The same, parsed (a part it has; damaged: exit 3). */
const char	*condition_rec(struct state *, struct arena *,
		    const struct condition *, bool interaction, struct rec *);

struct applied {
	int		 status;	/* 200, 201, 400, 404, 409, 413 */
	enum arc_code	 code;
	bool		 replayed;
	bool		 changed;	/* a record was appended */
	const char	*path;	/* JSON Pointer of the member at fault */
	const char	*state;	/* not_open: the question's status */
	char		 message[160];
};

/*
 * Applies one valid event at time now.  On acceptance the journal record is
 * appended to *records and the result's body (key, notification,
 * interaction, or error) to *body; a rejection changes nothing.
 */
void		 state_apply(struct state *, struct arena *, const struct jval *,
		    const char *now, struct buf *records, struct buf *body,
		    struct applied *);

/* Marks the question under key expired if its deadline has passed. */
bool		 state_expire(struct state *, struct arena *, const char *key,
		    const char *now, struct buf *records);

/* A person's dismissal of a notice or a settled question (a resolution). */
enum dismissal { DISMISS_OK, DISMISS_NOT_FOUND, DISMISS_NOT_ACTIVE,
    DISMISS_PENDING };
enum dismissal	 state_dismiss(struct state *, struct arena *, const char *key,
		    const char *now, const char *source, struct buf *records);

/* A condition as another host published it, in a mirror (arcmirror.c). */
enum arc_code	 state_mirror(struct state *, struct arena *, const struct jval *,
		    const char *now, const char *route, struct buf *records,
		    const char **why);

/*
 * What a compaction keeps: every condition but those retired (settled,
 * with nothing pending, and unchanged for retain seconds), and the events
 * seen within the window.  Records are sealed into *out, which is handed
 * to flush whenever it passes a megabyte and once at the end; false from
 * flush stops it.
 */
struct compaction {
	const char	*now;	/* the clock, that retirement is judged by */
	const char	*at;	/* the time the records are written at */
	int64_t		 retain, window;
	bool		(*flush)(struct buf *, void *);
	void		*arg;
	const char	*map;	/* the journal mapped whole, or NULL: pread */
	uint64_t	 maplen;
};
bool		 state_compact(struct state *, struct arena *,
		    const struct compaction *, struct buf *out);
/* Bytes a compaction would keep (estimated); all == false skips retirement. */
uint64_t	 state_live_bytes(struct state *, const char *now, int64_t retain,
		    int64_t window, bool all);
bool		 condition_retired(const struct condition *, const char *now,
		    int64_t retain);

/* A record's frame (arcjournal.c): its checksum, and the newline. */
void		 record_seal(struct buf *, size_t start);
bool		 record_frame_ok(const char *, size_t);

struct condition *state_lookup(struct state *, const char *key);
void		 state_foreach(struct state *,
		    void (*)(const struct condition *, void *), void *);
enum qstatus	 condition_qstatus(const struct condition *, const char *now);
bool		 rec_parse(struct arena *, const char *, bool interaction,
		    struct rec *);
void		 record_write_full(struct buf *, struct arena *, const char *,
		    bool interaction);
const char	*qstatus_name(enum qstatus);
const char	*priority_name(enum priority);

/* The records and the string views they are made of (arcrecord.c). */
struct sv	 sv_str(const char *);
struct sv	 sv_json(const struct jval *);
bool		 sv_eq(struct sv, const char *);
bool		 sv_same(struct sv, struct sv);
const char	*sv_cstr(struct arena *, struct sv);
struct sv	 sv_buf(struct arena *, const struct buf *);
bool		 rec_from_jval(const struct jval *, bool interaction,
		    struct rec *);
void		 rec_write(struct buf *, const struct rec *, bool interaction,
		    bool full);
enum qstatus	 qstatus_of(struct sv);
enum priority	 priority_of(struct sv);

/*
 * A record's index (arc-journal(5)): what the condition table keeps of the
 * record, written ahead of the notification and question it sums up, with
 * their lengths, so that a replay steps over their text unread.
 */
struct record_index {
	struct sv	 key;
	uint32_t	 nlen, qlen;	/* 0: the record has no such part */
	struct sv	 notification_id;
	bool		 active;
	enum priority	 priority;
	enum qstatus	 qstatus;
	struct sv	 expires_at;	/* a pending question's; else null */
	int64_t		 due;	/* the same in seconds */
};
void		 index_of(struct record_index *, const struct rec *n,
		    size_t nlen, const struct rec *q, size_t qlen);
void		 index_write(struct buf *, const struct record_index *);
bool		 index_read(struct jcursor *, struct record_index *);
/* What the rest of the code takes for granted of a stored record. */
bool		 rec_sane(const struct rec *, bool interaction);

/* A checkpoint's view of the state (arccheckpoint.c). */
bool		 state_readers_only(const struct state *);
uint64_t	 state_checkpoint_bytes(const struct state *);
void		 state_foreach_seen(struct state *, void (*)(const uint8_t *,
		    const uint8_t *, int64_t, void *), void *);
void		 state_reserve(struct state *, size_t conditions,
		    size_t events);
bool		 state_restore(struct state *, const struct condition *);
void		 state_restore_seen(struct state *, const uint8_t *,
		    const uint8_t *, int64_t);
bool		 state_restored(struct state *, uint64_t seq, const char *latest);
const char	*state_latest(const struct state *);
void		 state_adopt(struct state *, struct state *from);

/* Small helpers on string views, for the front ends. */
static inline bool
sv_is(struct sv v, const char *s)
{
	size_t n = strlen(s);

	return v.p != NULL && v.n == n && memcmp(v.p, s, n) == 0;
}
const char	*sv_cstr_of(struct arena *, struct sv);
bool		 is_hex(struct sv, size_t);	/* n lowercase hex digits */
bool		 hex_decode(struct sv, uint8_t *, size_t);


#endif /* ARCSTATE_H */
