/*
 * arc-web: the questions that wait for a person, as a page a web server
 * serves by CGI, and the person's taps on it applied as answers.
 *
 * GET shows what needs the person, most urgent first as the picker orders
 * it, each choice a button of a form that POSTs; the answer is bound to
 * the question shown by its tag (arcbind.c), so that a question changed
 * since the page was drawn is never answered: the page shows the new one.
 * The event is built as arc-answer builds it, with the digest and nonce
 * read from the journal here; neither is ever in a page or a response.
 * Authentication is the web server's (REMOTE_USER); a cross-site form is
 * refused by its Origin and by a token, an HMAC of the user under a key
 * kept beside the journal.  Every producer string is HTML-escaped.  What
 * a page shows is what the off-device setting lets leave the host
 * (arcoffdevice.c): a question whose text is withheld is shown without
 * buttons, and a POST for it is refused.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <poll.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcrules.h"
#include "arcjournal.h"
#include "arcfilter.h"
#include "arcusage.h"
#include "arcvia.h"
#include "arcwords.h"
#include "arcbind.h"
#include "arcoffdevice.h"
#include "arcview.h"
#include "arcwaiter.h"
#include "arcnarrow.h"

#define BODY_MAX	(64 * 1024)	/* a larger request is refused */
#define FIELD_MAX	(16 * 1024)
#define SHOWN_MAX	200		/* questions on one page */

/*
 * The page's style and script, web/arc.css and web/arc.js, as arrays of
 * their bytes (web_arc_css, web_arc_js), made by the Makefile (web/embed).
 */
#include "web/assets.inc"

struct form {
	char	*op, *key, *seen, *choice, *text, *token;
};

/* ---- HTML ---- */

static void
html_str(struct buf *b, const char *s)
{
	view_html(b, sv_str(s));
}

/* ---- the token ---- */

static void
hmac_sha256(const uint8_t *key, size_t keylen, const char *msg,
    uint8_t out[SHA256_DIGEST_LENGTH])
{
	SHA2_CTX	 ctx;
	uint8_t		 k[64] = { 0 }, pad[64], inner[SHA256_DIGEST_LENGTH];
	size_t		 i;

	if (keylen > sizeof(k)) {
		SHA256Init(&ctx);
		SHA256Update(&ctx, key, keylen);
		SHA256Final(k, &ctx);
	} else
		memcpy(k, key, keylen);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	SHA256Init(&ctx);
	SHA256Update(&ctx, pad, 64);
	SHA256Update(&ctx, (const uint8_t *)msg, strlen(msg));
	SHA256Final(inner, &ctx);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	SHA256Init(&ctx);
	SHA256Update(&ctx, pad, 64);
	SHA256Update(&ctx, inner, sizeof(inner));
	SHA256Final(out, &ctx);
	explicit_bzero(k, sizeof(k));
	explicit_bzero(pad, sizeof(pad));
}

/*
 * The key beside the journal (web.key, mode 0600, ours alone), made the
 * first time; false when it cannot be had.
 */
static bool
web_key(const char *journal, uint8_t key[32])
{
	char		*dir = parent_of(journal), path[4096];
	struct stat	 sb;
	ssize_t		 r;
	int		 fd;

	if (dir == NULL)
		return false;
	if (snprintf(path, sizeof(path), "%s/web.key", dir) >=
	    (int)sizeof(path)) {
		free(dir);
		return false;
	}
	free(dir);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno != ENOENT || !make_parents(journal))
			return false;	/* make_parents said why */
		arc4random_buf(key, 32);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600)) == -1) {
			if (errno != EEXIST)
				return false;
			return web_key(journal, key);	/* another made it */
		}
		if (!write_all(fd, (const char *)key, 32) || fsync(fd) == -1) {
			(void)close(fd);
			(void)unlink(path);
			return false;
		}
		return close(fd) == 0;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (sb.st_mode & 077) != 0 || sb.st_uid != geteuid() ||
	    (r = read(fd, key, 32)) != 32) {
		warnx("%s: not a key of ours alone (mode 0600, 32 bytes)",
		    path);
		(void)close(fd);
		return false;
	}
	return close(fd) == 0;
}

/*
 * A form's token: the HMAC of the user and the hour it was drawn in, so
 * that a token read once is good for an hour or two only (the current
 * window and the one before are taken); arc-web --rotate makes a new key,
 * and with it every token drawn before worthless.
 */
#define TOKEN_SECONDS	3600

static void
token_of(const uint8_t key[32], const char *user, int64_t window,
    char out[65])
{
	uint8_t		 mac[SHA256_DIGEST_LENGTH];
	char		*msg;
	size_t		 i;

	if (asprintf(&msg, "%s\n%lld", user, (long long)window) == -1)
		err(EXIT_SYSTEM, "asprintf");
	hmac_sha256(key, 32, msg, mac);
	free(msg);
	for (i = 0; i < sizeof(mac); i++)
		(void)snprintf(out + 2 * i, 3, "%02x", mac[i]);
}

static int64_t
token_window(void)
{
	return instant_seconds(arc_now()) / TOKEN_SECONDS;
}

static bool
token_good(const uint8_t key[32], const char *user, const char *got)
{
	char	want[65];
	int64_t	w = token_window();
	bool	ok;

	token_of(key, user, w, want);
	ok = secret_equal(want, strlen(want), got, strlen(got));
	token_of(key, user, w - 1, want);
	ok = secret_equal(want, strlen(want), got, strlen(got)) || ok;
	explicit_bzero(want, sizeof(want));
	return ok;
}

/* arc-web --rotate: a new key over the old, atomically; old tokens die. */
static int
key_rotate(const char *journal)
{
	char	*dir = parent_of(journal), path[4096], *tmp;
	uint8_t	 key[32];
	int	 fd;

	if (snprintf(path, sizeof(path), "%s/web.key", dir) >=
	    (int)sizeof(path))
		errx(EXIT_USAGE, "%s: the key's path is too long", dir);
	free(dir);
	if (!make_parents(journal) ||
	    (fd = open_temporary(path, "new", &tmp)) == -1)
		return EXIT_SYSTEM;
	arc4random_buf(key, sizeof(key));
	if (!write_all(fd, (const char *)key, sizeof(key)) || fsync(fd) == -1 ||
	    close(fd) == -1 || rename(tmp, path) == -1 || !sync_parent(path)) {
		warn("%s", path);
		(void)unlink(tmp);
		free(tmp);
		return EXIT_SYSTEM;
	}
	explicit_bzero(key, sizeof(key));
	free(tmp);
	return 0;
}

/* ---- the request ---- */

static const char *
env(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL ? v : "";
}

/* Who answers: REMOTE_USER; else "" if ARC_WEB_ANONYMOUS=1 allows it. */
static const char *
web_user(void)
{
	const char	*u = getenv("REMOTE_USER");

	if (u != NULL && *u != '\0')
		return u;
	if (strcmp(env("ARC_WEB_ANONYMOUS"), "1") == 0)
		return "";
	return NULL;
}

/* ---- the page's own origin ---- */

#define ORIGIN_MAX	256

/* scheme://host[:port], http or https, no path: as a browser's Origin. */
static bool
origin_valid(const char *s, size_t n)
{
	const char	*p, *end = s + n;
	size_t		 k;

	if (n > 8 && strncmp(s, "https://", 8) == 0)
		p = s + 8;
	else if (n > 7 && strncmp(s, "http://", 7) == 0)
		p = s + 7;
	else
		return false;
	if (*p == '[') {	/* an IPv6 literal */
		k = strspn(p + 1, "0123456789abcdefABCDEF:.");
		if (k == 0 || p + 1 + k >= end || p[1 + k] != ']')
			return false;
		p += k + 2;
	} else {
		k = strspn(p, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
		if (k == 0 || *p == '.' || *p == '-')
			return false;
		p += k;
	}
	if (p < end && *p == ':') {
		k = strspn(p + 1, "0123456789");
		if (k == 0 || k > 5)
			return false;
		p += k + 1;
	}
	return p == end;
}

/*
 * The origin the page is served at ("https://phone.example:8443"), from
 * ARC_WEB_ORIGIN, else the file web-origin beside the journal, read as
 * the off-device setting is (ours or root's, nobody else may write it):
 * one origin, blank lines and # comments around it.  Requests are checked
 * against it, never against what they say of themselves: under lighttpd
 * without server.name, SERVER_NAME is whatever Host the client sent.
 * 1: set; 0: none; -1: not an origin (said why).
 */
static int
origin_read(const char *journal, char out[ORIGIN_MAX])
{
	const char	*v = getenv("ARC_WEB_ORIGIN"), *p, *w = NULL;
	char		 text[1024];
	size_t		 n = 0, i;
	int		 r;

	if (v != NULL) {
		if (strlen(v) >= sizeof(text)) {
			warnx("ARC_WEB_ORIGIN: too long");
			return -1;
		}
		(void)strcpy(text, v);
	} else if ((r = setting_file(journal, "web-origin", text,
	    sizeof(text))) <= 0)
		return r;
	for (p = text; *(p += strspn(p, " \t\r\n")) != '\0';) {
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		if (w != NULL)
			goto bad;	/* a second word */
		w = p;
		n = strcspn(p, " \t\r\n");
		p += n;
	}
	if (w == NULL || n >= ORIGIN_MAX || !origin_valid(w, n))
		goto bad;
	for (i = 0; i < n; i++)
		out[i] = (w[i] >= 'A' && w[i] <= 'Z') ? (char)(w[i] + 32) :
		    w[i];
	out[n] = '\0';
	return 1;
bad:
	warnx("%s: not an origin (scheme://host[:port], http or https)",
	    v != NULL ? "ARC_WEB_ORIGIN" : "web-origin");
	return -1;
}

/* The request was made to the page's own origin: its Host, its Origin. */
static bool
at_origin(const char *origin)
{
	const char	*o = getenv("HTTP_ORIGIN");

	return strcasecmp(env("HTTP_HOST"), strstr(origin, "://") + 3) == 0 &&
	    (o == NULL || strcasecmp(o, origin) == 0);
}

/* A form's value, decoded; NULL when it is not well formed. */
static char *
form_decode(const char *s, size_t n)
{
	char	*out, *o;
	size_t	 i;
	int	 h, l;

	if (n > FIELD_MAX || (out = malloc(n + 1)) == NULL)
		return NULL;
	for (i = 0, o = out; i < n; i++) {
		if (s[i] == '+')
			*o++ = ' ';
		else if (s[i] == '%') {
			if (i + 2 >= n || (h = hex_digit(s[i + 1])) < 0 ||
			    (l = hex_digit(s[i + 2])) < 0) {
				free(out);
				return NULL;
			}
			*o++ = (char)(h * 16 + l);
			i += 2;
		} else
			*o++ = s[i];
	}
	*o = '\0';
	if (strlen(out) != (size_t)(o - out)) {	/* a NUL inside */
		free(out);
		return NULL;
	}
	return out;
}

static bool
form_parse(const char *body, size_t len, struct form *f)
{
	const char	*p = body, *end = body + len, *amp, *eq;
	char		**slot, *v;

	while (p < end) {
		if ((amp = memchr(p, '&', (size_t)(end - p))) == NULL)
			amp = end;
		if ((eq = memchr(p, '=', (size_t)(amp - p))) == NULL)
			eq = amp;
#define NAMED(s) ((size_t)(eq - p) == strlen(s) && memcmp(p, s, strlen(s)) == 0)
		slot = NAMED("op") ? &f->op : NAMED("key") ? &f->key :
		    NAMED("seen") ? &f->seen : NAMED("choice") ? &f->choice :
		    NAMED("text") ? &f->text : NAMED("token") ? &f->token : NULL;
#undef NAMED
		if (slot != NULL) {
			if (*slot != NULL || (v = form_decode(eq < amp ?
			    eq + 1 : amp, eq < amp ? (size_t)(amp - eq - 1) :
			    0)) == NULL)
				return false;
			*slot = v;
		}
		p = amp + 1;
	}
	return true;
}

static void
form_free(struct form *f)
{
	free(f->op);
	free(f->key);
	free(f->seen);
	free(f->choice);
	free(f->text);
	free(f->token);
}

/*
 * A POST from the page's own origin, as a browser sends it in Origin: the
 * setting's, when there is one, else the one the request's Host makes.
 * Without Origin (an old browser, or a script), the token alone decides,
 * unless Sec-Fetch-Site says the form came from anywhere but this origin.
 */
static bool
same_origin(const char *own)
{
	const char	*origin = getenv("HTTP_ORIGIN"), *host = env("HTTP_HOST");
	const char	*site = env("HTTP_SEC_FETCH_SITE");
	char		 want[512];
	bool		 tls = strcmp(env("HTTPS"), "on") == 0 ||
			    strcmp(env("REQUEST_SCHEME"), "https") == 0;

	if (origin == NULL)
		return *site == '\0' || strcmp(site, "same-origin") == 0;
	if (*own != '\0')
		return strcasecmp(origin, own) == 0;
	if (*host == '\0' || snprintf(want, sizeof(want), "%s://%s",
	    tls ? "https" : "http", host) >= (int)sizeof(want))
		return false;
	return strcmp(origin, want) == 0;
}

/* ---- responses ---- */

static void
headers(struct buf *b, const char *status, const char *type)
{
	buf_printf(b, "Status: %s\r\n", status);
	buf_printf(b, "Content-Type: %s\r\n", type);
	buf_puts(b, "Content-Security-Policy: default-src 'none'; "
	    "style-src 'self'; script-src 'self'; connect-src 'self'; "
	    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'\r\n"
	    "X-Content-Type-Options: nosniff\r\n"
	    "Referrer-Policy: same-origin\r\n"
	    "Cache-Control: no-store\r\n");
}

static void
send_buf(const struct buf *b)
{
	if (b->len > 0 && !write_all(STDOUT_FILENO, b->p, b->len))
		exit(EXIT_SYSTEM);
}

static int
plain(const char *status, const char *words)
{
	struct buf	 b = { 0 };

	headers(&b, status, "text/plain; charset=utf-8");
	buf_printf(&b, "\r\n%s\n", words);
	send_buf(&b);
	buf_free(&b);
	return 0;
}

/* A form value in a URL's query. */
static void
url_put(struct buf *b, const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("-._~", *s) != NULL)
			buf_putc(b, *s);
		else
			buf_printf(b, "%%%02X", (unsigned char)*s);
}

/*
 * After a POST: 303 to the page, with what became of it as a word, and
 * the key it was about (the banner names it).  Never the choice: an
 * answer has no place in a URL a web server logs; the banner reads the
 * choice the journal recorded.
 */
static int
see_page(const char *said, const struct form *f)
{
	struct buf	 b = { 0 };

	buf_puts(&b, "Status: 303 See Other\r\n");
	buf_printf(&b, "Location: %s?said=%s", env("SCRIPT_NAME"), said);
	if (f != NULL && f->key != NULL) {
		buf_puts(&b, "&key=");
		url_put(&b, f->key);
	}
	buf_puts(&b, "\r\n");
	buf_puts(&b, "Cache-Control: no-store\r\nContent-Length: 0\r\n\r\n");
	send_buf(&b);
	buf_free(&b);
	return 0;
}

static const struct said {
	const char	*word, *words;
} saids[] = {
	{ "answered", "Answered." },
	{ "dismissed", "Dismissed." },
	{ "changed", "The question changed since the page showed it: "
	    "nothing was sent. Here it is as it is now." },
	{ "closed", "That question is no longer open: nothing was sent." },
	{ "refused", "The answer was refused: nothing was sent." },
	{ "sent", "Answered: sent to the question's host." },
	{ "mirrored", "A question of another host, with no route to it: "
	    "answer it there (nothing was sent)." },
	{ "withheld", "That question's text does not leave its host "
	    "(the off-device setting): answer it there (nothing was sent)." },
};

/* ---- the page ---- */

struct item {
	const struct condition	*c;
	struct rec		 n, q;
	bool			 has_q;		/* a question open now */
	bool			 ended_q;	/* one that was: q is its record */
	enum qstatus		 qs;
	struct arc_instant	 deadline;	/* a question's, parsed once */
	struct view		 v;	/* what it shows (arcview.c) */
};

/* Sorts pointers: an item is large, and its deadline is parsed once. */
static int
by_urgency(const void *a, const void *b)
{
	const struct item	*x = *(const struct item *const *)a;
	const struct item	*y = *(const struct item *const *)b;
	int			 c;

	if (x->has_q != y->has_q)
		return x->has_q ? -1 : 1;
	if (x->c->priority != y->c->priority)
		return x->c->priority > y->c->priority ? -1 : 1;
	if (x->has_q && (c = instant_cmp(&x->deadline, &y->deadline)) != 0)
		return c;
	return strcmp(x->c->key, y->c->key);
}

static void
hidden(struct buf *b, const char *name, const char *value)
{
	buf_puts(b, "<input type=\"hidden\" name=\"");
	buf_puts(b, name);	/* ours: a word */
	buf_puts(b, "\" value=\"");
	html_str(b, value);
	buf_puts(b, "\">");
}

static void
card_head(struct buf *b, const struct item *it, const char *now)
{
	const struct view	*v = &it->v;
	struct buf		 who = { 0 };
	char			 left[64];

	buf_puts(b, "<div class=\"meta\">");
	if (it->has_q && v->expires_at != NULL) {
		time_left(left, sizeof(left), v->expires_at, now);
		buf_puts(b, "<span class=\"left\">");
		html_str(b, left);
		buf_puts(b, " left</span>");
	}
	if (it->has_q && v->waiting == 0)
		buf_puts(b, "<span class=\"nowait\">no one is waiting "
		    "now</span>");
	buf_puts(b, "<span class=\"who\">");
	view_origin(&who, v);
	view_html(b, (struct sv){ who.p, who.len });
	buf_free(&who);
	buf_puts(b, "</span></div><div class=\"title\">");
	view_html(b, v->title);
	buf_puts(b, "</div>");
	if (v->message.p != NULL) {
		buf_puts(b, "<div class=\"msg\">");
		view_html(b, v->message);
		buf_puts(b, "</div>");
	}
}

/* What tells a question shown from one the page did not show before. */
static void
card_id(struct buf *b, const struct item *it)
{
	buf_puts(b, "\" data-key=\"");
	html_str(b, it->c->key);
	buf_puts(b, "\" data-id=\"");
	html_str(b, it->c->key);
	buf_putc(b, ' ');
	view_html(b, it->has_q ? it->q.f[I_ID] : it->n.f[N_ID]);
	buf_putc(b, ' ');
	view_html(b, it->has_q ? it->q.f[I_UPDATED_AT] : it->n.f[N_UPDATED_AT]);
}

/*
 * A question that cannot be answered from here (the off-device setting
 * keeps its text on its host, it is not a kind the page can show whole,
 * or the server names no user to answer as): what may leave of it, why,
 * and no form.
 */
static void
held_card(struct buf *b, const struct item *it, const char *now,
    bool answers)
{
	const struct view	*v = &it->v;
	size_t			 i;

	buf_puts(b, "<div class=\"q");
	card_id(b, it);
	buf_puts(b, "\">");
	card_head(b, it, now);
	if (v->nchoices > 0) {
		buf_puts(b, "<div class=\"held-choices\">");
		for (i = 0; i < v->nchoices; i++) {
			buf_puts(b, i > 0 ? " &middot; " : "");
			view_html(b, v->choices[i].label);
		}
		buf_puts(b, "</div>");
	}
	if (v->withheld)
		buf_puts(b, "<p class=\"held\">Its text stays on its host "
		    "(off-device setting): answer it there.</p></div>\n");
	else if (!answers)
		buf_puts(b, "<p class=\"held\">No answer from this page: it "
		    "has no login (see above).</p></div>\n");
	else
		buf_puts(b, "<p class=\"held\">This page cannot show this "
		    "question whole: answer it on its host.</p></div>\n");
}

static void
question_card(struct buf *b, const struct item *it, const char *token,
    const char *now)
{
	const struct view	*v = &it->v;
	size_t			 i;

	if (!view_answerable(v) || *token == '\0') {
		held_card(b, it, now, *token != '\0');
		return;
	}
	buf_puts(b, "<form class=\"q\" method=\"post");
	card_id(b, it);
	buf_puts(b, "\">");
	card_head(b, it, now);
	hidden(b, "op", "answer");
	hidden(b, "key", it->c->key);
	hidden(b, "seen", v->tag);
	hidden(b, "token", token);
	if (strcmp(v->answer_kind, "text") != 0) {
		/* each choice a button, its detail under it: all alike */
		for (i = 0; i < v->nchoices; i++) {
			buf_puts(b, "<button type=\"submit\" name=\"choice\" "
			    "value=\"");
			view_html(b, v->choices[i].id);
			buf_puts(b, "\">");
			view_html(b, v->choices[i].label);
			buf_puts(b, "</button>");
			if (v->choices[i].detail.p != NULL) {
				buf_puts(b, "<div class=\"detail\">");
				view_html(b, v->choices[i].detail);
				buf_puts(b, "</div>");
			}
		}
	} else {
		buf_printf(b, "<input type=\"text\" name=\"text\" "
		    "maxlength=\"%zu\" required aria-label=\"answer\">"
		    "<button type=\"submit\">Send</button>",
		    v->text_max > 0 && v->text_max <= FIELD_MAX ? v->text_max :
		    (size_t)FIELD_MAX);
	}
	buf_puts(b, "</form>\n");
}

/*
 * What a notice is, or what became of a question that is no longer open
 * ("expired 4 minutes ago", "answered 2 minutes ago; Claude Code took
 * it..."), in words: never mistaken for a question still open.
 */
static void
notice_state(struct buf *b, const struct item *it, const char *now)
{
	struct buf	 w = { 0 };

	condition_words(&w, it->c, &it->n, it->ended_q ? &it->q : NULL,
	    it->ended_q ? it->qs : Q_NONE, now);
	buf_puts(b, "<div class=\"state\">");
	view_html(b, (struct sv){ w.p, w.len });
	buf_puts(b, "</div>");
	buf_free(&w);
}

static void
notice_card(struct buf *b, const struct item *it, const char *token,
    const char *now)
{
	const char	*class = it->ended_q ? "n ended" : "n";
	/* a mirror's is settled by its host; without a login, nobody's */
	bool		 form = it->c->route == NULL && *token != '\0';

	buf_printf(b, form ? "<form class=\"%s\" method=\"post" :
	    "<div class=\"%s", class);
	card_id(b, it);
	buf_puts(b, "\">");
	card_head(b, it, now);
	notice_state(b, it, now);
	if (!form) {
		buf_puts(b, it->c->route != NULL ? "<p class=\"held\">On "
		    "another host: it is settled there.</p></div>\n" :
		    "</div>\n");
		return;
	}
	hidden(b, "op", "dismiss");
	hidden(b, "key", it->c->key);
	hidden(b, "token", token);
	buf_puts(b, "<button type=\"submit\">Dismiss</button></form>\n");
}

/* What the page was drawn from: the file and its last record. */
static void
version(struct buf *b, const struct journal *j)
{
	buf_printf(b, "%llu.%llu.%llu", (unsigned long long)j->ino,
	    (unsigned long long)j->seq, (unsigned long long)j->offset);
}

#define EVENTS_SECONDS	55	/* then the browser connects again */
#define EVENTS_BEAT_MS	250	/* a comment line: the server must pass it on */
#define STREAMS_MAX	4	/* streams a user may hold; the oldest goes */

/* ---- a user's streams: at most STREAMS_MAX, the oldest closed first ---- */

/*
 * A stream holds one of its user's STREAMS_MAX slots, the files
 * web.streams/USER.N beside the journal (USER: the start of the SHA-256
 * of the user, in hex), by flock(2), with its stamp written in it: when it
 * started, its pid, random bytes.  A newcomer, under USER.lock, takes a
 * free slot, or writes its stamp into the oldest one: that stream sees on
 * its next beat that the slot is no longer its own and ends, and the
 * newcomer takes the lock it leaves.
 */
struct slot {
	int	fd;
	char	stamp[64];
};

static int
slot_open(const char *dir, const char *user, const char *what)
{
	char	path[4200];

	if (snprintf(path, sizeof(path), "%s/%s.%s", dir, user, what) >=
	    (int)sizeof(path))
		return -1;
	return open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static bool
slot_is(int fd, const char *stamp)
{
	char	got[64];
	ssize_t	r = pread(fd, got, sizeof(got) - 1, 0);

	if (r < 0)
		return false;
	got[r] = '\0';
	return strcmp(got, stamp) == 0;
}

static bool
slot_write(int fd, const char *stamp)
{
	size_t	n = strlen(stamp);

	return ftruncate(fd, 0) == 0 && pwrite(fd, stamp, n, 0) == (ssize_t)n;
}

static bool
slot_take(const char *journal, const char *who, struct slot *s)
{
	SHA2_CTX	 ctx;
	uint8_t		 h[SHA256_DIGEST_LENGTH];
	char		*up, *dir, user[17], num[8], got[64];
	long long	 start, oldest = -1;
	int		 lock, fd, k, victim = -1, tries;
	ssize_t		 r;

	SHA256Init(&ctx);
	SHA256Update(&ctx, (const uint8_t *)who, strlen(who));
	SHA256Final(h, &ctx);
	for (k = 0; k < 8; k++)
		(void)snprintf(user + 2 * k, 3, "%02x", h[k]);
	(void)snprintf(s->stamp, sizeof(s->stamp), "%lld %ld %08x\n",
	    (long long)monotonic_ms(), (long)getpid(), arc4random());
	up = parent_of(journal);
	if (asprintf(&dir, "%s/web.streams", up) == -1)
		err(EXIT_SYSTEM, "asprintf");
	free(up);
	s->fd = -1;
	if ((mkdir(dir, 0700) == -1 && errno != EEXIST) ||
	    (lock = slot_open(dir, user, "lock")) == -1) {
		free(dir);
		return false;
	}
	while (flock(lock, LOCK_EX) == -1 && errno == EINTR)
		;
	for (k = 0; k < STREAMS_MAX && s->fd == -1; k++) {
		(void)snprintf(num, sizeof(num), "%d", k);
		if ((fd = slot_open(dir, user, num)) == -1)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 && slot_write(fd,
		    s->stamp)) {
			s->fd = fd;
			break;
		}
		r = pread(fd, got, sizeof(got) - 1, 0);
		got[r > 0 ? r : 0] = '\0';
		start = strtoll(got, NULL, 10);
		if (victim == -1 || start < oldest) {
			if (victim != -1)
				(void)close(victim);
			victim = fd;
			oldest = start;
		} else
			(void)close(fd);
	}
	if (s->fd == -1 && victim != -1 && slot_write(victim, s->stamp)) {
		/* the oldest's holder ends on its next beat */
		for (tries = 0; tries < 40; tries++) {
			if (flock(victim, LOCK_EX | LOCK_NB) == 0) {
				(void)slot_write(victim, s->stamp);
				s->fd = victim;
				victim = -1;
				break;
			}
			(void)poll(NULL, 0, 50);
		}
	}
	if (victim != -1)
		(void)close(victim);
	(void)close(lock);
	free(dir);
	return s->fd != -1;
}

/*
 * ?events: the journal's version now, and again each time it changes,
 * as a text/event-stream; a comment line every EVENTS_BEAT_MS besides,
 * which the server passes on to the browser: when the browser has gone,
 * writing it fails there, the server closes our output, and our next
 * write (or the poll of our output) ends us, within a second.  Ends
 * after EVENTS_SECONDS too, and when a newer stream of the same user
 * takes its slot.
 */
static int
events(const char *journal)
{
	struct journal	 j;
	struct buf	 b = { 0 }, v = { 0 }, last = { 0 };
	struct slot	 slot;
	char		*copy, *base;
	const char	*user = web_user();
	int64_t		 end = monotonic_ms() + EVENTS_SECONDS * 1000;
	int		 fd;

	if ((copy = strdup(journal)) == NULL ||
	    (base = strdup(basename(copy))) == NULL)
		err(EXIT_SYSTEM, "strdup");
	free(copy);
	if (!journal_open(&j, journal, false)) {
		free(base);
		return plain("500 Internal Server Error",
		    "The journal cannot be read.");
	}
	if (!slot_take(journal, user != NULL ? user : "", &slot)) {
		free(base);
		journal_close(&j);
		return plain("503 Service Unavailable", "Too many streams "
		    "open: try again.");
	}
	fd = folder_watch(journal);
	buf_puts(&b, "Status: 200 OK\r\nContent-Type: text/event-stream\r\n"
	    "Cache-Control: no-store\r\nX-Accel-Buffering: no\r\n\r\n"
	    "retry: 1000\n\n");
	while (monotonic_ms() < end && slot_is(slot.fd, slot.stamp)) {
		if (!journal_lock(&j, false))
			break;
		v.len = 0;
		version(&v, &j);
		journal_unlock(&j);
		if (last.len != v.len || memcmp(last.p, v.p, v.len) != 0) {
			buf_printf(&b, "data: %.*s\n\n", (int)v.len, v.p);
			last.len = 0;
			buf_put(&last, v.p, v.len);
		} else
			buf_puts(&b, ":\n\n");
		send_buf(&b);
		b.len = 0;
		if (!folder_sleep(fd, base, EVENTS_BEAT_MS, STDOUT_FILENO))
			break;
	}
	if (fd != -1)
		(void)close(fd);
	(void)close(slot.fd);
	free(base);
	journal_close(&j);
	buf_free(&b);
	buf_free(&v);
	buf_free(&last);
	return 0;
}

/*
 * The banner names what was decided: after said=WORD, the key (as the
 * POST's redirect carries it), the question's title and the label of the
 * choice the journal recorded, as the view shows them.
 */
static void
said_what(struct buf *b, struct journal *j, struct arena *a,
    const char *said, const struct offdevice *off)
{
	struct form		 f = { 0 };
	struct condition	*c;
	struct rec		 n, q;
	struct view		 v;
	struct jparse_error	 e;
	const struct jval	*r;
	struct sv		 chosen = { NULL, 0 };
	const char		*amp = strchr(said, '&');
	size_t			 i;

	if (amp == NULL || !form_parse(amp + 1, strlen(amp + 1), &f) ||
	    f.key == NULL || (c = state_lookup(j->st, f.key)) == NULL ||
	    c->notification.len == 0 ||
	    journal_rec(j, a, c, false, &n) == NULL)
		goto done;
	if (c->interaction.len == 0 || journal_rec(j, a, c, true, &q) == NULL)
		view_build(&v, a, sv_str(c->key), &n, NULL, Q_NONE, off);
	else
		view_build(&v, a, sv_str(c->key), &n, &q, Q_NONE, off);
	buf_puts(b, " <span class=\"what\">\xe2\x80\x9c");
	view_html(b, v.title);
	buf_puts(b, "\xe2\x80\x9d");
	if (c->interaction.len > 0 && q.f[I_RESPONSE].p != NULL &&
	    (r = json_parse(a, q.f[I_RESPONSE].p, q.f[I_RESPONSE].n, &e)) !=
	    NULL)
		chosen = sv_json(json_get(r, "choice_id"));
	for (i = 0; chosen.p != NULL && i < v.nchoices; i++)
		if (v.choices[i].id.n == chosen.n &&
		    memcmp(v.choices[i].id.p, chosen.p, chosen.n) == 0) {
			buf_puts(b, ": ");
			view_html(b, v.choices[i].label);
		}
	buf_puts(b, "</span>");
	/* and what became of it: the agent took it, or did not */
	if (c->interaction.len > 0) {
		view_handover(&v, a, &q, c->handover, -1);
		if (v.handover.p != NULL) {
			buf_puts(b, "; <span class=\"handover\">");
			view_html(b, v.handover);
			buf_puts(b, "</span>");
		}
	}
done:
	form_free(&f);
}

static int
page(const char *journal, const struct offdevice *off, const char *token,
    const char *said)
{
	struct journal		 j;
	struct arena		 a = { 0 };
	struct buf		 b = { 0 };
	struct item		*v = NULL, **order;
	const struct condition	*c;
	const char		*now = arc_now(), *nt, *qt;
	size_t			 at, n = 0, cap = 0, i, shown = 0;
	enum qstatus		 qs;

	if (!journal_open(&j, journal, false) || !journal_lock(&j, false))
		return plain("500 Internal Server Error",
		    "The journal cannot be read.");
	for (c = j.st ? state_first(j.st, &at) : NULL; c != NULL;
	    c = state_next(j.st, &at)) {
		if (!c->active || c->notification.len == 0)
			continue;
		qs = condition_qstatus(c, now);
		if (qs != Q_PENDING && c->changed + NOTICE_SECONDS <
		    instant_seconds(now))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((v = reallocarray(v, cap, sizeof(*v))) == NULL)
				err(EXIT_SYSTEM, "reallocarray");
		}
		memset(&v[n], 0, sizeof(v[n]));
		v[n].c = c;
		if ((nt = journal_text(&j, &a, c, false)) == NULL ||
		    !rec_parse(&a, nt, false, &v[n].n))
			continue;
		v[n].qs = qs;
		if (qs != Q_NONE) {
			if ((qt = journal_text(&j, &a, c, true)) == NULL ||
			    !rec_parse(&a, qt, true, &v[n].q))
				continue;
			v[n].has_q = qs == Q_PENDING;
			v[n].ended_q = !v[n].has_q;
		}
		if (qs == Q_PENDING) {
			if (!rfc3339_parse(c->expires_at, strlen(c->expires_at),
			    &v[n].deadline))
				errx(EXIT_SYSTEM, "internal error: a stored "
				    "deadline that is not a time");
		}
		/* the one view, within the off-device setting */
		view_build(&v[n].v, &a, sv_str(c->key), &v[n].n, v[n].has_q ?
		    &v[n].q : NULL, qs, off);
		view_handover(&v[n].v, &a, v[n].has_q ? &v[n].q : NULL,
		    c->handover, waiter_present(journal, sv_str(c->key)) ==
		    WAITING_SOMEONE);
		n++;
	}
	if ((order = reallocarray(NULL, n ? n : 1, sizeof(*order))) == NULL)
		err(EXIT_SYSTEM, "reallocarray");
	for (i = 0; i < n; i++)
		order[i] = &v[i];
	if (n > 1)
		qsort(order, n, sizeof(*order), by_urgency);
	headers(&b, "200 OK", "text/html; charset=utf-8");
	buf_puts(&b, "\r\n<!DOCTYPE html>\n<html lang=\"en\"><head>"
	    "<meta charset=\"utf-8\"><meta name=\"viewport\" "
	    "content=\"width=device-width,initial-scale=1\">"
	    "<title>arc</title><link rel=\"stylesheet\" href=\"");
	html_str(&b, env("SCRIPT_NAME"));
	buf_puts(&b, "?css\"><script src=\"");
	html_str(&b, env("SCRIPT_NAME"));
	buf_puts(&b, "?js\" defer></script></head>\n<body data-v=\"");
	version(&b, &j);
	buf_puts(&b, "\" data-events=\"");
	html_str(&b, env("SCRIPT_NAME"));
	buf_puts(&b, "?events\">\n");
	for (i = 0; said != NULL && i < sizeof(saids) / sizeof(saids[0]); i++)
		if (strncmp(said, saids[i].word, strlen(saids[i].word)) == 0 &&
		    (said[strlen(saids[i].word)] == '\0' ||
		    said[strlen(saids[i].word)] == '&')) {
			buf_printf(&b, "<p class=\"say\" id=\"said\" "
			    "data-said=\"%s\">%s", saids[i].word,
			    saids[i].words);
			said_what(&b, &j, &a, said, off);
			buf_puts(&b, "</p>\n");
		}
	for (i = 0; i < n; i++)
		if (v[i].has_q)
			shown++;
	buf_printf(&b, "<h1>%zu question%s waiting</h1>\n", shown,
	    shown == 1 ? "" : "s");
	if (*token == '\0')
		buf_puts(&b, "<p class=\"say\" id=\"nologin\">This page "
		    "only shows: the web server names no user (REMOTE_USER), "
		    "so no answer could be taken.  Put a login in front of "
		    "it (see arc-web(8)).</p>\n");
	buf_puts(&b, "<div id=\"cards\">\n");
	/* questions first (by_urgency), then the notices under a heading */
	for (i = 0; i < n && i < SHOWN_MAX; i++) {
		if (order[i]->has_q) {
			question_card(&b, order[i], token, now);
			continue;
		}
		if (i == 0 || order[i - 1]->has_q)
			buf_puts(&b, "<h2 id=\"notices\">Notices</h2>\n");
		notice_card(&b, order[i], token, now);
	}
	buf_puts(&b, "</div>\n");
	if (n == 0)
		buf_puts(&b, "<p class=\"empty\">Nothing needs you.</p>\n");
	buf_puts(&b, "<p id=\"news\" role=\"status\" hidden></p>\n");
	buf_puts(&b, "</body></html>\n");
	journal_unlock(&j);
	journal_close(&j);
	send_buf(&b);
	buf_free(&b);
	free(order);
	free(v);
	arena_free(&a);
	return 0;
}

/* ---- answers ---- */

static const char *
answer(const struct form *f, const struct offdevice *off, const char *user)
{
	const char	*said;

	if (f->seen == NULL || !tag_valid(f->seen) ||
	    (f->choice == NULL) == (f->text == NULL))
		return "refused";
	said = answer_seen(NULL, &(struct seen_answer){ .key = f->key,
	    .tag = f->seen, .who = { "arc-web", NULL, "web",
	    *user != '\0' ? user : NULL }, .answer = f->text != NULL ?
	    f->text : f->choice, .is_text = f->text != NULL, .off = off,
	    .narrow = true });
	if (strcmp(said, "failed") == 0)
		errx(EXIT_SYSTEM, "the journal cannot be written");
	return said;
}

static const char *
dismiss(const struct form *f, const char *user)
{
	struct journal	 j;
	struct arena	 a = { 0 };
	struct current	 cur;
	struct change	 ch;
	char		*path = journal_default_path(NULL);
	const char	*now = arc_now(), *said = "refused";
	char		 who[300];

	(void)snprintf(who, sizeof(who), "web%s%s", *user ? " " : "", user);
	if (!journal_open(&j, path, true) || !journal_lock(&j, true))
		errx(EXIT_SYSTEM, "the journal cannot be written");
	free(path);
	current_of(&j, &a, sv_str(f->key), &cur);
	if (rules_dismiss(&cur, now, journal_clock(&j, now), who, &ch) ==
	    DISMISS_OK) {
		journal_record(&j, journal_clock(&j, now), &ch);
		said = "dismissed";
	}
	if (!journal_append(&j))
		errx(EXIT_SYSTEM, "the dismissal was not stored");
	journal_unlock(&j);
	journal_close(&j);
	arena_free(&a);
	return said;
}

static int
post(const uint8_t key[32], const struct offdevice *off, const char *origin)
{
	struct form	 f = { 0 };
	const char	*user = web_user(), *said, *cl = env("CONTENT_LENGTH");
	const char	*errstr;
	char		*body;
	long long	 len;
	size_t		 got = 0;
	ssize_t		 r;
	int		 status;

	if (user == NULL)
		return plain("403 Forbidden", "No REMOTE_USER: the web server "
		    "must authenticate who answers (see arc-web(8)).");
	if (!same_origin(origin))
		return plain("403 Forbidden", "A request from another site: "
		    "refused.");
	len = strtonum(cl, 0, BODY_MAX, &errstr);
	if (errstr != NULL)
		return plain("413 Content Too Large", "The request is too "
		    "large, or has no length.");
	if (strncmp(env("CONTENT_TYPE"), "application/x-www-form-urlencoded",
	    33) != 0)
		return plain("415 Unsupported Media Type", "A form, please.");
	if ((body = malloc((size_t)len + 1)) == NULL)
		err(EXIT_SYSTEM, "malloc");
	while (got < (size_t)len) {
		if ((r = read(STDIN_FILENO, body + got, (size_t)len - got)) ==
		    -1) {
			if (errno == EINTR)
				continue;
			err(EXIT_SYSTEM, "read");
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	body[got] = '\0';
	if (got != (size_t)len || !form_parse(body, got, &f) ||
	    f.op == NULL || f.key == NULL || f.token == NULL) {
		status = plain("400 Bad Request", "Not a form of this page.");
		goto done;
	}
	if (!token_good(key, user, f.token)) {
		status = plain("403 Forbidden", "The form's token is not this "
		    "user's, or is too old (reload the page): refused.");
		goto done;
	}
	if (strcmp(f.op, "answer") == 0)
		said = answer(&f, off, user);
	else if (strcmp(f.op, "dismiss") == 0)
		said = dismiss(&f, user);
	else {
		status = plain("400 Bad Request", "Not a form of this page.");
		goto done;
	}
	status = see_page(said, &f);
done:
	explicit_bzero(body, got);
	free(body);
	form_free(&f);
	return status;
}

static const char usage[] =
"usage: arc-web (run by a web server, as CGI; see arc-web(8))\n"
"       arc-web --rotate\n"
"\n"
"Serves the page of what needs the person and takes their answers.  The\n"
"request comes from the CGI environment (REQUEST_METHOD, QUERY_STRING,\n"
"REMOTE_USER, ...), never from arguments.\n"
"\n"
"  --rotate              a new key beside the journal: every form token\n"
"                        drawn before is refused (a page is drawn again)\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n";

int	web_main(int, char **);	/* arcmain.c calls it */

int
web_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "rotate", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*method = env("REQUEST_METHOD"), *q = env("QUERY_STRING");
	const char	*user, *said = NULL;
	char		*journal, token[65] = "", origin[ORIGIN_MAX] = "";
	uint8_t		 key[32];
	struct offdevice off;
	struct buf	 b = { 0 };
	int		 ch, status, has_origin;
	bool		 rotate = false;

	/*
	 * Under CGI the arguments are the server's: a query without '=' may
	 * come as words (RFC 3875, 4.4), so they are ignored.  Only a person
	 * at a shell gives options.
	 */
	if (*method == '\0') {
		while ((ch = getopt_long(argc, argv, "hV", longopts,
		    NULL)) != -1)
			if (ch == 'r')
				rotate = true;
			else if (common_option(ch, usage, &status))
				return status;
		if (rotate && optind == argc) {
			journal = journal_default_path(NULL);
			status = key_rotate(journal);
			free(journal);
			return status;
		}
		return usage_error(usage, rotate ? "unexpected argument" :
		    "not run by a web server (no REQUEST_METHOD)");
	}
	if ((strcmp(q, "css") == 0 || strcmp(q, "js") == 0) &&
	    strcmp(method, "GET") == 0) {
		headers(&b, "200 OK", *q == 'c' ? "text/css; charset=utf-8" :
		    "text/javascript; charset=utf-8");
		buf_printf(&b, "\r\n%s\n", (const char *)(*q == 'c' ?
		    web_arc_css : web_arc_js));
		send_buf(&b);
		buf_free(&b);
		return 0;
	}
	journal = journal_default_path(NULL);
	if (!web_key(journal, key)) {
		free(journal);
		return plain("500 Internal Server Error", "No key beside the "
		    "journal (see arc-web(8)).");
	}
	if (!offdevice_read(journal, &off)) {
		explicit_bzero(key, sizeof(key));
		free(journal);
		return plain("500 Internal Server Error", "The off-device "
		    "setting is not one (see arc-web(8)).");
	}
	/*
	 * The page's own origin, when it is set, or in anonymous mode, where
	 * it must be: a request to any other Host (a name rebound to this
	 * address) or from any other Origin gets nothing, GET included.
	 */
	has_origin = origin_read(journal, origin);
	if (has_origin == -1 || (has_origin == 0 &&
	    strcmp(env("ARC_WEB_ANONYMOUS"), "1") == 0) ||
	    (has_origin == 1 && !at_origin(origin))) {
		explicit_bzero(key, sizeof(key));
		free(journal);
		if (has_origin == 1)
			return plain("403 Forbidden", "Not this page's "
			    "address: refused (see arc-web(8)).");
		return plain("500 Internal Server Error", has_origin == -1 ?
		    "The web-origin setting is not one (see arc-web(8))." :
		    "ARC_WEB_ANONYMOUS=1 needs the page's origin set "
		    "(ARC_WEB_ORIGIN or web-origin; see arc-web(8)).");
	}
	/*
	 * What the network sends is read from here on: the request may write
	 * only in the journal's folder (a compaction's files).  A POST is
	 * narrowed once it is known not to go by a mirror's route, which is
	 * the person's own command (post).
	 */
	if (strcmp(method, "POST") != 0)
		(void)narrow_writes_beside(journal);
	if (strcmp(method, "POST") == 0)
		status = post(key, &off, origin);
	else if (strcmp(method, "GET") == 0 && strcmp(q, "events") == 0)
		status = events(journal);
	else if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
		if ((user = web_user()) != NULL)
			token_of(key, user, token_window(), token);
		if (strncmp(q, "said=", 5) == 0)
			said = q + 5;
		status = page(journal, &off, token, said);
	} else
		status = plain("405 Method Not Allowed", "GET or POST.");
	explicit_bzero(key, sizeof(key));
	free(journal);
	return status;
}
