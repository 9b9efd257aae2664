/* CPU SpMM row kernels (spmm_body.h), one table per instruction set:
 * Y = alpha*A*X + beta*Y over CSR rows, X and Y dense and row-major. The
 * driver (csr.c) deals rows to threads; these do the arithmetic.
 *
 * Row i of Y is computed a tile of SPX__SPMM_TILE columns at a time: the
 * tile's sums start at zero and take the row's nonzeros in order, sum_j +=
 * a_ik * X(k, j), so column j's sum has the same order whatever k and the
 * tile (the bits of a column do not depend on the other columns). */
#ifndef SPX_CPU_SPMM_H
#define SPX_CPU_SPMM_H

#include <stdint.h>

/* Columns of Y summed at once: 64 bytes of sums times 4 (4 AVX-512 registers
 * of doubles, 8 of floats with AVX2). */
/* Nonzeros ahead whose row of X is prefetched (0: none); -D for experiments. */
#ifndef SPX__SPMM_PF
#define SPX__SPMM_PF 0
#endif

#define SPX__SPMM_TILE_F64 32
#define SPX__SPMM_TILE_F32 64

typedef struct spx__spmm_args {
    const void *rowptr; /* rows+1 offsets: int32_t when row_bits == 32, else int64_t */
    int row_bits;
    const void *col; /* int32_t, or int64_t when col_bits == 64 */
    const void *val; /* the plan's precision; NULL for iso plans (every value 1) */
    int64_t k;
    double alpha, beta; /* iso plans: the matrix's value folded into alpha */
    const void *X;      /* double for fp64 plans, float for fp32 */
    int64_t ldx;
    void *Y;
    int64_t ldy;
    int64_t long_len; /* rows longer than this are left to spx__spmm_slice */
    int64_t nnz;      /* A's nonzeros: the bound of the prefetches */
} spx__spmm_args;

typedef struct spx__spmm_kernel {
    /* Rows [i0, i1) of Y but those longer than long_len. */
    void (*rows)(const spx__spmm_args *a, int64_t i0, int64_t i1);
    /* out[j] = sum over nonzeros [b, e) of a_e * X(col_e, j), j < k (the
     * slice of a long row; out holds k doubles). */
    void (*slice)(const spx__spmm_args *a, int64_t b, int64_t e, double *out);
} spx__spmm_kernel;

/* [fp32][64-bit columns] */
extern const spx__spmm_kernel spx__spmm_portable[2][2];
extern const spx__spmm_kernel spx__spmm_avx2[2][2];
extern const spx__spmm_kernel spx__spmm_avx512[2][2];

/* The table of the active instruction set (cpu/isa.h). */
const spx__spmm_kernel (*spx__spmm_kernels(void))[2];

#endif
