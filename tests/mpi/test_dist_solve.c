/* The MPI solvers (spx_dist_cg, spx_dist_bicgstab, spx_dist_gmres, and
 * spx_dist_eigsh against spx_eigsh in one process: the same eigenvalues of
 * lap2d5:20, double ones included, eigenvectors with small residuals, the
 * same bits again) on 1..4 ranks: every partition kind, fp64 and fp32, with and without Jacobi, on
 * SPD matrices (a 2D and a 3D Laplacian, an arrow matrix whose first row
 * holds a third of the nonzeros, so with 3 or 4 ranks a part lies inside
 * it) for CG and a nonsymmetric diagonally dominant one for BiCGSTAB and
 * GMRES. x is gathered on rank 0 and checked there: its residual
 * ||b - A x|| / ||b||, recomputed in long double from A, within the
 * tolerance the solve reports meeting (plus rounding), and the iterations
 * within 10% (+2) of the same solver in one process. A second solve gives
 * the same bits. Every rank gets the same status: a b of the wrong length
 * on one rank, a zero diagonal entry under Jacobi (SPX_ERR_UNSUPPORTED), a
 * non-square matrix, too few iterations (SPX_ERR_NOT_CONVERGED); a callback
 * that stops on rank 0 alone stops every rank; the _device solvers given a
 * CPU plan (SPX_ERR_UNSUPPORTED) or host memory (SPX_ERR_INVALID_ARG). With
 * a GPU the ranks' parts also run on it, with host vectors and with vectors
 * resident on it (spx_dist_cg_device...: the same checks, bits repeated by
 * each). Rank 0 prints the totals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "spx_mpi.h"

static const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO, SPX_PART_ROWS};
static int rank, size;

typedef spx_status (*dist_solver)(spx_dist_plan *, const void *, int64_t, void *, int64_t,
                                  const spx_solve_opts *, spx_solve_info *);
typedef spx_status (*one_solver)(const spx_plan *, const spx_matrix *, const void *, void *,
                                 const spx_solve_opts *, spx_solve_info *);

static spx_matrix *generate(const char *spec)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate(spec, &A), SPX_OK);
    return A;
}

/* n x n: A(0,0) = n, A(0,j) = A(j,0) = 1, A(i,i) = 4, A(i,i+-1) = -1 (i, j >= 1):
 * diagonally dominant, so SPD. Row 0 holds n of about 4n nonzeros. */
static spx_matrix *arrow(int64_t n)
{
    int64_t *ri = malloc(sizeof *ri * 6 * (size_t)n), *ci = malloc(sizeof *ci * 6 * (size_t)n),
            k = 0;
    double *v = malloc(sizeof *v * 6 * (size_t)n);
    ri[k] = 0, ci[k] = 0, v[k++] = (double)n;
    for (int64_t j = 1; j < n; j++) {
        ri[k] = 0, ci[k] = j, v[k++] = 1.0;
        ri[k] = j, ci[k] = 0, v[k++] = 1.0;
        ri[k] = j, ci[k] = j, v[k++] = 4.0;
        if (j > 1) ri[k] = j, ci[k] = j - 1, v[k++] = -1.0;
        if (j + 1 < n) ri[k] = j, ci[k] = j + 1, v[k++] = -1.0;
    }
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(n, n, k, ri, ci, v, &A), SPX_OK);
    free(ri), free(ci), free(v);
    return A;
}

/* n x n nonsymmetric: A(i,i) = 8 plus 6 entries in [-1, 1) at random columns. */
static spx_matrix *nonsymmetric(int64_t n)
{
    int64_t *ri = malloc(sizeof *ri * 7 * (size_t)n), *ci = malloc(sizeof *ci * 7 * (size_t)n),
            k = 0;
    double *v = malloc(sizeof *v * 7 * (size_t)n);
    uint64_t seed = 5;
    for (int64_t i = 0; i < n; i++) {
        ri[k] = i, ci[k] = i, v[k++] = 8.0;
        for (int e = 0; e < 6; e++) {
            int64_t j = (int64_t)((spx_test_rand(&seed) + 1.0) * 0.5 * (double)n) % n;
            if (j == i) continue;
            ri[k] = i, ci[k] = j, v[k++] = spx_test_rand(&seed);
        }
    }
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(n, n, k, ri, ci, v, &A), SPX_OK);
    free(ri), free(ci), free(v);
    return A;
}

/* ||b - A x|| / ||b|| in long double (b, x double). */
static double residual(const spx_matrix *A, const double *b, const double *x)
{
    int64_t n;
    const int64_t *rp;
    const void *ci, *vals;
    int bits;
    spx_type t;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_matrix_csr(A, &rp, &ci, &bits, &vals, &t);
    long double rr = 0, bb = 0;
    for (int64_t i = 0; i < n; i++) {
        long double s = b[i];
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int64_t j = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
            s -= (long double)((const double *)vals)[k] * x[j];
        }
        rr += s * s;
        bb += (long double)b[i] * b[i];
    }
    return (double)sqrtl(rr / bb);
}

static void to_type(spx_type t, const double *src, void *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (t == SPX_F64)
            ((double *)dst)[i] = src[i];
        else
            ((float *)dst)[i] = (float)src[i];
    }
}

static void to_double(spx_type t, const void *src, double *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = t == SPX_F64 ? ((const double *)src)[i] : (double)((const float *)src)[i];
}

/* The one-process solve of the same system: its iterations (-1 on failure). */
static int64_t one_process(const spx_matrix *A, spx_type t, one_solver solve, const void *b,
                           const spx_solve_opts *o)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_plan_opts po = spx_plan_opts_default();
    po.precision = t;
    spx_plan *P = NULL;
    spx_solve_info info = {0};
    void *x = calloc((size_t)n + 1, sizeof(double));
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &po, &P);
    if (st == SPX_OK) st = solve(P, A, b, x, o, &info);
    spx_plan_destroy(P);
    free(x);
    return st == SPX_OK ? info.iters : -1;
}

/* One solve from x = 0 into host x: with resident set, on copies of b and x
 * in the GPU's memory (the _device solver), x copied back. */
static spx_status solve_into(spx_dist_plan *P, dist_solver dsolve, int resident, size_t es,
                             const void *b, int64_t own, void *x, const spx_solve_opts *o,
                             spx_solve_info *info)
{
    if (!resident) return dsolve(P, b, own, x, own, o, info);
    void *db = NULL, *dx = NULL;
    spx__cuda_set_device(spx_dist_plan_device(P));
    memset(x, 0, es * (size_t)own);
    spx_status st = spx__cuda_upload(&db, b, es * (size_t)(own + 1), "b");
    if (st == SPX_OK) st = spx__cuda_upload(&dx, x, es * (size_t)(own + 1), "x");
    if (st == SPX_OK) st = dsolve(P, db, own, dx, own, o, info);
    if (st == SPX_OK) st = spx__cuda_copy(x, dx, es * (size_t)own, 0);
    spx__cuda_free(db);
    spx__cuda_free(dx);
    return st;
}

/* One system on every partition kind and device: the gathered x's residual,
 * the iterations against one process, the same bits again. */
static void check_system(const spx_matrix *A, const char *name, spx_type t, dist_solver dsolve,
                         one_solver solve, int jacobi, spx_device dev, int resident)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    const size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    double *bg = malloc(sizeof *bg * (size_t)n), *xg = malloc(sizeof *xg * (size_t)n);
    void *bt = malloc(es * (size_t)n), *xt = malloc(es * (size_t)n);
    uint64_t seed = 17;
    for (int64_t i = 0; i < n; i++)
        bg[i] = spx_test_rand(&seed);
    to_type(t, bg, bt, n);
    spx_solve_opts o = spx_solve_opts_default();
    o.rtol = t == SPX_F64 ? 1e-10 : 1e-5;
    o.max_iters = 2000;
    o.jacobi = jacobi;
    const int64_t want = rank == 0 ? one_process(A, t, solve, bt, &o) : 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        spx_dist_matrix *D = NULL;
        spx_dist_plan *P = NULL;
        spx_dist_layout l;
        if (!CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, kinds[k], &D), SPX_OK))
            continue;
        spx_dist_matrix_layout(D, &l);
        spx_plan_opts po = spx_plan_opts_default();
        po.precision = t;
        po.device = dev;
        const int64_t own = l.row_end - l.row_begin;
        void *b = calloc((size_t)own + 1, es), *x = calloc((size_t)own + 1, es),
             *x2 = calloc((size_t)own + 1, es);
        memcpy(b, (char *)bt + es * (size_t)l.row_begin, es * (size_t)own);
        spx_solve_info info = {0}, info2 = {0};
        if (CHECK_STATUS(spx_dist_plan_create(D, &po, &P), SPX_OK) &&
            CHECK_STATUS(solve_into(P, dsolve, resident, es, b, own, x, &o, &info), SPX_OK) &&
            CHECK_STATUS(solve_into(P, dsolve, resident, es, b, own, x2, &o, &info2), SPX_OK) &&
            CHECK_STATUS(spx_dist_gather(D, SPX_DIST_COLS, t, x, xt, 0), SPX_OK)) {
            CHECK(memcmp(x, x2, es * (size_t)own) == 0 && info.iters == info2.iters);
            if (rank == 0) {
                to_double(t, xt, xg, n);
                double rel = residual(A, bg, xg),
                       tol = o.rtol * 1.5 + (t == SPX_F64 ? 1e-13 : 1e-6);
                int ok = CHECK(rel <= tol) && CHECK(fabs(info.rel_residual - rel) <= tol);
                ok &= CHECK(want >= 0 && llabs(info.iters - want) <= 2 + want / 10);
                if (!ok)
                    printf("  %s %s kind %zu ranks %d %s%s jacobi %d: residual %.3g (solver %.3g), "
                           "%lld iterations against %lld\n",
                           name, t == SPX_F64 ? "f64" : "f32", k, size,
                           dev == SPX_DEV_CUDA ? "cuda" : "cpu", resident ? " resident" : "",
                           jacobi, rel, info.rel_residual, (long long)info.iters, (long long)want);
            }
        }
        free(b), free(x), free(x2);
        spx_dist_plan_destroy(P);
        spx_dist_matrix_destroy(D);
    }
    free(bg), free(xg), free(bt), free(xt);
}

static void test_systems(spx_device dev, int resident)
{
    static const spx_type types[] = {SPX_F64, SPX_F32};
    spx_matrix *spd[3] = {generate("lap2d5:24"), generate("lap3d7:9"), arrow(120)};
    static const char *const spd_names[3] = {"lap2d5:24", "lap3d7:9", "arrow"};
    spx_matrix *ns = nonsymmetric(500);
    for (int ti = 0; ti < 2; ti++) {
        for (int m = 0; m < 3; m++)
            for (int jac = 0; jac < 2; jac++)
                if (spd[m])
                    check_system(spd[m], spd_names[m], types[ti],
                                 resident ? spx_dist_cg_device : spx_dist_cg, spx_cg, jac, dev,
                                 resident);
        if (ns) {
            dist_solver bicgstab = resident ? spx_dist_bicgstab_device : spx_dist_bicgstab;
            dist_solver gmres = resident ? spx_dist_gmres_device : spx_dist_gmres;
            check_system(ns, "nonsym", types[ti], bicgstab, spx_bicgstab, 1, dev, resident);
            check_system(ns, "nonsym", types[ti], gmres, spx_gmres, 0, dev, resident);
            check_system(ns, "nonsym", types[ti], gmres, spx_gmres, 1, dev, resident);
        }
    }
    for (int m = 0; m < 3; m++)
        spx_matrix_destroy(spd[m]);
    spx_matrix_destroy(ns);
}

/* max_i ||A v_i - w_i v_i|| / |w_i| over k vectors of n entries (double). */
static double eig_residual(const spx_matrix *A, const double *w, const double *v, int64_t k)
{
    int64_t n;
    const int64_t *rp;
    const void *ci, *vals;
    int bits;
    spx_type t;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_matrix_csr(A, &rp, &ci, &bits, &vals, &t);
    double worst = 0.0;
    for (int64_t q = 0; q < k; q++) {
        long double rr = 0;
        for (int64_t i = 0; i < n; i++) {
            long double s = -(long double)w[q] * v[q * n + i];
            for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
                int64_t j = bits == 32 ? ((const int32_t *)ci)[e] : ((const int64_t *)ci)[e];
                s += (long double)((const double *)vals)[e] * v[q * n + j];
            }
            rr += s * s;
        }
        double rel = (double)sqrtl(rr) / fabs(w[q]);
        worst = rel > worst ? rel : worst;
    }
    return worst;
}

/* eigsh over the ranks against one process: the same eigenvalues (lap2d5's
 * have doubles, so fresh starts run), eigenvectors whose residual is small,
 * the same bits on a second call. fp64. */
static void test_eigsh(spx_device dev, int resident)
{
    spx_matrix *A = generate("lap2d5:20");
    if (!A) return;
    const int64_t n = 400, k = 4;
    spx_eig_opts o = spx_eig_opts_default();
    o.k = k;
    o.tol = 1e-10;
    for (int which = 0; which < 2; which++) {
        o.which = which ? SPX_EIG_SMALLEST : SPX_EIG_LARGEST;
        double want[4] = {0}, got[4], again[4];
        spx_plan *P1 = NULL;
        if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, NULL, &P1), SPX_OK))
            CHECK_STATUS(spx_eigsh(P1, &o, want, NULL, NULL), SPX_OK);
        spx_plan_destroy(P1);
        for (size_t kd = 0; kd < sizeof kinds / sizeof kinds[0]; kd++) {
            spx_dist_matrix *D = NULL;
            spx_dist_plan *P = NULL;
            spx_dist_layout l;
            spx_plan_opts po = spx_plan_opts_default();
            po.device = dev;
            if (!CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, kinds[kd], &D),
                              SPX_OK))
                continue;
            spx_dist_matrix_layout(D, &l);
            const int64_t own = l.row_end - l.row_begin;
            double *v = calloc((size_t)(own * k) + 1, sizeof *v);
            double *v2 = calloc((size_t)(own * k) + 1, sizeof *v2);
            double *all = malloc(sizeof *all * (size_t)(n * k));
            void *dv = NULL;
            spx_status st = spx_dist_plan_create(D, &po, &P);
            CHECK_STATUS(st, SPX_OK);
            for (int round = 0; st == SPX_OK && round < 2; round++) {
                double *vals = round ? again : got, *out = round ? v2 : v;
                if (!resident) {
                    st = spx_dist_eigsh(P, &o, vals, out, NULL);
                } else {
                    spx__cuda_set_device(spx_dist_plan_device(P));
                    st = spx__cuda_upload(&dv, out, sizeof *out * (size_t)(own * k + 1), "v");
                    if (st == SPX_OK) st = spx_dist_eigsh_device(P, &o, vals, dv, NULL);
                    if (st == SPX_OK)
                        st = spx__cuda_copy(out, dv, sizeof *out * (size_t)(own * k), 0);
                    spx__cuda_free(dv);
                    dv = NULL;
                }
                CHECK_STATUS(st, SPX_OK);
            }
            if (st == SPX_OK) {
                CHECK(memcmp(got, again, sizeof got) == 0 &&
                      memcmp(v, v2, sizeof *v * (size_t)(own * k)) == 0);
                for (int64_t q = 0; q < k; q++)
                    CHECK_STATUS(
                        spx_dist_gather(D, SPX_DIST_ROWS, SPX_F64, v + q * own, all + q * n, 0),
                        SPX_OK);
                if (rank == 0) {
                    double diff = 0.0;
                    for (int64_t q = 0; q < k; q++)
                        diff = fmax(diff, fabs(got[q] - want[q]) / fabs(want[q]));
                    double res = eig_residual(A, got, all, k);
                    if (!CHECK(diff <= 1e-9) || !CHECK(res <= 1e-6))
                        printf("  eigsh %s kind %zu ranks %d %s%s: values differ by %.3g, residual "
                               "%.3g\n",
                               which ? "SA" : "LA", kd, size, dev == SPX_DEV_CUDA ? "cuda" : "cpu",
                               resident ? " resident" : "", diff, res);
                }
            }
            free(v), free(v2), free(all);
            spx_dist_plan_destroy(P);
            spx_dist_matrix_destroy(D);
        }
    }
    spx_matrix_destroy(A);
}

/* The same status on every rank, and the call returns. */
static void same_everywhere(spx_status got, spx_status want)
{
    int g = (int)got, lo, hi;
    MPI_Allreduce(&g, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&g, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK_STATUS(got, want);
    CHECK(lo == hi);
}

static int stop_on_rank0(void *ctx, int64_t iter, double rel)
{
    (void)ctx, (void)rel;
    return rank == 0 && iter == 5;
}

static void test_bad_input(void)
{
    spx_matrix *A = generate("lap2d5:10");
    spx_dist_matrix *D = NULL;
    spx_dist_plan *P = NULL;
    spx_dist_layout l;
    spx_solve_opts o = spx_solve_opts_default();
    if (!A ||
        !CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, SPX_PART_PCSR, &D), SPX_OK) ||
        !CHECK_STATUS(spx_dist_plan_create(D, NULL, &P), SPX_OK)) {
        spx_dist_matrix_destroy(D);
        spx_matrix_destroy(A);
        return;
    }
    spx_dist_matrix_layout(D, &l);
    const int64_t own = l.row_end - l.row_begin;
    double *b = calloc((size_t)own + 2, sizeof *b), *x = calloc((size_t)own + 2, sizeof *x);
    for (int64_t i = 0; i < own; i++)
        b[i] = 1.0;
    same_everywhere(spx_dist_cg(P, b, own + (rank == size - 1), x, own, &o, NULL),
                    SPX_ERR_DIM_MISMATCH);
    same_everywhere(spx_dist_gmres(NULL, b, own, x, own, &o, NULL), SPX_ERR_BAD_HANDLE);
    o.max_iters = 3;
    same_everywhere(spx_dist_cg(P, b, own, x, own, &o, NULL), SPX_ERR_NOT_CONVERGED);
    o.max_iters = 1000; /* rank 0's callback stops at iteration 5: every rank stops there */
    o.callback = stop_on_rank0;
    spx_solve_info info = {0};
    same_everywhere(spx_dist_cg(P, b, own, x, own, &o, &info), SPX_OK);
    CHECK(info.iters == 5);
    o.callback = NULL;
    spx_dist_plan_destroy(P);
    spx_dist_matrix_destroy(D);
    spx_matrix_destroy(A);
    free(b), free(x);

    /* a zero diagonal entry (row 5 has none) under Jacobi */
    int64_t ri[40], ci[40], k = 0;
    double v[40];
    for (int64_t i = 0; i < 12; i++)
        if (i != 5) ri[k] = i, ci[k] = i, v[k++] = 2.0;
    ri[k] = 5, ci[k] = 6, v[k++] = 1.0;
    ri[k] = 6, ci[k] = 5, v[k++] = 1.0;
    A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(12, 12, k, ri, ci, v, &A), SPX_OK);
    o = spx_solve_opts_default();
    o.jacobi = 1;
    D = NULL, P = NULL;
    if (A &&
        CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, SPX_PART_PCSC, &D), SPX_OK) &&
        CHECK_STATUS(spx_dist_plan_create(D, NULL, &P), SPX_OK)) {
        spx_dist_matrix_layout(D, &l);
        const int64_t m = l.row_end - l.row_begin;
        double *bb = calloc((size_t)m + 1, sizeof *bb), *xx = calloc((size_t)m + 1, sizeof *xx);
        for (int64_t i = 0; i < m; i++)
            bb[i] = 1.0;
        same_everywhere(spx_dist_cg(P, bb, m, xx, m, &o, NULL), SPX_ERR_UNSUPPORTED);
        free(bb), free(xx);
    }
    spx_dist_plan_destroy(P);
    spx_dist_matrix_destroy(D);
    spx_matrix_destroy(A);

    /* not square */
    A = generate("random:m=40,n=30,nnz=200,seed=3");
    D = NULL, P = NULL;
    if (A &&
        CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, SPX_PART_PCSR, &D), SPX_OK) &&
        CHECK_STATUS(spx_dist_plan_create(D, NULL, &P), SPX_OK)) {
        spx_dist_matrix_layout(D, &l);
        double bb[64] = {0}, xx[64] = {0};
        same_everywhere(spx_dist_bicgstab(P, bb, l.row_end - l.row_begin, xx,
                                          l.col_end - l.col_begin, NULL, NULL),
                        SPX_ERR_DIM_MISMATCH);
    }
    spx_dist_plan_destroy(P);
    spx_dist_matrix_destroy(D);
    spx_matrix_destroy(A);
}

/* The _device solvers given a CPU plan (any machine) or host memory (a GPU
 * plan): refused on every rank. */
static void test_cpu_plan_resident(void)
{
    spx_matrix *A = generate("lap2d5:10");
    spx_dist_matrix *D = NULL;
    spx_dist_plan *P = NULL;
    spx_dist_layout l;
    if (A &&
        CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, SPX_PART_PCSR, &D), SPX_OK) &&
        CHECK_STATUS(spx_dist_plan_create(D, NULL, &P), SPX_OK)) {
        spx_dist_matrix_layout(D, &l);
        double b[128] = {0}, x[128] = {0};
        const int64_t own = l.row_end - l.row_begin;
        same_everywhere(spx_dist_cg_device(P, b, own, x, own, NULL, NULL), SPX_ERR_UNSUPPORTED);
    }
    spx_dist_plan_destroy(P);
    spx_dist_matrix_destroy(D);
    spx_matrix_destroy(A);
}

static void test_resident_input(void)
{
    spx_matrix *A = generate("lap2d5:10");
    spx_dist_matrix *D = NULL;
    spx_dist_plan *P = NULL;
    spx_dist_layout l;
    spx_plan_opts po = spx_plan_opts_default();
    po.device = SPX_DEV_CUDA;
    if (A &&
        CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, SPX_PART_PCSR, &D), SPX_OK) &&
        CHECK_STATUS(spx_dist_plan_create(D, &po, &P), SPX_OK)) {
        spx_dist_matrix_layout(D, &l);
        double b[128] = {0}, x[128] = {0};
        const int64_t own = l.row_end - l.row_begin;
        same_everywhere(spx_dist_gmres_device(P, b, own, x, own, NULL, NULL), SPX_ERR_INVALID_ARG);
    }
    spx_dist_plan_destroy(P);
    spx_dist_matrix_destroy(D);
    spx_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_systems(SPX_DEV_CPU, 0);
    test_eigsh(SPX_DEV_CPU, 0);
    if (spx_device_available(SPX_DEV_CUDA)) {
        test_systems(SPX_DEV_CUDA, 0);
        test_systems(SPX_DEV_CUDA, 1);
        test_eigsh(SPX_DEV_CUDA, 0);
        test_eigsh(SPX_DEV_CUDA, 1);
        test_resident_input();
    } else if (rank == 0)
        printf("SKIP: no GPU, the ranks' parts on the GPU not run\n");
    test_bad_input();
    test_cpu_plan_resident();
    long counts[2] = {spx_test_passed, spx_test_failed}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%d ranks: %ld passed, %ld failed\n", size, sums[0], sums[1]);
    MPI_Finalize();
    return sums[1] == 0 ? 0 : 1;
}
