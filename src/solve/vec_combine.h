/* Linear combinations of basis vectors, U[t] = sum_{i<k} coef[t*k + i] V[i]
 * for t < l (vec_combine.c): a thick restart's Ritz vectors (lanczos.c) in
 * ceil(l / 8) reads of V on a CUDA device (cuda/blas1/combine.h) and one
 * blocked read on the host, where l Gram-Schmidt passes read it l times. A
 * multi-device space composes them of Gram-Schmidt passes (vec_gs.h). */
#ifndef SPX_SOLVE_VEC_COMBINE_H
#define SPX_SOLVE_VEC_COMBINE_H

#include "solve/vec_gs.h"

/* The coefficients where the vectors are (a CUDA space: device memory). */
typedef struct spx__combine_buf {
    double *coef;
    size_t count;
} spx__combine_buf;

spx_status spx__combine_buf_alloc(const spx__vspace *s, size_t count, spx__combine_buf *b);
void spx__combine_buf_free(const spx__vspace *s, spx__combine_buf *b);

/* coef: l x k host doubles, output after output (l * k <= cb's count). gs:
 * the Gram-Schmidt buffer (k entries), used by a multi-device space. U's
 * vectors are distinct from V's. */
spx_status spx__v_combine(const spx__vspace *s, spx__combine_buf *cb, spx__gs_buf *gs, int64_t k,
                          const void *const *V, int64_t l, void *const *U, const double *coef);

#endif
