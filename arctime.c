/*
 * RFC 3339 instants: strict parsing on a real calendar, exact comparison
 * across offsets and any number of fraction digits, and the current time.
 */
#include <err.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arc.h"

/* Two decimal digits' value, or -1: a deadline's six pairs, branch-light. */
static int
two_digits(const char *s)
{
	unsigned a = (unsigned char)s[0] - '0', b = (unsigned char)s[1] - '0';

	return a < 10 && b < 10 ? (int)(a * 10 + b) : -1;
}

static bool
leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
month_days(int y, int m)
{
	static const int d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && leap(y) ? 29 : d[m - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * date-time = full-date "T" full-time, RFC 3339 section 5.6, with "t" and
 * "z" accepted as its section 5.6 note allows.  A leap second (:60) is
 * refused: the reference consumer's clock type cannot hold one either.
 */
bool
rfc3339_parse(const char *s, size_t n, struct arc_instant *out)
{
	int	 y, yl, mo, d, h, mi, se, oh = 0, om = 0, sign = 0;
	size_t	 i = 19, f;

	if (n < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' &&
	    s[10] != 't') || s[13] != ':' || s[16] != ':')
		return false;
	if ((y = two_digits(s)) < 0 || (yl = two_digits(s + 2)) < 0 ||
	    (mo = two_digits(s + 5)) < 0 || (d = two_digits(s + 8)) < 0 ||
	    (h = two_digits(s + 11)) < 0 || (mi = two_digits(s + 14)) < 0 ||
	    (se = two_digits(s + 17)) < 0)
		return false;
	y = y * 100 + yl;
	if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h > 23 ||
	    mi > 59 || se > 59)
		return false;
	f = i;
	if (s[i] == '.') {
		i++;
		f = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == f)
			return false;
	}
	out->fraction = s + f;
	out->fraction_len = i - f;
	if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
		i++;
	} else if (i < n && (s[i] == '+' || s[i] == '-')) {
		sign = s[i] == '-' ? -1 : 1;
		if (n - i != 6 || s[i + 3] != ':' ||
		    (oh = two_digits(s + i + 1)) < 0 ||
		    (om = two_digits(s + i + 4)) < 0 || oh > 23 || om > 59)
			return false;
		i += 6;
	} else {
		return false;
	}
	if (i != n)
		return false;
	/* Trailing zeros of the fraction do not change the instant. */
	while (out->fraction_len > 0 &&
	    out->fraction[out->fraction_len - 1] == '0')
		out->fraction_len--;
	out->seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 +
	    mi * 60 + se - sign * (oh * 3600 + om * 60);
	return true;
}

int
instant_cmp(const struct arc_instant *a, const struct arc_instant *b)
{
	size_t i, n;

	if (a->seconds != b->seconds)
		return a->seconds < b->seconds ? -1 : 1;
	n = a->fraction_len > b->fraction_len ? a->fraction_len :
	    b->fraction_len;
	for (i = 0; i < n; i++) {
		char x = i < a->fraction_len ? a->fraction[i] : '0';
		char y = i < b->fraction_len ? b->fraction[i] : '0';
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

int
rfc3339_cmp(const char *a, const char *b)
{
	struct arc_instant x, y;

	if (!rfc3339_parse(a, strlen(a), &x) ||
	    !rfc3339_parse(b, strlen(b), &y))
		errx(EXIT_SYSTEM, "internal error: comparing an invalid time");
	return instant_cmp(&x, &y);
}

static char		 now_text[64];
static struct arc_instant now_base;
static bool		 now_fixed;
static struct timespec	 started;

/* The instants RFC 3339 can write: years 0000 to 9999, in UTC. */
#define FIRST_SECOND	INT64_C(-62167219200)	/* 0000-01-01T00:00:00Z */
#define LAST_SECOND	INT64_C(253402300799)	/* 9999-12-31T23:59:59Z */

/* n decimal digits of v, zero-padded, at o. */
static void
put_digits(char *o, unsigned v, int n)
{
	while (n-- > 0) {
		o[n] = (char)('0' + v % 10);
		v /= 10;
	}
}

/*
 * The proleptic Gregorian date of a day since 1970-01-01 (H. Hinnant's
 * civil_from_days, the inverse of days_from_civil): gmtime_r(3) would
 * read /etc/localtime first, once a process, under the journal's lock.
 */
static void
civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d)
{
	int64_t		 era, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	yoe = z - era * 146097;
	yoe = (yoe - yoe / 1460 + yoe / 36524 - yoe / 146096) / 365;
	doy = z - era * 146097 - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/*
 * Writes an instant as RFC 3339 UTC; false when no year 0000-9999 has it
 * or out has no room.  Digit by digit: every event takes the time, and
 * snprintf took some 3,000 instructions for it.
 */
static bool
format_utc(char *out, size_t n, int64_t sec, long nsec)
{
	int64_t		 days, rest;
	unsigned	 mon, mday;
	int		 year;

	if (n < sizeof("0000-00-00T00:00:00.000Z") || sec < FIRST_SECOND ||
	    sec > LAST_SECOND || nsec < 0 || nsec > 999999999)
		return false;
	days = (sec >= 0 ? sec : sec - 86399) / 86400;
	rest = sec - days * 86400;
	civil_from_days(days, &year, &mon, &mday);
	put_digits(out, (unsigned)year, 4);
	out[4] = '-';
	put_digits(out + 5, mon, 2);
	out[7] = '-';
	put_digits(out + 8, mday, 2);
	out[10] = 'T';
	put_digits(out + 11, (unsigned)(rest / 3600), 2);
	out[13] = ':';
	put_digits(out + 14, (unsigned)(rest / 60 % 60), 2);
	out[16] = ':';
	put_digits(out + 17, (unsigned)(rest % 60), 2);
	out[19] = '.';
	put_digits(out + 20, (unsigned)(nsec / 1000000), 3);
	memcpy(out + 23, "Z", 2);
	return true;
}

/* Reads ARC_NOW once; false when it is set but not an RFC 3339 time. */
bool
arc_now_init(void)
{
	const char *env = getenv("ARC_NOW");

	if (clock_gettime(CLOCK_MONOTONIC, &started) == -1)
		err(EXIT_SYSTEM, "clock_gettime");
	if (env == NULL || *env == '\0')
		return true;
	if (strlen(env) >= sizeof(now_text) ||
	    !rfc3339_parse(env, strlen(env), &now_base))
		return false;
	strlcpy(now_text, env, sizeof(now_text));
	now_base.fraction = now_text + (now_base.fraction - env);
	now_fixed = true;
	return true;
}

/* A fixed ARC_NOW is given back verbatim, so that replays are exact. */
const char *
arc_now(void)
{
	struct timespec ts;

	if (now_fixed)
		return now_text;
	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		err(EXIT_SYSTEM, "clock_gettime");
	if (!format_utc(now_text, sizeof(now_text), ts.tv_sec, ts.tv_nsec))
		errx(EXIT_SYSTEM, "the system clock is outside years 0000-9999");
	return now_text;
}

/* For a command that waits: ARC_NOW is where its clock starts. */
const char *
arc_now_advancing(void)
{
	struct timespec	 ts;
	int64_t		 ms;

	if (!now_fixed)
		return arc_now();
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(EXIT_SYSTEM, "clock_gettime");
	ms = (int64_t)(ts.tv_sec - started.tv_sec) * 1000 +
	    (ts.tv_nsec - started.tv_nsec) / 1000000;
	if (ms <= 0)
		return now_text;
	{
		static char	 moving[64];
		int64_t		 frac_ms = 0;
		size_t		 i;

		for (i = 0; i < 3; i++)
			frac_ms = frac_ms * 10 + (i < now_base.fraction_len ?
			    now_base.fraction[i] - '0' : 0);
		/* Past year 9999 the clock stays at its last instant. */
		if (now_base.seconds >= LAST_SECOND - ms / 1000)
			return now_text;
		ms += now_base.seconds * 1000 + frac_ms;
		if (!format_utc(moving, sizeof(moving), ms >= 0 ? ms / 1000 :
		    -((-ms + 999) / 1000), (long)(((ms % 1000) + 1000) % 1000) *
		    1000000))
			return now_text;
		return moving;
	}
}

/*
 * An instant some seconds after another, as RFC 3339 UTC in whole
 * seconds: a fraction of from rounds up, so that a deadline is never
 * sooner than asked.
 */
bool
rfc3339_after(const char *from, int64_t seconds, char *out, size_t n)
{
	struct arc_instant t;
	size_t		 i;

	if (!rfc3339_parse(from, strlen(from), &t))
		return false;
	for (i = 0; i < t.fraction_len; i++)
		if (t.fraction[i] != '0') {
			if (seconds == INT64_MAX)
				return false;
			seconds++;
			break;
		}
	if (seconds > LAST_SECOND - t.seconds ||
	    !format_utc(out, n, t.seconds + seconds, 0))
		return false;
	/* whole seconds: drop the ".000" */
	if (strlen(out) > 5)
		strlcpy(out + strlen(out) - 5, "Z", 2);
	return true;
}

/* Milliseconds from one instant to another (negative when past). */
int64_t
rfc3339_ms_between(const char *from, const char *to)
{
	struct arc_instant a, b;
	int64_t ms;
	size_t i;

	if (!rfc3339_parse(from, strlen(from), &a) ||
	    !rfc3339_parse(to, strlen(to), &b))
		return 0;
	ms = (b.seconds - a.seconds) * 1000;
	for (i = 0; i < 3; i++) {
		int da = i < a.fraction_len ? a.fraction[i] - '0' : 0;
		int db = i < b.fraction_len ? b.fraction[i] - '0' : 0;
		ms += (db - da) * (i == 0 ? 100 : i == 1 ? 10 : 1);
	}
	return ms;
}

/*
 * A duration as people write it: "90" (seconds), "90s", "15m", "1.5h",
 * "7d", "1w", or units together from the largest down, "1w2d", "1h30m".
 * Milliseconds, or -1 for anything else (a sign, a space, an unknown or
 * repeated unit, an overflow).  Every command, and arc-mqtt, takes these.
 */
int64_t
parse_duration_ms(const char *s)
{
	static const struct { char unit; int64_t ms; } units[] = {
		{ 'w', 604800000 }, { 'd', 86400000 }, { 'h', 3600000 },
		{ 'm', 60000 }, { 's', 1000 },
	};
	int64_t		 total = 0, whole, frac, scale, ms;
	size_t		 u, next = 0, digits;
	const char	*p = s;

	if (*s == '\0')
		return -1;
	while (*p != '\0') {
		for (whole = 0, digits = 0; *p >= '0' && *p <= '9'; p++, digits++) {
			if (whole > (INT64_MAX - 9) / 10)
				return -1;
			whole = whole * 10 + (*p - '0');
		}
		frac = 0, scale = 1;
		if (*p == '.') {
			for (p++; *p >= '0' && *p <= '9'; p++, digits++)
				if (scale < 1000000)	/* finer is noise */
					frac = frac * 10 + (*p - '0'), scale *= 10;
			if (p[-1] == '.')
				return -1;
		}
		if (digits == 0)
			return -1;
		if (*p == '\0' && next == 0)
			u = 4;	/* a plain number: seconds */
		else
			for (u = next; u < 5 && units[u].unit != *p; u++)
				;
		if (u == 5)
			return -1;	/* unknown, repeated or out of order */
		if (*p != '\0')
			p++;
		next = u + 1;
		if (whole > INT64_MAX / units[u].ms)
			return -1;
		ms = whole * units[u].ms + frac * units[u].ms / scale;
		if (ms > INT64_MAX - total)
			return -1;
		total += ms;
	}
	return total;
}

/* A duration in whole seconds (a fraction rounds up), or -1. */
int64_t
parse_duration(const char *s)
{
	int64_t ms = parse_duration_ms(s);

	return ms < 0 ? -1 : ms / 1000 + (ms % 1000 != 0);
}

/*
 * A duration written back as parse_duration_ms() reads it, exactly: units
 * from the largest down, none that is zero, a rest below the second as a
 * fraction of it ("1d12h", "1h30m", "1m1.5s", "0s").  Returns out, or
 * NULL for a negative duration or an out too short.
 */
char *
format_duration(int64_t ms, char *out, size_t len)
{
	static const struct { char unit; int64_t ms; } units[] = {
		{ 'w', 604800000 }, { 'd', 86400000 }, { 'h', 3600000 },
		{ 'm', 60000 },
	};
	size_t	 u, at = 0;
	int	 n;
	int64_t	 s;

	if (ms < 0 || len == 0)
		return NULL;
	out[0] = '\0';
	for (u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (ms < units[u].ms)
			continue;
		n = snprintf(out + at, len - at, "%lld%c",
		    (long long)(ms / units[u].ms), units[u].unit);
		if (n < 0 || (size_t)n >= len - at)
			return NULL;
		at += (size_t)n;
		ms %= units[u].ms;
	}
	if (ms == 0 && at > 0)
		return out;
	s = ms / 1000, ms %= 1000;
	if (ms == 0)
		n = snprintf(out + at, len - at, "%llds", (long long)s);
	else if (ms % 100 == 0)
		n = snprintf(out + at, len - at, "%lld.%llds", (long long)s,
		    (long long)(ms / 100));
	else if (ms % 10 == 0)
		n = snprintf(out + at, len - at, "%lld.%02llds", (long long)s,
		    (long long)(ms / 10));
	else
		n = snprintf(out + at, len - at, "%lld.%03llds", (long long)s,
		    (long long)ms);
	if (n < 0 || (size_t)n >= len - at)
		return NULL;
	return out;
}

/* ---- durations and sizes from the environment ---- */

int64_t
env_duration(const char *name, int64_t otherwise)
{
	const char	*v = getenv(name);
	int64_t		 d;

	if (v == NULL || *v == '\0')
		return otherwise;
	if ((d = parse_duration(v)) < 0) {
		warnx("%s is not a duration; using the default", name);
		return otherwise;
	}
	return d;
}

uint64_t
env_bytes(const char *name, uint64_t otherwise)
{
	const char	*v = getenv(name), *why;
	long long	 n;

	if (v == NULL || *v == '\0')
		return otherwise;
	n = strtonum(v, 0, LLONG_MAX, &why);
	if (why != NULL) {
		warnx("%s is %s; using the default", name, why);
		return otherwise;
	}
	return (uint64_t)n;
}
