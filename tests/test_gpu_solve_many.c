/* The spx_cg_many tests of tests/test_solve_many.c on CUDA plans: csr in
 * fp64 and fp32 against the CPU solve, device and host blocks, Jacobi, a NaN
 * column, k = 300, repeatability. Exits with 77 (SKIPPED) without a GPU. */
#define SOLVE_MANY_TEST_CUDA 1
#include "test_solve_many.c"
