/*
 * Handing an event to a command (arcvia.c).
 */
#ifndef ARCVIA_H
#define ARCVIA_H

#include "arc.h"

/*
 * An event (a line) to sh -c command's standard input: --via, or a
 * mirror's route; its exit status.  out: its standard output (-1: ours).
 */
int	send_via(const char *command, const struct buf *ev, int out);

#endif /* ARCVIA_H */
