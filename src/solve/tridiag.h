/* Eigenvalues and eigenvectors of a symmetric tridiagonal matrix T (m x m,
 * diagonal d[0..m), off-diagonal e[i] = T(i, i+1) = T(i+1, i) for i < m - 1)
 * by the implicit QL method with Wilkinson's shift (tridiag.c). Lanczos
 * (lanczos.c) takes its Ritz pairs from it. */
#ifndef SPX_SOLVE_TRIDIAG_H
#define SPX_SOLVE_TRIDIAG_H

#include <stdint.h>

/* T = Q diag(lambda) Q' (Q orthogonal). On return d holds the eigenvalues
 * lambda in ascending order, and z (rows x m, column-major: z[r + j*rows]),
 * given on entry as a block of rows of the identity, that block of Q's rows
 * with its columns in the same order: z = I gives the eigenvectors (column
 * j, d[j]'s), one row e_{m-1}' their last entries (O(m^2) instead of
 * O(m^3)). e (m entries, e[m-1] unused on entry) is overwritten. 0, or -1
 * when an eigenvalue took more than 60 QL sweeps (d and z are then
 * partial). */
int spx__tridiag_eig(int64_t m, double *d, double *e, double *z, int64_t rows);

#endif
