/*
 * The contract's records (arcrecord.c): the notification and interaction
 * records of arc(7), as field tables over string views, in their two JSON
 * forms (the full one printed, the journal's without nulls); the one judge
 * of a question's state at an instant; and a change, the unit every
 * update of a condition is made of.
 */
#ifndef ARCRECORD_H
#define ARCRECORD_H

#include "arc.h"

enum { N_ID, N_KEY, N_STATUS, N_OUTCOME, N_KIND, N_TYPE, N_PRIORITY, N_TITLE,
    N_MESSAGE, N_AGENT, N_AGENT_NAME, N_AGENT_INSTANCE, N_PROJECT,
    N_SESSION_ID, N_CORRELATION_ID, N_CREATED_AT, N_UPDATED_AT,
    N_RESOLVED_AT, N_EVENT_ID, N_X_ARC, N_FIELDS };

enum { I_ID, I_KEY, I_NOTIFICATION_ID, I_KIND, I_TITLE, I_PROMPT, I_CHOICES,
    I_TEXT_MAX_LENGTH, I_EXPIRES_AT, I_STATUS, I_DIGEST, I_NONCE,
    I_SESSION_ID, I_TURN_ID, I_NATIVE_REQUEST_ID, I_CREATED_AT,
    I_UPDATED_AT, I_ANSWERED_AT, I_RESPONSE, I_FIELDS };
#define REC_FIELDS ((int)I_FIELDS > (int)N_FIELDS ? (int)I_FIELDS : \
    (int)N_FIELDS)

struct rec {
	struct sv	 f[REC_FIELDS];	/* the longer of the two */
};

enum qstatus { Q_NONE, Q_PENDING, Q_ANSWERED, Q_EXPIRED, Q_CANCELLED,
    Q_SUPERSEDED };
enum priority { P_LOW, P_NORMAL, P_HIGH, P_CRITICAL };

bool		 rec_from_jval(const struct jval *, bool interaction,
		    struct rec *);
/* A stored record's text, parsed (false: it does not parse). */
bool		 rec_parse(struct arena *, const char *, bool interaction,
		    struct rec *);
/* What the rest of the code takes for granted of a stored record. */
bool		 rec_sane(const struct rec *, bool interaction);
/* full: every field, nulls too (as printed); else the journal's form. */
void		 rec_write(struct buf *, const struct rec *, bool interaction,
		    bool full);
/* A stored text in its full form; NULL prints null. */
void		 record_write_full(struct buf *, struct arena *, const char *,
		    bool interaction);
const char	*qstatus_name(enum qstatus);
const char	*priority_name(enum priority);
enum qstatus	 qstatus_of(struct sv);
enum priority	 priority_of(struct sv);
/* The question's choices (NULL for a text question), parsed. */
const struct jval *question_choices(struct arena *, const struct rec *);

/*
 * The one judge of a question's state at an instant: a question recorded
 * pending whose deadline (expires_at, due its whole seconds) is at or
 * before now is expired; its seconds decide, its text within the second.
 */
enum qstatus	 question_state(enum qstatus recorded, const char *expires_at,
		    int64_t due, const char *now);
/* The same for a record; question_open: pending now. */
enum qstatus	 question_status(const struct rec *, const char *now);
bool		 question_open(const struct rec *, const char *now);
/* Whole seconds of an instant (0 when it is not one). */
int64_t		 instant_seconds(const char *);

/*
 * What the condition table keeps of a record, and what the journal's index
 * of it says (arc-journal(5)): written ahead of the notification and
 * question it sums up, with their lengths, so that a replay steps over
 * their text unread.
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

/*
 * A change: what one accepted event (or the consumer: an expiry, a
 * dismissal, a mirror) does to the condition of its key, the records as
 * they now are.  The rules make it; the journal writes it as one record.
 */
struct change {
	struct rec	 n, q;
	bool		 has_n, has_q;
	struct sv	 superseded;	/* the id of a question it replaced */
	const char	*dismissed;	/* by whom, for a person's dismissal */
	const char	*route;	/* a mirror's: its host's route ("" none) */
	/*
	 * What became of the question's hand-over, as a JSON object (arc's
	 * own, not the contract's; arc-journal(5)): the receipt of the agent
	 * that took the answer, or why it was withdrawn.  NULL: nothing.
	 */
	const char	*handover;
	/* The event that made it (ident NULL: the consumer made it). */
	const char	*ident, *hash;	/* 32 hex digits each */
	struct sv	 sender, event_id, type;
};

#endif /* ARCRECORD_H */
