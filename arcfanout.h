/*
 * Work fanned out (arcfanout.c): items done by forked workers of our
 * own, one for each core we may run on (at most four), each doing one
 * item after another in the order they are numbered, taking the next as
 * it ends.  A worker runs work() in a copy of the caller's memory, and
 * what one item leaves there the next finds; it hands back bytes.  The
 * caller gets each item's bytes by take(), in the order they are done,
 * so take() must not care which comes first.  An item whose worker
 * cannot start (no process, no socket) is done in the caller, where what
 * would have ended its worker (an err(3)) ends the caller.
 */
#ifndef ARCFANOUT_H
#define ARCFANOUT_H

#include "arc.h"

/* In the worker: item's result into out; false (warned): it failed. */
typedef bool	fanout_work(size_t item, struct buf *out, void *arg);
/*
 * In the caller: item's result, whole, in got; take may keep its bytes
 * (got->p set to NULL then), else they are freed when it returns.
 */
typedef void	fanout_take(size_t item, struct buf *got, void *arg);

/*
 * Items 0 to items - 1; names[item] is what a warning of ours calls it.
 * false when any item failed (each warned, by its worker or by us).
 */
bool	fanout(size_t items, const char *const *names, fanout_work *,
	    fanout_take *, void *arg);

#endif /* ARCFANOUT_H */
