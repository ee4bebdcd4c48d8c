/*
 * SHA-256 (arcsha256.c): the processor's SHA instructions where there are
 * some, libmd's portable code elsewhere; the same 32 bytes either way.
 */
#ifndef ARCSHA256_H
#define ARCSHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES	32

void	sha256(const void *, size_t, uint8_t out[SHA256_BYTES]);
/* libmd's, whatever the processor has: what t/unit holds the other to */
void	sha256_portable(const void *, size_t, uint8_t out[SHA256_BYTES]);
/* whether sha256() takes the SHA instructions here */
bool	sha256_accelerated(void);

#endif /* ARCSHA256_H */
