/* Every registered CUDA format against the long-double reference (tests/common.h).
 *
 * Tolerance: |y - ref|_inf <= tol * max_i (|alpha| |A| |x| + |beta| |y0|)_i with
 *   fp64: tol = 64 * 2^-53 (c = 64 covers a serial chain of 32 products per lane,
 *         5 shuffle levels and the chunk sums of a 100,000-entry row);
 *   fp32: tol = 64 * 2^-24 against the reference computed on the float x and y0,
 *         the values' rounding to float (2^-24 each) included;
 *   fp16: tol = 1e-3: each value rounded to half is off by at most 2^-11
 *         relative (4.9e-4 of its |a x| term), plus the fp32 accumulation;
 *         with xtype=half the reference is taken on x rounded to half (the
 *         plan's x, exact in its products), so the same bound holds.
 * Cases: small hand matrices, empty rows, m x 0 and 0 x n, nnz = 0, rows of
 * 0..100,000 entries, csr's long rows (up to 10^6 entries, each plan called
 * three times: the same bits), rectangular, random, and (part "shared",
 * tests/common.h) the shared matrices; y poisoned with NaN when beta = 0 (must not leak) and
 * every entry checked. Without a GPU (or without CUDA) it skips (test_core
 * checks that CUDA plans are refused). SPX_TEST_QUICK=1 (for
 * compute-sanitizer) skips the larger cases. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"

#define TOL64 (64.0 * 0x1.0p-53)
#define TOL32 (64.0 * 0x1.0p-24)
#define TOL16 1e-3

static int quick(void)
{
    const char *q = getenv("SPX_TEST_QUICK");
    return q && *q == '1';
}

static double tolerance(spx_type t)
{
    return t == SPX_F64 ? TOL64 : t == SPX_F32 ? TOL32 : TOL16;
}

static const char *type_name(spx_type t)
{
    return t == SPX_F64 ? "f64" : t == SPX_F32 ? "f32" : "f16";
}

/* x and y0 as the plan sees them: float vectors are rounded, so the reference
 * is taken on the rounded values. */
static void round_to(spx_type t, double *v, int64_t n)
{
    if (t == SPX_F64) return;
    for (int64_t i = 0; i < n; i++)
        v[i] = (double)(float)v[i];
}

/* x in half, as the plan reads it with xtype=half (the reference then
 * takes the same rounded values). */
static void round_to_half(double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float f = (float)v[i];
        uint16_t h;
        spx_float_to_half(&f, &h, 1);
        spx_half_to_float(&h, &f, 1);
        v[i] = f;
    }
}

/* Run one plan with host vectors; y_out gets y in double. */
static spx_status run_host(const spx_plan *P, spx_type t, double alpha, const double *x, int64_t n,
                           double beta, const double *y0, int64_t m, double *y_out)
{
    spx_status st;
    if (t == SPX_F64) {
        double *y = malloc(((size_t)m + 1) * sizeof *y);
        for (int64_t i = 0; i < m; i++)
            y[i] = beta == 0.0 ? NAN : y0[i];
        st = spx_spmv_host(P, alpha, x, beta, y);
        memcpy(y_out, y, (size_t)m * sizeof *y);
        free(y);
        return st;
    }
    float *xf = malloc(((size_t)n + 1) * sizeof *xf), *yf = malloc(((size_t)m + 1) * sizeof *yf);
    for (int64_t i = 0; i < n; i++)
        xf[i] = (float)x[i];
    for (int64_t i = 0; i < m; i++)
        yf[i] = beta == 0.0 ? NAN : (float)y0[i];
    uint16_t *xh = NULL;
    if (spx_plan_x_type(P) == SPX_F16) { /* xtype=half */
        xh = malloc(((size_t)n + 1) * sizeof *xh);
        spx_float_to_half(xf, xh, n);
    }
    st = spx_spmv_host(P, alpha, xh ? (const void *)xh : (const void *)xf, beta, yf);
    free(xh);
    for (int64_t i = 0; i < m; i++)
        y_out[i] = yf[i];
    free(xf);
    free(yf);
    return st;
}

/* The (alpha, beta) pairs of every check: beta = 0 (y poisoned with NaN) and not. */
static const double ab[2][2] = {{1.0, 0.0}, {-0.75, 2.0}};

/* Random x (n) and y0 (m) from seed, as plan P of precision t reads them. */
static void fill_vectors(const spx_plan *P, spx_type t, uint64_t seed, double *x, int64_t n,
                         double *y0, int64_t m)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = spx_test_rand(&seed);
    for (int64_t i = 0; i < m; i++)
        y0[i] = spx_test_rand(&seed);
    round_to(t, x, n);
    round_to(t, y0, m);
    if (spx_plan_x_type(P) == SPX_F16) round_to_half(x, n);
}

/* *P = the CUDA SpMV plan of op(A) by format in precision t with params. */
static spx_status cuda_plan(const spx_matrix *A, const char *format, spx_type t,
                            const char *params, spx_op op, spx_plan **P)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.format = format;
    o.precision = t;
    o.params = params;
    o.op = op;
    return spx_plan_create(A, SPX_OP_SPMV, &o, P);
}

/* One format, one precision, one matrix, op(A) = A or A^T, two (alpha, beta) pairs. */
static void check_op(const spx_matrix *A, const char *what, const char *format, spx_type t,
                     const char *params, spx_op op)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    int64_t m = op == SPX_OP_N ? rows : cols, n = op == SPX_OP_N ? cols : rows;
    spx_plan *P = NULL;
    const spx_status st = cuda_plan(A, format, t, params, op, &P);
    if (st == SPX_ERR_UNSUPPORTED && strcmp(format, "sell") == 0 &&
        strstr(spx_last_error(), "slice of")) { /* sell declines unbalanced slices */
        printf("note: sell %s %s declined: %s\n", type_name(t), what, spx_last_error());
        return;
    }
    if (!CHECK_STATUS(st, SPX_OK)) {
        fprintf(stderr, "  %s %s %s params=%s\n", format, type_name(t), what,
                params ? params : "-");
        return;
    }
    double *x = malloc(((size_t)n + 1) * sizeof *x), *y0 = malloc(((size_t)m + 1) * sizeof *y0);
    double *y = malloc(((size_t)m + 1) * sizeof *y), *ref = malloc(((size_t)m + 1) * sizeof *ref);
    double *scale = malloc(((size_t)m + 1) * sizeof *scale);
    fill_vectors(P, t, 42 + (uint64_t)nnz, x, n, y0, m);
    for (int k = 0; k < 2; k++) {
        double alpha = ab[k][0], beta = ab[k][1];
        spx_test_reference(A, op, alpha, x, beta, y0, ref, scale);
        if (!CHECK_STATUS(run_host(P, t, alpha, x, n, beta, y0, m, y), SPX_OK)) continue;
        spx_test_close(y, ref, scale, m, tolerance(t), "%s %s on %s%s (%s) alpha=%g beta=%g",
                       format, type_name(t), what, op == SPX_OP_T ? " (op T)" : "",
                       spx_plan_describe(P), alpha, beta);
    }
    spx_plan_destroy(P);
    free(x);
    free(y0);
    free(y);
    free(ref);
    free(scale);
}

/* Largest |value| of A: fp16 plans are only checked when it fits in half. */
static double max_abs_value(const spx_matrix *A)
{
    const int64_t *rp;
    const void *ci, *v;
    int bits;
    spx_type vt;
    int64_t m, nnz;
    double mx = 0.0;
    spx_matrix_dims(A, &m, NULL, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, &v, &vt);
    for (int64_t k = 0; k < nnz; k++) {
        double a = fabs(vt == SPX_F64 ? ((const double *)v)[k] : ((const float *)v)[k]);
        if (a > mx) mx = a;
    }
    return mx;
}

static void check_one(const spx_matrix *A, const char *what, const char *format, spx_type t,
                      const char *params)
{
    check_op(A, what, format, t, params, SPX_OP_N);
}

/* Every CUDA format in the registry, every precision it has (fp16 only when
 * the values fit in half: its largest finite value is 65504), and csr's
 * fp16-only kernel=lean with x in float and in half. */
static void check_all(const spx_matrix *A, const char *what)
{
    int half_ok = max_abs_value(A) <= 65504.0;
    if (!half_ok) printf("note: %s: values beyond half's range, fp16 not checked\n", what);
    for (int i = 0; i < spx_format_count(); i++) {
        const char *name;
        unsigned dev, prec;
        if (!spx_test_spmv_format(i, &name, &dev, &prec) || !(dev & SPX_DEV_CUDA)) continue;
        for (int t = SPX_F64; t <= SPX_F16; t++)
            if ((prec & (1u << t)) && (t != SPX_F16 || half_ok))
                check_one(A, what, name, (spx_type)t, NULL);
        if ((prec & (1u << SPX_F16)) && half_ok) /* x in half: csr and dasp have it */
            check_one(A, what, name, SPX_F16, "xtype=half");
        if (strcmp(name, "csr") == 0 && half_ok) {
            check_one(A, what, name, SPX_F16, "kernel=lean");
            check_one(A, what, name, SPX_F16, "kernel=lean,xtype=half");
        }
    }
}

static void test_hand(void)
{
    /* 4 x 5, row 1 empty, row 3 dense. */
    static const int64_t rp[] = {0, 2, 2, 3, 8};
    static const int32_t ci[] = {0, 3, 4, 0, 1, 2, 3, 4};
    static const double v[] = {1, -2, 3.5, 0.25, 1, -1, 2, 0.5};
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(4, 5, rp, ci, v, &A), SPX_OK);
    if (A) check_all(A, "hand 4x5");
    spx_matrix_destroy(A);
    static const int64_t rp0[] = {0, 0, 0, 0};
    int64_t shapes[3][2] = {{3, 0}, {0, 3}, {3, 3}};
    for (int s = 0; s < 3; s++) {
        A = NULL;
        CHECK_STATUS(spx_matrix_create_csr(shapes[s][0], shapes[s][1], rp0, ci, NULL, &A), SPX_OK);
        if (A) check_all(A, "no entries");
        spx_matrix_destroy(A);
    }
}

static void test_row_lengths(void)
{
    static const int64_t lens[] = {
        0,  1,   2,   3,   4,   5,    7,    8,    9,    15,   16,   17,    31, 32,     33, 63, 64,
        65, 100, 255, 256, 257, 1000, 1023, 1024, 1025, 2048, 4097, 10000, 0,  100000, 3,  0,  1};
    const int64_t m = (int64_t)(sizeof lens / sizeof lens[0]);
    spx_matrix *A = spx_test_rows_matrix(m, 100001, lens, 7);
    if (A) check_all(A, "rows of 0..100000");
    spx_matrix_destroy(A);
    /* Each single length over many rows, so every group size gets the whole grid. */
    static const int64_t one[] = {1, 2, 3, 6, 12, 24, 48, 200};
    for (size_t s = 0; s < sizeof one / sizeof one[0]; s++) {
        int64_t *len = malloc(3000 * sizeof *len);
        for (int i = 0; i < 3000; i++)
            len[i] = i % 7 == 3 ? 0 : one[s];
        A = spx_test_rows_matrix(3000, 5000, len, 11 + s);
        if (A) check_all(A, "uniform rows");
        spx_matrix_destroy(A);
        free(len);
    }
}

static void test_random(void)
{
    spx_matrix *A = spx_test_uniform_rows_matrix(300, 7000, 400, 3);
    if (A) check_all(A, "rectangular 300x7000");
    for (int i = 0; A && i < spx_format_count(); i++) {
        const char *name;
        unsigned dev, prec;
        if (spx_test_spmv_format(i, &name, &dev, &prec) && (dev & SPX_DEV_CUDA))
            check_op(A, "rectangular 300x7000", name, SPX_F64, NULL, SPX_OP_T);
    }
    spx_matrix_destroy(A);
    A = spx_test_uniform_rows_matrix(7000, 300, 12, 4);
    if (A) check_all(A, "rectangular 7000x300");
    spx_matrix_destroy(A);
    A = spx_test_uniform_rows_matrix(20000, 20000, 20, 5);
    if (A) check_all(A, "random 20000");
    spx_matrix_destroy(A);
}

/* The CUDA csr format's own parameters: every group size, and a low long-row
 * threshold so that the chunk kernels run on ordinary rows. */
static void test_csr_params(void)
{
    spx_matrix *A = spx_test_uniform_rows_matrix(5000, 6000, 90, 9);
    static const char *params[] = {"kernel=vector,group=1",
                                   "kernel=vector,group=2",
                                   "kernel=vector,group=4",
                                   "kernel=vector,group=8",
                                   "kernel=vector,group=16",
                                   "kernel=vector,group=32",
                                   "kernel=vector,group=1,long=3",
                                   "kernel=vector,group=4,long=40",
                                   "kernel=vector,group=32,long=1",
                                   "kernel=stream",
                                   "kernel=stream,long=1",
                                   "kernel=stream,long=50",
                                   "blocknnz=1024",
                                   "blocknnz=1024,long=50",
                                   "blocknnz=2048",
                                   "blocknnz=2048,long=50",
                                   "index=dict",
                                   "index=dict,long=50",
                                   "index=dict,blocknnz=1024",
                                   "index=dict,blocknnz=1024,long=3",
                                   "index=u32",
                                   "seq=0",
                                   "seq=1",
                                   "seq=2,long=50",
                                   "blocknnz=2048,seq=8",
                                   "kernel=warp",
                                   "kernel=warp,long=1",
                                   "kernel=warp,long=50",
                                   "kernel=warp,long=1000"};
    for (size_t i = 0; A && i < sizeof params / sizeof params[0]; i++)
        for (int t = SPX_F64; t <= SPX_F16; t++)
            check_one(A, "random 5000x6000", "csr", (spx_type)t, params[i]);
    /* kernel=lean, fp16 alone: chunks of ordinary rows (long=1, 50), a long
     * above the segment size (capped), pdl off, x in half */
    static const char *lean[] = {"kernel=lean",
                                 "kernel=lean,long=1",
                                 "kernel=lean,long=50",
                                 "kernel=lean,long=1000",
                                 "kernel=lean,pdl=off",
                                 "kernel=lean,xtype=half",
                                 "kernel=lean,xtype=half,long=50"};
    for (size_t i = 0; A && i < sizeof lean / sizeof lean[0]; i++)
        check_one(A, "random 5000x6000", "csr", SPX_F16, lean[i]);
    spx_matrix_destroy(A);
    /* the default kernel: warp when 30% of the nonzeros of a matrix over 2M
     * are in rows over 256 (R-MAT scale 17: 57% of 3.7M), else stream */
    static const char *picks[][2] = {{"rmat:scale=17,ef=16,sym=1", "kernel=warp "},
                                     {"lap3d7:80", "kernel=stream "}};
    for (int i = 0; i < 2; i++) {
        spx_matrix *G = NULL;
        spx_plan *P = NULL;
        if (!CHECK_STATUS(spx_generate(picks[i][0], &G), SPX_OK)) continue;
        check_one(G, picks[i][0], "csr", SPX_F64, NULL);
        if (CHECK_STATUS(cuda_plan(G, "csr", SPX_F64, NULL, SPX_OP_N, &P), SPX_OK) &&
            !CHECK(strstr(spx_plan_describe(P), picks[i][1]) != NULL))
            printf("  csr on %s: %s, expected %s\n", picks[i][0], spx_plan_describe(P),
                   picks[i][1]);
        spx_plan_destroy(P);
        spx_matrix_destroy(G);
    }
    /* long above blocknnz: a row of 1500 must still go to the chunks (it used
     * to make the row-block builder loop forever) */
    static const int64_t lens[] = {3, 1500, 7, 1024, 1025, 0, 2};
    A = spx_test_rows_matrix(7, 3000, lens, 5);
    for (int t = SPX_F64; A && t <= SPX_F16; t++)
        check_one(A, "rows up to 1500", "csr", (spx_type)t, "blocknnz=1024,long=2000");
    spx_matrix_destroy(A);
    /* index=dict on the matrices it is for (few diagonals), and on rows of
     * 0..100000 entries (the long ones read their 32-bit columns) */
    static const char *dict_specs[] = {"lap3d7:24", "lap3d27:16", "lap2d9:300"};
    for (size_t i = 0; i < sizeof dict_specs / sizeof dict_specs[0]; i++) {
        A = NULL;
        if (CHECK_STATUS(spx_generate(dict_specs[i], &A), SPX_OK))
            for (int t = SPX_F64; t <= SPX_F16; t++)
                check_one(A, dict_specs[i], "csr", (spx_type)t, "index=dict");
        spx_matrix_destroy(A);
    }
    static const int64_t wide[] = {0, 1, 5, 255, 256, 257, 4097, 100000, 0, 3, 256, 2};
    A = spx_test_rows_matrix(12, 100001, wide, 9);
    for (int t = SPX_F64; A && t <= SPX_F16; t++)
        check_one(A, "rows of 0..100000", "csr", (spx_type)t, "index=dict");
    spx_matrix_destroy(A);
    /* x in half through every csr kernel: vector, stream with chunks, dict */
    static const char *xhalf[] = {"xtype=half,kernel=vector,group=4", "xtype=half,long=50",
                                  "xtype=half,blocknnz=1024", "xtype=half,index=dict",
                                  "xtype=float"};
    A = spx_test_uniform_rows_matrix(5000, 6000, 90, 11);
    for (size_t i = 0; A && i < sizeof xhalf / sizeof xhalf[0]; i++)
        check_one(A, "random 5000x6000", "csr", SPX_F16, xhalf[i]);
    spx_matrix_destroy(A);
    A = spx_test_rows_matrix(12, 100001, wide, 13);
    if (A) {
        check_one(A, "rows of 0..100000", "csr", SPX_F16, "xtype=half,index=dict");
        check_one(A, "rows of 0..100000", "dasp", SPX_F16, "xtype=half");
        check_one(A, "rows of 0..100000", "auto", SPX_F16, "xtype=half");
    }
    spx_matrix_destroy(A);
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = SPX_DEV_CUDA;
    o.format = "csr";
    o.params = "group=3";
    spx_matrix *B = spx_test_uniform_rows_matrix(10, 10, 3, 1);
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.params = "kernel=scalar";
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.params = "blocknnz=4096";
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.params = "index=auto";
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.params = "index=dict,kernel=vector";
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.params = "index=dict,kernel=warp";
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.params = "index=dict,kernel=lean";
    o.precision = SPX_F16;
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.params = "kernel=lean"; /* fp16 plans only */
    o.precision = SPX_F64;
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.precision = SPX_F32;
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    CHECK(P == NULL);
    o.precision = SPX_F64;
    o.params = "index=dict,long=300";
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    /* xtype: half only for fp16 plans; float or half; x's type reported */
    static const char *cuda_formats[] = {"csr", "dasp", "sell", "auto"};
    for (int f = 0; f < 4; f++) {
        o.format = cuda_formats[f];
        o.precision = SPX_F64;
        o.params = "xtype=half";
        CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        CHECK(P == NULL);
        o.precision = SPX_F16;
        o.params = "xtype=double";
        CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        o.params = "xtype=half";
        if (CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_OK)) CHECK(spx_plan_x_type(P) == SPX_F16);
        spx_plan_destroy(P);
        o.params = "xtype=float";
        if (CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_OK)) CHECK(spx_plan_x_type(P) == SPX_F32);
        spx_plan_destroy(P);
        P = NULL;
    }
    o.format = "csr";
    o.precision = SPX_F64;
    o.params = NULL;
    if (CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_OK)) CHECK(spx_plan_x_type(P) == SPX_F64);
    spx_plan_destroy(P);
    P = NULL;
    o.precision = SPX_F32;
    o.params = "xtype=half";
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.precision = SPX_F64;
    spx_matrix_destroy(B);
    /* fp16 declines values beyond half's range instead of making infinities. */
    static const int64_t rp[] = {0, 1, 2};
    static const int32_t ci[] = {0, 1};
    static const double big[] = {1.0, 1e5};
    CHECK_STATUS(spx_matrix_create_csr(2, 2, rp, ci, big, &B), SPX_OK);
    o.params = NULL;
    o.precision = SPX_F16;
    CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    CHECK(P == NULL);
    spx_matrix_destroy(B);
}

/* The CUDA sell format's own parameters: sorting windows, both column
 * encodings, x in half, and its errors. */
static void test_sell_params(void)
{
    static const char *params[] = {"sigma=1",         "sigma=1,index=u32", "sigma=64",
                                   "sigma=100000",    "index=u32",         "index=auto",
                                   "pdl=off",         "sigma=64,pdl=off"};
    spx_matrix *A = spx_test_uniform_rows_matrix(5000, 6000, 90, 19);
    for (size_t i = 0; A && i < sizeof params / sizeof params[0]; i++)
        for (int t = SPX_F64; t <= SPX_F16; t++)
            check_one(A, "random 5000x6000", "sell", (spx_type)t, params[i]);
    if (A) check_one(A, "random 5000x6000", "sell", SPX_F16, "xtype=half,sigma=64");
    spx_matrix_destroy(A);
    /* Stencils: 16-bit column offsets (lap3d7:48 reaches 2304 rows away). */
    static const char *specs[] = {"lap3d7:48", "lap3d27:16", "lap2d9:300"};
    static const char *stencil_params[] = {"index=u16", "index=u16,sigma=256", "index=u32",
                                           "index=u16,xtype=half"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        A = NULL;
        if (!CHECK_STATUS(spx_generate(specs[i], &A), SPX_OK)) continue;
        for (size_t j = 0; j < sizeof stencil_params / sizeof stencil_params[0]; j++)
            for (int t = SPX_F64; t <= SPX_F16; t++)
                if (t == SPX_F16 || !strstr(stencil_params[j], "xtype"))
                    check_one(A, specs[i], "sell", (spx_type)t, stencil_params[j]);
        spx_matrix_destroy(A);
    }
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = SPX_DEV_CUDA;
    /* AUTO takes sell for a banded matrix of 3M+ nonzeros (auto_cuda.c) */
    A = NULL;
    if (CHECK_STATUS(spx_generate("lap3d27:54", &A), SPX_OK)) {
        o.format = "auto";
        if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK))
            CHECK(strcmp(spx_plan_format(P), "sell") == 0);
        spx_plan_destroy(P);
        P = NULL;
        check_one(A, "lap3d27:54", "auto", SPX_F64, NULL);
        check_one(A, "lap3d27:54", "auto", SPX_F16, NULL);
    }
    spx_matrix_destroy(A);
    /* and for a graph of short rows (mean 3, random columns: u32, slices
     * full once sorted in windows) */
    A = NULL;
    if (CHECK_STATUS(spx_generate("random:m=1200000,n=1200000,nnz=3600000,seed=5", &A), SPX_OK)) {
        o.format = "auto";
        if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK) &&
            !CHECK(strcmp(spx_plan_format(P), "sell") == 0))
            fprintf(stderr, "  auto on a short-row graph: %s\n", spx_plan_format(P));
        spx_plan_destroy(P);
        P = NULL;
        check_one(A, "random short rows", "auto", SPX_F64, NULL);
    }
    spx_matrix_destroy(A);
    /* AUTO orders R-MAT past 10M nonzeros by degree (plan/auto_order.c) */
    A = NULL;
    if (CHECK_STATUS(spx_generate("rmat:scale=19,ef=16,sym=1", &A), SPX_OK)) {
        o.format = "auto";
        if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK) &&
            !CHECK(strstr(spx_plan_describe(P), "reorder=degree (auto") != NULL))
            fprintf(stderr, "  auto on R-MAT 19: %s\n", spx_plan_describe(P));
        spx_plan_destroy(P);
        P = NULL;
        check_one(A, "rmat 19", "auto", SPX_F64, NULL);
        check_one(A, "rmat 19", "auto", SPX_F16, NULL);
    }
    spx_matrix_destroy(A);
    o.format = "sell";
    /* columns spread over 100001: a step spans more than 16 bits can say */
    static const int64_t wide[] = {0, 1, 5, 255, 256, 257, 4097, 100000, 0, 3, 256, 2};
    A = spx_test_rows_matrix(12, 100001, wide, 23);
    o.params = "index=u16";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    CHECK(P == NULL);
    spx_matrix_destroy(A);
    /* 20000 rows of 3 and one of 100000: its slice would run 100000 steps
     * while the others run 3, so sell declines (csr takes it) */
    int64_t *one_long = malloc(20001 * sizeof *one_long);
    for (int i = 0; i < 20001; i++)
        one_long[i] = i == 777 ? 100000 : 3;
    A = spx_test_rows_matrix(20001, 100001, one_long, 29);
    free(one_long);
    o.params = NULL;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    CHECK(P == NULL && strstr(spx_last_error(), "use csr"));
    spx_matrix_destroy(A);
    A = spx_test_rows_matrix(12, 100001, wide, 23);
    static const char *bad[] = {"sigma=0", "index=u8", "c=16", "sigma=x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.params = bad[i];
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        CHECK(P == NULL);
    }
    spx_matrix_destroy(A);
}

/* The stream kernel with fewer thread blocks than row blocks (ctas=1: one per
 * multiprocessor, at most 132 on an H100, for about 235 row blocks of up to
 * 256 rows): each thread block loops, reusing its shared memory and loading
 * the next block's record ahead. Also run under SPX_TEST_QUICK, so that
 * compute-sanitizer's racecheck sees the loop. */
static void test_csr_loop(void)
{
    spx_matrix *A = spx_test_uniform_rows_matrix(60000, 60000, 12, 21);
    static const char *params[] = {"ctas=1,blocknnz=2048",
                                   "ctas=3,long=9,blocknnz=2048",
                                   "ctas=1,blocknnz=1024",
                                   "ctas=2,blocknnz=1024,long=9",
                                   "blocknnz=2048",
                                   "kernel=warp,ctas=1",
                                   "kernel=warp,ctas=3,long=9",
                                   "kernel=lean,ctas=1",
                                   "kernel=lean,ctas=3,long=9"};
    for (size_t i = 0; A && i < sizeof params / sizeof params[0]; i++)
        for (int t = SPX_F64; t <= SPX_F16; t++)
            if (t == SPX_F16 || !strstr(params[i], "lean")) /* lean: fp16 alone */
                check_one(A, "random 60000x60000", "csr", (spx_type)t, params[i]);
    spx_matrix_destroy(A);
}

/* A csr plan with long rows called three times on the same x and y0 per
 * (alpha, beta): the same bits each time (a row counter a call left
 * non-zero would leave its row unwritten: NaN with beta = 0, y0 else) and
 * within tol of the reference. */
static void check_repeated(const spx_matrix *A, const char *what, spx_type t, const char *params,
                           double tol)
{
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    spx_plan *P = NULL;
    if (!CHECK_STATUS(cuda_plan(A, "csr", t, params, SPX_OP_N, &P), SPX_OK)) {
        fprintf(stderr, "  csr %s %s params=%s\n", type_name(t), what, params);
        return;
    }
    CHECK(strstr(spx_plan_describe(P), "long_rows=0 ") == NULL); /* the case has long rows */
    const size_t mb = ((size_t)m + 1) * sizeof(double);
    double *x = malloc(((size_t)n + 1) * sizeof *x), *y0 = malloc(mb), *ref = malloc(mb),
           *scale = malloc(mb), *y[3] = {malloc(mb), malloc(mb), malloc(mb)};
    fill_vectors(P, t, 7 + (uint64_t)nnz, x, n, y0, m);
    for (int k = 0; k < 2; k++) {
        spx_test_reference(A, SPX_OP_N, ab[k][0], x, ab[k][1], y0, ref, scale);
        for (int call = 0; call < 3; call++)
            CHECK_STATUS(run_host(P, t, ab[k][0], x, n, ab[k][1], y0, m, y[call]), SPX_OK);
        spx_test_close(y[0], ref, scale, m, tol, "csr %s on %s (%s) beta=%g", type_name(t), what,
                       spx_plan_describe(P), ab[k][1]);
        if (!CHECK(memcmp(y[0], y[1], (size_t)m * sizeof(double)) == 0 &&
                   memcmp(y[0], y[2], (size_t)m * sizeof(double)) == 0))
            printf("  csr %s on %s (%s) beta=%g: calls differ\n", type_name(t), what, params,
                   ab[k][1]);
    }
    spx_plan_destroy(P);
    for (int call = 0; call < 3; call++)
        free(y[call]);
    free(x);
    free(y0);
    free(ref);
    free(scale);
}

/* csr's long rows (csr_kernels.h: chunks of 256, each row finished in the
 * same launch by the warp that counts its last chunk) among rows of 0..40:
 * every 509th row of 257..30000 entries in turn, the first of 1442, the last
 * of 257 and the middle one of `longest` (10^6; 70000 with SPX_TEST_QUICK);
 * long=30, kernel=vector,group=1 (long=32) make rows of 31..40 long rows of
 * one chunk. Every csr kernel (stream with row blocks of 1024 and 2048,
 * vector, warp, lean (fp16 alone), index=dict, pdl on and off), fp64, fp32,
 * fp16 (x float and half),
 * stored values and iso (the pattern: ones), each called three times.
 * Tolerance 256 u (u = 2^-53, 2^-24): the deepest sum, of the 10^6 row
 * (3907 chunks), is 145 roundings deep (a product, 8 adds per lane and 5
 * shuffles a chunk, 123 chunk sums per lane and 5 shuffles, alpha and beta),
 * 146 with fp32's rounding of the values; fp16 TOL16 (see the top). */
static void test_csr_long_rows(void)
{
    const int64_t rows = quick() ? 4000 : 20000, longest = quick() ? 70000 : 1000000;
    static const int64_t longs[] = {257, 300, 511, 512, 513, 1442, 2048, 4097, 30000};
    int64_t *len = malloc((size_t)rows * sizeof *len);
    for (int64_t i = 0; i < rows; i++)
        len[i] = i % 509 == 7 ? longs[(i / 509) % 9] : i % 41;
    len[0] = 1442;
    len[rows - 1] = 257;
    len[rows / 2] = longest;
    spx_matrix *A = spx_test_rows_matrix(rows, longest + 3, len, 37), *I = NULL;
    free(len);
    const int64_t *rp = NULL;
    const void *ci = NULL;
    if (A && CHECK_STATUS(spx_matrix_csr(A, &rp, &ci, NULL, NULL, NULL), SPX_OK))
        CHECK_STATUS(spx_matrix_create_csr(rows, longest + 3, rp, ci, NULL, &I), SPX_OK);
    static const char *stored[] = {"",
                                   "blocknnz=2048",
                                   "pdl=off",
                                   "long=30",
                                   "seq=0",
                                   "seq=1",
                                   "blocknnz=2048,seq=4",
                                   "kernel=vector",
                                   "kernel=vector,group=1",
                                   "index=dict",
                                   "index=dict,long=30",
                                   "xtype=half",
                                   "xtype=half,kernel=vector",
                                   "xtype=half,index=dict",
                                   "kernel=warp",
                                   "kernel=warp,long=30",
                                   "kernel=warp,pdl=off",
                                   "xtype=half,kernel=warp",
                                   "kernel=lean",
                                   "kernel=lean,long=30",
                                   "kernel=lean,pdl=off",
                                   "xtype=half,kernel=lean"};
    static const char *iso[] = {"values=iso",
                                "values=iso,kernel=warp",
                                "values=iso,blocknnz=2048",
                                "values=iso,long=30",
                                "values=iso,seq=1",
                                "values=iso,kernel=vector",
                                "values=iso,index=dict",
                                "values=iso,xtype=half",
                                "values=iso,kernel=lean",
                                "values=iso,kernel=lean,xtype=half"};
    for (int t = SPX_F64; t <= SPX_F16; t++) {
        const double tol = t == SPX_F64   ? 256.0 * 0x1.0p-53
                           : t == SPX_F32 ? 256.0 * 0x1.0p-24
                                          : TOL16;
        for (size_t i = 0; A && i < sizeof stored / sizeof stored[0]; i++)
            if (t == SPX_F16 || (!strstr(stored[i], "xtype") && !strstr(stored[i], "lean")))
                check_repeated(A, "long rows", (spx_type)t, stored[i], tol);
        for (size_t i = 0; I && i < sizeof iso / sizeof iso[0]; i++)
            if (t == SPX_F16 || (!strstr(iso[i], "xtype") && !strstr(iso[i], "lean")))
                check_repeated(I, "long rows (iso)", (spx_type)t, iso[i], tol);
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(I);
}

/* Uploads through the pinned staging buffers (src/cuda/staged.cu, 16 MiB
 * chunks): sizes around the chunk boundaries and below the staging threshold
 * come back byte for byte, and the plain path (threshold raised) agrees. */
static void test_staged_upload(void)
{
    static const size_t mib = (size_t)1 << 20;
    const size_t sizes[] = {
        1, 4097, 32 * mib - 1, 32 * mib, 32 * mib + 1, 48 * mib + 8, 80 * mib + 12345};
    size_t most = 80 * mib + 12345, saved = spx__cuda_stage_min;
    unsigned char *src = malloc(most), *back = malloc(most);
    uint64_t seed = 77;
    for (size_t i = 0; src && i < most; i++)
        src[i] = (unsigned char)(spx_test_rand(&seed) * 127.0 + 128.0);
    for (int plain = 0; src && back && plain < 2; plain++) {
        spx__cuda_stage_min = plain ? (size_t)-1 : saved;
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            void *d = NULL;
            memset(back, 0, sizes[k]);
            CHECK_STATUS(spx__cuda_upload(&d, src, sizes[k], "staged upload test"), SPX_OK);
            CHECK_STATUS(spx__cuda_copy(back, d, sizes[k], 0), SPX_OK);
            CHECK(memcmp(back, src, sizes[k]) == 0);
            spx__cuda_free(d);
        }
    }
    spx__cuda_stage_min = saved;
    free(src);
    free(back);
}

/* spx_spmv with device vectors, and the gateway's error reports. */
static void test_device_vectors(void)
{
    spx_matrix *A = spx_test_uniform_rows_matrix(1000, 1000, 30, 21);
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = SPX_DEV_CUDA;
    o.format = "csr";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK);
    double x[1000], y[1000], ref[1000], scale[1000];
    uint64_t seed = 5;
    for (int i = 0; i < 1000; i++)
        x[i] = spx_test_rand(&seed);
    void *dx = NULL, *dy = NULL;
    CHECK_STATUS(spx__cuda_upload(&dx, x, sizeof x, "x"), SPX_OK);
    CHECK_STATUS(spx__cuda_alloc(&dy, sizeof y, "y"), SPX_OK);
    CHECK_STATUS(spx__cuda_memset(dy, 0xff, sizeof y, NULL), SPX_OK); /* NaN */
    CHECK_STATUS(spx_spmv(P, 2.0, dx, 0.0, dy), SPX_OK);
    CHECK_STATUS(spx__cuda_sync(NULL), SPX_OK);
    CHECK_STATUS(spx__cuda_copy(y, dy, sizeof y, 0), SPX_OK);
    spx_test_reference(A, SPX_OP_N, 2.0, x, 0.0, NULL, ref, scale);
    spx_test_close(y, ref, scale, 1000, TOL64, "csr with device vectors");
    spx__cuda_free(dx);
    spx__cuda_free(dy);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    if (!quick()) { /* compute-sanitizer reports the refused cudaMalloc as an error */
        void *huge = NULL;
        CHECK_STATUS(spx__cuda_alloc(&huge, (size_t)1 << 60, "test"), SPX_ERR_OOM);
        CHECK(huge == NULL && strstr(spx_last_error(), "1152921504606846976") != NULL);
    }
    void *e0 = NULL, *e1 = NULL;
    float ms = -1.0f;
    CHECK_STATUS(spx__cuda_event_create(&e0), SPX_OK);
    CHECK_STATUS(spx__cuda_event_create(&e1), SPX_OK);
    CHECK_STATUS(spx__cuda_event_record(e0, NULL), SPX_OK);
    CHECK_STATUS(spx__cuda_event_record(e1, NULL), SPX_OK);
    CHECK_STATUS(spx__cuda_event_elapsed(e0, e1, &ms), SPX_OK);
    CHECK(ms >= 0.0f);
    spx__cuda_event_destroy(e0);
    spx__cuda_event_destroy(e1);
}

/* Largest row sum of |a_ij|: alpha = 1 / it keeps a chain of products bounded. */
static double max_row_sum(const spx_matrix *A)
{
    const int64_t *rp;
    const void *ci, *v;
    int bits;
    spx_type vt;
    int64_t m;
    double mx = 0.0;
    spx_matrix_dims(A, &m, NULL, NULL);
    spx_matrix_csr(A, &rp, &ci, &bits, &v, &vt);
    for (int64_t i = 0; i < m; i++) {
        double s = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            s += fabs(vt == SPX_F64 ? ((const double *)v)[k] : ((const float *)v)[k]);
        if (s > mx) mx = s;
    }
    return mx;
}

/* `steps` calls on one stream, each reading what the call before wrote:
 * v = a A u + 0.5 v, then u = a A v + 0.5 u, and so on; the final u in out. */
static void run_chain(const spx_matrix *A, const char *format, const char *params, int steps,
                      double a, const double *u0, int64_t n, double *out)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    void *u = NULL, *v = NULL;
    o.device = SPX_DEV_CUDA;
    o.format = format;
    o.params = params;
    size_t bytes = (size_t)n * sizeof(double);
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&u, u0, bytes, "u"), SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&v, u0, bytes, "v"), SPX_OK)) {
        for (int k = 0; k < steps; k++)
            CHECK_STATUS(k % 2 ? spx_spmv(P, a, v, 0.5, u) : spx_spmv(P, a, u, 0.5, v), SPX_OK);
        CHECK_STATUS(spx__cuda_sync(NULL), SPX_OK);
        CHECK_STATUS(spx__cuda_copy(out, steps % 2 ? v : u, bytes, 0), SPX_OK);
    }
    spx__cuda_free(u);
    spx__cuda_free(v);
    spx_plan_destroy(P);
}

/* Back-to-back calls whose x and y are the calls before's y (pdl=on lets a
 * kernel start while the one before ends, cuda/pdl.cuh): the chain must give
 * the bits of pdl=off and agree with the reference chain. Rows of 0..999
 * entries, so csr runs its long rows' chunks (each row summed by its last
 * chunk's warp, in the launch) and dasp every row class, with its second
 * pass and with its last-task sums. */
static void test_back_to_back(void)
{
    const int64_t n = quick() ? 3000 : 20000;
    const int steps = 40;
    int64_t *len = malloc((size_t)n * sizeof *len);
    for (int64_t i = 0; i < n; i++) /* 0..39 entries, every 97th row 300..999 */
        len[i] = i % 97 == 0 ? 300 + i % 700 : i % 40;
    spx_matrix *A = spx_test_rows_matrix(n, n, len, 31);
    free(len);
    static const char *formats[] = {"csr", "csr", "csr", "dasp", "dasp", "sell", "sell"};
    static const char *params[] = {"",        "kernel=vector", "index=dict",
                                   "pass2=0", "pass2=1",       "",
                                   "sigma=1,index=u32"};
    double *u0 = malloc((size_t)n * sizeof *u0), *on = malloc((size_t)n * sizeof *on),
           *off = malloc((size_t)n * sizeof *off), *ref = malloc((size_t)n * sizeof *ref),
           *tmp = malloc((size_t)n * sizeof *tmp), *scale = malloc((size_t)n * sizeof *scale);
    uint64_t seed = 17;
    for (int64_t i = 0; i < n; i++)
        u0[i] = spx_test_rand(&seed);
    const double a = 1.0 / max_row_sum(A);
    double *cur = ref, *next = tmp; /* the reference chain, in double */
    memcpy(ref, u0, (size_t)n * sizeof *ref);
    memcpy(tmp, u0, (size_t)n * sizeof *tmp);
    for (int k = 0; k < steps; k++) {
        spx_test_reference(A, SPX_OP_N, a, cur, 0.5, next, next, scale);
        double *t = cur;
        cur = next;
        next = t;
    }
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        char p_on[64], p_off[64];
        snprintf(p_on, sizeof p_on, "%s%spdl=on", params[f], *params[f] ? "," : "");
        snprintf(p_off, sizeof p_off, "%s%spdl=off", params[f], *params[f] ? "," : "");
        run_chain(A, formats[f], p_on, steps, a, u0, n, on);
        run_chain(A, formats[f], p_off, steps, a, u0, n, off);
        int same = memcmp(on, off, (size_t)n * sizeof *on) == 0;
        double worst = 0.0;
        for (int64_t i = 0; i < n; i++)
            worst = fmax(worst, fabs(on[i] - cur[i]));
        if (!CHECK(same && worst <= 1e-12))
            printf("  back to back %s %s: pdl on/off bitwise %s, max |u - ref| %.3g\n", formats[f],
                   params[f], same ? "equal" : "DIFFERENT", worst);
    }
    free(u0);
    free(on);
    free(off);
    free(ref);
    free(tmp);
    free(scale);
    spx_matrix_destroy(A);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static void test_shared(void)
{
    const char *dir = spx_test_matrices_dir();
    if (!dir) return;
    DIR *d = opendir(dir);
    if (!CHECK(d != NULL)) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!has_suffix(e->d_name, ".mtx")) continue;
        spx_matrix *A = spx_test_read_matrix(dir, e->d_name);
        if (A) check_all(A, e->d_name);
        for (int t = SPX_F64; A && t <= (max_abs_value(A) <= 65504.0 ? SPX_F16 : SPX_F32); t++)
            check_one(A, e->d_name, "csr", (spx_type)t, "kernel=warp");
        spx_matrix_destroy(A);
    }
    closedir(d);
}

/* Everything but the shared matrices (SPX_TEST_QUICK: the smaller cases). */
static void test_default_part(void)
{
    test_hand();
    test_staged_upload();
    test_row_lengths();
    test_device_vectors();
    test_csr_loop();
    test_csr_long_rows();
    test_back_to_back();
    if (quick()) {
        printf("SPX_TEST_QUICK: random and per-parameter cases skipped\n");
        return;
    }
    test_random();
    test_csr_params();
    test_sell_params();
}

int main(void)
{
    if (!spx_test_require_cuda(
            "GPU formats not run (test_core checks that CUDA plans are refused)"))
        return spx_test_finish();
    if (spx_test_part("shared")) test_shared();
    if (spx_test_part(NULL)) test_default_part();
    return spx_test_finish();
}
