/* The SpMM bench driver (bench_spmm.h): for each precision asked, one X
 * (cols x k, row-major, leading dimension k) and its reference Y_ref = A*X
 * by `ref` on the CPU in fp64; then the cases of bench_dense.c on each
 * device asked, X and Y riding in the group as vectors of cols*k and rows*k
 * entries. X(j, c) is uniform in [-1, 1) (bench_dense_fill, a fixed seed),
 * rounded to the precision's element type, so every format, peer and the
 * reference multiply the same numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_dense.h"
#include "bench_spmm.h"

#define SPMM_SEED 0x5350582d73706d6dull

/* Y_ref = A*X by `ref` (cpu, f64). */
static spx_status reference(const spx_matrix *A, int64_t k, const double *X, double *Y)
{
    spx_plan *P = NULL;
    spx_status st = bench_dense_reference_plan(A, SPX_OP_SPMM, &P);
    if (st == SPX_OK) st = bench_lib(spx_spmm(P, k, 1.0, X, k, 0.0, Y, k));
    spx_plan_destroy(P);
    return st;
}

/* max over i and c of sum_j |a_ij| |X(j, c)|, the denominator of max_rel_err. */
static spx_status abs_product_max(const spx_matrix *A, int64_t k, const double *X, double *scale)
{
    bench_csr v;
    double *row = NULL;
    spx_status st;
    *scale = 0.0;
    BENCH_TRY(bench_csr_view(A, &v));
    BENCH_TRY(bench_alloc((void **)&row, (size_t)k, sizeof *row, "bench |A||X| row"));
    for (int64_t i = 0; i < v.rows; i++) {
        memset(row, 0, (size_t)k * sizeof *row);
        for (int64_t e = v.rowptr[i]; e < v.rowptr[i + 1]; e++) {
            const double a = fabs(bench_val(&v, e));
            const double *x = X + bench_col(&v, e) * k;
            for (int64_t c = 0; c < k; c++)
                row[c] += a * fabs(x[c]);
        }
        for (int64_t c = 0; c < k; c++)
            *scale = row[c] > *scale ? row[c] : *scale;
    }
cleanup:
    free(row);
    return st;
}

/* Every device of precision t: X and the reference are shared. */
static spx_status run_precision(const spx_matrix *A, int64_t k, spx_type t, const spx_bench_opts *o,
                                spx_bench_record *r, int *count)
{
    bench_dense_group g;
    int64_t rows, cols;
    double *X = NULL, *Y = NULL;
    spx_status st;
    memset(&g, 0, sizeof g);
    BENCH_TRY(bench_lib(spx_matrix_dims(A, &rows, &cols, &g.v.nnz)));
    if (rows > INT64_MAX / k || cols > INT64_MAX / k)
        BENCH_TRY(bench_fail(SPX_ERR_OVERFLOW, "bench: X or Y of %lld x %lld entries overflows",
                             (long long)(rows > cols ? rows : cols), (long long)k));
    if (o->progress)
        fprintf(o->progress, "bench: SpMM reference (ref, k = %lld) ...\n", (long long)k);
    BENCH_TRY(bench_alloc((void **)&X, (size_t)(cols * k), sizeof *X, "bench X"));
    BENCH_TRY(bench_alloc((void **)&Y, (size_t)(rows * k), sizeof *Y, "bench reference Y"));
    bench_dense_fill(X, cols * k, t, SPMM_SEED);
    BENCH_TRY(reference(A, k, X, Y));
    BENCH_TRY(abs_product_max(A, k, X, &g.v.scale));
    g.op = SPX_OP_SPMM;
    g.k = k;
    g.v.A = A;
    g.v.precision = t;
    g.v.rows = rows * k;
    g.v.cols = cols * k;
    g.v.x_ref = X;
    g.v.y_ref = Y;
    BENCH_TRY(bench_dense_run_devices(&g, o, r, count));
cleanup:
    free(X);
    free(Y);
    return st;
}

spx_status spx_bench_spmm_run(const spx_matrix *A, int64_t k, const spx_bench_opts *o,
                              spx_bench_record **records, int *count)
{
    return bench_dense_run(A, k, "SpMM", run_precision, o, records, count);
}
