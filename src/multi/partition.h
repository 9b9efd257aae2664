/* MSREP partitions (Chen et al., "MSREP: a fast yet light sparse matrix
 * framework for multi-GPU systems"): part i of np holds the nonzeros
 * [s_i, e_i) of a compressed or coordinate matrix, s_i = floor(i*nnz/np), so
 * parts carry equal nonzeros, not equal rows. The source is a CSR M of
 * `lines` rows: A itself for pCSR and the row-block baseline, A^T (A's CSC)
 * for pCSC, and for pCOO the row-sorted COO (coo_lines[k]: the row of
 * nonzero k, with M's columns and values; M's row offsets are not read).
 *
 * A part touches the lines [line_begin, line_end). With
 *   L(s) = the first line whose offset is >= s  (COO: line of nonzero s-1, + 1)
 *   split(s) = nonzero s lies inside a line, not at its start,
 * part i runs from L(s_i) - split(s_i) to L(e_i) (the last part to `lines`):
 * the parts' line ranges tile [0, lines), and two neighbours share a line
 * exactly where a cut splits it (a line longer than a whole part is shared by
 * several). Empty lines go to the part before a cut, leading ones to part 0,
 * trailing ones to the last part. The row-block baseline cuts lines at
 * i*lines/np instead and shares none.
 *
 * A part is a CSR of its own (`view`): line_end - line_begin rows, local
 * offsets ptr[j] = clamp(offset of line line_begin+j - s, 0, e - s), and the
 * source's column and value arrays from s, borrowed (no copy). Any single-
 * device format takes it as an ordinary matrix. */
#ifndef SPX_MULTI_PARTITION_H
#define SPX_MULTI_PARTITION_H

#include <stdint.h>

#include "core/matrix.h"

typedef struct spx__part {
    int64_t nz_begin, nz_end;     /* nonzeros [nz_begin, nz_end) of the source */
    int64_t line_begin, line_end; /* lines it touches (rows; columns for pCSC) */
    int shared_first;             /* its first line continues the previous part's */
    int shared_last;              /* its last line continues into the next part */
    int64_t *ptr;                 /* line_end - line_begin + 1 local offsets, owned */
    spx_matrix *view;             /* the part as a CSR: ptr and borrowed arrays, owned */
} spx__part;

/* Nonzero where part i of np begins: floor(i*nnz/np), without overflow. */
int64_t spx__part_cut(int64_t nnz, int parts, int i);

/* Boundaries of part i of `parts` (kind: how to cut; coo_lines: pCOO's row
 * indices, else NULL): O(log lines), independent of the other parts. */
void spx__part_bounds(const spx_matrix *M, const int64_t *coo_lines, spx_partition kind,
                      int parts, int i, spx__part *p);

/* Local offsets and view of a part whose boundaries are set: O(lines of the
 * part) from M's offsets, O(nonzeros of the part) from coo_lines. */
spx_status spx__part_build(const spx_matrix *M, const int64_t *coo_lines, spx__part *p);

/* A CSR of the part's local lines [first, first + count): offsets
 * ptr[first..first+count] - ptr[first], owned by the view (freed with it),
 * and the part's columns and values from its nonzero ptr[first], borrowed. */
spx_status spx__part_lines_view(const spx__part *p, int64_t first, int64_t count,
                                spx_matrix **out);

/* Free what a part owns (its offsets and view) and zero it. */
void spx__part_free(spx__part *p);

#endif
