/*
 * Push through ntfy (arcntfy.h): messages published with ntfy's JSON
 * publishing (POST to the server's root), the answer topic read as its
 * JSON stream (GET /TOPIC/json?since=...), both over libcurl: HTTPS with
 * the system's certificates, a proxy from the environment, chunked
 * streaming and timeouts, none of it written again here.
 *
 * Two tokens, each from a file of the user's (mode 0600): the host's,
 * which publishes questions and reads answers, and the tap's, which the
 * message carries in its actions' headers for the phone to publish a tap
 * with (the ntfy app adds no credentials of its own to an http action).
 * Whoever reads the question topic therefore holds the tap token: the
 * tap's tag, checked under the journal's lock, keeps a tap to the
 * question it was shown with, and nothing else.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <curl/curl.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arc.h"
#include "arcview.h"
#include "arcntfy.h"

#define TOKEN_MAX	256	/* bytes of a token file */
#define ACTIONS_MAX	3	/* ntfy's own limit a message */
/* The room a phone gives a question's message (arc-notify(1)). */
#define NTFY_CHARS	1000
#define NTFY_LINES	40
#define NTFY_BYTES	3400	/* the message and its choices, whole */
#define MESSAGE_MAX	4000	/* bytes of a message sent; ntfy's is 4096 */
#define JSON_MAX	8000	/* a publish's JSON; ntfy reads 8192 */
#define SQUEEZED_BYTES	1000	/* of the message, when squeezed */
#define LABEL_SQUEEZED	40	/* characters of a label, then */
#define TAP_LINE_MAX	(64 * 1024)	/* a stream line longer is skipped */
#define POST_MS		10000	/* a publish, whole */
#define CONNECT_MS	5000
#define QUIET_S		120	/* a stream silent this long is dead */
#define BACKOFF_MAX_S	30

struct ntfy {
	const struct ntfy_conf	*conf;
	char			 token[TOKEN_MAX + 1];	/* "": none */
	char			 tap_token[TOKEN_MAX + 1];
	CURL			*curl;	/* kept: one connection, reused */
};

/*
 * A token from a file that is the user's alone: one line, printable
 * ASCII.  Its words in a warning never include what it holds.
 */
static bool
token_read(const char *path, char out[TOKEN_MAX + 1])
{
	struct stat	 sb;
	ssize_t		 r;
	size_t		 n;
	int		 fd;

	out[0] = '\0';
	if (path == NULL)
		return true;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		warn("ntfy token %s", path);
		return false;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & 077) != 0) {
		warnx("ntfy token %s: not a file of yours alone (chmod 600 "
		    "it)", path);
		(void)close(fd);
		return false;
	}
	r = read(fd, out, TOKEN_MAX + 1);
	(void)close(fd);
	if (r < 0 || r > TOKEN_MAX) {
		warnx("ntfy token %s: %s", path, r < 0 ? strerror(errno) :
		    "longer than a token");
		out[0] = '\0';
		return false;
	}
	n = (size_t)r;
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		n--;
	out[n] = '\0';
	for (r = 0; (size_t)r < n; r++)
		if (out[r] <= ' ' || out[r] > '~' || out[r] == '"' ||
		    out[r] == '\\')
			break;
	if (n == 0 || (size_t)r != n) {
		warnx("ntfy token %s: not one line of a token", path);
		explicit_bzero(out, TOKEN_MAX + 1);
		return false;
	}
	return true;
}

struct ntfy *
ntfy_open(const struct ntfy_conf *conf)
{
	struct ntfy	*n;

	if ((n = calloc(1, sizeof(*n))) == NULL)
		err(EXIT_SYSTEM, "calloc");
	n->conf = conf;
	if (!token_read(conf->token, n->token) ||
	    !token_read(conf->tap_token, n->tap_token)) {
		ntfy_close(n);
		return NULL;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK ||
	    (n->curl = curl_easy_init()) == NULL) {
		warnx("ntfy: libcurl could not start");
		ntfy_close(n);
		return NULL;
	}
	return n;
}

void
ntfy_close(struct ntfy *n)
{
	if (n == NULL)
		return;
	if (n->curl != NULL)
		curl_easy_cleanup(n->curl);
	explicit_bzero(n->token, sizeof(n->token));
	explicit_bzero(n->tap_token, sizeof(n->tap_token));
	free(n);
}

/* ---- the message ---- */

/* ntfy's priorities: 1 min .. 5 max; ARC's low .. critical from 2. */
static int
ntfy_priority(enum priority p)
{
	switch (p) {
	case P_LOW:
		return 2;
	case P_HIGH:
		return 4;
	case P_CRITICAL:
		return 5;
	default:
		return 3;
	}
}

/* The bytes of s that end at a character and are at most max. */
static size_t
bytes_cut(const char *s, size_t n, size_t max)
{
	size_t	 i = 0, c;

	while (i < n && (c = utf8_char(s + i, n - i)) <= max - i)
		i += c;
	return i;
}

/*
 * Whether the question and its choices fit one message whole; *room:
 * the bytes of its message shown.  ntfy takes 4096 bytes a message.
 */
static bool
fits(const struct view *v, bool squeezed, size_t *room)
{
	size_t	 k, bytes;

	if (squeezed) {		/* what the server cannot take whole */
		*room = bytes_cut(v->message.p, v->message.n, SQUEEZED_BYTES);
		return false;
	}
	*room = view_room(v, NTFY_CHARS, NTFY_LINES);
	if (*room != v->message.n)
		return false;
	bytes = v->message.n;
	for (k = 0; k < v->nchoices; k++)
		bytes += v->choices[k].label.n + v->choices[k].detail.n + 8;
	if (bytes <= NTFY_BYTES)
		return true;
	*room = bytes_cut(v->message.p, v->message.n, NTFY_BYTES / 2);
	return false;
}

static bool
nameable(const struct view_choice *ch)
{
	return ch->id.p != NULL && memchr(ch->id.p, '\0', ch->id.n) == NULL;
}

/*
 * The choices a message offers, their places in *out (at most
 * ACTIONS_MAX, fewer with a page to open): in the question's order, only
 * those that refuse when the question is not seen whole, and never
 * without a way to refuse when the question has one.
 */
static size_t
offered(const struct ntfy *n, const struct view *v, bool squeezed,
    size_t out[ACTIONS_MAX])
{
	size_t	 room, k, m = 0, slots, refuse = SIZE_MAX;
	bool	 whole = fits(v, squeezed, &room), have_refusal = false;

	if (!v->has_q || v->qs != Q_PENDING || !view_answerable(v) ||
	    v->answer_kind == NULL || strcmp(v->answer_kind, "text") == 0)
		return 0;	/* a text is typed on a screen, not tapped */
	slots = ACTIONS_MAX - (n->conf->page != NULL ? 1 : 0);
	for (k = 0; k < v->nchoices; k++) {
		if (!nameable(&v->choices[k]) || (!whole &&
		    !view_refuses(&v->choices[k])))
			continue;
		if (view_refuses(&v->choices[k])) {
			if (refuse == SIZE_MAX)
				refuse = k;
			if (m < slots)
				have_refusal = true;
		}
		if (m < slots)
			out[m++] = k;
	}
	if (refuse != SIZE_MAX && !have_refusal && m > 0)
		out[m - 1] = refuse;	/* the last place, for a way to refuse */
	return m;
}

static bool	too_big(const struct ntfy *, const struct view *);

bool
ntfy_offers(const struct ntfy *n, const struct view *v, struct sv id)
{
	size_t	 out[ACTIONS_MAX], m, k;

	m = offered(n, v, too_big(n, v), out);
	for (k = 0; k < m; k++)
		if (sv_same(v->choices[out[k]].id, id))
			return true;
	return false;
}

static void
json_sv(struct buf *b, struct sv s)
{
	buf_json_str(b, s.p != NULL ? s.p : "", s.p != NULL ? s.n : 0);
}

/* The URL of a topic on the server, as text. */
static void
topic_url(struct buf *b, const struct ntfy_conf *c, const char *topic)
{
	buf_printf(b, "%s/%s", c->server, topic);
}

static void
tap_action(struct buf *b, const struct ntfy *n, const struct view *v,
    const struct view_choice *ch, bool squeezed)
{
	struct buf	 url = { 0 }, body = { 0 }, auth = { 0 };

	topic_url(&url, n->conf, n->conf->answers);
	buf_puts(&body, "{\"arc\":\"tap\",\"key\":");
	json_sv(&body, v->key);
	buf_printf(&body, ",\"tag\":\"%s\",\"choice\":", v->tag);
	json_sv(&body, ch->id);
	buf_putc(&body, '}');

	buf_puts(b, "{\"action\":\"http\",\"label\":");
	if (squeezed && utf8_cut(ch->label.p, ch->label.n, LABEL_SQUEEZED) <
	    ch->label.n) {
		buf_put(&auth, ch->label.p, utf8_cut(ch->label.p, ch->label.n,
		    LABEL_SQUEEZED));
		buf_puts(&auth, UTF8_CUT);
		buf_json_str(b, auth.p, auth.len);
		auth.len = 0;
	} else
		json_sv(b, ch->label);
	buf_puts(b, ",\"url\":");
	buf_json_str(b, url.p, url.len);
	buf_puts(b, ",\"method\":\"POST\"");
	if (n->tap_token[0] != '\0') {
		buf_printf(&auth, "Bearer %s", n->tap_token);
		buf_puts(b, ",\"headers\":{\"Authorization\":");
		buf_json_str(b, auth.p, auth.len);
		buf_putc(b, '}');
		explicit_bzero(auth.p, auth.len);
	}
	buf_puts(b, ",\"body\":");
	buf_json_str(b, body.p, body.len);
	buf_puts(b, ",\"clear\":true}");
	buf_free(&url);
	buf_free(&body);
	buf_free(&auth);
}

static void
head(struct buf *b, const struct ntfy *n, const struct view *v, int prio)
{
	struct buf	 sum = { 0 };

	view_summary(&sum, v);
	buf_puts(b, "{\"topic\":");
	buf_json_cstr(b, n->conf->topic);
	buf_puts(b, ",\"title\":");
	buf_json_str(b, sum.p, sum.len);
	buf_printf(b, ",\"priority\":%d", prio);
	if (n->conf->page != NULL) {
		buf_puts(b, ",\"click\":");
		buf_json_cstr(b, n->conf->page);
	}
	buf_free(&sum);
}

static void
message(struct buf *b, const struct ntfy *n, const struct view *v,
    bool squeezed)
{
	struct buf	 msg = { 0 };
	size_t		 out[ACTIONS_MAX], m, k, room;
	bool		 whole = fits(v, squeezed, &room);

	head(b, n, v, ntfy_priority(v->priority));
	if (v->withheld || v->message.p == NULL || v->message.n == 0)
		buf_puts(&msg, v->withheld ? "Its text stays on the host: "
		    "answer it there." : "(no message)");
	else {
		buf_put(&msg, v->message.p, room);
		if (!whole)
			buf_printf(&msg, "\n\xe2\x9f\xa8%zu of %zu characters "
			    "not shown here: open it on a screen (the page or "
			    "arc-answer) to allow it\xe2\x9f\xa9",
			    view_chars(v->message.p + room, v->message.n -
			    room), view_chars(v->message.p, v->message.n));
	}
	/* each button's whole meaning: the rule an "always" grants */
	m = offered(n, v, squeezed, out);
	for (k = 0; k < m && !squeezed; k++) {
		buf_puts(&msg, k == 0 ? "\n" : "");
		buf_puts(&msg, "\n\xe2\x80\xa2 ");
		buf_put(&msg, v->choices[out[k]].label.p,
		    v->choices[out[k]].label.n);
		if (v->choices[out[k]].detail.p != NULL) {
			buf_puts(&msg, ": ");
			buf_put(&msg, v->choices[out[k]].detail.p,
			    v->choices[out[k]].detail.n);
		}
	}
	if (v->has_q && v->qs == Q_PENDING && v->answer_kind != NULL &&
	    strcmp(v->answer_kind, "text") == 0)
		buf_puts(&msg, "\n(A text answer: type it on the page or with "
		    "arc-answer.)");
	if (msg.len > MESSAGE_MAX) {	/* refusals' long words: still sent */
		msg.len = bytes_cut(msg.p, msg.len, MESSAGE_MAX - 3);
		buf_puts(&msg, UTF8_CUT);
	}
	buf_puts(b, ",\"message\":");
	buf_json_str(b, msg.p, msg.len);
	buf_puts(b, ",\"actions\":[");
	for (k = 0; k < m; k++) {
		if (k > 0)
			buf_putc(b, ',');
		tap_action(b, n, v, &v->choices[out[k]], squeezed);
	}
	if (n->conf->page != NULL) {
		if (m > 0)
			buf_putc(b, ',');
		buf_puts(b, "{\"action\":\"view\",\"label\":\"Open\",\"url\":");
		buf_json_cstr(b, n->conf->page);
		buf_puts(b, ",\"clear\":false}");
	}
	buf_puts(b, "]}");
	buf_free(&msg);
}

/*
 * Whether the message would be more than the server reads of a JSON
 * publish (twice its message limit): then it is sent squeezed, a part of
 * its message, the refusals alone, their labels cut.
 */
static bool
too_big(const struct ntfy *n, const struct view *v)
{
	struct buf	 b = { 0 };
	bool		 over;

	message(&b, n, v, false);
	over = b.len > JSON_MAX;
	buf_free(&b);
	return over;
}

/* Built once; built again, squeezed, only when it is too big. */
void
ntfy_message(struct buf *b, const struct ntfy *n, const struct view *v)
{
	size_t	 start = b->len;

	message(b, n, v, false);
	if (b->len - start > JSON_MAX) {
		b->len = start;
		message(b, n, v, true);
	}
}

/* ---- HTTP ---- */

static size_t
discard(char *p, size_t size, size_t nmemb, void *arg)
{
	(void)p;
	(void)arg;
	return size * nmemb;
}

/* The options every request has: bounded, quiet, HTTP(S) alone. */
static bool
common(CURL *h, const char *url, struct curl_slist **hd, const char *token)
{
	char	 auth[TOKEN_MAX + 32];

	if (token[0] != '\0') {
		(void)snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		    token);
		*hd = curl_slist_append(*hd, auth);
		explicit_bzero(auth, sizeof(auth));
		if (*hd == NULL)
			return false;
	}
	return curl_easy_setopt(h, CURLOPT_URL, url) == CURLE_OK &&
	    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") ==
	    CURLE_OK &&
	    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) == CURLE_OK &&
	    curl_easy_setopt(h, CURLOPT_USERAGENT, "arc-notify") == CURLE_OK &&
	    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_MS) ==
	    CURLE_OK &&
	    curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hd) == CURLE_OK;
}

static bool
post(struct ntfy *n, const struct buf *body, char *why, size_t whylen)
{
	struct curl_slist	*hd = NULL;
	struct buf		 url = { 0 };
	CURLcode		 rc = CURLE_FAILED_INIT;
	long			 code = 0;
	bool			 ok = false;

	curl_easy_reset(n->curl);	/* its connection stays */
	buf_printf(&url, "%s/", n->conf->server);
	if ((hd = curl_slist_append(hd, "Content-Type: application/json")) ==
	    NULL || !common(n->curl, url.p, &hd, n->token) ||
	    curl_easy_setopt(n->curl, CURLOPT_POSTFIELDS, body->p) !=
	    CURLE_OK ||
	    curl_easy_setopt(n->curl, CURLOPT_POSTFIELDSIZE_LARGE,
	    (curl_off_t)body->len) != CURLE_OK ||
	    curl_easy_setopt(n->curl, CURLOPT_TIMEOUT_MS, (long)POST_MS) !=
	    CURLE_OK ||
	    curl_easy_setopt(n->curl, CURLOPT_WRITEFUNCTION, discard) !=
	    CURLE_OK)
		(void)snprintf(why, whylen, "libcurl: a request not made");
	else if ((rc = curl_easy_perform(n->curl)) != CURLE_OK)
		(void)snprintf(why, whylen, "%s", curl_easy_strerror(rc));
	else if (curl_easy_getinfo(n->curl, CURLINFO_RESPONSE_CODE, &code) !=
	    CURLE_OK || code != 200)
		(void)snprintf(why, whylen, "the server answered %ld%s", code,
		    code == 401 || code == 403 ? " (the token, or its access "
		    "to the topic)" : "");
	else
		ok = true;
	curl_slist_free_all(hd);
	buf_free(&url);
	return ok;
}

bool
ntfy_push(struct ntfy *n, const struct view *v, char *why, size_t whylen)
{
	struct buf	 b = { 0 };
	bool		 ok;

	ntfy_message(&b, n, v);
	ok = post(n, &b, why, whylen);
	buf_free(&b);
	return ok;
}

bool
ntfy_say(struct ntfy *n, const struct view *v, const char *words, char *why,
    size_t whylen)
{
	struct buf	 b = { 0 };
	bool		 ok;

	head(&b, n, v, 2);	/* seen, not rung */
	buf_puts(&b, ",\"message\":");
	buf_json_cstr(&b, words);
	buf_puts(&b, "}");
	ok = post(n, &b, why, whylen);
	buf_free(&b);
	return ok;
}

/* ---- the answer topic, read by a child ---- */

struct stream {
	int		 fd;		/* the pipe to arc-notify */
	struct buf	 line;
	bool		 skipping;	/* a line too long, to its end */
	char		 last[64];	/* the last message's id */
};

/* One line of the stream: a message goes on, its id remembered. */
static void
stream_line(struct stream *s)
{
	struct arena		 a = { 0 };
	struct jparse_error	 pe;
	struct jval		*v, *id;

	v = json_parse(&a, s->line.p, s->line.len, &pe);
	if (v != NULL && v->type == J_OBJECT && json_is(json_get(v, "event"),
	    "message") && (id = json_get(v, "id")) != NULL &&
	    id->type == J_STRING && id->len > 0 && id->len < sizeof(s->last) &&
	    strspn(id->s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789") >= id->len) {
		buf_putc(&s->line, '\n');
		if (!write_all(s->fd, s->line.p, s->line.len))
			_exit(0);	/* arc-notify is gone */
		memcpy(s->last, id->s, id->len);
		s->last[id->len] = '\0';
	}
	arena_free(&a);
}

static size_t
stream_data(char *p, size_t size, size_t nmemb, void *arg)
{
	struct stream	*s = arg;
	size_t		 n = size * nmemb, i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n') {
			if (!s->skipping && s->line.len > 0)
				stream_line(s);
			s->line.len = 0;
			s->skipping = false;
		} else if (s->line.len >= TAP_LINE_MAX)
			s->skipping = true;
		else if (!s->skipping)
			buf_putc(&s->line, p[i]);
	}
	return n;
}

static void
listen_loop(struct ntfy *n, const char *since, int fd)
{
	struct stream		 s = { .fd = fd };
	struct curl_slist	*hd = NULL;
	struct buf		 url = { 0 };
	CURLcode		 rc;
	unsigned		 backoff = 1;
	long			 code;

	(void)strlcpy(s.last, since, sizeof(s.last));
	for (;;) {
		url.len = 0;
		buf_printf(&url, "%s/%s/json?since=%s", n->conf->server,
		    n->conf->answers, s.last);
		curl_easy_reset(n->curl);
		hd = NULL;
		code = 0;
		s.line.len = 0;
		s.skipping = false;
		if (!common(n->curl, url.p, &hd, n->token) ||
		    curl_easy_setopt(n->curl, CURLOPT_WRITEFUNCTION,
		    stream_data) != CURLE_OK ||
		    curl_easy_setopt(n->curl, CURLOPT_WRITEDATA, &s) !=
		    CURLE_OK ||
		    curl_easy_setopt(n->curl, CURLOPT_LOW_SPEED_LIMIT, 1L) !=
		    CURLE_OK ||
		    curl_easy_setopt(n->curl, CURLOPT_LOW_SPEED_TIME,
		    (long)QUIET_S) != CURLE_OK ||
		    curl_easy_setopt(n->curl, CURLOPT_TCP_KEEPALIVE, 1L) !=
		    CURLE_OK)
		{
			warnx("ntfy: libcurl: a request not made");
			_exit(EXIT_SYSTEM);
		}
		rc = curl_easy_perform(n->curl);
		(void)curl_easy_getinfo(n->curl, CURLINFO_RESPONSE_CODE, &code);
		curl_slist_free_all(hd);
		if (rc == CURLE_OK && code == 200)
			backoff = 1;	/* it ran, and ended: again now */
		else if (code == 401 || code == 403)
			warnx("ntfy: the answer topic refused us (%ld): the "
			    "token, or its access to the topic", code);
		else if (code != 0 && code != 200 && (backoff == 1 ||
		    backoff == BACKOFF_MAX_S))
			warnx("ntfy: the answer topic: the server answered "
			    "%ld; trying again", code);
		else if (rc != CURLE_OK && backoff >= 8)
			warnx("ntfy: the answer topic: %s; trying again",
			    curl_easy_strerror(rc));
		(void)sleep(backoff);
		backoff = backoff * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S :
		    backoff * 2;
	}
}

pid_t
ntfy_listen(struct ntfy *n, const char *since, int *fd)
{
	sigset_t	 block, old;
	pid_t		 pid, parent = getpid();
	int		 p[2];

	if (pipe2(p, O_CLOEXEC) == -1)
		err(EXIT_SYSTEM, "pipe2");
	/* no signal reaches the child before its own handlers are set */
	(void)sigemptyset(&block);
	(void)sigaddset(&block, SIGTERM);
	(void)sigaddset(&block, SIGINT);
	(void)sigaddset(&block, SIGHUP);
	(void)sigprocmask(SIG_BLOCK, &block, &old);
	if ((pid = fork()) == -1)
		err(EXIT_SYSTEM, "fork");
	if (pid == 0) {
		(void)close(p[0]);
		(void)signal(SIGTERM, SIG_DFL);
		(void)signal(SIGINT, SIG_DFL);
		(void)signal(SIGHUP, SIG_DFL);
		/* (unblocked even when the caller had them blocked) */
		(void)sigprocmask(SIG_UNBLOCK, &block, NULL);
		/* it ends with arc-notify, which owns what it reads */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 ||
		    getppid() != parent)
			_exit(0);
		/*
		 * A handle of its own: the parent's may hold a connection
		 * (and its TLS state) that the parent goes on using.
		 */
		if ((n->curl = curl_easy_init()) == NULL) {
			warnx("ntfy: libcurl could not start");
			_exit(EXIT_SYSTEM);
		}
		listen_loop(n, since, p[1]);
		_exit(0);
	}
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	(void)close(p[1]);
	*fd = p[0];
	return pid;
}

bool
ntfy_tap(struct arena *a, const char *line, size_t len, struct ntfy_tap *t)
{
	struct jparse_error	 pe;
	struct jval		*v, *m, *body, *key, *tag, *choice;

	memset(t, 0, sizeof(*t));
	if ((v = json_parse(a, line, len, &pe)) == NULL ||
	    v->type != J_OBJECT || (m = json_get(v, "id")) == NULL ||
	    m->type != J_STRING)
		return false;
	t->id = sv_cstr(a, sv_json(m));
	if ((m = json_get(v, "message")) == NULL || m->type != J_STRING ||
	    (body = json_parse(a, m->s, m->len, &pe)) == NULL ||
	    body->type != J_OBJECT || !json_is(json_get(body, "arc"), "tap"))
		return true;	/* a message, not a tap */
	key = json_get(body, "key");
	tag = json_get(body, "tag");
	choice = json_get(body, "choice");
	if (key == NULL || key->type != J_STRING || memchr(key->s, '\0',
	    key->len) != NULL || tag == NULL || tag->type != J_STRING ||
	    tag->len != TAG_SHOWN || strspn(tag->s, "0123456789abcdef") <
	    TAG_SHOWN || choice == NULL || choice->type != J_STRING ||
	    memchr(choice->s, '\0', choice->len) != NULL)
		return true;
	t->key = sv_cstr(a, sv_json(key));
	t->tag = sv_cstr(a, sv_json(tag));
	t->choice = sv_cstr(a, sv_json(choice));
	return true;
}

/* ---- set-up ---- */

/* A topic name nobody guesses: 20 characters of [a-z2-7], 100 bits. */
static void
secret_topic(char out[21])
{
	static const char	 alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
	uint8_t			 r[20];
	size_t			 i;

	arc4random_buf(r, sizeof(r));
	for (i = 0; i < 20; i++)
		out[i] = alphabet[r[i] & 31];
	out[20] = '\0';
}

void
ntfy_setup(FILE *fp, const char *server)
{
	char	 t[21];
	size_t	 n = strlen(server);

	while (n > 0 && server[n - 1] == '/')
		n--;
	secret_topic(t);
	fprintf(fp,
	    "# arc through ntfy: add these lines to notify.conf\n"
	    "# ($XDG_CONFIG_HOME/arc/notify.conf, arc-notify.conf(5)).\n"
	    "ntfy %.*s arc-%s answers arc-%s-a\n"
	    "notify ntfy question\n"
	    "notify ntfy notice priority >= high\n"
	    "#\n"
	    "# In the ntfy app on the phone: + (subscribe to topic), use\n"
	    "# another server if it is not ntfy.sh (%.*s), topic arc-%s.\n"
	    "# A question then comes with a button a choice; a tap answers.\n"
	    "#\n"
	    "# Whoever knows the topic's name reads the questions and can\n"
	    "# answer them: on a public server the name is the only secret.\n"
	    "# On a server of your own, deny everyone by default and give\n"
	    "# the host and the phone tokens (arc-notify(1), SECURITY):\n"
	    "#   ntfy access HOSTUSER 'arc-%s*' rw\n"
	    "#   ntfy access PHONEUSER arc-%s ro\n"
	    "#   ntfy access PHONEUSER arc-%s-a wo\n"
	    "# and add to the ntfy line: token FILE tap-token FILE (mode 600).\n",
	    (int)n, server, t, t, (int)n, server, t, t, t, t);
}
