/* spx_sddmm, Z[e] = alpha * X(i, :) . Y(j, :) + beta * Z[e] over A's entries:
 *  - csr against ref (long double) for k from 0 to 257, leading dimensions
 *    past k, alpha and beta, on matrices with empty rows, a dense row, a
 *    random pattern, 32-bit row offsets and no entries;
 *  - the same bits every call, and (CPU) whatever the thread count;
 *  - beta == 0 does not read Z (NaN there stays out), k == 0 gives beta*Z;
 *  - errors: k < 0, ldx or ldy < k, NULL X, Y or Z, an SpMV plan given to
 *    spx_sddmm and an SDDMM plan to spx_spmv and spx_spmm, op T, reorder=
 *    and unknown parameters;
 *  - built as tests/test_gpu_sddmm.c (SDDMM_TEST_CUDA; exit 77 without a
 *    GPU): CUDA csr in fp64, fp32 and fp16 (which computes as fp32), device
 *    arrays (spx_sddmm) against host ones (spx_sddmm_host), the 16-byte and
 *    the one-by-one loads giving the same bits, a device matrix's pattern;
 *    fp16 with xtype=half (X and Y in half) against ref on the same halves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"

#ifdef SDDMM_TEST_CUDA
#define DEV SPX_DEV_CUDA
#else
#define DEV SPX_DEV_CPU
#endif

static spx_plan *plan_for(const spx_matrix *A, const char *format, spx_device dev, spx_type prec,
                          int threads)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.format = format;
    o.device = dev;
    o.precision = prec;
    o.threads = threads;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SDDMM, &o, &P), SPX_OK);
    return P;
}

/* The vector type of a precision: float for F32 and F16. */
static spx_type vtype(spx_type prec)
{
    return prec == SPX_F64 ? SPX_F64 : SPX_F32;
}

static size_t elem(spx_type prec)
{
    return prec == SPX_F64 ? sizeof(double) : sizeof(float);
}

static double at(const void *a, spx_type prec, size_t e)
{
    return prec == SPX_F64 ? ((const double *)a)[e] : ((const float *)a)[e];
}

/* n entries of the precision, random in [-1, 1). */
static void *random_array(int64_t n, spx_type prec, uint64_t seed)
{
    void *a = malloc(elem(prec) * (size_t)(n + 1));
    for (int64_t e = 0; e < n; e++) {
        double v = spx_test_rand(&seed);
        if (prec == SPX_F64)
            ((double *)a)[e] = v;
        else
            ((float *)a)[e] = (float)v;
    }
    return a;
}

static int64_t nnz_of(const spx_matrix *A)
{
    int64_t r, c, n;
    spx_matrix_dims(A, &r, &c, &n);
    return n;
}

/* max |Z - R| / (max |R| + tiny) over n entries. */
static double rel_diff(const void *Z, const void *R, spx_type prec, int64_t n)
{
    double err = 0.0, scale = 0.0;
    for (int64_t e = 0; e < n; e++) {
        err = fmax(err, fabs(at(Z, prec, (size_t)e) - at(R, prec, (size_t)e)));
        scale = fmax(scale, fabs(at(R, prec, (size_t)e)));
    }
    return scale > 0.0 ? err / scale : err;
}

/* Z through format f with host arrays against ref's, for one k, alpha, beta
 * (X and Y with leading dimension k + pad), twice for the same bits. */
static void check_one(const spx_matrix *A, spx_plan *P, spx_plan *R, spx_type prec, int64_t k,
                      int64_t pad, double alpha, double beta, double tol)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    const spx_type vt = vtype(prec);
    const int64_t ldx = k + pad, ldy = k + 2 * pad;
    void *X = random_array(rows * ldx, vt, 1 + (uint64_t)k);
    void *Y = random_array(cols * ldy, vt, 99 + (uint64_t)k);
    void *Z0 = random_array(nnz, vt, 7), *Z = malloc(elem(vt) * (size_t)(nnz + 1));
    void *Zr = malloc(elem(vt) * (size_t)(nnz + 1)), *Z2 = malloc(elem(vt) * (size_t)(nnz + 1));
    memcpy(Z, Z0, elem(vt) * (size_t)nnz);
    memcpy(Zr, Z0, elem(vt) * (size_t)nnz);
    memcpy(Z2, Z0, elem(vt) * (size_t)nnz);
    if (CHECK_STATUS(spx_sddmm_host(P, k, alpha, X, ldx, Y, ldy, beta, Z), SPX_OK) &&
        CHECK_STATUS(spx_sddmm_host(R, k, alpha, X, ldx, Y, ldy, beta, Zr), SPX_OK) &&
        CHECK_STATUS(spx_sddmm_host(P, k, alpha, X, ldx, Y, ldy, beta, Z2), SPX_OK)) {
        double d = rel_diff(Z, Zr, vt, nnz);
        if (!CHECK(d <= tol))
            fprintf(stderr, "  %s k=%lld pad=%lld alpha=%g beta=%g: rel diff %.3g > %.3g\n",
                    spx_plan_format(P), (long long)k, (long long)pad, alpha, beta, d, tol);
        CHECK(memcmp(Z, Z2, elem(vt) * (size_t)nnz) == 0);
    }
    free(X), free(Y), free(Z0), free(Z), free(Zr), free(Z2);
}

/* Format f on dev against ref over k, pads, alpha and beta. */
static void check_against_ref(const spx_matrix *A, const char *format, spx_device dev,
                              spx_type prec, int threads, double tol)
{
    static const int64_t ks[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 64, 65, 100, 257};
    spx_plan *P = plan_for(A, format, dev, prec, threads);
    spx_plan *R = plan_for(A, "ref", SPX_DEV_CPU, vtype(prec), 1);
    for (size_t i = 0; P && R && i < sizeof ks / sizeof ks[0]; i++) {
        check_one(A, P, R, prec, ks[i], 0, 1.0, 0.0, tol);
        check_one(A, P, R, prec, ks[i], 3, -0.5, 2.0, tol);
    }
    spx_plan_destroy(P);
    spx_plan_destroy(R);
}

/* beta == 0 does not read Z: NaN there stays out of the result. */
static void check_beta_zero(const spx_matrix *A, spx_device dev, spx_type prec)
{
    const int64_t nnz = nnz_of(A), k = 12;
    int64_t rows, cols;
    spx_matrix_dims(A, &rows, &cols, NULL);
    const spx_type vt = vtype(prec);
    spx_plan *P = plan_for(A, "csr", dev, prec, 0);
    void *X = random_array(rows * k, vt, 5), *Y = random_array(cols * k, vt, 6);
    void *Z = malloc(elem(vt) * (size_t)(nnz + 1));
    for (int64_t e = 0; e < nnz; e++)
        if (vt == SPX_F64)
            ((double *)Z)[e] = NAN;
        else
            ((float *)Z)[e] = NAN;
    if (P && CHECK_STATUS(spx_sddmm_host(P, k, 1.0, X, k, Y, k, 0.0, Z), SPX_OK)) {
        int64_t nan = 0;
        for (int64_t e = 0; e < nnz; e++)
            nan += isnan(at(Z, vt, (size_t)e));
        CHECK(nan == 0);
    }
    spx_plan_destroy(P);
    free(X), free(Y), free(Z);
}

#ifndef SDDMM_TEST_CUDA
/* CPU csr: the same bits for 1, 2 and 3 threads. */
static void check_threads(const spx_matrix *A)
{
    const int64_t nnz = nnz_of(A), k = 37;
    int64_t rows, cols;
    spx_matrix_dims(A, &rows, &cols, NULL);
    void *X = random_array(rows * k, SPX_F64, 11), *Y = random_array(cols * k, SPX_F64, 12);
    double *Z[3];
    for (int t = 0; t < 3; t++) {
        spx_plan *P = plan_for(A, "csr", SPX_DEV_CPU, SPX_F64, t + 1);
        Z[t] = calloc((size_t)nnz + 1, sizeof(double));
        if (P) CHECK_STATUS(spx_sddmm(P, k, 1.0, X, k, Y, k, 0.0, Z[t]), SPX_OK);
        spx_plan_destroy(P);
    }
    CHECK(memcmp(Z[0], Z[1], (size_t)nnz * sizeof(double)) == 0);
    CHECK(memcmp(Z[0], Z[2], (size_t)nnz * sizeof(double)) == 0);
    for (int t = 0; t < 3; t++)
        free(Z[t]);
    free(X), free(Y);
}
#endif

/* A plan for op with o's fields, expecting `want` and a message holding `says`. */
static void check_refused(const spx_matrix *A, spx_operation op, spx_op t, const char *params,
                          spx_status want, const char *says)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = DEV;
    o.op = t;
    o.params = params;
    if (CHECK_STATUS(spx_plan_create(A, op, &o, &P), want))
        CHECK(strstr(spx_last_error(), says) != NULL);
    spx_plan_destroy(P);
}

static void check_errors(const spx_matrix *A)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_plan *P = plan_for(A, "auto", DEV, SPX_F64, 0);
    spx_plan *S = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = DEV;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &S), SPX_OK);
    double *X = calloc((size_t)rows * 8 + 1, sizeof(double));
    double *Y = calloc((size_t)cols * 8 + 1, sizeof(double));
    double *Z = calloc((size_t)nnz + 1, sizeof(double));
    CHECK_STATUS(spx_sddmm_host(P, -1, 1.0, X, 8, Y, 8, 0.0, Z), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_sddmm_host(P, 8, 1.0, X, 7, Y, 8, 0.0, Z), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_sddmm_host(P, 8, 1.0, X, 8, Y, 7, 0.0, Z), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_sddmm_host(P, 8, 1.0, NULL, 8, Y, 8, 0.0, Z), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_sddmm_host(P, 8, 1.0, X, 8, NULL, 8, 0.0, Z), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_sddmm_host(P, 8, 1.0, X, 8, Y, 8, 0.0, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_sddmm_host(NULL, 8, 1.0, X, 8, Y, 8, 0.0, Z), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_sddmm_host(S, 8, 1.0, X, 8, Y, 8, 0.0, Z), SPX_ERR_INVALID_ARG);
    CHECK(strstr(spx_last_error(), "not SDDMM") != NULL);
    CHECK_STATUS(spx_spmv_host(P, 1.0, Y, 0.0, X), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_spmm_host(P, 1, 1.0, Y, 1, 0.0, X, 1), SPX_ERR_INVALID_ARG);
    check_refused(A, SPX_OP_SDDMM, SPX_OP_T, NULL, SPX_ERR_UNSUPPORTED, "op T is refused");
    check_refused(A, SPX_OP_SDDMM, SPX_OP_N, "reorder=rcm", SPX_ERR_BAD_PARAM, "SDDMM plans");
    check_refused(A, SPX_OP_SDDMM, SPX_OP_N, "th=8", SPX_ERR_BAD_PARAM, "th");
    spx_plan_destroy(P);
    spx_plan_destroy(S);
    free(X), free(Y), free(Z);
}

/* k == 0: Z = beta*Z; no entries: nothing read or written. */
static void check_empty(spx_device dev)
{
    spx_matrix *A = spx_test_random_matrix(40, 30, 200, 3), *E = NULL;
    int64_t rp[5] = {0, 0, 0, 0, 0};
    CHECK_STATUS(spx_matrix_create_csr(4, 3, rp, NULL, NULL, &E), SPX_OK);
    const int64_t nnz = nnz_of(A);
    spx_plan *P = plan_for(A, "csr", dev, SPX_F64, 0), *Q = plan_for(E, "csr", dev, SPX_F64, 0);
    double *Z = random_array(nnz, SPX_F64, 4), *W = malloc(sizeof(double) * (size_t)(nnz + 1));
    memcpy(W, Z, sizeof(double) * (size_t)nnz);
    if (P && CHECK_STATUS(spx_sddmm_host(P, 0, 1.0, NULL, 0, NULL, 0, 0.5, Z), SPX_OK)) {
        int ok = 1;
        for (int64_t e = 0; e < nnz; e++)
            ok &= Z[e] == 0.5 * W[e];
        CHECK(ok);
    }
    if (Q) CHECK_STATUS(spx_sddmm_host(Q, 4, 1.0, W, 4, W, 4, 0.0, NULL), SPX_OK);
    spx_plan_destroy(P);
    spx_plan_destroy(Q);
    spx_matrix_destroy(A);
    spx_matrix_destroy(E);
    free(Z), free(W);
}

#ifdef SDDMM_TEST_CUDA
/* X and Y copied to the device; Z = the product there, copied back. */
static spx_status device_sddmm(const spx_plan *P, const spx_matrix *A, spx_type vt, int64_t k,
                               const void *X, int64_t ldx, const void *Y, int64_t ldy, void *Z)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    const size_t xb = elem(vt) * (size_t)(rows * ldx), yb = elem(vt) * (size_t)(cols * ldy);
    const size_t zb = elem(vt) * (size_t)nnz;
    void *dX = NULL, *dY = NULL, *dZ = NULL;
    spx_status st = spx__cuda_upload(&dX, X, xb, "X");
    if (st == SPX_OK) st = spx__cuda_upload(&dY, Y, yb, "Y");
    if (st == SPX_OK) st = spx__cuda_alloc(&dZ, zb, "Z");
    if (st == SPX_OK) st = spx_sddmm(P, k, 1.0, dX, ldx, dY, ldy, 0.0, dZ);
    if (st == SPX_OK) st = spx__cuda_copy_async(Z, dZ, zb, 0, NULL);
    if (st == SPX_OK) st = spx__cuda_sync(NULL);
    spx__cuda_free(dX);
    spx__cuda_free(dY);
    spx__cuda_free(dZ);
    return st;
}

/* Device arrays against host ones, and the 16-byte loads (ld = k, even)
 * against one-by-one loads (ld = k + 1): the same bits. */
static void check_device_arrays(const spx_matrix *A, spx_type prec)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    const spx_type vt = vtype(prec);
    const int64_t k = 40;
    spx_plan *P = plan_for(A, "csr", SPX_DEV_CUDA, prec, 0);
    void *X = random_array(rows * (k + 1), vt, 21), *Y = random_array(cols * (k + 1), vt, 22);
    void *Xa = malloc(elem(vt) * (size_t)(rows * k + 1)),
         *Ya = malloc(elem(vt) * (size_t)(cols * k + 1));
    for (int64_t i = 0; i < rows; i++)
        memcpy((char *)Xa + elem(vt) * (size_t)(i * k),
               (char *)X + elem(vt) * (size_t)(i * (k + 1)), elem(vt) * (size_t)k);
    for (int64_t j = 0; j < cols; j++)
        memcpy((char *)Ya + elem(vt) * (size_t)(j * k),
               (char *)Y + elem(vt) * (size_t)(j * (k + 1)), elem(vt) * (size_t)k);
    void *Zd = calloc((size_t)nnz + 1, elem(vt)), *Zh = calloc((size_t)nnz + 1, elem(vt));
    void *Zs = calloc((size_t)nnz + 1, elem(vt));
    if (P && CHECK_STATUS(device_sddmm(P, A, vt, k, Xa, k, Ya, k, Zd), SPX_OK) &&
        CHECK_STATUS(spx_sddmm_host(P, k, 1.0, Xa, k, Ya, k, 0.0, Zh), SPX_OK) &&
        CHECK_STATUS(spx_sddmm_host(P, k, 1.0, X, k + 1, Y, k + 1, 0.0, Zs), SPX_OK)) {
        CHECK(memcmp(Zd, Zh, elem(vt) * (size_t)nnz) == 0);
        CHECK(memcmp(Zh, Zs, elem(vt) * (size_t)nnz) == 0);
    }
    spx_plan_destroy(P);
    free(X), free(Y), free(Xa), free(Ya), free(Zd), free(Zh), free(Zs);
}

/* rows x ld halves of random floats, and the same rounded back to floats. */
static uint16_t *random_halves(int64_t n, uint64_t seed, float **rounded)
{
    float *f = random_array(n, SPX_F32, seed);
    uint16_t *h = malloc(sizeof *h * (size_t)(n + 1));
    spx_float_to_half(f, h, n);
    spx_half_to_float(h, f, n);
    *rounded = f;
    return h;
}

/* fp16 with xtype=half: X and Y in half against ref (f32) on the same
 * values, k from 1 to 100; 16-byte loads (ld = k, a multiple of 8) and
 * one-by-one loads (ld = k + 1) the same bits; xtype=half refused on f32. */
static void check_half_operands(const spx_matrix *A)
{
    static const int64_t ks[] = {1, 7, 8, 16, 33, 64, 100};
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL, *F = NULL, *R = plan_for(A, "ref", SPX_DEV_CPU, SPX_F32, 1);
    o.format = "csr";
    o.device = SPX_DEV_CUDA;
    o.precision = SPX_F16;
    o.params = "xtype=half";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SDDMM, &o, &P), SPX_OK);
    if (P) CHECK(spx_plan_x_type(P) == SPX_F16);
    o.precision = SPX_F32;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SDDMM, &o, &F), SPX_ERR_BAD_PARAM);
    for (size_t i = 0; P && R && i < sizeof ks / sizeof ks[0]; i++) {
        const int64_t k = ks[i], ld = k + 1;
        float *xf, *yf;
        uint16_t *X = random_halves(rows * ld, 41 + (uint64_t)k, &xf);
        uint16_t *Y = random_halves(cols * ld, 42 + (uint64_t)k, &yf);
        uint16_t *Xa = malloc(sizeof *Xa * (size_t)(rows * k + 1));
        uint16_t *Ya = malloc(sizeof *Ya * (size_t)(cols * k + 1));
        for (int64_t r = 0; r < rows; r++)
            memcpy(Xa + r * k, X + r * ld, sizeof *X * (size_t)k);
        for (int64_t r = 0; r < cols; r++)
            memcpy(Ya + r * k, Y + r * ld, sizeof *Y * (size_t)k);
        float *Z = calloc((size_t)nnz + 1, sizeof *Z), *Zs = calloc((size_t)nnz + 1, sizeof *Zs);
        float *Zr = calloc((size_t)nnz + 1, sizeof *Zr);
        if (CHECK_STATUS(spx_sddmm_host(P, k, 1.0, Xa, k, Ya, k, 0.0, Z), SPX_OK) &&
            CHECK_STATUS(spx_sddmm_host(P, k, 1.0, X, ld, Y, ld, 0.0, Zs), SPX_OK) &&
            CHECK_STATUS(spx_sddmm_host(R, k, 1.0, xf, ld, yf, ld, 0.0, Zr), SPX_OK)) {
            double d = rel_diff(Z, Zr, SPX_F32, nnz);
            if (!CHECK(d <= 1e-5)) /* exact products, float sums */
                fprintf(stderr, "  xtype=half k=%lld: rel diff %.3g\n", (long long)k, d);
            CHECK(memcmp(Z, Zs, sizeof *Z * (size_t)nnz) == 0);
        }
        free(X), free(Y), free(Xa), free(Ya), free(xf), free(yf), free(Z), free(Zs), free(Zr);
    }
    spx_plan_destroy(P);
    spx_plan_destroy(F);
    spx_plan_destroy(R);
}

/* A device matrix (spx_matrix_wrap_device, 32-bit offsets): its pattern in
 * place gives the host matrix's bits. */
static void check_device_matrix(const spx_matrix *A)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    const int64_t *rp = NULL;
    const void *ci = NULL, *v = NULL;
    int cb = 0;
    spx_type vt = SPX_F64;
    CHECK_STATUS(spx_matrix_csr(A, &rp, &ci, &cb, &v, &vt), SPX_OK);
    CHECK(cb == 32 && vt == SPX_F64);
    int32_t *rp32 = malloc(sizeof(int32_t) * (size_t)(rows + 1));
    for (int64_t i = 0; i <= rows; i++)
        rp32[i] = (int32_t)rp[i];
    void *drp = NULL, *dci = NULL, *dv = NULL;
    spx_matrix *D = NULL;
    spx_plan *P = NULL, *H = plan_for(A, "csr", SPX_DEV_CUDA, SPX_F64, 0);
    const int64_t k = 16;
    double *X = random_array(rows * k, SPX_F64, 31), *Y = random_array(cols * k, SPX_F64, 32);
    double *Zd = calloc((size_t)nnz + 1, sizeof(double)),
           *Zh = calloc((size_t)nnz + 1, sizeof(double));
    if (CHECK_STATUS(spx__cuda_upload(&drp, rp32, sizeof(int32_t) * (size_t)(rows + 1), "rp"),
                     SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&dci, ci, sizeof(int32_t) * (size_t)nnz, "ci"), SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&dv, v, sizeof(double) * (size_t)nnz, "v"), SPX_OK) &&
        CHECK_STATUS(spx_matrix_wrap_device(rows, cols, drp, 32, dci, 32, dv, SPX_F64, &D),
                     SPX_OK)) {
        P = plan_for(D, "auto", SPX_DEV_CUDA, SPX_F64, 0);
        if (P && H) {
            CHECK(strstr(spx_plan_describe(P), "device matrix") != NULL);
            CHECK_STATUS(spx_sddmm_host(P, k, 1.0, X, k, Y, k, 0.0, Zd), SPX_OK);
            CHECK_STATUS(spx_sddmm_host(H, k, 1.0, X, k, Y, k, 0.0, Zh), SPX_OK);
            CHECK(memcmp(Zd, Zh, sizeof(double) * (size_t)nnz) == 0);
        }
    }
    spx_plan_destroy(P);
    spx_plan_destroy(H);
    spx_matrix_destroy(D);
    spx__cuda_free(drp);
    spx__cuda_free(dci);
    spx__cuda_free(dv);
    free(rp32), free(X), free(Y), free(Zd), free(Zh);
}
#endif

int main(void)
{
#ifdef SDDMM_TEST_CUDA
    static const spx_type precs[] = {SPX_F64, SPX_F32, SPX_F16};
    if (!spx_test_part(NULL) || !spx_test_require_cuda("CUDA SDDMM not run"))
        return spx_test_finish();
    const int nprec = 3;
#else
    static const spx_type precs[] = {SPX_F64, SPX_F32};
    if (!spx_test_part(NULL)) return spx_test_finish();
    const int nprec = 2;
#endif
    static const double tols[] = {1e-14, 2e-6, 2e-6};
    spx_matrix *V = spx_test_varied_matrix(3000, 2500, 200.0, 4);
    spx_matrix *D = spx_test_dense_row_matrix(500, 3000, 17, 6, 5);
    spx_matrix *R = spx_test_random_matrix(700, 900, 9000, 6);
    int32_t *rp32 = NULL;
    spx_matrix *W = spx_test_wrap32(V, &rp32);
    for (int p = 0; p < nprec; p++) {
        check_against_ref(V, "csr", DEV, precs[p], 0, tols[p]);
        check_against_ref(D, "csr", DEV, precs[p], 0, tols[p]);
        check_against_ref(R, "auto", DEV, precs[p], 0, tols[p]);
        check_beta_zero(V, DEV, precs[p]);
    }
    check_against_ref(W, "csr", SPX_DEV_CPU, SPX_F64, 2, tols[0]);
    check_empty(DEV);
    check_errors(V);
#ifdef SDDMM_TEST_CUDA
    for (int p = 0; p < nprec; p++)
        check_device_arrays(V, precs[p]);
    check_device_matrix(R);
    check_half_operands(V);
    check_half_operands(D);
#else
    check_threads(V);
    check_threads(D);
    check_against_ref(V, "csr", SPX_DEV_CPU, SPX_F64, 3, tols[0]);
#endif
    spx_matrix_destroy(V);
    spx_matrix_destroy(D);
    spx_matrix_destroy(R);
    spx_matrix_destroy(W);
    free(rp32);
    return spx_test_finish();
}
