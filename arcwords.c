/*
 * Times and states in words, and producer text for a person: what
 * arc-status, arc-wait, arc-answer and the picker say.
 */
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arc.h"
#include "arcterm.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcrules.h"
#include "arcwords.h"

/* ---- time for a person ---- */

static bool
seconds_until(const char *until, const char *now, int64_t *s)
{
	struct arc_instant a, b;

	if (until == NULL || now == NULL ||
	    !rfc3339_parse(until, strlen(until), &a) ||
	    !rfc3339_parse(now, strlen(now), &b))
		return false;
	*s = a.seconds - b.seconds;
	return true;
}

void
time_left(char *out, size_t n, const char *until, const char *now)
{
	int64_t s;

	if (!seconds_until(until, now, &s)) {
		strlcpy(out, "?", n);
		return;
	}
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(out, n, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(out, n, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		snprintf(out, n, "%lldh%02lldm", (long long)(s / 3600),
		    (long long)(s % 3600 / 60));
	else
		snprintf(out, n, "%lldd", (long long)(s / 86400));
}

void
deadline_words(char *out, size_t n, const char *until, const char *now)
{
	struct arc_instant	 in, at;
	struct tm		 tm, today, tomorrow;
	time_t			 t, t_now;
	const char		*form = "%Y-%m-%d %H:%M";

	if (!rfc3339_parse(until, strlen(until), &in) ||
	    !rfc3339_parse(now, strlen(now), &at) ||
	    (t = (time_t)in.seconds) != in.seconds ||
	    (t_now = (time_t)at.seconds) != at.seconds ||
	    localtime_r(&t, &tm) == NULL ||
	    localtime_r(&t_now, &today) == NULL) {
		strlcpy(out, "?", n);
		return;
	}
	/* a bare time only on today's date; tomorrow's says so */
	tomorrow = today;
	tomorrow.tm_mday++;
	tomorrow.tm_isdst = -1;
	if (tm.tm_year == today.tm_year && tm.tm_yday == today.tm_yday)
		form = "%H:%M";
	else if (mktime(&tomorrow) != (time_t)-1 &&
	    tm.tm_year == tomorrow.tm_year && tm.tm_yday == tomorrow.tm_yday)
		form = "tomorrow %H:%M";
	if (strftime(out, n, form, &tm) == 0)
		strlcpy(out, "?", n);
}

static void
unit(char *out, size_t n, long long v, const char *name)
{
	size_t len = strlen(out);

	if (len >= n)
		return;
	snprintf(out + len, n - len, "%s%lld %s%s", len > 0 ? " " : "", v,
	    name, v == 1 ? "" : "s");
}

/* Two units at most: a person reads "1 hour 20 minutes", not seconds. */
static void
duration_words(char *out, size_t n, int64_t s)
{
	if (n == 0)
		return;
	out[0] = '\0';
	if (s < 0)
		s = 0;
	if (s < 60) {
		unit(out, n, s, "second");
	} else if (s < 3600) {
		unit(out, n, s / 60, "minute");
	} else if (s < 86400) {
		unit(out, n, s / 3600, "hour");
		if (s % 3600 / 60 != 0)
			unit(out, n, s % 3600 / 60, "minute");
	} else {
		unit(out, n, s / 86400, "day");
		if (s % 86400 / 3600 != 0)
			unit(out, n, s % 86400 / 3600, "hour");
	}
}

/* " 4 minutes ago", or nothing when the instant is unreadable. */
static void
ago(struct buf *b, struct arena *a, struct sv when, const char *now)
{
	char	 words[64];
	int64_t	 s;

	if (when.p == NULL || !seconds_until(sv_cstr(a, when), now, &s))
		return;
	duration_words(words, sizeof(words), -s);
	buf_printf(b, " %s ago", words);
}

void
question_words(struct buf *b, const struct rec *q, enum qstatus st,
    const char *now)
{
	struct arena	 a = { 0 };
	char		 words[64];
	int64_t		 s;

	switch (st) {
	case Q_PENDING:
		buf_puts(b, "waiting for an answer");
		if (seconds_until(sv_cstr(&a, q->f[I_EXPIRES_AT]), now, &s)) {
			duration_words(words, sizeof(words), s);
			buf_printf(b, ", %s left", words);
		}
		break;
	case Q_EXPIRED:
		buf_puts(b, "expired");
		ago(b, &a, q->f[I_EXPIRES_AT], now);
		break;
	case Q_ANSWERED:
		buf_puts(b, "answered");
		ago(b, &a, q->f[I_ANSWERED_AT].p ? q->f[I_ANSWERED_AT] :
		    q->f[I_UPDATED_AT], now);
		break;
	case Q_CANCELLED:
	case Q_SUPERSEDED:
		buf_puts(b, qstatus_name(st));
		ago(b, &a, q->f[I_UPDATED_AT], now);
		break;
	case Q_NONE:
		buf_puts(b, "no question");
		break;
	}
	arena_free(&a);
}

static bool	 say_handover(struct buf *, const char *, const struct rec *,
		    bool);

bool
handover_words(struct buf *b, const char *handover, const struct rec *q)
{
	return say_handover(b, handover, q, true);
}

bool
handover_words_unnamed(struct buf *b, const char *handover,
    const struct rec *q)
{
	return say_handover(b, handover, q, false);
}

static bool
say_handover(struct buf *b, const char *handover, const struct rec *q,
    bool named)
{
	struct arena	 a = { 0 };
	struct handover	 h;
	char		 words[64];
	int64_t		 ms;
	bool		 withdrawn = false;

	rules_handover_of(&a, handover, q->f[I_ID], &h);
	if (h.what == NULL) {
		arena_free(&a);
		return false;
	}
	if (strcmp(h.what, "withdrawn") == 0) {
		buf_puts(b, ": no one waits for it any more");
		withdrawn = true;
	} else {
		buf_puts(b, "; ");
		if (h.by.p != NULL && named)
			show_sv(b, h.by);
		else
			buf_puts(b, "the agent");
	}
	if (strcmp(h.what, "not_taken") == 0)
		buf_puts(b, " did not take it (it had stopped waiting)");
	if (strcmp(h.what, "taken") == 0) {
		buf_puts(b, " took it");
		ms = q->f[I_ANSWERED_AT].p == NULL ? -1 :
		    rfc3339_ms_between(sv_cstr(&a, q->f[I_ANSWERED_AT]),
		    sv_cstr(&a, h.why));
		if (ms >= 0 && ms < 1000)
			buf_printf(b, " %lld ms later", (long long)ms);
		else if (ms >= 1000) {
			duration_words(words, sizeof(words), ms / 1000);
			buf_printf(b, " %s later", words);
		}
	}
	arena_free(&a);
	return withdrawn;
}

void
condition_words(struct buf *b, const struct condition *c, const struct rec *n,
    const struct rec *q, enum qstatus st, const char *now)
{
	struct arena	 a = { 0 };
	bool		 resolved = sv_eq(n->f[N_STATUS], "resolved");

	if (q != NULL && st != Q_NONE) {
		question_words(b, q, st, now);
		/* Withdrawn for want of a waiter: that is the whole story. */
		if (handover_words(b, c != NULL ? c->handover : NULL, q)) {
			arena_free(&a);
			return;
		}
		/* An accepted answer resolves the notice: nothing to add. */
		if (!resolved || (st == Q_ANSWERED &&
		    sv_eq(n->f[N_OUTCOME], "answered"))) {
			arena_free(&a);
			return;
		}
		buf_puts(b, "; ");
	} else if (!resolved) {
		buf_puts(b, "a notice, updated");
		ago(b, &a, n->f[N_UPDATED_AT], now);
		arena_free(&a);
		return;
	}
	if (c != NULL && c->dismissed != NULL) {
		buf_puts(b, "dismissed by ");
		term_safe(b, c->dismissed, strlen(c->dismissed));
	} else {
		buf_puts(b, "resolved");
	}
	ago(b, &a, n->f[N_RESOLVED_AT], now);
	if (n->f[N_OUTCOME].p != NULL) {
		buf_puts(b, " (");
		show_sv(b, n->f[N_OUTCOME]);
		buf_putc(b, ')');
	}
	arena_free(&a);
}

/* ---- producer text for a person ---- */

void
show_sv(struct buf *b, struct sv v)
{
	if (v.p != NULL)
		term_safe(b, v.p, v.n);
}

/* Why there is no question to answer under key, in words. */
void
no_question_words(struct buf *why, struct state *st, const char *key)
{
	struct condition *c = st != NULL ? state_lookup(st, key) : NULL;

	if (c != NULL && c->interaction.len == 0)
		buf_puts(why, "a notice, with no question to answer");
	else
		buf_puts(why, "no question under this key");
}
