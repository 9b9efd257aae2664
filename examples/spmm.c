/* Y = A*X with SpX, X a dense block of k columns: read a Matrix Market file
 * (or generate a 2D Laplacian when none is given), prepare A for SpMM with a
 * plan, multiply a block of ones, and print the format and the sum of each
 * column of Y (every column is A*ones, so the sums agree).
 *
 *   cc spmm.c -o spmm $(pkg-config --cflags --libs spx)
 *   ./spmm [matrix.mtx]
 *
 * X and Y are row-major: row i of X (of Y) starts at X + i*ldx (Y + i*ldy),
 * ldx, ldy >= k, so a block may be a slice of a wider array. The same plan
 * takes any k. On a GPU (o.device = SPX_DEV_CUDA) X and Y are device arrays,
 * or host arrays through spx_spmm_host. */
#include <spx.h>
#include <stdio.h>
#include <stdlib.h>

enum { K = 4 }; /* columns of X and Y */

/* Nonzero, after printing what failed and why, when st is an error. */
static int failed(spx_status st, const char *what)
{
    if (st == SPX_OK) return 0;
    fprintf(stderr, "%s: %s: %s\n", what, spx_status_name(st), spx_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : NULL;
    spx_matrix *A = NULL;
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default(); /* format "auto", CPU, fp64 */
    double *X = NULL, *Y = NULL;
    int64_t rows, cols, nnz;
    int rc = EXIT_FAILURE;

    spx_status st = path ? spx_matrix_read(path, &A) : spx_generate("lap2d5:32", &A);
    if (failed(st, path ? path : "spx_generate lap2d5:32")) goto done;
    if (failed(spx_matrix_dims(A, &rows, &cols, &nnz), "spx_matrix_dims")) goto done;
    if (failed(spx_plan_create(A, SPX_OP_SPMM, &o, &P), "spx_plan_create")) goto done;
    X = malloc(sizeof *X * (size_t)(cols * K + 1));
    Y = malloc(sizeof *Y * (size_t)(rows * K + 1));
    if (!X || !Y) goto done;
    for (int64_t e = 0; e < cols * K; e++)
        X[e] = 1.0;
    /* Y = 1*A*X + 0*Y: with beta = 0, Y is not read */
    if (failed(spx_spmm(P, K, 1.0, X, K, 0.0, Y, K), "spx_spmm")) goto done;

    printf("format: %s\n", spx_plan_format(P));
    for (int j = 0; j < K; j++) {
        double sum = 0.0;
        for (int64_t i = 0; i < rows; i++)
            sum += Y[i * K + j];
        printf("sum(Y[:, %d]) = %g\n", j, sum);
    }
    rc = EXIT_SUCCESS;
done:
    free(X);
    free(Y);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    return rc;
}
