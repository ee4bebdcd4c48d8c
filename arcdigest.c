/*
 * What binds an answer to a question: SHA-256 digests over RFC 8785
 * canonical JSON, single-use nonces, random identifiers, and a constant-time
 * comparison for the secrets an answer echoes.
 */
#include <sha2.h>
#include <stdlib.h>
#include <string.h>

#include "arc.h"

void
sha256_hex(const void *data, size_t n, char out[ARC_HEX_DIGEST])
{
	SHA2_CTX ctx;

	SHA256Init(&ctx);
	SHA256Update(&ctx, data, n);
	SHA256End(&ctx, out);	/* lowercase hex, NUL-terminated */
}

/* 128 random bits, base64url without padding: 22 characters. */
void
mint_nonce(char out[32])
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	unsigned char	 r[18];
	size_t		 i, o = 0;

	arc4random_buf(r, 16);
	r[16] = r[17] = 0;
	for (i = 0; i < 18; i += 3) {
		uint32_t v = (uint32_t)r[i] << 16 | (uint32_t)r[i + 1] << 8 |
		    r[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = b64[v >> 6 & 63];
		out[o++] = b64[v & 63];
	}
	out[22] = '\0';	/* 16 bytes are 22 characters unpadded */
}

void
mint_id(const char *prefix, char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char	 r[12];
	char		 tail[25];
	size_t		 i;

	arc4random_buf(r, sizeof(r));
	for (i = 0; i < sizeof(r); i++) {
		tail[2 * i] = hex[r[i] >> 4];
		tail[2 * i + 1] = hex[r[i] & 15];
	}
	tail[24] = '\0';
	strlcpy(out, prefix, n);
	strlcat(out, tail, n);
}

/*
 * The length is not secret; the bytes are compared in constant time.
 * Debian's libbsd (0.11.7) does not ship timingsafe_bcmp, hence the loop.
 */
bool
secret_equal(const char *a, size_t an, const char *b, size_t bn)
{
	volatile unsigned char	 diff = 0;
	size_t			 i;

	if (an != bn)
		return false;
	for (i = 0; i < an; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

/* The first UTF-16 code unit of a code point: RFC 8785 sorts on those. */
static unsigned
utf16_unit(unsigned cp, unsigned *second)
{
	if (cp < 0x10000) {
		*second = 0;
		return cp;
	}
	cp -= 0x10000;
	*second = 0xDC00 + (cp & 0x3FF);
	return 0xD800 + (cp >> 10);
}

static int
utf16_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	const unsigned char *p = (const unsigned char *)a, *pe = p + an;
	const unsigned char *q = (const unsigned char *)b, *qe = q + bn;
	unsigned x2 = 0, y2 = 0, x, y;

	while ((p < pe || x2) && (q < qe || y2)) {
		unsigned xs, ys;
		if (x2) {
			x = x2;
			x2 = 0;
		} else {
			x = utf16_unit(utf8_next(&p), &xs);
			x2 = xs;
		}
		if (y2) {
			y = y2;
			y2 = 0;
		} else {
			y = utf16_unit(utf8_next(&q), &ys);
			y2 = ys;
		}
		if (x != y)
			return x < y ? -1 : 1;
	}
	if ((p < pe || x2) == (q < qe || y2))
		return 0;
	return p < pe || x2 ? 1 : -1;
}

static int
canonical_member_cmp(const void *a, const void *b)
{
	const struct jmember *x = *(struct jmember *const *)a;
	const struct jmember *y = *(struct jmember *const *)b;

	return utf16_cmp(x->name, x->namelen, y->name, y->namelen);
}

/*
 * RFC 8785 canonical form of a value.  Numbers are written as their JSON
 * literal (ARC's own numbers are integers, whose literal is canonical);
 * this form only decides whether two events have the same content.
 */
void
canonical_value(struct buf *b, const struct jval *v)
{
	struct jmember	**sorted;
	size_t		  i;

	switch (v->type) {
	case J_NULL:  buf_puts(b, "null"); break;
	case J_TRUE:  buf_puts(b, "true"); break;
	case J_FALSE: buf_puts(b, "false"); break;
	case J_NUMBER:
		if (v->len == 2 && memcmp(v->s, "-0", 2) == 0)
			buf_putc(b, '0');
		else
			buf_put(b, v->s, v->len);
		break;
	case J_STRING:
		buf_json_str(b, v->s, v->len);
		break;
	case J_ARRAY:
		buf_putc(b, '[');
		for (i = 0; i < v->n; i++) {
			if (i)
				buf_putc(b, ',');
			canonical_value(b, v->items[i]);
		}
		buf_putc(b, ']');
		break;
	case J_OBJECT:
		if ((sorted = reallocarray(NULL, v->n ? v->n : 1,
		    sizeof(*sorted))) == NULL)
			abort();
		for (i = 0; i < v->n; i++)
			sorted[i] = &v->members[i];
		qsort(sorted, v->n, sizeof(*sorted), canonical_member_cmp);
		buf_putc(b, '{');
		for (i = 0; i < v->n; i++) {
			if (i)
				buf_putc(b, ',');
			buf_json_str(b, sorted[i]->name, sorted[i]->namelen);
			buf_putc(b, ':');
			canonical_value(b, sorted[i]->value);
		}
		buf_putc(b, '}');
		free(sorted);
		break;
	}
}
