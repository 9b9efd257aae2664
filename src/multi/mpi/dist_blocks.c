/* A distributed plan's four blocks (dist.h): each nonzero of the rank's part
 * goes to the block of where its row and its column are owned, with rows
 * renumbered (own: row - row_begin; elsewhere: rank among such rows, in
 * global order) and columns too (own: col - col_begin; halo: rank among halo
 * columns, in global order). Entries keep their order within a row, so the
 * blocks' rows stay sorted. Dense maps over the global rows and columns
 * (vector-sized, freed on return) do the renumbering. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "multi/mpi/dist.h"

typedef struct block_maps {
    int64_t yb, ye, xb, xe;  /* owned rows and columns */
    int64_t *row_map;        /* global row -> index among rows owned elsewhere, or -1 */
    int64_t *col_map;        /* global column -> halo index, or -1 */
    int64_t *fill[SPX__DIST_BLOCKS]; /* next free entry of each block row */
} block_maps;

/* Global row and column of entry k of line j of the part. */
static void global_rc(const spx_dist_matrix *D, int64_t j, int64_t k, int64_t *r, int64_t *c)
{
    int64_t line = D->part.line_begin + j, other = spx__col(D->part.view, k);
    *r = D->kind == SPX_PART_PCSC ? other : line;
    *c = D->kind == SPX_PART_PCSC ? line : other;
}

/* Mark rows and columns owned elsewhere, then number them in global order. */
static spx_status number_outside(const spx_dist_matrix *D, block_maps *m, int64_t *nf, int64_t *nh,
                                 int64_t **foreign, int64_t **halo)
{
    spx_status st;
    const spx_matrix *v = D->part.view;
    for (int64_t j = 0; j < v->rows; j++)
        for (int64_t k = v->rowptr[j]; k < v->rowptr[j + 1]; k++) {
            int64_t r, c;
            global_rc(D, j, k, &r, &c);
            if (r < m->yb || r >= m->ye) m->row_map[r] = 0;
            if (c < m->xb || c >= m->xe) m->col_map[c] = 0;
        }
    *nf = *nh = 0;
    for (int64_t r = 0; r < D->rows; r++) *nf += m->row_map[r] == 0;
    for (int64_t c = 0; c < D->cols; c++) *nh += m->col_map[c] == 0;
    SPX_TRY(spx__alloc((void **)foreign, (size_t)*nf, sizeof **foreign, "rows owned elsewhere"));
    SPX_TRY(spx__alloc((void **)halo, (size_t)*nh, sizeof **halo, "halo columns"));
    for (int64_t r = 0, n = 0; r < D->rows; r++)
        if (m->row_map[r] == 0) (*foreign)[n] = r, m->row_map[r] = n++;
    for (int64_t c = 0, n = 0; c < D->cols; c++)
        if (m->col_map[c] == 0) (*halo)[n] = c, m->col_map[c] = n++;
cleanup:
    return st;
}

/* Block, row and column of a nonzero in the renumbered blocks. */
static int place(const block_maps *m, int64_t r, int64_t c, int64_t *br, int64_t *bc)
{
    int own_r = r >= m->yb && r < m->ye, own_c = c >= m->xb && c < m->xe;
    *br = own_r ? r - m->yb : m->row_map[r];
    *bc = own_c ? c - m->xb : m->col_map[c];
    return own_r ? (own_c ? SPX__DIST_OO : SPX__DIST_OH) : (own_c ? SPX__DIST_FO : SPX__DIST_FH);
}

/* Pass `fill` 0 counts each block row's entries into fill[b][row + 1];
 * pass 1 writes the entries at fill[b][row]++. */
static void scan(const spx_dist_matrix *D, block_maps *m, spx_matrix **blk, int fill)
{
    const spx_matrix *v = D->part.view;
    for (int64_t j = 0; j < v->rows; j++)
        for (int64_t k = v->rowptr[j]; k < v->rowptr[j + 1]; k++) {
            int64_t r, c, br, bc;
            global_rc(D, j, k, &r, &c);
            int b = place(m, r, c, &br, &bc);
            if (!fill) {
                m->fill[b][br + 1]++;
                continue;
            }
            int64_t at = m->fill[b][br]++;
            if (blk[b]->col_bits == 32)
                blk[b]->col32[at] = (int32_t)bc;
            else
                blk[b]->col64[at] = bc;
            if (v->vtype == SPX_F64)
                ((double *)blk[b]->values)[at] = ((const double *)v->values)[k];
            else
                ((float *)blk[b]->values)[at] = ((const float *)v->values)[k];
        }
}

/* Blocks sized from the counts; fill[] turned into each row's start. */
static spx_status alloc_blocks(spx_dist_plan *P, block_maps *m)
{
    spx_status st = SPX_OK;
    const int64_t rows[] = {P->own_rows, P->own_rows, P->foreign, P->foreign};
    const int64_t cols[] = {P->own_cols, P->halo, P->own_cols, P->halo};
    for (int b = 0; b < SPX__DIST_BLOCKS; b++) {
        int64_t *f = m->fill[b];
        for (int64_t i = 0; i < rows[b]; i++) f[i + 1] += f[i];
        SPX_TRY(spx__matrix_alloc(rows[b], cols[b], f[rows[b]], P->D->part.view->vtype, &P->block[b]));
        memcpy(P->block[b]->rowptr, f, sizeof *f * (size_t)(rows[b] + 1));
    }
cleanup:
    return st;
}

spx_status spx__dist_blocks(spx_dist_plan *P, int64_t **halo_cols, int64_t **foreign_rows)
{
    const spx_dist_matrix *D = P->D;
    block_maps m;
    spx_status st;
    memset(&m, 0, sizeof m);
    m.yb = D->row_start[D->rank];
    m.ye = D->row_start[D->rank + 1];
    m.xb = D->col_start[D->rank];
    m.xe = D->col_start[D->rank + 1];
    P->own_rows = m.ye - m.yb;
    P->own_cols = m.xe - m.xb;
    SPX_TRY(spx__alloc((void **)&m.row_map, (size_t)D->rows, sizeof *m.row_map, "row map"));
    SPX_TRY(spx__alloc((void **)&m.col_map, (size_t)D->cols, sizeof *m.col_map, "column map"));
    memset(m.row_map, 0xff, sizeof *m.row_map * (size_t)D->rows);
    memset(m.col_map, 0xff, sizeof *m.col_map * (size_t)D->cols);
    SPX_TRY(number_outside(D, &m, &P->foreign, &P->halo, foreign_rows, halo_cols));
    for (int b = 0; b < SPX__DIST_BLOCKS; b++) {
        int64_t n = b < SPX__DIST_FO ? P->own_rows : P->foreign;
        SPX_TRY(spx__calloc((void **)&m.fill[b], (size_t)n + 1, sizeof(int64_t), "block counts"));
    }
    scan(D, &m, P->block, 0);
    SPX_TRY(alloc_blocks(P, &m));
    scan(D, &m, P->block, 1);
cleanup:
    spx__free(m.row_map);
    spx__free(m.col_map);
    for (int b = 0; b < SPX__DIST_BLOCKS; b++) spx__free(m.fill[b]);
    return st;
}
