/*
 * arc-emit: the producer's side, for shell scripts and agent hooks.  It
 * builds one ARC 0.2 event from options and checks it with the same rules
 * as arc-validate before printing it, so that what it prints is valid by
 * construction; an option that would make an invalid event is refused.
 */
#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcproblem.h"
#include "arcvalidate.h"
#include "arcfilter.h"
#include "arcusage.h"
#include "arcwords.h"
#include "arcevent.h"

#define CHOICES_MAX 32	/* more than ARC allows, so that the rule says no */

struct emit {
	const char	*type, *key, *kind, *title, *message, *priority;
	const char	*response_kind, *text_max, *expires_in, *expires_at;
	const char	*outcome, *event_id, *sender_id, *sender_name;
	const char	*sender_version, *instance_id, *session_id;
	const char	*correlation_id, *project, *cwd, *turn_id;
	const char	*native_request_id, *notification_type, *pid;
	const char	*tmux_pane, *tmux_socket;	/* x-arc: where it runs */
	const char	*choice[CHOICES_MAX];
	size_t		 nchoices;
	bool		 notice;	/* --notice: asks nothing, on purpose */
};

/* Which option sets the member at a path, for the refusal's message. */
static const struct {
	const char *path, *option;
} options_of[] = {
	{ "/event_type", "--type" },
	{ "/event_id", "--event-id" },
	{ "/sender/id", "--sender-id" },
	{ "/sender/name", "--sender-name" },
	{ "/sender/version", "--sender-version" },
	{ "/sender/instance_id", "--instance-id" },
	{ "/context/session_id", "--session-id" },
	{ "/context/correlation_id", "--correlation-id" },
	{ "/context/project", "--project" },
	{ "/context/cwd", "--cwd" },
	{ "/context/turn_id", "--turn-id" },
	{ "/context/native_request_id", "--native-request-id" },
	{ "/request/key", "--key" },
	{ "/request/kind", "--kind" },
	{ "/request/title", "--title" },
	{ "/request/message", "--message" },
	{ "/request/priority", "--priority" },
	{ "/request/outcome", "--outcome" },
	{ "/request/response/kind", "--response-kind" },
	{ "/request/response/choices", "--choice" },
	{ "/request/response/text_max_length", "--text-max" },
	{ "/request/response/expires_at", "--expires-in or --expires-at" },
	{ "/request/response", "--choice, --text-max or --response-kind" },
	{ "/extensions/x-agentnotify", "--notification-type" },
	{ "/extensions/x-arc", "--tmux-pane and --tmux-socket" },
};

static const char *
option_for(const char *path)
{
	size_t i, n;

	for (i = 0; i < sizeof(options_of) / sizeof(options_of[0]); i++) {
		n = strlen(options_of[i].path);
		if (strncmp(path, options_of[i].path, n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return options_of[i].option;
	}
	return NULL;
}

static const char *
full_type(const char *t)
{
	if (strcmp(t, "created") == 0)
		return "request.created";
	if (strcmp(t, "updated") == 0)
		return "request.updated";
	if (strcmp(t, "resolved") == 0)
		return "request.resolved";
	return t;	/* the full name, or one the rules will refuse */
}

/*
 * One part of ID:LABEL[:DETAIL] into part, up to the next colon that is
 * not escaped (\: is a colon, \\ a backslash), or with last to the end
 * (the detail may hold colons); where the part ended.
 */
static const char *
choice_part(const char *s, struct buf *part, bool last)
{
	part->len = 0;
	for (; *s != '\0' && (last || *s != ':'); s++) {
		if (*s == '\\' && (s[1] == ':' || s[1] == '\\'))
			s++;
		buf_putc(part, *s);
	}
	return s;
}

/*
 * The choice spec ID[:LABEL[:DETAIL]] into c, its texts kept in parts[3]
 * (the label is the id when there is none).
 */
static void
choice_of(const char *spec, struct buf parts[3], struct event_choice *c)
{
	const char	*s = choice_part(spec, &parts[0], false);
	bool		 has_label = *s == ':', has_detail = false;

	if (has_label) {
		s = choice_part(s + 1, &parts[1], false);
		if ((has_detail = *s == ':'))
			(void)choice_part(s + 1, &parts[2], true);
	}
	for (size_t i = 0; i < 3; i++)
		buf_putc(&parts[i], '\0');
	c->id = parts[0].p;
	c->label = has_label ? parts[1].p : parts[0].p;
	c->detail = has_detail ? parts[2].p : NULL;
}

static bool
build(struct buf *b, const struct emit *o)
{
	char			 expires[64];
	bool			 first, ok = true;
	const char		*type = full_type(o->type);
	const char		*rkind = o->response_kind;
	struct buf		 parts[CHOICES_MAX][3];
	struct event_choice	 choices[CHOICES_MAX];
	const struct event_head	 head = {
		.type = type, .event_id = o->event_id,
		.sender_id = o->sender_id, .sender_name = o->sender_name,
		.sender_version = o->sender_version,
		.instance_id = o->instance_id, .session_id = o->session_id,
		.correlation_id = o->correlation_id, .project = o->project,
		.cwd = o->cwd, .turn_id = o->turn_id,
		.native_request_id = o->native_request_id, .pid = o->pid,
	};
	const struct event_tail	 tail = {
		.notification_type = o->notification_type,
		.tmux_pane = o->tmux_pane, .tmux_socket = o->tmux_socket,
	};
	size_t			 i;

	event_open(b, &head, &first);
	event_member(b, &first, "key", o->key);
	if (strcmp(type, "request.resolved") == 0) {
		event_member(b, &first, "outcome", o->outcome);
	} else {
		event_member(b, &first, "kind", o->kind);
		event_member(b, &first, "title", o->title);
		event_member(b, &first, "message", o->message);
		event_member(b, &first, "priority", o->priority);
		event_member(b, &first, "outcome", o->outcome);
	}
	if (rkind != NULL || o->nchoices > 0 || o->text_max != NULL) {
		if (rkind == NULL)
			rkind = o->nchoices == 0 ? "text" : o->kind != NULL &&
			    strcmp(o->kind, "permission") == 0 ? "permission" :
			    "single_choice";
		if (o->expires_at != NULL)
			strlcpy(expires, o->expires_at, sizeof(expires));
		else if (!rfc3339_after(arc_now(), parse_duration(
		    o->expires_in ? o->expires_in : "10m"), expires,
		    sizeof(expires)))
			ok = false;
		memset(parts, 0, sizeof(parts));
		for (i = 0; ok && i < o->nchoices; i++)
			choice_of(o->choice[i], parts[i], &choices[i]);
		if (ok)
			event_response(b, &first, rkind, choices, o->nchoices,
			    o->text_max, expires);
		for (i = 0; i < o->nchoices; i++)
			for (size_t k = 0; k < 3; k++)
				buf_free(&parts[i][k]);
	}
	if (ok)
		event_close(b, &tail);
	return ok;
}

static const char usage[] =
"usage: arc-emit [--type created|updated|resolved] [--key key] [--kind kind]\n"
"                [--title title] [--message message] [--priority priority]\n"
"                [--choice id:label[:detail] ...] [--text-max n] [--response-kind kind]\n"
"                [--expires-in duration | --expires-at time] [--outcome outcome]\n"
"                [--sender-id id] [--sender-name name] [--sender-version version]\n"
"                [--instance-id id] [--session-id id] [--correlation-id id]\n"
"                [--project name] [--cwd dir] [--pid pid] [--turn-id id]\n"
"                [--native-request-id id] [--notification-type type]\n"
"                [--tmux-pane pane --tmux-socket path] [--event-id id] [--notice]\n"
"\n"
"Prints one ARC 0.2 event built from its options, valid by construction.\n"
"A text of - is read from standard input.\n"
"\n"
"  --type type           created (default), updated or resolved\n"
"  --key key             the condition's key\n"
"  --kind kind           information, question, permission, blocked,\n"
"                        failure or completion\n"
"  --title, --message    what a person reads\n"
"  --priority priority   low, normal, high or critical\n"
"  --choice id:label[:detail]  a choice, in order (\\: a colon in a label)\n"
"  --text-max n          a text answer of at most n characters\n"
"  --response-kind kind  permission, single_choice or text\n"
"  --expires-in duration the question's deadline from now (90s 10m 2h 1d 1w)\n"
"  --expires-at time     the question's deadline (RFC 3339)\n"
"  --outcome outcome     of a resolution (or a notice)\n"
"  --sender-id, --sender-name, --sender-version, --instance-id\n"
"                        who asks\n"
"  --session-id id       the agent's session the question belongs to\n"
"                        (default $ARC_SESSION_ID; else none)\n"
"  --correlation-id id   ties events of one exchange together (a turn, a run)\n"
"  --project name        the project the agent works on, as a person names it\n"
"  --cwd dir             the agent's working directory (default: this one)\n"
"  --pid pid             the agent's process id, a hint for finding it\n"
"  --turn-id id          the agent's turn that waits for the answer\n"
"  --native-request-id id  the host's own id of the blocked call, so that an\n"
"                        adapter can return the answer into it\n"
"  --notification-type type   x-agentnotify's notification type\n"
"  --tmux-pane pane --tmux-socket path   where the agent runs ($TMUX_PANE,\n"
"                        $TMUX up to its comma): a hint to jump there (x-arc)\n"
"  --event-id id         the event's id (else one is minted)\n"
"  --notice              a permission notice that asks nothing here\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

/*
 * A new permission request without choices would be a notice nobody can
 * grant here: ARC allows it, arc-emit refuses it unless --notice says that
 * is the point (the permission is asked somewhere else, and the notice
 * sends the person there).  An update may leave the choices out: the
 * pending question's carry over.
 */
static bool
refuse_permission_notice(const struct emit *o)
{
	if (o->notice || strcmp(full_type(o->type), "request.created") != 0 ||
	    o->kind == NULL || strcmp(o->kind, "permission") != 0 ||
	    o->nchoices > 0)
		return false;
	warnx("/request/response/choices: a permission request offers its "
	    "choices, such as --choice allow:Allow --choice deny:Deny "
	    "(see --choice; --notice for a notice that asks nothing)");
	warnx("no event was emitted");
	return true;
}

int	emit_main(int, char **);	/* arcmain.c calls it */

int
emit_main(int argc, char **argv)
{
	enum { O_TYPE = 256, O_KEY, O_KIND, O_TITLE, O_MESSAGE, O_PRIORITY,
	    O_CHOICE, O_TEXT_MAX, O_RKIND, O_EXPIRES_IN, O_EXPIRES_AT,
	    O_OUTCOME, O_EVENT_ID, O_SENDER_ID, O_SENDER_NAME, O_SENDER_VERSION,
	    O_INSTANCE, O_SESSION, O_CORRELATION, O_PROJECT, O_CWD, O_PID,
	    O_TURN, O_NATIVE, O_NTYPE, O_NOTICE, O_HELP, O_VERSION,
	    O_TMUX_PANE, O_TMUX_SOCKET };
	static const struct option longopts[] = {
		{ "type", required_argument, NULL, O_TYPE },
		{ "key", required_argument, NULL, O_KEY },
		{ "kind", required_argument, NULL, O_KIND },
		{ "title", required_argument, NULL, O_TITLE },
		{ "message", required_argument, NULL, O_MESSAGE },
		{ "priority", required_argument, NULL, O_PRIORITY },
		{ "choice", required_argument, NULL, O_CHOICE },
		{ "text-max", required_argument, NULL, O_TEXT_MAX },
		{ "response-kind", required_argument, NULL, O_RKIND },
		{ "expires-in", required_argument, NULL, O_EXPIRES_IN },
		{ "expires-at", required_argument, NULL, O_EXPIRES_AT },
		{ "outcome", required_argument, NULL, O_OUTCOME },
		{ "event-id", required_argument, NULL, O_EVENT_ID },
		{ "sender-id", required_argument, NULL, O_SENDER_ID },
		{ "sender-name", required_argument, NULL, O_SENDER_NAME },
		{ "sender-version", required_argument, NULL, O_SENDER_VERSION },
		{ "instance-id", required_argument, NULL, O_INSTANCE },
		{ "session-id", required_argument, NULL, O_SESSION },
		{ "correlation-id", required_argument, NULL, O_CORRELATION },
		{ "project", required_argument, NULL, O_PROJECT },
		{ "cwd", required_argument, NULL, O_CWD },
		{ "pid", required_argument, NULL, O_PID },
		{ "turn-id", required_argument, NULL, O_TURN },
		{ "native-request-id", required_argument, NULL, O_NATIVE },
		{ "notification-type", required_argument, NULL, O_NTYPE },
		{ "tmux-pane", required_argument, NULL, O_TMUX_PANE },
		{ "tmux-socket", required_argument, NULL, O_TMUX_SOCKET },
		{ "notice", no_argument, NULL, O_NOTICE },
		{ "help", no_argument, NULL, O_HELP },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct emit	 o = { 0 };
	struct buf	 b = { 0 };
	struct arena	 arena = { 0 };
	struct problems	 pr = { 0 };
	struct jval	*root;
	const char	*env;
	char		 text_max[24], pid[24];
	long long	 n;
	int64_t		 ms;
	size_t		 i;
	int		 ch, status;

	o.type = "created";
	o.sender_id = (env = getenv("ARC_SENDER")) && *env ? env : "arc-emit";
	o.session_id = (env = getenv("ARC_SESSION_ID")) && *env ? env : NULL;
	while ((ch = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (ch) {
		case O_TYPE: o.type = optarg; break;
		case O_KEY: o.key = optarg; break;
		case O_KIND: o.kind = optarg; break;
		case O_TITLE: o.title = optarg; break;
		case O_MESSAGE: o.message = optarg; break;
		case O_PRIORITY: o.priority = optarg; break;
		case O_CHOICE:
			if (o.nchoices == CHOICES_MAX) {
				warnx("--choice: at most 12 choices");
				return EXIT_USAGE;
			}
			o.choice[o.nchoices++] = optarg;
			break;
		case O_TEXT_MAX:
			if (!count_arg("--text-max", optarg, 0, LLONG_MAX, &n)) {
				usage_print(stderr, usage, false);
				return EXIT_USAGE;
			}
			snprintf(text_max, sizeof(text_max), "%lld", n);
			o.text_max = text_max;
			break;
		case O_RKIND: o.response_kind = optarg; break;
		case O_EXPIRES_IN:
			if (!duration_arg("--expires-in", optarg, &ms)) {
				usage_print(stderr, usage, false);
				return EXIT_USAGE;
			}
			o.expires_in = optarg;
			break;
		case O_EXPIRES_AT: o.expires_at = optarg; break;
		case O_OUTCOME: o.outcome = optarg; break;
		case O_EVENT_ID: o.event_id = optarg; break;
		case O_SENDER_ID: o.sender_id = optarg; break;
		case O_SENDER_NAME: o.sender_name = optarg; break;
		case O_SENDER_VERSION: o.sender_version = optarg; break;
		case O_INSTANCE: o.instance_id = optarg; break;
		case O_SESSION: o.session_id = optarg; break;
		case O_CORRELATION: o.correlation_id = optarg; break;
		case O_PROJECT: o.project = optarg; break;
		case O_CWD: o.cwd = optarg; break;
		case O_PID:
			if (!count_arg("--pid", optarg, 0, LLONG_MAX, &n)) {
				usage_print(stderr, usage, false);
				return EXIT_USAGE;
			}
			snprintf(pid, sizeof(pid), "%lld", n);
			o.pid = pid;
			break;
		case O_TURN: o.turn_id = optarg; break;
		case O_NATIVE: o.native_request_id = optarg; break;
		case O_NTYPE: o.notification_type = optarg; break;
		case O_TMUX_PANE: o.tmux_pane = optarg; break;
		case O_TMUX_SOCKET: o.tmux_socket = optarg; break;
		case O_NOTICE: o.notice = true; break;
		case O_HELP:
			usage_print(stdout, usage, true);
			return 0;
		case O_VERSION:
			print_version();
			return 0;
		default:
			if (common_option(ch, usage, &status))
				return status;
			usage_print(stderr, usage, false);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		(void)usage_error(usage, "unexpected argument: %s",
		    safe(&b, argv[optind]));
		buf_free(&b);
		return EXIT_USAGE;
	}
	if (o.expires_in != NULL && o.expires_at != NULL)
		return usage_error(usage, "--expires-in and --expires-at: "
		    "one or the other");
	if ((o.tmux_pane == NULL) != (o.tmux_socket == NULL))
		return usage_error(usage, "--tmux-pane and --tmux-socket: "
		    "both or neither");
	if (o.notice && (o.nchoices > 0 || o.text_max != NULL ||
	    o.response_kind != NULL))
		return usage_error(usage, "--notice asks nothing: no "
		    "--choice, --text-max or --response-kind");
	/* A deadline is the question's: an update without one keeps its own. */
	if ((o.expires_in != NULL || o.expires_at != NULL) && o.nchoices == 0 &&
	    o.text_max == NULL && o.response_kind == NULL)
		return usage_error(usage, "%s: a deadline belongs to a "
		    "question: give its --choice, --text-max or --response-kind "
		    "too (an update without them keeps the open question as it "
		    "is, deadline included)", o.expires_in != NULL ?
		    "--expires-in" : "--expires-at");
	if (refuse_permission_notice(&o))
		return EXIT_USAGE;
	if (!build(&b, &o)) {
		warnx("--expires-in: the deadline is out of range");
		buf_free(&b);
		return EXIT_USAGE;
	}
	if (b.len > ARC_LINE_MAX) {
		warnx("the event would be %zu bytes, over the %d of one line: "
		    "shorten its texts (--message, --title, the choices)",
		    b.len, ARC_LINE_MAX);
		warnx("no event was emitted");
		arena_free(&arena);
		buf_free(&b);
		return EXIT_USAGE;
	}
	/* Valid by construction: the same rules as arc-validate. */
	if (!arc_validate_line(&arena, b.p, b.len, &pr, &root)) {
		for (i = 0; i < pr.n; i++) {
			const char *opt = option_for(pr.list[i].path);
			warnx("%s: %s%s%s%s", pr.list[i].path,
			    pr.list[i].message, opt ? " (see " : "",
			    opt ? opt : "", opt ? ")" : "");
		}
		warnx("no event was emitted");
		problems_clear(&pr);
		arena_free(&arena);
		buf_free(&b);
		return EXIT_USAGE;
	}
	buf_putc(&b, '\n');
	write_stdout(&b);
	flush_stdout();
	problems_clear(&pr);
	arena_free(&arena);
	buf_free(&b);
	return 0;
}
