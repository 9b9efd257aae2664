/* spx__entry_map_build (entry_map.h): a copy of A whose values are its
 * entries' indices 0, 1, ..., nnz-1 goes through the plan's transposition and
 * ordering; the values that come out, read in the result's CSR order, say
 * where each entry went. Indices below 2^53 are exact in double and the
 * transformations move values without arithmetic. */
#include "plan/entry_map.h"

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"

spx_status spx__entry_map_build(const spx_matrix *A, int transpose, const spx__reorder *R,
                                int threads, int64_t **map)
{
    spx_matrix *I = NULL, *T = NULL, *O = NULL;
    const spx_matrix *M;
    spx_status st;
    *map = NULL;
    SPX_TRY(spx_matrix_copy(A, SPX_F64, &I));
    double *index = I->values;
    for (int64_t e = 0; e < I->nnz; e++)
        index[e] = (double)e;
    M = I;
    if (transpose) {
        SPX_TRY(spx_matrix_transpose(I, &T));
        M = T;
    }
    if (R && spx__reorder_has_order(R)) {
        SPX_TRY(spx__reorder_apply(R, M, threads, &O));
        M = O;
    }
    SPX_TRY(spx__alloc((void **)map, (size_t)(A->nnz > 0 ? A->nnz : 1), sizeof **map,
                       "the plan's entry map"));
    const double *moved = M->values;
    for (int64_t k = 0; k < M->nnz; k++) /* entry moved[k] of A sits at k */
        (*map)[(int64_t)moved[k]] = k;
cleanup:
    spx_matrix_destroy(I);
    spx_matrix_destroy(T);
    spx_matrix_destroy(O);
    return st;
}
