/* y = A*x over the ranks of an MPI job with SpX: every rank reads its share
 * of a Matrix Market file (no rank holds all of A), plans its part on its
 * CPU or, with --cuda, on its GPU with x and y kept in that GPU's memory,
 * multiplies by x = ones, and rank 0 prints sum(y).
 *
 *   mpicc mpi_spmv.c -o mpi_spmv -lspx_mpi $(pkg-config --cflags --libs spx)
 *         [-DSPX_EXAMPLE_CUDA -lcudart]
 *   mpirun -np 4 ./mpi_spmv matrix.mtx [--cuda]
 *
 * Every spx_dist_* call is collective and returns the same status on every
 * rank, so one check after each call is enough and no rank is left waiting.
 * With --cuda, ranks on one host exchange their entries GPU to GPU; the
 * product needs no CUDA-aware MPI. Exit 77: --cuda without a GPU here. */
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

/* y = A*ones on this rank's GPU: x and y copied there once, as a solver
 * would keep them, and y brought back only to print its sum. */
static spx_status product_on_gpu(spx_dist_plan *P, double *x, int64_t nx, double *y, int64_t ny)
{
#ifdef SPX_EXAMPLE_CUDA
    void *dx = NULL, *dy = NULL;
    spx_status st = SPX_ERR_DEVICE;
    if (cudaSetDevice(spx_dist_plan_device(P)) == cudaSuccess &&
        cudaMalloc(&dx, sizeof *x * (size_t)nx + 1) == cudaSuccess &&
        cudaMalloc(&dy, sizeof *y * (size_t)ny + 1) == cudaSuccess &&
        cudaMemcpy(dx, x, sizeof *x * (size_t)nx, cudaMemcpyHostToDevice) == cudaSuccess)
        st = SPX_OK;
    /* collective: every rank calls it, a rank without memory passes NULL and
     * every rank gets the failure */
    st = spx_dist_spmv_device(P, 1.0, st == SPX_OK ? dx : NULL, nx, 0.0, dy, ny);
    if (st == SPX_OK &&
        cudaMemcpy(y, dy, sizeof *y * (size_t)ny, cudaMemcpyDeviceToHost) != cudaSuccess)
        st = SPX_ERR_DEVICE;
    cudaFree(dx);
    cudaFree(dy);
    return st;
#else
    (void)P, (void)x, (void)nx, (void)y, (void)ny;
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
    spx_plan_opts o = spx_plan_opts_default();
    double *x = NULL, *y = NULL, mine = 0.0, sum = 0.0;

    if (!path) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -np N %s matrix.mtx [--cuda]\n", argv[0]);
        goto done;
    }
    if (cuda && !spx_device_available(SPX_DEV_CUDA)) {
        if (rank == 0) fprintf(stderr, "--cuda: no usable GPU here\n");
        rc = 77;
        goto done;
    }
    /* pcsr: each rank a range of rows with about the same number of nonzeros */
    if (failed(spx_dist_read_mtx(MPI_COMM_WORLD, path, SPX_PART_PCSR, &D), path, rank)) goto done;
    spx_dist_matrix_layout(D, &l);

    o.format = "auto"; /* AUTO picks each block's format */
    o.device = cuda ? SPX_DEV_CUDA : SPX_DEV_CPU;
    if (failed(spx_dist_plan_create(D, &o, &P), "spx_dist_plan_create", rank)) goto done;

    /* this rank's entries of x (columns col_begin..) and of y (rows row_begin..) */
    int64_t nx = l.col_end - l.col_begin, ny = l.row_end - l.row_begin;
    x = malloc(sizeof *x * (size_t)nx + 1);
    y = malloc(sizeof *y * (size_t)ny + 1);
    int have = x && y, all = 0; /* every rank goes on, or none */
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0) fprintf(stderr, "out of memory for x and y on some rank\n");
        goto done;
    }
    for (int64_t j = 0; j < nx; j++)
        x[j] = 1.0;
    spx_status st = cuda ? product_on_gpu(P, x, nx, y, ny)
                         : spx_dist_spmv(P, 1.0, x, nx, 0.0, y, ny); /* y = 1*A*x + 0*y */
    if (failed(st, "spx_dist_spmv", rank)) goto done;

    for (int64_t i = 0; i < ny; i++)
        mine += y[i];
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("matrix: %lld x %lld, %lld nonzeros, %d ranks\n", (long long)l.rows,
               (long long)l.cols, (long long)l.nnz, size);
        printf("sum(y) = %.17g\n", sum);
    }
    rc = EXIT_SUCCESS;
done:
    free(x);
    free(y);
    spx_dist_plan_destroy(P); /* a GPU plan: on every rank, as it was made */
    spx_dist_matrix_destroy(D);
    MPI_Finalize();
    return rc;
}
