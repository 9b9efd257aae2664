/* Distributed vectors whole on one rank and back (spx_mpi.h): the owned
 * ranges of the layout's rows or columns, gathered or scattered with
 * MPI_Gatherv / MPI_Scatterv. */
#include <limits.h>

#include "core/alloc.h"
#include "core/error.h"
#include "multi/mpi/dist.h"

/* Counts and displacements of every rank's range on the axis; local checks. */
static spx_status layout_of(const spx_dist_matrix *D, spx_dist_axis axis, spx_type t, int root,
                            int **count, int **displ)
{
    spx_status st;
    const int64_t *start = axis == SPX_DIST_ROWS ? D->row_start : D->col_start;
    if ((axis != SPX_DIST_ROWS && axis != SPX_DIST_COLS) || (t != SPX_F64 && t != SPX_F32) ||
        root < 0 || root >= D->size)
        return spx__error(SPX_ERR_INVALID_ARG, "gather/scatter: bad axis, type or root");
    if (start[D->size] > INT_MAX)
        return spx__error(SPX_ERR_OVERFLOW, "a vector of %lld entries does not fit MPI counts",
                          (long long)start[D->size]);
    SPX_TRY(spx__alloc((void **)count, 2 * (size_t)D->size, sizeof **count, "gather counts"));
    *displ = *count + D->size;
    for (int r = 0; r < D->size; r++) {
        (*count)[r] = (int)(start[r + 1] - start[r]);
        (*displ)[r] = (int)start[r];
    }
cleanup:
    return st;
}

static spx_status check_matrix(const spx_dist_matrix *D)
{
    if (!D || D->magic != SPX__DIST_MATRIX_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "distributed matrix handle is NULL, freed or wrong");
    return SPX_OK;
}

spx_status spx_dist_gather(const spx_dist_matrix *D, spx_dist_axis axis, spx_type t,
                           const void *local, void *global, int root)
{
    int *count = NULL, *displ = NULL;
    spx_status st = check_matrix(D);
    if (st != SPX_OK) return st;
    SPX_TRY(spx__dist_agree(D->comm, layout_of(D, axis, t, root, &count, &displ)));
    MPI_Datatype type = spx__dist_type(t);
    st = spx__dist_mpi(MPI_Gatherv(local, count[D->rank], type, global, count, displ, type, root,
                                   D->comm),
                       "MPI_Gatherv");
    st = spx__dist_agree(D->comm, st);
cleanup:
    spx__free(count);
    return st;
}

spx_status spx_dist_scatter(const spx_dist_matrix *D, spx_dist_axis axis, spx_type t,
                            const void *global, void *local, int root)
{
    int *count = NULL, *displ = NULL;
    spx_status st = check_matrix(D);
    if (st != SPX_OK) return st;
    SPX_TRY(spx__dist_agree(D->comm, layout_of(D, axis, t, root, &count, &displ)));
    MPI_Datatype type = spx__dist_type(t);
    st = spx__dist_mpi(MPI_Scatterv(global, count, displ, type, local, count[D->rank], type, root,
                                    D->comm),
                       "MPI_Scatterv");
    st = spx__dist_agree(D->comm, st);
cleanup:
    spx__free(count);
    return st;
}
