/* spx_cg_many: k right-hand sides, each column its own CG.
 *
 * - lap3d7:12 with 5 random columns (padded leading dimensions, one column
 *   starting from a nonzero guess): every column converges to rtol, its
 *   residual checked against the long-double reference product, its x
 *   within 1e-7 of spx_cg's on that column alone and its iteration count
 *   within 1 of spx_cg's; the padding of X untouched;
 * - Jacobi on a matrix with a varied diagonal, the same checks;
 * - a zero column of B (stops at iteration 0, x stays 0), a column whose
 *   guess is the solution, a NaN column (SPX_ERR_BREAKDOWN naming it, the
 *   other columns still solved), an indefinite matrix, the iteration limit
 *   (SPX_ERR_NOT_CONVERGED, X the last iterate), a callback that stops, the
 *   history (the worst column's residual);
 * - the same bits from a second solve, from a solve with keep_workspace 0
 *   and after a solve with another k on the same plan;
 * - k = 300 (more than a device chunk of 256 columns) on a small matrix;
 * - fp32 plans;
 * - errors: an SpMV plan, an SpMM plan given to spx_cg, k < 0, ldb or ldx
 *   < k, NULL blocks, B == X, Jacobi without A, a non-square matrix;
 * - built as tests/test_gpu_solve_many.c (SOLVE_MANY_TEST_CUDA; exit 77
 *   without a GPU): CUDA csr in fp64 and fp32 against the CPU solve (device
 *   blocks and host ones), the NaN column, Jacobi, k = 300, repeatability. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"

#define PAD_VALUE 12345.0

static spx_plan *plan_of(const spx_matrix *A, spx_operation op, spx_device dev, spx_type t)
{
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = dev;
    o.precision = t;
    CHECK_STATUS(spx_plan_create(A, op, &o, &P), SPX_OK);
    return P;
}

static int64_t rows_of(const spx_matrix *A)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    return n;
}

/* n x ld doubles: random columns below k, PAD_VALUE past them. */
static double *random_block(int64_t n, int64_t k, int64_t ld, uint64_t seed)
{
    double *a = malloc(sizeof *a * (size_t)(n * ld + 1));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < ld; j++)
            a[i * ld + j] = j < k ? spx_test_rand(&seed) : PAD_VALUE;
    return a;
}

static double *column(const double *a, int64_t n, int64_t ld, int64_t j)
{
    double *c = calloc((size_t)n + 1, sizeof *c);
    for (int64_t i = 0; i < n; i++)
        c[i] = a[i * ld + j];
    return c;
}

/* ||b - A x|| / ||b|| by the long-double reference product (||b|| = 0: ||A x||). */
static double true_residual(const spx_matrix *A, const double *b, const double *x)
{
    int64_t n = rows_of(A);
    double *ax = malloc(sizeof *ax * (size_t)n), *scale = malloc(sizeof *scale * (size_t)n);
    double rr = 0.0, bb = 0.0;
    spx_test_reference(A, SPX_OP_N, 1.0, x, 0.0, NULL, ax, scale);
    for (int64_t i = 0; i < n; i++) {
        rr += (b[i] - ax[i]) * (b[i] - ax[i]);
        bb += b[i] * b[i];
    }
    free(ax);
    free(scale);
    return bb > 0.0 ? sqrt(rr / bb) : sqrt(rr);
}

/* A(i,i) = 4.5 + 3 (i % 7), -1 to the neighbours i +- 1 and i +- m: SPD
 * (diagonally dominant), a diagonal Jacobi changes. */
static spx_matrix *varied_diagonal(int64_t n, int64_t m)
{
    int64_t cap = 5 * n, nnz = 0;
    int64_t *ri = malloc(sizeof *ri * (size_t)cap), *ci = malloc(sizeof *ci * (size_t)cap);
    double *v = malloc(sizeof *v * (size_t)cap);
    const int64_t off[4] = {-m, -1, 1, m};
    for (int64_t i = 0; i < n; i++) {
        ri[nnz] = i, ci[nnz] = i, v[nnz++] = 4.5 + 3.0 * (double)(i % 7);
        for (int d = 0; d < 4; d++)
            if (i + off[d] >= 0 && i + off[d] < n)
                ri[nnz] = i, ci[nnz] = i + off[d], v[nnz++] = -1.0;
    }
    spx_matrix *A = spx_test_coo_matrix(n, n, nnz, ri, ci, v);
    free(ri);
    free(ci);
    free(v);
    return A;
}

/* Columns: 0 random, 1 zero, 2 random with the exact solution's guess (b
 * = A x), 3 NaN (breakdown) or random; host blocks on any plan. */
static void special_columns(const spx_matrix *A, spx_plan *P, int nan_column)
{
    const int64_t n = rows_of(A), k = 4;
    double *B = random_block(n, k, k, 21), *X = calloc((size_t)(n * k), sizeof *X);
    double *x2 = malloc(sizeof *x2 * (size_t)n), *b2 = malloc(sizeof *b2 * (size_t)n);
    double *scale = malloc(sizeof *scale * (size_t)n);
    spx_solve_info info[4];
    spx_solve_opts o = spx_solve_opts_default();
    uint64_t seed = 5;
    for (int64_t i = 0; i < n; i++)
        x2[i] = spx_test_rand(&seed);
    spx_test_reference(A, SPX_OP_N, 1.0, x2, 0.0, NULL, b2, scale);
    for (int64_t i = 0; i < n; i++) {
        B[i * k + 1] = 0.0;
        B[i * k + 2] = b2[i];
        X[i * k + 2] = x2[i];
    }
    if (nan_column) B[7 * k + 3] = NAN;
    CHECK_STATUS(spx_cg_many_host(P, A, k, B, k, X, k, &o, info),
                 nan_column ? SPX_ERR_BREAKDOWN : SPX_OK);
    if (nan_column) CHECK(strstr(spx_last_error(), "column 3") != NULL);
    double *b0 = column(B, n, k, 0), *x0 = column(X, n, k, 0);
    CHECK(true_residual(A, b0, x0) <= 2.0 * o.rtol && info[0].iters > 0);
    int zero = 1;
    for (int64_t i = 0; i < n; i++)
        zero &= X[i * k + 1] == 0.0;
    CHECK(zero && info[1].iters == 0 && info[1].rel_residual == 0.0);
    CHECK(info[2].iters <= 1 && info[2].rel_residual <= o.rtol);
    free(b0);
    free(x0);
    free(B);
    free(X);
    free(x2);
    free(b2);
    free(scale);
}

#ifndef SOLVE_MANY_TEST_CUDA
static int padding_kept(const double *x, int64_t n, int64_t k, int64_t ld)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = k; j < ld; j++)
            if (x[i * ld + j] != PAD_VALUE) return 0;
    return 1;
}

/* Column j of the solve against spx_cg on that column alone (CPU SpMV plan). */
static void check_against_cg(const spx_matrix *A, const double *B, int64_t ldb, const double *X0,
                             const double *X, int64_t ldx, int64_t j, const spx_solve_opts *o,
                             const spx_solve_info *info, double xtol, const char *what)
{
    int64_t n = rows_of(A);
    spx_plan *S = plan_of(A, SPX_OP_SPMV, SPX_DEV_CPU, SPX_F64);
    double *b = column(B, n, ldb, j), *x = column(X0, n, ldx, j), *got = column(X, n, ldx, j);
    spx_solve_info one;
    CHECK_STATUS(spx_cg(S, A, b, x, o, &one), SPX_OK);
    double err = 0.0, norm = 0.0;
    for (int64_t i = 0; i < n; i++) {
        err = fmax(err, fabs(got[i] - x[i]));
        norm = fmax(norm, fabs(x[i]));
    }
    double res = true_residual(A, b, got);
    if (!CHECK(err <= xtol * fmax(norm, 1e-300) && llabs(info->iters - one.iters) <= 1 &&
               res <= 2.0 * o->rtol && fabs(info->rel_residual - res) <= 1e-3 * o->rtol + 1e-15))
        printf("  %s column %lld: |x - x_cg| %.3g (|x| %.3g), iters %lld vs %lld, residual %.3g "
               "(info %.3g)\n",
               what, (long long)j, err, norm, (long long)info->iters, (long long)one.iters, res,
               info->rel_residual);
    free(b);
    free(x);
    free(got);
    spx_plan_destroy(S);
}

/* The solve of k random columns (one with a nonzero guess) on plan P
 * (CPU, host blocks), each column against spx_cg. */
static void check_solve(const spx_matrix *A, spx_plan *P, int64_t k, int jacobi, const char *what)
{
    const int64_t n = rows_of(A), ldb = k + 2, ldx = k + 3;
    double *B = random_block(n, k, ldb, 11), *X0 = random_block(n, k, ldx, 12);
    double *X = malloc(sizeof *X * (size_t)(n * ldx));
    spx_solve_info *info = calloc((size_t)k, sizeof *info);
    spx_solve_opts o = spx_solve_opts_default();
    o.rtol = 1e-10;
    o.jacobi = jacobi;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < k; j++)
            X0[i * ldx + j] = j == 1 ? X0[i * ldx + j] : 0.0;
    memcpy(X, X0, sizeof *X * (size_t)(n * ldx));
    CHECK_STATUS(spx_cg_many(P, A, k, B, ldb, X, ldx, &o, info), SPX_OK);
    CHECK(padding_kept(X, n, k, ldx));
    for (int64_t j = 0; j < k; j++)
        check_against_cg(A, B, ldb, X0, X, ldx, j, &o, &info[j], 1e-7, what);
    free(B);
    free(X0);
    free(X);
    free(info);
}

static void test_columns(void)
{
    spx_matrix *A = NULL, *D = varied_diagonal(900, 30);
    CHECK_STATUS(spx_generate("lap3d7:12", &A), SPX_OK);
    spx_plan *P = plan_of(A, SPX_OP_SPMM, SPX_DEV_CPU, SPX_F64);
    check_solve(A, P, 5, 0, "lap3d7:12");
    check_solve(A, P, 5, 1, "lap3d7:12 jacobi");
    spx_plan *Q = plan_of(D, SPX_OP_SPMM, SPX_DEV_CPU, SPX_F64);
    check_solve(D, Q, 4, 1, "varied diagonal jacobi");
    check_solve(D, Q, 3, 0, "varied diagonal");
    spx_plan_destroy(P);
    spx_plan_destroy(Q);
    spx_matrix_destroy(A);
    spx_matrix_destroy(D);
}

static int stop_at_3(void *ctx, int64_t iter, double rel)
{
    (void)rel;
    *(int64_t *)ctx = iter;
    return iter >= 3;
}

static void test_statuses(void)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate("lap3d7:8", &A), SPX_OK);
    const int64_t n = 512, k = 3;
    spx_plan *P = plan_of(A, SPX_OP_SPMM, SPX_DEV_CPU, SPX_F64);
    special_columns(A, P, 1);
    special_columns(A, P, 0);

    double *B = random_block(n, k, k, 31), *X = calloc((size_t)(n * k), sizeof *X);
    double history[6];
    spx_solve_info info[3];
    spx_solve_opts o = spx_solve_opts_default();
    o.max_iters = 5;
    o.history = history;
    CHECK_STATUS(spx_cg_many(P, A, k, B, k, X, k, &o, info), SPX_ERR_NOT_CONVERGED);
    CHECK(info[0].iters == 5 && info[2].iters == 5 && X[0] != 0.0);
    CHECK(history[0] == 1.0 && history[5] < history[0] && history[5] > o.rtol);
    CHECK(fabs(history[5] /
                   fmax(fmax(info[0].rel_residual, info[1].rel_residual), info[2].rel_residual) -
               1.0) < 1e-6);

    int64_t seen = 0;
    o = spx_solve_opts_default();
    o.callback = stop_at_3;
    o.ctx = &seen;
    memset(X, 0, sizeof *X * (size_t)(n * k));
    CHECK_STATUS(spx_cg_many(P, A, k, B, k, X, k, &o, info), SPX_OK);
    CHECK(seen == 3 && info[1].iters == 3);

    /* indefinite: diag(1, -1, ...) */
    int64_t rp[9], ci[8];
    double v[8], b[8 * 2], x[8 * 2] = {0};
    for (int i = 0; i < 8; i++)
        rp[i] = i, ci[i] = i, v[i] = i % 2 ? -1.0 : 1.0, b[2 * i] = b[2 * i + 1] = 1.0;
    rp[8] = 8;
    spx_matrix *I = NULL;
    CHECK_STATUS(spx_matrix_from_coo(8, 8, 8, rp, ci, v, &I), SPX_OK);
    spx_plan *Pi = plan_of(I, SPX_OP_SPMM, SPX_DEV_CPU, SPX_F64);
    CHECK_STATUS(spx_cg_many(Pi, I, 2, b, 2, x, 2, NULL, NULL), SPX_ERR_BREAKDOWN);
    CHECK(strstr(spx_last_error(), "column 0") != NULL);
    spx_plan_destroy(Pi);
    spx_matrix_destroy(I);
    free(B);
    free(X);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
}

/* X of a solve of k columns from 0 on plan P, blocks of the plan's type. */
static void *solve_bits(const spx_matrix *A, spx_plan *P, int64_t k, spx_type t, int keep)
{
    const int64_t n = rows_of(A);
    size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    double *Bd = random_block(n, k, k, 41);
    void *B = malloc(es * (size_t)(n * k)), *X = calloc((size_t)(n * k), es);
    for (int64_t e = 0; e < n * k; e++)
        if (t == SPX_F64)
            ((double *)B)[e] = Bd[e];
        else
            ((float *)B)[e] = (float)Bd[e];
    spx_solve_opts o = spx_solve_opts_default();
    o.rtol = t == SPX_F64 ? 1e-10 : 1e-5;
    o.keep_workspace = keep;
    CHECK_STATUS(spx_cg_many_host(P, A, k, B, k, X, k, &o, NULL), SPX_OK);
    free(Bd);
    free(B);
    return X;
}

static void check_repeats(const spx_matrix *A, spx_plan *P, spx_type t, int64_t k)
{
    size_t bytes = (t == SPX_F64 ? sizeof(double) : sizeof(float)) * (size_t)(rows_of(A) * k);
    void *x1 = solve_bits(A, P, k, t, 1), *x2 = solve_bits(A, P, k, t, 1);
    void *x3 = solve_bits(A, P, k, t, 0);
    free(solve_bits(A, P, k + 1, t, 1)); /* another k takes the plan's slot */
    void *x4 = solve_bits(A, P, k, t, 1);
    CHECK(memcmp(x1, x2, bytes) == 0 && memcmp(x1, x3, bytes) == 0 && memcmp(x1, x4, bytes) == 0);
    free(x1);
    free(x2);
    free(x3);
    free(x4);
}

static void test_repeats_and_fp32(void)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate("lap3d7:10", &A), SPX_OK);
    spx_plan *P = plan_of(A, SPX_OP_SPMM, SPX_DEV_CPU, SPX_F64);
    check_repeats(A, P, SPX_F64, 6);
    spx_plan *F = plan_of(A, SPX_OP_SPMM, SPX_DEV_CPU, SPX_F32);
    check_repeats(A, F, SPX_F32, 6);
    spx_plan_destroy(P);
    spx_plan_destroy(F);
    spx_matrix_destroy(A);
}

/* k = 300 columns: two chunks of a device launch (cuda/blas1/many.h). */
static void check_wide(const spx_matrix *A, spx_plan *P)
{
    const int64_t n = rows_of(A), k = 300;
    double *B = random_block(n, k, k, 51), *X = calloc((size_t)(n * k), sizeof *X);
    spx_solve_info *info = calloc((size_t)k, sizeof *info);
    spx_solve_opts o = spx_solve_opts_default();
    o.rtol = 1e-9;
    CHECK_STATUS(spx_cg_many_host(P, A, k, B, k, X, k, &o, info), SPX_OK);
    int ok = 1;
    for (int64_t j = 0; j < k; j += 37) {
        double *b = column(B, n, k, j), *x = column(X, n, k, j);
        ok &= true_residual(A, b, x) <= 2.0 * o.rtol && info[j].rel_residual <= 2.0 * o.rtol;
        free(b);
        free(x);
    }
    CHECK(ok);
    free(B);
    free(X);
    free(info);
}

static void test_wide(void)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate("lap3d7:6", &A), SPX_OK);
    spx_plan *P = plan_of(A, SPX_OP_SPMM, SPX_DEV_CPU, SPX_F64);
    check_wide(A, P);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
}

static void test_errors(void)
{
    spx_matrix *A = NULL, *R = spx_test_random_matrix(6, 4, 10, 3);
    CHECK_STATUS(spx_generate("lap3d7:4", &A), SPX_OK);
    spx_plan *P = plan_of(A, SPX_OP_SPMM, SPX_DEV_CPU, SPX_F64);
    spx_plan *S = plan_of(A, SPX_OP_SPMV, SPX_DEV_CPU, SPX_F64);
    spx_plan *Rp = plan_of(R, SPX_OP_SPMM, SPX_DEV_CPU, SPX_F64);
    double B[64 * 2], X[64 * 2] = {0};
    spx_solve_opts o = spx_solve_opts_default();
    for (int i = 0; i < 128; i++)
        B[i] = 1.0;
    CHECK_STATUS(spx_cg_many(S, A, 2, B, 2, X, 2, NULL, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_cg_many(P, A, 2, B, 2, X, 2, NULL, NULL), SPX_OK); /* keeps a workspace */
    CHECK_STATUS(spx_cg(P, A, B, X, NULL, NULL), SPX_ERR_INVALID_ARG);
    CHECK(strstr(spx_last_error(), "spx_cg_many") != NULL);
    CHECK_STATUS(spx_cg_many(P, A, -1, B, 2, X, 2, NULL, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_cg_many(P, A, 2, B, 1, X, 2, NULL, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_cg_many(P, A, 2, B, 2, X, 1, NULL, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_cg_many(P, A, 2, NULL, 2, X, 2, NULL, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_cg_many(P, A, 2, B, 2, NULL, 2, NULL, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_cg_many(P, A, 2, X, 2, X, 2, NULL, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_cg_many(NULL, A, 2, B, 2, X, 2, NULL, NULL), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_cg_many(Rp, R, 2, B, 2, X, 2, NULL, NULL), SPX_ERR_DIM_MISMATCH);
    o.jacobi = 1;
    CHECK_STATUS(spx_cg_many(P, NULL, 2, B, 2, X, 2, &o, NULL), SPX_ERR_INVALID_ARG);
    o.rtol = -1.0;
    CHECK_STATUS(spx_cg_many(P, A, 2, B, 2, X, 2, &o, NULL), SPX_ERR_INVALID_ARG);
    spx_solve_info info = {.iters = 7};
    CHECK_STATUS(spx_cg_many(P, A, 0, NULL, 0, NULL, 0, NULL, &info), SPX_OK);
    CHECK(info.iters == 7); /* k = 0: info has no entry */
    spx_plan_destroy(P);
    spx_plan_destroy(S);
    spx_plan_destroy(Rp);
    spx_matrix_destroy(A);
    spx_matrix_destroy(R);
}

#else
/* CUDA csr against the CPU solve of the same columns: x within tol of it,
 * iterations within 1; device blocks through spx_cg_many, host ones through
 * spx_cg_many_host. */
static void check_cuda(const spx_matrix *A, spx_type t, int64_t k, int jacobi, const char *what)
{
    const int64_t n = rows_of(A);
    size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float), bytes = es * (size_t)(n * k);
    spx_plan *C = plan_of(A, SPX_OP_SPMM, SPX_DEV_CPU, t),
             *G = plan_of(A, SPX_OP_SPMM, SPX_DEV_CUDA, t);
    double *Bd = random_block(n, k, k, 61);
    void *B = malloc(bytes), *Xc = calloc(1, bytes), *Xg = calloc(1, bytes), *Xh = calloc(1, bytes);
    void *dB = NULL, *dX = NULL;
    for (int64_t e = 0; e < n * k; e++)
        if (t == SPX_F64)
            ((double *)B)[e] = Bd[e];
        else
            ((float *)B)[e] = (float)Bd[e];
    spx_solve_info *ic = calloc((size_t)k, sizeof *ic), *ig = calloc((size_t)k, sizeof *ig);
    spx_solve_opts o = spx_solve_opts_default();
    o.rtol = t == SPX_F64 ? 1e-10 : 1e-5;
    o.jacobi = jacobi;
    CHECK_STATUS(spx_cg_many(C, A, k, B, k, Xc, k, &o, ic), SPX_OK);
    CHECK_STATUS(spx_cg_many_host(G, A, k, B, k, Xh, k, &o, NULL), SPX_OK);
    CHECK_STATUS(spx__cuda_upload(&dB, B, bytes, "B"), SPX_OK);
    CHECK_STATUS(spx__cuda_upload(&dX, Xg, bytes, "X"), SPX_OK);
    CHECK_STATUS(spx_cg_many(G, A, k, B, k, Xg, k, &o, NULL), SPX_ERR_INVALID_ARG); /* host B */
    CHECK_STATUS(spx_cg_many(G, A, k, dB, k, dX, k, &o, ig), SPX_OK);
    CHECK_STATUS(spx__cuda_copy(Xg, dX, bytes, 0), SPX_OK);
    CHECK(memcmp(Xg, Xh, bytes) == 0); /* device and host blocks: the same solve */
    double err = 0.0, norm = 0.0, xtol = t == SPX_F64 ? 1e-7 : 1e-2;
    int iters_ok = 1;
    for (int64_t e = 0; e < n * k; e++) {
        double g = t == SPX_F64 ? ((double *)Xg)[e] : ((float *)Xg)[e];
        double c = t == SPX_F64 ? ((double *)Xc)[e] : ((float *)Xc)[e];
        err = fmax(err, fabs(g - c));
        norm = fmax(norm, fabs(c));
    }
    for (int64_t j = 0; j < k; j++)
        iters_ok &= llabs(ig[j].iters - ic[j].iters) <= 1 && ig[j].rel_residual <= 2.0 * o.rtol;
    if (!CHECK(err <= xtol * norm && iters_ok))
        printf("  %s: |x_gpu - x_cpu| %.3g (|x| %.3g), iterations %lld vs %lld\n", what, err, norm,
               (long long)ig[0].iters, (long long)ic[0].iters);
    memset(Xh, 0, bytes);
    CHECK_STATUS(spx_cg_many_host(G, A, k, B, k, Xh, k, &o, NULL), SPX_OK);
    CHECK(memcmp(Xg, Xh, bytes) == 0); /* a second solve: the same bits */
    spx__cuda_free(dB);
    spx__cuda_free(dX);
    free(Bd);
    free(B);
    free(Xc);
    free(Xg);
    free(Xh);
    free(ic);
    free(ig);
    spx_plan_destroy(C);
    spx_plan_destroy(G);
}

static void test_cuda(void)
{
    if (!spx_test_require_cuda("spx_cg_many on CUDA plans")) return;
    spx_matrix *A = NULL, *D = varied_diagonal(5000, 70), *W = NULL;
    CHECK_STATUS(spx_generate("lap3d7:20", &A), SPX_OK);
    CHECK_STATUS(spx_generate("lap3d7:6", &W), SPX_OK);
    check_cuda(A, SPX_F64, 8, 0, "lap3d7:20 f64");
    check_cuda(A, SPX_F32, 8, 0, "lap3d7:20 f32");
    check_cuda(A, SPX_F64, 1, 0, "lap3d7:20 f64 k=1");
    check_cuda(D, SPX_F64, 5, 1, "varied diagonal jacobi f64");
    check_cuda(W, SPX_F64, 300, 0, "lap3d7:6 k=300");
    spx_plan *G = plan_of(A, SPX_OP_SPMM, SPX_DEV_CUDA, SPX_F64);
    special_columns(A, G, 1);
    special_columns(A, G, 0);
    spx_plan_destroy(G);
    spx_matrix_destroy(A);
    spx_matrix_destroy(D);
    spx_matrix_destroy(W);
}

#endif

int main(void)
{
#ifdef SOLVE_MANY_TEST_CUDA
    test_cuda();
#else
    test_columns();
    test_statuses();
    test_repeats_and_fp32();
    test_wide();
    test_errors();
#endif
    return spx_test_finish();
}
