/* The bench's CUDA helper (bench_cuda.h) and the device facts and copy
 * bandwidth of bench.h, on the CUDA runtime. Copy bandwidth: a device-to-
 * device cudaMemcpy of 1 GiB, 3 warm-up copies then 20 timed with events
 * around each; the median, counting bytes read + written (2 GiB a copy). */
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>

#include "bench_cuda.h"

extern "C" {
#include "bench.h"
spx_status bench_fail(spx_status st, const char *fmt, ...);
}

namespace
{

spx_status cuda_fail(cudaError_t e, const char *what)
{
    return bench_fail(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                      "bench: CUDA %s: %s", what, cudaGetErrorString(e));
}

const size_t COPY_BYTES = (size_t)1 << 30;
const int COPY_WARMUP = 3, COPY_TIMED = 20;

/* Milliseconds of each timed copy from a to b. */
spx_status time_copies(void *a, void *b, float *ms)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    cudaError_t e = cudaEventCreate(&e0);
    if (e == cudaSuccess) e = cudaEventCreate(&e1);
    for (int i = 0; i < COPY_WARMUP + COPY_TIMED && e == cudaSuccess; i++) {
        e = cudaEventRecord(e0);
        if (e == cudaSuccess) e = cudaMemcpy(b, a, COPY_BYTES, cudaMemcpyDeviceToDevice);
        if (e == cudaSuccess) e = cudaEventRecord(e1);
        if (e == cudaSuccess) e = cudaEventSynchronize(e1);
        if (e == cudaSuccess && i >= COPY_WARMUP)
            e = cudaEventElapsedTime(&ms[i - COPY_WARMUP], e0, e1);
    }
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return e == cudaSuccess ? SPX_OK : cuda_fail(e, "timing copies");
}

} // namespace

extern "C" spx_status bench_cuda_alloc(void **p, size_t bytes, const char *what)
{
    *p = NULL;
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e == cudaSuccess) return SPX_OK;
    *p = NULL;
    return bench_fail(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                      "bench: cudaMalloc of %zu bytes for %s: %s", bytes, what,
                      cudaGetErrorString(e));
}

extern "C" void bench_cuda_free(void *p)
{
    if (p) cudaFree(p);
}

extern "C" spx_status bench_cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    if (!bytes) return SPX_OK;
    cudaError_t e =
        cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? SPX_OK : cuda_fail(e, "cudaMemcpy");
}

extern "C" spx_status bench_cuda_upload(void **dst, const void *src, size_t bytes,
                                        const char *what)
{
    spx_status st = bench_cuda_alloc(dst, bytes, what);
    if (st == SPX_OK) st = bench_cuda_copy(*dst, src, bytes, 1);
    if (st != SPX_OK) {
        bench_cuda_free(*dst);
        *dst = NULL;
    }
    return st;
}

extern "C" spx_status bench_cuda_sync(void)
{
    cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? SPX_OK : cuda_fail(e, "cudaDeviceSynchronize");
}

extern "C" spx_status bench_cuda_set_device(int device)
{
    cudaError_t e = cudaSetDevice(device);
    return e == cudaSuccess ? SPX_OK : cuda_fail(e, "cudaSetDevice");
}

extern "C" spx_status spx_bench_cuda_device(char *name, size_t len, size_t *l2_bytes, int *sms)
{
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, 0);
    if (e != cudaSuccess) return cuda_fail(e, "cudaGetDeviceProperties");
    if (name && len) snprintf(name, len, "%s", p.name);
    if (l2_bytes) *l2_bytes = (size_t)p.l2CacheSize;
    if (sms) *sms = p.multiProcessorCount;
    return SPX_OK;
}

extern "C" spx_status spx_bench_cuda_copy(double *gbs)
{
    void *a = NULL, *b = NULL;
    float ms[COPY_TIMED];
    spx_status st = bench_cuda_alloc(&a, COPY_BYTES, "copy bandwidth source");
    if (st == SPX_OK) st = bench_cuda_alloc(&b, COPY_BYTES, "copy bandwidth target");
    if (st == SPX_OK) {
        cudaError_t e = cudaMemset(a, 1, COPY_BYTES);
        st = e == cudaSuccess ? time_copies(a, b, ms) : cuda_fail(e, "cudaMemset");
    }
    if (st == SPX_OK) {
        std::sort(ms, ms + COPY_TIMED);
        double median = 0.5 * (ms[COPY_TIMED / 2 - 1] + ms[COPY_TIMED / 2]);
        *gbs = 2.0 * (double)COPY_BYTES / (median * 1e-3) * 1e-9;
    }
    bench_cuda_free(a);
    bench_cuda_free(b);
    return st;
}
