/* A solve on one GPU against the same solve over MPI ranks (one GPU each,
 * vectors resident: spx_dist_cg_device, _bicgstab_device, _gmres_device), in
 * one run: rank 0 also holds a one-process plan of the whole matrix on its
 * GPU (auto format) and solves with spx_cg, spx_bicgstab or spx_gmres on
 * device vectors. b = ones, x0 = 0, a fixed iteration count (rtol 0: every
 * solve runs K iterations and ends with SPX_ERR_NOT_CONVERGED), so both do
 * the same work. Each round: the one-GPU solve (rank 0; the others wait at a
 * barrier), then the distributed one (its time: the slowest rank's
 * spx_solve_info.ms); one untimed round first. Prints ms a solve (median
 * [min-max] of R rounds), ms an iteration, one / distributed, and the
 * relative residuals both reached (the same iteration: equal to rounding).
 *
 * Usage: mpirun -np N dist_solve SPEC (spx_generate's, e.g. lap3d7:200)
 *        [--method cg|bicgstab|gmres (cg)] [--iters K (200)] [--rounds R (5)]
 *        [--kind pcsr|pcsc|pcoo|rows (pcsr)] [--jacobi 1]
 *        [--stream 1: the one-GPU plan on a stream of its own, not the default stream] */
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spx.h"
#include "spx_mpi.h"

typedef struct args {
    const char *spec, *method;
    long iters, rounds, jacobi;
    spx_partition kind;
} args;

static const char *arg(int argc, char **argv, const char *name, const char *dflt)
{
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return dflt;
}

static int by_value(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

/* n doubles in device memory, each v. */
static double *device_fill(int64_t n, double v)
{
    double *h = malloc(sizeof *h * (size_t)(n + 1)), *d = NULL;
    for (int64_t i = 0; i < n; i++)
        h[i] = v;
    if (cudaMalloc((void **)&d, sizeof *d * (size_t)(n + 1)) != cudaSuccess) d = NULL;
    if (d) cudaMemcpy(d, h, sizeof *d * (size_t)n, cudaMemcpyHostToDevice);
    free(h);
    return d;
}

typedef spx_status (*one_solver)(const spx_plan *, const spx_matrix *, const void *, void *,
                                 const spx_solve_opts *, spx_solve_info *);
typedef spx_status (*dist_solver)(spx_dist_plan *, const void *, int64_t, void *, int64_t,
                                  const spx_solve_opts *, spx_solve_info *);

static void report(const char *what, double *ms, long rounds, long iters, double rel)
{
    qsort(ms, (size_t)rounds, sizeof *ms, by_value);
    printf("%-28s %9.3f ms [%.3f-%.3f]  %.4f ms an iteration  residual %.6g\n", what,
           ms[rounds / 2], ms[0], ms[rounds - 1], ms[rounds / 2] / (double)iters, rel);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np N dist_solve SPEC [options]\n");
        MPI_Finalize();
        return 2;
    }
    args a = {argv[1],
              arg(argc, argv, "--method", "cg"),
              atol(arg(argc, argv, "--iters", "200")),
              atol(arg(argc, argv, "--rounds", "5")),
              atol(arg(argc, argv, "--jacobi", "0")),
              SPX_PART_PCSR};
    if (spx_partition_parse(arg(argc, argv, "--kind", "pcsr"), &a.kind) != SPX_OK)
        a.kind = SPX_PART_PCSR;
    one_solver one = a.method[0] == 'b' ? spx_bicgstab : a.method[0] == 'g' ? spx_gmres : spx_cg;
    dist_solver dist = a.method[0] == 'b'   ? spx_dist_bicgstab_device
                       : a.method[0] == 'g' ? spx_dist_gmres_device
                                            : spx_dist_cg_device;
    spx_matrix *A = NULL;
    spx_dist_matrix *D = NULL;
    spx_dist_plan *DP = NULL;
    spx_plan *P = NULL;
    spx_plan_opts po = spx_plan_opts_default();
    po.device = SPX_DEV_CUDA;
    spx_status st = spx_generate(a.spec, &A);
    if (st == SPX_OK) st = spx_dist_matrix_from_global(MPI_COMM_WORLD, A, a.kind, &D);
    if (st == SPX_OK) st = spx_dist_plan_create(D, &po, &DP);
    if (st != SPX_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, spx_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    spx_dist_layout l;
    spx_dist_matrix_layout(D, &l);
    const int64_t own = l.row_end - l.row_begin;
    cudaSetDevice(spx_dist_plan_device(DP));
    double *db = device_fill(own, 1.0), *dx = device_fill(own, 0.0);
    double *ob = NULL, *ox = NULL;
    cudaStream_t own_stream = NULL;
    if (rank == 0) {
        if (atol(arg(argc, argv, "--stream", "0")) && cudaStreamCreate(&own_stream) == cudaSuccess)
            po.stream = own_stream;
        if (spx_plan_create(A, SPX_OP_SPMV, &po, &P) != SPX_OK) {
            fprintf(stderr, "one-process plan: %s\n", spx_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        ob = device_fill(l.rows, 1.0);
        ox = device_fill(l.rows, 0.0);
        printf("%s (%lld rows, %lld nonzeros), %s%s, %ld iterations a solve, %d ranks (%s), "
               "one GPU: %s on %s\n",
               a.spec, (long long)l.rows, (long long)l.nnz, a.method, a.jacobi ? " (jacobi)" : "",
               a.iters, size, spx_partition_name(a.kind), spx_plan_format(P),
               own_stream ? "a stream of its own" : "the default stream");
    }
    spx_solve_opts o = spx_solve_opts_default();
    o.rtol = 0.0;
    o.max_iters = a.iters;
    o.jacobi = (int)a.jacobi;
    double *t_one = calloc((size_t)a.rounds + 1, sizeof *t_one);
    double *t_dist = calloc((size_t)a.rounds + 1, sizeof *t_dist);
    double rel_one = 0.0, rel_dist = 0.0;
    for (long r = -1; r < a.rounds; r++) { /* round -1: untimed */
        spx_solve_info info = {0};
        if (rank == 0) {
            cudaMemset(ox, 0, sizeof *ox * (size_t)l.rows);
            st = one(P, A, ob, ox, &o, &info);
            if (st != SPX_OK && st != SPX_ERR_NOT_CONVERGED)
                fprintf(stderr, "one GPU: %s\n", spx_last_error());
            if (r >= 0) t_one[r] = info.ms;
            rel_one = info.rel_residual;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        cudaMemset(dx, 0, sizeof *dx * (size_t)(own + 1));
        st = dist(DP, db, own, dx, own, &o, &info);
        if (st != SPX_OK && st != SPX_ERR_NOT_CONVERGED && rank == 0)
            fprintf(stderr, "distributed: %s\n", spx_last_error());
        double slowest = info.ms;
        MPI_Reduce(&info.ms, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (r >= 0) t_dist[r] = slowest;
        rel_dist = info.rel_residual;
    }
    if (rank == 0) {
        const double one_med =
            (qsort(t_one, (size_t)a.rounds, sizeof *t_one, by_value), t_one[a.rounds / 2]);
        const double dist_med =
            (qsort(t_dist, (size_t)a.rounds, sizeof *t_dist, by_value), t_dist[a.rounds / 2]);
        report("one GPU (spx_cg...)", t_one, a.rounds, a.iters, rel_one);
        char what[64];
        snprintf(what, sizeof what, "%d ranks (_device)", size);
        report(what, t_dist, a.rounds, a.iters, rel_dist);
        printf("one / distributed: %.2fx\n", one_med / dist_med);
    }
    cudaFree(db), cudaFree(dx), cudaFree(ob), cudaFree(ox);
    free(t_one), free(t_dist);
    spx_plan_destroy(P);
    if (own_stream) cudaStreamDestroy(own_stream);
    spx_dist_plan_destroy(DP);
    spx_dist_matrix_destroy(D);
    spx_matrix_destroy(A);
    MPI_Finalize();
    return 0;
}
