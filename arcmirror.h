/*
 * arc-apply --mirror (arcmirror.c): another host's conditions, mirrored.
 */
#ifndef ARCMIRROR_H
#define ARCMIRROR_H

#include "arcfilter.h"

int	mirror_main(struct applier *, const char *route, int, char **);

#endif /* ARCMIRROR_H */
