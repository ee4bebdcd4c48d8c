/*
 * A command line (arcusage.c): every program's usage text, its errors, -h
 * and -V, and the options that take a duration, a count or a time.
 */
#ifndef ARCUSAGE_H
#define ARCUSAGE_H

#include <stdio.h>

#include "arc.h"

void	print_version(void);
/*
 * A program's usage text: its synopsis, a blank line, then what each
 * option does; --help prints it all, a usage error only the synopsis.
 */
void	usage_print(FILE *, const char *text, bool full);
/* Says what was wrong, then the synopsis; returns EXIT_USAGE. */
int	usage_error(const char *text, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* -h, -V and getopt's own errors, alike in every program: true if done. */
bool	common_option(int ch, const char *text, int *status);
/* An option's duration (the one parser) or its count (strtonum(3)). */
bool	duration_arg(const char *option, const char *, int64_t *ms);
bool	count_arg(const char *option, const char *, long long min,
	    long long max, long long *);
/* An option's time: RFC 3339, a date alone, or a duration ago; seconds. */
bool	time_arg(const char *option, const char *, const char *now,
	    int64_t *seconds);

#endif /* ARCUSAGE_H */
