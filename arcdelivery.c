/*
 * Deliveries that failed.  arc-notify delivers a condition to a sink (the
 * desktop's notification server, a command) and may fail: the server
 * refuses the call, the command exits non-zero.  It tries again a bounded
 * number of times, and records every failure still standing here, in a
 * file beside the journal, one JSON object a line:
 *
 *   {"key":K,"sink":"exec","why":"exit status 7","tries":3,"final":true,
 *    "at":"2026-12-01T20:00:00Z"}
 *
 * rewritten whole (temporary file, rename) each time the set changes, and
 * removed when it is empty.  arc-status --show and --list read it, so that
 * the person sees which sink failed and why, where they look; arc-notify's
 * standard error says it as well.  The "why" is arc-notify's words (an
 * exit status, a server's error name), made safe before it is written.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcterm.h"
#include "arcdelivery.h"

#define DELIVERY_FILE_MAX	(1024 * 1024)

char *
delivery_path(const char *journal)
{
	char *p;

	if (asprintf(&p, "%s.delivery", journal) == -1)
		err(EXIT_SYSTEM, "asprintf");
	return p;
}

bool
delivery_save(const char *path, const struct delivery_failure *v, size_t n)
{
	struct buf	 b = { 0 };
	char		*tmp;
	size_t		 i;
	int		 fd;
	bool		 ok;

	if (n == 0) {
		if (unlink(path) == -1 && errno != ENOENT) {
			warn("%s", path);
			return false;
		}
		return true;
	}
	for (i = 0; i < n; i++) {
		buf_puts(&b, "{\"key\":");
		buf_json_cstr(&b, v[i].key);
		buf_puts(&b, ",\"sink\":");
		buf_json_cstr(&b, v[i].sink);
		buf_puts(&b, ",\"why\":");
		buf_json_cstr(&b, v[i].why);
		buf_printf(&b, ",\"tries\":%u,\"final\":%s,\"at\":", v[i].tries,
		    v[i].final ? "true" : "false");
		buf_json_cstr(&b, v[i].at);
		buf_puts(&b, "}\n");
	}
	if ((fd = open_temporary(path, "delivery", &tmp)) == -1) {
		warn("%s", path);
		buf_free(&b);
		return false;
	}
	ok = write_all(fd, b.p, b.len);
	if (close(fd) == -1)
		ok = false;
	if (!ok || rename(tmp, path) == -1) {
		warn("%s", path);
		(void)unlink(tmp);
		ok = false;
	}
	free(tmp);
	buf_free(&b);
	return ok;
}

static void
words_of(struct buf *b, const struct jval *o, const char *prefix)
{
	const struct jval	*sink = json_get(o, "sink"), *why = json_get(o,
				    "why"), *tries = json_get(o, "tries"),
				*fin = json_get(o, "final"), *at = json_get(o,
				    "at");

	buf_puts(b, prefix);
	if (sink != NULL && sink->type == J_STRING)
		term_safe(b, sink->s, sink->len);
	buf_puts(b, " failed: ");
	if (why != NULL && why->type == J_STRING)
		term_safe(b, why->s, why->len);
	if (tries != NULL && tries->type == J_NUMBER)
		buf_printf(b, " (%.*s tr%s", (int)tries->len, tries->s,
		    tries->len == 1 && tries->s[0] == '1' ? "y" : "ies");
	else
		buf_puts(b, " (");
	buf_puts(b, fin != NULL && fin->type == J_TRUE ? ", gave up" :
	    ", trying again");
	if (at != NULL && at->type == J_STRING) {
		buf_puts(b, ", last at ");
		term_safe(b, at->s, at->len);
	}
	buf_putc(b, ')');
}

size_t
delivery_words(struct buf *b, const char *path, const char *key,
    const char *prefix, const char *sep)
{
	struct arena		 a = { 0 };
	struct jparse_error	 e;
	struct stat		 sb;
	const struct jval	*o, *k;
	char			*text = NULL, *p, *nl;
	ssize_t			 r;
	size_t			 got = 0, found = 0;
	int			 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & 022) != 0 ||
	    sb.st_size > DELIVERY_FILE_MAX ||
	    (text = malloc((size_t)sb.st_size + 1)) == NULL) {
		(void)close(fd);
		free(text);
		return 0;
	}
	while (got < (size_t)sb.st_size && (r = read(fd, text + got,
	    (size_t)sb.st_size - got)) > 0)
		got += (size_t)r;
	(void)close(fd);
	text[got] = '\0';
	for (p = text; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		o = json_parse(&a, p, (size_t)(nl - p), &e);
		if (o == NULL || o->type != J_OBJECT ||
		    (k = json_get(o, "key")) == NULL || k->type != J_STRING)
			continue;
		if (key != NULL && (strlen(key) != k->len ||
		    memcmp(key, k->s, k->len) != 0))
			continue;
		if (found++ > 0)
			buf_puts(b, sep);
		words_of(b, o, prefix);
	}
	arena_free(&a);
	free(text);
	return found;
}
