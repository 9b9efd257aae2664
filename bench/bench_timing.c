/* Timing of batches of calls (bench_internal.h): calibration batches double
 * the call count (or jump to the estimate) until one batch lasts >= 50 ms;
 * then the timed batches of that count. Per batch, seconds per call; the
 * median, the extremes and the quartiles (linear between sorted batches) are
 * the result, so that a table can say how far the batches spread. */
#define _DEFAULT_SOURCE /* getloadavg */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "bench_cuda.h"
#include "bench_internal.h"

#define BATCH_MIN_SECONDS 0.05
#define BATCHES_DEFAULT 10
#define BATCHES_MAX 1000

double spx_bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double bench_load1(void)
{
    double load[1];
    return getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

static spx_status timed_batch(bench_call_fn call, void *ctx, int sync, int64_t calls,
                              double *seconds)
{
    double t0 = spx_bench_now();
    for (int64_t k = 0; k < calls; k++) {
        spx_status st = call(ctx);
        if (st != SPX_OK) return st;
    }
    spx_status st = sync ? bench_cuda_sync() : SPX_OK;
    *seconds = spx_bench_now() - t0;
    return st;
}

spx_status bench_time_once(bench_call_fn call, void *ctx, int sync, double *seconds)
{
    return timed_batch(call, ctx, sync, 1, seconds);
}

/* Grow the batch until it lasts BATCH_MIN_SECONDS (or run the fixed count once). */
static spx_status calibrate(bench_call_fn call, void *ctx, int sync, int64_t fixed, int64_t *calls)
{
    double s;
    *calls = fixed > 0 ? fixed : 1;
    for (;;) {
        spx_status st = timed_batch(call, ctx, sync, *calls, &s);
        if (st != SPX_OK || fixed > 0 || s >= BATCH_MIN_SECONDS) return st;
        double grow = s > 0.0 ? 1.25 * BATCH_MIN_SECONDS / s : 100.0;
        grow = grow < 2.0 ? 2.0 : grow > 100.0 ? 100.0 : grow;
        *calls = (int64_t)ceil((double)*calls * grow);
    }
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The value at fraction q of the sorted v[0..n-1], linear between neighbours. */
static double quantile(const double *v, int n, double q)
{
    double pos = q * (double)(n - 1);
    int lo = (int)floor(pos);
    int hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (pos - (double)lo) * (v[hi] - v[lo]);
}

spx_status bench_time_calls(bench_call_fn call, void *ctx, int sync, int64_t fixed, int batches,
                            bench_stats *s)
{
    double per_call[BATCHES_MAX];
    int64_t calls;
    int n = batches > 0 ? (batches < BATCHES_MAX ? batches : BATCHES_MAX) : BATCHES_DEFAULT;
    spx_status st = calibrate(call, ctx, sync, fixed, &calls);
    for (int b = 0; b < n && st == SPX_OK; b++) {
        st = timed_batch(call, ctx, sync, calls, &per_call[b]);
        per_call[b] /= (double)calls;
    }
    if (st != SPX_OK) return st;
    qsort(per_call, (size_t)n, sizeof per_call[0], compare_doubles);
    s->median = quantile(per_call, n, 0.5);
    s->q1 = quantile(per_call, n, 0.25);
    s->q3 = quantile(per_call, n, 0.75);
    s->min = per_call[0];
    s->max = per_call[n - 1];
    s->batches = n;
    s->calls = calls;
    return SPX_OK;
}

void bench_stats_to_ms(const bench_stats *s, spx_bench_spread *out)
{
    out->median_ms = 1e3 * s->median;
    out->min_ms = 1e3 * s->min;
    out->max_ms = 1e3 * s->max;
    out->q1_ms = 1e3 * s->q1;
    out->q3_ms = 1e3 * s->q3;
    out->batches = s->batches;
    out->calls = s->calls;
}
