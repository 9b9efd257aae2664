/* Built against the installed library: y = A*x for a 2x2 matrix. */
#include <spx.h>
#include <stdio.h>

int main(void)
{
    const int64_t rp[] = {0, 2, 3};
    const int32_t ci[] = {0, 1, 1};
    const double v[] = {2.0, 1.0, 3.0}, x[] = {1.0, 1.0};
    double y[2];
    spx_matrix *A = NULL;
    spx_plan *P = NULL;
    if (spx_matrix_create_csr(2, 2, rp, ci, v, &A) || spx_plan_create(A, SPX_OP_SPMV, NULL, &P) ||
        spx_spmv(P, 1.0, x, 0.0, y)) {
        fprintf(stderr, "spx: %s\n", spx_last_error());
        return 1;
    }
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    printf("y = %g %g\n", y[0], y[1]);
    return y[0] == 3.0 && y[1] == 3.0 ? 0 : 1;
}
