/*
 * arc-status --follow (arcfollow.c): the active conditions, then a line
 * per change, until killed; with off (--off-device), the records as the
 * off-device policy lets them leave.
 */
#ifndef ARCFOLLOW_H
#define ARCFOLLOW_H

#include "arcoffdevice.h"

int	status_follow(const char *journal_option, const struct offdevice *off);

#endif /* ARCFOLLOW_H */
