/* GMRES's classical Gram-Schmidt on the device (gs.cu; src/solve/vec_gs.c):
 * one pass over w and the basis vectors V[0..k) (n entries of type t,
 * SPX_F64 double or SPX_F32 float), on a stream:
 *   with sub:  w_e = (T)(w_e - sum_{i<k} sub[i] V[i]_e)   in double, i in order
 *   with dots: dots[i] = V[i] . w                          w as updated, i < k
 *   with nrm:  *nrm = w . w
 * sub, dots and nrm are device memory (NULL: that step is not done); the
 * dots sum in double in a fixed order (each of SPX__CUDA_DOT_BLOCKS blocks
 * a fixed stride of the entries, then a fixed tree; the block sums in block
 * order by the last block), so results are the same bits from call to call.
 * The vectors go SPX__CUDA_GS_CHUNK to a launch: past that, the subtraction
 * takes a launch (a pass over w) per chunk, the last with its chunk's dots,
 * and the other chunks' dots a launch each after it. scratch: SPX__CUDA_GS_SCRATCH doubles of
 * device memory, zero before its first use, one stream at a time. */
#ifndef SPX_CUDA_BLAS1_GS_H
#define SPX_CUDA_BLAS1_GS_H

#include <stdint.h>

#include "cuda/blas1/blas1.h" /* SPX__CUDA_DOT_BLOCKS */
#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__CUDA_GS_CHUNK 16
/* doubles: a launch's block sums (its dots and the norm), then a ticket */
#define SPX__CUDA_GS_SCRATCH ((SPX__CUDA_GS_CHUNK + 1) * SPX__CUDA_DOT_BLOCKS + 1)

#define SPX__CUDA_GS_API(S, Q, V)                                                                  \
    S(spx__cuda_vgs,                                                                               \
      (int64_t n, spx_type t, int64_t k, const void *const *V, void *w, const double *sub,         \
       double *dots, double *nrm, double *scratch, void *stream))

SPX__CUDA_DECLARE(SPX__CUDA_GS_API)

#ifdef __cplusplus
}
#endif
#endif
