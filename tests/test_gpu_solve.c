/* CG, BiCGSTAB and GMRES on CUDA plans: vectors in device memory throughout.
 * lap3d7:16 (b = ones) by CG to 1e-10, with and without Jacobi, in the
 * iterations the CPU solve takes (within 2: the dots sum in another order)
 * and with its residual checked on the host against the long-double
 * reference; BiCGSTAB on lap3d7:16 with Jacobi; GMRES(10) and GMRES(45)
 * (its Gram-Schmidt passes past one launch's 32 vectors) with Jacobi on
 * csr and sell, in the CPU's iterations within 2; fp32 CG and GMRES(45) to 1e-5; two
 * solves give the same bits; CG and BiCGSTAB queued ahead against the
 * same solves waiting every iteration; host vectors refused by spx_cg,
 * taken by spx_cg_host, spx_bicgstab_host and spx_gmres_host; solves one after another on
 * one plan reusing the workspace it keeps, against plans of their own.
 * Skipped (77) without a GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"

static spx_plan *plan_on(const spx_matrix *A, spx_device d, const char *format, spx_type t)
{
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = d;
    o.format = format;
    o.precision = t;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK);
    return P;
}

/* ||b - A x|| / ||b|| with the long-double reference product, b = ones. */
static double residual_of_ones(const spx_matrix *A, const double *x, int64_t n)
{
    double *ax = malloc((size_t)n * sizeof *ax), *scale = malloc((size_t)n * sizeof *scale);
    double rr = 0.0;
    spx_test_reference(A, SPX_OP_N, 1.0, x, 0.0, NULL, ax, scale);
    for (int64_t i = 0; i < n; i++)
        rr += (1.0 - ax[i]) * (1.0 - ax[i]);
    free(ax);
    free(scale);
    return sqrt(rr / (double)n);
}

typedef spx_status (*solver)(const spx_plan *, const spx_matrix *, const void *, void *,
                             const spx_solve_opts *, spx_solve_info *);

/* Solve A x = ones on the device with format and precision t; x back on the
 * host as doubles. */
static spx_status solve_on_gpu(const spx_matrix *A, const char *format, spx_type t, solver s,
                               const spx_solve_opts *o, double *x, spx_solve_info *info)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    void *hb = malloc((size_t)n * es), *hx = malloc((size_t)n * es), *db = NULL, *dx = NULL;
    spx_plan *P = plan_on(A, SPX_DEV_CUDA, format, t);
    spx_status st = SPX_ERR_INVALID_ARG;
    for (int64_t i = 0; i < n; i++) {
        if (t == SPX_F64)
            ((double *)hb)[i] = 1.0;
        else
            ((float *)hb)[i] = 1.0f;
    }
    memset(hx, 0, (size_t)n * es);
    if (P && spx__cuda_upload(&db, hb, (size_t)n * es, "b") == SPX_OK &&
        spx__cuda_upload(&dx, hx, (size_t)n * es, "x") == SPX_OK) {
        st = s(P, A, db, dx, o, info);
        if (spx__cuda_copy(hx, dx, (size_t)n * es, 0) != SPX_OK) st = SPX_ERR_DEVICE;
        for (int64_t i = 0; i < n; i++)
            x[i] = t == SPX_F64 ? ((double *)hx)[i] : (double)((float *)hx)[i];
    }
    spx__cuda_free(db);
    spx__cuda_free(dx);
    spx_plan_destroy(P);
    free(hb);
    free(hx);
    return st;
}

static void test_cg(void)
{
    spx_matrix *A = NULL;
    const int64_t n = 4096;
    double *x = malloc(n * sizeof *x), *x2 = malloc(n * sizeof *x2), *xc = calloc(n, sizeof *xc);
    double *b = malloc(n * sizeof *b);
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info gi, ci;
    CHECK_STATUS(spx_generate("lap3d7:16", &A), SPX_OK);
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0;
    o.rtol = 1e-10;
    static const char *const formats[] = {"csr", "sell"};
    for (int f = 0; f < 2; f++)
        for (int jac = 0; jac <= 1; jac++) {
            o.jacobi = jac;
            spx_plan *P = plan_on(A, SPX_DEV_CPU, "csr", SPX_F64);
            memset(xc, 0, n * sizeof *xc);
            CHECK_STATUS(spx_cg(P, A, b, xc, &o, &ci), SPX_OK);
            spx_plan_destroy(P);
            if (CHECK_STATUS(solve_on_gpu(A, formats[f], SPX_F64, spx_cg, &o, x, &gi), SPX_OK)) {
                printf("cuda cg %s lap3d7:16 jacobi=%d: %lld iterations (cpu %lld), %.2f ms\n",
                       formats[f], jac, (long long)gi.iters, (long long)ci.iters, gi.ms);
                CHECK(llabs(gi.iters - ci.iters) <= 2);
                CHECK(residual_of_ones(A, x, n) <= 2e-10);
            }
            CHECK_STATUS(solve_on_gpu(A, formats[f], SPX_F64, spx_cg, &o, x2, &gi), SPX_OK);
            CHECK(memcmp(x, x2, n * sizeof *x) == 0);
        }
    o.jacobi = 1;
    if (CHECK_STATUS(solve_on_gpu(A, "csr", SPX_F64, spx_bicgstab, &o, x, &gi), SPX_OK))
        CHECK(residual_of_ones(A, x, n) <= 2e-10);
    /* GMRES(10) and GMRES(45): as CG, the CPU's iterations within 2, the same bits twice */
    for (int f = 0; f < 4; f++) {
        o.restart = f < 2 ? 10 : 45;
        spx_plan *P = plan_on(A, SPX_DEV_CPU, "csr", SPX_F64);
        memset(xc, 0, n * sizeof *xc);
        CHECK_STATUS(spx_gmres(P, A, b, xc, &o, &ci), SPX_OK);
        spx_plan_destroy(P);
        if (CHECK_STATUS(solve_on_gpu(A, formats[f % 2], SPX_F64, spx_gmres, &o, x, &gi), SPX_OK)) {
            printf("cuda gmres(%lld) %s lap3d7:16 jacobi=1: %lld iterations (cpu %lld), %.2f ms\n",
                   (long long)o.restart, formats[f % 2], (long long)gi.iters, (long long)ci.iters,
                   gi.ms);
            CHECK(llabs(gi.iters - ci.iters) <= 2);
            CHECK(residual_of_ones(A, x, n) <= 2e-10);
        }
        CHECK_STATUS(solve_on_gpu(A, formats[f % 2], SPX_F64, spx_gmres, &o, x2, &gi), SPX_OK);
        CHECK(memcmp(x, x2, n * sizeof *x) == 0);
    }
    o.rtol = 1e-5;
    if (CHECK_STATUS(solve_on_gpu(A, "csr", SPX_F32, spx_gmres, &o, x, &gi), SPX_OK))
        CHECK(residual_of_ones(A, x, n) <= 1e-4);
    o.restart = 0;
    if (CHECK_STATUS(solve_on_gpu(A, "csr", SPX_F32, spx_cg, &o, x, &gi), SPX_OK))
        CHECK(residual_of_ones(A, x, n) <= 1e-4);
    free(x);
    free(x2);
    free(xc);
    free(b);
    spx_matrix_destroy(A);
}

/* A callback that never stops: the solve then waits for every iteration. */
static int go_on(void *ctx, int64_t iter, double rel)
{
    (void)iter;
    (void)rel;
    ++*(int *)ctx;
    return 0;
}

/* The solvers queue an iteration ahead of the residual they wait for
 * (solve.h's spx__solve_iterate) and stop where the device finds the solve
 * over: the same x bits, iterations, history and status as a solve that
 * waits every iteration (a callback), converged, out of iterations, and
 * broken down. */
static void same_ahead_as_waiting(const spx_matrix *A, const char *format, solver s,
                                  spx_solve_opts o, spx_status want, const char *what)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    int64_t cap = o.max_iters + 1;
    double *x = malloc((size_t)n * sizeof *x), *xw = malloc((size_t)n * sizeof *xw);
    double *h = calloc((size_t)cap, sizeof *h), *hw = calloc((size_t)cap, sizeof *hw);
    spx_solve_info info = {0}, winfo = {0};
    int calls = 0;
    o.history = h;
    CHECK_STATUS(solve_on_gpu(A, format, SPX_F64, s, &o, x, &info), want);
    o.history = hw;
    o.callback = go_on;
    o.ctx = &calls;
    CHECK_STATUS(solve_on_gpu(A, format, SPX_F64, s, &o, xw, &winfo), want);
    if (!CHECK(info.iters == winfo.iters && calls >= winfo.iters))
        fprintf(stderr, "  %s: %lld iterations ahead, %lld waiting, %d calls\n", what,
                (long long)info.iters, (long long)winfo.iters, calls);
    if (!CHECK(memcmp(x, xw, (size_t)n * sizeof *x) == 0 &&
               memcmp(h, hw, (size_t)(winfo.iters + 1) * sizeof *h) == 0))
        fprintf(stderr, "  %s: x or the history differs ahead and waiting\n", what);
    printf("%s: %lld iterations, %s\n", what, (long long)info.iters, spx_status_name(want));
    free(x);
    free(xw);
    free(h);
    free(hw);
}

/* n x n diagonal with entries d[i % 2], or, with skew, 2x2 blocks [0 1; -1 0]. */
static spx_matrix *two_valued(int64_t n, double d0, double d1, int skew)
{
    int64_t *ri = malloc((size_t)n * sizeof *ri), *ci = malloc((size_t)n * sizeof *ci);
    double *v = malloc((size_t)n * sizeof *v);
    spx_matrix *M = NULL;
    for (int64_t i = 0; i < n; i++) {
        ri[i] = i;
        ci[i] = skew ? i ^ 1 : i;
        v[i] = skew ? (i % 2 ? -1.0 : 1.0) : (i % 2 ? d1 : d0);
    }
    CHECK_STATUS(spx_matrix_from_coo(n, n, n, ri, ci, v, &M), SPX_OK);
    free(ri);
    free(ci);
    free(v);
    return M;
}

static void test_ahead(void)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate("lap3d7:16", &A), SPX_OK);
    static const solver solvers[] = {spx_cg, spx_bicgstab};
    static const char *const names[] = {"cg", "bicgstab"};
    char what[96];
    for (int k = 0; k < 2; k++)
        for (int jac = 0; jac <= 1; jac++)
            for (int run = 0; run < 2; run++) {
                spx_solve_opts o = spx_solve_opts_default();
                o.jacobi = jac;
                o.max_iters = run ? 17 : 400;
                o.rtol = run ? 0.0 : 1e-10;
                snprintf(what, sizeof what, "%s lap3d7:16 jacobi=%d %s", names[k], jac,
                         run ? "17 iterations" : "to 1e-10");
                same_ahead_as_waiting(A, "sell", solvers[k], o,
                                      run ? SPX_ERR_NOT_CONVERGED : SPX_OK, what);
            }
    spx_matrix_destroy(A);
    spx_solve_opts o = spx_solve_opts_default();
    /* diag(1, -1, ...): CG's p'Ap = 0 at iteration 1, found once iteration
     * 2 is queued, whose updates (alpha infinite) must do nothing */
    A = two_valued(4096, 1.0, -1.0, 0);
    same_ahead_as_waiting(A, "csr", spx_cg, o, SPX_ERR_BREAKDOWN, "cg indefinite");
    spx_matrix_destroy(A);
    /* 2 I: BiCGSTAB's s is 0 after the half step: x = b / 2, iteration 1 */
    A = two_valued(4096, 2.0, 2.0, 0);
    same_ahead_as_waiting(A, "csr", spx_bicgstab, o, SPX_OK, "bicgstab 2I (half step)");
    spx_matrix_destroy(A);
    /* skew-symmetric: rhat'A r = 0 at iteration 1 */
    A = two_valued(4096, 0.0, 0.0, 1);
    same_ahead_as_waiting(A, "csr", spx_bicgstab, o, SPX_ERR_BREAKDOWN, "bicgstab skew");
    spx_matrix_destroy(A);
}

/* Host vectors: spx_cg and spx_bicgstab on a CUDA plan refuse them with a
 * status naming the host API (and the device works on after); spx_cg_host
 * and spx_bicgstab_host take them and give the bits of the device solve. */
static void test_host_vectors(void)
{
    spx_matrix *A = NULL;
    const int64_t n = 4096;
    double *b = malloc(n * sizeof *b), *x = calloc(n, sizeof *x), *xd = malloc(n * sizeof *xd);
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info, dinfo;
    CHECK_STATUS(spx_generate("lap3d7:16", &A), SPX_OK);
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0;
    spx_plan *P = plan_on(A, SPX_DEV_CUDA, "sell", SPX_F64);
    if (CHECK_STATUS(spx_cg(P, A, b, x, &o, NULL), SPX_ERR_INVALID_ARG))
        CHECK(strstr(spx_last_error(), "spx_cg_host") != NULL);
    o.jacobi = 1;
    static const solver on_device[] = {spx_cg, spx_bicgstab, spx_gmres};
    static const solver on_host[] = {spx_cg_host, spx_bicgstab_host, spx_gmres_host};
    static const char *const names[] = {"cg", "bicgstab", "gmres"};
    for (int k = 0; k < 3; k++) {
        memset(x, 0, n * sizeof *x);
        CHECK_STATUS(on_host[k](P, A, b, x, &o, &info), SPX_OK);
        CHECK_STATUS(solve_on_gpu(A, "sell", SPX_F64, on_device[k], &o, xd, &dinfo), SPX_OK);
        if (!CHECK(info.iters == dinfo.iters && memcmp(x, xd, n * sizeof *x) == 0))
            fprintf(stderr, "  %s: host vectors %lld iterations, device %lld\n", names[k],
                    (long long)info.iters, (long long)dinfo.iters);
    }
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    free(b);
    free(x);
    free(xd);
}

/* x and info of a solve of A x = b (host arrays, x from 0) on P's device
 * vectors, or on a sell plan of its own (P NULL). */
static spx_status solve_on(const spx_plan *P, const spx_matrix *A, solver s, const double *b,
                           const spx_solve_opts *o, double *x, spx_solve_info *info)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    size_t bytes = (size_t)n * sizeof(double);
    spx_plan *own = P ? NULL : plan_on(A, SPX_DEV_CUDA, "sell", SPX_F64);
    void *db = NULL, *dx = NULL;
    spx_status st = SPX_ERR_DEVICE;
    memset(x, 0, bytes);
    if (spx__cuda_upload(&db, b, bytes, "b") == SPX_OK &&
        spx__cuda_upload(&dx, x, bytes, "x") == SPX_OK) {
        st = s(P ? P : own, A, db, dx, o, info);
        if (spx__cuda_copy(x, dx, bytes, 0) != SPX_OK) st = SPX_ERR_DEVICE;
    }
    spx__cuda_free(db);
    spx__cuda_free(dx);
    spx_plan_destroy(own);
    return st;
}

/* Solves one after another on one plan (CG, BiCGSTAB with more vectors,
 * one on a NaN, keep_workspace 0): the bits of each on a plan of its own. */
static void test_kept_workspace(void)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate("lap3d7:16", &A), SPX_OK);
    const int64_t n = 4096;
    spx_plan *P = plan_on(A, SPX_DEV_CUDA, "sell", SPX_F64);
    double *b = malloc(n * sizeof *b), *bad = malloc(n * sizeof *bad);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    spx_solve_info info, fresh;
    for (int64_t i = 0; i < n; i++)
        b[i] = bad[i] = 1.0;
    bad[7] = NAN;
    static const solver solvers[] = {spx_cg,       spx_bicgstab, spx_cg, spx_bicgstab,
                                     spx_bicgstab, spx_cg,       spx_cg};
    static const int jacobi[] = {0, 0, 1, 0, 1, 0, 0}, keep[] = {1, 1, 1, 1, 1, 0, 1};
    static const int nan[] = {0, 0, 0, 1, 0, 0, 0};
    for (int k = 0; k < 7; k++) {
        spx_solve_opts o = spx_solve_opts_default();
        o.rtol = 1e-10;
        o.jacobi = jacobi[k];
        o.keep_workspace = keep[k];
        const double *rhs = nan[k] ? bad : b;
        spx_status want = solve_on(NULL, A, solvers[k], rhs, &o, y, &fresh);
        CHECK_STATUS(solve_on(P, A, solvers[k], rhs, &o, x, &info), want);
        if (!CHECK(info.iters == fresh.iters && memcmp(x, y, n * sizeof *x) == 0))
            fprintf(stderr, "  kept workspace, step %d: %lld iterations, fresh plan %lld\n", k,
                    (long long)info.iters, (long long)fresh.iters);
    }
    free(b);
    free(bad);
    free(x);
    free(y);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
}

int main(void)
{
    if (!spx_device_available(SPX_DEV_CUDA)) {
        printf("SKIP: no CUDA device: the solvers on CUDA plans are not run\n");
        return 77;
    }
    test_cg();
    test_ahead();
    test_host_vectors();
    test_kept_workspace();
    return spx_test_finish();
}
