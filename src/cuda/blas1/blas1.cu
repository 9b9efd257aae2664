/* Device vector operations of the Krylov solvers (layout and the fixed
 * order of dot: blas1.h). Kernels are plain launches on the caller's stream,
 * so they follow whatever kernel came before in stream order. */
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/blas1/blas1.h"
#include "cuda/blas1/kernels.cuh"

#define THREADS SPX__BLAS1_THREADS

spx_status spx__blas1_launch_status(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) return SPX_OK;
    return spx__error(SPX_ERR_DEVICE, "CUDA %s failed: %s", what, cudaGetErrorString(e));
}

/* k dots (K a template constant) side by side, one launch: thread t of
 * block j sums a[i]*b[i] for i = j*THREADS + t + m*stride (m = 0, 1, ...),
 * then finish_dots (kernels.cuh). */
struct dot_pairs {
    const void *a[SPX__CUDA_DOTS_MAX], *b[SPX__CUDA_DOTS_MAX];
};

template <typename T, int K>
__global__ void __launch_bounds__(THREADS)
    dots(int64_t n, dot_pairs p, double *partial, unsigned *ticket, dot_tail tail)
{
    double acc[K];
    for (int d = 0; d < K; d++)
        acc[d] = 0.0;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
        for (int d = 0; d < K; d++)
            acc[d] += (double)((const T *)p.a[d])[i] * (double)((const T *)p.b[d])[i];
    finish_dots<K>(acc, partial, ticket, tail);
}

template <typename T>
static void launch_dots(int64_t n, int k, const dot_pairs &p, double *scratch,
                        const dot_tail &tail, cudaStream_t st)
{
    unsigned *ticket = dot_ticket(scratch);
    switch (k) {
    case 1: dots<T, 1><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(n, p, scratch, ticket, tail); break;
    case 2: dots<T, 2><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(n, p, scratch, ticket, tail); break;
    case 3: dots<T, 3><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(n, p, scratch, ticket, tail); break;
    default: dots<T, 4><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(n, p, scratch, ticket, tail);
    }
}

static spx_status dots_to(int64_t n, spx_type t, int k, const void *const *a,
                          const void *const *b, double *scratch, const dot_tail &tail,
                          void *stream)
{
    if (k < 1 || k > SPX__CUDA_DOTS_MAX)
        return spx__error(SPX_ERR_INVALID_ARG, "%d dots in one launch, not 1..%d", k,
                          SPX__CUDA_DOTS_MAX);
    dot_pairs p = {};
    for (int d = 0; d < k; d++) {
        p.a[d] = a[d];
        p.b[d] = b[d];
    }
    if (t == SPX_F64)
        launch_dots<double>(n, k, p, scratch, tail, (cudaStream_t)stream);
    else
        launch_dots<float>(n, k, p, scratch, tail, (cudaStream_t)stream);
    return spx__blas1_launch_status("dot kernel");
}

extern "C" spx_status spx__cuda_vdots(int64_t n, spx_type t, int k, const void *const *a,
                                      const void *const *b, double *scratch, double *out,
                                      void *stream)
{
    dot_tail tail = {};
    tail.out = out;
    return dots_to(n, t, k, a, b, scratch, tail, stream);
}

extern "C" spx_status spx__cuda_vdots_regs(int64_t n, spx_type t, int k, const void *const *a,
                                           const void *const *b, double *scratch, double *regs,
                                           const int *dst, const spx__sprog *p, double *publish,
                                           void *stream)
{
    return dots_to(n, t, k, a, b, scratch, dot_tail_of(regs, NULL, dst, k, p, publish), stream);
}

/* One thread: each of k dots summed over the parts in part order into its
 * register, then the program. */
static __global__ void combine(double *regs, const double *const *partials, int parts, int k,
                               dot_tail tail)
{
    for (int d = 0; d < k; d++) {
        double sum = 0.0;
        for (int i = 0; i < parts; i++)
            sum += partials[i][d];
        regs[tail.dst[d]] = sum;
    }
    run_program(regs, tail.p, tail.publish);
}

extern "C" spx_status spx__cuda_vcombine(double *regs, const double *const *partials, int parts,
                                         int k, const int *dst, const spx__sprog *p,
                                         double *publish, void *stream)
{
    combine<<<1, 1, 0, (cudaStream_t)stream>>>(regs, partials, parts, k,
                                               dot_tail_of(regs, NULL, dst, k, p, publish));
    return spx__blas1_launch_status("dot combine kernel");
}

static __global__ void scalars(double *regs, spx__sprog p, double *publish)
{
    run_program(regs, p, publish);
}

extern "C" spx_status spx__cuda_vscalars(double *regs, const spx__sprog *p, double *publish,
                                         void *stream)
{
    scalars<<<1, 1, 0, (cudaStream_t)stream>>>(regs, *p, publish);
    return spx__blas1_launch_status("scalar kernel");
}

/* y = alpha*x + beta*y + gamma*z, in double, in that order, the
 * coefficients c (from regs where they name a register: nothing is written
 * once regs[SPX__S_STOP] is set); a coefficient 0 never reads its vector. */
struct coefs {
    spx__coef c[3];
};

template <typename T>
__global__ void lincomb(int64_t n, coefs c, const double *regs, const T *x, T *y, const T *z)
{
    if (regs && regs[SPX__S_STOP] != 0.0) return;
    const double alpha = spx__coef_value(c.c[0], regs), beta = spx__coef_value(c.c[1], regs),
                 gamma = spx__coef_value(c.c[2], regs);
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = (T)lincomb_entry(alpha, x[i], beta, &y[i], gamma, z ? &z[i] : z);
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

extern "C" spx_status spx__cuda_vlincomb(int64_t n, spx_type t, const spx__coef *c,
                                         const double *regs, const void *x, void *y,
                                         const void *z, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    coefs k = {{c[0], c[1], c[2]}};
    if (n == 0) return SPX_OK;
    if (t == SPX_F64)
        lincomb<double><<<grid_for(n), THREADS, 0, st>>>(n, k, regs, (const double *)x,
                                                         (double *)y, (const double *)z);
    else
        lincomb<float><<<grid_for(n), THREADS, 0, st>>>(n, k, regs, (const float *)x, (float *)y,
                                                        (const float *)z);
    return spx__blas1_launch_status("linear combination kernel");
}

/* lincomb's y, then y'y: the same entries, then the dot of dots's order
 * (kernels.cuh); the dot is of y as it is, updated or not. */
template <typename T>
__global__ void __launch_bounds__(THREADS)
    lincomb_dot(int64_t n, coefs c, double *regs, const T *x, T *y, const T *z, double *partial,
                unsigned *ticket, dot_tail tail)
{
    const bool live = regs[SPX__S_STOP] == 0.0;
    const double alpha = spx__coef_value(c.c[0], regs), beta = spx__coef_value(c.c[1], regs),
                 gamma = spx__coef_value(c.c[2], regs);
    double acc[1] = {0.0};
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        T yi;
        if (live) {
            yi = (T)lincomb_entry(alpha, x[i], beta, &y[i], gamma, z ? &z[i] : z);
            y[i] = yi;
        } else {
            yi = y[i];
        }
        acc[0] += (double)yi * (double)yi;
    }
    finish_dots<1>(acc, partial, ticket, tail);
}

extern "C" spx_status spx__cuda_vlincomb_dot(int64_t n, spx_type t, const spx__coef *c,
                                             double *regs, const void *x, void *y, const void *z,
                                             double *scratch, double *partial, int dst,
                                             const spx__sprog *p, double *publish, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    coefs k = {{c[0], c[1], c[2]}};
    const dot_tail tail = dot_tail_of(regs, partial, &dst, 1, p, publish);
    if (t == SPX_F64)
        lincomb_dot<double><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(
            n, k, regs, (const double *)x, (double *)y, (const double *)z, scratch,
            dot_ticket(scratch), tail);
    else
        lincomb_dot<float><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(
            n, k, regs, (const float *)x, (float *)y, (const float *)z, scratch,
            dot_ticket(scratch), tail);
    return spx__blas1_launch_status("linear combination and dot kernel");
}

extern "C" spx_status spx__cuda_vaxpbypcz(int64_t n, spx_type t, double alpha, const void *x,
                                          double beta, void *y, double gamma, const void *z,
                                          void *stream)
{
    const spx__coef c[3] = {{alpha, -1}, {beta, -1}, {gamma, -1}};
    return spx__cuda_vlincomb(n, t, c, NULL, x, y, z, stream);
}

extern "C" spx_status spx__cuda_vaxpby(int64_t n, spx_type t, double alpha, const void *x,
                                       double beta, void *y, void *stream)
{
    return spx__cuda_vaxpbypcz(n, t, alpha, x, beta, y, 0.0, NULL, stream);
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
    return spx__blas1_launch_status("elementwise product kernel");
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
    return spx__blas1_launch_status("gather kernel");
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
    return spx__blas1_launch_status("scatter-add kernel");
}
