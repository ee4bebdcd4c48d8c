/*
 * arcacpmsg.c: what arc-acp(1) asks and answers, in words and in JSON.
 * An ACP request (session/request_permission, elicitation/create) in, the
 * ARC question that says what the agent wants out, with the map from the
 * person's answer back to the reply the agent expects.  No I/O.
 */
#ifndef ARCACPMSG_H
#define ARCACPMSG_H

#define ACP_CHOICES_MAX	12	/* ARC's bound on choices */
#define ACP_CHOICE_ID	65	/* [A-Za-z0-9_-]{1,64} and its NUL */

enum acp_ask_kind { ACP_PERMISSION, ACP_TEXT, ACP_CHOICE };

/* What the answer to one question maps back to. */
struct acp_ask {
	enum acp_ask_kind kind;
	size_t		 n;	/* choices */
	char		 choice[ACP_CHOICES_MAX][ACP_CHOICE_ID];
	struct buf	 values;	/* the JSON strings sent back, one a choice */
	size_t		 off[ACP_CHOICES_MAX], len[ACP_CHOICES_MAX];
	struct buf	 field;	/* elicitation: the field's name, as JSON */
	int		 text_max;	/* text: the bound */
};

/* Who asks: the agent's name, for the titles. */
struct acp_who {
	const char	*name;	/* never NULL */
};

/*
 * Turns the params of a request into the request object of an ARC event
 * (key and response.expires_at are the caller's: the object is left open
 * after "response":{...choices...}), and fills *ask.  False when ARC
 * cannot ask it (it stays with the editor); *why says why, in words that
 * quote nothing of the request.
 */
bool	 acp_permission(const struct jval *params, const struct acp_who *,
	    struct buf *request, struct acp_ask *, const char **why);
bool	 acp_elicitation(const struct jval *params, const struct acp_who *,
	    struct buf *request, struct acp_ask *, const char **why);
/*
 * The result member of the reply to the agent for an answer (a choice id
 * or a text), as JSON; false when the answer is none the question offered.
 */
bool	 acp_reply(const struct acp_ask *, const char *choice, size_t,
	    const char *text, size_t, struct buf *result);
void	 acp_ask_free(struct acp_ask *);
/* Text of at most max code points, cut with an ellipsis; NULs dropped;
 * one line (controls made spaces) when oneline. */
void	 acp_clip(struct buf *, const char *, size_t, size_t max, bool oneline);

#endif /* ARCACPMSG_H */
