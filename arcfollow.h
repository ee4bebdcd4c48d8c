/*
 * arc-status --follow (arcfollow.c): the active conditions, then a line
 * per change, until killed.
 */
#ifndef ARCFOLLOW_H
#define ARCFOLLOW_H

int	status_follow(const char *journal_option);

#endif /* ARCFOLLOW_H */
