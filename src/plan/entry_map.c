/* spx__entry_map_build (entry_map.h). Transposition: A^T's CSR is A's
 * entries ordered by column, then by row (a stable counting sort by
 * column), so entry e of column c lands at the next free place of row c of
 * A^T. Ordering: the map recorded (or computed) by the reorder
 * (spx__reorder_entry_map) for the matrix it ordered; after a transposition
 * the two compose. */
#include "plan/entry_map.h"

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"

/* map[e] = the index of A's entry e in A^T's CSR order. */
static spx_status transpose_map(const spx_matrix *A, int32_t *map)
{
    int64_t *next = NULL;
    spx_status st;
    SPX_TRY(spx__calloc((void **)&next, (size_t)A->cols + 1, sizeof *next,
                        "the plan's entry map: column starts"));
    for (int64_t e = 0; e < A->nnz; e++) /* column counts, shifted by one */
        next[spx__col(A, e) + 1]++;
    for (int64_t c = 0; c < A->cols; c++)
        next[c + 1] += next[c];
    for (int64_t e = 0; e < A->nnz; e++)
        map[e] = (int32_t)next[spx__col(A, e)]++;
cleanup:
    spx__free(next);
    return st;
}

/* map[e] = where the ordering R put entry e of A (transpose: of A^T, whose
 * entries map already places). */
static spx_status order_map(const spx_matrix *A, int transpose, const spx__reorder *R, int threads,
                            int32_t *map)
{
    spx_matrix *T = NULL;
    int32_t *ordered = NULL;
    spx_status st;
    if (!transpose) return spx__reorder_entry_map(R, A, threads, map);
    SPX_TRY(spx_matrix_transpose(A, &T));
    SPX_TRY(spx__alloc((void **)&ordered, (size_t)(A->nnz > 0 ? A->nnz : 1), sizeof *ordered,
                       "the plan's entry map: the ordering's"));
    SPX_TRY(spx__reorder_entry_map(R, T, threads, ordered));
    for (int64_t e = 0; e < A->nnz; e++)
        map[e] = ordered[map[e]];
cleanup:
    spx_matrix_destroy(T);
    spx__free(ordered);
    return st;
}

spx_status spx__entry_map_build(const spx_matrix *A, int transpose, const spx__reorder *R,
                                int threads, int32_t **map)
{
    spx_status st;
    *map = NULL;
    if (A->nnz > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "spx_plan_update_values: a plan of op T or reorder= holds at most "
                          "2^31 - 1 entries to take new values, not %lld; make a new plan",
                          (long long)A->nnz);
    SPX_TRY(spx__alloc((void **)map, (size_t)(A->nnz > 0 ? A->nnz : 1), sizeof **map,
                       "the plan's entry map"));
    if (transpose) SPX_TRY(transpose_map(A, *map));
    if (spx__reorder_has_order(R)) SPX_TRY(order_map(A, transpose, R, threads, *map));
    return SPX_OK;
cleanup:
    spx__free(*map);
    *map = NULL;
    return st;
}
