/*
 * What of a condition leaves the host (arcoffdevice.c): the off-device
 * content policy that arc-web(8) and arc-mqtt(1) share, applied to the
 * records only after the request is stored here.
 */
#ifndef ARCOFFDEVICE_H
#define ARCOFFDEVICE_H

#include "arc.h"
#include "arcrecord.h"

enum off_level { OFF_EVERYTHING, OFF_NO_MESSAGE, OFF_TITLE_ONLY };

struct offdevice {
	enum off_level	 level;
	bool		 project, session;	/* whether they go */
};

/*
 * The setting: ARC_OFF_DEVICE when it is set, else the file off-device
 * beside the journal, else everything.  False, with a warning, when it
 * cannot be read or is not well formed: the caller sends nothing.
 */
bool	offdevice_read(const char *journal, struct offdevice *);
/*
 * Blanks in the records what does not leave.  Returns false when the
 * question's text is withheld: then q must not leave at all (no digest,
 * no nonce), and it cannot be answered from that route.  Either record
 * may be NULL.
 */
bool	offdevice_apply(const struct offdevice *, struct rec *n,
	    struct rec *q);
/*
 * Whether a question is shown off the device (its text leaves): the one
 * decision for the page, its answers, the stream, the exec sink and the
 * mirror.  n may be NULL when the condition has no notification record.
 */
bool	offdevice_shows(const struct offdevice *, const struct rec *n,
	    const struct rec *q);

#endif /* ARCOFFDEVICE_H */
