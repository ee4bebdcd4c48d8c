/*
 * Starting a process (arcspawn.c): the one starter of every command arc
 * runs (an agent under arc-acp, a sink's command, arc-status and
 * arc-answer under arc-notify, tmux, a mirror's route).  Each begins with
 * every signal at its default and none blocked, whatever ours are: a
 * child of a program that ignores SIGPIPE would otherwise ignore it too,
 * and a push client writing to a closed pipe would spin instead of dying.
 */
#ifndef ARCSPAWN_H
#define ARCSPAWN_H

#include <sys/types.h>
#include <stdbool.h>

#define SPAWN_NULL	(-1)	/* the descriptor is /dev/null */
#define SPAWN_OURS	(-2)	/* the descriptor is ours, inherited */

/*
 * Starts path (searched for on PATH when search) with argv; in, out and
 * err its standard descriptors: SPAWN_NULL, SPAWN_OURS or one to dup2.
 * The child's pid, or -1 with errno set.
 */
pid_t	spawn_start(const char *path, char *const argv[], int in, int out,
	    int err, bool search);
/* In a child forked to run our own code: signals as spawn_start sets them. */
void	spawn_defaults(void);

#endif /* ARCSPAWN_H */
