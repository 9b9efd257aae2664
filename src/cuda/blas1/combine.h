/* Linear combinations of basis vectors on the device (combine.cu;
 * src/solve/vec_combine.c): for t < l,
 *   U[t]_e = (T) sum_{i<k} coef[t*k + i] V[i]_e      in double, i in order
 * (n entries of type t, SPX_F64 double or SPX_F32 float), on a stream.
 * coef is device memory. The outputs go SPX__CUDA_COMBINE_OUT to a launch
 * and the vectors SPX__CUDA_COMBINE_IN, so V is read ceil(l / OUT) times,
 * not l times: a thick restart's Ritz vectors (lanczos.c). */
#ifndef SPX_CUDA_BLAS1_COMBINE_H
#define SPX_CUDA_BLAS1_COMBINE_H

#include <stdint.h>

#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__CUDA_COMBINE_OUT 8
#define SPX__CUDA_COMBINE_IN 32

#define SPX__CUDA_COMBINE_API(S, Q, V)                                                             \
    S(spx__cuda_vlinear_combine, (int64_t n, spx_type t, int64_t k, const void *const *V,          \
                                  int64_t l, void *const *U, const double *coef, void *stream))

SPX__CUDA_DECLARE(SPX__CUDA_COMBINE_API)

#ifdef __cplusplus
}
#endif
#endif
