/* DASP's device half for builds without CUDA: uploads, fills and downloads
 * fail with SPX_ERR_NOT_COMPILED, so a dasp plan is never created. */
#ifndef SPX_HAVE_CUDA
#include "core/error.h"
#include "cuda/dasp/dasp.h"

spx_status spx__dasp_upload(const spx__dasp_host *h, spx_type t, void *stream,
                            spx__dasp_dev **d)
{
    (void)h;
    (void)t;
    (void)stream;
    *d = NULL;
    return spx__error(SPX_ERR_NOT_COMPILED, "dasp: SpX was built without CUDA (SPX_CUDA=OFF)");
}

spx_status spx__dasp_spmv(const spx__dasp_dev *d, double alpha, const void *x, double beta,
                          void *y, int x_half)
{
    (void)d;
    (void)x_half;
    (void)alpha;
    (void)x;
    (void)beta;
    (void)y;
    return spx__error(SPX_ERR_NOT_COMPILED, "dasp: SpX was built without CUDA (SPX_CUDA=OFF)");
}

size_t spx__dasp_bytes(const spx__dasp_dev *d)
{
    (void)d;
    return 0;
}

void spx__dasp_free(spx__dasp_dev *d) { (void)d; }

spx_status spx__dasp_download(const spx__dasp_dev *d, void *val, int32_t *col, int64_t *n)
{
    (void)d;
    (void)val;
    (void)col;
    *n = 0;
    return spx__error(SPX_ERR_NOT_COMPILED, "dasp: SpX was built without CUDA (SPX_CUDA=OFF)");
}

spx_status spx__dasp_fill(const spx__dasp_host *h, spx_type t, void *stream, void *val,
                          int32_t *col)
{
    (void)h;
    (void)t;
    (void)stream;
    (void)val;
    (void)col;
    return spx__error(SPX_ERR_NOT_COMPILED, "dasp: SpX was built without CUDA (SPX_CUDA=OFF)");
}

spx_status spx__dasp_dev_alloc(void **p, size_t bytes, const char *what)
{
    (void)bytes;
    (void)what;
    *p = NULL;
    return spx__error(SPX_ERR_NOT_COMPILED, "dasp: SpX was built without CUDA (SPX_CUDA=OFF)");
}

long spx__dasp_dev_fail_at(long n)
{
    (void)n;
    return 0;
}
#else
typedef int spx__dasp_stubs_unused; /* ISO C: a translation unit is never empty */
#endif
