/* DASP's device fill (layout and row map in dasp.h): A's CSR is uploaded once
 * (row offsets, 32- or 64-bit columns, fp64 or fp32 values, as A holds them)
 * with the row map; the packed arrays are set to padding (column -1, value 0,
 * both all-bytes memsets) and every entry k = rowptr[i] + s of row i is
 * written to its slot spx__dasp_slot(map of i, s):
 *   rows of at most SPX__DASP_MAX_LEN entries: ROW_LANES lanes per row, lane q
 *     taking s = q, q + ROW_LANES, ... (a warp reads 32 / ROW_LANES
 *     consecutive rows' entries);
 *   long rows: one thread block per row (they are few and long).
 * Every slot has at most one writer, so the result does not depend on the
 * order the threads run in. Values are converted on the device: fp64 kept; for
 * F16 __double2half, round to nearest even like the host's conversion (and a
 * NaN as the host's gives it, 0x7fff, where the device's cvt gives another
 * NaN), and a finite value that becomes an infinity is recorded (the lowest
 * CSR index, by atomicMin) and declines the plan. An iso packing (val NULL)
 * gets its columns alone: A's values are neither uploaded nor converted. The
 * temporaries are freed on return. */
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

/* A's CSR and the row map on the device; the packed arrays to fill. */
template <class C, class V, class O> struct fill_args {
    const int64_t *rowptr;
    const C *col;
    const V *val;
    const int64_t *slot, *rest;
    const uint16_t *reg;
    int32_t *out_col;
    O *out_val;
    unsigned long long *bad; /* F16: lowest CSR index beyond half's range */
};

static __device__ __forceinline__ void store_value(double *out, int64_t e, double v,
                                                   unsigned long long *bad, int64_t k)
{
    (void)bad;
    (void)k;
    out[e] = v;
}

static __device__ __forceinline__ void store_value(__half *out, int64_t e, double v,
                                                   unsigned long long *bad, int64_t k)
{
    __half h = isnan(v) ? __ushort_as_half((unsigned short)0x7fffu) : __double2half(v);
    out[e] = h;
    if (__hisinf(h) && !isinf(v)) atomicMin(bad, (unsigned long long)k);
}

/* Entries s = s0, s0 + step, ... of row i. */
template <class C, class V, class O>
static __device__ __forceinline__ void scatter_row(const fill_args<C, V, O> &a, int64_t i,
                                                   int64_t beg, int64_t len, int64_t s0,
                                                   int64_t step)
{
    int64_t slot = a.slot[i], rest = a.rest[i], reg = a.reg[i];
    for (int64_t s = s0; s < len; s += step) {
        int64_t e = spx__dasp_slot(slot, rest, reg, s);
        a.out_col[e] = (int32_t)a.col[beg + s];
        if (a.out_val) store_value(a.out_val, e, (double)a.val[beg + s], a.bad, beg + s);
    }
}

template <class C, class V, class O>
__global__ void __launch_bounds__(FILL_THREADS) fill_rows(fill_args<C, V, O> a, int64_t rows)
{
    int64_t i = ((int64_t)blockIdx.x * FILL_THREADS + threadIdx.x) / ROW_LANES;
    if (i >= rows) return;
    int64_t beg = a.rowptr[i], len = a.rowptr[i + 1] - beg;
    if (len <= SPX__DASP_MAX_LEN)
        scatter_row(a, i, beg, len, (int64_t)(threadIdx.x % ROW_LANES), ROW_LANES);
}

template <class C, class V, class O>
__global__ void __launch_bounds__(FILL_THREADS)
    fill_long(fill_args<C, V, O> a, const int32_t *long_row)
{
    int64_t i = long_row[blockIdx.x];
    int64_t beg = a.rowptr[i], len = a.rowptr[i + 1] - beg;
    scatter_row(a, i, beg, len, (int64_t)threadIdx.x, FILL_THREADS);
}

/* -------------------------------------------------------------- host side */

/* Device temporaries of one fill. */
struct fill_tmp {
    int64_t *rowptr, *slot, *rest;
    void *col, *val;
    uint16_t *reg;
    int32_t *long_row;
    unsigned long long *bad;
};

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

static spx_status upload_csr(fill_tmp *t, const spx__dasp_host *h, cudaStream_t stream)
{
    const spx_matrix *A = h->A;
    size_t rows = (size_t)A->rows, nnz = (size_t)A->nnz;
    size_t cb = A->col_bits == 32 ? sizeof(int32_t) : sizeof(int64_t);
    size_t vb = A->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    const void *col = A->col_bits == 32 ? (const void *)A->col32 : (const void *)A->col64;
    const int64_t *rowptr = NULL;
    spx_status st;
    SPX_TRY(spx__matrix_rowptr(A, &rowptr));
    SPX_TRY(upload((void **)&t->rowptr, rowptr, (rows + 1) * sizeof(int64_t), stream,
                   "dasp fill row offsets"));
    SPX_TRY(upload(&t->col, col, nnz * cb, stream, "dasp fill columns"));
    if (!h->iso) SPX_TRY(upload(&t->val, A->values, nnz * vb, stream, "dasp fill values"));
    SPX_TRY(upload((void **)&t->slot, h->map_slot, rows * sizeof(int64_t), stream,
                   "dasp fill row map slots"));
    SPX_TRY(upload((void **)&t->rest, h->map_rest, rows * sizeof(int64_t), stream,
                   "dasp fill row map rests"));
    SPX_TRY(upload((void **)&t->reg, h->map_reg, rows * sizeof(uint16_t), stream,
                   "dasp fill row map counts"));
    SPX_TRY(upload((void **)&t->long_row, h->long_row, (size_t)h->n_long * sizeof(int32_t), stream,
                   "dasp fill long rows"));
cleanup:
    return st;
}

static void free_tmp(fill_tmp *t)
{
    cudaFree(t->rowptr);
    cudaFree(t->col);
    cudaFree(t->val);
    cudaFree(t->slot);
    cudaFree(t->rest);
    cudaFree(t->reg);
    cudaFree(t->long_row);
    cudaFree(t->bad);
}

template <class C, class V, class O>
static void launch(const fill_tmp *t, const spx__dasp_host *h, void *val, int32_t *col,
                   cudaStream_t stream)
{
    fill_args<C, V, O> a = {t->rowptr, (const C *)t->col, (const V *)t->val,
                            t->slot,   t->rest,           t->reg,
                            col,       (O *)val,          t->bad};
    int64_t blocks = (h->rows * ROW_LANES + FILL_THREADS - 1) / FILL_THREADS;
    if (blocks > 0) fill_rows<C, V, O><<<(unsigned)blocks, FILL_THREADS, 0, stream>>>(a, h->rows);
    if (h->n_long > 0)
        fill_long<C, V, O><<<(unsigned)h->n_long, FILL_THREADS, 0, stream>>>(a, t->long_row);
}

/* The kernels for A's column and value types and the output precision. */
template <class O>
static void launch_for(const fill_tmp *t, const spx__dasp_host *h, void *val, int32_t *col,
                       cudaStream_t stream)
{
    int c32 = h->A->col_bits == 32, v64 = h->A->vtype == SPX_F64;
    if (c32 && v64)
        launch<int32_t, double, O>(t, h, val, col, stream);
    else if (c32)
        launch<int32_t, float, O>(t, h, val, col, stream);
    else if (v64)
        launch<int64_t, double, O>(t, h, val, col, stream);
    else
        launch<int64_t, float, O>(t, h, val, col, stream);
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

/* After the fill: the F16 decline, naming the value (A's lowest index). */
static spx_status check_range(const fill_tmp *t, const spx__dasp_host *h, cudaStream_t stream)
{
    unsigned long long bad = ~0ull;
    cudaError_t e = cudaMemcpyAsync(&bad, t->bad, sizeof bad, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return cuda_error(e, "reading the dasp fp16 range flag");
    if (bad == ~0ull) return SPX_OK;
    return spx__error(SPX_ERR_UNSUPPORTED, "dasp fp16: value %g is beyond the half range (65504)",
                      spx__val(h->A, (int64_t)bad));
}

extern "C" spx_status spx__dasp_fill(const spx__dasp_host *h, spx_type t, void *stream, void *val,
                                     int32_t *col)
{
    cudaStream_t s = (cudaStream_t)stream;
    fill_tmp tmp = {};
    spx_status st;
    cudaError_t e;
    if (!h->A || (t != SPX_F64 && t != SPX_F16))
        return spx__error(SPX_ERR_INVALID_ARG, "dasp fill: %s",
                          h->A ? "precision must be F64 or F16" : "the packing has no matrix");
    if (h->n_entries == 0) return SPX_OK;
    SPX_TRY(set_padding(h, t == SPX_F16 ? sizeof(__half) : sizeof(double), val, col, s));
    SPX_TRY(upload_csr(&tmp, h, s));
    if (t == SPX_F16 && val) {
        SPX_TRY(spx__dasp_dev_alloc((void **)&tmp.bad, sizeof *tmp.bad, "dasp fp16 range flag"));
        e = cudaMemsetAsync(tmp.bad, 0xff, sizeof *tmp.bad, s);
        if (e != cudaSuccess) SPX_TRY(cuda_error(e, "cudaMemsetAsync of the dasp range flag"));
        launch_for<__half>(&tmp, h, val, col, s);
    } else {
        launch_for<double>(&tmp, h, val, col, s);
    }
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) SPX_TRY(cuda_error(e, "the dasp fill kernels"));
    if (t == SPX_F16 && val) SPX_TRY(check_range(&tmp, h, s));
cleanup:
    if (st != SPX_OK) cudaStreamSynchronize(s); /* nothing in flight uses tmp */
    free_tmp(&tmp);
    return st;
}
