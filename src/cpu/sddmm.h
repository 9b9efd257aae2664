/* CPU SDDMM kernels (sddmm_body.h), one table per instruction set:
 * Z[e] = alpha * X(i, :) . Y(j, :) + beta * Z[e] for the entries e = (i, j)
 * of a CSR pattern, X and Y dense and row-major. The driver (csr.c) deals
 * entries to threads; these do the arithmetic.
 *
 * A dot of k products takes its columns in blocks of 4 vectors of 64 bytes
 * (the sums s0..s3, lane l of s_q taking columns c with c mod (4*LANES) =
 * q*LANES + l), then whole vectors into s0, then at most one vector of 32
 * bytes (h) and one of 16 (q), then the last columns one by one into a scalar
 * t; then s = (s0 + s1) + (s2 + s3), h = (s's low half + its high half) + h,
 * q = (h's low half + its high half) + q, q's 2 (fp64) or 4 (fp32) lanes
 * summed pairwise, plus t (the folds of vectors that took no columns, k
 * under 64 or 32 bytes of entries, skipped). The order depends on k alone (not on the
 * thread, the entry or the call), so Z is the same bits every call. */
#ifndef SPX_CPU_SDDMM_H
#define SPX_CPU_SDDMM_H

#include <stdint.h>

/* Entries ahead whose row of Y is prefetched, and at most how many of its
 * bytes; -D for experiments. */
#ifndef SPX__SDDMM_PF
#define SPX__SDDMM_PF 8
#endif
#ifndef SPX__SDDMM_PF_BYTES
#define SPX__SDDMM_PF_BYTES 512
#endif

typedef struct spx__sddmm_args {
    const void *rowptr; /* rows+1 offsets: int32_t when row_bits == 32, else int64_t */
    int row_bits;
    const void *col; /* int32_t, or int64_t when col_bits == 64 */
    int64_t k;
    double alpha, beta;
    const void *X; /* double for fp64 plans, float for fp32 */
    int64_t ldx;
    const void *Y;
    int64_t ldy;
    void *Z;
} spx__sddmm_args;

/* Entries [e0, e1) of Z; row i0 holds entry e0. */
typedef void (*spx__sddmm_kernel)(const spx__sddmm_args *a, int64_t i0, int64_t e0, int64_t e1);

/* [fp32][64-bit columns] */
extern const spx__sddmm_kernel spx__sddmm_portable[2][2];
extern const spx__sddmm_kernel spx__sddmm_avx2[2][2];
extern const spx__sddmm_kernel spx__sddmm_avx512[2][2];

/* The table of the active instruction set (cpu/isa.h). */
const spx__sddmm_kernel (*spx__sddmm_kernels(void))[2];

#endif
