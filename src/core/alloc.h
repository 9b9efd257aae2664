/* Allocation: every library allocation goes through these, so that a failure
 * becomes SPX_ERR_OOM with the size, and tests can make the n-th one fail. */
#ifndef SPX_CORE_ALLOC_H
#define SPX_CORE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "spx.h"

/* *p = malloc(count * size), aligned to 64 bytes; overflow and failure are
 * errors naming what. count 0 gives a valid minimal allocation. */
spx_status spx__alloc(void **p, size_t count, size_t size, const char *what);
/* The same, zero-filled. */
spx_status spx__calloc(void **p, size_t count, size_t size, const char *what);
void spx__free(void *p);

/* a * b and a + b for sizes; SPX_ERR_OVERFLOW naming what on overflow. */
spx_status spx__mul_size(size_t a, size_t b, size_t *out, const char *what);
spx_status spx__add_i64(int64_t a, int64_t b, int64_t *out, const char *what);

/* Bytes of physical memory of this machine (0 when unknown): a request that
 * needs more is refused before it is tried. */
size_t spx__physical_memory(void);

/* Test hook: the n-th allocation from now fails (n >= 1); 0 disables.
 * Returns how many allocations were made since the last call. */
long spx__alloc_fail_at(long n);

#endif
