/*
 * SHA-256 with the processor's SHA instructions where it has them (x86's
 * SHA extensions, in every x86-64 processor of the last years), libmd's
 * portable code elsewhere.  Every event is hashed two or three times (its
 * identity, its canonical form, its question), a third of a bulk apply's
 * instructions on libmd; libcrypto has the instructions too, but loading
 * it costs every short command (a hook call, one answer) more than all
 * its hashing (2.8 M instructions of relocations, 5.3 M more to fetch a
 * method through EVP).  The rounds are FIPS 180-4's, two at a time as
 * sha256rnds2 does them; the message schedule is sha256msg1 and
 * sha256msg2's.  t/unit holds this against libmd on every length to two
 * blocks and more, and against FIPS 180-2's examples.
 */
#include <sha2.h>
#include <stdint.h>
#include <string.h>

#include "arc.h"
#include "arcsha256.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

/*
 * The state's eight words, A..H, in the two registers the instructions
 * take: ABEF and CDGH (A and C in the high lanes).  Each block: sixteen
 * steps of four rounds, the first four of the message's words as read
 * (big-endian), the rest scheduled from the four steps before.
 */
__attribute__((target("sha,sse4.1,ssse3")))
static void
blocks_sha_ni(uint32_t state[8], const unsigned char *p, size_t nblocks)
{
	const __m128i	 swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL,
			    0x0405060700010203ULL);
	__m128i		 abef, cdgh, t, save_abef, save_cdgh, wk, w[4];
	int		 i;

	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]),
	    0xb1);						/* B A D C */
	cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]),
	    0x1b);						/* H G F E */
	abef = _mm_alignr_epi8(t, cdgh, 8);			/* F E B A */
	cdgh = _mm_blend_epi16(cdgh, t, 0xf0);			/* H G D C */
	for (; nblocks > 0; nblocks--, p += 64) {
		save_abef = abef;
		save_cdgh = cdgh;
		for (i = 0; i < 16; i++) {
			if (i < 4)
				w[i] = _mm_shuffle_epi8(_mm_loadu_si128(
				    (const __m128i *)(p + 16 * i)), swap);
			else
				/* W[t] from W[t-16..t-1], four at a time */
				w[i % 4] = _mm_sha256msg2_epu32(_mm_add_epi32(
				    _mm_sha256msg1_epu32(w[i % 4],
				    w[(i + 1) % 4]), _mm_alignr_epi8(
				    w[(i + 3) % 4], w[(i + 2) % 4], 4)),
				    w[(i + 3) % 4]);
			wk = _mm_add_epi32(w[i % 4],
			    _mm_loadu_si128((const __m128i *)&K[4 * i]));
			/*
			 * Two rounds each: after the first, cdgh holds the new
			 * ABEF and abef the new CDGH; the second puts them back.
			 */
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
			abef = _mm_sha256rnds2_epu32(abef, cdgh,
			    _mm_shuffle_epi32(wk, 0x0e));
		}
		abef = _mm_add_epi32(abef, save_abef);
		cdgh = _mm_add_epi32(cdgh, save_cdgh);
	}
	t = _mm_shuffle_epi32(abef, 0x1b);			/* A B E F */
	cdgh = _mm_shuffle_epi32(cdgh, 0xb1);			/* G H C D */
	_mm_storeu_si128((__m128i *)&state[0],
	    _mm_blend_epi16(t, cdgh, 0xf0));			/* A B C D */
	_mm_storeu_si128((__m128i *)&state[4],
	    _mm_alignr_epi8(cdgh, t, 8));			/* E F G H */
}

/* SHA, SSE 4.1 and SSSE3, as CPUID says (leaf 7's EBX bit 29, leaf 1's ECX). */
static bool
have_sha_ni(void)
{
	unsigned	a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) ||
	    !(c & bit_SSSE3))
		return false;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return (b & (1u << 29)) != 0;
}

static void
sha256_sha_ni(const void *data, size_t n, uint8_t out[SHA256_BYTES])
{
	uint32_t	 state[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};
	const unsigned char *p = data;
	unsigned char	 tail[128];
	size_t		 full = n / 64, rest = n % 64, len;
	uint64_t	 bits = (uint64_t)n * 8;
	int		 i;

	blocks_sha_ni(state, p, full);
	/* the rest, 0x80, zeros, the length in bits: one block or two */
	memset(tail, 0, sizeof(tail));
	memcpy(tail, p + 64 * full, rest);
	tail[rest] = 0x80;
	len = rest < 56 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[len - 1 - i] = (unsigned char)(bits >> (8 * i));
	blocks_sha_ni(state, tail, len / 64);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(state[i] >> 24);
		out[4 * i + 1] = (uint8_t)(state[i] >> 16);
		out[4 * i + 2] = (uint8_t)(state[i] >> 8);
		out[4 * i + 3] = (uint8_t)state[i];
	}
}
#endif

void
sha256_portable(const void *data, size_t n, uint8_t out[SHA256_BYTES])
{
	SHA2_CTX	ctx;

	SHA256Init(&ctx);
	SHA256Update(&ctx, data, n);
	SHA256Final(out, &ctx);
}

void
sha256(const void *data, size_t n, uint8_t out[SHA256_BYTES])
{
#if defined(__x86_64__)
	static int	 sha_ni = -1;

	if (sha_ni == -1)
		sha_ni = have_sha_ni();
	if (sha_ni) {
		sha256_sha_ni(data, n, out);
		return;
	}
#endif
	sha256_portable(data, n, out);
}

bool
sha256_accelerated(void)
{
#if defined(__x86_64__)
	return have_sha_ni();
#else
	return false;
#endif
}
