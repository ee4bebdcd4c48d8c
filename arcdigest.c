/*
 * What binds an answer to a question: SHA-256 digests (over RFC 8785
 * canonical JSON, which arcjsonout.c writes), single-use nonces, random
 * identifiers, and a constant-time comparison for the secrets an answer
 * echoes.
 */
#include <stdlib.h>
#include <string.h>

#include "arc.h"
#include "arcsha256.h"

/* n bytes as 2n lowercase hex digits and a NUL. */
static void
hex_encode(const uint8_t *p, size_t n, char *out)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex[p[i] >> 4];
		out[2 * i + 1] = hex[p[i] & 15];
	}
	out[2 * n] = '\0';
}

void
sha256_hex(const void *data, size_t n, char out[ARC_HEX_DIGEST])
{
	uint8_t	 d[SHA256_BYTES];

	sha256(data, n, d);
	hex_encode(d, sizeof(d), out);
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

/*
 * The generator's first call maps its state and asks the kernel for a
 * seed, a twentieth of a millisecond here: a writer has it done before it
 * takes the journal's lock, not under it.
 */
void
random_ready(void)
{
	uint8_t	 b;

	arc4random_buf(&b, sizeof(b));
}

void
mint_id(const char *prefix, char *out, size_t n)
{
	uint8_t	 r[12];
	char	 tail[2 * sizeof(r) + 1];

	arc4random_buf(r, sizeof(r));
	hex_encode(r, sizeof(r), tail);
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
