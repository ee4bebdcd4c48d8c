/*
 * arcacpscan.c: the top level of one JSON-RPC message as its bytes go by
 * (arc-acp(1) reads a stream it must forward unchanged), and what a
 * message's parsed form holds where arc-acp acts on it.  No I/O.
 */
#ifndef ARCACPSCAN_H
#define ARCACPSCAN_H

#define ACP_ID_MAX	256	/* a JSON-RPC id or method, as text */
#define ACP_SCAN_IDS	4	/* ids kept of a message that gives several */
#define ACP_NAME_RAW	40	/* longer, a name is none of ours */

enum acp_scan_ev { SC_MORE, SC_ID, SC_METHOD, SC_RESPONSE, SC_END, SC_BAD };

struct acp_scan {
	int		 st;	/* where in the grammar */
	int		 key;	/* which member's value is being read */
	int		 depth;	/* inside a nested value */
	bool		 esc;	/* after a backslash */
	bool		 nested_str;
	char		 name[ACP_NAME_RAW];	/* a member name, as written */
	size_t		 namelen;
	bool		 namelong;
	char		 val[ACP_ID_MAX];	/* the value of id or method */
	size_t		 vallen;
	bool		 vallong;
	/* the top level so far, names compared once unescaped */
	unsigned	 nid, nmethod, nresult, nparams;
	char		 id[ACP_SCAN_IDS][ACP_ID_MAX];	/* each id, as written */
	size_t		 idlen[ACP_SCAN_IDS];	/* 0: not an id (long, nested) */
	char		 method[ACP_ID_MAX];	/* the first method, as written */
	size_t		 methodlen;	/* 0: none, or long */
};

void	 acp_scan_init(struct acp_scan *);
/*
 * Feeds bytes until one tells something: returns how many were consumed
 * and, in *ev, what was seen (SC_MORE: nothing yet, all consumed).  After
 * SC_ID or SC_METHOD, val/vallen hold that member's value as written;
 * after SC_END the counts are the whole top level's.  SC_BAD: the top
 * level is not an object as JSON writes one; nothing more is read.
 */
size_t	 acp_scan_feed(struct acp_scan *, const char *, size_t,
	    enum acp_scan_ev *);
/* True when a member name anywhere in v is given twice in its object. */
bool	 acp_duplicated(const struct jval *);

#endif /* ARCACPSCAN_H */
