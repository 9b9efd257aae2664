/* Allocation with overflow checks, sizes in the error message, and a test hook
 * that makes the n-th allocation fail (the allocation-failure test walks n). */
#define _DEFAULT_SOURCE /* sysconf(_SC_PHYS_PAGES) */
#include "core/alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

#define SPX__ALIGN 64

/* Test hook state: allocations counted since the last spx__alloc_fail_at call,
 * and the one to fail (0: none). Only tests set it. */
static atomic_long spx__alloc_count;
static atomic_long spx__alloc_fail_n;

long spx__alloc_fail_at(long n)
{
    long made = atomic_exchange(&spx__alloc_count, 0);
    atomic_store(&spx__alloc_fail_n, n);
    return made;
}

spx_status spx__mul_size(size_t a, size_t b, size_t *out, const char *what)
{
    if (b != 0 && a > SIZE_MAX / b)
        return spx__error(SPX_ERR_OVERFLOW, "size of %s overflows (%zu x %zu)", what, a, b);
    *out = a * b;
    return SPX_OK;
}

spx_status spx__add_i64(int64_t a, int64_t b, int64_t *out, const char *what)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return spx__error(SPX_ERR_OVERFLOW, "%s overflows 64 bits", what);
    *out = a + b;
    return SPX_OK;
}

spx_status spx__alloc(void **p, size_t count, size_t size, const char *what)
{
    size_t bytes;
    *p = NULL;
    spx_status st = spx__mul_size(count, size, &bytes, what);
    if (st != SPX_OK) return st;
    long n = atomic_fetch_add(&spx__alloc_count, 1) + 1;
    long fail = atomic_load(&spx__alloc_fail_n);
    if (fail > 0 && n == fail)
        return spx__error(SPX_ERR_OOM, "cannot allocate %zu bytes for %s (injected)", bytes,
                          what);
    /* aligned_alloc wants a multiple of the alignment, and at least one block. */
    size_t rounded = bytes == 0 ? SPX__ALIGN : (bytes + SPX__ALIGN - 1) / SPX__ALIGN * SPX__ALIGN;
    if (rounded < bytes)
        return spx__error(SPX_ERR_OVERFLOW, "size of %s overflows (%zu bytes)", what, bytes);
    *p = aligned_alloc(SPX__ALIGN, rounded);
    if (!*p) return spx__error(SPX_ERR_OOM, "cannot allocate %zu bytes for %s", bytes, what);
    return SPX_OK;
}

spx_status spx__calloc(void **p, size_t count, size_t size, const char *what)
{
    spx_status st = spx__alloc(p, count, size, what);
    if (st == SPX_OK) memset(*p, 0, count * size);
    return st;
}

void spx__free(void *p) { free(p); }

size_t spx__physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0 || (size_t)pages > SIZE_MAX / (size_t)page) return 0;
    return (size_t)pages * (size_t)page;
}
