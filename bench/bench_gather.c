/* The gather bound of `spx bench --gather`: the access pattern of SpMV alone,
 *
 *   s += x[col[k]]   for every nonzero k, split evenly among the threads,
 *
 * col streamed (4 bytes per nonzero, prefetched ahead as the kernels do), x
 * read where the matrix's columns point; no values, no row offsets, no y.
 * With reorder=rcm|degree in params the columns are those of P A P^T, P the
 * ordering a csr plan with that reorder= computes (spx_plan_permutation), as
 * a reordered plan sees them. Timed like a format (bench_timing.c). The
 * record's gbs is the bytes model of the full SpMV over that time, so gbs /
 * STREAM is the fraction of STREAM an SpMV would reach if it ran at the speed
 * of its gather: when a format comes close to it, the gather limits, not the
 * format.
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"

#define GATHER_PF_AHEAD 256 /* columns ahead, as the csr and sell kernels */

/* Where each pass's sum goes, so that the compiler keeps the loads. */
static volatile double gather_sink;

static int gather_threads(int threads)
{
    return threads > 0 ? threads : omp_get_max_threads();
}

typedef struct gather_pass {
    const int32_t *col;
    const double *x;
    int64_t nnz;
    int threads;
} gather_pass;

/* Sum of x[col[k]], k < nnz, each thread over an even share (bench_call_fn). */
static spx_status gather_sum(void *ctx)
{
    const gather_pass *g = ctx;
    const int32_t *col = g->col;
    const double *x = g->x;
    double total = 0.0;
#pragma omp parallel num_threads(gather_threads(g->threads)) reduction(+ : total)
    {
        const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
        const int64_t hi = g->nnz * (t + 1) / T;
        int64_t k = g->nnz * t / T;
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
    gather_sink = total;
    return SPX_OK;
}

/* The reorder= of params as a record label ("reorder=rcm", "reorder=degree"),
 * NULL for none or reorder=none; other keys ignored. */
static spx_status reorder_label(const char *params, const char **label)
{
    static const char *const labels[] = {"reorder=rcm", "reorder=degree", "reorder=none"};
    const char *p = params;
    *label = NULL;
    while (p && (p = strstr(p, "reorder=")) != NULL) {
        if (p != params && p[-1] != ',') {
            p++;
            continue;
        }
        for (int i = 0; i < 3; i++) {
            size_t n = strlen(labels[i]);
            if (strncmp(p, labels[i], n) == 0 && (p[n] == '\0' || p[n] == ',')) {
                *label = i < 2 ? labels[i] : NULL;
                return SPX_OK;
            }
        }
        return bench_fail(SPX_ERR_BAD_PARAM, "gather bound: reorder= must be rcm, degree or none");
    }
    return SPX_OK;
}

/* perm from a CPU csr plan with label's reorder=: perm[k] = A's row of P A P^T's row k. */
static spx_status ordering(const spx_matrix *A, const char *label, int threads, int64_t *perm)
{
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "csr";
    o.threads = threads;
    o.params = label;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_OK) st = spx_plan_permutation(P, perm);
    spx_plan_destroy(P);
    return bench_lib(st);
}

static int compare_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The columns of P A P^T in its row order (row k: A's row perm[k], column j
 * becoming inv[j]), each row sorted as a plan's would be. */
static spx_status permuted_columns(const bench_csr *A, const int64_t *perm, int32_t *col)
{
    int64_t *inv = NULL;
    spx_status st;
    BENCH_TRY(bench_alloc((void **)&inv, (size_t)A->rows, sizeof *inv, "inverse permutation"));
    for (int64_t k = 0; k < A->rows; k++)
        inv[perm[k]] = k;
    int64_t out = 0;
    for (int64_t k = 0; k < A->rows; k++) {
        int64_t begin = out;
        for (int64_t e = A->rowptr[perm[k]]; e < A->rowptr[perm[k] + 1]; e++)
            col[out++] = (int32_t)inv[bench_col(A, e)];
        qsort(col + begin, (size_t)(out - begin), sizeof *col, compare_i32);
    }
cleanup:
    free(inv);
    return st;
}

/* pass->col: A's columns, or those of P A P^T for label's reorder= (*owned
 * then holds them); *seconds: the ordering and the permutation. */
static spx_status gather_columns(const spx_matrix *A, const bench_csr *v, const char *label,
                                 int threads, gather_pass *pass, int32_t **owned, double *seconds)
{
    int64_t *perm = NULL;
    spx_status st = SPX_OK;
    double t0 = spx_bench_now();
    pass->col = v->colidx;
    *owned = NULL;
    if (label) {
        BENCH_TRY(bench_alloc((void **)&perm, (size_t)v->rows, sizeof *perm, "gather permutation"));
        BENCH_TRY(bench_alloc((void **)owned, (size_t)v->nnz, sizeof **owned, "gather columns"));
        BENCH_TRY(ordering(A, label, threads, perm));
        BENCH_TRY(permuted_columns(v, perm, *owned));
        pass->col = *owned;
    }
cleanup:
    *seconds = spx_bench_now() - t0;
    free(perm);
    return st;
}

static void clear_record(spx_bench_record *r, int64_t nnz)
{
    memset(r, 0, sizeof *r);
    r->format = "gather";
    r->device = SPX_DEV_CPU;
    r->precision = SPX_F64;
    r->nnz = nnz;
    r->t.median_ms = r->t.min_ms = r->t.max_ms = r->t.q1_ms = r->t.q3_ms = NAN;
    r->first_ms = r->gflops = r->gbs = r->max_rel_err = r->breakeven = NAN;
    r->breakeven_peer = NAN;
}

spx_status spx_bench_gather(const spx_matrix *A, const char *params, int threads,
                            spx_bench_record *r)
{
    const char *label = NULL;
    bench_csr v = {0};
    gather_pass pass = {NULL, NULL, 0, threads};
    int32_t *owned = NULL;
    double *x = NULL, prep_s = 0.0, first_s = 0.0;
    bench_stats s;
    spx_status st = bench_csr_view(A, &v);
    clear_record(r, v.nnz);
    if (st != SPX_OK) goto cleanup;
    BENCH_TRY(reorder_label(params, &label));
    r->params = label;
    if (v.col_bits != 32)
        BENCH_TRY(bench_fail(SPX_ERR_UNSUPPORTED, "gather bound: 64-bit column indices"));
    BENCH_TRY(gather_columns(A, &v, label, threads, &pass, &owned, &prep_s));
    BENCH_TRY(bench_alloc((void **)&x, (size_t)v.cols, sizeof *x, "gather x"));
#pragma omp parallel for schedule(static) num_threads(gather_threads(threads))
    for (int64_t j = 0; j < v.cols; j++)
        x[j] = 1.0;
    pass.x = x;
    pass.nnz = v.nnz;
    BENCH_TRY(bench_time_once(gather_sum, &pass, 0, &first_s));
    BENCH_TRY(bench_time_calls(gather_sum, &pass, 0, 0, 0, &s));
    bench_stats_to_ms(&s, &r->t);
    r->first_ms = 1e3 * first_s;
    r->gflops = 2.0 * (double)v.nnz / s.median * 1e-9;
    r->gbs = spx_bench_model_bytes(v.rows, v.cols, v.nnz, SPX_F64) / s.median * 1e-9;
    r->prep_ms = 1e3 * prep_s;
    r->bytes = (size_t)v.nnz * sizeof(int32_t) + (size_t)v.cols * sizeof(double);
    r->load1 = bench_load1();
    r->ok = 1;
cleanup:
    if (st != SPX_OK) {
        r->status = st;
        snprintf(r->error, sizeof r->error, "%s", spx_bench_last_error());
    }
    free(owned);
    free(x);
    return st;
}
