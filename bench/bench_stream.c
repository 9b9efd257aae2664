/* STREAM triad, a[i] = b[i] + s*c[i], for the bench's ceiling on the CPU.
 * Each array holds max(3 x the last-level cache, 64M) doubles so that no
 * array stays cached; pages are first touched by the threads that use them
 * (same static schedule); best of 10 runs. Traffic counted: 3 arrays per
 * element (read b, read c, write a), STREAM's convention; with
 * write-allocate the hardware moves a fourth (reads a before writing it). */
#include <stdio.h>
#include <stdlib.h>

#include "bench_internal.h"
#include "core/llc.h"

#define TRIAD_RUNS 10
#define TRIAD_MIN_DOUBLES ((size_t)64 << 20)

size_t spx_bench_llc_bytes(void)
{
    return spx__llc_bytes();
}

static void triad(double *a, const double *b, const double *c, double s, long long n)
{
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

static void first_touch(double *a, double *b, double *c, long long n)
{
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        a[i] = 0.0;
        b[i] = 1.0;
        c[i] = 2.0;
    }
}

spx_status spx_bench_stream_triad(double *gbs, size_t *array_bytes)
{
    size_t n = 3 * spx_bench_llc_bytes() / sizeof(double);
    double *a = NULL, *b = NULL, *c = NULL, best = 0.0;
    spx_status st;
    if (n < TRIAD_MIN_DOUBLES) n = TRIAD_MIN_DOUBLES;
    BENCH_TRY(bench_alloc((void **)&a, n, sizeof *a, "STREAM array a"));
    BENCH_TRY(bench_alloc((void **)&b, n, sizeof *b, "STREAM array b"));
    BENCH_TRY(bench_alloc((void **)&c, n, sizeof *c, "STREAM array c"));
    first_touch(a, b, c, (long long)n);
    for (int r = 0; r < TRIAD_RUNS; r++) {
        double t0 = spx_bench_now();
        triad(a, b, c, 3.0, (long long)n);
        double t = spx_bench_now() - t0;
        if (r == 0 || t < best) best = t;
    }
    *gbs = 3.0 * (double)(n * sizeof(double)) / best * 1e-9;
    *array_bytes = n * sizeof(double);
cleanup:
    free(a);
    free(b);
    free(c);
    return st;
}
