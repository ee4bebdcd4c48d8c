/*
 * The conditions in memory (arcstate.c): the latest lifecycle under each
 * key and the events seen, for idempotency.  A condition keeps where its
 * notification and current question are in the journal, not their text,
 * and the little that arc-status and arc-wait read without the journal.
 *
 * One mutator: state_put() is the only writer of a condition and of the
 * events seen.  A record put by live apply, by the replay of the journal
 * and by a checkpoint's restore is the same struct stored, as Redis
 * replays its append-only file through its live command table.  The state
 * writes no bytes and reads no file: arclog.c says what a record holds,
 * arcjournal.c where it is.
 */
#ifndef ARCSTATE_H
#define ARCSTATE_H

#include "arc.h"
#include "arcrecord.h"

/*
 * Where a record's text is: its offset in the journal file (or past its
 * end, in the batch being written), and the line that holds it, whose
 * checksum is checked when the text is read if a checkpoint gave it.
 */
struct span {
	uint64_t	 off;
	uint64_t	 line;	/* the line's start */
	uint32_t	 len;	/* 0: no such record */
	uint32_t	 line_len;	/* without its newline */
	bool		 unchecked;
};

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
	char		 expires_text[40];	/* where it is, when it fits */
	int64_t		 due;		/* the same in seconds */
	int64_t		 changed;	/* its latest updated_at, in seconds */
	char		*dismissed;	/* by whom, when a person dismissed it */
	/*
	 * The hand-over's record (a JSON object: a receipt, a withdrawal for
	 * want of a waiter), kept for the lifecycle; NULL: none.
	 */
	char		*handover;
	/*
	 * A mirror's (arc-apply --mirror): the command that takes an answer
	 * to its host ("" none recorded); NULL for a condition of this host.
	 */
	char		*route;
};

/* What the state keeps of one record, as the record tells it. */
struct stored {
	struct record_index	 ix;	/* key; nlen, qlen 0: no such part */
	struct span		 n, q;	/* where its parts are */
	int64_t			 changed;	/* the condition's, in seconds */
	struct sv		 dismissed, route, handover;
	const uint8_t		*ident, *hash;	/* its event's; NULL: none */
	int64_t			 at;	/* the record's time, in seconds */
};

struct state;

/* readers: the state of one who never applies, with no events seen. */
struct state	*state_new(bool readers);
void		 state_free(struct state *);
size_t		 state_count(const struct state *);
bool		 state_readers_only(const struct state *);
/* Sizes the tables for what is coming (a checkpoint, a large journal). */
void		 state_reserve(struct state *, size_t conditions,
		    size_t events);

/* The one mutator: false if the record cannot be (a question alone). */
bool		 state_put(struct state *, const struct stored *);

/*
 * Conditions and events a state holds without having read them yet: a
 * checkpoint's (arccheckpoint.c), numbered from 0.  A condition is read
 * and put (state_put) the first time a lookup needs it, and every one
 * before a walk; an event is looked at where it lies.  So a writer of one
 * event among 10,000 live conditions reads the one it touches.
 */
struct state_base {
	void		*arg;
	size_t		 conditions, events;	/* events: 0 for readers */
	uint64_t	 span_bytes;	/* the conditions' parts, all */
	int64_t		 changed_floor, seen_floor;	/* as state_put's */
	/* The number under a key, or an event's identity; SIZE_MAX: none. */
	size_t		(*find)(void *, struct sv key);
	size_t		(*find_event)(void *, const uint8_t ident[16]);
	/*
	 * Condition i as a record would put it.  One that is not as it was
	 * ends the command there (arcjournal.c); false only when that
	 * handler returns (a fuzzer's), and the state goes on without it.
	 */
	bool		(*condition)(void *, size_t, struct stored *);
	void		(*event)(void *, size_t, struct stored *);
	/*
	 * Every condition from now on (true), the walk ahead reads them
	 * all; then (false) whether what was read was as it is still.
	 */
	bool		(*all)(void *, bool);
	void		(*release)(void *);
};
/* An empty state's: what it holds from now on. */
void		 state_set_base(struct state *, const struct state_base *);
/*
 * Every condition and event read from the base now: false if one could
 * not be read as it was (only when the base's handler returned), and the
 * state is then not whole: nothing of it is to be written.
 */
bool		 state_read_all(struct state *);
/* Whether every condition and event read so far was read as it was. */
bool		 state_complete(const struct state *);

/* The hash a key is found by (the checkpoint's index uses it too). */
uint64_t	 state_key_hash(const void *, size_t);
struct condition *state_lookup(struct state *, const char *key);
struct condition *state_find(struct state *, struct sv key);
/*
 * History's: keep each lifecycle that a newer one under its key
 * replaces; state_past() gives them in the order they were replaced
 * (NULL past the last).
 */
void		 state_keep_past(struct state *);
struct condition *state_past(struct state *, size_t);
/* Every condition, as signify walks ohash_first/ohash_next. */
struct condition *state_first(struct state *, size_t *at);
struct condition *state_next(struct state *, size_t *at);

enum seen_as	 { SEEN_NONE, SEEN_SAME, SEEN_OTHER };
/* An event seen before by its identity: with the same content or not. */
enum seen_as	 state_seen(struct state *, const uint8_t ident[16],
		    const uint8_t content[16]);
/* Every event seen: false past the last. */
bool		 state_next_seen(struct state *, size_t *at, uint8_t ident[16],
		    uint8_t content[16], int64_t *seconds);

/* The condition's question's state now (question_state()). */
enum qstatus	 condition_qstatus(const struct condition *, const char *now);
/*
 * Retirement: a condition leaves the live journal once nothing in it is
 * pending and it has not changed for retain seconds.
 */
bool		 condition_retired(const struct condition *, const char *now,
		    int64_t retain);
/* Bytes a compaction would keep (estimated); all == false skips retirement. */
uint64_t	 state_live_bytes(struct state *, const char *now, int64_t retain,
		    int64_t window, bool all);
/* About what a checkpoint of the state takes. */
uint64_t	 state_checkpoint_bytes(const struct state *);

#endif /* ARCSTATE_H */
