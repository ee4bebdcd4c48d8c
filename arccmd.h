/*
 * The commands, and what their front ends share (arcfilter.c).
 */
#ifndef ARCCMD_H
#define ARCCMD_H

#include "arc.h"
#include "arcjournal.h"

int	validate_main(int, char **);
int	apply_main(int, char **);
int	answer_main(int, char **);
int	wait_main(int, char **);
int	status_main(int, char **);
int	emit_main(int, char **);
int	status_follow(const char *);	/* arc-status --follow (arcfollow.c) */

int	open_input(const char *);
int64_t	parse_duration(const char *);	/* seconds, or -1 */
int64_t	parse_duration_ms(const char *);	/* milliseconds, or -1 */
void	print_version(void);
void	close_input(int);
void	write_stdout(const struct buf *);
void	flush_stdout(void);
void	print_problems_report(struct buf *, uint64_t, const struct problems *);
void	diag_problems(const char *, uint64_t, const struct problems *);

/* arc-apply's machinery, which arc-answer shares. */
struct applier {
	struct journal	 j;
	struct arena	 arena;
	struct problems	 pr;
	struct buf	 records, out, body;
	bool		 quiet;
	bool		 answers_only;	/* --answers: response.submitted only */
	int		 status;
};
bool	applier_open(struct applier *, const char *);
void	applier_close(struct applier *);
void	apply_one(struct applier *, const char *, uint64_t, const char *,
	    size_t, bool);
bool	applier_commit(struct applier *);
/* arc-apply --mirror (arcmirror.c): another host's conditions, mirrored. */
int	mirror_main(struct applier *, const char *route, int, char **);

#endif /* ARCCMD_H */
