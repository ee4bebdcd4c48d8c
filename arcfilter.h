/*
 * The filter (arcfilter.c): input files as NDJSON lines, standard output,
 * the applier that arc-apply and arc-answer (and a mirror, and the page)
 * apply through, reading the journal as it is now, and an answer as an
 * event.
 */
#ifndef ARCFILTER_H
#define ARCFILTER_H

#include "arc.h"
#include "arcproblem.h"
#include "arcrecord.h"
#include "arcrules.h"
#include "arcjournal.h"
#include "arcoffdevice.h"

int	open_input(const char *);	/* "-" is standard input */
void	close_input(int);
void	write_stdout(const struct buf *);	/* a failure exits 3 */
void	flush_stdout(void);
/* The applier: arc-apply's machinery, which arc-answer shares. */
struct applier {
	struct journal	 j;
	struct arena	 arena;
	struct problems	 pr;
	struct buf	 out;	/* result lines, printed once stored */
	bool		 quiet;
	bool		 answers_only;	/* --answers: response.submitted only */
	const struct offdevice *off;	/* --off-device: results as they leave */
	bool		 keep_out;	/* results stay in out, for the caller */
	const char	*not_found_why;	/* words added to a not_found refusal */
	int		 status;
	struct verdict	 last;	/* of the event apply_one last took */
};
bool	applier_open(struct applier *, const char *journal_option);
void	applier_close(struct applier *);
void	apply_one(struct applier *, const char *name, uint64_t line,
	    const char *, size_t, bool too_large);
bool	applier_commit(struct applier *);
/* The condition under key as stored, parsed (a locked journal). */
void	current_of(struct journal *, struct arena *, struct sv key,
	    struct current *);

/* ---- reading the journal as it is now ---- */
struct question {
	bool		 found;
	struct rec	 q;
	char		*text;	/* the interaction record, journal form */
};
bool	read_journal(struct journal *, const char *option, bool past);
void	find_question(struct journal *, struct arena *, const char *key,
	    struct question *);

/* ---- an answer, as an event ---- */
struct answerer {
	const char	*sender;	/* sender.id */
	const char	*response_id;	/* NULL: one is minted */
	const char	*source;
	const char	*device;	/* device_id; NULL: none */
};
/* The response.submitted event answering qn (answer: text or choice id). */
void	build_event(struct buf *, const char *key, const struct question *,
	    const struct answerer *, const char *answer, bool is_text);

#endif /* ARCFILTER_H */
