/* SELL-32 SpMV kernel, y = alpha*A*x + beta*y (layout: sell_kernels.h).
 *
 * A warp per slice, a lane per row: step k's 32 entries are one coalesced
 * load of values and one of columns (or 16-bit offsets plus the step's base,
 * one broadcast load), so no shared memory and no row offsets. A lane loads
 * STEPS steps before it gathers their x, to keep that many loads in flight.
 * Stamped out for the value type V, the sum and y type T and the x type X as
 * in csr_spmv.cu; the matrix is loaded with the streaming hint (__ldcs), x
 * through L1 (spx__ld_fresh). With p->pdl the first steps' loads overlap the
 * end of the kernel before; x and y are touched after the wait (pdl.cuh). */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/pdl.cuh"
#include "cuda/sell/sell_kernels.h"

#define BLOCK 256 /* threads a block: 8 slices at once */
#define STEPS 8   /* steps a lane loads before gathering */

template <typename T> __device__ __forceinline__ T finish(T sum, T alpha, T beta, const T *y)
{
    return beta == T(0) ? alpha * sum : alpha * sum + beta * *y;
}

/* The matrix arrays of a plan, device pointers. */
template <typename V> struct sell_in {
    const int64_t *sptr;
    const int32_t *col;  /* u32 */
    const uint16_t *off; /* u16 */
    const int32_t *base; /* u16 */
    const V *val;
    const int32_t *perm; /* NULL: rows in order */
};

/* Column of entry e of step k, -1 for padding. */
template <typename V, bool U16>
__device__ __forceinline__ int column(const sell_in<V> &a, int64_t k, int64_t e)
{
    if constexpr (U16) {
        const unsigned o = __ldcs(a.off + e);
        return o == SPX__CUDA_SELL_U16_PAD ? -1 : __ldcs(a.base + k) + (int)o;
    } else {
        return __ldcs(a.col + e);
    }
}

template <typename V, typename T, typename X, bool U16>
__global__ void __launch_bounds__(BLOCK)
    sell_kernel(int64_t n_slices, int64_t rows, sell_in<V> a, const X *__restrict__ x,
                T *__restrict__ y, T alpha, T beta)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * (BLOCK / 32);
    spx__pdl_let_next_start();
    for (int64_t s = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; s < n_slices; s += stride) {
        const int64_t k0 = __ldg(a.sptr + s), k1 = __ldg(a.sptr + s + 1);
        T sum = T(0);
        for (int64_t k = k0; k < k1; k += STEPS) {
            int c[STEPS];
            V v[STEPS];
#pragma unroll
            for (int j = 0; j < STEPS; j++) {
                c[j] = -1;
                if (k + j < k1) {
                    const int64_t e = SPX__CUDA_SELL_C * (k + j) + lane;
                    v[j] = __ldcs(a.val + e);
                    c[j] = column<V, U16>(a, k + j, e);
                }
            }
            const X *xa = spx__pdl_after(x);
            T xg[STEPS];
#pragma unroll
            for (int j = 0; j < STEPS; j++)
                xg[j] = c[j] >= 0 ? T(spx__ld_fresh(xa + c[j])) : T(0);
#pragma unroll
            for (int j = 0; j < STEPS; j++)
                if (c[j] >= 0) sum += T(v[j]) * xg[j];
        }
        T *ya = spx__pdl_after(y);
        const int64_t i = SPX__CUDA_SELL_C * s + lane;
        if (i < rows) {
            const int64_t row = a.perm ? (int64_t)__ldg(a.perm + i) : i;
            ya[row] = finish(sum, alpha, beta, ya + row);
        }
    }
    spx__pdl_wait(); /* a warp without slices */
}

/* Blocks for the slices, 8 a block, capped (the kernel loops). */
static unsigned grid_for(int64_t n_slices)
{
    const int64_t b = (n_slices + BLOCK / 32 - 1) / (BLOCK / 32);
    return (unsigned)(b < 1 ? 1 : b > (1 << 30) ? (1 << 30) : b);
}

template <typename V, typename T, typename X>
static void launch(const spx__cuda_sell_plan *p, double alpha, const void *x, double beta, void *y)
{
    const spx__cuda_sell *S = &p->S;
    const sell_in<V> a = {S->sptr, S->col, S->off, S->base, (const V *)S->values, S->perm};
    cudaStream_t s = (cudaStream_t)p->stream;
    if (S->index == SPX__CUDA_SELL_U16)
        spx__launch(sell_kernel<V, T, X, true>, grid_for(S->n_slices), BLOCK, s, p->pdl,
                    S->n_slices, S->rows, a, (const X *)x, (T *)y, (T)alpha, (T)beta);
    else
        spx__launch(sell_kernel<V, T, X, false>, grid_for(S->n_slices), BLOCK, s, p->pdl,
                    S->n_slices, S->rows, a, (const X *)x, (T *)y, (T)alpha, (T)beta);
}

extern "C" spx_status spx__cuda_sell_spmv(const spx__cuda_sell_plan *p, double alpha, const void *x,
                                          double beta, void *y)
{
    if (!p || (p->S.rows > 0 && !y) || (p->S.cols > 0 && !x))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda sell spmv: NULL plan or vector");
    if (p->S.rows == 0) return SPX_OK;
    if (p->precision == SPX_F64)
        launch<double, double, double>(p, alpha, x, beta, y);
    else if (p->precision == SPX_F32)
        launch<float, float, float>(p, alpha, x, beta, y);
    else if (p->x_half)
        launch<__half, float, __half>(p, alpha, x, beta, y);
    else
        launch<__half, float, float>(p, alpha, x, beta, y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda sell spmv launch failed: %s",
                          cudaGetErrorString(e));
    return SPX_OK;
}
