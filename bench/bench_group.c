/* The x, the reference and the vectors shared by the SpMV cases of one device
 * and precision. x_j is uniform in [-1, 1) from splitmix64 with a fixed seed,
 * rounded to the precision's element type, so every format, peer and the
 * reference multiply the same numbers; y_ref = A*x from the `ref` format in
 * fp64; scale = max_i sum_j |a_ij| |x_j|, the denominator of the error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "bench_internal.h"

#define BENCH_SEED 0x5350582d62656e63ull

static double uniform_pm1(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static double abs_product_max(const bench_csr *A, const double *x)
{
    double m = 0.0;
    for (int64_t i = 0; i < A->rows; i++) {
        double s = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += fabs(bench_val(A, k)) * fabs(x[bench_col(A, k)]);
        if (s > m) m = s;
    }
    return m;
}

static spx_status reference_product(const spx_matrix *A, const double *x, double *y)
{
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "ref";
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_OK) st = spx_spmv(P, 1.0, x, 0.0, y);
    spx_plan_destroy(P);
    return bench_lib(st);
}

spx_status bench_reference(const spx_matrix *A, spx_type t, double **x_ref, double **y_ref,
                           double *scale)
{
    uint64_t seed = BENCH_SEED;
    bench_csr v;
    spx_status st;
    *x_ref = *y_ref = NULL;
    BENCH_TRY(bench_csr_view(A, &v));
    BENCH_TRY(bench_alloc((void **)x_ref, (size_t)v.cols, sizeof **x_ref, "bench x"));
    BENCH_TRY(bench_alloc((void **)y_ref, (size_t)v.rows, sizeof **y_ref, "bench reference y"));
    for (int64_t j = 0; j < v.cols; j++) {
        double u = uniform_pm1(&seed);
        (*x_ref)[j] = t == SPX_F64 ? u : (double)(float)u;
    }
    BENCH_TRY(reference_product(A, *x_ref, *y_ref));
    *scale = abs_product_max(&v, *x_ref);
    return SPX_OK;
cleanup:
    free(*x_ref);
    free(*y_ref);
    *x_ref = *y_ref = NULL;
    return st;
}

static size_t element_bytes(spx_type t)
{
    return t == SPX_F64 ? sizeof(double) : sizeof(float);
}

static spx_status host_vectors(bench_group *g)
{
    size_t es = element_bytes(g->precision);
    spx_status st = bench_alloc(&g->y_host, (size_t)g->rows, es, "bench y");
    if (st != SPX_OK || g->precision == SPX_F64) {
        g->x = g->x_ref;
        return st;
    }
    st = bench_alloc(&g->x_conv, (size_t)g->cols, es, "bench x in float");
    if (st != SPX_OK) return st;
    float *xf = g->x_conv;
    for (int64_t j = 0; j < g->cols; j++)
        xf[j] = (float)g->x_ref[j];
    g->x = xf;
    return SPX_OK;
}

spx_status bench_group_init(bench_group *g)
{
    size_t es = element_bytes(g->precision);
    spx_status st;
    g->y_host = g->x_conv = g->x_dev = g->y_dev = NULL;
    BENCH_TRY(host_vectors(g));
    g->y = g->y_host;
    if (g->device != SPX_DEV_CUDA) return SPX_OK;
    BENCH_TRY(bench_cuda_upload(&g->x_dev, g->x, (size_t)g->cols * es, "bench x on the device"));
    BENCH_TRY(bench_cuda_alloc(&g->y_dev, (size_t)g->rows * es, "bench y on the device"));
    g->x = g->x_dev;
    g->y = g->y_dev;
    return SPX_OK;
cleanup:
    bench_group_free(g);
    return st;
}

void bench_group_free(bench_group *g)
{
    free(g->y_host);
    free(g->x_conv);
    bench_cuda_free(g->x_dev);
    bench_cuda_free(g->y_dev);
    g->y_host = g->x_conv = g->x_dev = g->y_dev = NULL;
    g->x = g->y = NULL;
}
