/*
 * What a host's configuration holds: arc's hooks, printed (--settings)
 * or merged into the host's settings file (--install, --uninstall).
 *
 * The merge reads the file with the strict parser and writes it back in
 * two-space indentation, every value that is not arc's as it was written
 * (its text, escapes and number forms kept), every member in its order.
 * Under "hooks", each event's list loses arc's hooks (the commands that
 * run arc-hook for this host, or the examples' wrappers for it) and, to
 * install, gains the ones --settings prints, at its end; so a second
 * install changes nothing, and an uninstall leaves the person's hooks as
 * they were.  The file is replaced whole (a temporary file, synced,
 * renamed over it; through a symbolic link, its target), after the old
 * one is kept as FILE.arc-backup.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "archook.h"
#include "archooksettings.h"

#define SETTINGS_MAX	(16 * 1024 * 1024)	/* a settings file read */

static const struct setting {
	const char	*host, *event, *matcher;
	int		 timeout;	/* the host's unit */
	bool		 asks;		/* waits for a person */
} settings[] = {
	{ "claude-code", "PermissionRequest", NULL, 330, true },
	{ "claude-code", "Elicitation", NULL, 330, true },
	{ "claude-code", "SessionEnd", NULL, 5, false },
	{ "claude-code", "Notification", NULL, 5, false },
	{ "claude-code", "Stop", NULL, 5, false },
	{ "claude-code", "UserPromptSubmit", NULL, 5, false },
	{ "claude-code", "PostToolUse", NULL, 5, false },
	{ "claude-code", "PostToolUseFailure", NULL, 5, false },
	{ "claude-code", "PermissionDenied", NULL, 5, false },
	{ "claude-code", "ElicitationResult", NULL, 5, false },
	{ "codex", "PermissionRequest", NULL, 330, true },
	{ "codex", "Stop", NULL, 5, false },
	{ "codex", "UserPromptSubmit", NULL, 5, false },
	{ "codex", "SessionEnd", NULL, 3, false },
	{ "codex", "Interrupt", NULL, 3, false },
	{ "gemini", "Notification", "ToolPermission", 5000, false },
	{ "gemini", "AfterAgent", NULL, 5000, false },
	{ "gemini", "BeforeAgent", NULL, 5000, false },
	{ "gemini", "SessionEnd", NULL, 5000, false },
	/* Copilot's default is 30 s, too short for a person */
	{ "copilot", "permissionRequest", NULL, 330, true },
	{ "copilot", "notification", NULL, 5, false },
	{ "copilot", "agentStop", NULL, 5, false },
	{ "copilot", "userPromptSubmitted", NULL, 5, false },
	{ "copilot", "sessionEnd", NULL, 5, false },
};

/* Copilot's hooks are a file of their own, each hook a list's item. */
static bool
flat(const char *host)
{
	return strcmp(host, "copilot") == 0;
}

/*
 * A word as sh reads it back: as it is when it holds only characters that
 * mean nothing to sh, else in single quotes (each ' as '\''), since the
 * host runs the command with sh -c.
 */
static void
sh_word(struct buf *b, const char *s)
{
	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
	    "opqrstuvwxyz0123456789/._-+,:@%=") == strlen(s)) {
		buf_puts(b, s);
		return;
	}
	buf_putc(b, '\'');
	for (; *s != '\0'; s++)
		if (*s == '\'')
			buf_puts(b, "'\\''");
		else
			buf_putc(b, *s);
	buf_putc(b, '\'');
}

void
settings_text(struct buf *b, const char *host, const char *bindir,
    bool toml)
{
	struct buf	 cmd = { 0 }, path = { 0 };
	size_t		 i, n = 0, k = 0;

	buf_printf(&path, "%s/arc-hook", bindir);
	sh_word(&cmd, path.p);
	buf_printf(&cmd, " %s", host);
	buf_free(&path);
	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		n += strcmp(settings[i].host, host) == 0;
	if (flat(host))
		/* a hooks file of its own: ~/.copilot/hooks/arc.json */
		buf_puts(b, "{\n  \"version\": 1,\n  \"hooks\": {\n");
	else if (!toml)
		buf_puts(b, "{\n  \"hooks\": {\n");
	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		const struct setting *s = &settings[i];
		if (strcmp(s->host, host) != 0)
			continue;
		k++;
		if (toml) {
			buf_printf(b, "%s[[hooks.%s]]\n", k > 1 ? "\n" : "",
			    s->event);
			if (s->matcher != NULL)
				buf_printf(b, "matcher = \"%s\"\n", s->matcher);
			buf_printf(b, "[[hooks.%s.hooks]]\ntype = \"command\"\n"
			    "command = ", s->event);
			buf_json_str(b, cmd.p, cmd.len);
			buf_printf(b, "\ntimeout = %d\n", s->timeout);
			if (s->asks)
				buf_puts(b, "statusMessage = \"Asking you "
				    "through arc\"\n");
			continue;
		}
		if (flat(host)) {
			buf_printf(b, "    \"%s\": [{ \"type\": \"command\", "
			    "\"bash\": ", s->event);
			buf_json_str(b, cmd.p, cmd.len);
			buf_printf(b, ",\n      \"env\": { \"ARC_HOOK_EVENT\": "
			    "\"%s\" }, \"timeoutSec\": %d }]%s\n", s->event,
			    s->timeout, k < n ? "," : "");
			continue;
		}
		buf_printf(b, "    \"%s\": [{ ", s->event);
		if (s->matcher != NULL)
			buf_printf(b, "\"matcher\": \"%s\", ", s->matcher);
		buf_puts(b, "\"hooks\": [{ \"type\": \"command\",\n"
		    "      \"command\": ");
		buf_json_str(b, cmd.p, cmd.len);
		buf_printf(b, ",\n      \"timeout\": %d", s->timeout);
		if (s->asks)
			buf_puts(b, ", \"statusMessage\": \"Asking you through "
			    "arc\"");
		buf_printf(b, " }] }]%s\n", k < n ? "," : "");
	}
	if (!toml)
		buf_puts(b, "  }\n}\n");
	buf_free(&cmd);
}

char *
settings_path(const char *host)
{
	const char	*home = getenv("HOME"), *codex = getenv("CODEX_HOME");
	char		*p = NULL;
	int		 r = -1;

	if (strcmp(host, "codex") == 0 && codex != NULL && *codex == '/')
		r = asprintf(&p, "%s/hooks.json", codex);
	else if (home == NULL || *home != '/')
		return NULL;
	else if (strcmp(host, "claude-code") == 0)
		r = asprintf(&p, "%s/.claude/settings.json", home);
	else if (strcmp(host, "codex") == 0)
		r = asprintf(&p, "%s/.codex/hooks.json", home);
	else if (strcmp(host, "gemini") == 0)
		r = asprintf(&p, "%s/.gemini/settings.json", home);
	else if (strcmp(host, "copilot") == 0)
		r = asprintf(&p, "%s/.copilot/hooks/arc.json", home);
	if (r == -1)
		err(EXIT_SYSTEM, "asprintf");
	return p;
}

/* ---- whose hook it is ---- */

/* The next word of a command as sh splits it (quotes taken off). */
static const char *
next_word(const char *s, const char *end, struct buf *w)
{
	w->len = 0;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (s < end && *s != ' ' && *s != '\t') {
		if (*s == '\'') {
			for (s++; s < end && *s != '\''; s++)
				buf_putc(w, *s);
			if (s < end)
				s++;
		} else if (*s == '\\' && s + 1 < end) {
			buf_putc(w, s[1]);
			s += 2;
		} else if (*s == '"') {
			for (s++; s < end && *s != '"'; s++)
				buf_putc(w, *s);
			if (s < end)
				s++;
		} else
			buf_putc(w, *s++);
	}
	buf_putc(w, '\0');
	w->len--;
	return s;
}

/* NAME=value, as sh takes it for the command's environment. */
static bool
assignment(const char *w)
{
	const char *eq = strchr(w, '=');

	return eq != NULL && eq > w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_") == (size_t)(eq - w) &&
	    !(*w >= '0' && *w <= '9');
}

/*
 * Whether a hook runs arc-hook for host (or the examples' wrapper); with
 * program and journal, the program it runs and the ARC_JOURNAL it sets
 * ("" none).
 */
static bool
ours_running(const struct jval *h, const char *host, struct buf *program,
    struct buf *journal)
{
	const struct jval	*c = json_get(h, flat(host) ? "bash" : "command");
	struct buf		 w = { 0 };
	const char		*s, *end, *base;
	bool			 yes = false;

	if (journal != NULL) {
		journal->len = 0;
		buf_puts(journal, "");
	}
	if (h == NULL || h->type != J_OBJECT || c == NULL ||
	    c->type != J_STRING)
		return false;
	s = c->s;
	end = c->s + c->len;
	for (;;) {
		s = next_word(s, end, &w);
		if (w.len == 0 || !assignment(w.p))
			break;
		if (journal != NULL && strncmp(w.p, "ARC_JOURNAL=", 12) == 0) {
			journal->len = 0;
			buf_puts(journal, w.p + 12);
		}
	}
	if (program != NULL) {
		program->len = 0;
		buf_puts(program, w.p);
	}
	base = strrchr(w.p, '/') != NULL ? strrchr(w.p, '/') + 1 : w.p;
	if (strcmp(base, "arc-hook") == 0) {
		(void)next_word(s, end, &w);
		yes = strcmp(w.p, host) == 0;
	} else if (strncmp(base, host, strlen(host)) == 0 &&
	    strcmp(base + strlen(host), "-hook") == 0 && !flat(host))
		yes = true;
	buf_free(&w);
	return yes;
}

static bool
ours(const struct jval *h, const char *host)
{
	return ours_running(h, host, NULL, NULL);
}

/* ---- writing the file back ---- */

struct merge {
	const char		*host;
	bool			 remove;
	const struct jval	*mine;	/* arc's "hooks" object */
	size_t			 removed, added;
};

static void
newline(struct buf *b, int depth)
{
	buf_putc(b, '\n');
	while (depth-- > 0)
		buf_puts(b, "  ");
}

static void
name(struct buf *b, const struct jmember *m)
{
	buf_json_str(b, m->name, m->namelen);
	buf_puts(b, ": ");
}

/* A value as it was written, indented: its scalars' text kept. */
static void
value(struct buf *b, const struct jval *v, int depth)
{
	size_t i;

	if (v->type == J_OBJECT || v->type == J_ARRAY) {
		buf_putc(b, v->type == J_OBJECT ? '{' : '[');
		for (i = 0; i < v->n; i++) {
			if (i > 0)
				buf_putc(b, ',');
			newline(b, depth + 1);
			if (v->type == J_OBJECT) {
				name(b, &v->members[i]);
				value(b, v->members[i].value, depth + 1);
			} else
				value(b, v->items[i], depth + 1);
		}
		if (v->n > 0)
			newline(b, depth);
		buf_putc(b, v->type == J_OBJECT ? '}' : ']');
		return;
	}
	buf_put(b, v->raw, v->rawlen);
}

/* How many of a group's hooks are arc's (flat: the item itself). */
static size_t
ours_in(const struct merge *mg, const struct jval *item, size_t *all)
{
	const struct jval	*hooks;
	size_t			 i, n = 0;

	*all = 1;
	if (flat(mg->host))
		return ours(item, mg->host);
	hooks = json_get(item, "hooks");
	if (item->type != J_OBJECT || hooks == NULL || hooks->type != J_ARRAY)
		return 0;
	*all = hooks->n;
	for (i = 0; i < hooks->n; i++)
		n += ours(hooks->items[i], mg->host);
	return n;
}

/* A group with arc's hooks taken out of its "hooks". */
static void
group_without(struct buf *b, const struct merge *mg, const struct jval *g,
    int depth)
{
	const struct jval	*h;
	size_t			 i, k, n;

	buf_putc(b, '{');
	for (i = 0; i < g->n; i++) {
		if (i > 0)
			buf_putc(b, ',');
		newline(b, depth + 1);
		name(b, &g->members[i]);
		h = g->members[i].value;
		if (!(g->members[i].namelen == 5 &&
		    memcmp(g->members[i].name, "hooks", 5) == 0) ||
		    h->type != J_ARRAY) {
			value(b, h, depth + 1);
			continue;
		}
		buf_putc(b, '[');
		for (k = n = 0; k < h->n; k++) {
			if (ours(h->items[k], mg->host))
				continue;
			if (n++ > 0)
				buf_putc(b, ',');
			newline(b, depth + 2);
			value(b, h->items[k], depth + 2);
		}
		newline(b, depth + 1);
		buf_putc(b, ']');
	}
	newline(b, depth);
	buf_putc(b, '}');
}

/* One event's list: the person's items, then arc's (to install). */
static bool
event_list(struct buf *b, struct merge *mg, const struct jval *list,
    const struct jval *add, int depth)
{
	size_t	 i, k, all, n = 0, gone = 0;
	size_t	 at = b->len;

	buf_putc(b, '[');
	for (i = 0; list != NULL && i < list->n; i++) {
		k = ours_in(mg, list->items[i], &all);
		gone += k;
		if (k > 0 && k == all)
			continue;
		if (n++ > 0)
			buf_putc(b, ',');
		newline(b, depth + 1);
		if (k > 0)
			group_without(b, mg, list->items[i], depth + 1);
		else
			value(b, list->items[i], depth + 1);
	}
	mg->removed += gone;
	for (i = 0; add != NULL && i < add->n; i++) {
		if (n++ > 0)
			buf_putc(b, ',');
		newline(b, depth + 1);
		value(b, add->items[i], depth + 1);
		mg->added++;
	}
	if (n == 0 && (gone > 0 || list == NULL)) {
		b->len = at;	/* emptied by us, or never there: no list */
		return false;
	}
	if (n > 0)
		newline(b, depth);
	buf_putc(b, ']');
	return true;
}

/* The member of o named as m is (the last, as a reader takes it). */
static const struct jmember *
same_name(const struct jval *o, const char *name, size_t len)
{
	const struct jmember	*found = NULL;
	size_t			 i;

	for (i = 0; o != NULL && o->type == J_OBJECT && i < o->n; i++)
		if (o->members[i].namelen == len &&
		    memcmp(o->members[i].name, name, len) == 0)
			found = &o->members[i];
	return found;
}

/* "hooks": the person's events, each merged, then arc's new ones. */
static void
hooks_object(struct buf *b, struct merge *mg, const struct jval *hooks,
    int depth)
{
	const struct jval	*mine = mg->remove ? NULL : mg->mine;
	const struct jmember	*m, *add;
	size_t			 i, n = 0, at;

	buf_putc(b, '{');
	for (i = 0; hooks != NULL && i < hooks->n; i++) {
		m = &hooks->members[i];
		add = same_name(mine, m->name, m->namelen);
		at = b->len;
		if (n > 0)
			buf_putc(b, ',');
		newline(b, depth + 1);
		name(b, m);
		if (m->value->type != J_ARRAY)
			value(b, m->value, depth + 1);	/* not a list: kept */
		else if (!event_list(b, mg, m->value, add != NULL ?
		    add->value : NULL, depth + 1)) {
			b->len = at;
			continue;
		}
		n++;
	}
	for (i = 0; mine != NULL && i < mine->n; i++) {
		m = &mine->members[i];
		if (same_name(hooks, m->name, m->namelen) != NULL)
			continue;	/* merged above */
		if (n++ > 0)
			buf_putc(b, ',');
		newline(b, depth + 1);
		name(b, m);
		(void)event_list(b, mg, NULL, m->value, depth + 1);
	}
	if (n > 0)
		newline(b, depth);
	buf_putc(b, '}');
}

/* ---- the file ---- */

/* The file's text, NUL-terminated; *text NULL when there is none. */
static bool
read_settings(const char *path, char **text, size_t *len, struct stat *was)
{
	struct stat	 sb;
	ssize_t		 r;
	int		 fd;

	*text = NULL;
	*len = 0;
	memset(was, 0, sizeof(*was));
	/* non-blocking: a FIFO in its place is refused, not waited on */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return true;
		warn("%s", path);
		return false;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > SETTINGS_MAX) {
		warnx("%s: not a file of at most 16 MiB; nothing changed",
		    path);
		(void)close(fd);
		return false;
	}
	if ((*text = malloc((size_t)sb.st_size + 1)) == NULL)
		err(EXIT_SYSTEM, "malloc");
	while (*len < (size_t)sb.st_size &&
	    (r = read(fd, *text + *len, (size_t)sb.st_size - *len)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			warn("%s", path);
			(void)close(fd);
			return false;
		}
		*len += (size_t)r;
	}
	(*text)[*len] = '\0';
	(void)close(fd);
	*was = sb;
	return true;
}

/* Whether the file is still the one read (no other writer came since). */
static bool
unchanged(const char *path, const struct stat *was)
{
	struct stat sb;

	if (stat(path, &sb) == -1)
		return was->st_ino == 0 && errno == ENOENT;
	return was->st_ino == sb.st_ino && was->st_dev == sb.st_dev &&
	    was->st_size == sb.st_size &&
	    was->st_mtim.tv_sec == sb.st_mtim.tv_sec &&
	    was->st_mtim.tv_nsec == sb.st_mtim.tv_nsec;
}

/* Line and column of a byte offset, for a person's editor. */
static void
where(const char *text, size_t off, size_t *line, size_t *col)
{
	size_t i;

	*line = *col = 1;
	for (i = 0; i < off && text[i] != '\0'; i++)
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else
			(*col)++;
}

/* Whether the host's hooks, as arc installs them, name this event. */
static bool
arc_event(const char *host, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (strcmp(settings[i].host, host) == 0 &&
		    strlen(settings[i].event) == len &&
		    memcmp(settings[i].event, name, len) == 0)
			return true;
	return false;
}

/*
 * A member the merge reads given twice in one object: the merge would
 * read one of them, the host (JSON.parse keeps the last) perhaps the
 * other, and a person's hook could be taken for arc's.
 */
static bool
read_twice(const struct jval *o)
{
	static const char *const read[] = { "hooks", "command", "bash" };
	size_t i, k;

	for (i = 0; o != NULL && o->type == J_OBJECT && i < o->n; i++)
		for (k = 0; k < sizeof(read) / sizeof(read[0]); k++)
			if (o->members[i].duplicate &&
			    o->members[i].namelen == strlen(read[k]) &&
			    memcmp(o->members[i].name, read[k],
			    strlen(read[k])) == 0)
				return true;
	return false;
}

/* Refuses, naming the JSON Pointer of what is at fault. */
static bool
unfit(const char *path, const struct jmember *event, long item, long hook,
    const char *why)
{
	struct buf	 p = { 0 };
	size_t		 k;

	buf_puts(&p, "/hooks/");
	for (k = 0; k < event->namelen; k++)
		if ((unsigned char)event->name[k] >= 0x20 &&
		    event->name[k] != 0x7f)
			buf_puts(&p, event->name[k] == '~' ? "~0" :
			    event->name[k] == '/' ? "~1" :
			    (char[2]){ event->name[k], '\0' });
	if (item >= 0)
		buf_printf(&p, "/%ld", item);
	if (hook >= 0)
		buf_printf(&p, "/hooks/%ld", hook);
	warnx("%s: %s %s; nothing changed", path, p.p, why);
	buf_free(&p);
	return false;
}

/*
 * What the merge needs of the file: an object; its "hooks" an object,
 * each event arc installs a list; no member the merge reads given twice.
 * An event arc does not install may be anything: it is kept as it is.
 */
static bool
fit(const char *path, const char *host, const struct jval *root,
    const struct jval **hooks)
{
	const struct jmember	*m;
	const struct jval	*item, *inner;
	size_t			 i, k, g;

	*hooks = NULL;
	if (root->type != J_OBJECT) {
		warnx("%s: not a JSON object; nothing changed", path);
		return false;
	}
	for (i = 0; i < root->n; i++) {
		m = &root->members[i];
		if (m->namelen != 5 || memcmp(m->name, "hooks", 5) != 0)
			continue;
		if (*hooks != NULL) {
			warnx("%s: /hooks is there twice; nothing changed",
			    path);
			return false;
		}
		if (m->value->type != J_OBJECT) {
			warnx("%s: /hooks is not an object; nothing changed",
			    path);
			return false;
		}
		*hooks = m->value;
	}
	for (i = 0; *hooks != NULL && i < (*hooks)->n; i++) {
		m = &(*hooks)->members[i];
		if (m->duplicate)
			return unfit(path, m, -1, -1, "is there twice");
		if (m->value->type != J_ARRAY) {
			if (arc_event(host, m->name, m->namelen))
				return unfit(path, m, -1, -1, "is not a list");
			continue;
		}
		for (k = 0; k < m->value->n; k++) {
			item = m->value->items[k];
			if (read_twice(item))
				return unfit(path, m, (long)k, -1,
				    "names a member twice");
			inner = flat(host) ? NULL : json_get(item, "hooks");
			for (g = 0; inner != NULL && inner->type == J_ARRAY &&
			    g < inner->n; g++)
				if (read_twice(inner->items[g]))
					return unfit(path, m, (long)k, (long)g,
					    "names a member twice");
		}
	}
	return true;
}

/* Replaces path with text: a temporary file, synced, renamed over it. */
static bool
replace(const char *path, const char *text, size_t len, mode_t mode)
{
	char	*tmp;
	int	 fd;

	if ((fd = open_temporary(path, "arc-new", &tmp)) == -1)
		return false;
	if (!write_all(fd, text, len) || fchmod(fd, mode) == -1 ||
	    fsync(fd) == -1 || close(fd) == -1 || rename(tmp, path) == -1 ||
	    !sync_parent(path)) {
		warn("%s", path);
		(void)unlink(tmp);
		free(tmp);
		return false;
	}
	free(tmp);
	return true;
}

int
settings_install(const char *host, const char *bindir, const char *file,
    bool remove)
{
	struct arena		 a = { 0 };
	struct buf		 mine = { 0 }, out = { 0 }, backup = { 0 };
	struct jparse_error	 e;
	struct merge		 mg = { .host = host, .remove = remove };
	struct stat		 sb, was;
	const struct jval	*root, *hooks;
	const struct jmember	*m;
	char			*text, *path = (char *)file, real[PATH_MAX];
	size_t			 len, line, col, i, n = 0, at;
	mode_t			 mode = 0600;
	int			 status = EXIT_SYSTEM;
	bool			 wrote_hooks = false;

	/* through a symbolic link (a dotfiles folder): its target */
	if (lstat(file, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		if (realpath(file, real) == NULL) {
			warnx("%s: a symbolic link to no file there (%s); "
			    "nothing changed", file, strerror(errno));
			return EXIT_REJECTED;
		}
		path = real;
	}
	if (!read_settings(path, &text, &len, &was))
		return EXIT_SYSTEM;
	settings_text(&mine, host, bindir, false);
	mg.mine = json_get(json_parse(&a, mine.p, mine.len, &e), "hooks");
	if (mg.mine == NULL)
		errx(EXIT_SYSTEM, "arc's own hooks do not parse");
	if (text == NULL && remove) {
		printf("%s: no such file; nothing to take out\n", file);
		status = 0;
		goto done;
	}
	root = json_parse(&a, text != NULL ? text : flat(host) ?
	    "{\"version\": 1}" : "{}", text != NULL ? len : flat(host) ?
	    14 : 2, &e);
	if (root == NULL) {
		where(text, e.offset, &line, &col);
		warnx("%s: line %zu, column %zu: not JSON as arc reads it "
		    "(%s); nothing changed", file, line, col, e.message);
		status = EXIT_REJECTED;
		goto done;
	}
	if (!fit(file, host, root, &hooks)) {
		status = EXIT_REJECTED;
		goto done;
	}
	buf_putc(&out, '{');
	for (i = 0; i < root->n; i++) {
		m = &root->members[i];
		at = out.len;
		if (n > 0)
			buf_putc(&out, ',');
		newline(&out, 1);
		name(&out, m);
		if (m->value != hooks) {
			value(&out, m->value, 1);
			n++;
			continue;
		}
		wrote_hooks = true;
		hooks_object(&out, &mg, hooks, 1);
		if (remove && mg.removed > 0 && out.p[out.len - 1] == '}' &&
		    out.p[out.len - 2] == '{')
			out.len = at;	/* emptied by us: no "hooks" left */
		else
			n++;
	}
	if (!wrote_hooks && !remove) {
		if (n++ > 0)
			buf_putc(&out, ',');
		newline(&out, 1);
		buf_puts(&out, "\"hooks\": ");
		hooks_object(&out, &mg, NULL, 1);
	}
	if (n > 0)
		newline(&out, 0);
	buf_puts(&out, "}\n");
	if (remove && mg.removed == 0) {
		printf("%s: no hook of arc's for %s; nothing changed\n", file,
		    host);
		status = 0;
		goto done;
	}
	if (text != NULL && out.len == len && memcmp(out.p, text, len) == 0) {
		printf("%s: arc's hooks for %s are there; nothing changed\n",
		    file, host);
		status = 0;
		goto done;
	}
	if (text == NULL && !make_parents(path))
		goto done;
	if (text != NULL) {
		mode = was.st_mode & 07777;
		/* the first one kept: the file as it was before arc */
		buf_printf(&backup, "%s.arc-backup", path);
		if (lstat(backup.p, &sb) == -1 &&
		    !replace(backup.p, text, len, mode))
			goto done;
	}
	/* the host may write it too (an "always allow"): not over that */
	if (!unchanged(path, &was)) {
		warnx("%s: changed while it was merged; nothing changed (run "
		    "it again)", file);
		goto done;
	}
	if (!replace(path, out.p, out.len, mode))
		goto done;
	if (remove)
		printf("%s: %zu hook%s of arc's for %s taken out", file,
		    mg.removed, mg.removed == 1 ? "" : "s", host);
	else
		printf("%s: %zu hook%s of arc's for %s in place%s", file,
		    mg.added, mg.added == 1 ? "" : "s", host, mg.removed > 0 ?
		    " (the ones there before replaced)" : "");
	if (text != NULL)
		printf("; as it was before arc: %s\n", backup.p);
	else
		printf("\n");
	status = 0;
done:
	free(text);
	buf_free(&mine);
	buf_free(&out);
	buf_free(&backup);
	arena_free(&a);
	return status;
}

/* Adds a text to a list of distinct ones, each ended by a NUL. */
static void
add_distinct(struct buf *list, const struct buf *text)
{
	const char *p;

	for (p = list->p; p != NULL && p < list->p + list->len;
	    p += strlen(p) + 1)
		if (strlen(p) == text->len && memcmp(p, text->p, text->len) == 0)
			return;
	buf_put(list, text->p, text->len);
	buf_putc(list, '\0');
}

int
settings_look(const char *host, const char *path, size_t *count,
    struct buf *programs, struct buf *journals)
{
	struct arena		 a = { 0 };
	struct jparse_error	 e;
	struct buf		 program = { 0 }, journal = { 0 };
	struct stat		 was;
	const struct jval	*root, *hooks, *list, *item, *inner;
	char			*text;
	size_t			 len, i, k, g;
	int			 r = -1;

	*count = 0;
	if (!read_settings(path, &text, &len, &was))
		return -1;
	if (text == NULL)
		return 0;
	if ((root = json_parse(&a, text, len, &e)) == NULL ||
	    !fit(path, host, root, &hooks))
		goto done;
	for (i = 0; hooks != NULL && i < hooks->n; i++) {
		list = hooks->members[i].value;
		if (list->type != J_ARRAY)
			continue;	/* not an event of arc's */
		for (k = 0; k < list->n; k++) {
			item = list->items[k];
			inner = flat(host) ? NULL : json_get(item, "hooks");
			for (g = 0; g < (inner != NULL && inner->type ==
			    J_ARRAY ? inner->n : flat(host) ? 1 : 0); g++) {
				if (!ours_running(inner != NULL ?
				    inner->items[g] : item, host, &program,
				    &journal))
					continue;
				(*count)++;
				add_distinct(programs, &program);
				add_distinct(journals, &journal);
			}
		}
	}
	r = 1;
done:
	if (r == -1 && root == NULL)
		warnx("%s: not JSON as arc reads it", path);
	free(text);
	buf_free(&program);
	buf_free(&journal);
	arena_free(&a);
	return r;
}
