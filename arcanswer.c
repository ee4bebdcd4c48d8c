/*
 * arc-answer: a person or a script answers an open question.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arc.h"
#include "arccmd.h"
#include "arcshell.h"

static void
answer_usage(FILE *f)
{
	fprintf(f, "usage: arc-answer [-j journal] [--response-id id] "
	    "[--source name] [--device-id id]\n"
	    "                  [--emit] key [choice_id | --text text]\n");
}

static size_t
codepoints(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

static char *
read_answer_line(void)
{
	char	*line = NULL;
	size_t	 cap = 0;
	ssize_t	 n;

	if ((n = getline(&line, &cap, stdin)) == -1) {
		free(line);
		return NULL;
	}
	if (n > 0 && line[n - 1] == '\n')
		line[n - 1] = '\0';
	return line;
}

/*
 * Shows the question on the terminal and reads the answer: a choice by its
 * number or id, or a text within its bound.  Returns the choice id (or the
 * text) to free, or NULL when the person gave none.
 */
static char *
ask_on_terminal(struct arena *a, const struct question *qn, bool *is_text)
{
	struct jparse_error	 e;
	const struct jval	*choices = NULL;
	const char		*kind = sv_cstr_of(a, qn->q.f[I_KIND]);
	char			 left[32], *line;
	size_t			 i, max = 0;

	*is_text = strcmp(kind, "text") == 0;
	if (!*is_text && strcmp(kind, "permission") != 0 &&
	    strcmp(kind, "single_choice") != 0) {
		warnx("cannot show a question of this kind; not answering");
		return NULL;
	}
	printf("%s\n%s\n", sv_cstr_of(a, qn->q.f[I_TITLE]),
	    sv_cstr_of(a, qn->q.f[I_PROMPT]));
	if (*is_text) {
		max = strtoul(sv_cstr_of(a, qn->q.f[I_TEXT_MAX_LENGTH]), NULL,
		    10);
	} else {
		choices = json_parse(a, qn->q.f[I_CHOICES].p,
		    qn->q.f[I_CHOICES].n, &e);
		for (i = 0; choices != NULL && i < choices->n; i++) {
			const struct jval *d = json_get(choices->items[i],
			    "detail");
			printf("  %zu) %s%s%s\n", i + 1, sv_cstr_of(a,
			    (struct sv){ json_get(choices->items[i], "label")->s,
			    json_get(choices->items[i], "label")->len }),
			    d ? " - " : "", d ? sv_cstr_of(a,
			    (struct sv){ d->s, d->len }) : "");
		}
	}
	time_left(left, sizeof(left), sv_cstr_of(a, qn->q.f[I_EXPIRES_AT]),
	    arc_now());
	for (;;) {
		if (*is_text)
			printf("Answer (%zu characters at most; %s left): ", max,
			    left);
		else
			printf("Answer [1-%zu] (%s left): ", choices ?
			    choices->n : 0, left);
		fflush(stdout);
		if ((line = read_answer_line()) == NULL)
			return NULL;
		if (*is_text) {
			if (codepoints(line) <= max)
				return line;
			printf("That is %zu characters; %zu at most.\n",
			    codepoints(line), max);
		} else {
			char *end;
			unsigned long k = strtoul(line, &end, 10);
			for (i = 0; choices && i < choices->n; i++) {
				const struct jval *id = json_get(
				    choices->items[i], "id");
				if ((*end == '\0' && *line != '\0' &&
				    k == i + 1) || (strlen(line) == id->len &&
				    memcmp(line, id->s, id->len) == 0)) {
					free(line);
					return strndup(id->s, id->len);
				}
			}
			printf("Choose one of 1-%zu.\n", choices ? choices->n :
			    0);
		}
		free(line);
	}
}

int
answer_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "journal", required_argument, NULL, 'j' },
		{ "response-id", required_argument, NULL, 'r' },
		{ "source", required_argument, NULL, 's' },
		{ "device-id", required_argument, NULL, 'd' },
		{ "text", required_argument, NULL, 'T' },
		{ "emit", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct journal	 j;
	struct question	 qn;
	struct arena	 arena = { 0 };
	struct applier	 ap;
	struct buf	 ev = { 0 };
	const char	*journal = NULL, *source = "cli", *device = NULL;
	const char	*response_id = NULL, *text = NULL, *choice = NULL, *key;
	const char	*sender = getenv("ARC_SENDER");
	char		 event_id[40], minted_rid[40], *asked = NULL, *path;
	bool		 emit = false, asked_text = false, interactive;
	struct journal	*jr = NULL;
	int		 ch, status;

	while ((ch = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j': journal = optarg; break;
		case 'r': response_id = optarg; break;
		case 's': source = optarg; break;
		case 'd': device = optarg; break;
		case 'T': text = optarg; break;
		case 'e': emit = true; break;
		case 'h':
			answer_usage(stdout);
			return 0;
		case 'V':
			print_version();
			return 0;
		default:
			answer_usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > 2 || (argc == 2 && text != NULL)) {
		answer_usage(stderr);
		return EXIT_USAGE;
	}
	key = argv[0];
	choice = argc == 2 ? argv[1] : NULL;

	/* The question's digest and nonce, from the journal. */
	interactive = choice == NULL && text == NULL;
	if (interactive &&
	    (emit || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		warnx("give a choice_id or --text (or run me on a terminal to "
		    "be asked)");
		answer_usage(stderr);
		return EXIT_USAGE;
	}
	/*
	 * One journal, read once.  --emit only reads it; an answer given
	 * here finds its question and is applied under one exclusive lock;
	 * a person is asked with no lock held, and the answer then carries
	 * the digest of the question they saw.
	 */
	path = journal_default_path(journal);
	if (emit) {
		jr = &j;
		if (!journal_open(jr, path, false) || !journal_lock(jr, false)) {
			status = EXIT_SYSTEM;
			goto done;
		}
		journal_unlock(jr);
	} else {
		jr = &ap.j;
		if (!applier_open(&ap, path) ||
		    !journal_lock(jr, !interactive)) {
			status = EXIT_SYSTEM;
			goto done;
		}
	}
	find_question(jr, &arena, key, &qn);
	if (interactive) {
		journal_unlock(jr);
		status = EXIT_REJECTED;
		if (!qn.found || !sv_is(qn.q.f[I_STATUS], "pending")) {
			warnx("no open question under this key");
			goto done;
		}
		if ((asked = ask_on_terminal(&arena, &qn, &asked_text)) ==
		    NULL)
			goto done;
		if (asked_text)
			text = asked;
		else
			choice = asked;
		if (!journal_lock(jr, true)) {
			status = EXIT_SYSTEM;
			goto done;
		}
	}

	mint_id("evt_", event_id, sizeof(event_id));
	if (response_id == NULL) {
		mint_id("resp_", minted_rid, sizeof(minted_rid));
		response_id = minted_rid;
	}
	buf_puts(&ev, "{\"arc_version\":\"0.2\",\"event_id\":");
	buf_json_cstr(&ev, event_id);
	buf_puts(&ev, ",\"event_type\":\"response.submitted\",\"occurred_at\":");
	buf_json_cstr(&ev, arc_now());
	buf_puts(&ev, ",\"sender\":{\"id\":");
	buf_json_cstr(&ev, sender != NULL && *sender ? sender : "arc-answer");
	buf_puts(&ev, "},\"request\":{\"key\":");
	buf_json_cstr(&ev, key);
	buf_puts(&ev, "},\"response\":{\"response_id\":");
	buf_json_cstr(&ev, response_id);
	/* With no question there is nothing to echo; the answer is 404. */
	buf_puts(&ev, ",\"digest\":");
	if (qn.found)
		buf_json_str(&ev, qn.q.f[I_DIGEST].p, qn.q.f[I_DIGEST].n);
	else
		buf_puts(&ev, "\"0000000000000000000000000000000000000000"
		    "000000000000000000000000\"");
	if (qn.found && qn.q.f[I_NONCE].p != NULL) {
		buf_puts(&ev, ",\"nonce\":");
		buf_json_str(&ev, qn.q.f[I_NONCE].p, qn.q.f[I_NONCE].n);
	}
	buf_puts(&ev, text != NULL ? ",\"text\":" : ",\"choice_id\":");
	buf_json_cstr(&ev, text != NULL ? text : choice);
	buf_puts(&ev, ",\"source\":");
	buf_json_cstr(&ev, source);
	if (device != NULL) {
		buf_puts(&ev, ",\"device_id\":");
		buf_json_cstr(&ev, device);
	}
	buf_puts(&ev, "}}");

	if (emit) {
		buf_putc(&ev, '\n');
		write_stdout(&ev);
		flush_stdout();
		status = 0;
	} else {
		/* The same path and rules as arc-apply; first valid wins. */
		apply_one(&ap, "answer", 1, ev.p, ev.len, false);
		if (!applier_commit(&ap))
			errx(EXIT_SYSTEM, "the answer was not applied");
		status = ap.status;
	}
done:
	if (jr == &j)
		journal_close(&j);
	else if (jr == &ap.j)
		applier_close(&ap);
	arena_free(&arena);
	free(path);
	free(asked);
	buf_free(&ev);
	return status;
}
