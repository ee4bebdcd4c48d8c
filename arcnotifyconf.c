/*
 * arc-notify's policy file (arc-notify.conf(5)).  A rule a line:
 *
 *   notify|ignore desktop|tmux|exec|ntfy [delay D] [remind D] [sound NAME]
 *       [question|notice] [kind K] [agent A] [project P] [session S]
 *       [unfocused]
 *       [priority [>=|<=] P] [run COMMAND...]
 *   quiet HH:MM-HH:MM [except PRIORITY]
 *   ntfy URL TOPIC [answers TOPIC] [token FILE] [tap-token FILE]
 *       [page URL]
 *
 * For each sink, the last rule naming it that matches a condition
 * decides, as doas.conf(5) does; no rule for it means nothing is sent
 * there (tmux: refreshed unless a rule says ignore tmux).  Words are
 * separated by blanks; "..." quotes one, with \" and \\ inside; # starts a
 * comment; but a command, after "run", is the rest of the line byte for
 * byte, as sh -c is to read it.  The decision is pure (conf_match), so -n
 * can print it.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcnotifyconf.h"

#define WORDS_MAX	64
#define CONF_LINE_MAX	4096

static const char *const prio_names[] = { "low", "normal", "high",
    "critical" };
static const char *const sink_names[] = { "desktop", "tmux", "exec",
    "ntfy" };

static int
conf_priority(const char *s)
{
	int	i;

	for (i = 0; s != NULL && i < 4; i++)
		if (strcmp(s, prio_names[i]) == 0)
			return i;
	return -1;
}

static char *
xstrdup0(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* The words that take a value: a "run" after one of them is that value. */
static bool
takes_value(const char *w)
{
	static const char *const words[] = { "delay", "remind", "sound",
	    "kind", "agent", "project", "session", "priority", ">=", "<=" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(w, words[i]) == 0)
			return true;
	return false;
}

/*
 * Splits a line into words, in place; the count, or -1 (a bad quote).
 * The word "run" (not a value) ends the words: *rest is then what follows
 * it and its blanks, up to the line's end, untouched, the command.
 */
static int
split(char *s, char *w[WORDS_MAX], char **rest)
{
	char	*out;
	int	 n = 0;

	*rest = NULL;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#' || *s == '\n')
			return n;
		if (n == WORDS_MAX)
			return -1;
		w[n++] = out = s;
		if (*s == '"') {
			for (s++; *s != '"'; s++) {
				if (*s == '\0' || *s == '\n')
					return -1;
				if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
					s++;
				*out++ = *s;
			}
			s++;
		} else
			while (*s != '\0' && *s != ' ' && *s != '\t' &&
			    *s != '\n')
				*out++ = *s++;
		if (out == w[n - 1] + 3 && memcmp(w[n - 1], "run", 3) == 0 &&
		    (n < 2 || !takes_value(w[n - 2])) && *s != '\0' &&
		    *s != '\n') {
			*out = '\0';
			for (s++; *s == ' ' || *s == '\t'; s++)
				;
			*rest = s;
			s[strcspn(s, "\n")] = '\0';
			return n;
		}
		if (*s != '\0')
			s++;
		*out = '\0';
	}
}

static bool
clock_time(const char *s, int *minutes)
{
	int	h, m;
	char	end;

	if (sscanf(s, "%2d:%2d%c", &h, &m, &end) != 2 || h < 0 || h > 23 ||
	    m < 0 || m > 59 || strlen(s) != 5)
		return false;
	*minutes = h * 60 + m;
	return true;
}

static bool
parse_quiet(struct conf *c, char **w, int n, const char *name, int lineno)
{
	struct quiet	 q = { 0, 0, 4 };
	char		*dash;

	if (n < 2 || (dash = strchr(w[1], '-')) == NULL)
		goto bad;
	*dash = '\0';
	if (!clock_time(w[1], &q.from) || !clock_time(dash + 1, &q.to))
		goto bad;
	if (n == 4 && strcmp(w[2], "except") == 0) {
		if ((q.except = conf_priority(w[3])) == -1)
			goto bad;
	} else if (n != 2)
		goto bad;
	if ((c->quiet = reallocarray(c->quiet, c->nquiet + 1,
	    sizeof(*c->quiet))) == NULL)
		err(EXIT_SYSTEM, "reallocarray");
	c->quiet[c->nquiet++] = q;
	return true;
bad:
	warnx("%s:%d: quiet HH:MM-HH:MM [except PRIORITY]", name, lineno);
	return false;
}

static bool
duration(const char *s, int64_t *ms)
{
	return s != NULL && (*ms = parse_duration_ms(s)) >= 0;
}

static bool
parse_rule(struct conf *c, char **w, int n, const char *rest,
    const char *name, int lineno)
{
	struct rule	 r;
	int		 k, s, p;

	memset(&r, 0, sizeof(r));
	r.question = -1;
	r.prio_min = 0;
	r.prio_max = 3;
	r.lineno = lineno;
	r.notify = strcmp(w[0], "notify") == 0;
	if (n < 2) {
		warnx("%s:%d: a sink: desktop, tmux, exec or ntfy", name,
		    lineno);
		return false;
	}
	for (s = 0; s < 4; s++)
		if (strcmp(w[1], sink_names[s]) == 0)
			break;
	if (s == 4) {
		warnx("%s:%d: %s: not a sink (desktop, tmux, exec, ntfy)", name,
		    lineno, w[1]);
		return false;
	}
	r.sink = (enum sink)s;
	for (k = 2; k < n; k++) {
		if (strcmp(w[k], "question") == 0)
			r.question = 1;
		else if (strcmp(w[k], "notice") == 0)
			r.question = 0;
		else if (strcmp(w[k], "delay") == 0 && k + 1 < n &&
		    duration(w[k + 1], &r.delay_ms))
			k++;
		else if (strcmp(w[k], "remind") == 0 && k + 1 < n &&
		    duration(w[k + 1], &r.remind_ms))
			k++;
		else if (strcmp(w[k], "sound") == 0 && k + 1 < n)
			r.sound = xstrdup0(w[++k]);
		else if (strcmp(w[k], "kind") == 0 && k + 1 < n)
			r.kind = xstrdup0(w[++k]);
		else if (strcmp(w[k], "agent") == 0 && k + 1 < n)
			r.agent = xstrdup0(w[++k]);
		else if (strcmp(w[k], "project") == 0 && k + 1 < n)
			r.project = xstrdup0(w[++k]);
		else if (strcmp(w[k], "session") == 0 && k + 1 < n)
			r.session = xstrdup0(w[++k]);
		else if (strcmp(w[k], "unfocused") == 0)
			r.unfocused = true;
		else if (strcmp(w[k], "priority") == 0 && k + 1 < n) {
			const char *op = w[k + 1];

			if ((strcmp(op, ">=") == 0 || strcmp(op, "<=") == 0) &&
			    k + 2 < n && (p = conf_priority(w[k + 2])) != -1) {
				if (op[0] == '>')
					r.prio_min = p;
				else
					r.prio_max = p;
				k += 2;
			} else if ((p = conf_priority(op)) != -1) {
				r.prio_min = r.prio_max = p;
				k++;
			} else
				goto bad;
		} else if (strcmp(w[k], "run") == 0 && k + 1 == n &&
		    rest != NULL && *rest != '\0' && r.sink == SINK_EXEC) {
			/* the rest of the line, byte for byte, for sh -c */
			r.command = xstrdup0(rest);
		} else
			goto bad;
	}
	if (r.sink == SINK_EXEC && r.notify && r.command == NULL) {
		warnx("%s:%d: notify exec needs run COMMAND", name, lineno);
		return false;
	}
	if ((c->rules = reallocarray(c->rules, c->nrules + 1,
	    sizeof(*c->rules))) == NULL)
		err(EXIT_SYSTEM, "reallocarray");
	c->rules[c->nrules++] = r;
	return true;
bad:
	warnx("%s:%d: %s: not understood here", name, lineno, w[k]);
	return false;
}

/* An ntfy topic's name, as ntfy takes it: [-_A-Za-z0-9], 1 to 64. */
static bool
topic_name(const char *t)
{
	size_t	n = strlen(t);

	return n >= 1 && n <= 64 && strspn(t, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == n;
}

/* A file's path: absolute, or ~/ for $HOME; NULL when neither. */
static char *
file_path(const char *w)
{
	const char	*home = getenv("HOME");
	char		*p;

	if (w[0] == '/')
		return xstrdup0(w);
	if (strncmp(w, "~/", 2) != 0 || home == NULL || *home != '/')
		return NULL;
	if (asprintf(&p, "%s/%s", home, w + 2) == -1)
		err(EXIT_SYSTEM, "asprintf");
	return p;
}

/* A URL we send to: http or https, with no blank or control in it. */
static bool
web_url(const char *u)
{
	const char	*host;
	size_t		 i;

	if (strncmp(u, "https://", 8) != 0 && strncmp(u, "http://", 7) != 0)
		return false;
	host = u + (u[4] == 's' ? 8 : 7);

	for (i = 0; u[i] != '\0'; i++)
		if ((unsigned char)u[i] <= ' ' || u[i] == 0x7f)
			return false;
	/* no user:password@: it would go out in every message's buttons */
	if (strcspn(host, "@") < strcspn(host, "/?#"))
		return false;
	return *host != '\0';
}

/* ntfy URL TOPIC [answers TOPIC] [token FILE] [tap-token FILE] [page URL] */
static bool
parse_ntfy(struct conf *c, char **w, int n, const char *name, int lineno)
{
	struct ntfy_conf	*t = &c->ntfy;
	char			**file;
	size_t			 len;
	int			 k;

	if (t->server != NULL) {
		warnx("%s:%d: a second ntfy line (the first is line %d)", name,
		    lineno, t->lineno);
		return false;
	}
	if (n < 3 || !web_url(w[1]) || !topic_name(w[2])) {
		warnx("%s:%d: ntfy needs a server's URL (http:// or https://, "
		    "no user:password@) and a topic ([-_A-Za-z0-9], at most "
		    "64)", name, lineno);
		return false;
	}
	t->lineno = lineno;
	t->server = xstrdup0(w[1]);
	len = strlen(t->server);
	while (len > 0 && t->server[len - 1] == '/')
		t->server[--len] = '\0';
	t->topic = xstrdup0(w[2]);
	for (k = 3; k < n; k++) {
		file = NULL;
		if (strcmp(w[k], "answers") == 0 && k + 1 < n &&
		    topic_name(w[k + 1]) && t->answers == NULL)
			t->answers = xstrdup0(w[++k]);
		else if (strcmp(w[k], "page") == 0 && k + 1 < n &&
		    web_url(w[k + 1]) && t->page == NULL)
			t->page = xstrdup0(w[++k]);
		else if (strcmp(w[k], "token") == 0 && t->token == NULL)
			file = &t->token;
		else if (strcmp(w[k], "tap-token") == 0 && t->tap_token == NULL)
			file = &t->tap_token;
		else
			goto bad;
		if (file != NULL) {
			if (k + 1 >= n || (*file = file_path(w[k + 1])) ==
			    NULL) {
				warnx("%s:%d: %s needs a file's path, absolute "
				    "or ~/...", name, lineno, w[k]);
				return false;
			}
			k++;
		}
	}
	if (t->answers == NULL &&
	    asprintf(&t->answers, "%s-answers", t->topic) == -1)
		err(EXIT_SYSTEM, "asprintf");
	if (!topic_name(t->answers)) {
		warnx("%s:%d: the answer topic %s is longer than ntfy takes "
		    "(64): name one with answers", name, lineno, t->answers);
		return false;
	}
	if (strcmp(t->answers, t->topic) == 0) {
		warnx("%s:%d: the answer topic must not be the question topic",
		    name, lineno);
		return false;
	}
	return true;
bad:
	warnx("%s:%d: %s: not understood here", name, lineno, w[k]);
	return false;
}

static bool
conf_parse(struct conf *c, FILE *fp, const char *name)
{
	char	 line[CONF_LINE_MAX], *w[WORDS_MAX], *rest;
	int	 lineno = 0, n;
	bool	 ok = true;

	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(fp)) {
			warnx("%s:%d: a line too long", name, lineno);
			return false;
		}
		if ((n = split(line, w, &rest)) == -1) {
			warnx("%s:%d: an unclosed quote or too many words",
			    name, lineno);
			ok = false;
			continue;
		}
		if (n == 0)
			continue;
		if (strcmp(w[0], "quiet") == 0)
			ok = parse_quiet(c, w, n, name, lineno) && ok;
		else if (strcmp(w[0], "ntfy") == 0)
			ok = parse_ntfy(c, w, n, name, lineno) && ok;
		else if (strcmp(w[0], "notify") == 0 ||
		    strcmp(w[0], "ignore") == 0)
			ok = parse_rule(c, w, n, rest, name, lineno) && ok;
		else {
			warnx("%s:%d: %s: not notify, ignore, quiet or ntfy",
			    name, lineno, w[0]);
			ok = false;
		}
	}
	if (ferror(fp)) {
		warn("%s", name);
		return false;
	}
	for (n = 0; ok && c->ntfy.server == NULL && (size_t)n < c->nrules;
	    n++)
		if (c->rules[n].sink == SINK_NTFY && c->rules[n].notify) {
			warnx("%s:%d: notify ntfy needs an ntfy line (the "
			    "server and its topics)", name,
			    c->rules[n].lineno);
			ok = false;
		}
	return ok;
}

static const char defaults[] =
    "notify desktop question\n"
    "notify desktop notice priority >= high\n"
    "notify tmux\n";

void
conf_free(struct conf *c)
{
	size_t i;

	for (i = 0; i < c->nrules; i++) {
		free(c->rules[i].sound);
		free(c->rules[i].kind);
		free(c->rules[i].agent);
		free(c->rules[i].project);
		free(c->rules[i].session);
		free(c->rules[i].command);
	}
	free(c->rules);
	free(c->quiet);
	free(c->path);
	free(c->ntfy.server);
	free(c->ntfy.topic);
	free(c->ntfy.answers);
	free(c->ntfy.token);
	free(c->ntfy.tap_token);
	free(c->ntfy.page);
	memset(c, 0, sizeof(*c));
}

bool
conf_load(struct conf *c, const char *path)
{
	const char	*x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	FILE		*fp;
	bool		 ok, given = path != NULL;

	memset(c, 0, sizeof(*c));
	if (path == NULL) {
		if (x != NULL && *x == '/') {
			if (asprintf(&c->path, "%s/arc/notify.conf", x) == -1)
				err(EXIT_SYSTEM, "asprintf");
		} else if (home != NULL && *home != '\0') {
			if (asprintf(&c->path, "%s/.config/arc/notify.conf",
			    home) == -1)
				err(EXIT_SYSTEM, "asprintf");
		}
	} else
		c->path = xstrdup0(path);
	if (c->path == NULL || (fp = fopen(c->path, "r")) == NULL) {
		if (given || (c->path != NULL && errno != ENOENT)) {
			warn("%s", c->path);
			return false;
		}
		free(c->path);
		c->path = NULL;
		if ((fp = fmemopen((void *)defaults, sizeof(defaults) - 1,
		    "r")) == NULL)
			err(EXIT_SYSTEM, "fmemopen");
		ok = conf_parse(c, fp, "defaults");
		(void)fclose(fp);
		return ok;
	}
	ok = conf_parse(c, fp, c->path);
	(void)fclose(fp);
	return ok;
}

static bool
matches(const struct rule *r, const struct conf_subject *s)
{
	int	p = conf_priority(s->priority);

	if (p == -1)
		p = 1;	/* normal, as ARC reads a missing priority */
	if (r->question != -1 && r->question != (s->question ? 1 : 0))
		return false;
	if (p < r->prio_min || p > r->prio_max)
		return false;
	if (r->kind != NULL && (s->kind == NULL || strcmp(r->kind, s->kind)))
		return false;
	if (r->agent != NULL && (s->agent == NULL ||
	    strcmp(r->agent, s->agent)))
		return false;
	if (r->project != NULL && (s->project == NULL ||
	    strcmp(r->project, s->project)))
		return false;
	if (r->session != NULL && (s->session == NULL ||
	    strcmp(r->session, s->session)))
		return false;
	return true;
}

const struct rule *
conf_match(const struct conf *c, const struct conf_subject *s, enum sink sink)
{
	const struct rule	*last = NULL;
	size_t			 i;

	for (i = 0; i < c->nrules; i++)
		if (c->rules[i].sink == sink && matches(&c->rules[i], s))
			last = &c->rules[i];
	return last != NULL && last->notify ? last : NULL;
}

bool
conf_tmux(const struct conf *c)
{
	const struct rule	*last = NULL;
	size_t			 i;

	for (i = 0; i < c->nrules; i++)
		if (c->rules[i].sink == SINK_TMUX)
			last = &c->rules[i];
	return last == NULL || last->notify;
}

bool
conf_quiet(const struct conf *c, const char *priority, int minutes)
{
	int	p = conf_priority(priority);
	size_t	i;
	bool	in;

	if (p == -1)
		p = 1;
	for (i = 0; i < c->nquiet; i++) {
		const struct quiet *q = &c->quiet[i];

		if (q->from <= q->to)
			in = minutes >= q->from && minutes < q->to;
		else	/* across midnight */
			in = minutes >= q->from || minutes < q->to;
		if (in && p < q->except)
			return true;
	}
	return false;
}

void
conf_print(const struct conf *c, FILE *fp)
{
	const struct rule	*r;
	char			 d[ARC_DURATION_MAX];
	size_t			 i;

	fprintf(fp, "# %s\n", c->path != NULL ? c->path : "the defaults");
	for (i = 0; i < c->nquiet; i++) {
		fprintf(fp, "quiet %02d:%02d-%02d:%02d", c->quiet[i].from / 60,
		    c->quiet[i].from % 60, c->quiet[i].to / 60,
		    c->quiet[i].to % 60);
		if (c->quiet[i].except < 4)
			fprintf(fp, " except %s", prio_names[c->quiet[i].except]);
		fputc('\n', fp);
	}
	if (c->ntfy.server != NULL) {
		/* the token files' paths; never what they hold */
		fprintf(fp, "ntfy %s %s answers %s", c->ntfy.server,
		    c->ntfy.topic, c->ntfy.answers);
		if (c->ntfy.token != NULL)
			fprintf(fp, " token \"%s\"", c->ntfy.token);
		if (c->ntfy.tap_token != NULL)
			fprintf(fp, " tap-token \"%s\"", c->ntfy.tap_token);
		if (c->ntfy.page != NULL)
			fprintf(fp, " page %s", c->ntfy.page);
		fputc('\n', fp);
	}
	for (i = 0; i < c->nrules; i++) {
		r = &c->rules[i];
		fprintf(fp, "%s %s", r->notify ? "notify" : "ignore",
		    sink_names[r->sink]);
		if (r->delay_ms > 0 &&
		    format_duration(r->delay_ms, d, sizeof(d)) != NULL)
			fprintf(fp, " delay %s", d);
		if (r->remind_ms > 0 &&
		    format_duration(r->remind_ms, d, sizeof(d)) != NULL)
			fprintf(fp, " remind %s", d);
		if (r->question != -1)
			fprintf(fp, r->question ? " question" : " notice");
		if (r->kind != NULL)
			fprintf(fp, " kind \"%s\"", r->kind);
		if (r->agent != NULL)
			fprintf(fp, " agent \"%s\"", r->agent);
		if (r->project != NULL)
			fprintf(fp, " project \"%s\"", r->project);
		if (r->session != NULL)
			fprintf(fp, " session \"%s\"", r->session);
		if (r->unfocused)
			fputs(" unfocused", fp);
		if (r->prio_min > 0)
			fprintf(fp, " priority >= %s", prio_names[r->prio_min]);
		if (r->prio_max < 3)
			fprintf(fp, " priority <= %s", prio_names[r->prio_max]);
		if (r->sound != NULL)
			fprintf(fp, " sound \"%s\"", r->sound);
		if (r->command != NULL)
			fprintf(fp, " run %s", r->command);
		fputc('\n', fp);
	}
}
