/*
 * A command line, alike in every program: the usage text and its errors,
 * -h and -V, and an option's duration, count or time, each read by the
 * one parser of its kind.
 */
#include <err.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arc.h"
#include "arcterm.h"
#include "arcrecord.h"
#include "arcusage.h"

void
print_version(void)
{
	printf("%s %s (ARC 0.2)\n", getprogname(), ARC_VERSION_STRING);
}

/*
 * A program's usage text: its synopsis, a blank line, then what each
 * option does.  --help prints it whole on standard output; a usage error
 * prints the synopsis on standard error.
 */
void
usage_print(FILE *f, const char *text, bool full)
{
	const char *end = full ? NULL : strstr(text, "\n\n");

	(void)fwrite(text, 1, end != NULL ? (size_t)(end - text) + 1 :
	    strlen(text), f);
}

int
usage_error(const char *text, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
	usage_print(stderr, text, false);
	return EXIT_USAGE;
}

bool
common_option(int ch, const char *text, int *status)
{
	switch (ch) {
	case 'h':
		usage_print(stdout, text, true);
		*status = 0;
		return true;
	case 'V':
		print_version();
		*status = 0;
		return true;
	case '?':
	case ':':
		usage_print(stderr, text, false);
		*status = EXIT_USAGE;
		return true;
	default:
		return false;
	}
}

bool
duration_arg(const char *option, const char *arg, int64_t *ms)
{
	struct buf b = { 0 };

	if ((*ms = parse_duration_ms(arg)) >= 0)
		return true;
	warnx("%s %s: not a duration such as 90s, 10m, 2h, 1d, 1w or 1h30m",
	    option, safe(&b, arg));
	buf_free(&b);
	return false;
}

/*
 * The last local midnight before now, days_back days further (today: 0,
 * yesterday: 1), in seconds; mktime(3) weighs a change of the clocks.
 */
static bool
local_midnight(const char *now, int days_back, int64_t *t)
{
	time_t		 secs = (time_t)instant_seconds(now);
	struct tm	 tm;

	if (localtime_r(&secs, &tm) == NULL)
		return false;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday -= days_back;
	tm.tm_isdst = -1;
	if ((secs = mktime(&tm)) == (time_t)-1)
		return false;
	*t = (int64_t)secs;
	return true;
}

/*
 * An option's time: an RFC 3339 date-time, a full-date alone (its
 * midnight UTC, as journalctl and git take a date), today or yesterday
 * (the local midnight that began it, as journalctl takes them), or a
 * duration before now.  In seconds.
 */
bool
time_arg(const char *option, const char *arg, const char *now, int64_t *t)
{
	struct arc_instant	 in;
	struct buf		 b = { 0 };
	char			 midnight[32];
	int64_t			 ms;

	if (rfc3339_parse(arg, strlen(arg), &in)) {
		*t = in.seconds;
		return true;
	}
	if (strlen(arg) == 10 && snprintf(midnight, sizeof(midnight),
	    "%sT00:00:00Z", arg) < (int)sizeof(midnight) &&
	    rfc3339_parse(midnight, strlen(midnight), &in)) {
		*t = in.seconds;
		return true;
	}
	if ((strcmp(arg, "today") == 0 && local_midnight(now, 0, t)) ||
	    (strcmp(arg, "yesterday") == 0 && local_midnight(now, 1, t)))
		return true;
	if ((ms = parse_duration_ms(arg)) >= 0) {
		*t = instant_seconds(now) - ms / 1000;
		return true;
	}
	warnx("%s %s: neither a time (2026-05-01, 2026-05-01T09:00:00Z, "
	    "today, yesterday) nor a duration ago (90s, 10m, 2h, 1d, 1w, "
	    "1h30m)", option, safe(&b, arg));
	buf_free(&b);
	return false;
}

bool
count_arg(const char *option, const char *arg, long long min, long long max,
    long long *n)
{
	const char	*why;
	struct buf	 b = { 0 };

	*n = strtonum(arg, min, max, &why);
	if (why == NULL)
		return true;
	warnx("%s %s: %s (a count from %lld to %lld)", option,
	    safe(&b, arg), why, min, max);
	buf_free(&b);
	return false;
}
