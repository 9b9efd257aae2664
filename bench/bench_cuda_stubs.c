/* bench_cuda.h and the CUDA entries of bench.h in a build without CUDA:
 * every call that would touch a GPU is SPX_ERR_NOT_COMPILED. */
#include "bench_cuda.h"
#include "bench_internal.h"

static spx_status not_compiled(const char *what)
{
    return bench_fail(SPX_ERR_NOT_COMPILED, "bench: %s: built without CUDA", what);
}

spx_status bench_cuda_alloc(void **p, size_t bytes, const char *what)
{
    (void)bytes;
    *p = NULL;
    return not_compiled(what);
}

void bench_cuda_free(void *p)
{
    (void)p;
}

spx_status bench_cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    (void)dst, (void)src, (void)bytes, (void)to_device;
    return not_compiled("device copy");
}

spx_status bench_cuda_upload(void **dst, const void *src, size_t bytes, const char *what)
{
    (void)src, (void)bytes;
    *dst = NULL;
    return not_compiled(what);
}

spx_status bench_cuda_sync(void)
{
    return not_compiled("device sync");
}

spx_status bench_cuda_set_device(int device)
{
    (void)device;
    return not_compiled("set device");
}

spx_status spx_bench_cuda_device(char *name, size_t len, size_t *l2_bytes, int *sms)
{
    (void)name, (void)len, (void)l2_bytes, (void)sms;
    return not_compiled("device facts");
}

spx_status spx_bench_cuda_copy(double *gbs)
{
    (void)gbs;
    return not_compiled("copy bandwidth");
}
