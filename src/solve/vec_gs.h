/* GMRES's classical Gram-Schmidt on a solve's vectors (vec_gs.c): one pass
 * over w and basis vectors V[0..k) of a space (vec.h), wherever they are.
 *
 * A buffer holds count doubles, c, where the vectors are (device memory for
 * a CUDA space, else host memory). spx__v_gs, with offsets into c (-1: the
 * step is not done):
 *   sub  >= 0:  w -= sum_{i<k} c[sub + i] V[i]
 *   dots >= 0:  c[dots + i] = V[i] . w     (w as updated)
 *   nrm  >= 0:  c[nrm] = w . w
 * On a CUDA space it is queued (cuda/blas1/gs.h) and nothing waits, so
 * passes whose coefficients are the dots of the pass before follow one
 * another on the device; spx__v_gs_take waits for them and copies c to the
 * host. On the host each entry is computed as on the device (in double, i in
 * order, rounded to the vectors' type once) and a dot is summed over blocks
 * of entries (each in host_dot.h's lanes), the block sums in block order:
 * the same bits for any thread count. A multi-device space on GPUs runs the
 * device pass on each part's lines and adds the parts' sums in part order
 * (multi/multi_solve.h); one on CPUs composes the pass of its own axpby (one
 * per vector, each rounded) and dots. */
#ifndef SPX_SOLVE_VEC_GS_H
#define SPX_SOLVE_VEC_GS_H

#include <stddef.h>
#include <stdint.h>

#include "solve/vec.h"

typedef struct spx__gs_buf {
    size_t count;
    double *c;                 /* count doubles where the vectors are */
    double *scratch;           /* CUDA: the pass's block sums (cuda/blas1/gs.h) */
    double *pinned;            /* CUDA: count doubles of pinned host memory, take's copy */
    double *pack;              /* a space shared by processes: count + 1 doubles, a pass's
                                  sums packed for their sum over the processes */
    struct spx__gs_buf *parts; /* a multi-device space on GPUs: each part's buffer */
} spx__gs_buf;

/* 1 where the pass runs on GPUs (a CUDA space, or a multi-device space
 * whose parts are on GPUs): there three passes queued with one wait beat a
 * wait a dot. */
int spx__v_gs_on_gpu(const spx__vspace *s);

/* c zero; on failure nothing is left allocated. */
spx_status spx__gs_buf_alloc(const spx__vspace *s, size_t count, spx__gs_buf *b);
void spx__gs_buf_free(const spx__vspace *s, spx__gs_buf *b);
spx_status spx__v_gs(const spx__vspace *s, spx__gs_buf *b, int64_t k, const void *const *V, void *w,
                     int64_t sub, int64_t dots, int64_t nrm);
/* c[off..off + count) = in (host values), before the passes queued after. */
spx_status spx__v_gs_put(const spx__vspace *s, spx__gs_buf *b, int64_t off, const double *in,
                         int64_t count);
/* out[0..count) = c, after the passes queued before. */
spx_status spx__v_gs_take(const spx__vspace *s, const spx__gs_buf *b, double *out);

#endif
