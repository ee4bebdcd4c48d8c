/*
 * CRC-32C (Castagnoli), the checksum of every journal record, as LevelDB
 * and RocksDB checksum theirs: it finds every single-bit error, every
 * burst up to 32 bits, and costs a fraction of a nanosecond a byte where
 * the processor has SSE 4.2's crc32 instruction.  Debian packages no C
 * library for it (python3-crc32c, which the tests check us against, is
 * Python only), so it is here: a table for any machine, the instruction
 * where there is one.
 */
#include <stdint.h>
#include <string.h>

#include "arc.h"

#define POLY	0x82f63b78u	/* reflected Castagnoli polynomial */

static uint32_t table[256];

static void
make_table(void)
{
	uint32_t	c;
	unsigned	i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? c >> 1 ^ POLY : c >> 1;
		table[i] = c;
	}
}

static uint32_t
crc_table(uint32_t crc, const unsigned char *p, size_t n)
{
	if (table[1] == 0)
		make_table();
	while (n-- > 0)
		crc = table[(crc ^ *p++) & 0xff] ^ crc >> 8;
	return crc;
}

#if defined(__x86_64__)
/*
 * The instruction takes three cycles to give what the next one needs, and
 * can start one a cycle: three streams at once, LANE bytes each, keep it
 * busy.  What a stream started from zero gives is joined to what came
 * before it by moving that past LANE zero bytes (the CRC of the whole,
 * register by register, is linear), which four tables do at once.
 */
#define LANE	128

static uint32_t	lane_shift[4][256];

static uint64_t
word_at(const unsigned char *p)
{
	uint64_t	w;

	memcpy(&w, p, sizeof(w));
	return w;
}

__attribute__((target("sse4.2")))
static uint32_t
past_zeros(uint32_t crc, size_t n)
{
	uint64_t	c = crc;

	for (; n >= 8; n -= 8)
		c = __builtin_ia32_crc32di(c, 0);
	return (uint32_t)c;
}

/* Each table from its eight bits' columns: the map is linear. */
__attribute__((target("sse4.2")))
static void
make_lane_shift(void)
{
	uint32_t	column[32];
	unsigned	i, k, b;

	for (i = 0; i < 32; i++)
		column[i] = past_zeros(UINT32_C(1) << i, LANE);
	for (k = 0; k < 4; k++) {
		lane_shift[k][0] = 0;
		for (b = 1; b < 256; b++)
			lane_shift[k][b] = lane_shift[k][b & (b - 1)] ^
			    column[8 * k + (unsigned)__builtin_ctz(b)];
	}
}

static uint32_t
shift_lane(uint32_t c)
{
	return lane_shift[0][c & 0xff] ^ lane_shift[1][c >> 8 & 0xff] ^
	    lane_shift[2][c >> 16 & 0xff] ^ lane_shift[3][c >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t
crc_sse42(uint32_t crc, const unsigned char *p, size_t n)
{
	uint64_t	c = crc, c1, c2;
	size_t		i;

	if (n >= 3 * LANE && lane_shift[0][1] == 0)
		make_lane_shift();
	for (; n >= 3 * LANE; n -= 3 * LANE, p += 3 * LANE) {
		c1 = c2 = 0;
		for (i = 0; i < LANE; i += 8) {
			c = __builtin_ia32_crc32di(c, word_at(p + i));
			c1 = __builtin_ia32_crc32di(c1, word_at(p + LANE + i));
			c2 = __builtin_ia32_crc32di(c2,
			    word_at(p + 2 * LANE + i));
		}
		c = shift_lane(shift_lane((uint32_t)c) ^ (uint32_t)c1) ^
		    (uint32_t)c2;
	}
	for (; n >= 8; n -= 8, p += 8)
		c = __builtin_ia32_crc32di(c, word_at(p));
	crc = (uint32_t)c;
	for (; n > 0; n--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

uint32_t
crc32c(const void *data, size_t n)
{
	return crc32c_extend(0, data, n);
}

/* The CRC-32C of what crc covered and then data: one computed in pieces. */
uint32_t
crc32c_extend(uint32_t crc, const void *data, size_t n)
{
	static int	 have_sse42 = -1;

	crc ^= 0xffffffffu;

#if defined(__x86_64__)
	if (have_sse42 == -1) {
		__builtin_cpu_init();
		have_sse42 = __builtin_cpu_supports("sse4.2");
	}
	if (have_sse42)
		return crc_sse42(crc, data, n) ^ 0xffffffffu;
#else
	(void)have_sse42;
#endif
	return crc_table(crc, data, n) ^ 0xffffffffu;
}
