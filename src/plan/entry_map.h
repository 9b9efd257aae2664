/* Where A's entries went when the plan layer handed its format another
 * matrix than A (op T: A^T; reorder=: P op(A) P^T, plan/reorder.h): what
 * spx_plan_update_values needs to give the format its values in the order
 * it saw them. */
#ifndef SPX_PLAN_ENTRY_MAP_H
#define SPX_PLAN_ENTRY_MAP_H

#include <stdint.h>

#include "plan/reorder.h"
#include "spx.h"

/* *map (A's nnz entries, spx__free) with map[e] = the index, in the CSR
 * order of the matrix the format prepared, of A's entry e, for a plan that
 * transposed A (transpose nonzero) and then ordered it with R (NULL, or no
 * ordering: none). SPX_ERR_UNSUPPORTED past INT32_MAX entries. */
spx_status spx__entry_map_build(const spx_matrix *A, int transpose, const spx__reorder *R,
                                int threads, int32_t **map);

#endif
