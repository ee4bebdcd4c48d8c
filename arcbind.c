/*
 * Binding what a person types to what they saw: keys by a part, choices
 * by the number shown, answers by the tag of the question read.
 */
#include <ctype.h>
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arc.h"
#include "arcterm.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcbind.h"

/* ---- tags ---- */

void
question_tag(char out[TAG_SHOWN + 1], const struct rec *q)
{
	struct sv d = q->f[I_DIGEST];
	size_t n = d.p != NULL && d.n >= TAG_SHOWN ? TAG_SHOWN : 0;

	memcpy(out, d.p != NULL ? d.p : "", n);
	out[n] = '\0';
}

bool
tag_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= TAG_MIN && n <= 64 &&
	    strspn(s, "0123456789abcdefABCDEF") == n;
}

bool
tag_names(const char *tag, const struct rec *q)
{
	struct sv	 d = q->f[I_DIGEST];
	size_t		 i, n = strlen(tag);

	if (!tag_valid(tag) || d.p == NULL || d.n < n)
		return false;
	for (i = 0; i < n; i++)
		if (tolower((unsigned char)tag[i]) != d.p[i])
			return false;
	return true;
}

/* ---- keys ---- */

struct parts {
	const char	*typed;
	size_t		 len;
	char		**keys;
	size_t		 n, cap;
};

static void
collect_part(const struct condition *c, void *arg)
{
	struct parts	*p = arg;

	if (c->notification.len == 0 || c->keylen <= p->len ||
	    (memcmp(c->key, p->typed, p->len) != 0 &&
	    memcmp(c->key + c->keylen - p->len, p->typed, p->len) != 0))
		return;
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		if ((p->keys = reallocarray(p->keys, p->cap,
		    sizeof(*p->keys))) == NULL)
			err(EXIT_SYSTEM, "reallocarray");
	}
	if ((p->keys[p->n++] = strdup(c->key)) == NULL)
		err(EXIT_SYSTEM, "strdup");
}

static int
by_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool
key_is_part(struct state *st, const char *typed)
{
	struct parts		 p = { typed, strlen(typed), NULL, 0, 0 };
	const struct condition	*c;
	size_t			 i;

	if (st == NULL || p.len < KEY_PART_MIN || state_lookup(st, typed) !=
	    NULL)
		return false;
	for (c = state_first(st, &i); c != NULL; c = state_next(st, &i))
		collect_part(c, &p);
	for (i = 0; i < p.n; i++)
		free(p.keys[i]);
	free(p.keys);
	return p.n > 0;
}

enum key_found
key_typed(struct state *st, const char *typed, char **key)
{
	struct parts		 p = { typed, strlen(typed), NULL, 0, 0 };
	struct buf		 b = { 0 };
	const struct condition	*c;
	enum key_found		 r;
	size_t			 i;

	*key = NULL;
	if (st != NULL && state_lookup(st, typed) != NULL)
		r = KEY_EXACT;
	else if (st == NULL || p.len < KEY_PART_MIN)
		r = KEY_NONE;
	else {
		/* Settled ones count too: a part is one key's, or none's. */
		for (c = state_first(st, &i); c != NULL; c = state_next(st, &i))
			collect_part(c, &p);
		r = p.n == 0 ? KEY_NONE : p.n == 1 ? KEY_PART : KEY_AMBIGUOUS;
	}
	if (r == KEY_AMBIGUOUS) {
		qsort(p.keys, p.n, sizeof(*p.keys), by_key);
		warnx("%s: begins or ends %zu keys; give more of it:",
		    safe(&b, typed), p.n);
		for (i = 0; i < p.n; i++)
			fprintf(stderr, "  %s\n", safe(&b, p.keys[i]));
	}
	if (r == KEY_PART)
		*key = p.keys[0], p.keys[0] = NULL;
	else if ((*key = strdup(typed)) == NULL)
		err(EXIT_SYSTEM, "strdup");
	for (i = 0; i < p.n; i++)
		free(p.keys[i]);
	free(p.keys);
	buf_free(&b);
	return r;
}

/* ---- choices ---- */

static bool
all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/* A position as typed: 1 to 6 digits; 0 for anything else. */
static size_t
position(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 6 || strspn(s, "0123456789") != n)
		return 0;
	return (size_t)strtonum(s, 0, 999999, NULL);
}

static const struct jval *
by_id(const struct jval *choices, const char *s, size_t *at)
{
	const struct jval	*id;
	size_t			 i, n = strlen(s);

	for (i = 0; choices != NULL && i < choices->n; i++)
		if ((id = json_get(choices->items[i], "id")) != NULL &&
		    id->len == n && memcmp(id->s, s, n) == 0) {
			*at = i + 1;
			return id;
		}
	return NULL;
}

const struct jval *
choice_given(const struct jval *choices, const char *s, size_t *other)
{
	const struct jval	*id;
	size_t			 at = 0, k = position(s);

	*other = 0;
	if (choices == NULL)
		return NULL;
	id = by_id(choices, s, &at);
	if (k < 1 || k > choices->n)
		return id;
	if (id != NULL && at != k) {
		*other = at;	/* "2" is the second choice and the id of one */
		return NULL;
	}
	return json_get(choices->items[k - 1], "id");
}

const struct jval *
choice_typed(const struct jval *choices, const char *s)
{
	size_t	at, k = position(s);

	if (choices == NULL)
		return NULL;
	if (all_digits(s, strlen(s)))
		return k >= 1 && k <= choices->n ?
		    json_get(choices->items[k - 1], "id") : NULL;
	return by_id(choices, s, &at);
}

bool
choice_ids_shown(const struct jval *choices)
{
	const struct jval	*id, *label;
	size_t			 i;

	for (i = 0; choices != NULL && i < choices->n; i++) {
		id = json_get(choices->items[i], "id");
		label = json_get(choices->items[i], "label");
		if (id == NULL || label == NULL)
			continue;
		if (all_digits(id->s, id->len) ||
		    id->len != label->len ||
		    strncasecmp(id->s, label->s, id->len) != 0)
			return true;
	}
	return false;
}
