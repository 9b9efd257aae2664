/* The values of spx_plan_update_values into a CUDA plan's own arrays
 * (values.h): one grid-stride kernel gathers and converts, reading the
 * caller's values through the map when there is one. Conversions go through
 * double, as the formats' uploads do (runtime.cu), so a slot holds the bits
 * a new plan of the same values would. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <string.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/values/values.h"

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            st = spx__error(e_ == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,        \
                            "CUDA %s failed: %s", #call, cudaGetErrorString(e_));                  \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

template <typename To> __device__ To from_double(double v);
template <> __device__ double from_double<double>(double v)
{
    return v;
}
template <> __device__ float from_double<float>(double v)
{
    return (float)v;
}
template <> __device__ __half from_double<__half>(double v)
{
    return __double2half(v);
}

/* dst[s] = (To) src[map ? map[s] : s]; 0 where map[s] < 0. */
template <typename From, typename To>
__global__ void gather_kernel(To *dst, const From *src, const int32_t *map, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += stride) {
        int64_t e = map ? (int64_t)map[s] : s;
        dst[s] = from_double<To>(e >= 0 ? (double)src[e] : 0.0);
    }
}

static size_t size_of(spx_type t)
{
    return t == SPX_F64 ? sizeof(double) : t == SPX_F32 ? sizeof(float) : sizeof(__half);
}

template <typename From>
static void launch(void *dst, spx_type t, const void *src, const int32_t *map, int64_t n,
                   cudaStream_t s)
{
    int64_t want = (n + 255) / 256;
    int blocks = (int)(want < 8192 ? (want > 0 ? want : 1) : 8192);
    const From *in = (const From *)src;
    if (t == SPX_F64)
        gather_kernel<From, double><<<blocks, 256, 0, s>>>((double *)dst, in, map, n);
    else if (t == SPX_F32)
        gather_kernel<From, float><<<blocks, 256, 0, s>>>((float *)dst, in, map, n);
    else
        gather_kernel<From, __half><<<blocks, 256, 0, s>>>((__half *)dst, in, map, n);
}

static int args_ok(spx_type t, int64_t n, const void *src, spx_type from, int64_t src_n)
{
    return n >= 0 && src_n >= 0 && (src_n == 0 || src) &&
           (t == SPX_F64 || t == SPX_F32 || t == SPX_F16) && (from == SPX_F64 || from == SPX_F32);
}

extern "C" spx_status spx__cuda_values_gather(void *dst, spx_type t, int64_t n, const int32_t *map,
                                              const void *src, spx_type from, int64_t src_n,
                                              int src_on_device, void *stream)
{
    spx_status st = SPX_OK;
    cudaStream_t s = (cudaStream_t)stream;
    void *staged = NULL;
    if (!args_ok(t, n, src, from, src_n) || (!map && n > src_n))
        return spx__error(SPX_ERR_INVALID_ARG, "spx__cuda_values_gather: bad argument");
    if (n == 0) return SPX_OK;
    if (!src_on_device && src_n > 0) { /* the caller's host values, copied over first */
        CUDA_CHECK(cudaMallocAsync(&staged, (size_t)src_n * size_of(from), s));
        CUDA_CHECK(
            cudaMemcpyAsync(staged, src, (size_t)src_n * size_of(from), cudaMemcpyHostToDevice, s));
        src = staged;
    }
    if (from == SPX_F64)
        launch<double>(dst, t, src, map, n, s);
    else
        launch<float>(dst, t, src, map, n, s);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(s));
cleanup:
    if (staged) {
        cudaFreeAsync(staged, s);
        cudaStreamSynchronize(s);
    }
    return st;
}

extern "C" spx_status spx__cuda_values_to_host(void *dst, const void *src, spx_type from,
                                               int src_on_device, int64_t n, void *stream)
{
    spx_status st = SPX_OK;
    size_t bytes = (size_t)(n > 0 ? n : 0) * size_of(from);
    if (n < 0 || (n > 0 && (!dst || !src)))
        return spx__error(SPX_ERR_INVALID_ARG, "spx__cuda_values_to_host: bad argument");
    if (!src_on_device) {
        if (bytes) memcpy(dst, src, bytes);
        return SPX_OK;
    }
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)stream));
    CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
cleanup:
    return st;
}

/* *first = min(*first, k) for each k whose value is NaN or beyond half's range. */
template <typename From>
__global__ void beyond_half_kernel(const From *src, int64_t n, unsigned long long *first)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        const double v = (double)src[k];
        if (!(v <= 65504.0 && v >= -65504.0)) atomicMin(first, (unsigned long long)k);
    }
}

extern "C" spx_status spx__cuda_values_beyond_half(const void *src, spx_type from, int64_t n,
                                                   void *stream, int64_t *first)
{
    spx_status st = SPX_OK;
    cudaStream_t s = (cudaStream_t)stream;
    unsigned long long *dfirst = NULL, found = (unsigned long long)n;
    *first = n;
    if (n <= 0) return SPX_OK;
    if (!src || (from != SPX_F64 && from != SPX_F32))
        return spx__error(SPX_ERR_INVALID_ARG, "spx__cuda_values_beyond_half: bad argument");
    int64_t want = (n + 255) / 256;
    int blocks = (int)(want < 8192 ? want : 8192);
    CUDA_CHECK(cudaMallocAsync((void **)&dfirst, sizeof *dfirst, s));
    CUDA_CHECK(cudaMemcpyAsync(dfirst, &found, sizeof found, cudaMemcpyHostToDevice, s));
    if (from == SPX_F64)
        beyond_half_kernel<double><<<blocks, 256, 0, s>>>((const double *)src, n, dfirst);
    else
        beyond_half_kernel<float><<<blocks, 256, 0, s>>>((const float *)src, n, dfirst);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(&found, dfirst, sizeof found, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    *first = (int64_t)found;
cleanup:
    if (dfirst) {
        cudaFreeAsync(dfirst, s);
        cudaStreamSynchronize(s);
    }
    return st;
}
