/*
 * What the programs' front ends share (arcfilter.c): input files as
 * NDJSON lines, standard output, the applier that arc-apply and
 * arc-answer (and a mirror) apply through, reading the journal as it is
 * now, and usage errors.
 */
#ifndef ARCCMD_H
#define ARCCMD_H

#include "arc.h"
#include "arcproblem.h"
#include "arcrecord.h"
#include "arcrules.h"
#include "arcjournal.h"
#include "arcoffdevice.h"

int	open_input(const char *);	/* "-" is standard input */
void	close_input(int);
void	print_version(void);
void	write_stdout(const struct buf *);	/* a failure exits 3 */
void	flush_stdout(void);
/*
 * A program's usage text: its synopsis, a blank line, then what each
 * option does; --help prints it all, a usage error only the synopsis.
 */
void	usage_print(FILE *, const char *text, bool full);
/* Says what was wrong, then the synopsis; returns EXIT_USAGE. */
int	usage_error(const char *text, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* -h, -V and getopt's own errors, alike in every program: true if done. */
bool	common_option(int ch, const char *text, int *status);
/* An option's duration (the one parser) or its count (strtonum(3)). */
bool	duration_arg(const char *option, const char *, int64_t *ms);
bool	count_arg(const char *option, const char *, long long min,
	    long long max, long long *);
/* An option's time: RFC 3339, a date alone, or a duration ago; seconds. */
bool	time_arg(const char *option, const char *, const char *now,
	    int64_t *seconds);

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
/* The one writer of a result line (arc-apply(1)). */
void	result_line(struct buf *, struct arena *, uint64_t line,
	    const struct verdict *, struct sv event_id, struct sv key,
	    const struct change *, const struct current *,
	    const struct offdevice *);

/*
 * An event (a line) to sh -c command's standard input: --via, or a
 * mirror's route; its exit status.  out: its standard output (-1: ours).
 */
int	send_via(const char *command, const struct buf *ev, int out);

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

#endif /* ARCCMD_H */
