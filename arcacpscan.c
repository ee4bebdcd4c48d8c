/*
 * The top level of a JSON-RPC message, read as its bytes go by.
 *
 * arc-acp(1) forwards every message unchanged, most of them without
 * keeping a copy; to know which ones it must act on (a request it asks
 * through arc, the editor's reply to one) it reads the top-level members
 * of each message as they pass: every "id", "method", "params", "result"
 * and "error" member, its name compared once unescaped ("\u0069d" is id),
 * and how many times each is given.  Nested values are skipped, strings
 * and brackets counted; the value of an id or a method is kept as it is
 * written (arc-acp reads it with the strict parser).  The scanner checks
 * no more of the grammar than it needs: a message arc-acp acts on is
 * parsed whole by arcjson.c first, and fuzz/fuzz_acpmsg.c holds the two
 * readings to the same members.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "arc.h"
#include "arcacpscan.h"

enum { ST_OPEN, ST_NAME, ST_INNAME, ST_COLON, ST_VALUE, ST_STRING,
	ST_NESTED, ST_SCALAR, ST_NEXT, ST_DONE };
enum { K_OTHER, K_ID, K_METHOD, K_RESULT, K_PARAMS };

#define RPC_PREFIX	"{\"jsonrpc\":\"2.0\","

void
acp_scan_init(struct acp_scan *s)
{
	/* not a memset: the buffers need no clearing, once a message */
	s->st = ST_OPEN;
	s->key = K_OTHER;
	s->depth = 0;
	s->esc = s->nested_str = s->namelong = s->vallong = false;
	s->namelen = s->vallen = 0;
	s->nid = s->nmethod = s->nresult = s->nparams = 0;
	s->methodlen = 0;
}

static bool
json_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * A member name as written between its quotes, unescaped, is name: true
 * only when it is exactly that (an escape that is not one JSON has, or a
 * character that is not ASCII, is never one of ours).
 */
static bool
acp_name_is(const char *raw, size_t n, const char *name)
{
	const unsigned char	*p = (const unsigned char *)raw, *end = p + n;
	size_t			 k = 0, want = strlen(name);

	while (p < end) {
		unsigned c = *p++;

		if (c >= 0x80)
			return false;
		if (c == '\\') {
			if (p == end)
				return false;
			switch (c = *p++) {
			case '"': case '\\': case '/': break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				int i, h;

				if (end - p < 4)
					return false;
				for (c = 0, i = 0; i < 4; i++) {
					if ((h = hex_digit(p[i])) < 0)
						return false;
					c = c * 16 + (unsigned)h;
				}
				p += 4;
				if (c >= 0x80)
					return false;
				break;
			}
			default:
				return false;
			}
		}
		if (k == want || (unsigned char)name[k] != c)
			return false;
		k++;
	}
	return k == want;
}

static void
capture(struct acp_scan *s, unsigned char c)
{
	if (s->key != K_ID && s->key != K_METHOD)
		return;
	if (s->vallen < sizeof(s->val))
		s->val[s->vallen++] = (char)c;
	else
		s->vallong = true;
}

/* The member's value ended; nested: it was an object or an array. */
static enum acp_scan_ev
value_done(struct acp_scan *s, bool nested)
{
	int k = s->key;

	s->st = ST_NEXT;
	s->key = K_OTHER;
	if (nested || s->vallong)
		s->vallen = 0;	/* not an id or a method we read */
	if (k == K_ID) {
		if (s->nid < ACP_SCAN_IDS) {
			memcpy(s->id[s->nid], s->val, s->vallen);
			s->idlen[s->nid] = s->vallen;
		}
		s->nid++;
		return SC_ID;
	}
	if (k == K_METHOD) {
		if (s->nmethod++ == 0) {
			memcpy(s->method, s->val, s->vallen);
			s->methodlen = s->vallen;
		}
		return SC_METHOD;
	}
	return SC_MORE;
}

/* Which member a name (as written) is. */
static int
name_key(const struct acp_scan *s)
{
	if (s->namelong)
		return K_OTHER;
	if (acp_name_is(s->name, s->namelen, "id"))
		return K_ID;
	if (acp_name_is(s->name, s->namelen, "method"))
		return K_METHOD;
	if (acp_name_is(s->name, s->namelen, "params"))
		return K_PARAMS;
	if (acp_name_is(s->name, s->namelen, "result") ||
	    acp_name_is(s->name, s->namelen, "error"))
		return K_RESULT;
	return K_OTHER;
}

size_t
acp_scan_feed(struct acp_scan *s, const char *p, size_t n,
    enum acp_scan_ev *ev)
{
	size_t i;

	*ev = SC_MORE;
	/* What nearly every message starts with, in one step. */
	if (s->st == ST_OPEN && n >= sizeof(RPC_PREFIX) - 1 &&
	    memcmp(p, RPC_PREFIX, sizeof(RPC_PREFIX) - 1) == 0) {
		s->st = ST_NAME;
		return sizeof(RPC_PREFIX) - 1;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		switch (s->st) {
		case ST_OPEN:
			if (json_ws(c))
				break;
			if (c != '{')
				goto bad;
			s->st = ST_NAME;
			break;
		case ST_NAME:
			if (json_ws(c))
				break;
			if (c == '}') {
				s->st = ST_DONE;
				*ev = SC_END;
				return i + 1;
			}
			if (c != '"')
				goto bad;
			s->st = ST_INNAME;
			s->namelen = 0;
			s->namelong = s->esc = false;
			break;
		case ST_INNAME:
			if (!s->esc && c == '"') {
				s->st = ST_COLON;
				break;
			}
			s->esc = !s->esc && c == '\\';
			if (s->namelen == sizeof(s->name))
				s->namelong = true;
			else
				s->name[s->namelen++] = (char)c;
			break;
		case ST_COLON:
			if (json_ws(c))
				break;
			if (c != ':')
				goto bad;
			s->st = ST_VALUE;
			s->vallen = 0;
			s->vallong = false;
			s->key = name_key(s);
			if (s->key == K_PARAMS)
				s->nparams++;
			if (s->key == K_RESULT) {
				s->nresult++;
				*ev = SC_RESPONSE;
				return i + 1;
			}
			break;
		case ST_VALUE:
			if (json_ws(c))
				break;
			if (c == '"') {
				s->st = ST_STRING;
				s->esc = false;
				capture(s, c);
			} else if (c == '{' || c == '[') {
				s->st = ST_NESTED;
				s->depth = 1;
				s->nested_str = false;
				s->esc = false;
			} else if (c == ',' || c == '}' || c == ':' ||
			    c == ']') {
				goto bad;
			} else {
				s->st = ST_SCALAR;
				capture(s, c);
			}
			break;
		case ST_STRING:
			capture(s, c);
			if (s->esc)
				s->esc = false;
			else if (c == '\\')
				s->esc = true;
			else if (c == '"') {
				*ev = value_done(s, false);
				if (*ev != SC_MORE)
					return i + 1;
			}
			break;
		case ST_NESTED:
			if (s->nested_str) {
				/*
				 * To the quote that ends the string, at once:
				 * one after an odd run of backslashes is text.
				 */
				const char *from = p + i, *end = p + n, *q, *b;

				if (s->esc) {
					s->esc = false;
					break;
				}
				for (;;) {
					q = memchr(from, '"', (size_t)(end - from));
					b = q != NULL ? q : end;
					while (b > p + i && b[-1] == '\\')
						b--;
					if (q == NULL) {
						s->esc = (end - b) % 2 == 1;
						i = n - 1;
						break;
					}
					if ((q - b) % 2 == 0) {
						s->nested_str = false;
						i = (size_t)(q - p);
						break;
					}
					from = q + 1;
				}
			} else if (c == '"') {
				s->nested_str = true;
			} else if (c == '{' || c == '[') {
				if (s->depth == ARC_DEPTH_MAX * 4)
					goto bad;
				s->depth++;
			} else if (c == '}' || c == ']') {
				if (--s->depth == 0) {
					*ev = value_done(s, true);
					if (*ev != SC_MORE)
						return i + 1;
				}
			}
			break;
		case ST_SCALAR:
			if (json_ws(c) || c == ',' || c == '}') {
				s->st = ST_NEXT;	/* the delimiter is read there */
				*ev = value_done(s, false);
				if (*ev != SC_MORE)
					return i;
				i--;
				break;
			}
			capture(s, c);
			break;
		case ST_NEXT:
			if (json_ws(c))
				break;
			if (c == ',') {
				s->st = ST_NAME;
			} else if (c == '}') {
				s->st = ST_DONE;
				*ev = SC_END;
				return i + 1;
			} else {
				goto bad;
			}
			break;
		case ST_DONE:
			return n;
		}
	}
	return n;
bad:
	s->st = ST_DONE;
	*ev = SC_BAD;
	return i + 1;
}

bool
acp_duplicated(const struct jval *v)
{
	size_t i;

	if (v == NULL)
		return false;
	if (v->type == J_OBJECT) {
		for (i = 0; i < v->n; i++)
			if (v->members[i].duplicate ||
			    acp_duplicated(v->members[i].value))
				return true;
	} else if (v->type == J_ARRAY) {
		for (i = 0; i < v->n; i++)
			if (acp_duplicated(v->items[i]))
				return true;
	}
	return false;
}
