/* Distributed matrices (spx_mpi.h, dist.h): the shape checks, a duplicate
 * communicator, the owned ranges, and the part taken from a matrix every
 * rank holds. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "multi/mpi/dist.h"

spx_status spx__dist_check_shape(int size, spx_partition kind, int64_t rows, int64_t cols)
{
    if ((unsigned)kind > (unsigned)SPX_PART_ROWS)
        return spx__error(SPX_ERR_INVALID_ARG, "unknown partition kind %d", (int)kind);
    int64_t lines = kind == SPX_PART_PCSC ? cols : rows;
    if (size > 1 && size > lines)
        return spx__error(SPX_ERR_INVALID_ARG, "%d ranks for a matrix of %lld %s: at most one rank "
                          "per %s", size, (long long)lines, kind == SPX_PART_PCSC ? "columns" : "rows",
                          kind == SPX_PART_PCSC ? "column" : "row");
    return SPX_OK;
}

spx_status spx__dist_matrix_new(MPI_Comm comm, spx_partition kind, int64_t rows, int64_t cols,
                                int64_t nnz, spx_dist_matrix **out)
{
    spx_dist_matrix *D = NULL;
    spx_status st = spx__calloc((void **)&D, 1, sizeof *D, "distributed matrix");
    if ((st = spx__dist_agree(comm, st)) != SPX_OK) goto cleanup;
    D->comm = MPI_COMM_NULL;
    st = spx__dist_mpi(MPI_Comm_dup(comm, &D->comm), "MPI_Comm_dup");
    if ((st = spx__dist_agree(comm, st)) != SPX_OK) goto cleanup;
    MPI_Comm_set_errhandler(D->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(D->comm, &D->rank);
    MPI_Comm_size(D->comm, &D->size);
    D->magic = SPX__DIST_MATRIX_MAGIC;
    D->kind = kind;
    D->rows = rows;
    D->cols = cols;
    D->nnz = nnz;
    *out = D;
    return SPX_OK;
cleanup:
    if (D && D->comm != MPI_COMM_NULL) MPI_Comm_free(&D->comm);
    spx__free(D);
    return st;
}

/* Equal blocks of len over the ranks: the other axis of a rectangular matrix. */
static void equal_blocks(int64_t *start, int size, int64_t len)
{
    for (int r = 0; r <= size; r++) start[r] = spx__part_cut(len, size, r);
}

spx_status spx__dist_ranges(spx_dist_matrix *D)
{
    spx_status st;
    int pcsc = D->kind == SPX_PART_PCSC;
    int64_t mine = D->part.line_begin + D->part.shared_first;
    int64_t **cut = pcsc ? &D->col_start : &D->row_start, **other = pcsc ? &D->row_start : &D->col_start;
    int64_t cut_len = pcsc ? D->cols : D->rows, other_len = pcsc ? D->rows : D->cols;
    SPX_TRY(spx__alloc((void **)cut, (size_t)D->size + 1, sizeof **cut, "owned ranges"));
    SPX_TRY(spx__alloc((void **)other, (size_t)D->size + 1, sizeof **other, "owned ranges"));
    SPX__MPI_TRY(MPI_Allgather(&mine, 1, MPI_INT64_T, *cut, 1, MPI_INT64_T, D->comm));
    (*cut)[D->size] = cut_len;
    if (other_len == cut_len)
        memcpy(*other, *cut, sizeof **cut * ((size_t)D->size + 1));
    else
        equal_blocks(*other, D->size, other_len);
cleanup:
    return st;
}

/* This rank's part of M (A, or A^T for pcsc), a view into it. */
static spx_status take_part(spx_dist_matrix *D, const spx_matrix *A)
{
    spx_status st = SPX_OK;
    const spx_matrix *M = A;
    if (D->kind == SPX_PART_PCSC) {
        SPX_TRY(spx_matrix_transpose(A, &D->source));
        M = D->source;
    }
    if (D->kind == SPX_PART_PCOO) {
        SPX_TRY(spx__alloc((void **)&D->coo_lines, (size_t)M->nnz, sizeof(int64_t), "pcoo row indices"));
        for (int64_t i = 0; i < M->rows; i++)
            for (int64_t k = spx__row_off(M, i); k < spx__row_off(M, i + 1); k++)
                D->coo_lines[k] = i;
    }
    spx__part_bounds(M, D->coo_lines, D->kind, D->size, D->rank, &D->part);
    SPX_TRY(spx__part_build(M, D->coo_lines, &D->part));
cleanup:
    return st;
}

spx_status spx_dist_matrix_from_global(MPI_Comm comm, const spx_matrix *A, spx_partition kind,
                                       spx_dist_matrix **out)
{
    spx_dist_matrix *D = NULL;
    int size = 1;
    if (comm == MPI_COMM_NULL) return spx__error(SPX_ERR_INVALID_ARG, "communicator is MPI_COMM_NULL");
    spx_status st = out ? spx__check_matrix(A, "spx_dist_matrix_from_global")
                        : spx__error(SPX_ERR_INVALID_ARG, "output matrix pointer is NULL");
    if (out) *out = NULL;
    MPI_Comm_size(comm, &size);
    if (st == SPX_OK) st = spx__dist_check_shape(size, kind, A->rows, A->cols);
    if ((st = spx__dist_agree(comm, st)) != SPX_OK) return st;
    SPX_TRY(spx__dist_matrix_new(comm, kind, A->rows, A->cols, A->nnz, &D));
    st = take_part(D, A);
    if (st == SPX_OK) st = spx__dist_ranges(D);
    SPX_TRY(spx__dist_agree(D->comm, st));
    *out = D;
    spx__clear_error();
    return SPX_OK;
cleanup:
    spx_dist_matrix_destroy(D);
    return st;
}

void spx_dist_matrix_destroy(spx_dist_matrix *D)
{
    if (!D || D->magic != SPX__DIST_MATRIX_MAGIC) return;
    spx__part_free(&D->part);
    spx_matrix_destroy(D->source);
    spx__free(D->coo_lines);
    spx__free(D->row_start);
    spx__free(D->col_start);
    MPI_Comm_free(&D->comm);
    D->magic = 0;
    spx__free(D);
}

spx_status spx_dist_matrix_layout(const spx_dist_matrix *D, spx_dist_layout *l)
{
    if (!D || D->magic != SPX__DIST_MATRIX_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "distributed matrix handle is NULL, freed or wrong");
    if (!l) return spx__error(SPX_ERR_INVALID_ARG, "spx_dist_matrix_layout: NULL output");
    l->rows = D->rows;
    l->cols = D->cols;
    l->nnz = D->nnz;
    l->row_begin = D->row_start[D->rank];
    l->row_end = D->row_start[D->rank + 1];
    l->col_begin = D->col_start[D->rank];
    l->col_end = D->col_start[D->rank + 1];
    l->local_nnz = D->part.nz_end - D->part.nz_begin;
    l->rank = D->rank;
    l->size = D->size;
    return SPX_OK;
}
