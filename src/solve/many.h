/* The blocks of spx_cg_many (cg_many.c): n x k row-major, leading
 * dimension k unless a call says otherwise, entries of type t (SPX_F64
 * double, else float), in host memory for a CPU plan (OpenMP loops,
 * many_vec.c) or device memory for a CUDA plan (cuda/blas1/many.h, on the
 * plan's stream), with the columns' scalars (many_cols.h) beside them.
 * Column dots sum in double in a fixed order whatever the schedule: CPU,
 * rows in blocks of a size set by k, the blocks' sums added in block order;
 * CUDA, a grid set by n and k (many.cu). So each column's sums are the same
 * bits call to call; a column's bits do not depend on the other columns'
 * values (they may depend on k through the row blocks). */
#ifndef SPX_SOLVE_MANY_H
#define SPX_SOLVE_MANY_H

#include <stdint.h>

#include "spx.h"

typedef struct spx__bspace {
    int64_t n, k;
    spx_type t;
    int cuda;
    void *stream;    /* CUDA: the plan's stream */
    double *col;     /* SPX__CM_FIELDS * k column scalars (device memory for CUDA) */
    double *scratch; /* the dots' block sums (CUDA: device, with the tickets) */
    double *ring;    /* CUDA: 2 published copies of col, pinned host memory */
    void *ring_ev[2];
} spx__bspace;

/* The space of k columns of P's vectors (P square, x not half). */
spx_status spx__b_init(spx__bspace *s, const spx_plan *P, int64_t k);
void spx__b_free(spx__bspace *s);
size_t spx__b_entry_bytes(const spx__bspace *s);
spx_status spx__b_alloc(const spx__bspace *s, void **v, const char *what); /* n x k, zeroed */
void spx__b_release(const spx__bspace *s, void *v);
/* dst = src, n x k entries, leading dimensions lds and ldd */
spx_status spx__b_copy(const spx__bspace *s, const void *src, int64_t lds, void *dst, int64_t ldd);
/* dst(i, j) = d(i) * src(i, j): the Jacobi step of every column */
spx_status spx__b_diag(const spx__bspace *s, const void *d, const void *src, void *dst);
/* col[field[q]][j] = a[q](:, j) . b[q](:, j) for q < pairs <= 2 */
spx_status spx__b_dots(const spx__bspace *s, int pairs, const void *const *a, const void *const *b,
                       const int *field);
/* many_cols.h's column-wide step on every column */
spx_status spx__b_cols(const spx__bspace *s, int step, int64_t it, double rtol, int jacobi);
/* CG's step for every live column (many_cols.h's moves): x += alpha p,
 * r -= alpha q, z = d .* r (d non-NULL), then rr_new = r'r and rz_new = r'z
 * and the turn of iteration it. x has leading dimension ldx. */
spx_status spx__b_cg_step(const spx__bspace *s, int64_t it, double rtol, void *x, int64_t ldx,
                          const void *p, void *r, const void *q, const void *d, void *z);
/* p = z + beta p for every live column */
spx_status spx__b_direction(const spx__bspace *s, const void *z, void *p);
/* The column scalars published as slot's copy (queued on CUDA), and read:
 * *c points to them once the device has written them. */
spx_status spx__b_publish(const spx__bspace *s, int64_t slot);
spx_status spx__b_read(const spx__bspace *s, int64_t slot, const double **c);

#endif
