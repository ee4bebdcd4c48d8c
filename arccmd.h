/*
 * The commands, and what their front ends share (arcfilter.c).
 */
#ifndef ARCCMD_H
#define ARCCMD_H

#include "arc.h"

int	validate_main(int, char **);
int	apply_main(int, char **);
int	answer_main(int, char **);
int	wait_main(int, char **);
int	status_main(int, char **);
int	emit_main(int, char **);

int	open_input(const char *);
void	close_input(int);
void	flush_stdout(void);
void	print_problems_report(struct buf *, uint64_t, const struct problems *);
void	diag_problems(const char *, uint64_t, const struct problems *);

#endif /* ARCCMD_H */
