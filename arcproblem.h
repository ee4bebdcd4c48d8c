/*
 * What can be wrong (arcproblem.c): a code, with the reference consumer's
 * HTTP-like status; the JSON Pointer of the member at fault; a message
 * that never quotes a value of the event.  And the one way a failure is
 * rendered: a diagnostic on standard error ("PROG: NAME:LINE: PATH:
 * MESSAGE"), a --report verdict, or the error object of a result line.
 */
#ifndef ARCPROBLEM_H
#define ARCPROBLEM_H

#include "arc.h"

enum arc_code {
	ARC_OK = 0,
	ARC_INVALID,
	ARC_UNSUPPORTED_VERSION,
	ARC_TOO_LARGE,
	ARC_NOT_FOUND,
	ARC_CONFLICT,
	ARC_NOT_OPEN,
	ARC_DIGEST_MISMATCH,
	ARC_NONCE_MISMATCH,
	ARC_INVALID_ANSWER,
};
const char	*arc_code_name(enum arc_code);
int		 arc_code_status(enum arc_code);	/* HTTP-like status */

struct path_seg {
	const char	*name;	/* NULL: an array index */
	size_t		 len;
	size_t		 index;
};
struct path {
	struct path_seg	 seg[ARC_DEPTH_MAX + 2];
	int		 depth;
};
void	path_push_name(struct path *, const char *, size_t);
void	path_push_index(struct path *, size_t);
void	path_pop(struct path *);

struct problem {
	enum arc_code	 code;
	char		*path;	/* JSON Pointer, "" for the whole line */
	char		 message[160];	/* never quotes a value of the event */
};
struct problems {
	struct problem	 list[ARC_PROBLEMS_MAX];
	size_t		 n;
	size_t		 dropped;	/* found past ARC_PROBLEMS_MAX */
};
void	problems_add(struct problems *, enum arc_code, const struct path *,
	    const char *, ...) __attribute__((format(printf, 4, 5)));
void	problems_add_at(struct problems *, enum arc_code, const char *,
	    const char *, ...) __attribute__((format(printf, 4, 5)));
void	problems_clear(struct problems *);


/* ---- saying it ---- */
/* Producer text for a diagnostic: made terminal-safe. */
void	diag_safe(struct buf *, const char *, size_t);
void	diag_problem(const char *name, uint64_t line, const struct problem *);
void	diag_problems(const char *name, uint64_t line, const struct problems *);
/* {"line":N,"valid":...,"errors":[...]} for arc-validate --report. */
void	print_problems_report(struct buf *, uint64_t line,
	    const struct problems *);
/* "error":{"code":...,"message":...,"path":...,"state":...}, the one form. */
void	error_object(struct buf *, enum arc_code, const char *message,
	    const char *path, const char *state);

#endif /* ARCPROBLEM_H */
