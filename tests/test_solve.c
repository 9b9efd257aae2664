/* CG and BiCGSTAB on CPU plans (CUDA plans: test_gpu_solve.c).
 *
 * - lap3d7:16 (4,096 rows, b = ones, x0 = 0) solved by CG to a relative
 *   residual of 1e-10 with and without Jacobi, its residual checked
 *   independently against the long-double reference product, and its
 *   iteration count within 3 of scipy's cg on the same system (the counts
 *   come from tests/solve_reference.py, whose output is quoted below);
 * - BiCGSTAB on a nonsymmetric convection-diffusion matrix built here;
 * - GMRES(m) on it too (restarts 10 and 30 in scipy's iteration counts
 *   within 3, Jacobi, a residual that never grows, the same bits twice,
 *   its statuses), and unrestarted on lap3d7:16 in no more iterations than
 *   CG;
 * - statuses: the iteration limit (SPX_ERR_NOT_CONVERGED, x the last
 *   iterate), an indefinite matrix in CG (SPX_ERR_BREAKDOWN), a zero
 *   diagonal with Jacobi, a callback that stops, the history;
 * - fp32 plans, a reordered plan with vectors=permuted (Jacobi in the plan's
 *   order), and bitwise repeatability of two solves;
 * - solves one after another on one plan, reusing the workspace the plan
 *   keeps (CG, then BiCGSTAB with more vectors, after a NaN, with
 *   keep_workspace 0): the bits of each solve on a plan of its own. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* python3 tests/solve_reference.py (scipy 1.17.1, rtol=1e-10, x0 = 0, b = ones):
 *   lap3d7:16 cg 44 iterations, Jacobi-preconditioned cg 44 iterations
 * (the Laplacian's diagonal is constant, so Jacobi only scales). */
#define SCIPY_CG_ITERS 44
#define SCIPY_PCG_ITERS 44
/* the same script: convection-diffusion 40x40 (tests/common.c), b = ones, x0 = 0, rtol 1e-10,
 *   gmres(10) 168 iterations (residual 5.8e-11), gmres(30) 243 iterations (residual 9.43e-11) */
#define SCIPY_GMRES10_ITERS 168
#define SCIPY_GMRES30_ITERS 243
/* and its rows scaled by 1 + i % 7, gmres(30): 376 iterations; Jacobi on the right: 478 */
#define SCIPY_SCALED_ITERS 376
#define SCIPY_SCALED_JACOBI_ITERS 478

static spx_matrix *generate(const char *spec)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate(spec, &A), SPX_OK);
    return A;
}

static spx_plan *plan_of(const spx_matrix *A, const char *format, spx_type t, const char *params)
{
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = format;
    o.precision = t;
    o.params = params;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK);
    return P;
}

/* ||b - A x|| / ||b|| by the long-double reference product. */
static double true_residual(const spx_matrix *A, const double *b, const double *x)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    double *ax = malloc((size_t)n * sizeof *ax), *scale = malloc((size_t)n * sizeof *scale);
    double rr = 0.0, bb = 0.0;
    spx_test_reference(A, SPX_OP_N, 1.0, x, 0.0, NULL, ax, scale);
    for (int64_t i = 0; i < n; i++) {
        rr += (b[i] - ax[i]) * (b[i] - ax[i]);
        bb += b[i] * b[i];
    }
    free(ax);
    free(scale);
    return sqrt(rr / bb);
}

static double *filled(int64_t n, double v)
{
    double *a = malloc((size_t)n * sizeof *a);
    for (int64_t i = 0; i < n; i++)
        a[i] = v;
    return a;
}

static void test_cg_laplacian(void)
{
    spx_matrix *A = generate("lap3d7:16");
    spx_plan *P = plan_of(A, "auto", SPX_F64, NULL);
    const int64_t n = 4096;
    double *b = filled(n, 1.0), *x = filled(n, 0.0);
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info;
    o.rtol = 1e-10;
    for (int jac = 0; jac <= 1; jac++) {
        o.jacobi = jac;
        memset(x, 0, (size_t)n * sizeof *x);
        if (CHECK_STATUS(spx_cg(P, A, b, x, &o, &info), SPX_OK)) {
            int want = jac ? SCIPY_PCG_ITERS : SCIPY_CG_ITERS;
            printf("cg lap3d7:16 jacobi=%d: %lld iterations (scipy %d), residual %.3g, %.2f ms\n",
                   jac, (long long)info.iters, want, info.rel_residual, info.ms);
            CHECK(llabs(info.iters - want) <= 3);
            CHECK(info.rel_residual <= 1e-10);
            CHECK(true_residual(A, b, x) <= 2e-10);
        }
    }
    free(b);
    free(x);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
}

static void test_bicgstab(void)
{
    spx_matrix *A = spx_test_convection_diffusion(40, 0.8);
    const int64_t n = 1600;
    double *b = filled(n, 1.0), *x = filled(n, 0.0);
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info;
    o.rtol = 1e-10;
    for (int jac = 0; jac <= 1; jac++) {
        spx_plan *P = plan_of(A, jac ? "sell" : "csr", SPX_F64, NULL);
        o.jacobi = jac;
        memset(x, 0, (size_t)n * sizeof *x);
        if (CHECK_STATUS(spx_bicgstab(P, A, b, x, &o, &info), SPX_OK)) {
            printf(
                "bicgstab convection-diffusion 40x40 jacobi=%d: %lld iterations, residual %.3g\n",
                jac, (long long)info.iters, info.rel_residual);
            CHECK(true_residual(A, b, x) <= 2e-10);
            CHECK(info.iters > 5 && info.iters < 400);
        }
        spx_plan_destroy(P);
    }
    free(b);
    free(x);
    spx_matrix_destroy(A);
}

/* GMRES(m) on the convection-diffusion matrix, m = 10 and 30, with and
 * without Jacobi: the residual met, and never growing (history); GMRES
 * without a restart on lap3d7:16 needs no more iterations than CG (its
 * residual is the least over the Krylov space CG's iterate lies in); two
 * solves give the same bits; the statuses. */
static int stop_at_three(void *ctx, int64_t iter, double rel);

static void test_gmres(void)
{
    spx_matrix *A = spx_test_convection_diffusion(40, 0.8);
    const int64_t n = 1600;
    double *b = filled(n, 1.0), *x = filled(n, 0.0), *again = filled(n, 0.0);
    double *hist = malloc(1001 * sizeof *hist);
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info;
    o.rtol = 1e-10;
    o.history = hist;
    spx_plan *P = plan_of(A, "csr", SPX_F64, NULL);
    for (int k = 0; k < 4; k++) {
        o.jacobi = k % 2;
        o.restart = k < 2 ? 10 : 0;
        memset(x, 0, (size_t)n * sizeof *x);
        if (!CHECK_STATUS(spx_gmres(P, A, b, x, &o, &info), SPX_OK)) continue;
        printf("gmres(%lld) convection-diffusion 40x40 jacobi=%d: %lld iterations, residual %.3g\n",
               (long long)(o.restart ? o.restart : 30), o.jacobi, (long long)info.iters,
               info.rel_residual);
        CHECK(true_residual(A, b, x) <= 2e-10);
        CHECK(llabs(info.iters - (k < 2 ? SCIPY_GMRES10_ITERS : SCIPY_GMRES30_ITERS)) <= 3);
        int falls = 1;
        for (int64_t i = 0; i < info.iters; i++)
            falls &= hist[i + 1] <= hist[i] * (1.0 + 1e-12);
        CHECK(falls);
        memset(again, 0, (size_t)n * sizeof *again);
        CHECK_STATUS(spx_gmres(P, A, b, again, &o, NULL), SPX_OK);
        CHECK(memcmp(x, again, (size_t)n * sizeof *x) == 0);
    }
    /* Jacobi where it matters: rows scaled by 1 + i % 7 (M^-1 undoes it) */
    {
        const int64_t *rp;
        const void *ci, *v;
        int bits;
        spx_type vt;
        spx_matrix_csr(A, &rp, &ci, &bits, &v, &vt);
        double *sv = malloc((size_t)rp[n] * sizeof *sv);
        for (int64_t i = 0; i < n; i++)
            for (int64_t e = rp[i]; e < rp[i + 1]; e++)
                sv[e] = ((const double *)v)[e] * (double)(1 + i % 7);
        spx_matrix *D = NULL;
        CHECK_STATUS(spx_matrix_create_csr(n, n, rp, ci, sv, &D), SPX_OK);
        spx_plan *PD = D ? plan_of(D, "csr", SPX_F64, NULL) : NULL;
        for (int jac = 0; PD && jac <= 1; jac++) {
            o.jacobi = jac;
            o.restart = 30;
            memset(x, 0, (size_t)n * sizeof *x);
            if (CHECK_STATUS(spx_gmres(PD, D, b, x, &o, &info), SPX_OK)) {
                printf("gmres(30) rows scaled jacobi=%d: %lld iterations\n", jac,
                       (long long)info.iters);
                CHECK(true_residual(D, b, x) <= 2e-10);
                CHECK(llabs(info.iters - (jac ? SCIPY_SCALED_JACOBI_ITERS : SCIPY_SCALED_ITERS)) <=
                      3);
            }
        }
        spx_plan_destroy(PD), spx_matrix_destroy(D);
        free(sv);
        o.jacobi = 0;
    }
    /* n = 4 with restart 30: the basis is cut to n, and n steps solve it */
    {
        spx_matrix *S4 = spx_test_convection_diffusion(2, 0.8);
        spx_plan *P4 = plan_of(S4, "csr", SPX_F64, NULL);
        double b4[4] = {1.0, -2.0, 0.5, 3.0}, x4[4] = {0.0};
        o.restart = 30;
        if (CHECK_STATUS(spx_gmres(P4, S4, b4, x4, &o, &info), SPX_OK))
            CHECK(info.iters <= 4 && info.rel_residual <= 1e-10);
        spx_plan_destroy(P4), spx_matrix_destroy(S4);
    }
    /* the iteration limit, a callback, a bad restart, a singular matrix */
    o.history = NULL;
    o.restart = 5;
    o.max_iters = 7;
    memset(x, 0, (size_t)n * sizeof *x);
    CHECK_STATUS(spx_gmres(P, A, b, x, &o, &info), SPX_ERR_NOT_CONVERGED);
    CHECK(info.iters == 7 && info.rel_residual < 1.0);
    o.max_iters = 1000;
    int calls = 0;
    o.callback = stop_at_three;
    o.ctx = &calls;
    CHECK_STATUS(spx_gmres(P, A, b, x, &o, &info), SPX_OK);
    CHECK(info.iters == 3 && calls == 4); /* iterations 0 to 3 */
    o.callback = NULL;
    o.restart = -1;
    CHECK_STATUS(spx_gmres(P, A, b, x, &o, &info), SPX_ERR_INVALID_ARG);
    o.restart = 0;
    o.jacobi = 0;
    spx_matrix *Z = spx_test_coo_matrix(n, n, 0, NULL, NULL, NULL);
    spx_plan *PZ = plan_of(Z, "csr", SPX_F64, NULL);
    CHECK_STATUS(spx_gmres(PZ, Z, b, x, &o, &info), SPX_ERR_BREAKDOWN);
    spx_plan_destroy(PZ), spx_matrix_destroy(Z);
    spx_plan_destroy(P), spx_matrix_destroy(A);
    /* lap3d7:16: full GMRES against CG */
    free(b), free(x);
    b = filled(4096, 1.0), x = filled(4096, 0.0);
    A = generate("lap3d7:16");
    P = plan_of(A, "csr", SPX_F64, NULL);
    spx_solve_info cg;
    o = spx_solve_opts_default();
    o.rtol = 1e-10;
    o.restart = 4096;
    memset(x, 0, (size_t)4096 * sizeof *x);
    CHECK_STATUS(spx_cg(P, A, b, x, &o, &cg), SPX_OK);
    memset(x, 0, (size_t)4096 * sizeof *x);
    if (CHECK_STATUS(spx_gmres(P, A, b, x, &o, &info), SPX_OK)) {
        printf("lap3d7:16: gmres %lld iterations, cg %lld\n", (long long)info.iters,
               (long long)cg.iters);
        CHECK(info.iters <= cg.iters);
        CHECK(true_residual(A, b, x) <= 2e-10);
    }
    spx_plan_destroy(P), spx_matrix_destroy(A);
    free(b), free(x), free(again), free(hist);
}

static int stop_at_three(void *ctx, int64_t iter, double rel)
{
    (void)rel;
    ++*(int *)ctx;
    return iter == 3;
}

static void test_statuses(void)
{
    spx_matrix *A = generate("lap2d5:20");
    spx_plan *P = plan_of(A, "csr", SPX_F64, NULL);
    double *b = filled(400, 1.0), *x = filled(400, 0.0), hist[11];
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info;
    int calls = 0;
    o.max_iters = 2;
    o.rtol = 1e-12;
    CHECK_STATUS(spx_cg(P, A, b, x, &o, &info), SPX_ERR_NOT_CONVERGED);
    /* CG's residual is not monotone (its A-norm error is): after two steps it
     * may be above 1, but x has moved */
    if (!CHECK(info.iters == 2 && isfinite(info.rel_residual) && x[0] != 0.0))
        fprintf(stderr, "  iters %lld residual %g x0 %g\n", (long long)info.iters,
                info.rel_residual, x[0]);
    CHECK_STATUS(spx_bicgstab(P, A, b, x, &o, &info), SPX_ERR_NOT_CONVERGED);
    o.max_iters = 10;
    o.history = hist;
    o.callback = stop_at_three;
    o.ctx = &calls;
    memset(x, 0, 400 * sizeof *x);
    CHECK_STATUS(spx_cg(P, A, b, x, &o, &info), SPX_OK);
    CHECK(info.iters == 3 && calls == 4);
    if (!CHECK(hist[0] == 1.0 && hist[1] > 0.0 && hist[2] > 0.0 && hist[3] > 0.0 && hist[3] < 10.0))
        fprintf(stderr, "  history %g %g %g %g\n", hist[0], hist[1], hist[2], hist[3]);
    CHECK_STATUS(
        spx_cg(P, NULL, b, x, &(spx_solve_opts){.rtol = 1e-8, .max_iters = 5, .jacobi = 1}, NULL),
        SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_bicgstab(P, A, b, b, NULL, NULL), SPX_ERR_INVALID_ARG); /* x is b */
    o = spx_solve_opts_default();
    o.rtol = -1.0;
    CHECK_STATUS(spx_cg(P, A, b, x, &o, NULL), SPX_ERR_INVALID_ARG);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);

    /* indefinite: diag(1, -1, 1, -1, ...) */
    int64_t rp[9], ci[8];
    double v[8];
    for (int i = 0; i < 8; i++)
        rp[i] = i, ci[i] = i, v[i] = i % 2 ? -1.0 : 1.0;
    rp[8] = 8;
    CHECK_STATUS(spx_matrix_from_coo(8, 8, 8, rp, ci, v, &A), SPX_OK);
    P = plan_of(A, "csr", SPX_F64, NULL);
    memset(x, 0, 8 * sizeof *x);
    CHECK_STATUS(spx_cg(P, A, b, x, NULL, NULL), SPX_ERR_BREAKDOWN);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);

    /* BiCGSTAB: on 2 I, s is 0 after the half step (x = b / 2 exactly, one
     * iteration); on 2x2 blocks [0 1; -1 0], rhat'A r = 0 at iteration 1 */
    double two[8];
    for (int i = 0; i < 8; i++)
        two[i] = 2.0;
    CHECK_STATUS(spx_matrix_from_coo(8, 8, 8, rp, ci, two, &A), SPX_OK);
    P = plan_of(A, "csr", SPX_F64, NULL);
    memset(x, 0, 8 * sizeof *x);
    CHECK_STATUS(spx_bicgstab(P, A, b, x, NULL, &info), SPX_OK);
    CHECK(info.iters == 1 && x[0] == 0.5 && x[7] == 0.5);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    int64_t swapped[8];
    for (int i = 0; i < 8; i++)
        swapped[i] = i ^ 1;
    CHECK_STATUS(spx_matrix_from_coo(8, 8, 8, rp, swapped, v, &A), SPX_OK);
    P = plan_of(A, "csr", SPX_F64, NULL);
    CHECK_STATUS(spx_bicgstab(P, A, b, x, NULL, NULL), SPX_ERR_BREAKDOWN);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);

    /* a zero diagonal entry: Jacobi refused, naming it */
    v[3] = 0.0;
    CHECK_STATUS(spx_matrix_from_coo(8, 8, 8, rp, ci, v, &A), SPX_OK);
    P = plan_of(A, "csr", SPX_F64, NULL);
    o = spx_solve_opts_default();
    o.jacobi = 1;
    if (CHECK_STATUS(spx_bicgstab(P, A, b, x, &o, NULL), SPX_ERR_UNSUPPORTED))
        CHECK(strstr(spx_last_error(), "A(4,4)") != NULL);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);

    /* not square */
    CHECK_STATUS(spx_generate("random:m=30,n=20,nnz=100,seed=2", &A), SPX_OK);
    P = plan_of(A, "csr", SPX_F64, NULL);
    CHECK_STATUS(spx_cg(P, A, b, x, NULL, NULL), SPX_ERR_DIM_MISMATCH);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    free(b);
    free(x);
}

/* fp32 vectors; a reordered plan taking vectors in its own order; the same
 * bits from two solves. */
static void test_precisions_and_order(void)
{
    spx_matrix *A = generate("lap3d7:12");
    const int64_t n = 1728;
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info;
    float *bf = malloc(n * sizeof *bf), *xf = calloc(n, sizeof *xf);
    double *b = filled(n, 0.0), *x = filled(n, 0.0), *x2 = filled(n, 0.0), *xo = filled(n, 0.0);
    int64_t *perm = malloc(n * sizeof *perm);
    for (int64_t i = 0; i < n; i++)
        bf[i] = 1.0f, b[i] = 1.0 + (double)(i % 7);
    spx_plan *P = plan_of(A, "sell", SPX_F32, NULL);
    o.rtol = 1e-5;
    o.jacobi = 1;
    if (CHECK_STATUS(spx_cg(P, A, bf, xf, &o, &info), SPX_OK)) CHECK(info.rel_residual <= 1e-5);
    spx_plan_destroy(P);

    o.rtol = 1e-10;
    P = plan_of(A, "sell", SPX_F64, "reorder=rcm,vectors=permuted");
    double *bp = filled(n, 0.0);
    CHECK_STATUS(spx_plan_permutation(P, perm), SPX_OK);
    for (int64_t k = 0; k < n; k++)
        bp[k] = b[perm[k]];
    CHECK_STATUS(spx_cg(P, A, bp, x, &o, &info), SPX_OK);
    CHECK_STATUS(spx_cg(P, A, bp, x2, &o, &info), SPX_OK);
    CHECK(memcmp(x, x2, n * sizeof *x) == 0);
    memset(x2, 0, n * sizeof *x2); /* spx_cg_host on a CPU plan: spx_cg itself */
    CHECK_STATUS(spx_cg_host(P, A, bp, x2, &o, &info), SPX_OK);
    CHECK(memcmp(x, x2, n * sizeof *x) == 0);
    for (int64_t k = 0; k < n; k++)
        xo[perm[k]] = x[k];
    CHECK(true_residual(A, b, xo) <= 2e-10);
    spx_plan_destroy(P);
    free(bp);
    free(bf);
    free(xf);
    free(b);
    free(x);
    free(x2);
    free(xo);
    free(perm);
    spx_matrix_destroy(A);
}

typedef spx_status (*solver)(const spx_plan *, const spx_matrix *, const void *, void *,
                             const spx_solve_opts *, spx_solve_info *);

/* x (from 0) and info of one solve on P, or on a plan of its own (P NULL). */
static spx_status solve_once(spx_plan *P, const spx_matrix *A, solver s, const double *b,
                             const spx_solve_opts *o, double *x, spx_solve_info *info)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_plan *own = P ? NULL : plan_of(A, "csr", SPX_F64, NULL);
    memset(x, 0, (size_t)n * sizeof *x);
    spx_status st = s(P ? P : own, A, b, x, o, info);
    spx_plan_destroy(own);
    return st;
}

static void test_kept_workspace(void)
{
    spx_matrix *A = generate("lap3d7:12");
    spx_plan *P = plan_of(A, "csr", SPX_F64, NULL);
    const int64_t n = 1728;
    double *b = filled(n, 1.0), *bad = filled(n, 1.0), *x = filled(n, 0.0), *y = filled(n, 0.0);
    spx_solve_info info, fresh;
    bad[7] = NAN;
    static const struct {
        solver s;
        int jacobi, keep, nan;
        const char *what;
    } steps[] = {{spx_cg, 0, 1, 0, "cg"},
                 {spx_bicgstab, 0, 1, 0, "bicgstab, more vectors"},
                 {spx_cg, 1, 1, 0, "cg jacobi"},
                 {spx_bicgstab, 0, 1, 1, "bicgstab on a NaN"},
                 {spx_bicgstab, 1, 1, 0, "bicgstab jacobi after the NaN"},
                 {spx_cg, 0, 0, 0, "cg, workspace not kept"},
                 {spx_cg, 0, 1, 0, "cg again"}};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
        spx_solve_opts o = spx_solve_opts_default();
        o.rtol = 1e-10;
        o.jacobi = steps[k].jacobi;
        o.keep_workspace = steps[k].keep;
        const double *rhs = steps[k].nan ? bad : b;
        spx_status want = solve_once(NULL, A, steps[k].s, rhs, &o, y, &fresh);
        CHECK_STATUS(solve_once(P, A, steps[k].s, rhs, &o, x, &info), want);
        if (!CHECK(info.iters == fresh.iters && memcmp(x, y, (size_t)n * sizeof *x) == 0))
            printf("  kept workspace, %s: %lld iterations, on a plan of its own %lld\n",
                   steps[k].what, (long long)info.iters, (long long)fresh.iters);
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
    test_cg_laplacian();
    test_bicgstab();
    test_gmres();
    test_statuses();
    test_precisions_and_order();
    test_kept_workspace();
    return spx_test_finish();
}
