/* The gather bound of `spx bench --gather`: the access pattern of SpMV alone,
 *
 *   s += x[col[k]]   for every nonzero k, split evenly among the threads,
 *
 * col streamed (4 bytes per nonzero, prefetched ahead as the kernels do), x
 * read where the matrix's columns point; no values, no row offsets, no y.
 * With reorder=rcm|degree in params the columns are those of P A P^T
 * (src/core/order.h), as a reordered plan sees them. Timed like a format:
 * batches of >= 50 ms, median of 10. The record's gbs is the bytes model of
 * the full SpMV over that time, so gbs / STREAM is the fraction of STREAM an
 * SpMV would reach if it ran at the speed of its gather: when a format comes
 * close to it, the gather limits, not the format.
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "core/order.h"

#define GATHER_BATCH_SECONDS 0.05
#define GATHER_BATCHES 10
#define GATHER_PF_AHEAD 256 /* columns ahead, as the csr and sell kernels */

/* Where each pass's sum goes, so that the compiler keeps the loads. */
static volatile double gather_sink;

static int gather_threads(int threads)
{
    return threads > 0 ? threads : omp_get_max_threads();
}

/* Sum of x[col[k]], k < nnz, each thread over an even share. */
static double gather_sum(const int32_t *col, const double *x, int64_t nnz, int threads)
{
    double total = 0.0;
#pragma omp parallel num_threads(gather_threads(threads)) reduction(+ : total)
    {
        const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
        const int64_t hi = nnz * (t + 1) / T;
        int64_t k = nnz * t / T;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        for (; k + 4 <= hi; k += 4) {
            if ((k & 15) == 0) __builtin_prefetch(col + k + GATHER_PF_AHEAD, 0, 3);
            s0 += x[col[k]];
            s1 += x[col[k + 1]];
            s2 += x[col[k + 2]];
            s3 += x[col[k + 3]];
        }
        for (; k < hi; k++)
            s0 += x[col[k]];
        total += (s0 + s1) + (s2 + s3);
    }
    return total;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds per pass over batches of >= GATHER_BATCH_SECONDS. */
static double time_gather(const spx_matrix *A, const double *x, int threads)
{
    double per_pass[GATHER_BATCHES], s = 0.0;
    int64_t calls = 1;
    for (;;) {
        double t0 = spx_bench_now();
        for (int64_t c = 0; c < calls; c++)
            gather_sink = gather_sum(A->col32, x, A->nnz, threads);
        s = spx_bench_now() - t0;
        if (s >= GATHER_BATCH_SECONDS) break;
        calls *= s > 0.0 && GATHER_BATCH_SECONDS / s < 100.0 ? 2 : 100;
    }
    for (int b = 0; b < GATHER_BATCHES; b++) {
        double t0 = spx_bench_now();
        for (int64_t c = 0; c < calls; c++)
            gather_sink = gather_sum(A->col32, x, A->nnz, threads);
        per_pass[b] = (spx_bench_now() - t0) / (double)calls;
    }
    qsort(per_pass, GATHER_BATCHES, sizeof per_pass[0], compare_doubles);
    return 0.5 * (per_pass[GATHER_BATCHES / 2 - 1] + per_pass[GATHER_BATCHES / 2]);
}

/* spx__params_each callback: the reorder= mode of the params, other keys ignored. */
static spx_status reorder_param(void *ctx, const char *key, const char *value)
{
    return strcmp(key, "reorder") == 0 ? spx__order_parse(value, ctx) : SPX_OK;
}

/* *B = P A P^T for mode (A itself, *owned NULL, for none); seconds it took. */
static spx_status reordered(const spx_matrix *A, spx__order_mode mode, int threads,
                            const spx_matrix **B, spx_matrix **owned, double *seconds)
{
    int64_t *perm = NULL;
    spx_status st = SPX_OK;
    double t0 = spx_bench_now();
    *B = A;
    *owned = NULL;
    if (mode != SPX__ORDER_NONE) {
        SPX_TRY(spx__alloc((void **)&perm, (size_t)A->rows, sizeof *perm, "gather: permutation"));
        SPX_TRY(spx__order_compute(A, mode, threads, perm));
        SPX_TRY(spx__order_permute(A, perm, threads, owned));
        *B = *owned;
    }
cleanup:
    *seconds = spx_bench_now() - t0;
    spx__free(perm);
    return st;
}

static const char *mode_label(spx__order_mode mode)
{
    return mode == SPX__ORDER_RCM      ? "reorder=rcm"
           : mode == SPX__ORDER_DEGREE ? "reorder=degree"
                                       : NULL;
}

spx_status spx_bench_gather(const spx_matrix *A, const char *params, int threads,
                            spx_bench_record *r)
{
    spx__order_mode mode = SPX__ORDER_NONE;
    const spx_matrix *B = A;
    spx_matrix *owned = NULL;
    double *x = NULL, prep_s = 0.0;
    spx_status st = spx__check_matrix(A);
    memset(r, 0, sizeof *r);
    r->format = "gather";
    r->device = SPX_DEV_CPU;
    r->precision = SPX_F64;
    r->nnz = A ? A->nnz : 0;
    r->median_ms = r->gflops = r->gbs = r->max_rel_err = r->breakeven = NAN;
    r->breakeven_peer = NAN;
    if (st != SPX_OK) goto cleanup;
    SPX_TRY(spx__params_each(params, reorder_param, &mode));
    r->params = mode_label(mode);
    if (A->col_bits != 32)
        SPX_TRY(spx__error(SPX_ERR_UNSUPPORTED, "gather bound: 64-bit column indices"));
    SPX_TRY(reordered(A, mode, threads, &B, &owned, &prep_s));
    SPX_TRY(spx__alloc((void **)&x, (size_t)A->cols, sizeof *x, "gather: x"));
#pragma omp parallel for schedule(static) num_threads(gather_threads(threads))
    for (int64_t j = 0; j < A->cols; j++)
        x[j] = 1.0;
    double t = time_gather(B, x, threads);
    r->median_ms = 1e3 * t;
    r->gflops = 2.0 * (double)A->nnz / t * 1e-9;
    r->gbs = spx_bench_model_bytes(A->rows, A->cols, A->nnz, SPX_F64) / t * 1e-9;
    r->prep_ms = 1e3 * prep_s;
    r->bytes = (size_t)A->nnz * sizeof(int32_t) + (size_t)A->cols * sizeof(double);
    r->ok = 1;
cleanup:
    if (st != SPX_OK) {
        r->status = st;
        snprintf(r->error, sizeof r->error, "%s", spx_last_error());
    }
    spx_matrix_destroy(owned);
    spx__free(x);
    return st;
}
