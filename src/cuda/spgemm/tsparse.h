/* The CUDA `tsparse` SpGEMM (tSparse, ../shared/papers/tsparse-spgemm-tensor-cores.txt):
 * C = A*B on 8x8 bitmap tiles, tile products on the tensor cores.
 *
 * Tiles on the device (layout and bit math: cpu/tile8.h, shared with the host
 * model): tile t of a matrix is (row[t] = I, col[t] = J, bits[t], off[t]),
 * ordered by (I, J), ptr[I] the first tile of tile row I; its popcount(bits)
 * values start at off[t] in bit order. Built from CSR on the device
 * (tsparse_tiles.cu): a warp takes four tile rows, eight lanes each, a lane a
 * row; the eight rows are merged by tile column.
 *
 * A product, for the tile rows of A in one panel (tsparse_run.cu):
 * 1. tasks: for each tile (I, K) of A, the tiles (K, J) of B whose bitmap
 *    product is not empty (culling), counted, placed by a prefix sum (64-bit),
 *    written as (key J, value tile of A << 32 | tile of B), then sorted by J
 *    within each tile row I (CUB's stable segmented sort): tasks of one tile
 *    of C are adjacent, in increasing K (tsparse_tasks.cu);
 * 2. tiles of C: the heads of the runs of equal (I, J), selected by CUB;
 * 3. counting: each tile of C ORs the bitmap products of its tasks, which is
 *    its exact pattern; a prefix sum of the popcounts places its values;
 * 4. multiply (tsparse_mma.cu): a warp takes two tiles of C and runs their
 *    tasks side by side, one task of each per step. fp16: the two A tiles on
 *    the diagonal of one 16x16 fragment and the two B tiles stacked in a
 *    16x8 one, so that one mma.sync m16n8k16 (half in, fp32 accumulation)
 *    gives both 8x8 products; fp64: two DMMA m8n8k4 per tile product, four per
 *    step. Values are placed from the bitmaps into the fragments' registers;
 *    the shorter list of tasks is padded with empty tiles;
 * 5. compaction and CSR (tsparse_tiles.cu): entries whose value is exactly 0
 *    (cancellation, or zero inputs) are dropped, and the tiles become rows of
 *    C's CSR with sorted columns, then copied to the host.
 * Panels: when the task list or C of all of A does not fit the device's free
 * memory, the tile rows of A are cut into panels run one after the other
 * (an allocation that fails halves the panel); the plan's description says
 * how many the last product took. */
#ifndef SPX_CUDA_SPGEMM_TSPARSE_H
#define SPX_CUDA_SPGEMM_TSPARSE_H

#include <stdint.h>

#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A matrix in tiles on the device (values half for fp16 plans, else double). */
typedef struct spx__cuda_tiles {
    int64_t rows, cols, trows, tcols, ntiles, nnz;
    int64_t *ptr;   /* trows + 1 */
    int32_t *row;   /* ntiles: I */
    int32_t *col;   /* ntiles: J */
    uint64_t *bits; /* ntiles */
    int64_t *off;   /* ntiles: first value */
    void *val;      /* nnz */
} spx__cuda_tiles;

typedef struct spx__cuda_tsparse_plan {
    spx__cuda_tiles A;    /* device */
    int64_t *ptr_host;    /* A.trows + 1: A's tile row offsets on the host (panels) */
    spx_type precision;   /* SPX_F16 (half in, fp32 sums) or SPX_F64 */
    int a_exp;            /* F16: A's values were multiplied by 2^a_exp before rounding */
    int64_t panel_rows;   /* params panel_rows=N: rows of A a panel holds at most; 0: by memory */
    void *stream;         /* cudaStream_t (NULL: the default stream) */
    int last_panels;      /* panels of the last product (written atomically) */
} spx__cuda_tsparse_plan;

/* The tsparse gateway (src/cuda/spgemm/tsparse_run.cu):
 * - tiles: T = M's tiles on the device, values converted to precision (F16:
 *   half of 2^e v, the caller having checked that it fits; F64 double, e
 *   ignored); M has 32-bit columns, fewer than 2^31 tiles and tile rows
 *   (SPX_ERR_UNSUPPORTED otherwise); nothing stays allocated on failure; a
 *   device matrix M (spx_matrix_wrap_device, a GPU SpGEMM's C) is read in
 *   place;
 * - range: of a device matrix's values, the largest |v| that is finite, the
 *   smallest nonzero |v| (+infinity: none) and the first entry that is not
 *   finite (-1: none), for the checks the host makes of a host matrix;
 * - sampled_density: of a device matrix, the mean entries a non-empty 8x8
 *   tile over `samples` blocks of 8 rows evenly spaced (AUTO);
 * - tiles_free: releases T's arrays and zeroes *T;
 * - multiply: *C = A*B as a host CSR matrix (fp64, sorted columns, exact
 *   zeros dropped; F16: B's values scaled by 2^b_exp, C's sums by
 *   2^-(a_exp + b_exp)); *panels the panels it took. A device B gives a
 *   device C (64-bit offsets, fp64 values, arrays from SpX's pool), made in
 *   one panel: SPX_ERR_OOM when that does not fit. */
#define SPX__CUDA_TSPARSE_API(S, Q, V)                                                             \
    S(spx__cuda_tsparse_tiles,                                                                     \
      (const spx_matrix *M, spx_type precision, int e, void *stream, spx__cuda_tiles *T))          \
    V(spx__cuda_tsparse_tiles_free, (spx__cuda_tiles * T))                                         \
    S(spx__cuda_tsparse_range, (const spx_matrix *M, double *big, double *small, int64_t *bad))    \
    S(spx__cuda_tsparse_sampled_density, (const spx_matrix *M, int64_t samples, double *density))  \
    S(spx__cuda_tsparse_multiply, (const spx__cuda_tsparse_plan *p, const spx_matrix *B,           \
                                   int b_exp, spx_matrix **C, int *panels))

SPX__CUDA_DECLARE(SPX__CUDA_TSPARSE_API)

#ifdef __cplusplus
}
#endif
#endif
