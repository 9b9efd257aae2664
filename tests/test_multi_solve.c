/* spx_multi_cg, spx_multi_bicgstab and spx_multi_gmres on CPU parts (GPU parts:
 * test_gpu_multi.c), against the solvers on one plan (test_solve.c):
 *
 * - lap3d7:16 by CG, every partition kind, 1-4 parts, fp64 with and without
 *   Jacobi and fp32: the recomputed residual meets rtol, the iterations are
 *   within 2 of one plan's (BiCGSTAB's, which rounding moves further, within
 *   a fifth and 2), x agrees with one plan's x, and two solves give the same
 *   bits;
 * - BiCGSTAB and GMRES(30) on a nonsymmetric convection-diffusion matrix,
 *   every kind (GMRES in fp32 too);
 * - the history and a callback that stops;
 * - bad input: a vector of another plan, a freed or NULL plan, Jacobi
 *   without A, a plan that is not square. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO, SPX_PART_ROWS};

enum { CG, BICGSTAB, GMRES };
typedef spx_status (*multi_solver)(spx_multi_plan *, const spx_matrix *, const spx_multi_vector *,
                                   spx_multi_vector *, const spx_solve_opts *, spx_solve_info *);
typedef spx_status (*one_solver)(const spx_plan *, const spx_matrix *, const void *, void *,
                                 const spx_solve_opts *, spx_solve_info *);
static const multi_solver multi_solvers[] = {spx_multi_cg, spx_multi_bicgstab, spx_multi_gmres};
static const one_solver one_solvers[] = {spx_cg, spx_bicgstab, spx_gmres};
static const char *const solver_names[] = {"cg", "bicgstab", "gmres"};

static spx_multi_plan *multi_of(const spx_matrix *A, spx_partition kind, int parts, spx_type t)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_multi_opts m = spx_multi_opts_default();
    spx_multi_plan *P = NULL;
    o.precision = t;
    m.partition = kind;
    m.parts = parts;
    CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P), SPX_OK);
    return P;
}

/* A resident vector of P holding n host values v (of P's type t). */
static spx_multi_vector *vector_of(spx_multi_plan *P, spx_type t, const double *v, int64_t n)
{
    spx_multi_vector *x = NULL;
    float *f = malloc((size_t)n * sizeof *f);
    for (int64_t i = 0; i < n; i++)
        f[i] = (float)v[i];
    if (CHECK_STATUS(spx_multi_vector_create(P, &x), SPX_OK))
        CHECK_STATUS(spx_multi_vector_set(x, t == SPX_F64 ? (const void *)v : f), SPX_OK);
    free(f);
    return x;
}

/* x of P back as doubles. */
static void get(const spx_multi_vector *x, spx_type t, double *out, int64_t n)
{
    float *f = malloc((size_t)n * sizeof *f);
    CHECK_STATUS(spx_multi_vector_get(x, t == SPX_F64 ? (void *)out : f), SPX_OK);
    if (t != SPX_F64)
        for (int64_t i = 0; i < n; i++)
            out[i] = f[i];
    free(f);
}

/* One solve by the multi plan of x from 0 with b = ones: x out, info. */
static spx_status multi_solve(int method, spx_multi_plan *P, const spx_matrix *A, spx_type t,
                              const spx_solve_opts *o, double *x, int64_t n, spx_solve_info *info)
{
    double *ones = calloc((size_t)n, sizeof *ones);
    for (int64_t i = 0; i < n; i++)
        ones[i] = 1.0, x[i] = 0.0;
    spx_multi_vector *b = vector_of(P, t, ones, n), *xv = vector_of(P, t, x, n);
    spx_status st = multi_solvers[method](P, A, b, xv, o, info);
    get(xv, t, x, n);
    spx_multi_vector_destroy(b);
    spx_multi_vector_destroy(xv);
    free(ones);
    return st;
}

/* The same solve on one csr plan, for comparison. */
static spx_status single_solve(int method, const spx_matrix *A, spx_type t, const spx_solve_opts *o,
                               double *x, int64_t n, spx_solve_info *info)
{
    spx_plan_opts po = spx_plan_opts_default();
    spx_plan *P = NULL;
    po.format = "csr";
    po.precision = t;
    size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    void *b = malloc((size_t)n * es), *xt = calloc((size_t)n, es);
    for (int64_t i = 0; i < n; i++)
        if (t == SPX_F64)
            ((double *)b)[i] = 1.0;
        else
            ((float *)b)[i] = 1.0f;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &po, &P);
    if (st == SPX_OK) st = one_solvers[method](P, A, b, xt, o, info);
    for (int64_t i = 0; i < n; i++)
        x[i] = t == SPX_F64 ? ((double *)xt)[i] : ((float *)xt)[i];
    spx_plan_destroy(P);
    free(b);
    free(xt);
    return st;
}

static double max_diff(const double *a, const double *b, int64_t n)
{
    double d = 0.0;
    for (int64_t i = 0; i < n; i++)
        d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* Every kind and part count against one plan, twice for the bits. */
static void check_against_one_plan(int method, const spx_matrix *A, spx_type t, int jacobi,
                                   double rtol, double xtol)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    double *x1 = malloc((size_t)n * sizeof *x1), *x = malloc((size_t)n * sizeof *x);
    double *again = malloc((size_t)n * sizeof *again);
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info one, info, info2;
    o.rtol = rtol;
    o.jacobi = jacobi;
    if (!CHECK_STATUS(single_solve(method, A, t, &o, x1, n, &one), SPX_OK)) goto done;
    for (int k = 0; k < 4; k++)
        for (int parts = 1; parts <= 4; parts++) {
            spx_multi_plan *P = multi_of(A, kinds[k], parts, t);
            if (!P) continue;
            int ok = CHECK_STATUS(multi_solve(method, P, A, t, &o, x, n, &info), SPX_OK);
            if (ok) {
                ok &= CHECK(info.rel_residual <= 2 * rtol);
                ok &= CHECK(llabs(info.iters - one.iters) <= (method ? one.iters / 5 + 2 : 2));
                ok &= CHECK(max_diff(x, x1, n) <= xtol);
                ok &= CHECK_STATUS(multi_solve(method, P, A, t, &o, again, n, &info2), SPX_OK);
                ok &= CHECK(memcmp(x, again, (size_t)n * sizeof *x) == 0 &&
                            info2.iters == info.iters);
            }
            if (!ok)
                printf("  %s %s, %d parts, %s, jacobi %d: %lld iterations (one plan %lld)\n",
                       solver_names[method], spx_partition_name(kinds[k]), parts,
                       t == SPX_F64 ? "f64" : "f32", jacobi, (long long)info.iters,
                       (long long)one.iters);
            spx_multi_plan_destroy(P);
        }
done:
    free(x1);
    free(x);
    free(again);
}

static int stop_at_three(void *ctx, int64_t iter, double rel)
{
    (void)ctx;
    (void)rel;
    return iter == 3;
}

/* History, callback, and the statuses of bad input. */
static void test_statuses(const spx_matrix *A)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    double *x = malloc((size_t)n * sizeof *x), history[1001];
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info;
    spx_multi_plan *P = multi_of(A, SPX_PART_PCSR, 3, SPX_F64),
                   *Q = multi_of(A, SPX_PART_ROWS, 2, SPX_F64);
    if (!P || !Q) goto done;
    o.history = history;
    o.rtol = 1e-10;
    if (CHECK_STATUS(multi_solve(CG, P, A, SPX_F64, &o, x, n, &info), SPX_OK)) {
        CHECK(history[0] == 1.0 && history[info.iters] <= 1e-10);
        for (int64_t k = 1; k <= info.iters; k++)
            CHECK(history[k] > 0.0);
    }
    o.history = NULL;
    o.callback = stop_at_three;
    CHECK_STATUS(multi_solve(CG, P, A, SPX_F64, &o, x, n, &info), SPX_OK);
    CHECK(info.iters == 3);
    o.callback = NULL;
    o.max_iters = 2;
    CHECK_STATUS(multi_solve(CG, P, A, SPX_F64, &o, x, n, &info), SPX_ERR_NOT_CONVERGED);
    o = spx_solve_opts_default();
    o.jacobi = 1;
    CHECK_STATUS(multi_solve(CG, P, NULL, SPX_F64, &o, x, n, &info), SPX_ERR_INVALID_ARG);
    o.jacobi = 0;
    spx_multi_vector *b = NULL, *xq = NULL;
    CHECK_STATUS(spx_multi_vector_create(P, &b), SPX_OK);
    CHECK_STATUS(spx_multi_vector_create(Q, &xq), SPX_OK);
    CHECK_STATUS(spx_multi_cg(P, A, b, xq, &o, &info), SPX_ERR_INVALID_ARG); /* x of Q */
    CHECK_STATUS(spx_multi_cg(NULL, A, b, xq, &o, &info), SPX_ERR_BAD_HANDLE);
    spx_multi_vector_destroy(b);
    spx_multi_vector_destroy(xq);
done:
    spx_multi_plan_destroy(P);
    spx_multi_plan_destroy(Q);
    free(x);
}

static void test_not_square(void)
{
    spx_matrix *A = NULL;
    spx_multi_plan *P = NULL;
    spx_multi_vector *v = NULL;
    CHECK_STATUS(spx_generate("random:m=300,n=200,nnz=2000,seed=3", &A), SPX_OK);
    P = A ? multi_of(A, SPX_PART_PCSR, 2, SPX_F64) : NULL;
    if (P) CHECK_STATUS(spx_multi_cg(P, NULL, v, v, NULL, NULL), SPX_ERR_DIM_MISMATCH);
    spx_multi_plan_destroy(P);
    spx_matrix_destroy(A);
}

int main(void)
{
    spx_matrix *lap = NULL, *cd = spx_test_convection_diffusion(30, 0.8);
    CHECK_STATUS(spx_generate("lap3d7:16", &lap), SPX_OK);
    if (lap) {
        check_against_one_plan(CG, lap, SPX_F64, 0, 1e-10, 1e-8);
        check_against_one_plan(CG, lap, SPX_F64, 1, 1e-10, 1e-8);
        check_against_one_plan(CG, lap, SPX_F32, 0, 1e-5, 1e-2);
        test_statuses(lap);
    }
    if (cd) {
        check_against_one_plan(BICGSTAB, cd, SPX_F64, 1, 1e-10, 1e-8);
        check_against_one_plan(GMRES, cd, SPX_F64, 1, 1e-10, 1e-8);
        check_against_one_plan(GMRES, cd, SPX_F32, 0, 1e-5, 1e-2);
    }
    test_not_square();
    spx_matrix_destroy(lap);
    spx_matrix_destroy(cd);
    return spx_test_finish();
}
