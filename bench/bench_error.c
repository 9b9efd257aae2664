/* The bench's own errors and allocation (bench_internal.h): a thread-local
 * message per failure, malloc with the bytes in the message when it fails. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"

static _Thread_local char message[512];

const char *spx_bench_last_error(void)
{
    return message;
}

spx_status bench_fail(spx_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return st;
}

spx_status bench_lib(spx_status st)
{
    if (st != SPX_OK) snprintf(message, sizeof message, "%s", spx_last_error());
    return st;
}

spx_status bench_alloc(void **p, size_t n, size_t size, const char *what)
{
    *p = NULL;
    if (size && n > SIZE_MAX / size)
        return bench_fail(SPX_ERR_OVERFLOW, "bench: %s: %zu x %zu bytes overflows", what, n, size);
    *p = malloc(n * size > 0 ? n * size : 1);
    if (!*p) return bench_fail(SPX_ERR_OOM, "bench: out of memory for %s (%zu bytes)", what, n * size);
    return SPX_OK;
}

spx_status bench_calloc(void **p, size_t n, size_t size, const char *what)
{
    spx_status st = bench_alloc(p, n, size, what);
    if (st == SPX_OK) memset(*p, 0, n * size);
    return st;
}
