/* Gateway for builds without CUDA: every entry fails with SPX_ERR_NOT_COMPILED. */
#include "cuda/gateway.h"
#include "core/error.h"

static spx_status not_compiled(void)
{
    return spx__error(SPX_ERR_NOT_COMPILED, "SpX was built without CUDA (SPX_CUDA=OFF)");
}

int spx__cuda_device_count(void) { return 0; }

spx_status spx__cuda_alloc(void **dptr, size_t bytes, const char *what)
{
    (void)bytes;
    (void)what;
    if (dptr) *dptr = NULL;
    return not_compiled();
}

void spx__cuda_free(void *dptr) { (void)dptr; }

spx_status spx__cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    (void)dst;
    (void)src;
    (void)bytes;
    (void)to_device;
    return not_compiled();
}

spx_status spx__cuda_sync(void *stream)
{
    (void)stream;
    return not_compiled();
}
