/* 8x8 bitmap tiles (tSparse's storage) on the host, and the bit math the
 * host and the device share (src/cuda/spgemm/tsparse_*.cu include this header).
 *
 * Layout. Tile (I, J) holds rows 8I..8I+7 and columns 8J..8J+7 of a matrix;
 * only tiles holding an entry are stored, ordered by (I, J). Its bitmap has
 * bit 8r + c set when entry (8I + r, 8J + c) is stored: row r of the tile is
 * byte r. Its values follow in bit order (row by row, columns increasing),
 * so the value of bit b sits popcount(bitmap & (2^b - 1)) after the tile's
 * first value, and the tiles of tile row I hold exactly the entries of rows
 * 8I..8I+7, in CSR's order of rows and columns.
 *
 * Bitmap product. The pattern of the 8x8 product of tiles a and b is
 *   P(a, b) = OR over k of (the rows r with a[r][k]) x (row k of b),
 * row r of P being the OR of the rows k of b whose a[r][k] is set. P is empty
 * exactly when no column of a holding an entry meets a row of b holding one,
 * cols(a) & rows(b) == 0: tSparse's culling test. The pattern of a tile of
 * C = A*B is the OR of P over the pairs (A tile (I, K), B tile (K, J)).
 *
 * Tasks (spx__tile8_tasks_build): for each tile (I, J) of C the pairs of
 * tiles of A and B whose product is not empty, grouped by tile of C in the
 * order (I, J), each group in increasing K: the order of tSparse's task list
 * after its segmented, stable sort per tile row of A. */
#ifndef SPX_CPU_TILE8_H
#define SPX_CPU_TILE8_H

#include <stdint.h>

#ifdef __CUDACC__
#define SPX__TILE8_FN static __host__ __device__ __forceinline__
#else
#define SPX__TILE8_FN static inline
#endif

#define SPX__TILE8_ONES 0x0101010101010101ull /* bit 0 of every byte */

SPX__TILE8_FN int spx__tile8_popc(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return __popcll(x);
#else
    return __builtin_popcountll(x);
#endif
}

/* Position of bit b's value among the tile's values. */
SPX__TILE8_FN int spx__tile8_rank(uint64_t bits, int b)
{
    return spx__tile8_popc(bits & ((1ull << b) - 1ull));
}

/* Bit k set when column k of the tile holds an entry: the OR of its bytes. */
SPX__TILE8_FN unsigned spx__tile8_cols(uint64_t a)
{
    uint64_t x = a | a >> 32;
    x |= x >> 16;
    x |= x >> 8;
    return (unsigned)(x & 0xffu);
}

/* Bit k set when row k of the tile holds an entry. Folding each byte onto its
 * low bit leaves bit 8k = (byte k != 0); the multiply gathers bit 8k to bit
 * 56 + k (the terms land on distinct bits, so nothing carries). */
SPX__TILE8_FN unsigned spx__tile8_rows(uint64_t b)
{
    uint64_t t = b | b >> 4;
    t |= t >> 2;
    t |= t >> 1;
    t &= SPX__TILE8_ONES;
    return (unsigned)((t * 0x0102040810204080ull) >> 56);
}

/* tSparse's culling test: 1 when the product of tiles a and b is empty. */
SPX__TILE8_FN int spx__tile8_culled(uint64_t a, uint64_t b)
{
    return (spx__tile8_cols(a) & spx__tile8_rows(b)) == 0;
}

/* P(a, b): (a >> k) & ONES marks bit 8r where a[r][k] is set, and times 0xff
 * fills byte r; row k of b times ONES copies it into every byte. */
SPX__TILE8_FN uint64_t spx__tile8_product(uint64_t a, uint64_t b)
{
    uint64_t p = 0;
    for (int k = 0; k < 8; k++) {
        const uint64_t rows_r = ((a >> k) & SPX__TILE8_ONES) * 0xffull;
        const uint64_t row_k = ((b >> (8 * k)) & 0xffull) * SPX__TILE8_ONES;
        p |= rows_r & row_k;
    }
    return p;
}

#ifndef __CUDACC__
#include "spx.h"

/* A matrix in tiles, on the host. */
typedef struct spx__tile8 {
    int64_t rows, cols;     /* of the matrix */
    int64_t trows, tcols;   /* tile rows and columns: ceil(rows / 8), ceil(cols / 8) */
    int64_t ntiles;
    int64_t *ptr;           /* trows + 1: the first tile of each tile row */
    int64_t *col;           /* ntiles: J of each tile */
    uint64_t *bits;         /* ntiles bitmaps */
    int64_t *off;           /* ntiles + 1: the first value of each tile */
    double *val;            /* nnz values in tile order, or NULL (pattern only) */
} spx__tile8;

/* A's tiles; with_values 0: the pattern only. On failure nothing stays
 * allocated and *T is zeroed. */
spx_status spx__tile8_from_csr(const spx_matrix *A, int with_values, spx__tile8 *T);
/* Back to CSR with fp64 values (ones for a pattern), every bit an entry. */
spx_status spx__tile8_to_csr(const spx__tile8 *T, spx_matrix **A);
void spx__tile8_free(spx__tile8 *T); /* zeroes *T */

/* The task list of C = A*B (see above). */
typedef struct spx__tile8_tasks {
    int64_t pairs;      /* tile pairs (I, K) x (K, J) before culling */
    int64_t n;          /* tasks: the pairs left after culling */
    int64_t *a, *b;     /* n: the tile of A and of B of each task */
    int64_t nc;         /* tiles of C */
    int64_t *cstart;    /* nc + 1: the first task of each tile of C */
    int64_t *crow, *ccol;  /* nc: I and J of each tile of C */
    uint64_t *cbits;    /* nc: its pattern, the OR of its tasks' products */
} spx__tile8_tasks;

/* Build the task list of A*B from their tiles (A->tcols == B->trows). On
 * failure nothing stays allocated and *L is zeroed. */
spx_status spx__tile8_tasks_build(const spx__tile8 *A, const spx__tile8 *B, spx__tile8_tasks *L);
void spx__tile8_tasks_free(spx__tile8_tasks *L); /* zeroes *L */

/* What the task list of A*B would hold, without storing it: pairs before and
 * after culling, tiles of C and their entries (the popcounts of their
 * patterns, which is nnz of the symbolic product). */
typedef struct spx__tile8_counts {
    int64_t pairs, tasks, ctiles, cnnz;
} spx__tile8_counts;
spx_status spx__tile8_count(const spx__tile8 *A, const spx__tile8 *B, spx__tile8_counts *c);
#endif

#endif
