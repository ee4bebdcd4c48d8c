/*
 * What ARC's rules (arcrules.c) ask of the conditions in memory
 * (arcstate.c): find a condition, know an event seen before, and record a
 * change, which the state then points the condition at.
 */
#ifndef ARCRULES_H
#define ARCRULES_H

#include "arcstate.h"

/* What one accepted change did, to be written as one journal record. */
struct change {
	struct rec	 n, q;
	bool		 has_n, has_q;
	struct sv	 superseded;	/* the id of a question it replaced */
	const char	*dismissed;	/* by whom, for a person's dismissal */
	const char	*route;	/* a mirror's: its host's route ("" none) */
	/* The event that made it (ident NULL: the consumer made it). */
	const char	*ident, *hash;	/* 32 hex digits each */
	struct sv	 sender, event_id, type;
};

struct condition *state_find(struct state *, struct sv key);
enum seen_as	 { SEEN_NONE, SEEN_SAME, SEEN_OTHER };
/* An event seen before by its identity: with the same content or not. */
enum seen_as	 state_seen(struct state *, const uint8_t ident[16],
		    const uint8_t content[16]);
void		 state_remember(struct state *, const uint8_t ident[16],
		    const uint8_t content[16], const char *now);
void		 state_record(struct state *, const char *now,
		    const struct change *, struct buf *records);
/* A result's body: the change's records, or the stored ones. */
void		 state_body(struct state *, struct buf *body, struct arena *,
		    struct sv key, const struct change *);
void		 hex_bytes(const char *, uint8_t *, size_t);
/* A mirrored question's digest is its text's (arcrules.c). */
bool		 mirror_question_holds(struct arena *, const struct rec *n,
		    const struct rec *q);

#endif /* ARCRULES_H */
