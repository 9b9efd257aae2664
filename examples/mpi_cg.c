/* A x = b by conjugate gradients over the ranks of an MPI job with SpX:
 * every rank reads its share of a Matrix Market file (symmetric positive
 * definite A; no rank holds all of it), plans its part on its CPU or, with
 * --cuda, on its GPU with b and x kept in that GPU's memory, solves for
 * b = ones with the Jacobi preconditioner, and rank 0 prints the iterations
 * and the relative residual ||b - A x|| / ||b||.
 *
 *   mpicc mpi_cg.c -o mpi_cg -lspx_mpi $(pkg-config --cflags --libs spx)
 *         [-DSPX_EXAMPLE_CUDA -lcudart]
 *   mpirun -np 4 ./mpi_cg matrix.mtx [--cuda]
 *
 * spx_dist_cg is collective: every rank takes the same steps (each dot is
 * summed over the ranks in rank order) and gets the same status, so one
 * check after each call is enough. Exit 77: --cuda without a GPU here. */
#include <mpi.h>
#include <spx_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SPX_EXAMPLE_CUDA
#include <cuda_runtime_api.h>
#endif

/* Nonzero, after rank 0 printed what failed and why, when st is an error. */
static int failed(spx_status st, const char *what, int rank)
{
    if (st == SPX_OK) return 0;
    if (rank == 0) fprintf(stderr, "%s: %s: %s\n", what, spx_status_name(st), spx_last_error());
    return 1;
}

/* The solve with b and x copied to this rank's GPU once, as an application
 * keeping its vectors there would, and x brought back at the end. */
static spx_status solve_on_gpu(spx_dist_plan *P, const double *b, double *x, int64_t n,
                               const spx_solve_opts *o, spx_solve_info *info)
{
#ifdef SPX_EXAMPLE_CUDA
    void *db = NULL, *dx = NULL;
    spx_status st = SPX_ERR_DEVICE;
    if (cudaSetDevice(spx_dist_plan_device(P)) == cudaSuccess &&
        cudaMalloc(&db, sizeof *b * (size_t)n + 1) == cudaSuccess &&
        cudaMalloc(&dx, sizeof *x * (size_t)n + 1) == cudaSuccess &&
        cudaMemcpy(db, b, sizeof *b * (size_t)n, cudaMemcpyHostToDevice) == cudaSuccess &&
        cudaMemcpy(dx, x, sizeof *x * (size_t)n, cudaMemcpyHostToDevice) == cudaSuccess)
        st = SPX_OK;
    /* collective: a rank without memory passes NULL and every rank gets the failure */
    st = spx_dist_cg_device(P, st == SPX_OK ? db : NULL, n, dx, n, o, info);
    if ((st == SPX_OK || st == SPX_ERR_NOT_CONVERGED) &&
        cudaMemcpy(x, dx, sizeof *x * (size_t)n, cudaMemcpyDeviceToHost) != cudaSuccess)
        st = SPX_ERR_DEVICE;
    cudaFree(db);
    cudaFree(dx);
    return st;
#else
    (void)P, (void)b, (void)x, (void)n, (void)o, (void)info;
    return SPX_ERR_NOT_COMPILED;
#endif
}

int main(int argc, char **argv)
{
    int rank = 0, size = 1, rc = EXIT_FAILURE;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : NULL;
    int cuda = argc > 2 && strcmp(argv[2], "--cuda") == 0;
    spx_dist_matrix *D = NULL;
    spx_dist_plan *P = NULL;
    spx_dist_layout l;
    spx_plan_opts po = spx_plan_opts_default();
    double *b = NULL, *x = NULL;

    if (!path) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np N %s matrix.mtx [--cuda]\n", argv[0]);
        goto done;
    }
    if (cuda && !spx_device_available(SPX_DEV_CUDA)) {
        if (rank == 0) fprintf(stderr, "--cuda: no usable GPU here\n");
        rc = 77;
        goto done;
    }
    if (failed(spx_dist_read_mtx(MPI_COMM_WORLD, path, SPX_PART_PCSR, &D), path, rank)) goto done;
    spx_dist_matrix_layout(D, &l);
    po.device = cuda ? SPX_DEV_CUDA : SPX_DEV_CPU;
    if (failed(spx_dist_plan_create(D, &po, &P), "spx_dist_plan_create", rank)) goto done;

    /* this rank's entries of b and x: rows row_begin..row_end (a square
     * matrix's columns are cut the same way) */
    int64_t n = l.row_end - l.row_begin;
    b = malloc(sizeof *b * (size_t)n + 1);
    x = calloc((size_t)n + 1, sizeof *x); /* the first guess: 0 */
    int have = b && x, all = 0;           /* every rank goes on, or none */
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0) fprintf(stderr, "out of memory for b and x on some rank\n");
        goto done;
    }
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0;

    spx_solve_opts o = spx_solve_opts_default();
    o.rtol = 1e-10;
    o.jacobi = 1; /* M = diag(A), gathered from the ranks' parts */
    spx_solve_info info;
    spx_status st =
        cuda ? solve_on_gpu(P, b, x, n, &o, &info) : spx_dist_cg(P, b, n, x, n, &o, &info);
    if (failed(st, "spx_dist_cg", rank)) goto done;
    if (rank == 0) {
        printf("matrix: %lld x %lld, %lld nonzeros, %d ranks\n", (long long)l.rows,
               (long long)l.cols, (long long)l.nnz, size);
        printf("cg: %lld iterations, relative residual %.1e\n", (long long)info.iters,
               info.rel_residual);
    }
    rc = EXIT_SUCCESS;
done:
    free(b);
    free(x);
    spx_dist_plan_destroy(P); /* a GPU plan: on every rank, as it was made */
    spx_dist_matrix_destroy(D);
    MPI_Finalize();
    return rc;
}
