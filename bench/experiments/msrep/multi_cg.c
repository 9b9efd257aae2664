/* CG on one GPU against CG across the GPUs, in one process: spx_cg on a
 * CUDA plan with device vectors, and spx_multi_cg on a multi plan (parts
 * round robin over the GPUs, resident vectors), b = ones, x0 = 0, a fixed
 * iteration count (rtol 0: every solve runs max_iters iterations and ends
 * with SPX_ERR_NOT_CONVERGED), each solve timed by spx_solve_info.ms,
 * alternated one / multi for R rounds. Reports ms a solve (median [min-max])
 * and ms an iteration, the speedup, and the relative residuals the two
 * reached (they follow the same iteration, so they agree to rounding).
 * Beside it, the products alone: K calls of y = A p each way, the host
 * waiting after each as a solver's next dot does (ms a call, median of R),
 * so that an iteration less its products (BiCGSTAB: two) is the vector work
 * and the waits.
 * Each solve runs its iterations as replays of one recorded CUDA graph
 * where it can (spx_solve_info.replayed; the one-GPU plan only on a stream
 * of its own, --stream); --ab alternates every solve with the same solve
 * queued operation by operation (SPX_SOLVE_GRAPH=0) and reports both.
 *
 * Usage: multi_cg SPEC (spx_generate's, e.g. lap3d7:200) [--parts N (default:
 *        every GPU)] [--kind pcsr|pcsc|pcoo|rows] [--iters K (100)] [--rounds R (5)]
 *        [--solver cg|bicgstab|gmres (cg): spx_bicgstab and spx_multi_bicgstab, or
 *        spx_gmres and spx_multi_gmres (restart 30) instead]
 *        [--stream 1: the one-GPU plan on a stream of its own] [--ab 1]
 *        [--keep 0: spx_solve_opts.keep_workspace 0, every solve allocates its
 *        workspace and frees it; by default the plans keep it between solves] */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spx.h"

enum { CG, BICGSTAB, GMRES };
static int solver; /* --solver */
static const char *const solver_names[] = {"CG", "BiCGSTAB", "GMRES(30)"};
static int64_t replayed[2]; /* the last one-GPU and multi solve's replayed iterations */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int fail(const char *what, spx_status st)
{
    fprintf(stderr, "multi_cg: %s: %s (%s)\n", what, spx_status_name(st), spx_last_error());
    return 1;
}

/* One solve from x0 = 0: *ms and *rel; SPX_ERR_NOT_CONVERGED is the expected end. */
static spx_status one_gpu_solve(const spx_plan *P, double *db, double *dx, int64_t n,
                                const spx_solve_opts *o, double *ms, double *rel)
{
    spx_solve_info info;
    cudaMemset(dx, 0, (size_t)n * sizeof(double));
    cudaDeviceSynchronize(); /* the plan's stream may not wait for the default one */
    spx_status st = solver == GMRES      ? spx_gmres(P, NULL, db, dx, o, &info)
                    : solver == BICGSTAB ? spx_bicgstab(P, NULL, db, dx, o, &info)
                                         : spx_cg(P, NULL, db, dx, o, &info);
    *ms = info.ms;
    *rel = info.rel_residual;
    replayed[0] = info.replayed;
    return st == SPX_ERR_NOT_CONVERGED ? SPX_OK : st;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* ms a call of K products y = A x on one GPU, the host waiting after each. */
static spx_status one_gpu_products(const spx_plan *P, const double *dx, double *dy, long k,
                                   double *ms)
{
    spx_status st = SPX_OK;
    double t0 = now_ms();
    for (long i = 0; st == SPX_OK && i < k; i++) {
        st = spx_spmv(P, 1.0, dx, 0.0, dy);
        if (cudaDeviceSynchronize() != cudaSuccess) st = SPX_ERR_DEVICE;
    }
    *ms = (now_ms() - t0) / (double)k;
    return st;
}

/* The same across the GPUs (a resident call ends with its host wait). */
static spx_status multi_products(spx_multi_plan *M, spx_multi_vector *x, spx_multi_vector *y,
                                 long k, double *ms)
{
    spx_status st = SPX_OK;
    double t0 = now_ms();
    for (long i = 0; st == SPX_OK && i < k; i++)
        st = spx_multi_spmv_resident(M, 1.0, x, 0.0, y);
    *ms = (now_ms() - t0) / (double)k;
    return st;
}

static spx_status multi_solve(spx_multi_plan *M, spx_multi_vector *b, spx_multi_vector *x,
                              const double *zeros, const spx_solve_opts *o, double *ms, double *rel)
{
    spx_solve_info info;
    spx_status st = spx_multi_vector_set(x, zeros);
    if (st == SPX_OK)
        st = solver == GMRES      ? spx_multi_gmres(M, NULL, b, x, o, &info)
             : solver == BICGSTAB ? spx_multi_bicgstab(M, NULL, b, x, o, &info)
                                  : spx_multi_cg(M, NULL, b, x, o, &info);
    *ms = info.ms;
    *rel = info.rel_residual;
    replayed[1] = info.replayed;
    return st == SPX_ERR_NOT_CONVERGED ? SPX_OK : st;
}

/* Solves recorded and replayed (mode 0) or queued (mode 1). */
static void set_mode(int mode)
{
    if (mode)
        setenv("SPX_SOLVE_GRAPH", "0", 1);
    else
        unsetenv("SPX_SOLVE_GRAPH");
}

static void report(const char *what, double *t, int rounds, long iters, double rel, int64_t rep)
{
    qsort(t, (size_t)rounds, sizeof *t, cmp_double);
    printf("%-15s %9.3f ms a solve [%.3f-%.3f]  %.4f ms an iteration  residual %.6e  "
           "replayed %lld\n",
           what, t[rounds / 2], t[0], t[rounds - 1], t[rounds / 2] / (double)iters, rel,
           (long long)rep);
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "lap3d7:200", *kind = "pcsr";
    int parts = 0, rounds = 5, own_stream = 0, ab = 0, keep = 1;
    long iters = 100;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--parts")) parts = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--kind")) kind = argv[i + 1];
        if (!strcmp(argv[i], "--iters")) iters = atol(argv[i + 1]);
        if (!strcmp(argv[i], "--rounds")) rounds = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--solver"))
            solver = !strcmp(argv[i + 1], "bicgstab") ? BICGSTAB
                     : !strcmp(argv[i + 1], "gmres")  ? GMRES
                                                      : CG;
        if (!strcmp(argv[i], "--stream")) own_stream = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--ab")) ab = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--keep")) keep = atoi(argv[i + 1]);
    }
    int gpus = 0;
    cudaGetDeviceCount(&gpus);
    if (parts <= 0) parts = gpus;
    spx_matrix *A = NULL;
    spx_plan *P = NULL;
    spx_multi_plan *M = NULL;
    spx_multi_vector *mb = NULL, *mx = NULL;
    spx_status st = spx_generate(spec, &A);
    if (st != SPX_OK) return fail("generate", st);
    int64_t n, nnz;
    spx_matrix_dims(A, &n, NULL, &nnz);
    double *ones = malloc((size_t)n * sizeof *ones), *zeros = calloc((size_t)n, sizeof *zeros);
    for (int64_t i = 0; i < n; i++)
        ones[i] = 1.0;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    cudaStream_t stream = NULL;
    if (own_stream) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    spx_multi_opts m = spx_multi_opts_default();
    m.parts = parts;
    if ((st = spx_partition_parse(kind, &m.partition)) != SPX_OK) return fail("--kind", st);
    o.stream = stream;
    if ((st = spx_plan_create(A, SPX_OP_SPMV, &o, &P)) != SPX_OK) return fail("one-GPU plan", st);
    o.stream = NULL; /* the multi plan's parts have streams of their own */
    if ((st = spx_multi_plan_create(A, &o, &m, &M)) != SPX_OK) return fail("multi plan", st);
    double *db = NULL, *dx = NULL;
    cudaSetDevice(0);
    cudaMalloc((void **)&db, (size_t)n * sizeof *db);
    cudaMalloc((void **)&dx, (size_t)n * sizeof *dx);
    cudaMemcpy(db, ones, (size_t)n * sizeof *db, cudaMemcpyHostToDevice);
    if ((st = spx_multi_vector_create(M, &mb)) != SPX_OK ||
        (st = spx_multi_vector_create(M, &mx)) != SPX_OK ||
        (st = spx_multi_vector_set(mb, ones)) != SPX_OK)
        return fail("multi vectors", st);
    spx_solve_opts so = spx_solve_opts_default();
    so.rtol = 0.0;
    so.max_iters = iters;
    so.keep_workspace = keep;
    const int modes = ab ? 2 : 1;
    double *t1[2], *tm[2], r1[2] = {0, 0}, rm[2] = {0, 0}, warm;
    int64_t rep1[2] = {0, 0}, repm[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        t1[k] = malloc((size_t)rounds * sizeof *t1[k]);
        tm[k] = malloc((size_t)rounds * sizeof *tm[k]);
    }
    if ((st = one_gpu_solve(P, db, dx, n, &so, &warm, &r1[0])) != SPX_OK)
        return fail("one-GPU solve", st);
    if ((st = multi_solve(M, mb, mx, zeros, &so, &warm, &rm[0])) != SPX_OK)
        return fail("multi solve", st);
    double *p1 = malloc((size_t)rounds * sizeof *p1), *pm = malloc((size_t)rounds * sizeof *pm);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < modes; k++) {
            set_mode(k);
            if ((st = one_gpu_solve(P, db, dx, n, &so, &t1[k][r], &r1[k])) != SPX_OK)
                return fail("one-GPU solve", st);
            rep1[k] = replayed[0];
            if ((st = multi_solve(M, mb, mx, zeros, &so, &tm[k][r], &rm[k])) != SPX_OK)
                return fail("multi solve", st);
            repm[k] = replayed[1];
        }
        set_mode(0);
        if ((st = one_gpu_products(P, db, dx, iters, &p1[r])) != SPX_OK)
            return fail("spx_spmv", st);
        if ((st = multi_products(M, mb, mx, iters, &pm[r])) != SPX_OK)
            return fail("spx_multi_spmv_resident", st);
    }
    qsort(p1, (size_t)rounds, sizeof *p1, cmp_double);
    qsort(pm, (size_t)rounds, sizeof *pm, cmp_double);
    printf("%s: %lld rows, %lld nonzeros; %s, %ld iterations, %d rounds; one GPU: %s; "
           "multi: %s, %d parts over %d GPUs\n",
           spec, (long long)n, (long long)nnz, solver_names[solver], iters, rounds,
           spx_plan_format(P), kind, parts, gpus);
    static const char *const names[2][2] = {{"one GPU", "multi"},
                                            {"one GPU queued", "multi queued"}};
    for (int k = 0; k < modes; k++) {
        report(names[k][0], t1[k], rounds, iters, r1[k], rep1[k]);
        report(names[k][1], tm[k], rounds, iters, rm[k], repm[k]);
    }
    printf("speedup  %.2fx\n", t1[0][rounds / 2] / tm[0][rounds / 2]);
    if (ab)
        printf("replayed / queued: one GPU %.3f, multi %.3f\n",
               t1[0][rounds / 2] / t1[1][rounds / 2], tm[0][rounds / 2] / tm[1][rounds / 2]);
    double per = solver == BICGSTAB ? 2.0 : 1.0; /* products an iteration */
    printf("products alone: one GPU %.4f ms a call, multi %.4f (%.2fx); an iteration less its "
           "products: one GPU %.4f ms, multi %.4f\n",
           p1[rounds / 2], pm[rounds / 2], p1[rounds / 2] / pm[rounds / 2],
           t1[0][rounds / 2] / (double)iters - per * p1[rounds / 2],
           tm[0][rounds / 2] / (double)iters - per * pm[rounds / 2]);
    spx_multi_vector_destroy(mb);
    spx_multi_vector_destroy(mx);
    spx_multi_plan_destroy(M);
    spx_plan_destroy(P);
    cudaFree(db);
    cudaFree(dx);
    spx_matrix_destroy(A);
    free(ones);
    free(zeros);
    for (int k = 0; k < 2; k++) {
        free(t1[k]);
        free(tm[k]);
    }
    if (stream) cudaStreamDestroy(stream);
    free(p1);
    free(pm);
    return 0;
}
