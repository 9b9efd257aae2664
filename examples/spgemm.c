/* C = A*A with SpX: read a Matrix Market file (or generate a 2D Laplacian
 * when none is given), prepare A for SpGEMM with a plan, multiply, and print
 * the format and the nonzero count of C.
 *
 *   cc spgemm.c -o spgemm $(pkg-config --cflags --libs spx)
 *   ./spgemm [matrix.mtx]
 *
 * A plan for SPX_OP_SPGEMM holds A prepared; spx_spgemm_run multiplies it by
 * any B with as many rows as A has columns (here A itself, so A is square).
 * For a single product, spx_spgemm(A, B, &o, &C) does the same in one call. */
#include <spx.h>
#include <stdio.h>
#include <stdlib.h>

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
    spx_matrix *A = NULL, *C = NULL;
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default(); /* format "auto", CPU, fp64 */
    int64_t rows, cols, nnz;
    int rc = EXIT_FAILURE;

    spx_status st = path ? spx_matrix_read(path, &A) : spx_generate("lap2d5:32", &A);
    if (failed(st, path ? path : "spx_generate lap2d5:32")) goto done;
    if (failed(spx_plan_create(A, SPX_OP_SPGEMM, &o, &P), "spx_plan_create")) goto done;
    if (failed(spx_spgemm_run(P, A, &C), "spx_spgemm_run")) goto done;
    if (failed(spx_matrix_dims(C, &rows, &cols, &nnz), "spx_matrix_dims")) goto done;

    printf("format: %s\n", spx_plan_format(P));
    printf("C = A*A: %lld x %lld\n", (long long)rows, (long long)cols);
    printf("nnz(C) = %lld\n", (long long)nnz);
    rc = EXIT_SUCCESS;
done:
    spx_matrix_destroy(C);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    return rc;
}
