/*
 * The filter: input files as NDJSON lines, standard output, the applier
 * (the rules' verdict, the journal's record, and the one writer of a
 * result line), reading the journal as it is, and an answer as an event.
 * A command line's parsing is arcusage.c's; handing an event to a
 * command, arcvia.c's.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "arc.h"
#include "arcproblem.h"
#include "arcvalidate.h"
#include "arcrecord.h"
#include "arcstate.h"
#include "arcrules.h"
#include "arcjournal.h"
#include "arcoffdevice.h"
#include "arcevent.h"
#include "arcfilter.h"

/* ---- shared by the commands ---- */

int
open_input(const char *path)
{
	int fd;

	if (strcmp(path, "-") == 0)
		return STDIN_FILENO;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		warn("%s", path);
	return fd;
}

void
close_input(int fd)
{
	if (fd != STDIN_FILENO)
		(void)close(fd);
}

/* Writes a buffer to standard output; a failed write is a system failure. */
void
write_stdout(const struct buf *b)
{
	if (b->len > 0 && fwrite(b->p, 1, b->len, stdout) != b->len)
		err(EXIT_SYSTEM, "standard output");
}

/* Writes what stdout holds; a failed write is a system failure. */
void
flush_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		err(EXIT_SYSTEM, "standard output");
}

/* ---- applying: the one writer of a result line ---- */

void
current_of(struct journal *j, struct arena *a, struct sv key,
    struct current *cur)
{
	memset(cur, 0, sizeof(*cur));
	if (key.p == NULL || (cur->c = state_find(j->st, key)) == NULL)
		return;
	if (cur->c->notification.len > 0) {
		cur->ntext = journal_rec(j, a, cur->c, false, &cur->n);
		cur->has_n = true;
	}
	if (cur->c->interaction.len > 0) {
		cur->qtext = journal_rec(j, a, cur->c, true, &cur->q);
		cur->has_q = true;
	}
}

static void
string_or_null(struct buf *b, struct sv v)
{
	if (v.p != NULL)
		buf_json_str(b, v.p, v.n);
	else
		buf_puts(b, "null");
}

/*
 * The stored question that goes with a change: none when the change
 * begins a new lifecycle under the key, whose notification the old
 * question does not belong to.
 */
static const char *
stored_question(const struct change *ch, const struct current *cur)
{
	if (!cur->has_q)
		return NULL;
	if (ch != NULL && ch->has_n &&
	    !sv_same(ch->n.f[N_ID], cur->q.f[I_NOTIFICATION_ID]))
		return NULL;
	return cur->qtext;
}

/*
 * The condition's records as the off-device setting lets them leave
 * (arc-apply --off-device): a withheld question is null.
 */
static void
records_off(struct buf *out, struct arena *a, const struct offdevice *off,
    const struct change *ch, const struct current *cur)
{
	struct rec	 n, q;
	const char	*qtext;
	bool		 has_n, has_q, goes;

	if ((has_n = ch != NULL && ch->has_n))
		n = ch->n;
	else
		has_n = cur->ntext != NULL && rec_parse(a, cur->ntext, false,
		    &n);
	if ((has_q = ch != NULL && ch->has_q))
		q = ch->q;
	else
		has_q = (qtext = stored_question(ch, cur)) != NULL &&
		    rec_parse(a, qtext, true, &q);
	goes = offdevice_apply(off, has_n ? &n : NULL, has_q ? &q : NULL);
	buf_puts(out, "\"notification\":");
	if (has_n)
		rec_write(out, &n, false, true);
	else
		buf_puts(out, "null");
	buf_puts(out, ",\"interaction\":");
	if (has_q && goes)
		rec_write(out, &q, true, true);
	else
		buf_puts(out, "null");
}

/*
 * A result line, arc-apply(1)'s: the line, status, replayed, event_id,
 * key, then the condition's records as they now are (the change's, else
 * the stored ones; with off, as they may leave) or the error object.
 */
static void
result_line(struct buf *out, struct arena *a, uint64_t lineno,
    const struct verdict *v, struct sv event_id, struct sv key,
    const struct change *ch, const struct current *cur,
    const struct offdevice *off)
{
	buf_puts(out, "{\"line\":");
	buf_u64(out, lineno);
	buf_puts(out, ",\"status\":");
	buf_i64(out, v->status);
	buf_putc(out, ',');
	if (v->replayed)
		buf_puts(out, "\"replayed\":true,");
	buf_puts(out, "\"event_id\":");
	string_or_null(out, event_id);
	buf_puts(out, ",\"key\":");
	string_or_null(out, key);
	buf_putc(out, ',');
	if (v->code != ARC_OK) {
		error_object(out, v->code, v->message, v->path, v->state);
	} else if (off != NULL) {
		records_off(out, a, off, ch, cur);
	} else {
		buf_puts(out, "\"notification\":");
		if (ch != NULL && ch->has_n)
			rec_write(out, &ch->n, false, true);
		else
			record_write_full(out, a, cur->ntext, false);
		buf_puts(out, ",\"interaction\":");
		if (ch != NULL && ch->has_q)
			rec_write(out, &ch->q, true, true);
		else
			record_write_full(out, a, stored_question(ch, cur),
			    true);
	}
	buf_puts(out, "}\n");
}

/* An event refused before the rules: the first problem found is its verdict. */
static void
refused(struct applier *ap, const char *name, uint64_t lineno,
    const struct jval *root)
{
	const struct problem *p = &ap->pr.list[0];

	memset(&ap->last, 0, sizeof(ap->last));
	ap->last.code = p->code;
	ap->last.status = arc_code_status(p->code);
	ap->last.path = p->path;
	strlcpy(ap->last.message, p->message, sizeof(ap->last.message));
	result_line(&ap->out, &ap->arena, lineno, &ap->last,
	    sv_json(json_get(root, "event_id")),
	    sv_json(json_get(json_get(root, "request"), "key")), NULL, NULL,
	    ap->off);
	if (!ap->quiet)
		diag_problems(name, lineno, &ap->pr);
	ap->status = EXIT_REJECTED;
}

/*
 * Validates and applies one event under the lock: the rules judge it
 * against the condition of its key as stored, an accepted change goes to
 * the journal's batch, and its result line to ap->out (printed once the
 * batch is on disk).  ap->last is its verdict.
 */
void
apply_one(struct applier *ap, const char *name, uint64_t lineno,
    const char *line, size_t len, bool too_large)
{
	struct jval	*root;
	struct current	 cur;
	struct change	 ch;
	struct sv	 key;
	const char	*clock = arc_now(), *now;

	arena_reset(&ap->arena);
	if (!arc_validate_line(&ap->arena, line, too_large ? ARC_LINE_MAX + 1 :
	    len, &ap->pr, &root)) {
		refused(ap, name, lineno, root);
		return;
	}
	if (ap->answers_only && !json_is(json_get(root, "event_type"),
	    "response.submitted")) {
		problems_clear(&ap->pr);
		problems_add_at(&ap->pr, ARC_INVALID, "/event_type", "only "
		    "response.submitted events are taken here (--answers)");
		refused(ap, name, lineno, root);
		return;
	}
	key = rules_key(&ap->arena, root);
	current_of(&ap->j, &ap->arena, key, &cur);
	now = journal_clock(&ap->j, clock);
	rules_apply(ap->j.st, &ap->arena, root, &cur, clock, now, &ch,
	    &ap->last);
	if (ap->last.code == ARC_NOT_FOUND && ap->not_found_why != NULL) {
		strlcat(ap->last.message, "; ", sizeof(ap->last.message));
		strlcat(ap->last.message, ap->not_found_why,
		    sizeof(ap->last.message));
	}
	if (ap->last.changed)
		journal_record(&ap->j, now, &ch);
	result_line(&ap->out, &ap->arena, lineno, &ap->last,
	    sv_json(json_get(root, "event_id")), key, &ch, &cur, ap->off);
	if (ap->last.code != ARC_OK) {
		struct problem p = { ap->last.code, (char *)ap->last.path,
		    "" };
		strlcpy(p.message, ap->last.message, sizeof(p.message));
		if (!ap->quiet)
			diag_problem(name, lineno, &p);
		ap->status = EXIT_REJECTED;
	}
}

/* Results reach standard output only once their records are synced. */
bool
applier_commit(struct applier *ap)
{
	if (!journal_append(&ap->j))
		return false;
	journal_unlock(&ap->j);
	if (!ap->keep_out) {	/* arc-hook reads them itself */
		write_stdout(&ap->out);
		ap->out.len = 0;
		flush_stdout();
	}
	/*
	 * With the results out, the journal may earn a compaction; one that
	 * fails (it said why) undoes nothing that was stored and reported.
	 */
	(void)journal_maintain(&ap->j, arc_now());
	return true;
}

bool
applier_open(struct applier *ap, const char *journal_option)
{
	char *path = journal_default_path(journal_option);
	bool ok;

	memset(ap, 0, sizeof(*ap));
	ok = journal_open(&ap->j, path, true);
	free(path);
	return ok;
}

void
applier_close(struct applier *ap)
{
	journal_close(&ap->j);
	arena_free(&ap->arena);
	problems_clear(&ap->pr);
	buf_free(&ap->out);
}

/*
 * Reads the journal as it is now, under a shared lock; past: every
 * lifecycle in it (journal_keep_past).
 */
bool
read_journal(struct journal *j, const char *option, bool past)
{
	char	*path = journal_default_path(option);
	bool	 ok = journal_open(j, path, false);

	if (ok && past)
		journal_keep_past(j);
	ok = ok && journal_lock(j, false);

	free(path);
	journal_unlock(j);
	return ok;
}

/* Reads the current question under key from a locked, caught-up journal. */
void
find_question(struct journal *j, struct arena *a, const char *key,
    struct question *out)
{
	struct condition	*c = j->st ? state_lookup(j->st, key) : NULL;

	memset(out, 0, sizeof(*out));
	if (c == NULL || c->interaction.len == 0)
		return;
	out->text = (char *)journal_rec(j, a, c, true, &out->q);
	out->found = true;
}

/* ---- an answer, as an event ---- */

/*
 * The response.submitted event that answers qn under key (arc-answer's,
 * arc-web's).  With no question there is nothing to echo: the digest is
 * zeros, and the answer is a 404.
 */
void
build_event(struct buf *ev, const char *key, const struct question *qn,
    const struct answerer *who, const char *answer, bool is_text)
{
	struct event_head	 h = { .type = "response.submitted",
				    .sender_id = who->sender, .no_context = true };
	char			 rid[40];
	bool			 first;

	mint_id("resp_", rid, sizeof(rid));
	event_open(ev, &h, &first);
	event_member(ev, &first, "key", key);
	buf_puts(ev, "},\"response\":{\"response_id\":");
	buf_json_cstr(ev, who->response_id != NULL ? who->response_id : rid);
	buf_puts(ev, ",\"digest\":");
	if (qn->found)
		buf_json_str(ev, qn->q.f[I_DIGEST].p, qn->q.f[I_DIGEST].n);
	else
		buf_puts(ev, "\"0000000000000000000000000000000000000000"
		    "000000000000000000000000\"");
	if (qn->found && qn->q.f[I_NONCE].p != NULL) {
		buf_puts(ev, ",\"nonce\":");
		buf_json_str(ev, qn->q.f[I_NONCE].p, qn->q.f[I_NONCE].n);
	}
	buf_puts(ev, is_text ? ",\"text\":" : ",\"choice_id\":");
	buf_json_cstr(ev, answer);
	buf_puts(ev, ",\"source\":");
	buf_json_cstr(ev, who->source);
	if (who->device != NULL) {
		buf_puts(ev, ",\"device_id\":");
		buf_json_cstr(ev, who->device);
	}
	event_close(ev, &(struct event_tail){ 0 });	/* the response's end */
}
