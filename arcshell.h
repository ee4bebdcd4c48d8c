/*
 * What the person-facing commands share (arcshell.c): arc-status,
 * arc-wait and arc-answer each live in a file of their own.
 */
#ifndef ARCSHELL_H
#define ARCSHELL_H

#include "arc.h"
#include "arcjournal.h"

/*
 * How long a notice (an active condition without a question) counts as
 * needing someone after its last update, unless it is resolved or
 * dismissed first; arc-status(1) and arc(7) document it.
 */
#define NOTICE_SECONDS	(24 * 3600)

struct question {
	bool		 found;
	struct rec	 q;
	char		*text;	/* the interaction record, journal form */
};

bool	read_journal(struct journal *, const char *option);
void	find_question(struct journal *, struct arena *, const char *key,
	    struct question *);
void	print_interaction(struct arena *, const char *text);

/* ---- time for a person ---- */
/* Seconds from now until an instant (negative: ago); false if unreadable. */
bool	seconds_until(const char *until, const char *now, int64_t *);
/* "45s", "12m", "3h20m", "2d": how long until an instant. */
void	time_left(char *, size_t, const char *until, const char *now);
/* "45 seconds", "4 minutes", "1 hour 20 minutes", "2 days 3 hours". */
void	duration_words(char *, size_t, int64_t seconds);
/*
 * A question's state in words, such as "waiting for an answer, 4 minutes
 * left" or "expired 4 minutes ago"; status is condition_qstatus()'s.
 */
void	question_words(struct buf *, const struct rec *q, enum qstatus,
	    const char *now);
/* The condition's state in words: its question's, or the notice's. */
void	condition_words(struct buf *, const struct condition *, const struct rec *n,
	    const struct rec *q, enum qstatus, const char *now);

/* ---- producer text for a person ---- */
/* term_safe, keeping line breaks as breaks followed by indent. */
void	show_text(struct buf *, struct sv, const char *indent);
void	show_sv(struct buf *, struct sv);	/* term_safe; null is "" */
/* A string made terminal-safe in b (emptied first), for a message; "" shown. */
const char *safe(struct buf *b, const char *);

/* ---- arc-status --show and --history (arcshow.c) ---- */
int	status_show(struct journal *, const char *key, bool json,
	    const char *now);
int	status_history(struct journal *, bool json, const char *now);

/* ---- command lines ---- */
/* Says what was wrong, then the usage; returns EXIT_USAGE. */
int	usage_error(void (*usage)(FILE *), const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * An inotify watch on the journal's folder, so that appends and a
 * compaction's rename both wake a poll(2); -1 without inotify (poll then).
 */
int	journal_watch(const char *path);
bool	journal_watch_read(int fd, const char *base);

int64_t	monotonic_ms(void);	/* for timeouts and deadlines */

#endif /* ARCSHELL_H */
