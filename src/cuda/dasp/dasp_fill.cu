/* DASP's device fill and refill (layout in dasp.h): every entry k = rowptr[i] +
 * s of row i is written to its slot spx__dasp_slot(placement of i, s), the
 * placement read from the packing's row lists on the device (spx__dasp_walk):
 *   places of the walk (rows of at most SPX__DASP_MAX_LEN entries): ROW_LANES
 *     lanes per place, lane q taking s = q, q + ROW_LANES, ... (a warp reads
 *     32 / ROW_LANES rows' entries);
 *   long rows: one thread block per row (they are few and long).
 * Every slot has at most one writer, so the result does not depend on the
 * order the threads run in.
 *   fill (analyze, prep=gpu): A's CSR is uploaded once (32- or 64-bit
 *     columns, fp64 or fp32 values, as A holds them; the row offsets are the
 *     plan's), the packed arrays are set to padding (column -1, value 0, both
 *     all-bytes memsets), then every entry's column and value are written;
 *     an iso packing (val NULL) gets its columns alone: A's values are neither
 *     uploaded nor converted;
 *   refill (spx_plan_update_values): the new values (copied over first when
 *     on the host) into their slots; the columns and padding stay.
 * Values are converted on the device: fp64 kept; for F16 __double2half,
 * round to nearest even like the host's conversion (and a NaN as the host's
 * gives it, 0x7fff, where the device's cvt gives another NaN). Before
 * anything is written, a finite value that would become an infinity in half
 * is looked for (the lowest CSR index, by atomicMin): it declines the plan
 * or refuses the update, naming it. The temporaries are freed on return. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <math.h>
#include <stdint.h>

extern "C" {
#include "core/error.h"
#include "core/matrix.h"
}
#include "cuda/dasp/dasp.h"
#include "cuda/gateway.h"

#define ROW_LANES 8
#define FILL_THREADS 256
#define RANGE_BLOCKS 1024 /* grid of the half-range check (grid-stride) */

/* ------------------------------------------------------------ allocation */

/* Test hook state (spx__dasp_dev_fail_at): allocations counted since the
 * last call, and the one to fail (0: none). */
static std::atomic<long> dev_alloc_count(0), dev_alloc_fail_n(0);

extern "C" long spx__dasp_dev_fail_at(long n)
{
    long made = dev_alloc_count.exchange(0);
    dev_alloc_fail_n.store(n);
    return made;
}

extern "C" spx_status spx__dasp_dev_alloc(void **p, size_t bytes, const char *what)
{
    *p = NULL;
    if (bytes == 0) return SPX_OK;
    long n = dev_alloc_count.fetch_add(1) + 1, fail = dev_alloc_fail_n.load();
    cudaError_t e = fail > 0 && n == fail ? cudaErrorMemoryAllocation : cudaMalloc(p, bytes);
    if (e == cudaSuccess) return SPX_OK;
    *p = NULL;
    cudaGetLastError();
    return spx__error(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                      "dasp: cudaMalloc of %zu bytes for %s failed: %s%s", bytes, what,
                      cudaGetErrorString(e), fail > 0 && n == fail ? " (injected)" : "");
}

/* ---------------------------------------------------------------- kernels */

/* The walk (device arrays, A's row offsets among them), A's columns and
 * values in CSR order (col NULL: values only; val NULL: columns only), and
 * the packed arrays to write. */
template <class C, class V, class O> struct fill_args {
    spx__dasp_walk w;
    const C *col;
    const V *val;
    int32_t *out_col;
    O *out_val;
};

static __device__ __forceinline__ __half to_half(double v)
{
    return isnan(v) ? __ushort_as_half((unsigned short)0x7fffu) : __double2half(v);
}

static __device__ __forceinline__ void store_value(double *out, int64_t e, double v)
{
    out[e] = v;
}

static __device__ __forceinline__ void store_value(__half *out, int64_t e, double v)
{
    out[e] = to_half(v);
}

/* Entries s = s0, s0 + step, ... of row i, placed at (slot, rest, reg). */
template <class C, class V, class O>
static __device__ __forceinline__ void scatter_row(const fill_args<C, V, O> &a, int32_t i,
                                                   int64_t slot, int64_t rest, int64_t reg,
                                                   int64_t s0, int64_t step)
{
    int64_t beg = a.w.rowptr[i], len = a.w.rowptr[i + 1] - beg;
    for (int64_t s = s0; s < len; s += step) {
        int64_t e = spx__dasp_slot(slot, rest, reg, s);
        if (a.col) a.out_col[e] = (int32_t)a.col[beg + s];
        if (a.val) store_value(a.out_val, e, (double)a.val[beg + s]);
    }
}

template <class C, class V, class O>
__global__ void __launch_bounds__(FILL_THREADS) fill_places(fill_args<C, V, O> a, int64_t places)
{
    int64_t q = ((int64_t)blockIdx.x * FILL_THREADS + threadIdx.x) / ROW_LANES;
    if (q >= places) return;
    int64_t slot, rest, reg;
    int32_t i = spx__dasp_walk_row(&a.w, q, &slot, &rest, &reg);
    if (i >= 0) scatter_row(a, i, slot, rest, reg, (int64_t)(threadIdx.x % ROW_LANES), ROW_LANES);
}

template <class C, class V, class O>
__global__ void __launch_bounds__(FILL_THREADS) fill_long(fill_args<C, V, O> a)
{
    int64_t r = blockIdx.x;
    scatter_row(a, a.w.long_row[r], 0, spx__dasp_walk_long(&a.w, r), 0, (int64_t)threadIdx.x,
                FILL_THREADS);
}

/* *bad = the lowest k < n whose finite value becomes an infinity in half. */
template <class V>
__global__ void __launch_bounds__(FILL_THREADS)
    half_range(const V *val, int64_t n, unsigned long long *bad)
{
    int64_t stride = (int64_t)gridDim.x * FILL_THREADS;
    for (int64_t k = (int64_t)blockIdx.x * FILL_THREADS + threadIdx.x; k < n; k += stride) {
        double v = (double)val[k];
        if (!isinf(v) && __hisinf(to_half(v))) atomicMin(bad, (unsigned long long)k);
    }
}

/* -------------------------------------------------------------- host side */

static spx_status cuda_error(cudaError_t e, const char *what)
{
    return spx__error(SPX_ERR_DEVICE, "dasp fill: %s failed: %s", what, cudaGetErrorString(e));
}

/* *dst = a new device copy of bytes of host memory, ordered on stream (large
 * arrays through pinned staging buffers, src/cuda/staged.cu). */
static spx_status upload(void **dst, const void *src, size_t bytes, cudaStream_t stream,
                         const char *what)
{
    spx_status st = spx__dasp_dev_alloc(dst, bytes, what);
    if (st != SPX_OK || bytes == 0) return st;
    return spx__cuda_copy_staged(*dst, src, bytes, stream);
}

/* The n device values at val (of type V) against half's range: a finite one
 * that becomes an infinity is SPX_ERR_UNSUPPORTED naming the first. */
template <class V> static spx_status check_half_range(const V *val, int64_t n, cudaStream_t s)
{
    unsigned long long *flag = NULL, bad = ~0ull;
    V v = 0;
    int64_t want = (n + FILL_THREADS - 1) / FILL_THREADS;
    unsigned blocks = (unsigned)(want < RANGE_BLOCKS ? want : RANGE_BLOCKS);
    spx_status st;
    cudaError_t e;
    if (n == 0) return SPX_OK;
    SPX_TRY(spx__dasp_dev_alloc((void **)&flag, sizeof *flag, "dasp fp16 range flag"));
    e = cudaMemsetAsync(flag, 0xff, sizeof *flag, s);
    if (e == cudaSuccess) {
        half_range<V><<<blocks, FILL_THREADS, 0, s>>>(val, n, flag);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&bad, flag, sizeof bad, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e == cudaSuccess && bad != ~0ull)
        e = cudaMemcpy(&v, val + bad, sizeof v, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) SPX_TRY(cuda_error(e, "the dasp fp16 range check"));
    if (bad != ~0ull)
        st = spx__error(SPX_ERR_UNSUPPORTED, "dasp fp16: value %g is beyond the half range (65504)",
                        (double)v);
cleanup:
    if (st != SPX_OK) cudaStreamSynchronize(s); /* nothing in flight uses flag */
    cudaFree(flag);
    return st;
}

/* The scatter of the walk w: the places' rows, then the long rows. */
template <class C, class V, class O>
static void launch(const spx__dasp_walk *w, const void *col, const void *val, int32_t *out_col,
                   void *out_val, cudaStream_t stream)
{
    fill_args<C, V, O> a = {*w, (const C *)col, (const V *)val, out_col, (O *)out_val};
    int64_t places = spx__dasp_walk_len(w);
    int64_t blocks = (places * ROW_LANES + FILL_THREADS - 1) / FILL_THREADS;
    if (blocks > 0) fill_places<C, V, O><<<(unsigned)blocks, FILL_THREADS, 0, stream>>>(a, places);
    if (w->n_long > 0) fill_long<C, V, O><<<(unsigned)w->n_long, FILL_THREADS, 0, stream>>>(a);
}

/* The kernels for A's column and value types and the output precision. */
template <class O>
static void launch_for(const spx_matrix *A, const spx__dasp_walk *w, const void *col,
                       const void *val, int32_t *out_col, void *out_val, cudaStream_t stream)
{
    int c32 = A->col_bits == 32, v64 = A->vtype == SPX_F64;
    if (c32 && v64)
        launch<int32_t, double, O>(w, col, val, out_col, out_val, stream);
    else if (c32)
        launch<int32_t, float, O>(w, col, val, out_col, out_val, stream);
    else if (v64)
        launch<int64_t, double, O>(w, col, val, out_col, out_val, stream);
    else
        launch<int64_t, float, O>(w, col, val, out_col, out_val, stream);
}

/* Padding in every slot: column -1 (all bytes 0xff), value +0 (all zero). */
static spx_status set_padding(const spx__dasp_host *h, size_t vb, void *val, int32_t *col,
                              cudaStream_t stream)
{
    size_t n = (size_t)h->n_entries;
    cudaError_t e = cudaMemsetAsync(col, 0xff, n * sizeof(int32_t), stream);
    if (e == cudaSuccess && val) e = cudaMemsetAsync(val, 0, n * vb, stream);
    return e == cudaSuccess ? SPX_OK : cuda_error(e, "cudaMemsetAsync of the dasp padding");
}

/* A's values on the device (vtype) against half's range. */
static spx_status check_values(const spx_matrix *A, const void *val, cudaStream_t s)
{
    if (A->vtype == SPX_F64) return check_half_range((const double *)val, A->nnz, s);
    return check_half_range((const float *)val, A->nnz, s);
}

extern "C" spx_status spx__dasp_fill(const spx__dasp_host *h, const spx__dasp_walk *w, spx_type t,
                                     void *stream, void *val, int32_t *col)
{
    cudaStream_t s = (cudaStream_t)stream;
    const spx_matrix *A = h->A;
    void *dcol = NULL, *dval = NULL;
    spx_status st;
    cudaError_t e;
    if (!A || (t != SPX_F64 && t != SPX_F16))
        return spx__error(SPX_ERR_INVALID_ARG, "dasp fill: %s",
                          A ? "precision must be F64 or F16" : "the packing has no matrix");
    if (h->n_entries == 0) return SPX_OK;
    size_t nnz = (size_t)A->nnz;
    size_t cb = A->col_bits == 32 ? sizeof(int32_t) : sizeof(int64_t);
    size_t vb = A->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    const void *acol = A->col_bits == 32 ? (const void *)A->col32 : (const void *)A->col64;
    SPX_TRY(upload(&dcol, acol, nnz * cb, s, "dasp fill columns"));
    if (val) SPX_TRY(upload(&dval, A->values, nnz * vb, s, "dasp fill values"));
    if (t == SPX_F16 && val) SPX_TRY(check_values(A, dval, s));
    SPX_TRY(set_padding(h, t == SPX_F16 ? sizeof(__half) : sizeof(double), val, col, s));
    if (t == SPX_F16)
        launch_for<__half>(A, w, dcol, dval, col, val, s);
    else
        launch_for<double>(A, w, dcol, dval, col, val, s);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) SPX_TRY(cuda_error(e, "the dasp fill kernels"));
cleanup:
    if (st != SPX_OK) cudaStreamSynchronize(s); /* nothing in flight uses the copies */
    cudaFree(dcol);
    cudaFree(dval);
    return st;
}

extern "C" spx_status spx__dasp_refill(const spx__dasp_walk *w, int64_t nnz, const void *values,
                                       int on_device, spx_type t, void *stream, void *val)
{
    cudaStream_t s = (cudaStream_t)stream;
    size_t vb = t == SPX_F64 ? sizeof(double) : sizeof(float);
    void *staged = NULL;
    const void *src = values;
    spx_status st = SPX_OK;
    cudaError_t e;
    if (t != SPX_F64 && t != SPX_F16)
        return spx__error(SPX_ERR_INVALID_ARG, "dasp refill: precision must be F64 or F16");
    if (nnz == 0) return SPX_OK;
    if (!on_device) {
        SPX_TRY(upload(&staged, values, (size_t)nnz * vb, s, "dasp new values"));
        src = staged;
    }
    if (t == SPX_F16) {
        SPX_TRY(check_half_range((const float *)src, nnz, s));
        launch<int32_t, float, __half>(w, NULL, src, NULL, val, s);
    } else {
        launch<int32_t, double, double>(w, NULL, src, NULL, val, s);
    }
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) SPX_TRY(cuda_error(e, "the dasp refill kernels"));
cleanup:
    if (st != SPX_OK) cudaStreamSynchronize(s); /* nothing in flight uses staged */
    cudaFree(staged);
    return st;
}
