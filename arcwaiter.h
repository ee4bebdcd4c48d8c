/*
 * Who waits for a question (arcwaiter.c).  A waiter (arc-hook, arc-wait)
 * holds a mark beside the journal while it waits: a file named for the
 * question's key, journal.wait.HASH (the first 32 hex digits of the
 * SHA-256 of the key), on which it holds a shared flock(2).  The kernel
 * drops the lock when the process dies, however it dies, so a mark with
 * no lock on it is a waiter gone.
 *
 * The file says, as JSON, the key, and for a question its own adapter
 * opened (nothing else will ever take its answer) "held": the event_id
 * that opened it, "by": the agent's name, and once the question is
 * stored "question": its id.  Such a mark appears already locked (written
 * and locked under a temporary name, then renamed into place), so that
 * nobody ever finds it unlocked while its waiter lives.
 */
#ifndef ARCWAITER_H
#define ARCWAITER_H

#include "arc.h"

struct waiter {
	int	 fd;
	char	*path;		/* NULL: holds no mark (a zeroed one holds none) */
	dev_t	 dev;
	ino_t	 ino;
	bool	 held;	/* ours is a held mark */
};

/*
 * Holds the mark of key (held: the event_id of a question this waiter
 * opened itself, by the agent's name; or both NULL).  false, with a
 * warning, when it cannot be had: the caller waits all the same, and the
 * question shows nobody waiting.
 */
bool		 waiter_hold(struct waiter *, const char *journal_path,
		    const char *key, const char *held, const char *by);
/* A held mark's question, once stored: its id. */
bool		 waiter_claim(struct waiter *, const char *key,
		    const char *held, const char *by, const char *question);
/* Lets go of the mark (unlinked, if it is still ours). */
void		 waiter_release(struct waiter *);

enum waiting { WAITING_NOBODY, WAITING_SOMEONE };
/* Whether a waiter holds key's mark now. */
enum waiting	 waiter_present(const char *journal_path, struct sv key);

/* Every mark held now, for a reader of many questions: one look. */
struct waiting_set {
	char	(*hash)[33];	/* sorted */
	size_t	  n, cap;
};
void		 waiting_look(struct waiting_set *, const char *journal_path);
enum waiting	 waiting_of(const struct waiting_set *, struct sv key);
void		 waiting_free(struct waiting_set *);

/*
 * A mark whose waiter is gone, of a question its waiter opened: its key
 * and the event_id that opened it, in the arena.
 */
struct unwaited {
	struct sv	 key, held, by, question;	/* null: not said */
	int		 fd;	/* locked: no waiter comes while we withdraw */
	char		*path;
};
/*
 * The marks whose waiters are gone, listed (at most max; held null for a
 * plain waiter's), each locked until waiter_forget().  The count listed.
 */
size_t		 waiter_gone(const char *journal_path, struct arena *,
		    struct unwaited *, size_t max);
/* Removes the listed marks, once their withdrawals are durable. */
void		 waiter_forget(struct unwaited *, size_t);
/* Lets them be, for the next look (the withdrawals were not stored). */
void		 waiter_keep(struct unwaited *, size_t);
/* Whether any mark beside the journal is unlocked (cheap: no reads). */
bool		 waiter_any_gone(const char *journal_path);

#endif /* ARCWAITER_H */
