/* The CUDA sell kernel's launcher for builds without CUDA: it fails with
 * SPX_ERR_NOT_COMPILED (a sell plan is never created there, as its upload
 * fails first). */
#ifndef SPX_HAVE_CUDA
#include "core/error.h"
#include "cuda/sell/sell_kernels.h"

spx_status spx__cuda_sell_spmv(const spx__cuda_sell_plan *p, double alpha, const void *x,
                               double beta, void *y)
{
    (void)p;
    (void)alpha;
    (void)x;
    (void)beta;
    (void)y;
    return spx__error(SPX_ERR_NOT_COMPILED,
                      "sell (cuda): SpX was built without CUDA (SPX_CUDA=OFF)");
}

spx_status spx__cuda_sell_pack(const void *vals, const uint16_t *off, int64_t n, uint32_t **packed)
{
    (void)vals;
    (void)off;
    (void)n;
    *packed = NULL;
    return spx__error(SPX_ERR_NOT_COMPILED,
                      "sell (cuda): SpX was built without CUDA (SPX_CUDA=OFF)");
}
#else
typedef int spx__cuda_sell_stubs_unused; /* ISO C: a translation unit is never empty */
#endif
