/*
 * The journal's line format (arclog.c, arc-journal(5)): what reader and
 * writer share, as LevelDB's log_format.h.  No I/O.
 *
 *   header   {"arc_journal":2,"seq":S,"crc":"..."}: S the seq before the
 *            file's first record
 *   record   {"seq":N,"durable":D,"at":T,["since":S,]["event":{...},]
 *            ["index":{...},]["notification":{...},]["interaction":{...},]
 *            ["superseded":ID,]["dismissed":WHO,]["route":CMD,]
 *            ["seen":[...],]"crc":"8 hex digits"}
 */
#ifndef ARCLOG_H
#define ARCLOG_H

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"

#define LOG_MAGIC	"{\"arc_journal\":"
#define LOG_MAGIC_LEN	(sizeof(LOG_MAGIC) - 1)
#define LOG_HEADER_V1	"{\"arc_journal\":1}"

bool		 log_frame_ok(const char *, size_t);
/* Whether another byte at the offset given would make the frame sound. */
bool		 log_frame_mended(const char *, size_t, size_t);
/* An integer member of a framed record ("seq", "durable"), or -1. */
int64_t		 log_number(struct arena *, const char *, size_t,
		    const char *name);
void		 log_header(struct buf *, uint64_t seq);

/* A record decoded: what the state keeps of it, and its envelope. */
struct log_record {
	bool		 header;
	uint64_t	 seq;
	bool		 has_seq;
	struct sv	 at;	/* its recorded time, as written */
	struct arc_instant at_instant;
	struct stored	 put;	/* what state_put() takes */
	uint8_t		 ident[16], hash[16];	/* put.ident, put.hash */
	const struct jval *seen;	/* a compaction's events seen */
};
/* A line found at offset decoded, or false: the record is damaged. */
bool		 log_decode(struct arena *, const char *, size_t,
		    uint64_t offset, bool readers, struct log_record *);
bool		 log_seen_item(const struct jval *, size_t, uint8_t ident[16],
		    uint8_t content[16], int64_t *at);

/* A change as one record (its parts written aside in scratch first). */
void		 log_encode(struct buf *, struct buf *scratch, uint64_t seq,
		    uint64_t durable, const char *at, const struct change *);
/* A compaction's records: a kept condition; events seen, 512 a record. */
void		 log_encode_kept(struct buf *, uint64_t seq, uint64_t durable,
		    const char *at, const struct condition *, struct sv ntext,
		    struct sv qtext);
void		 log_encode_seen(struct buf *, size_t *start,
		    size_t *in_record, uint64_t seq, uint64_t durable,
		    const char *at, const uint8_t ident[16],
		    const uint8_t content[16], int64_t seconds);
void		 log_encode_seen_end(struct buf *, size_t start,
		    size_t *in_record);

#endif /* ARCLOG_H */
