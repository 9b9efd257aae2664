/* The SDDMM bench driver (bench_sddmm.h): for each precision asked, X (rows
 * x k) and Y (cols x k), row-major with leading dimension k, and the
 * reference Z_ref by `ref` on the CPU in fp64; then the cases of
 * bench_dense.c on each device asked. X and Y ride in the group as one
 * vector, X first and Y from the next multiple of Y_ALIGN entries (so that Y
 * starts 256-byte aligned in f64, 128 in f32, as an array of its own would),
 * Z as a vector of nnz entries. X and Y are uniform in [-1, 1)
 * (bench_dense_fill, fixed seeds of their own), rounded to the precision's
 * element type, so every format, peer and the reference multiply the same
 * numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_dense.h"
#include "bench_sddmm.h"

#define X_SEED 0x5350582d7364782dull
#define Y_SEED 0x5350582d7364792dull
#define Y_ALIGN 32

/* Z_ref = X*Y^T at A's entries by `ref` (cpu, f64). */
static spx_status reference(const spx_matrix *A, int64_t k, const double *X, const double *Y,
                            double *Z)
{
    spx_plan *P = NULL;
    spx_status st = bench_dense_reference_plan(A, SPX_OP_SDDMM, &P);
    if (st == SPX_OK) st = bench_lib(spx_sddmm(P, k, 1.0, X, k, Y, k, 0.0, Z));
    spx_plan_destroy(P);
    return st;
}

/* max over A's entries (i, j) of sum_c |X(i, c)| |Y(j, c)|, the denominator
 * of max_rel_err. */
static double abs_dot_max(const bench_csr *v, int64_t k, const double *X, const double *Y)
{
    double m = 0.0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : m)
    for (int64_t i = 0; i < v->rows; i++)
        for (int64_t e = v->rowptr[i]; e < v->rowptr[i + 1]; e++) {
            const double *x = X + i * k, *y = Y + bench_col(v, e) * k;
            double s = 0.0;
            for (int64_t c = 0; c < k; c++)
                s += fabs(x[c]) * fabs(y[c]);
            m = s > m ? s : m;
        }
    return m;
}

static double model_bytes(const bench_csr *v, int64_t k, spx_type t)
{
    const double value = t == SPX_F64 ? 8.0 : 4.0;
    const double pattern = 8.0 * (double)(v->rows + 1) + (double)(v->col_bits / 8) * (double)v->nnz;
    return pattern + value * ((double)v->nnz + (double)k * (double)(v->rows + v->cols));
}

double spx_bench_sddmm_model_bytes(const spx_matrix *A, int64_t k, spx_type t)
{
    bench_csr v;
    return bench_csr_view(A, &v) == SPX_OK ? model_bytes(&v, k, t) : 0.0;
}

/* Every device of precision t: X, Y and the reference are shared. */
static spx_status run_precision(const spx_matrix *A, int64_t k, spx_type t, const spx_bench_opts *o,
                                spx_bench_record *r, int *count)
{
    bench_dense_group g;
    bench_csr v;
    double *XY = NULL, *Z = NULL;
    int64_t off;
    spx_status st;
    memset(&g, 0, sizeof g);
    BENCH_TRY(bench_csr_view(A, &v));
    if (v.rows > INT64_MAX / 4 / k || v.cols > INT64_MAX / 4 / k)
        BENCH_TRY(bench_fail(SPX_ERR_OVERFLOW, "bench: X or Y of %lld x %lld entries overflows",
                             (long long)(v.rows > v.cols ? v.rows : v.cols), (long long)k));
    off = (v.rows * k + Y_ALIGN - 1) / Y_ALIGN * Y_ALIGN;
    if (o->progress)
        fprintf(o->progress, "bench: SDDMM reference (ref, k = %lld) ...\n", (long long)k);
    BENCH_TRY(bench_calloc((void **)&XY, (size_t)(off + v.cols * k), sizeof *XY, "bench X and Y"));
    BENCH_TRY(bench_alloc((void **)&Z, (size_t)v.nnz, sizeof *Z, "bench reference Z"));
    bench_dense_fill(XY, v.rows * k, t, X_SEED);
    bench_dense_fill(XY + off, v.cols * k, t, Y_SEED);
    BENCH_TRY(reference(A, k, XY, XY + off, Z));
    g.op = SPX_OP_SDDMM;
    g.k = k;
    g.y_offset = off;
    g.model_bytes = model_bytes(&v, k, t);
    g.v.A = A;
    g.v.precision = t;
    g.v.rows = v.nnz;
    g.v.cols = off + v.cols * k;
    g.v.nnz = v.nnz;
    g.v.x_ref = XY;
    g.v.y_ref = Z;
    g.v.scale = abs_dot_max(&v, k, XY, XY + off);
    BENCH_TRY(bench_dense_run_devices(&g, o, r, count));
cleanup:
    free(XY);
    free(Z);
    return st;
}

spx_status spx_bench_sddmm_run(const spx_matrix *A, int64_t k, const spx_bench_opts *o,
                               spx_bench_record **records, int *count)
{
    return bench_dense_run(A, k, "SDDMM", run_precision, o, records, count);
}
