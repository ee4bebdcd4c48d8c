/*
 * The rules of ARC 0.2 (arc(7), and schemas/arc-0.2.schema.json for the
 * fields and their limits), checked on a parsed line.
 * Every problem of a line is collected, each with the JSON Pointer of the
 * member at fault; no message ever quotes a value from the event.
 */
#include <err.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcvalidate.h"

/* ---- field rules ---- */

enum check {
	C_STRING,	/* min..max code points; "trimmed" when min > 0 */
	C_NONEMPTY,	/* 1..max code points, white space counts */
	C_ENUM,
	C_ID_PATTERN,	/* ^[A-Za-z0-9_-]{1,64}$ */
	C_TIME,		/* RFC 3339 date-time */
	C_HEX64,
	C_INTEGER,	/* a plain JSON integer literal in min..max */
	C_OBJECT,
	C_ARRAY,
};

#define ALL_TYPES (EV_CREATED | EV_UPDATED | EV_SUBMITTED | EV_RESOLVED)
#define CU (EV_CREATED | EV_UPDATED)

struct vctx;
struct field {
	const char	 *name;
	size_t		  namelen;
	enum check	  check;
	uint64_t	  min, max;
	unsigned	  allowed, required;	/* event types */
	const char *const *values;		/* C_ENUM */
	void		(*object)(struct vctx *, const struct jval *);
};

struct vctx {
	struct problems	*pr;
	struct path	 path;
	unsigned	 type;	/* one EV_ bit, or EV_UNKNOWN for "any" */
};

static const char *const versions[] = { "0.2", NULL };
static const char *const event_types[] = { "request.created",
    "request.updated", "response.submitted", "request.resolved", NULL };
static const char *const request_kinds[] = { "information", "question",
    "permission", "blocked", "failure", "completion", NULL };
static const char *const priorities[] = { "low", "normal", "high",
    "critical", NULL };
static const char *const outcomes[] = { "answered", "expired", "cancelled",
    "superseded", "not_needed", NULL };
static const char *const response_kinds[] = { "permission", "single_choice",
    "text", NULL };

static void	check_sender(struct vctx *, const struct jval *);
static void	check_context(struct vctx *, const struct jval *);
static void	check_request(struct vctx *, const struct jval *);
static void	check_answer_spec(struct vctx *, const struct jval *);
static void	check_choices(struct vctx *, const struct jval *);
static void	check_choice(struct vctx *, const struct jval *);
static void	check_response(struct vctx *, const struct jval *);
static void	check_extensions(struct vctx *, const struct jval *);

#define INT63 UINT64_C(9223372036854775807)
/* A field's name and its length; the "" refuse anything but a literal. */
#define F(name)	"" name "", sizeof(name) - 1

static const struct field envelope_fields[] = {
	{ F("arc_version"), C_ENUM, 0, 0, ALL_TYPES, ALL_TYPES,
	    versions, NULL },
	{ F("event_id"), C_STRING, 1, 512, ALL_TYPES, ALL_TYPES, NULL, NULL },
	{ F("event_type"), C_ENUM, 0, 0, ALL_TYPES, ALL_TYPES,
	    event_types, NULL },
	{ F("occurred_at"), C_TIME, 0, 0, ALL_TYPES, ALL_TYPES, NULL, NULL },
	{ F("sender"), C_OBJECT, 0, 0, ALL_TYPES, ALL_TYPES,
	    NULL, check_sender },
	{ F("context"), C_OBJECT, 0, 0, ALL_TYPES, 0, NULL, check_context },
	{ F("request"), C_OBJECT, 0, 0, ALL_TYPES, ALL_TYPES,
	    NULL, check_request },
	{ F("response"), C_OBJECT, 0, 0, EV_SUBMITTED, EV_SUBMITTED, NULL,
	    check_response },
	{ F("extensions"), C_OBJECT, 0, 0, ALL_TYPES, 0,
	    NULL, check_extensions },
	{ NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};

static const struct field sender_fields[] = {
	{ F("id"), C_STRING, 1, 100, ALL_TYPES, ALL_TYPES, NULL, NULL },
	{ F("name"), C_STRING, 0, 160, ALL_TYPES, 0, NULL, NULL },
	{ F("version"), C_STRING, 0, 100, ALL_TYPES, 0, NULL, NULL },
	{ F("instance_id"), C_STRING, 0, 100, ALL_TYPES, 0, NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};

static const struct field context_fields[] = {
	{ F("session_id"), C_STRING, 0, 100, ALL_TYPES, 0, NULL, NULL },
	{ F("correlation_id"), C_STRING, 0, 200, ALL_TYPES, 0, NULL, NULL },
	{ F("project"), C_STRING, 0, 200, ALL_TYPES, 0, NULL, NULL },
	{ F("cwd"), C_STRING, 0, 1024, ALL_TYPES, 0, NULL, NULL },
	{ F("pid"), C_INTEGER, 0, INT63, ALL_TYPES, 0, NULL, NULL },
	{ F("turn_id"), C_STRING, 0, 200, ALL_TYPES, 0, NULL, NULL },
	{ F("native_request_id"), C_STRING, 0, 200, ALL_TYPES, 0, NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};

/* A blank key on request.created is allowed: the request is keyless. */
static const struct field request_fields[] = {
	{ F("key"), C_STRING, 1, 100, ALL_TYPES, EV_UPDATED | EV_SUBMITTED |
	    EV_RESOLVED, NULL, NULL },
	{ F("kind"), C_ENUM, 0, 0, CU, CU, request_kinds, NULL },
	{ F("title"), C_STRING, 0, 200, CU, 0, NULL, NULL },
	{ F("message"), C_STRING, 1, 4000, CU, CU, NULL, NULL },
	{ F("priority"), C_ENUM, 0, 0, CU, 0, priorities, NULL },
	{ F("response"), C_OBJECT, 0, 0, CU, 0, NULL, check_answer_spec },
	{ F("outcome"), C_ENUM, 0, 0, EV_RESOLVED, 0, outcomes, NULL },
	{ NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};

/* Kind-dependent rules of the answer specification are in its checker. */
static const struct field answer_spec_fields[] = {
	{ F("kind"), C_ENUM, 0, 0, ALL_TYPES, ALL_TYPES, response_kinds, NULL },
	{ F("choices"), C_ARRAY, 0, 0, ALL_TYPES, 0, NULL, check_choices },
	{ F("text_max_length"), C_INTEGER, 1, 2000, ALL_TYPES, 0, NULL, NULL },
	{ F("expires_at"), C_TIME, 0, 0, ALL_TYPES, ALL_TYPES, NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};

static const struct field choice_fields[] = {
	{ F("id"), C_ID_PATTERN, 0, 0, ALL_TYPES, ALL_TYPES, NULL, NULL },
	{ F("label"), C_STRING, 1, 200, ALL_TYPES, ALL_TYPES, NULL, NULL },
	{ F("detail"), C_STRING, 0, 500, ALL_TYPES, 0, NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};

static const struct field response_fields[] = {
	{ F("response_id"), C_NONEMPTY, 1, 128, ALL_TYPES, ALL_TYPES,
	    NULL, NULL },
	{ F("digest"), C_HEX64, 0, 0, ALL_TYPES, ALL_TYPES, NULL, NULL },
	{ F("nonce"), C_STRING, 0, 128, ALL_TYPES, 0, NULL, NULL },
	{ F("choice_id"), C_STRING, 0, SIZE_MAX, ALL_TYPES, 0, NULL, NULL },
	{ F("text"), C_STRING, 0, 2000, ALL_TYPES, 0, NULL, NULL },
	{ F("source"), C_ID_PATTERN, 0, 0, ALL_TYPES, 0, NULL, NULL },
	{ F("device_id"), C_STRING, 0, 128, ALL_TYPES, 0, NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }
};

static const char *
type_name(enum jtype t)
{
	static const char *const names[] = { "null", "false", "true",
	    "a number", "a string", "an array", "an object" };
	return names[t];
}

static void
wrong_type(struct vctx *c, const struct jval *v, const char *want)
{
	problems_add(c->pr, ARC_INVALID, &c->path, "must be %s, not %s", want,
	    type_name(v->type));
}

static void
enum_list(char *out, size_t n, const char *const *values)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; values[i] != NULL; i++) {
		if (i)
			strlcat(out, ", ", n);
		strlcat(out, values[i], n);
	}
}

static bool
id_pattern(const struct jval *v)
{
	size_t i;

	if (v->len < 1 || v->len > 64)
		return false;
	for (i = 0; i < v->len; i++) {
		char ch = v->s[i];
		if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
		    (ch >= '0' && ch <= '9') || ch == '_' || ch == '-'))
			return false;
	}
	return true;
}

/* A plain integer literal (no fraction, no exponent) within [min, max]. */
static bool
integer_in(const struct jval *v, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t	 n = 0;
	size_t		 i;

	if (v->type != J_NUMBER || !v->integer)
		return false;
	if (v->s[0] == '-')
		return v->len == 2 && v->s[1] == '0' && min == 0 &&
		    (*out = 0, true);
	for (i = 0; i < v->len; i++) {
		unsigned d = (unsigned)(v->s[i] - '0');
		if (n > (UINT64_MAX - d) / 10)
			return false;
		n = n * 10 + d;
	}
	*out = n;
	return n >= min && n <= max;
}

static void
check_value(struct vctx *c, const struct field *f, const struct jval *v,
    bool required)
{
	struct arc_instant	 t;
	char			 list[128];
	uint64_t		 n;
	size_t			 i;
	enum jtype		 want = J_STRING;
	const char		*want_name = "a string";

	if (f->check == C_INTEGER)
		want = J_NUMBER, want_name = "an integer";
	else if (f->check == C_OBJECT)
		want = J_OBJECT, want_name = "an object";
	else if (f->check == C_ARRAY)
		want = J_ARRAY, want_name = "an array";
	if (v->type != want) {
		wrong_type(c, v, want_name);
		return;
	}
	switch (f->check) {
	case C_STRING:
		if (f->min > 0 && json_blank(v)) {
			if (required)
				problems_add(c->pr, ARC_INVALID, &c->path,
				    "must not be empty or blank");
			return;
		}
		if (v->codepoints > f->max)
			problems_add(c->pr, ARC_INVALID, &c->path,
			    "must be at most %llu characters (has %zu)",
			    (unsigned long long)f->max, v->codepoints);
		return;
	case C_NONEMPTY:
		if (v->codepoints < f->min || v->codepoints > f->max)
			problems_add(c->pr, ARC_INVALID, &c->path,
			    "must be %llu to %llu characters (has %zu)",
			    (unsigned long long)f->min,
			    (unsigned long long)f->max, v->codepoints);
		return;
	case C_ENUM:
		for (i = 0; f->values[i] != NULL; i++)
			if (json_is(v, f->values[i]))
				return;
		enum_list(list, sizeof(list), f->values);
		problems_add(c->pr, ARC_INVALID, &c->path, "must be one of %s",
		    list);
		return;
	case C_ID_PATTERN:
		if (!id_pattern(v))
			problems_add(c->pr, ARC_INVALID, &c->path,
			    "must be 1-64 letters, digits, '_' or '-'");
		return;
	case C_TIME:
		if (!rfc3339_parse(v->s, v->len, &t))
			problems_add(c->pr, ARC_INVALID, &c->path,
			    "must be an RFC 3339 date-time");
		return;
	case C_HEX64:
		for (i = 0; i < v->len; i++)
			if (!((v->s[i] >= '0' && v->s[i] <= '9') ||
			    (v->s[i] >= 'a' && v->s[i] <= 'f')))
				break;
		if (v->len != 64 || i != 64)
			problems_add(c->pr, ARC_INVALID, &c->path,
			    "must be 64 lowercase hexadecimal characters");
		return;
	case C_INTEGER:
		if (!integer_in(v, f->min, f->max, &n))
			problems_add(c->pr, ARC_INVALID, &c->path,
			    "must be an integer from %llu to %llu, written "
			    "without fraction or exponent",
			    (unsigned long long)f->min,
			    (unsigned long long)f->max);
		return;
	case C_OBJECT:
		f->object(c, v);
		return;
	case C_ARRAY:
		f->object(c, v);
		return;
	}
}

static const char *
event_type_name(unsigned type)
{
	switch (type) {
	case EV_CREATED:	return "request.created";
	case EV_UPDATED:	return "request.updated";
	case EV_SUBMITTED:	return "response.submitted";
	case EV_RESOLVED:	return "request.resolved";
	default:		return "this event";
	}
}

/* With an unknown event type, only what every type requires is required. */
static bool
required(const struct vctx *c, const struct field *f)
{
	if (c->type == EV_UNKNOWN)
		return f->required == ALL_TYPES;
	return (f->required & c->type) != 0;
}

/*
 * Checks the members of one object against its field table: unknown and
 * misplaced members in document order, then missing required ones.
 */
static void
check_members(struct vctx *c, const struct jval *o, const struct field *fields)
{
	const struct field	*f;
	size_t			 i;
	unsigned		 type = c->type ? c->type : ALL_TYPES;
	uint64_t		 seen = 0;	/* the table's first 64, by index */

	for (i = 0; i < o->n; i++) {
		const struct jmember *m = &o->members[i];
		if (m->duplicate)
			continue;	/* reported by the duplicate walk */
		for (f = fields; f->name != NULL; f++)
			if (f->namelen == m->namelen &&
			    memcmp(f->name, m->name, m->namelen) == 0)
				break;
		if (f->name != NULL && f - fields < 64)
			seen |= UINT64_C(1) << (f - fields);
		path_push_name(&c->path, m->name, m->namelen);
		if (f->name == NULL)
			problems_add(c->pr, ARC_INVALID, &c->path,
			    "unknown member");
		else if ((f->allowed & type) == 0)
			problems_add(c->pr, ARC_INVALID, &c->path,
			    "not allowed in %s", event_type_name(c->type));
		else
			check_value(c, f, m->value, required(c, f));
		path_pop(&c->path);
	}
	for (f = fields; f->name != NULL; f++) {
		if (!required(c, f))
			continue;
		/* one of each name is not a duplicate: the walk above saw it */
		if (f - fields < 64 ? (seen >> (f - fields) & 1) != 0 :
		    json_get(o, f->name) != NULL)
			continue;
		path_push_name(&c->path, f->name, f->namelen);
		problems_add(c->pr, ARC_INVALID, &c->path,
		    "missing required member");
		path_pop(&c->path);
	}
}

/* Required members of the nested objects do not depend on the event type. */
static void
check_members_any_type(struct vctx *c, const struct jval *o,
    const struct field *fields)
{
	unsigned saved = c->type;

	c->type = EV_CREATED;	/* any one type: these tables allow all */
	check_members(c, o, fields);
	c->type = saved;
}

static void
check_sender(struct vctx *c, const struct jval *o)
{
	check_members_any_type(c, o, sender_fields);
}

static void
check_context(struct vctx *c, const struct jval *o)
{
	check_members_any_type(c, o, context_fields);
}

static void
check_request(struct vctx *c, const struct jval *o)
{
	check_members(c, o, request_fields);
}

static void
check_answer_spec(struct vctx *c, const struct jval *o)
{
	const struct jval	*kind = json_get(o, "kind");
	bool			 choice_kind, text_kind;

	check_members_any_type(c, o, answer_spec_fields);
	choice_kind = json_is(kind, "permission") ||
	    json_is(kind, "single_choice");
	text_kind = json_is(kind, "text");
	if (choice_kind && json_get(o, "choices") == NULL) {
		path_push_name(&c->path, "choices", 7);
		problems_add(c->pr, ARC_INVALID, &c->path,
		    "missing required member: required for this kind");
		path_pop(&c->path);
	}
	if (choice_kind && json_get(o, "text_max_length") != NULL) {
		path_push_name(&c->path, "text_max_length", 15);
		problems_add(c->pr, ARC_INVALID, &c->path,
		    "not allowed for a choice kind");
		path_pop(&c->path);
	}
	if (text_kind && json_get(o, "choices") != NULL) {
		path_push_name(&c->path, "choices", 7);
		problems_add(c->pr, ARC_INVALID, &c->path,
		    "not allowed for the text kind");
		path_pop(&c->path);
	}
}

static void
check_choices(struct vctx *c, const struct jval *a)
{
	size_t i, j;

	if (a->n < 2 || a->n > 12)
		problems_add(c->pr, ARC_INVALID, &c->path,
		    "must hold 2 to 12 choices (has %zu)", a->n);
	for (i = 0; i < a->n; i++) {
		const struct jval *id = json_get(a->items[i], "id");

		path_push_index(&c->path, i);
		if (a->items[i]->type != J_OBJECT)
			wrong_type(c, a->items[i], "an object");
		else
			check_choice(c, a->items[i]);
		/* A repeated id is reported at its second occurrence. */
		for (j = 0; id != NULL && id->type == J_STRING && j < i; j++) {
			const struct jval *prev = json_get(a->items[j], "id");
			if (prev != NULL && prev->type == J_STRING &&
			    prev->len == id->len &&
			    memcmp(prev->s, id->s, id->len) == 0) {
				path_push_name(&c->path, "id", 2);
				problems_add(c->pr, ARC_INVALID, &c->path,
				    "repeats the id of choice %zu", j);
				path_pop(&c->path);
				break;
			}
		}
		path_pop(&c->path);
	}
}

static void
check_choice(struct vctx *c, const struct jval *o)
{
	check_members_any_type(c, o, choice_fields);
}

static void
check_response(struct vctx *c, const struct jval *o)
{
	const struct jval *choice = json_get(o, "choice_id");
	const struct jval *text = json_get(o, "text");
	/* A null member is reported as such, and counts as absent here. */
	bool has_choice = choice != NULL && choice->type != J_NULL;
	bool has_text = text != NULL && text->type != J_NULL;

	check_members_any_type(c, o, response_fields);
	if (has_choice == has_text)
		problems_add(c->pr, ARC_INVALID, &c->path,
		    "must hold exactly one of choice_id and text");
}

static bool
extension_name(const char *s, size_t n)
{
	size_t i;

	if (n < 3 || n > 66 || s[0] != 'x' || s[1] != '-')
		return false;
	for (i = 2; i < n; i++) {
		char ch = s[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
		if (!alnum && (i == 2 || (ch != '.' && ch != '-')))
			return false;
	}
	return true;
}

static void
check_extensions(struct vctx *c, const struct jval *o)
{
	size_t i, j;

	for (i = 0; i < o->n; i++) {
		const struct jmember *m = &o->members[i];
		const struct jval *v = m->value;

		path_push_name(&c->path, m->name, m->namelen);
		if (!extension_name(m->name, m->namelen)) {
			problems_add(c->pr, ARC_INVALID, &c->path,
			    "must be named x-<vendor> "
			    "(^x-[a-z0-9][a-z0-9.-]{0,63}$)");
		} else if (m->namelen == 13 &&
		    memcmp(m->name, "x-agentnotify", 13) == 0 && !m->duplicate) {
			if (v->type != J_OBJECT)
				wrong_type(c, v, "an object");
			for (j = 0; v->type == J_OBJECT && j < v->n; j++) {
				const struct jmember *x = &v->members[j];
				path_push_name(&c->path, x->name, x->namelen);
				if (x->duplicate)
					;	/* the duplicate walk says it */
				else if (x->namelen != 17 || memcmp(x->name,
				    "notification_type", 17) != 0)
					problems_add(c->pr, ARC_INVALID,
					    &c->path, "unknown member");
				else if (x->value->type != J_STRING)
					wrong_type(c, x->value, "a string");
				path_pop(&c->path);
			}
		}
		path_pop(&c->path);
	}
}

/*
 * Duplicate member names are invalid anywhere, extension values too;
 * the parse says where there are none, and that is not walked.
 */
static void
find_duplicates(struct vctx *c, const struct jval *v)
{
	size_t i;

	if (!v->dups)
		return;
	if (v->type == J_OBJECT) {
		for (i = 0; i < v->n; i++) {
			const struct jmember *m = &v->members[i];
			path_push_name(&c->path, m->name, m->namelen);
			if (m->duplicate)
				problems_add(c->pr, ARC_INVALID, &c->path,
				    "duplicate member name");
			find_duplicates(c, m->value);
			path_pop(&c->path);
		}
	} else if (v->type == J_ARRAY) {
		for (i = 0; i < v->n; i++) {
			path_push_index(&c->path, i);
			find_duplicates(c, v->items[i]);
			path_pop(&c->path);
		}
	}
}

enum event_type
arc_event_type(const struct jval *root)
{
	const struct jval *t = json_get(root, "event_type");

	if (json_is(t, "request.created"))
		return EV_CREATED;
	if (json_is(t, "request.updated"))
		return EV_UPDATED;
	if (json_is(t, "response.submitted"))
		return EV_SUBMITTED;
	if (json_is(t, "request.resolved"))
		return EV_RESOLVED;
	return EV_UNKNOWN;
}

bool
arc_validate_line(struct arena *a, const char *line, size_t len,
    struct problems *pr, struct jval **rootp)
{
	struct jparse_error	 e;
	struct jval		*root, *version;
	struct vctx		 c = { 0 };

	*rootp = NULL;
	problems_clear(pr);
	if (len > ARC_LINE_MAX) {
		problems_add_at(pr, ARC_TOO_LARGE, "",
		    "line longer than %d bytes", ARC_LINE_MAX);
		return false;
	}
	if ((root = json_parse(a, line, len, &e)) == NULL) {
		problems_add_at(pr, ARC_INVALID, "",
		    "not JSON: %s at byte %zu", e.message, e.offset + 1);
		return false;
	}
	if (root->type != J_OBJECT) {
		problems_add_at(pr, ARC_INVALID, "", "not a JSON object");
		return false;
	}
	*rootp = root;
	version = json_get(root, "arc_version");
	if (version != NULL && version->type == J_STRING &&
	    !json_is(version, "0.2")) {
		problems_add_at(pr, ARC_UNSUPPORTED_VERSION, "/arc_version",
		    "unsupported ARC version; this consumer implements 0.2");
		return false;
	}
	c.pr = pr;
	c.type = arc_event_type(root);
	find_duplicates(&c, root);
	check_members(&c, root, envelope_fields);
	return pr->n == 0 && pr->dropped == 0;
}
