/* Host -> device copies of large arrays through pinned staging buffers.
 *
 * cudaMemcpy from pageable memory goes through the driver's own small pinned
 * buffers, one core copying: about 6 GB/s on the H100 machine's host (measured
 * while timing DASP's preparation). Here the array is cut into STAGE-byte
 * chunks; all cores copy chunk k into pinned buffer k%2 (spx__parallel_memcpy)
 * while the copy engine moves chunk k-1 to the device, so the rate is the
 * smaller of the parallel host copy and the link. Below spx__cuda_stage_min
 * bytes (or when pinned memory cannot be had) the plain cudaMemcpy is used. */
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
#include "core/memcopy.h"
}
#include "cuda/gateway.h"
#include "cuda/stage_pool.h"

#define STAGE SPX__STAGE

static spx_status staged_fail(cudaError_t e, const char *call)
{
    return spx__error(SPX_ERR_DEVICE, "CUDA %s failed in a staged upload: %s", call,
                      cudaGetErrorString(e));
}

/* The chunks, alternating buffers; buffer i is reused once done[i] fired. */
static cudaError_t copy_chunks(char *dst, const char *src, size_t bytes, char *buf[2],
                               cudaEvent_t done[2], cudaStream_t s, const char **call)
{
    cudaError_t e = cudaSuccess;
    for (size_t off = 0, i = 0; off < bytes && e == cudaSuccess; off += STAGE, i ^= 1) {
        size_t n = bytes - off < STAGE ? bytes - off : STAGE;
        *call = "cudaEventSynchronize";
        if (off >= 2 * STAGE && (e = cudaEventSynchronize(done[i])) != cudaSuccess) break;
        spx__parallel_memcpy(buf[i], src + off, n);
        *call = "cudaMemcpyAsync";
        if ((e = cudaMemcpyAsync(dst + off, buf[i], n, cudaMemcpyHostToDevice, s)) != cudaSuccess)
            break;
        *call = "cudaEventRecord";
        e = cudaEventRecord(done[i], s);
    }
    if (e == cudaSuccess) {
        *call = "cudaStreamSynchronize";
        e = cudaStreamSynchronize(s);
    }
    return e;
}

extern "C" spx_status spx__cuda_copy_staged(void *dst, const void *src, size_t bytes, void *stream)
{
    if (bytes == 0) return SPX_OK;
    char *pinned = NULL;
    if (bytes < spx__cuda_stage_min ||
        !(pinned = spx__stage_take())) {
        cudaGetLastError(); /* no pinned memory: the driver's own staging */
        cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
                                        (cudaStream_t)stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
        return e == cudaSuccess ? SPX_OK : staged_fail(e, "cudaMemcpyAsync");
    }
    char *buf[2] = {pinned, pinned + STAGE};
    cudaEvent_t done[2] = {NULL, NULL};
    const char *call = "cudaEventCreateWithFlags";
    cudaError_t e = cudaEventCreateWithFlags(&done[0], cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&done[1], cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = copy_chunks((char *)dst, (const char *)src, bytes, buf, done, (cudaStream_t)stream,
                        &call);
    if (e != cudaSuccess) cudaStreamSynchronize((cudaStream_t)stream); /* buffers idle */
    for (int i = 0; i < 2; i++)
        if (done[i]) cudaEventDestroy(done[i]);
    spx__stage_give(pinned);
    return e == cudaSuccess ? SPX_OK : staged_fail(e, call);
}
