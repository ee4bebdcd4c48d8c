/*
 * What can be wrong with an event, and the one way a failure is said: its
 * code (with the reference consumer's status), the JSON Pointer of the
 * member at fault, and a message that never quotes a value of the event;
 * rendered as a diagnostic on standard error, as a --report verdict, or as
 * the error object of a result line.
 */
#include <err.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcterm.h"
#include "arcproblem.h"

/* ---- problems and paths ---- */

static const char *const code_names[] = {
	"ok", "invalid", "unsupported_version", "too_large", "not_found",
	"conflict", "not_open", "digest_mismatch", "nonce_mismatch",
	"invalid_answer",
};

const char *
arc_code_name(enum arc_code c)
{
	return code_names[c];
}

int
arc_code_status(enum arc_code c)
{
	switch (c) {
	case ARC_OK:			return 200;
	case ARC_TOO_LARGE:		return 413;
	case ARC_NOT_FOUND:		return 404;
	case ARC_CONFLICT:		return 409;	/* only a conflict */
	default:			return 400;	/* not_open, mismatches too */
	}
}

void
path_push_name(struct path *p, const char *name, size_t len)
{
	if (p->depth >= (int)(sizeof(p->seg) / sizeof(p->seg[0])))
		errx(EXIT_SYSTEM, "internal error: path too deep");
	p->seg[p->depth].name = name;
	p->seg[p->depth].len = len;
	p->depth++;
}

void
path_push_index(struct path *p, size_t index)
{
	if (p->depth >= (int)(sizeof(p->seg) / sizeof(p->seg[0])))
		errx(EXIT_SYSTEM, "internal error: path too deep");
	p->seg[p->depth].name = NULL;
	p->seg[p->depth].index = index;
	p->depth++;
}

void
path_pop(struct path *p)
{
	p->depth--;
}

static void
path_format(const struct path *p, struct buf *b)
{
	int	 i;
	size_t	 j;

	buf_reserve(b, 0);
	for (i = 0; i < p->depth; i++) {
		const struct path_seg *s = &p->seg[i];
		buf_putc(b, '/');
		if (s->name == NULL) {
			buf_printf(b, "%zu", s->index);
			continue;
		}
		for (j = 0; j < s->len; j++) {
			if (s->name[j] == '~')
				buf_put(b, "~0", 2);
			else if (s->name[j] == '/')
				buf_put(b, "~1", 2);
			else
				buf_putc(b, s->name[j]);
		}
	}
}

static void
problems_vadd(struct problems *pr, enum arc_code code, char *path,
    const char *fmt, va_list ap)
{
	struct problem *p;

	if (pr->n == ARC_PROBLEMS_MAX) {
		pr->dropped++;
		free(path);
		return;
	}
	p = &pr->list[pr->n++];
	p->code = code;
	p->path = path;
	vsnprintf(p->message, sizeof(p->message), fmt, ap);
}

void
problems_add(struct problems *pr, enum arc_code code, const struct path *path,
    const char *fmt, ...)
{
	struct buf	 b = { 0 };
	va_list		 ap;

	if (pr->n < ARC_PROBLEMS_MAX)
		path_format(path, &b);
	va_start(ap, fmt);
	problems_vadd(pr, code, b.p, fmt, ap);
	va_end(ap);
}

void
problems_add_at(struct problems *pr, enum arc_code code, const char *path,
    const char *fmt, ...)
{
	char	*copy;
	va_list	 ap;

	if ((copy = strdup(path)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	va_start(ap, fmt);
	problems_vadd(pr, code, copy, fmt, ap);
	va_end(ap);
}

void
problems_clear(struct problems *pr)
{
	size_t i;

	for (i = 0; i < pr->n; i++)
		free(pr->list[i].path);
	pr->n = 0;
	pr->dropped = 0;
}


void
diag_safe(struct buf *b, const char *s, size_t n)
{
	term_safe(b, s, n);
}

void
diag_problem(const char *name, uint64_t line, const struct problem *p)
{
	struct buf b = { 0 };

	buf_printf(&b, "%s: ", getprogname());
	if (name != NULL) {	/* NULL: no file, as for a command-line answer */
		diag_safe(&b, name, strlen(name));
		buf_printf(&b, ":%llu: ", (unsigned long long)line);
	}
	if (p->path != NULL && p->path[0] != '\0') {	/* not the whole line */
		diag_safe(&b, p->path, strlen(p->path));
		buf_puts(&b, ": ");
	}
	buf_printf(&b, "%s\n", p->message);
	(void)fwrite(b.p, 1, b.len, stderr);
	buf_free(&b);
}

void
print_problems_report(struct buf *b, uint64_t line, const struct problems *pr)
{
	size_t i;

	buf_printf(b, "{\"line\":%llu,\"valid\":%s", (unsigned long long)line,
	    pr->n == 0 ? "true" : "false");
	if (pr->n > 0) {
		buf_puts(b, ",\"errors\":[");
		for (i = 0; i < pr->n; i++) {
			const struct problem *p = &pr->list[i];
			if (i)
				buf_putc(b, ',');
			buf_puts(b, "{\"path\":");
			buf_json_cstr(b, p->path);
			buf_puts(b, ",\"code\":");
			buf_json_cstr(b, arc_code_name(p->code));
			buf_puts(b, ",\"message\":");
			buf_json_cstr(b, p->message);
			buf_putc(b, '}');
		}
		buf_putc(b, ']');
		if (pr->dropped)
			buf_printf(b, ",\"errors_not_shown\":%zu", pr->dropped);
	}
	buf_puts(b, "}\n");
}

void
diag_problems(const char *name, uint64_t line, const struct problems *pr)
{
	size_t i;

	for (i = 0; i < pr->n; i++)
		diag_problem(name, line, &pr->list[i]);
	if (pr->dropped && name != NULL)
		warnx("%s:%llu: %zu more problems not shown", name,
		    (unsigned long long)line, pr->dropped);
	else if (pr->dropped)
		warnx("%zu more problems not shown", pr->dropped);
}

void
error_object(struct buf *b, enum arc_code code, const char *message,
    const char *path, const char *state)
{
	buf_puts(b, "\"error\":{\"code\":");
	buf_json_cstr(b, arc_code_name(code));
	buf_puts(b, ",\"message\":");
	buf_json_cstr(b, message);
	if (path != NULL) {
		buf_puts(b, ",\"path\":");
		buf_json_cstr(b, path);
	}
	if (state != NULL) {
		buf_puts(b, ",\"state\":");
		buf_json_cstr(b, state);
	}
	buf_putc(b, '}');
}
