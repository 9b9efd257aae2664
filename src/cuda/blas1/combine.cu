/* Linear combinations of basis vectors (combine.h): a launch takes up to
 * OUT outputs and IN vectors; each thread walks its entries (a grid-stride
 * loop), loads each vector's entry once and adds it, times each output's
 * coefficient (shared memory), into OUT sums in registers. Past IN vectors
 * a launch adds to the outputs the launch before wrote (kept in double
 * while T is double; a float output is rounded once per IN vectors). */
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/blas1/combine.h"
#include "cuda/blas1/kernels.cuh"

#define OUT SPX__CUDA_COMBINE_OUT
#define IN SPX__CUDA_COMBINE_IN
#define THREADS SPX__BLAS1_THREADS

struct combine_launch {
    const void *v[IN];
    void *u[OUT];
    int nv, nu;
    int add; /* 1: u += the sum (a later group of vectors), 0: u = the sum */
};

template <typename T>
__global__ void __launch_bounds__(THREADS)
    combine_pass(int64_t n, combine_launch a, const double *coef, int64_t ld)
{
    __shared__ double c[OUT][IN]; /* c[o][q]: output o's coefficient of vector q */
    for (int x = threadIdx.x; x < OUT * IN; x += THREADS) {
        const int o = x / IN, q = x % IN;
        c[o][q] = o < a.nu && q < a.nv ? coef[o * ld + q] : 0.0;
    }
    __syncthreads();
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        double acc[OUT];
#pragma unroll
        for (int o = 0; o < OUT; o++)
            acc[o] = a.add && o < a.nu ? (double)((const T *)a.u[o])[i] : 0.0;
        for (int q = 0; q < a.nv; q++) {
            const double v = (double)((const T *)a.v[q])[i];
#pragma unroll
            for (int o = 0; o < OUT; o++)
                acc[o] += c[o][q] * v;
        }
#pragma unroll
        for (int o = 0; o < OUT; o++)
            if (o < a.nu) ((T *)a.u[o])[i] = (T)acc[o];
    }
}

/* Outputs [o0, o0 + nu) from vectors [q0, q0 + nv). */
static spx_status launch_group(int64_t n, spx_type t, int64_t k, const void *const *V, int64_t q0,
                               int nv, void *const *U, int64_t o0, int nu, const double *coef,
                               void *stream)
{
    combine_launch a = {};
    for (int q = 0; q < nv; q++)
        a.v[q] = V[q0 + q];
    for (int o = 0; o < nu; o++)
        a.u[o] = U[o0 + o];
    a.nv = nv;
    a.nu = nu;
    a.add = q0 > 0;
    const double *c = coef + o0 * k + q0;
    const int blocks = SPX__CUDA_DOT_BLOCKS;
    if (t == SPX_F64)
        combine_pass<double><<<blocks, THREADS, 0, (cudaStream_t)stream>>>(n, a, c, k);
    else
        combine_pass<float><<<blocks, THREADS, 0, (cudaStream_t)stream>>>(n, a, c, k);
    return spx__blas1_launch_status("combine kernel");
}

extern "C" spx_status spx__cuda_vlinear_combine(int64_t n, spx_type t, int64_t k,
                                                const void *const *V, int64_t l, void *const *U,
                                                const double *coef, void *stream)
{
    spx_status st = SPX_OK;
    if (k < 1 || l < 0)
        return spx__error(SPX_ERR_INVALID_ARG, "combine of %lld vectors into %lld", (long long)k,
                          (long long)l);
    for (int64_t o0 = 0; o0 < l && st == SPX_OK; o0 += OUT)
        for (int64_t q0 = 0; q0 < k && st == SPX_OK; q0 += IN)
            st = launch_group(n, t, k, V, q0, (int)(k - q0 < IN ? k - q0 : IN), U, o0,
                              (int)(l - o0 < OUT ? l - o0 : OUT), coef, stream);
    return st;
}
