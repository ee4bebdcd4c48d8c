/*
 * Binding what a person types to what they saw (arcbind.c).
 *
 * A person reads a question on one screen and answers on another, or
 * later: the key they paste, the number they type and the question they
 * read must all be the ones meant.  So a key may be given by an
 * unambiguous part of it (hook keys are long), a choice by the number it
 * was shown with, and an answer bound to the question read by its tag: the
 * first hex digits of its digest, as git prints short hashes.
 */
#ifndef ARCBIND_H
#define ARCBIND_H

#include "arc.h"
#include "arcstate.h"

/*
 * A tag as printed: 64 bits, so that no producer can make a changed
 * question with the tag of the one read (a short tag typed is still
 * taken, for a person's convenience, at their risk).
 */
#define TAG_SHOWN	16
#define TAG_MIN		8	/* as typed, at the least */
#define KEY_PART_MIN	4	/* characters of a key given by a part */

/* The tag of a question, as --show, --list and the picker print it. */
void	 question_tag(char out[TAG_SHOWN + 1], const struct rec *q);
/* A tag as typed: TAG_MIN to 64 hex digits, either case. */
bool	 tag_valid(const char *);
/* Whether the tag names this question (a prefix of its digest). */
bool	 tag_names(const char *tag, const struct rec *q);

enum key_found { KEY_EXACT, KEY_PART, KEY_NONE, KEY_AMBIGUOUS };
/*
 * The key a person typed: a key of the state as it is, else the one key,
 * active or settled, that it begins or ends (KEY_PART_MIN characters at
 * least).  For a person on a terminal only: a script names keys whole.  *key is
 * then that key (malloc'd); KEY_AMBIGUOUS lists the candidates on standard
 * error, KEY_NONE leaves the key as typed.
 */
enum key_found key_typed(struct state *, const char *typed, char **key);
/*
 * Whether typed, which no condition has as its key, is a part of one (or
 * more) as key_typed takes parts: so that a script, which names keys
 * whole, is told why its part was not taken.
 */
bool	 key_is_part(struct state *, const char *typed);

/*
 * A choice given on the command line: its id, or the number it is shown
 * with (1 is the first).  A number that is one choice's position and
 * another's id is ambiguous: NULL, *other the id's position (else 0).
 */
const struct jval *choice_given(const struct jval *choices, const char *,
	    size_t *other);
/* At the prompt a number is always the position shown; else an id. */
const struct jval *choice_typed(const struct jval *choices, const char *);
/* Whether a menu shows each id beside its label: a number, or unlike it. */
bool	 choice_ids_shown(const struct jval *choices);

#endif /* ARCBIND_H */
