/* Z = X*Y^T sampled at A's entries with SpX (SDDMM: for each stored entry
 * e = (i, j) of A, Z[e] = X(i, :) . Y(j, :)): read a Matrix Market file (or
 * generate a 2D Laplacian when none is given), prepare A's pattern with a
 * plan, and print the format and Z. Row i of X holds i + 1 in each of its k
 * columns and Y holds ones, so Z[e] = k * (i + 1): an edge's score in graph
 * attention, or the gradient of SpMM's A in training, are such products.
 *
 *   cc sddmm.c -o sddmm $(pkg-config --cflags --libs spx)
 *   ./sddmm [matrix.mtx]
 *
 * X (A's rows x k) and Y (A's columns x k) are row-major with leading
 * dimensions ldx, ldy >= k; Z has one value per entry of A, in A's CSR order.
 * A's values are not read. On a GPU (o.device = SPX_DEV_CUDA) X, Y and Z are
 * device arrays, or host arrays through spx_sddmm_host. */
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
    double *X = NULL, *Y = NULL, *Z = NULL;
    int64_t rows, cols, nnz;
    int rc = EXIT_FAILURE;

    spx_status st = path ? spx_matrix_read(path, &A) : spx_generate("lap2d5:32", &A);
    if (failed(st, path ? path : "spx_generate lap2d5:32")) goto done;
    if (failed(spx_matrix_dims(A, &rows, &cols, &nnz), "spx_matrix_dims")) goto done;
    if (failed(spx_plan_create(A, SPX_OP_SDDMM, &o, &P), "spx_plan_create")) goto done;
    X = malloc(sizeof *X * (size_t)(rows * K + 1));
    Y = malloc(sizeof *Y * (size_t)(cols * K + 1));
    Z = malloc(sizeof *Z * (size_t)(nnz + 1));
    if (!X || !Y || !Z) goto done;
    for (int64_t i = 0; i < rows; i++)
        for (int c = 0; c < K; c++)
            X[i * K + c] = (double)(i + 1);
    for (int64_t e = 0; e < cols * K; e++)
        Y[e] = 1.0;
    /* Z = 1*(X*Y^T at A's entries) + 0*Z: with beta = 0, Z is not read */
    if (failed(spx_sddmm(P, K, 1.0, X, K, Y, K, 0.0, Z), "spx_sddmm")) goto done;

    printf("format: %s\n", spx_plan_format(P));
    double sum = 0.0;
    for (int64_t e = 0; e < nnz; e++)
        sum += Z[e];
    if (nnz <= 16) {
        printf("Z =");
        for (int64_t e = 0; e < nnz; e++)
            printf(" %g", Z[e]);
        printf("\n");
    }
    printf("sum(Z) = %g\n", sum);
    rc = EXIT_SUCCESS;
done:
    free(X);
    free(Y);
    free(Z);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    return rc;
}
