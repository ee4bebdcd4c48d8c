/*
 * libFuzzer target: arc-acp's message scanner (arcacpscan.c), which reads
 * the top level of each message as its bytes go by, against a full parse
 * of the message by the strict parser (arcjson.c).  The input's first
 * byte picks how the rest, one line as arc-acp cuts them, is cut into
 * reads.  Whenever the parser reads the line as an object in which no
 * member is given twice, the scanner must have found the same top level:
 * as many id, method, params and result/error members, and the same
 * first id and method (read again by the parser).  Otherwise arc-acp
 * acts on the message only after the parser read it, or leaves the
 * request to the editor, so the scanner may say anything but must not
 * crash or read out of bounds.
 */
#include <stdlib.h>
#include <string.h>

#include "../arc.h"
#include "../arcacpscan.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The same JSON value: a string's text, a number's literal, the type. */
static bool
same(struct arena *a, const char *raw, size_t n, const struct jval *want)
{
	struct jparse_error	 je;
	const struct jval	*v = json_parse(a, raw, n, &je);

	if (v == NULL || v->type != want->type)
		return false;
	if (v->type == J_STRING || v->type == J_NUMBER)
		return v->len == want->len && memcmp(v->s, want->s, v->len) == 0;
	return true;
}

static bool
is(const struct jmember *m, const char *name)
{
	return m->namelen == strlen(name) && memcmp(m->name, name,
	    m->namelen) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct arena	 arena, again;
	static struct acp_scan	 s;
	struct jparse_error	 je;
	const struct jval	*msg, *id = NULL, *method = NULL;
	const char		*p, *nl;
	enum acp_scan_ev	 ev = SC_MORE;
	unsigned		 seed, nid = 0, nmethod = 0, nparams = 0,
				 nresult = 0;
	size_t			 n, off, i;
	bool			 ended = false;

	if (size < 1)
		return 0;
	seed = data[0];
	p = (const char *)data + 1;
	n = size - 1;
	if ((nl = memchr(p, '\n', n)) != NULL)
		n = (size_t)(nl - p);

	acp_scan_init(&s);
	for (off = 0; off < n && ev != SC_BAD && !ended; ) {
		size_t piece = seed == 0 ? n - off : 1 + (seed * 7 + off) % 97;
		size_t used;

		if (piece > n - off)
			piece = n - off;
		/* a read is fed until it is used up, as arc-acp does */
		while (piece > 0) {
			used = acp_scan_feed(&s, p + off, piece, &ev);
			if (used > piece)
				abort();
			off += used;
			piece -= used;
			if (ev == SC_END || ev == SC_BAD) {
				ended = ev == SC_END;
				break;
			}
			if ((ev == SC_ID || ev == SC_METHOD) &&
			    s.vallen > sizeof(s.val))
				abort();
		}
	}

	arena_reset(&arena);
	msg = json_parse(&arena, p, n, &je);
	if (msg == NULL || msg->type != J_OBJECT || acp_duplicated(msg))
		return 0;	/* left to the editor, or read by the parser */
	for (i = 0; i < msg->n; i++) {
		const struct jmember *m = &msg->members[i];

		if (is(m, "id")) {
			nid++;
			id = m->value;
		} else if (is(m, "method")) {
			nmethod++;
			method = m->value;
		} else if (is(m, "params")) {
			nparams++;
		} else if (is(m, "result") || is(m, "error")) {
			nresult++;
		}
	}
	if (!ended || s.nid != nid || s.nmethod != nmethod ||
	    s.nparams != nparams || s.nresult != nresult)
		abort();
	arena_reset(&again);
	if (id != NULL) {
		bool scalar = id->type != J_OBJECT && id->type != J_ARRAY &&
		    id->rawlen <= ACP_ID_MAX;

		if (scalar != (s.idlen[0] > 0))
			abort();
		if (scalar && !same(&again, s.id[0], s.idlen[0], id))
			abort();
	}
	if (method != NULL) {
		bool scalar = method->type != J_OBJECT &&
		    method->type != J_ARRAY && method->rawlen <= ACP_ID_MAX;

		if (scalar != (s.methodlen > 0))
			abort();
		if (scalar && !same(&again, s.method, s.methodlen, method))
			abort();
	}
	return 0;
}
