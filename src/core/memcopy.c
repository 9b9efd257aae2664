/* Parallel memcpy: the range is cut into one contiguous piece per thread,
 * each a multiple of 4 KiB (the last takes the rest), so pieces do not share
 * pages or cache lines. */
#include "core/memcopy.h"

#include <omp.h>
#include <string.h>

#define PIECE_ALIGN ((size_t)4096)
#define SERIAL_BELOW ((size_t)1 << 20)

void spx__parallel_memcpy(void *dst, const void *src, size_t n)
{
    if (n < SERIAL_BELOW) {
        if (n) memcpy(dst, src, n);
        return;
    }
#pragma omp parallel
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t piece = (n / nt + PIECE_ALIGN - 1) / PIECE_ALIGN * PIECE_ALIGN;
        size_t beg = t * piece < n ? t * piece : n;
        size_t end = beg + piece < n ? beg + piece : n;
        if (t + 1 == nt) end = n;
        if (end > beg) memcpy((char *)dst + beg, (const char *)src + beg, end - beg);
    }
}

void spx__parallel_touch(void *p, size_t n)
{
    char *c = p;
    const long pages = (long)((n + PIECE_ALIGN - 1) / PIECE_ALIGN);
#pragma omp parallel for schedule(static) if (n >= SERIAL_BELOW)
    for (long k = 0; k < pages; k++) c[(size_t)k * PIECE_ALIGN] = 0;
}
