/*
 * tmux, asked and told (arctmux.c): where an agent runs, read from the
 * x-arc hint of its notification record and checked again here (a hint,
 * never authority); whether that pane is the one the person looks at; a
 * jump there; a window's user option; a status refresh.  tmux runs by
 * posix_spawnp(3) with its arguments as they are, never through a shell.
 */
#ifndef ARCTMUX_H
#define ARCTMUX_H

#include <stdbool.h>
#include <stddef.h>

struct jval;

#define TMUX_PANE_MAX	12	/* "%" and up to 9 digits */
#define TMUX_SOCKET_MAX	208	/* an absolute path, at most 200 bytes */

struct tmux_where {
	char	pane[TMUX_PANE_MAX];
	char	socket[TMUX_SOCKET_MAX];
};

/* The record's x-arc member (NULL: none); false when it is not tmux's. */
bool	 tmux_where_of(const struct jval *, struct tmux_where *);
/* tmux [-S socket] args...: its exit status (-1: it did not run); its
 * first line of output in out (outlen may be 0). */
int	 tmux_run(const char *socket, const char *const args[], char *out,
	    size_t outlen);
/* 1: the pane is active in the active window of an attached session;
 * 0: not; -1: unknown (no such pane, no server). */
int	 tmux_focused(const struct tmux_where *);
/* Switches the person's most recent client to the pane. */
bool	 tmux_jump(const struct tmux_where *);
/* The pane's window id ("@3"). */
bool	 tmux_window_of(const struct tmux_where *, char *, size_t);

#endif /* ARCTMUX_H */
