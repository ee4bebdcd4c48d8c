/*
 * arc-notify's policy (arcnotifyconf.c), as arc-notify.conf(5) describes
 * it: rules a line, the last that matches a condition for a sink decides,
 * as in doas.conf(5); quiet hours with the priorities that get through.
 */
#ifndef ARCNOTIFYCONF_H
#define ARCNOTIFYCONF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum sink { SINK_DESKTOP, SINK_TMUX, SINK_EXEC, SINK_NTFY };

struct rule {
	bool		 notify;	/* else ignore */
	enum sink	 sink;
	int64_t		 delay_ms, remind_ms;
	char		*sound, *command;
	/* what it matches: NULL or -1 for any */
	int		 question;	/* 1 questions, 0 notices, -1 both */
	char		*kind, *agent, *project, *session;
	bool		 unfocused;	/* not while its pane is in focus */
	int		 prio_min, prio_max;	/* 0 low .. 3 critical */
	int		 lineno;
};

struct quiet {
	int		 from, to;	/* minutes since midnight, local */
	int		 except;	/* priorities at least this get through */
};

/*
 * Where the ntfy sink publishes (one "ntfy" line): the server's URL, the
 * question topic and the answer topic, the files of the host's token and
 * of the token a tap is made with, and arc-web's page to open.
 */
struct ntfy_conf {
	char		*server;	/* NULL: no ntfy line */
	char		*topic, *answers;
	char		*token, *tap_token, *page;	/* NULL: none */
	int		 lineno;
};

struct conf {
	struct ntfy_conf ntfy;
	struct rule	*rules;
	size_t		 nrules;
	struct quiet	*quiet;
	size_t		 nquiet;
	char		*path;	/* NULL: the defaults */
};

/* What a rule is matched against. */
struct conf_subject {
	bool		 question;
	const char	*kind, *priority, *agent, *project, *session;
};

/* The file given, else $XDG_CONFIG_HOME/arc/notify.conf, else defaults. */
bool		 conf_load(struct conf *, const char *path);
void		 conf_free(struct conf *);
/* The last rule for the sink that matches, if it notifies; else NULL. */
const struct rule *conf_match(const struct conf *, const struct conf_subject *,
		    enum sink);
bool		 conf_tmux(const struct conf *);
/* Whether minutes (local) fall in quiet hours that hold this priority. */
bool		 conf_quiet(const struct conf *, const char *priority,
		    int minutes);
void		 conf_print(const struct conf *, FILE *);

#endif /* ARCNOTIFYCONF_H */
