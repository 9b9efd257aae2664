/* MSREP's multi-device executor on CUDA (see multi_cuda.h): devices, streams,
 * peer copies, the elementwise sum of the column partitions' partial
 * vectors, and on one GPU the combine kernel of resident pcsc calls (the
 * partials over every owner's lines in part order). */
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

/* Across devices a unified-address copy (cudaMemcpyDefault): a peer copy
 * over NVLink or PCIe where peer access is on, staged otherwise, and, unlike
 * cudaMemcpyPeerAsync, one that a graph capture records as a plain copy
 * (multi_graph.c records calls across several GPUs). */
extern "C" spx_status spx__cuda_copy_peer(void *dst, int dst_device, const void *src,
                                          int src_device, size_t bytes, void *stream)
{
    if (bytes == 0) return SPX_OK;
    cudaMemcpyKind kind = dst_device == src_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDefault;
    MULTI_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, (cudaStream_t)stream));
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

extern "C" int spx__cuda_peer_on(int device, int peer)
{
    if (device == peer) return 1;
    std::lock_guard<std::mutex> hold(peer_lock);
    return device >= 0 && peer >= 0 && device < SPX__PEER_MAX && peer < SPX__PEER_MAX &&
           peer_enabled[device][peer];
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

/* Part i's partial at line r: y itself for part in_y (read before r is written). */
template <typename T>
__device__ T partial_at(const spx__cuda_partial *t, int i, int in_y, const T *y, int64_t r)
{
    return i == in_y ? y[r] : ((const T *)t[i].v)[r - t[i].base];
}

static __device__ bool reaches(const spx__cuda_partial *t, int i, int64_t r)
{
    return t[i].span_lo <= r && r < t[i].span_hi;
}

/* Line r of owner q (entry q of t, -1: none). Each partial is read only
 * over its span (outside it there is nothing, or with in_y what y held
 * before). The sum is sequential in part order: the same bits as scaling y,
 * then adding the partial vectors one after another (__dmul_rn: beta*y is
 * never fused with the first add). */
template <typename T>
__device__ T line_sum(const spx__cuda_partial *t, int parts, int q, int in_y, const T *y,
                      double beta, int64_t r)
{
    T acc = beta != 0.0                  ? (T)__dmul_rn(beta, (double)y[r])
            : q >= 0 && reaches(t, q, r) ? partial_at(t, q, in_y, y, r)
                                         : (T)0;
    for (int i = 0; i < parts; i++)
        if ((beta != 0.0 || i != q) && reaches(t, i, r)) acc += partial_at(t, i, in_y, y, r);
    return acc;
}

/* Blocks of row blockIdx.y cover run blockIdx.y's lines, of its owner. */
template <typename T>
__global__ void partial_sum_kernel(T *y, double beta, const spx__cuda_partial *__restrict__ t,
                                   int parts, const spx__multi_run *__restrict__ runs, int in_y)
{
    const spx__multi_run run = runs[blockIdx.y];
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t r = run.lo + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < run.hi;
         r += stride)
        y[r] = line_sum(t, parts, run.owner, in_y, y, beta, r);
}

/* Thread blocks of 256 a run of owner_sum at most: its loads cross NVLink,
 * where fewer requests in flight go faster (as the halo pull's, pull.cu).
 * On 4 H200s (run ID, 2026-11-27; R-MAT scale 22, pcsc, 1M lines an owner
 * summed from 3 peers' partials) the merge took 0.126-0.127 ms with 1024,
 * 0.109-0.115 with 256, 0.120-0.121 with 128, 0.222 with 64. */
#define OWNER_SUM_BLOCKS 256

/* One owner's runs of lines, blocks of row blockIdx.y on run blockIdx.y;
 * the table a kernel parameter. */
template <typename T>
__global__ void owner_sum_kernel(T *y, double beta, const __grid_constant__ spx__cuda_owner_table s)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x, hi = s.hi[blockIdx.y];
    for (int64_t r = s.lo[blockIdx.y] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < hi;
         r += stride)
        y[r] = line_sum(s.t, s.n, s.own, -1, y, beta, r);
}

extern "C" spx_status spx__cuda_partial_sum(void *y, double beta, const void *table, int parts,
                                            const void *runs, int nruns, int in_y, int64_t longest,
                                            spx_type t, void *stream)
{
    if (parts <= 0 || nruns <= 0 || longest <= 0) return SPX_OK;
    int64_t want = (longest + 255) / 256;
    dim3 grid((unsigned)(want < 1024 ? want : 1024), (unsigned)nruns);
    const spx__cuda_partial *tab = (const spx__cuda_partial *)table;
    const spx__multi_run *run = (const spx__multi_run *)runs;
    if (t == SPX_F64)
        partial_sum_kernel<double><<<grid, 256, 0, (cudaStream_t)stream>>>((double *)y, beta, tab,
                                                                           parts, run, in_y);
    else
        partial_sum_kernel<float><<<grid, 256, 0, (cudaStream_t)stream>>>((float *)y, beta, tab,
                                                                          parts, run, in_y);
    MULTI_CHECK(cudaGetLastError());
    return SPX_OK;
}

extern "C" spx_status spx__cuda_owner_sum(void *y, double beta, const spx__cuda_owner_table *s,
                                          spx_type t, void *stream)
{
    int64_t longest = 0;
    for (int k = 0; k < s->runs; k++)
        if (s->hi[k] - s->lo[k] > longest) longest = s->hi[k] - s->lo[k];
    if (longest <= 0) return SPX_OK;
    const int64_t want = (longest + 255) / 256;
    const dim3 grid((unsigned)(want < OWNER_SUM_BLOCKS ? want : OWNER_SUM_BLOCKS), (unsigned)s->runs);
    if (t == SPX_F64)
        owner_sum_kernel<double><<<grid, 256, 0, (cudaStream_t)stream>>>((double *)y, beta, *s);
    else
        owner_sum_kernel<float><<<grid, 256, 0, (cudaStream_t)stream>>>((float *)y, beta, *s);
    MULTI_CHECK(cudaGetLastError());
    return SPX_OK;
}

extern "C" spx_status spx__cuda_capture_begin(void *stream)
{
    MULTI_CHECK(cudaStreamBeginCapture((cudaStream_t)stream, cudaStreamCaptureModeThreadLocal));
    return SPX_OK;
}

/* Ends the capture whatever happened during it (a failed capture leaves the
 * stream out of capture mode and no graph). */
extern "C" spx_status spx__cuda_capture_end(void *stream, void **exec)
{
    cudaGraph_t g = NULL;
    cudaGraphExec_t e = NULL;
    *exec = NULL;
    cudaError_t r = cudaStreamEndCapture((cudaStream_t)stream, &g);
    if (r == cudaSuccess) r = cudaGraphInstantiate(&e, g, 0);
    if (g) cudaGraphDestroy(g);
    if (r != cudaSuccess) return multi_fail(r, "stream capture into a graph");
    *exec = (void *)e;
    return SPX_OK;
}

extern "C" spx_status spx__cuda_graph_launch(void *exec, void *stream)
{
    MULTI_CHECK(cudaGraphLaunch((cudaGraphExec_t)exec, (cudaStream_t)stream));
    return SPX_OK;
}

extern "C" void spx__cuda_graph_destroy(void *exec)
{
    if (exec) cudaGraphExecDestroy((cudaGraphExec_t)exec);
}

extern "C" spx_status spx__cuda_host_alloc(void **p, size_t bytes, const char *what)
{
    *p = NULL;
    cudaError_t e = cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocPortable);
    if (e == cudaSuccess) return SPX_OK;
    cudaGetLastError();
    *p = NULL;
    return spx__error(SPX_ERR_OOM, "cudaHostAlloc of %zu bytes for %s failed: %s", bytes, what,
                      cudaGetErrorString(e));
}

extern "C" void spx__cuda_host_free(void *p)
{
    if (p) cudaFreeHost(p);
}
