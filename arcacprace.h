/*
 * arc-acp's race (arcacprace.c): the editor's reply and arc's answer to
 * one question, decided by the journal: whichever it took first wins.
 */
#ifndef ARCACPRACE_H
#define ARCACPRACE_H

#include "arcacpproxy.h"

/* An editor's message not read as a reply for sure: the editor decides. */
void	race_unclear(const struct dir *d, const char *why);
/*
 * The end of an editor's message held while questions race.  False when
 * it is not to be forwarded now: dropped (arc answered first), or held
 * (*wait) until arc-apply's result decides the race.
 */
bool	race_held_end(struct dir *d, bool *wait);
/*
 * That result (line NULL: arc-apply gave none): the agent gets arc's
 * answer or the editor's reply, and the editor's input may go on.
 */
void	race_decided(const struct op *op, const char *line, size_t len);

#endif /* ARCACPRACE_H */
