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
__attribute__((target("sse4.2")))
static uint32_t
crc_sse42(uint32_t crc, const unsigned char *p, size_t n)
{
	uint64_t	c = crc, w;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
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
