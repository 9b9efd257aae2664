/* New values for a prepared matrix, the pattern unchanged (the Jacobian of
 * each Newton step, a layer's weights after each training step): prepare A
 * once, then give the plan each step's values with spx_plan_update_values
 * and multiply. Read a Matrix Market file (or generate a 2D Laplacian when
 * none is given); step s multiplies A's values by s + 1, so sum(y) for
 * x = ones grows by sum(A) a step. The plan keeps its layout: an update
 * refills its own copy of the values, without the format's preprocessing,
 * and the products are the bits a new plan of those values would give.
 *
 *   cc update_values.c -o update_values $(pkg-config --cflags --libs spx)
 *   ./update_values [matrix.mtx]
 *
 * The values are in A's CSR order (spx_matrix_csr), of the plan's vector
 * type (double here, fp64). On a GPU (o.device = SPX_DEV_CUDA) they may be
 * device memory (spx_plan_update_values) or host memory
 * (spx_plan_update_values_host). */
#include <spx.h>
#include <stdio.h>
#include <stdlib.h>

enum { STEPS = 3 };

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
    double *x = NULL, *y = NULL, *step_values = NULL;
    const void *values;
    spx_type vtype;
    int64_t rows, cols, nnz;
    int rc = EXIT_FAILURE;

    spx_status st = path ? spx_matrix_read(path, &A) : spx_generate("lap2d5:32", &A);
    if (failed(st, path ? path : "spx_generate lap2d5:32")) goto done;
    if (failed(spx_matrix_dims(A, &rows, &cols, &nnz), "spx_matrix_dims")) goto done;
    if (failed(spx_matrix_csr(A, NULL, NULL, NULL, &values, &vtype), "spx_matrix_csr")) goto done;
    o.expected_calls = STEPS;
    if (failed(spx_plan_create(A, SPX_OP_SPMV, &o, &P), "spx_plan_create")) goto done;
    x = malloc(sizeof *x * (size_t)(cols + 1));
    y = malloc(sizeof *y * (size_t)(rows + 1));
    step_values = malloc(sizeof *step_values * (size_t)(nnz + 1));
    if (!x || !y || !step_values) goto done;
    for (int64_t j = 0; j < cols; j++)
        x[j] = 1.0;
    printf("format: %s\n", spx_plan_format(P));
    for (int s = 0; s < STEPS; s++) {
        double sum = 0.0;
        for (int64_t e = 0; e < nnz; e++) /* this step's values, in A's CSR order */
            step_values[e] = (s + 1) * (vtype == SPX_F64 ? ((const double *)values)[e]
                                                         : (double)((const float *)values)[e]);
        if (failed(spx_plan_update_values(P, step_values), "spx_plan_update_values")) goto done;
        if (failed(spx_spmv(P, 1.0, x, 0.0, y), "spx_spmv")) goto done;
        for (int64_t i = 0; i < rows; i++)
            sum += y[i];
        printf("step %d: sum(y) = %g\n", s, sum);
    }
    rc = EXIT_SUCCESS;
done:
    free(x);
    free(y);
    free(step_values);
    spx_plan_destroy(P); /* NULL is a no-op */
    spx_matrix_destroy(A);
    return rc;
}
