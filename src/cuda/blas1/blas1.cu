/* Device vector operations of the Krylov solvers (layout and the fixed
 * order of dot: blas1.h). Kernels are plain launches on the caller's stream,
 * so they follow whatever kernel came before in stream order. */
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/blas1/blas1.h"

#define THREADS 256

static spx_status launch_status(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return SPX_OK;
    return spx__error(SPX_ERR_DEVICE, "CUDA %s failed: %s", what, cudaGetErrorString(e));
}

/* Tree sum of the block's THREADS values in s[]; the total lands in s[0]. */
static __device__ void block_sum(double *s)
{
    for (int half = THREADS / 2; half > 0; half /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    }
    __syncthreads();
}

/* partial[block] = sum over i = block*THREADS + thread + k*stride of a[i]*b[i]. */
template <typename T>
__global__ void __launch_bounds__(THREADS)
    dot_partial(int64_t n, const T *__restrict__ a, const T *__restrict__ b, double *partial)
{
    __shared__ double s[THREADS];
    double acc = 0.0;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        acc += (double)a[i] * (double)b[i];
    s[threadIdx.x] = acc;
    block_sum(s);
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

/* partial[SPX__CUDA_DOT_BLOCKS] = sum of partial[0..SPX__CUDA_DOT_BLOCKS). */
__global__ void __launch_bounds__(THREADS) dot_final(double *partial)
{
    __shared__ double s[THREADS];
    double acc = 0.0;
    for (int i = threadIdx.x; i < SPX__CUDA_DOT_BLOCKS; i += THREADS)
        acc += partial[i];
    s[threadIdx.x] = acc;
    block_sum(s);
    if (threadIdx.x == 0) partial[SPX__CUDA_DOT_BLOCKS] = s[0];
}

extern "C" spx_status spx__cuda_vdot(int64_t n, spx_type t, const void *a, const void *b,
                                     double *scratch, double *out, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (t == SPX_F64)
        dot_partial<double><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(
            n, (const double *)a, (const double *)b, scratch);
    else
        dot_partial<float><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(
            n, (const float *)a, (const float *)b, scratch);
    dot_final<<<1, THREADS, 0, st>>>(scratch);
    spx_status s = launch_status("dot kernels");
    if (s != SPX_OK) return s;
    cudaError_t e = cudaMemcpyAsync(out, scratch + SPX__CUDA_DOT_BLOCKS, sizeof(double),
                                    cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "CUDA dot result copy failed: %s",
                          cudaGetErrorString(e));
    return SPX_OK;
}

/* y = alpha*x + beta*y; beta == 0 never reads y. */
template <typename T>
__global__ void axpby(int64_t n, double alpha, const T *__restrict__ x, double beta, T *y)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double v = alpha * (double)x[i];
        if (beta != 0.0) v += beta * (double)y[i];
        y[i] = (T)v;
    }
}

template <typename T> __global__ void mul(int64_t n, const T *d, const T *x, T *y)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = d[i] * x[i];
}

/* Blocks for an elementwise pass: enough to fill the device, at most one per
 * THREADS entries. */
static unsigned grid_for(int64_t n)
{
    int64_t blocks = (n + THREADS - 1) / THREADS;
    return (unsigned)(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
}

extern "C" spx_status spx__cuda_vaxpby(int64_t n, spx_type t, double alpha, const void *x,
                                       double beta, void *y, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (n == 0) return SPX_OK;
    if (t == SPX_F64)
        axpby<double><<<grid_for(n), THREADS, 0, st>>>(n, alpha, (const double *)x, beta,
                                                       (double *)y);
    else
        axpby<float><<<grid_for(n), THREADS, 0, st>>>(n, alpha, (const float *)x, beta,
                                                      (float *)y);
    return launch_status("axpby kernel");
}

extern "C" spx_status spx__cuda_vmul(int64_t n, spx_type t, const void *d, const void *x,
                                     void *y, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (n == 0) return SPX_OK;
    if (t == SPX_F64)
        mul<double><<<grid_for(n), THREADS, 0, st>>>(n, (const double *)d, (const double *)x,
                                                     (double *)y);
    else
        mul<float><<<grid_for(n), THREADS, 0, st>>>(n, (const float *)d, (const float *)x,
                                                    (float *)y);
    return launch_status("elementwise product kernel");
}

/* dst[k] = src[map[k]]: a random read and an ordered write per entry. */
template <typename T>
__global__ void gather(int64_t n, const int32_t *__restrict__ map, const T *__restrict__ src,
                       T *__restrict__ dst)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
        dst[k] = src[map[k]];
}

extern "C" spx_status spx__cuda_vgather(int64_t n, size_t elem, const int32_t *map,
                                        const void *src, void *dst, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (n == 0) return SPX_OK;
    if (elem == sizeof(double))
        gather<double><<<grid_for(n), THREADS, 0, st>>>(n, map, (const double *)src,
                                                        (double *)dst);
    else if (elem == sizeof(float))
        gather<float><<<grid_for(n), THREADS, 0, st>>>(n, map, (const float *)src,
                                                       (float *)dst);
    else if (elem == sizeof(uint16_t))
        gather<uint16_t><<<grid_for(n), THREADS, 0, st>>>(n, map, (const uint16_t *)src,
                                                          (uint16_t *)dst);
    else
        return spx__error(SPX_ERR_INVALID_ARG, "gather of %zu-byte entries", elem);
    return launch_status("gather kernel");
}

/* y[map[k]] += x[k]: the indices are distinct, so the adds do not race and
 * each is one rounding, the same as the host loop's. */
template <typename T>
__global__ void scatter_add(int64_t n, const int32_t *__restrict__ map, const T *__restrict__ x,
                            T *y)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
        y[map[k]] += x[k];
}

extern "C" spx_status spx__cuda_vscatter_add(int64_t n, spx_type t, const int32_t *map,
                                             const void *x, void *y, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (n == 0) return SPX_OK;
    if (t == SPX_F64)
        scatter_add<double><<<grid_for(n), THREADS, 0, st>>>(n, map, (const double *)x,
                                                             (double *)y);
    else
        scatter_add<float><<<grid_for(n), THREADS, 0, st>>>(n, map, (const float *)x,
                                                            (float *)y);
    return launch_status("scatter-add kernel");
}
