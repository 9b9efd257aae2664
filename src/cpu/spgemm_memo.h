/* gustavson's memo of a product for spx_spgemm_numeric (spgemm_memo.c): for
 * each entry of C, the entries of A and B whose products it sums, so that a
 * numeric call is one pass over those lists. */
#ifndef SPX_CPU_SPGEMM_MEMO_H
#define SPX_CPU_SPGEMM_MEMO_H

#include <stdint.h>

#include "spx.h"

/* C's values for A*B from C's memo, built first where C holds none for
 * (serial, B's pattern); threads 0: OpenMP's default. *handled 0 (C
 * untouched, SPX_OK) where no memo can be had: counts past 2^32, or its
 * memory refused; the caller then gathers. SPX_ERR_INVALID_ARG (C
 * untouched) where A*B's pattern is not C's. */
spx_status spx__cpu_spgemm_memo(const spx_matrix *A, const spx_matrix *B, spx_matrix *C,
                                uint64_t serial, int threads, int *handled);

/* A memo's memory (spx_matrix_destroy). */
void spx__cpu_memo_free(void *memo);

#endif
