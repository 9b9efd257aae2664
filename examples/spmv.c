/* y = A*x with SpX: read a Matrix Market file (or generate a 3D Laplacian
 * when none is given), prepare it for SpMV with the format SpX's AUTO rule
 * picks, multiply by x = ones, and print the format and sum(y).
 *
 *   cc spmv.c -o spmv $(pkg-config --cflags --libs spx)
 *   ./spmv [matrix.mtx]
 *
 * Every SpX call returns an spx_status; on failure spx_last_error() says what
 * went wrong (the file and line of a bad entry, the bytes that could not be
 * allocated, ...). */
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
    spx_matrix *A = NULL;
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    double *x = NULL, *y = NULL, sum = 0.0;
    int64_t rows, cols, nnz;
    int rc = EXIT_FAILURE;

    spx_status st = path ? spx_matrix_read(path, &A) : spx_generate("lap3d7:16", &A);
    if (failed(st, path ? path : "spx_generate lap3d7:16")) goto done;
    if (failed(spx_matrix_dims(A, &rows, &cols, &nnz), "spx_matrix_dims")) goto done;

    /* Prepare A once (the format's preprocessing), then multiply as often as
     * needed. o.format "auto" lets SpX choose; o.device, o.precision and
     * o.threads are the other usual settings. */
    o.format = "auto";
    o.expected_calls = 100;
    if (failed(spx_plan_create(A, SPX_OP_SPMV, &o, &P), "spx_plan_create")) goto done;

    x = malloc((size_t)cols * sizeof *x + 1);
    y = malloc((size_t)rows * sizeof *y + 1);
    if (!x || !y) {
        fprintf(stderr, "out of memory for x and y\n");
        goto done;
    }
    for (int64_t j = 0; j < cols; j++)
        x[j] = 1.0;
    if (failed(spx_spmv(P, 1.0, x, 0.0, y), "spx_spmv")) goto done; /* y = 1*A*x + 0*y */

    for (int64_t i = 0; i < rows; i++)
        sum += y[i];
    printf("matrix: %lld x %lld, %lld nonzeros\n", (long long)rows, (long long)cols,
           (long long)nnz);
    printf("format: %s\n", spx_plan_format(P));
    printf("sum(y) = %.17g\n", sum);
    rc = EXIT_SUCCESS;
done:
    free(x);
    free(y);
    spx_plan_destroy(P); /* NULL is a no-op */
    spx_matrix_destroy(A);
    return rc;
}
