/* MSREP partitions: boundaries and local offsets of one part (the layout and
 * the rules are in partition.h). Each part is computed from its own cut
 * points only, so the parts of a matrix are built in parallel, one thread per
 * part. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "multi/partition.h"

int64_t spx__part_cut(int64_t nnz, int parts, int i)
{
    int64_t q = nnz / parts, r = nnz % parts;
    return q * i + r * i / parts;
}

/* L(s): the first line whose offset is >= s (binary search of the offsets,
 * or, for a row-sorted COO, one past the line of nonzero s-1). */
static int64_t first_line_at(const spx_matrix *M, const int64_t *coo_lines, int64_t s)
{
    if (coo_lines) return s == 0 ? 0 : coo_lines[s - 1] + 1;
    int64_t lo = 0, hi = M->rows;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (spx__row_off(M, mid) >= s)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Whether nonzero s lies inside a line (after that line's first nonzero). */
static int splits_line(const spx_matrix *M, const int64_t *coo_lines, int64_t s)
{
    if (s == 0 || s >= M->nnz) return 0;
    if (coo_lines) return coo_lines[s] == coo_lines[s - 1];
    return spx__row_off(M, first_line_at(M, NULL, s)) > s;
}

void spx__part_bounds(const spx_matrix *M, const int64_t *coo_lines, spx_partition kind,
                      int parts, int i, spx__part *p)
{
    memset(p, 0, sizeof *p);
    if (kind == SPX_PART_ROWS) {
        p->line_begin = spx__part_cut(M->rows, parts, i);
        p->line_end = spx__part_cut(M->rows, parts, i + 1);
        p->nz_begin = spx__row_off(M, p->line_begin);
        p->nz_end = spx__row_off(M, p->line_end);
        return;
    }
    int64_t s = spx__part_cut(M->nnz, parts, i), e = spx__part_cut(M->nnz, parts, i + 1);
    p->nz_begin = s;
    p->nz_end = e;
    p->shared_first = splits_line(M, coo_lines, s);
    p->shared_last = i + 1 < parts && splits_line(M, coo_lines, e);
    p->line_begin = first_line_at(M, coo_lines, s) - p->shared_first;
    p->line_end = i + 1 < parts ? first_line_at(M, coo_lines, e) : M->rows;
}

/* Local offsets from the source's offsets, clamped to the part's nonzeros. */
static void offsets_from_ptr(const spx_matrix *M, spx__part *p)
{
    int64_t n = p->line_end - p->line_begin, len = p->nz_end - p->nz_begin;
    for (int64_t j = 0; j <= n; j++) {
        int64_t o = spx__row_off(M, p->line_begin + j) - p->nz_begin;
        p->ptr[j] = o < 0 ? 0 : o > len ? len : o;
    }
}

/* Local offsets by counting the part's COO line indices. */
static void offsets_from_coo(const int64_t *coo_lines, spx__part *p)
{
    int64_t n = p->line_end - p->line_begin;
    memset(p->ptr, 0, (size_t)(n + 1) * sizeof *p->ptr);
    for (int64_t k = p->nz_begin; k < p->nz_end; k++) p->ptr[coo_lines[k] - p->line_begin + 1]++;
    for (int64_t j = 0; j < n; j++) p->ptr[j + 1] += p->ptr[j];
}

spx_status spx__part_build(const spx_matrix *M, const int64_t *coo_lines, spx__part *p)
{
    spx_status st;
    int64_t n = p->line_end - p->line_begin;
    size_t es = M->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    SPX_TRY(spx__alloc((void **)&p->ptr, (size_t)n + 1, sizeof *p->ptr, "part offsets"));
    if (coo_lines)
        offsets_from_coo(coo_lines, p);
    else
        offsets_from_ptr(M, p);
    SPX_TRY(spx__calloc((void **)&p->view, 1, sizeof *p->view, "part header"));
    spx_matrix *v = p->view;
    v->magic = SPX__MATRIX_MAGIC;
    v->rows = n;
    v->cols = M->cols;
    v->nnz = p->nz_end - p->nz_begin;
    v->rowptr = p->ptr;
    v->col_bits = M->col_bits;
    v->col32 = M->col32 ? M->col32 + p->nz_begin : NULL;
    v->col64 = M->col64 ? M->col64 + p->nz_begin : NULL;
    v->vtype = M->vtype;
    v->values = (char *)M->values + (size_t)p->nz_begin * es;
    v->owns_arrays = 0;
    return SPX_OK;
cleanup:
    spx__part_free(p);
    return st;
}

spx_status spx__part_lines_view(const spx__part *p, int64_t first, int64_t count,
                                spx_matrix **out)
{
    const spx_matrix *v = p->view;
    int64_t at = p->ptr[first];
    size_t es = v->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    spx_matrix *w = NULL;
    spx_status st;
    *out = NULL;
    SPX_TRY(spx__calloc((void **)&w, 1, sizeof *w, "part lines header"));
    w->magic = SPX__MATRIX_MAGIC;
    SPX_TRY(spx__alloc((void **)&w->owned_rowptr, (size_t)count + 1, sizeof(int64_t),
                       "part lines offsets"));
    for (int64_t j = 0; j <= count; j++) w->owned_rowptr[j] = p->ptr[first + j] - at;
    w->rowptr = w->owned_rowptr;
    w->rows = count;
    w->cols = v->cols;
    w->nnz = p->ptr[first + count] - at;
    w->col_bits = v->col_bits;
    w->col32 = v->col32 ? v->col32 + at : NULL;
    w->col64 = v->col64 ? v->col64 + at : NULL;
    w->vtype = v->vtype;
    w->values = (char *)v->values + (size_t)at * es;
    *out = w;
    return SPX_OK;
cleanup:
    spx_matrix_destroy(w);
    return st;
}

void spx__part_free(spx__part *p)
{
    if (!p) return;
    spx_matrix_destroy(p->view);
    spx__free(p->ptr);
    memset(p, 0, sizeof *p);
}
