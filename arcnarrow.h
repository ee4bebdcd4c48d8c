/*
 * Narrowing a program to what it needs (arcnarrow.c), as OpenBSD's
 * unveil does: with Landlock, a process that has read what it must may
 * create, write, remove or rename files only beneath the folders named,
 * and so may everything it starts.  Reading stays as it was.  Needs
 * no_new_privs, which the commands set first (arcmain.c).
 */
#ifndef ARCNARROW_H
#define ARCNARROW_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Writes only beneath the folder that holds path (a journal's).  false,
 * with a word on standard error, where the kernel has no Landlock: the
 * program goes on unnarrowed.
 */
bool	narrow_writes_beside(const char *path);

#endif /* ARCNARROW_H */
