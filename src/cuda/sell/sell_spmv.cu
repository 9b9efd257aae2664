/* SELL-32 SpMV kernel, y = alpha*A*x + beta*y (layout: sell_kernels.h).
 *
 * A warp per slice, a lane per row: step k's 32 entries are one coalesced
 * load of values and one of columns (or 16-bit offsets plus the step's base,
 * one broadcast load), so no shared memory and no row offsets. A lane loads
 * STEPS steps before it gathers their x, to keep that many loads in flight.
 * Stamped out for the value type V (spx__iso_val for iso plans: no values
 * read, the one value folded into alpha; csr/iso.cuh), the sum and y type T
 * and the x type X as in csr_spmv.cu; the matrix is loaded with the streaming hint (__ldcs), x
 * through L1 (spx__ld_fresh). With p->pdl the first steps' loads overlap the
 * end of the kernel before; x and y are touched after the wait (pdl.cuh).
 * Below the product, the refill of an update's values (spx__cuda_sell_refill). */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>
#include <type_traits>

extern "C" {
#include "core/error.h"
}
#include "cuda/csr/iso.cuh"
#include "cuda/gateway.h"
#include "cuda/pdl.cuh"
#include "cuda/sell/sell_kernels.h"

#define BLOCK 256 /* threads a block: 8 slices at once */
#ifndef SPX_SELL_STEPS
#define SPX_SELL_STEPS 8 /* steps a lane loads before gathering */
#endif
#define STEPS SPX_SELL_STEPS

template <typename T> __device__ __forceinline__ T finish(T sum, T alpha, T beta, const T *y)
{
    return beta == T(0) ? alpha * sum : alpha * sum + beta * *y;
}

/* The matrix arrays of a plan, device pointers. */
template <typename V> struct sell_in {
    const int64_t *sptr;
    const int32_t *col;     /* u32 */
    const uint16_t *off;    /* u16 */
    const int32_t *base;    /* u16, packed */
    const V *val;           /* u32, u16 */
    const uint32_t *packed; /* packed: off << 16 | half bits */
    const int32_t *perm;    /* NULL: rows in order */
};

/* How a kernel reads its entries' columns: INDEX_U32 col[e]; INDEX_U16
 * base[k] + off[e]; INDEX_PACKED (V = half) value and offset from one word. */
enum { INDEX_U32, INDEX_U16, INDEX_PACKED };

/* Value and column (-1 for padding) of entry e of step k. The step's base
 * (u16, packed) is one broadcast load, issued with the entry's own and
 * whether or not the entry is padding: each load that waits on another costs
 * a round trip to memory, which this kernel (a short chain of loads per warp)
 * pays in full. A base loaded only after its offset made u16 2x slower than
 * u32 (lap3d27:96 fp16 0.0998 ms against 0.0522); one base load per batch of
 * steps, shuffled to the entries, 1.4x slower than this (lap3d7:200 fp16
 * 0.2163 against 0.1527) and took up to 88 registers. */
template <typename V, int INDEX>
__device__ __forceinline__ void entry(const sell_in<V> &a, int64_t k, int64_t e, V &v, int &c)
{
    if constexpr (INDEX == INDEX_U32) {
        v = spx__load_val(a.val, e);
        c = __ldcs(a.col + e);
    } else {
        const int base = __ldcs(a.base + k);
        unsigned o;
        if constexpr (INDEX == INDEX_PACKED) {
            const unsigned w = __ldcs(a.packed + e);
            v = __ushort_as_half((unsigned short)(w & 0xffffu));
            o = w >> 16;
        } else {
            v = spx__load_val(a.val, e);
            o = __ldcs(a.off + e);
        }
        c = o == SPX__CUDA_SELL_U16_PAD ? -1 : base + (int)o;
    }
}

template <typename V, typename T, typename X, int INDEX>
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
        for (int64_t k = k0; k < k1; k += STEPS) { /* k and k1: the same for the warp */
            int c[STEPS];
            V v[STEPS];
#pragma unroll
            for (int j = 0; j < STEPS; j++) {
                c[j] = -1;
                if (k + j < k1)
                    entry<V, INDEX>(a, k + j, SPX__CUDA_SELL_C * (k + j) + lane, v[j], c[j]);
            }
            const X *xa = spx__pdl_after(x);
            T xg[STEPS];
#pragma unroll
            for (int j = 0; j < STEPS; j++)
                xg[j] = c[j] >= 0 ? T(spx__ld_fresh(xa + c[j])) : T(0);
#pragma unroll
            for (int j = 0; j < STEPS; j++)
                if (c[j] >= 0) sum += spx__times(v[j], xg[j]);
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

template <typename V, typename T, typename X, int INDEX>
static void launch_index(const spx__cuda_sell_plan *p, const sell_in<V> &a, double alpha,
                         const void *x, double beta, void *y)
{
    spx__launch(sell_kernel<V, T, X, INDEX>, grid_for(p->S.n_slices), BLOCK,
                (cudaStream_t)p->stream, p->pdl, p->S.n_slices, p->S.rows, a, (const X *)x, (T *)y,
                (T)alpha, (T)beta);
}

template <typename V, typename T, typename X>
static void launch(const spx__cuda_sell_plan *p, double alpha, const void *x, double beta, void *y)
{
    const spx__cuda_sell *S = &p->S;
    const sell_in<V> a = {S->sptr,   S->col, S->off, S->base, (const V *)S->values,
                          S->packed, S->perm};
    if (S->index == SPX__CUDA_SELL_U32)
        launch_index<V, T, X, INDEX_U32>(p, a, alpha, x, beta, y);
    else if constexpr (std::is_same<V, __half>::value) /* fp16 with u16: packed */
        launch_index<V, T, X, INDEX_PACKED>(p, a, alpha, x, beta, y);
    else
        launch_index<V, T, X, INDEX_U16>(p, a, alpha, x, beta, y);
}

/* The kernel of a plan of values V: V's, or the iso one with the plan's
 * value folded into alpha. */
template <typename V, typename T, typename X>
static void launch_values(const spx__cuda_sell_plan *p, double alpha, const void *x, double beta,
                          void *y)
{
    if (p->iso)
        launch<spx__iso_val, T, X>(p, alpha * p->iso_value, x, beta, y);
    else
        launch<V, T, X>(p, alpha, x, beta, y);
}

/* packed[i] = off[i] << 16 | bits of vals[i]. */
__global__ void pack_kernel(uint32_t *packed, const __half *vals, const uint16_t *off, int64_t n)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        packed[i] = (uint32_t)off[i] << 16 | __half_as_ushort(vals[i]);
}

extern "C" spx_status spx__cuda_sell_pack(const void *vals, const uint16_t *off, int64_t n,
                                          uint32_t **packed)
{
    *packed = NULL;
    spx_status st =
        spx__cuda_alloc((void **)packed, (size_t)n * sizeof **packed, "cuda sell packed entries");
    if (st != SPX_OK) return st;
    if (n > 0) {
        const int64_t b = (n + 255) / 256;
        pack_kernel<<<(unsigned)(b < 4096 ? b : 4096), 256>>>(*packed, (const __half *)vals, off,
                                                              n);
    }
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        spx__cuda_free(*packed);
        *packed = NULL;
        return spx__error(SPX_ERR_DEVICE, "cuda sell packing: %s", cudaGetErrorString(e));
    }
    return SPX_OK;
}

extern "C" spx_status spx__cuda_sell_spmv(const spx__cuda_sell_plan *p, double alpha, const void *x,
                                          double beta, void *y)
{
    if (!p || (p->S.rows > 0 && !y) || (p->S.cols > 0 && !x))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda sell spmv: NULL plan or vector");
    if (p->S.rows == 0) return SPX_OK;
    if (p->precision == SPX_F64)
        launch_values<double, double, double>(p, alpha, x, beta, y);
    else if (p->precision == SPX_F32)
        launch_values<float, float, float>(p, alpha, x, beta, y);
    else if (p->x_half)
        launch_values<__half, float, __half>(p, alpha, x, beta, y);
    else
        launch_values<__half, float, float>(p, alpha, x, beta, y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda sell spmv launch failed: %s",
                          cudaGetErrorString(e));
    return SPX_OK;
}

/* An update's refill (spx__cuda_sell_refill), three steps on the plan's
 * stream, a warp per slice and a lane per row as in the product: each row's
 * length (its lane's slots before the padding, sell_kernels.h) into len[row];
 * the row offsets, rowptr = the exclusive sum of len over rows + 1 entries
 * (len[rows] = 0, so rowptr[rows] is nnz); then slot 32 (sptr[s] + j) + l
 * takes entry rowptr[row] + j of src for j below the row's length, 0 past
 * it. E is an unsigned type of the values' size: the bits are copied as
 * they are (converted already). PACKED (E 16 bits): dst holds words off <<
 * 16 | value, whose offsets stay. */
__global__ void __launch_bounds__(BLOCK)
    row_lengths_kernel(int64_t n_slices, int64_t rows, const int64_t *__restrict__ sptr,
                       const int32_t *__restrict__ perm, const int32_t *__restrict__ col,
                       const uint16_t *__restrict__ off, const uint32_t *__restrict__ packed,
                       int64_t *__restrict__ len)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * (BLOCK / 32);
    for (int64_t s = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; s < n_slices; s += stride) {
        const int64_t r = spx__cuda_sell_lane_row(perm, rows, SPX__CUDA_SELL_C * s + lane);
        if (r >= 0) len[r] = spx__cuda_sell_lane_len(col, off, packed, sptr[s], sptr[s + 1], lane);
    }
}

template <typename E, bool PACKED>
__global__ void __launch_bounds__(BLOCK)
    refill_kernel(int64_t n_slices, int64_t rows, const int64_t *__restrict__ sptr,
                  const int32_t *__restrict__ perm, const int64_t *__restrict__ rowptr,
                  const E *__restrict__ src, void *__restrict__ dst)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * (BLOCK / 32);
    for (int64_t s = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; s < n_slices; s += stride) {
        const int64_t r = spx__cuda_sell_lane_row(perm, rows, SPX__CUDA_SELL_C * s + lane);
        const int64_t first = r >= 0 ? rowptr[r] : 0, len = r >= 0 ? rowptr[r + 1] - first : 0;
        const int64_t k0 = sptr[s], k1 = sptr[s + 1];
        for (int64_t k = k0; k < k1; k++) {
            const int64_t e = SPX__CUDA_SELL_C * k + lane;
            const E v = k - k0 < len ? src[first + (k - k0)] : E(0);
            if constexpr (PACKED) {
                uint32_t *w = (uint32_t *)dst + e;
                *w = (*w & 0xffff0000u) | v;
            } else {
                ((E *)dst)[e] = v;
            }
        }
    }
}

template <typename E, bool PACKED>
static void launch_refill(const spx__cuda_sell_plan *p, const int64_t *rowptr, const void *src,
                          void *dst)
{
    refill_kernel<E, PACKED><<<grid_for(p->S.n_slices), BLOCK, 0, (cudaStream_t)p->stream>>>(
        p->S.n_slices, p->S.rows, p->S.sptr, p->S.perm, rowptr, (const E *)src, dst);
}

/* The plan's row offsets, found from its layout into rowptr (rows + 1),
 * with len (rows + 1) and *scan (cub's scratch, allocated here) as scratch;
 * queued on the plan's stream. */
static cudaError_t find_row_offsets(const spx__cuda_sell_plan *p, int64_t *len, int64_t *rowptr,
                                    void **scan)
{
    const spx__cuda_sell *S = &p->S;
    const cudaStream_t s = (cudaStream_t)p->stream;
    const int64_t n = S->rows + 1;
    size_t bytes = 0;
    cudaError_t e = cudaMemsetAsync(len, 0, (size_t)n * sizeof *len, s);
    if (e != cudaSuccess) return e;
    row_lengths_kernel<<<grid_for(S->n_slices), BLOCK, 0, s>>>(S->n_slices, S->rows, S->sptr, S->perm,
                                                               S->col, S->off, S->packed, len);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    if ((e = cub::DeviceScan::ExclusiveSum(NULL, bytes, len, rowptr, n, s)) != cudaSuccess) return e;
    if ((e = cudaMallocAsync(scan, bytes, s)) != cudaSuccess) return e;
    return cub::DeviceScan::ExclusiveSum(*scan, bytes, len, rowptr, n, s);
}

extern "C" spx_status spx__cuda_sell_refill(const spx__cuda_sell_plan *p, const void *src,
                                            void *dst, int packed)
{
    if (!p || !src || !dst || (packed && p->precision != SPX_F16))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda sell refill: bad argument");
    if (p->S.n_slices == 0) return SPX_OK;
    const cudaStream_t s = (cudaStream_t)p->stream;
    const size_t bytes = (size_t)(p->S.rows + 1) * sizeof(int64_t);
    int64_t *len = NULL, *rowptr = NULL;
    void *scan = NULL;
    cudaError_t e = cudaMallocAsync((void **)&len, bytes, s);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&rowptr, bytes, s);
    if (e == cudaSuccess) e = find_row_offsets(p, len, rowptr, &scan);
    if (e == cudaSuccess) {
        if (packed)
            launch_refill<uint16_t, true>(p, rowptr, src, dst);
        else if (p->precision == SPX_F64)
            launch_refill<uint64_t, false>(p, rowptr, src, dst);
        else if (p->precision == SPX_F32)
            launch_refill<uint32_t, false>(p, rowptr, src, dst);
        else
            launch_refill<uint16_t, false>(p, rowptr, src, dst);
        e = cudaGetLastError();
    }
    if (scan) cudaFreeAsync(scan, s);
    if (rowptr) cudaFreeAsync(rowptr, s);
    if (len) cudaFreeAsync(len, s);
    const cudaError_t done = cudaStreamSynchronize(s);
    if (e == cudaSuccess) e = done;
    if (e != cudaSuccess)
        return spx__error(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                          "cuda sell refill: %s", cudaGetErrorString(e));
    return SPX_OK;
}
