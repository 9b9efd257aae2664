/* Symmetric orderings of a square matrix: a permutation P of its rows and
 * columns, given as perm[k] = the original index of new row (and column) k,
 * and B = P A P^T, whose row k is row perm[k] of A with every column c
 * renamed inv[c] (inv[perm[k]] = k). Used by plans with reorder=rcm|degree
 * (src/plan/reorder.c) and by the bench's gather bound. */
#ifndef SPX_CORE_ORDER_H
#define SPX_CORE_ORDER_H

#include <stdint.h>

#include "spx.h"

typedef enum spx__order_mode {
    SPX__ORDER_NONE = 0,  /* identity */
    SPX__ORDER_RCM = 1,   /* reverse Cuthill-McKee on the pattern of A + A^T */
    SPX__ORDER_DEGREE = 2 /* decreasing degree (row plus column entries), ties by index */
} spx__order_mode;

/* "none", "rcm", "degree" to a mode; SPX_ERR_BAD_PARAM naming the value otherwise. */
spx_status spx__order_parse(const char *value, spx__order_mode *mode);
const char *spx__order_name(spx__order_mode mode);

/* perm (A->rows entries, caller's) for mode, with threads OpenMP threads (0:
 * OpenMP's default) where parallel. A must be square (SPX_ERR_BAD_PARAM) with
 * fewer than 2^31 rows (SPX_ERR_UNSUPPORTED). */
spx_status spx__order_compute(const spx_matrix *A, spx__order_mode mode, int threads,
                              int64_t *perm);

/* *B = P A P^T as a new matrix (rows sorted, A's value type). perm must be a
 * bijection of 0..rows-1 (spx__order_check). */
spx_status spx__order_permute(const spx_matrix *A, const int64_t *perm, int threads,
                              spx_matrix **B);
/* The same, and map[e] = the index in B's CSR order of A's entry e (nnz
 * entries, the caller's; A->nnz <= INT32_MAX): what spx_plan_update_values
 * needs of an ordered plan (plan/entry_map.h), at no extra pass. */
spx_status spx__order_permute_mapped(const spx_matrix *A, const int64_t *perm, int threads,
                                     spx_matrix **B, int32_t *map);

/* SPX_OK when perm[0..n) is a bijection of 0..n-1, else SPX_ERR_INVALID_ARG
 * naming the first entry out of range or repeated. */
spx_status spx__order_check(const int64_t *perm, int64_t n);

/* count[c] = the entries of column c of A (32-bit columns), c < A->cols, on
 * threads OpenMP threads (0: OpenMP's default) for large matrices. */
void spx__column_counts(const spx_matrix *A, int threads, int64_t *count);

/* The share of A's nonzeros in its 1% of columns with the most entries
 * (A->cols / 100 columns; R-MAT 0.4-0.5, uniform columns 0.02); -1 when it
 * cannot be counted (64-bit columns, a device matrix, no memory for cols
 * counters). */
double spx__hot_share(const spx_matrix *A, int threads);
/* The same from every ceil(nnz / samples)-th entry alone, on this thread (all
 * of them up to `samples`): O(samples) random counts instead of O(nnz). It
 * reads high where columns are even, as the top 1% of sampled counts hold
 * chance too, the more so the fewer samples a column: 4 a column read 0.026
 * for the power-law generator (0.017 exact), 0.5 a column 0.063; R-MAT
 * within 0.01 either way. */
double spx__hot_share_sampled(const spx_matrix *A, int64_t samples);

/* max |i - j| over the entries (i, j) of A; 0 for no entries. */
int64_t spx__order_bandwidth(const spx_matrix *A);

#endif
