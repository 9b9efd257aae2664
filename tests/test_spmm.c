/* spx_spmm beyond the conformance suite (tests/test_conformance.c checks
 * every SpMM format against the reference on the edge cases):
 *  - the bits of column j of Y do not depend on k, nor on the call (k = 1,
 *    2, 3, 4 and 45 with the same first columns of X, k = 45 twice);
 *  - CPU csr with 1, 2 and 3 threads on a matrix whose dense row is split
 *    across threads (the long rows' slices), against ref;
 *  - values=iso against values=stored on a matrix of ones: the same bits;
 *  - errors: k < 0, ldx or ldy < k, NULL X or Y, an SpMV plan given to
 *    spx_spmm and an SpMM plan to spx_spmv, reorder= and vectors= on an SpMM
 *    plan; k = 0 writes nothing;
 *  - built as tests/test_gpu_spmm.c (SPMM_TEST_CUDA; exit 77 without a GPU):
 *    the same on CUDA csr in fp64, fp32 and fp16, on an R-MAT graph too, with
 *    device X and Y (spx_spmm) and host ones (spx_spmm_host), against CPU
 *    ref. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"

static spx_plan *plan_for(const spx_matrix *A, const char *format, spx_device dev, spx_type prec,
                          const char *params, int threads)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.format = format;
    o.device = dev;
    o.precision = prec;
    o.params = params;
    o.threads = threads;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMM, &o, &P), SPX_OK);
    return P;
}

static size_t elem(spx_type prec)
{
    return prec == SPX_F64 ? sizeof(double) : sizeof(float);
}

static double at(const void *a, spx_type prec, size_t e)
{
    return prec == SPX_F64 ? ((const double *)a)[e] : ((const float *)a)[e];
}

/* n x ld of the precision, random in [-1, 1) (columns past k too). */
static void *random_dense(int64_t n, int64_t ld, spx_type prec, uint64_t seed)
{
    void *a = malloc(elem(prec) * (size_t)(n * ld + 1));
    for (int64_t e = 0; e < n * ld; e++) {
        double v = spx_test_rand(&seed);
        if (prec == SPX_F64)
            ((double *)a)[e] = v;
        else
            ((float *)a)[e] = (float)v;
    }
    return a;
}

/* Y = alpha*A*X + beta*Y through plan P with host arrays (device plans: copied). */
static spx_status product(const spx_plan *P, int64_t k, double alpha, const void *X, int64_t ldx,
                          double beta, void *Y, int64_t ldy)
{
    return spx_spmm_host(P, k, alpha, X, ldx, beta, Y, ldy);
}

/* max |Y - R| / max |R| over the first k columns, both rows x ld. */
static double rel_diff(const void *Y, const void *R, spx_type prec, int64_t rows, int64_t ld,
                       int64_t k)
{
    double err = 0.0, scale = 0.0;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < k; j++) {
            double y = at(Y, prec, (size_t)(i * ld + j)), r = at(R, prec, (size_t)(i * ld + j));
            err = fmax(err, fabs(y - r));
            scale = fmax(scale, fabs(r));
        }
    return scale > 0.0 ? err / scale : err;
}

/* The first three columns of Y are the same bits for k = 3, k = 4 (with
 * ldx = 4: CUDA's 16-byte loads) and k = 45, and the same on a second call. */
static void check_columns_and_calls(const spx_matrix *A, const char *format, spx_device dev,
                                    spx_type prec, int threads)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_plan *P = plan_for(A, format, dev, prec, NULL, threads);
    void *X = random_dense(cols, 45, prec, 11);
    void *Y3 = calloc((size_t)(rows * 45 + 1), elem(prec));
    void *Y45 = calloc((size_t)(rows * 45 + 1), elem(prec));
    void *again = calloc((size_t)(rows * 45 + 1), elem(prec));
    void *X4 = malloc(elem(prec) * (size_t)(cols * 4 + 1));
    void *Y4 = calloc((size_t)(rows * 4 + 1), elem(prec));
    void *Y1 = calloc((size_t)(rows * 45 + 1), elem(prec)),
         *Y2 = calloc((size_t)(rows * 4 + 1), elem(prec));
    for (int64_t i = 0; i < cols; i++) /* X's first 4 columns, rows of 4 */
        memcpy((char *)X4 + (size_t)(i * 4) * elem(prec), (char *)X + (size_t)(i * 45) * elem(prec),
               4 * elem(prec));
    if (P && CHECK_STATUS(product(P, 3, 1.25, X, 45, 0.0, Y3, 45), SPX_OK) &&
        CHECK_STATUS(product(P, 4, 1.25, X4, 4, 0.0, Y4, 4), SPX_OK) &&
        CHECK_STATUS(product(P, 1, 1.25, X, 45, 0.0, Y1, 45), SPX_OK) && /* a lane a row */
        CHECK_STATUS(product(P, 2, 1.25, X4, 4, 0.0, Y2, 4), SPX_OK) &&
        CHECK_STATUS(product(P, 45, 1.25, X, 45, 0.0, Y45, 45), SPX_OK) &&
        CHECK_STATUS(product(P, 45, 1.25, X, 45, 0.0, again, 45), SPX_OK)) {
        int same_columns = 1;
        for (int64_t i = 0; i < rows; i++)
            same_columns &=
                memcmp((const char *)Y3 + (size_t)(i * 45) * elem(prec),
                       (const char *)Y45 + (size_t)(i * 45) * elem(prec), 3 * elem(prec)) == 0 &&
                memcmp((const char *)Y3 + (size_t)(i * 45) * elem(prec),
                       (const char *)Y4 + (size_t)(i * 4) * elem(prec), 3 * elem(prec)) == 0 &&
                memcmp((const char *)Y3 + (size_t)(i * 45) * elem(prec),
                       (const char *)Y1 + (size_t)(i * 45) * elem(prec), elem(prec)) == 0 &&
                memcmp((const char *)Y3 + (size_t)(i * 45) * elem(prec),
                       (const char *)Y2 + (size_t)(i * 4) * elem(prec), 2 * elem(prec)) == 0;
        if (!CHECK(same_columns))
            fprintf(stderr, "  %s: column bits differ between k = 1, 2, 3, 4 and 45\n", format);
        if (!CHECK(memcmp(Y45, again, (size_t)(rows * 45) * elem(prec)) == 0))
            fprintf(stderr, "  %s: two calls differ\n", format);
    }
    spx_plan_destroy(P);
    free(X), free(Y3), free(Y45), free(again), free(X4), free(Y4), free(Y1), free(Y2);
}

/* Y of the format on dev against CPU ref, k columns, beta != 0. */
static void check_against_ref(const spx_matrix *A, const char *format, spx_device dev,
                              spx_type prec, int threads, const char *params, int64_t k, double tol)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    const spx_type ref_prec = prec == SPX_F16 ? SPX_F32 : prec;
    spx_plan *P = plan_for(A, format, dev, prec, params, threads);
    spx_plan *R = plan_for(A, "ref", SPX_DEV_CPU, ref_prec, NULL, 1);
    void *X = random_dense(cols, k, ref_prec, 5);
    void *Y = random_dense(rows, k, ref_prec, 6);
    void *Z = malloc(elem(ref_prec) * (size_t)(rows * k + 1));
    memcpy(Z, Y, elem(ref_prec) * (size_t)(rows * k));
    if (P && R && CHECK_STATUS(product(P, k, -0.5, X, k, 2.0, Y, k), SPX_OK) &&
        CHECK_STATUS(product(R, k, -0.5, X, k, 2.0, Z, k), SPX_OK)) {
        double err = rel_diff(Y, Z, ref_prec, rows, k, k);
        if (!CHECK(err <= tol))
            fprintf(stderr, "  %s %s threads=%d k=%lld %s: %.3g from ref > %.3g\n", format,
                    dev == SPX_DEV_CUDA ? "cuda" : "cpu", threads, (long long)k,
                    params ? params : "", err, tol);
    }
    spx_plan_destroy(P);
    spx_plan_destroy(R);
    free(X), free(Y), free(Z);
}

/* A matrix of ones: values=iso gives the stored path's bits. */
static void check_iso(spx_device dev, spx_type prec)
{
    spx_matrix *A = spx_test_varied_matrix(300, 200, 30.0, 9), *ones = NULL;
    const int64_t *rp;
    const void *ci;
    int col_bits = 0;
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    CHECK_STATUS(spx_matrix_csr(A, &rp, &ci, &col_bits, NULL, NULL), SPX_OK);
    CHECK(col_bits == 32);
    CHECK_STATUS(spx_matrix_create_csr(rows, cols, rp, ci, NULL, &ones), SPX_OK); /* all ones */
    spx_plan *I = plan_for(ones, "csr", dev, prec, "values=iso", 1);
    spx_plan *S = plan_for(ones, "csr", dev, prec, "values=stored", 1);
    const spx_type vt = prec == SPX_F16 ? SPX_F32 : prec;
    void *X = random_dense(cols, 9, vt, 3);
    void *YI = calloc((size_t)(rows * 9 + 1), elem(vt)),
         *YS = calloc((size_t)(rows * 9 + 1), elem(vt));
    if (I && S && CHECK_STATUS(product(I, 9, 0.5, X, 9, 0.0, YI, 9), SPX_OK) &&
        CHECK_STATUS(product(S, 9, 0.5, X, 9, 0.0, YS, 9), SPX_OK))
        CHECK(memcmp(YI, YS, (size_t)(rows * 9) * elem(vt)) == 0);
    spx_plan_destroy(I);
    spx_plan_destroy(S);
    spx_matrix_destroy(A);
    spx_matrix_destroy(ones);
    free(X), free(YI), free(YS);
}

static void check_errors(void)
{
    spx_matrix *A = spx_test_varied_matrix(50, 40, 10.0, 2);
    spx_plan *P = plan_for(A, "csr", SPX_DEV_CPU, SPX_F64, NULL, 1), *V = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    double X[40 * 4], Y[50 * 4], keep[50 * 4];
    for (int e = 0; e < 50 * 4; e++)
        Y[e] = keep[e] = e;
    for (int e = 0; e < 40 * 4; e++)
        X[e] = 1.0;
    CHECK_STATUS(spx_spmm(P, -1, 1.0, X, 4, 0.0, Y, 4), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_spmm(P, 4, 1.0, X, 3, 0.0, Y, 4), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_spmm(P, 4, 1.0, X, 4, 0.0, Y, 2), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_spmm(P, 4, 1.0, NULL, 4, 0.0, Y, 4), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_spmm(P, 4, 1.0, X, 4, 0.0, NULL, 4), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_spmm(P, 4, 1.0, X, INT64_MAX, 0.0, Y, 4), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_spmm(NULL, 4, 1.0, X, 4, 0.0, Y, 4), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_spmv(P, 1.0, X, 0.0, Y), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_spmm(P, 0, 1.0, NULL, 0, 0.0, NULL, 0), SPX_OK);
    CHECK(memcmp(Y, keep, sizeof Y) == 0); /* nothing written by the failed calls nor k = 0 */
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &V), SPX_OK);
    CHECK_STATUS(spx_spmm(V, 4, 1.0, X, 4, 0.0, Y, 4), SPX_ERR_INVALID_ARG);
    CHECK(strstr(spx_last_error(), "not SpMM") != NULL);
    spx_plan_destroy(V);
    V = NULL;
    o.params = "reorder=rcm";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMM, &o, &V), SPX_ERR_BAD_PARAM);
    CHECK(strstr(spx_last_error(), "reorder") != NULL);
    o.params = "vectors=permuted";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMM, &o, &V), SPX_ERR_BAD_PARAM);
    o.params = NULL;
    o.format = "sell"; /* an SpMV format without SpMM */
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMM, &o, &V), SPX_ERR_NO_FORMAT);
    CHECK(strstr(spx_last_error(), "SpMM") != NULL);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
}

/* A dense row of 20000 in 30000 nonzeros: with 2 or 3 threads it is cut in
 * slices (csr's long rows); with 1 it is not. */
static spx_matrix *long_row_matrix(void)
{
    return spx_test_dense_row_matrix(2000, 20000, 700, 10, 21);
}

#ifdef SPMM_TEST_CUDA
/* CUDA csr's SpMV-only parameters are refused for SpMM, naming them. */
static void check_cuda_params(const spx_matrix *A)
{
    static const char *const refused[] = {"index=dict", "xtype=half"};
    for (int i = 0; i < 2; i++) {
        spx_plan_opts o = spx_plan_opts_default();
        spx_plan *P = NULL;
        o.format = "csr";
        o.device = SPX_DEV_CUDA;
        o.precision = i ? SPX_F16 : SPX_F64;
        o.params = refused[i];
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMM, &o, &P), SPX_ERR_BAD_PARAM);
        CHECK(strstr(spx_last_error(), refused[i]) != NULL);
        spx_plan_destroy(P);
    }
}

/* Device X and Y: spx_spmm on the plan's device, checked against the same
 * product through spx_spmm_host. */
static void check_device_vectors(const spx_matrix *A, spx_type prec)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_plan *P = plan_for(A, "csr", SPX_DEV_CUDA, prec, NULL, 0);
    const spx_type vt = prec == SPX_F16 ? SPX_F32 : prec;
    const size_t xb = elem(vt) * (size_t)(cols * 33), yb = elem(vt) * (size_t)(rows * 33);
    void *X = random_dense(cols, 33, vt, 8), *Y = calloc(yb + 1, 1), *H = calloc(yb + 1, 1);
    void *dX = NULL, *dY = NULL;
    if (P && CHECK_STATUS(spx__cuda_upload(&dX, X, xb, "X"), SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&dY, Y, yb, "Y"), SPX_OK) &&
        CHECK_STATUS(spx_spmm(P, 33, 1.0, dX, 33, 0.0, dY, 33), SPX_OK) &&
        CHECK_STATUS(spx__cuda_copy_async(Y, dY, yb, 0, NULL), SPX_OK) &&
        CHECK_STATUS(spx__cuda_sync(NULL), SPX_OK) &&
        CHECK_STATUS(spx_spmm_host(P, 33, 1.0, X, 33, 0.0, H, 33), SPX_OK))
        CHECK(memcmp(Y, H, yb) == 0);
    spx__cuda_free(dX);
    spx__cuda_free(dY);
    spx_plan_destroy(P);
    free(X), free(Y), free(H);
}
#endif

#ifndef SPMM_TEST_CUDA
int main(void)
{
    if (spx_test_part(NULL)) {
        spx_matrix *L = long_row_matrix(), *V = spx_test_varied_matrix(3000, 2500, 200.0, 4);
        for (int t = 1; t <= 3; t++) {
            check_columns_and_calls(L, "csr", SPX_DEV_CPU, SPX_F64, t);
            check_against_ref(L, "csr", SPX_DEV_CPU, SPX_F64, t, NULL, 19, 1e-14);
            check_against_ref(L, "csr", SPX_DEV_CPU, SPX_F32, t, NULL, 19, 1e-5);
            check_against_ref(V, "csr", SPX_DEV_CPU, SPX_F64, t, NULL, 19, 1e-14);
            check_against_ref(L, "csr", SPX_DEV_CPU, SPX_F64, t, NULL, 264, 1e-14);
        }
        check_columns_and_calls(V, "csr", SPX_DEV_CPU, SPX_F32, 2);
        check_columns_and_calls(V, "ref", SPX_DEV_CPU, SPX_F64, 1);
        check_iso(SPX_DEV_CPU, SPX_F64);
        check_iso(SPX_DEV_CPU, SPX_F32);
        check_errors();
        spx_matrix_destroy(L);
        spx_matrix_destroy(V);
    }
    return spx_test_finish();
}
#else
int main(void)
{
    static const spx_type precs[] = {SPX_F64, SPX_F32, SPX_F16};
    static const double tols[] = {1e-14, 1e-5, 4e-3};
    if (!spx_test_part(NULL) || !spx_test_require_cuda("CUDA SpMM not run"))
        return spx_test_finish();
    spx_matrix *L = long_row_matrix(), *V = spx_test_varied_matrix(3000, 2500, 200.0, 4);
    spx_matrix *G = NULL;
    CHECK_STATUS(spx_generate("rmat:scale=14,ef=16,values=random", &G), SPX_OK);
    for (int p = 0; p < 3; p++) {
        check_columns_and_calls(L, "csr", SPX_DEV_CUDA, precs[p], 0);
        check_columns_and_calls(G, "csr", SPX_DEV_CUDA, precs[p], 0);
        check_against_ref(L, "csr", SPX_DEV_CUDA, precs[p], 0, NULL, 19, tols[p]);
        check_against_ref(L, "csr", SPX_DEV_CUDA, precs[p], 0, NULL, 264, tols[p]);
        check_against_ref(V, "csr", SPX_DEV_CUDA, precs[p], 0, NULL, 19, tols[p]);
        check_against_ref(G, "csr", SPX_DEV_CUDA, precs[p], 0, NULL, 19, tols[p]);
        check_against_ref(G, "csr", SPX_DEV_CUDA, precs[p], 0, NULL, 264, tols[p]);
        check_iso(SPX_DEV_CUDA, precs[p]);
        check_device_vectors(V, precs[p]);
    }
    check_cuda_params(V);
    check_errors();
    spx_matrix_destroy(L);
    spx_matrix_destroy(V);
    spx_matrix_destroy(G);
    return spx_test_finish();
}
#endif
