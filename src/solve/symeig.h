/* Eigenpairs of a small dense symmetric matrix by the cyclic Jacobi method
 * (symeig.c): the projected matrices of the Lanczos method (lanczos.c). */
#ifndef SPX_SOLVE_SYMEIG_H
#define SPX_SOLVE_SYMEIG_H

#include <stdint.h>

/* a: m x m symmetric, column-major (a[i + j*m]), destroyed. On return
 * lambda (m entries) holds its eigenvalues in ascending order and column j
 * of z (m x m, column-major) the unit eigenvector of lambda[j]. 0, or -1
 * when 60 sweeps left a off its diagonal (lambda and z then hold them as
 * they stand). */
int spx__symeig(int64_t m, double *a, double *lambda, double *z);

#endif
