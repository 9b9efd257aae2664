/* MSREP's multi-device executor on CUDA (see multi_cuda.h): devices, streams,
 * peer copies and the elementwise sum of the column partitions' partial
 * vectors. */
#include <cuda_runtime.h>

#include <mutex>

extern "C" {
#include "core/error.h"
}
#include "cuda/multi/multi_cuda.h"

static spx_status multi_fail(cudaError_t e, const char *call)
{
    cudaGetLastError();
    return spx__error(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                      "CUDA %s failed: %s", call, cudaGetErrorString(e));
}

#define MULTI_CHECK(call)                                                                          \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) return multi_fail(e_, #call);                                       \
    } while (0)

extern "C" spx_status spx__cuda_set_device(int device)
{
    MULTI_CHECK(cudaSetDevice(device));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_get_device(int *device)
{
    MULTI_CHECK(cudaGetDevice(device));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_stream_create(void **stream)
{
    cudaStream_t s;
    MULTI_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *stream = (void *)s;
    return SPX_OK;
}

extern "C" void spx__cuda_stream_destroy(void *stream)
{
    if (stream) cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" spx_status spx__cuda_stream_wait(void *stream, void *event)
{
    MULTI_CHECK(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_copy_peer(void *dst, int dst_device, const void *src,
                                          int src_device, size_t bytes, void *stream)
{
    if (bytes == 0) return SPX_OK;
    if (dst_device == src_device)
        MULTI_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                    (cudaStream_t)stream));
    else
        MULTI_CHECK(
            cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, (cudaStream_t)stream));
    return SPX_OK;
}

/* Pairs this process has enabled: CUDA reports a second enable as an error
 * (which compute-sanitizer counts), so each pair is asked once. */
#define SPX__PEER_MAX 64
static unsigned char peer_enabled[SPX__PEER_MAX][SPX__PEER_MAX];
static std::mutex peer_lock;

extern "C" spx_status spx__cuda_enable_peer(int device, int peer)
{
    int can = 0;
    if (device == peer) return SPX_OK;
    std::lock_guard<std::mutex> hold(peer_lock);
    int known = device < SPX__PEER_MAX && peer < SPX__PEER_MAX;
    if (known && peer_enabled[device][peer]) return SPX_OK;
    MULTI_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
    if (!can) return SPX_OK;
    MULTI_CHECK(cudaSetDevice(device));
    cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) { /* enabled outside SpX */
        cudaGetLastError();
        e = cudaSuccess;
    }
    MULTI_CHECK(e);
    if (known) peer_enabled[device][peer] = 1;
    return SPX_OK;
}

extern "C" spx_status spx__cuda_pci_bus_id(int device, char *id, int len)
{
    MULTI_CHECK(cudaDeviceGetPCIBusId(id, len, device));
    return SPX_OK;
}

template <typename T> __global__ void add_kernel(T *__restrict__ y, const T *__restrict__ x, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] += x[i];
}

extern "C" spx_status spx__cuda_vector_add(void *y, const void *x, int64_t n, spx_type t,
                                           void *stream)
{
    if (n <= 0) return SPX_OK;
    int64_t want = (n + 255) / 256;
    int blocks = (int)(want < 8192 ? want : 8192);
    if (t == SPX_F64)
        add_kernel<double><<<blocks, 256, 0, (cudaStream_t)stream>>>((double *)y, (const double *)x, n);
    else
        add_kernel<float><<<blocks, 256, 0, (cudaStream_t)stream>>>((float *)y, (const float *)x, n);
    MULTI_CHECK(cudaGetLastError());
    return SPX_OK;
}
