/* CSR SpMV kernels, y = alpha*A*x + beta*y (layout and row split: csr_kernels.h).
 *
 * One body per kernel, stamped out for the value type V (double, float, half,
 * or spx__iso_val for iso plans: no values read, the one value folded into
 * alpha, iso.cuh), the accumulation and y type T (double for fp64 plans, float
 * otherwise) and the x type X (T, or half for fp16 plans with xtype=half: each
 * x read is converted to T, exactly). The matrix arrays are read once per call, so they are loaded
 * with the streaming hint (__ldcs: evict first) to leave L2 to x, which is
 * gathered through L1 (spx__ld_fresh). beta == 0 never reads y.
 * With p->pdl (pdl.cuh) a call's matrix loads overlap the end of the kernel
 * before it; x, y, the partial sums and the long rows' counters are touched
 * after the wait, through pointers returned by spx__pdl_after(). Long rows
 * are finished inside the launch that sums their chunks (chunk_warps, or
 * csr_lean_kernel's chunk items), so a call is one launch with the stream,
 * warp and lean kernels, two with the vector kernel. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/csr/csr_kernels.h"
#include "cuda/csr/iso.cuh"
#include "cuda/pdl.cuh"

#define BLOCK SPX__CUDA_CSR_BLOCK
#define CHUNK_ITEMS (SPX__CUDA_CSR_CHUNK / 32)
/* Thread blocks per multiprocessor the stream kernel with chunks is built
 * for: with row blocks of 2048, 64 registers for fp64 (what the row blocks
 * alone take; left free, the compiler would take 74 and fit only 3), 48 for
 * float sums; with 1024, 48. */
#define STREAM_MIN_BLOCKS(T, NNZ) (NNZ < 2048 ? 5 : sizeof(T) == 8 ? 4 : 5)

template <typename T> __device__ __forceinline__ T finish(T sum, T alpha, T beta, const T *y)
{
    return beta == T(0) ? alpha * sum : alpha * sum + beta * *y;
}

/* Sum of the group's lanes (width G, aligned in the warp) into its lane 0. */
template <int G, typename T> __device__ __forceinline__ T group_sum(T v, unsigned mask)
{
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1)
        v += __shfl_down_sync(mask, v, off, G);
    return v;
}

/* Rows up to long_len: G lanes per row, lanes stride through the row. */
template <typename V, typename T, typename X, int G>
__global__ void __launch_bounds__(BLOCK)
    csr_group_kernel(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                     const V *__restrict__ val, const X *__restrict__ x, T *__restrict__ y, T alpha,
                     T beta, int64_t long_len)
{
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask =
        G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
    const int64_t step = (int64_t)gridDim.x * (BLOCK / G);
    spx__pdl_let_next_start();
    x = spx__pdl_after(x);
    y = spx__pdl_after(y);
    for (int64_t row = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / G; row < rows; row += step) {
        const int64_t beg = __ldg(rp + row), end = __ldg(rp + row + 1);
        if (end - beg > long_len) continue; /* same for the whole group */
        T sum = T(0);
#pragma unroll 4
        for (int64_t k = beg + lane; k < end; k += G)
            sum += spx__times(spx__load_val(val, k), T(spx__ld_fresh(x + __ldcs(ci + k))));
        sum = group_sum<G>(sum, mask);
        if (lane == 0) y[row] = finish(sum, alpha, beta, y + row);
    }
}

/* The lanes that take a row of a row block: nt = 2^j per row, as many as
 * nt * nrows <= BLOCK allows, at most 32; this thread is lane `lane` of row
 * `row` (row >= nrows: none). */
struct row_lanes {
    int nt, row, lane;
};

__device__ __forceinline__ row_lanes lanes_for(int nrows)
{
    int nt = 1;
    while (nt < 32 && 2 * nt * nrows <= BLOCK)
        nt *= 2;
    return row_lanes{nt, (int)threadIdx.x / nt, (int)threadIdx.x & (nt - 1)};
}

/* y[row] = alpha * sum_k term(k) + beta * y[row] for the rows of a row block,
 * k over [off[row], off[row + 1]): each of a row's lanes takes every nt-th k,
 * their sums are added by shuffles and lane 0 writes y (y: the block's first
 * row). */
template <typename T, typename Term>
__device__ __forceinline__ void sum_rows(int nrows, const int *off, T *y, T alpha, T beta,
                                         Term term)
{
    const row_lanes l = lanes_for(nrows);
    if (l.row >= nrows) return; /* the same for the nt lanes of a row */
    const int nt = l.nt;
    const unsigned mask =
        nt == 32 ? 0xffffffffu : ((1u << nt) - 1u) << ((threadIdx.x & 31) & ~(nt - 1));
    const int end = off[l.row + 1];
    T sum = T(0);
    for (int k = off[l.row] + l.lane; k < end; k += nt)
        sum += term(k);
    for (int d = nt / 2; d > 0; d >>= 1)
        sum += __shfl_down_sync(mask, sum, d, nt);
    if (l.lane == 0) y[l.row] = finish(sum, alpha, beta, y + l.row);
}

/* Rows up to long_len, in row blocks (csr_kernels.h): this thread block's
 * row blocks first, first + step, ... The block's bounds come from one
 * 32-byte record (every thread reads it: a broadcast), so the loads of its
 * nonzeros and of its row offsets (as offsets into the block, int32 in shared
 * memory) go out together; then the x gathers; products go to shared memory
 * and each row is summed by nt = 2^j lanes (nt * rows <= BLOCK). Three round
 * trips to memory per row block instead of four; with fewer thread blocks
 * than row blocks (p->grid), each loads the record of its next row block
 * while it works on this one: two. */
template <typename V, typename T, typename X, int NNZ>
__device__ __forceinline__ void
stream_blocks(int64_t first, int64_t step, int64_t n_blocks, const longlong2 *__restrict__ blk,
              const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
              const V *__restrict__ val, const X *__restrict__ x, T *__restrict__ y, T alpha,
              T beta)
{
    constexpr int ITEMS = NNZ / BLOCK;
    __shared__ T prod[NNZ];
    __shared__ int off[BLOCK + 1];
    int64_t b = first;
    longlong2 rows, nz, next_rows = {0, 0}, next_nz = {0, 0};
    if (b < n_blocks) {
        next_rows = __ldg(blk + 2 * b);
        next_nz = __ldg(blk + 2 * b + 1);
    }
    for (; b < n_blocks; b += step) {
        rows = next_rows;
        nz = next_nz;
        if (b + step < n_blocks) { /* the next row block's record, while this one runs */
            next_rows = __ldg(blk + 2 * (b + step));
            next_nz = __ldg(blk + 2 * (b + step) + 1);
        }
        const int64_t r0 = rows.x, base = nz.x;
        const int nrows = (int)(rows.y - r0), nnz = (int)(nz.y - base);
        int col[ITEMS];
        V v[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const int k = threadIdx.x + j * BLOCK;
            if (k < nnz) {
                col[j] = __ldcs(ci + base + k);
                v[j] = spx__load_val(val, base + k);
            }
        }
        for (int i = threadIdx.x; i <= nrows; i += BLOCK)
            off[i] = (int)(__ldcs(rp + r0 + i) - base);
        const X *xa = spx__pdl_after(x); /* x and y from here on */
        T *ya = spx__pdl_after(y);
        T xg[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if (threadIdx.x + j * BLOCK < nnz) xg[j] = T(spx__ld_fresh(xa + col[j]));
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const int k = threadIdx.x + j * BLOCK;
            if (k < nnz) prod[k] = spx__times(v[j], xg[j]);
        }
        __syncthreads();
        sum_rows(nrows, off, ya + r0, alpha, beta, [&](int k) { return prod[k]; });
        __syncthreads(); /* prod and off are reused by the next row block */
    }
    spx__pdl_wait(); /* a thread block without row blocks */
}

/* index=dict's arrays (csr_dict.c), device pointers. */
struct dict_in {
    const int32_t *dstart, *dict;
    const uint8_t *code;
    const uint16_t *roff;
    const uint8_t *grow;
    const void *values; /* V: the blocks' values, at their codes' places */
};

/* 8 values of type V, loaded from a 16-byte aligned address with streaming
 * vector loads (1, 2 or 4 of 16 bytes). */
template <typename V> struct vals8 {
    uint4 raw[sizeof(V) / 2];
    __device__ __forceinline__ V operator[](int i) const
    {
        return reinterpret_cast<const V *>(raw)[i];
    }
};

template <> struct vals8<spx__iso_val> { /* iso plans: none */
    __device__ __forceinline__ spx__iso_val operator[](int) const { return spx__iso_val{}; }
};

/* Values k..k+7 of val (k a multiple of 8). */
template <typename V> __device__ __forceinline__ vals8<V> load8(const V *val, int64_t k)
{
    vals8<V> v;
    const V *p = val + k;
#pragma unroll
    for (int i = 0; i < (int)(sizeof(V) / 2); i++)
        v.raw[i] = __ldcs(reinterpret_cast<const uint4 *>(p) + i);
    return v;
}
__device__ __forceinline__ vals8<spx__iso_val> load8(const spx__iso_val *, int64_t)
{
    return vals8<spx__iso_val>{};
}

/* A dict row block's record: rows [r0, r0 + nrows), codes and values [base,
 * base + nnz), dictionary entries [d0, d0 + nd). */
struct dict_rec {
    int r0, base, nrows, nnz, d0, nd; /* rows < 2^31, codes < 2^31 (csr_dict.c) */
};

__device__ __forceinline__ dict_rec load_rec(const longlong2 *__restrict__ blk, dict_in d,
                                             int64_t b)
{
    const longlong2 rows = __ldg(blk + 2 * b), nz = __ldg(blk + 2 * b + 1);
    const int d0 = __ldg(d.dstart + b);
    return dict_rec{(int)rows.x,        (int)nz.x, (int)(rows.y - rows.x),
                    (int)(nz.y - nz.x), d0,        __ldg(d.dstart + b + 1) - d0};
}

/* What a thread holds of a dict row block: its 8 codes and values (nonzeros
 * 8t..8t+7 of the block) and the row of the first, the end of row t and
 * dictionary entry t. */
template <typename V> struct dict_stage {
    dict_rec rec;
    uint2 code;
    vals8<V> v;
    int row, roff, entry;
};

template <typename V>
__device__ __forceinline__ void load_stage(dict_stage<V> &s, const dict_rec &r, dict_in d,
                                           const V *__restrict__ val)
{
    const int k0 = 8 * threadIdx.x;
    s.rec = r;
    if (k0 < r.nnz) {
        s.code = __ldcs(reinterpret_cast<const uint2 *>(d.code + r.base + k0));
        s.v = load8(val, (int64_t)r.base + k0);
        s.row = __ldcs(d.grow + (r.base + k0) / 8);
    }
    if ((int)threadIdx.x < r.nrows) s.roff = __ldcs(d.roff + r.r0 + threadIdx.x);
    if ((int)threadIdx.x < r.nd) s.entry = __ldg(d.dict + r.d0 + threadIdx.x);
}

/* Byte i (0..7) of a uint2. */
__device__ __forceinline__ unsigned byte_of(uint2 w, int i)
{
    return ((i < 4 ? w.x : w.y) >> (8 * (i & 3))) & 0xffu;
}

/* Row blocks whose columns are codes into the block's dictionary of offsets
 * col - row (csr_kernels.h), a thread block looping over them (p->grid).
 * Thread t holds the block's nonzeros 8t..8t+7 (vector loads: the blocks
 * start at multiples of 8) and the row of the first, and loads the next row
 * block's while it works on this one, so its loads stay in flight through
 * the shared-memory steps: row ends and dictionary to shared memory; the
 * thread steps through the row ends for its nonzeros' rows and gathers
 * x[r0 + row + dict[code]] for all 8 at once; the rows are summed from
 * shared memory. */
template <typename V, typename T, typename X, int NNZ>
__device__ __forceinline__ void dict_blocks(int64_t first, int64_t step, int64_t n_blocks,
                                            const longlong2 *__restrict__ blk, dict_in d,
                                            const V *__restrict__ val, const X *__restrict__ x,
                                            T *__restrict__ y, T alpha, T beta)
{
    __shared__ __align__(16) T prod[NNZ];
    __shared__ int off[BLOCK + 1];
    __shared__ int diag[SPX__CUDA_CSR_DICT];
    const int k0 = 8 * threadIdx.x;
    dict_stage<V> cur, next;
    dict_rec after; /* the record of the row block after next */
    if (first < n_blocks) load_stage(next, load_rec(blk, d, first), d, val);
    if (first + step < n_blocks) after = load_rec(blk, d, first + step);
    for (int64_t b = first; b < n_blocks; b += step) {
        cur = next;
        if (b + step < n_blocks) {
            load_stage(next, after, d, val);
            if (b + 2 * step < n_blocks) after = load_rec(blk, d, b + 2 * step);
        }
        const dict_rec &r = cur.rec;
        if ((int)threadIdx.x < r.nrows) off[threadIdx.x + 1] = cur.roff;
        if (threadIdx.x == 0) off[0] = 0;
        if ((int)threadIdx.x < r.nd) diag[threadIdx.x] = cur.entry;
        const X *xa = spx__pdl_after(x); /* x and y from here on */
        T *ya = spx__pdl_after(y);
        __syncthreads();
        if (k0 < r.nnz) {
            const X *xb = xa + r.r0; /* x[col] = xb[row + dict[code]] */
            int row = cur.row, end = off[row + 1];
            T pr[8];
#pragma unroll
            for (int i = 0; i < 8; i++) {
                pr[i] = T(0);
                if (k0 + i < r.nnz) {
                    while (k0 + i >= end) /* rows end after their last nonzero */
                        end = off[++row + 1];
                    pr[i] = T(spx__ld_fresh(xb + row + diag[byte_of(cur.code, i)]));
                }
            }
#pragma unroll
            for (int i = 0; i < 8; i++)
                prod[k0 + i] = spx__times(cur.v[i], pr[i]);
        }
        __syncthreads();
        sum_rows(r.nrows, off, ya + r.r0, alpha, beta, [&](int k) { return prod[k]; });
        __syncthreads(); /* the shared arrays are reused by the next row block */
    }
    spx__pdl_wait(); /* a thread block without row blocks */
}

/* The row blocks of this thread block: CSR's or index=dict's. */
template <typename V, typename T, typename X, int NNZ, bool DICT>
__device__ __forceinline__ void
row_blocks(int64_t first, int64_t step, int64_t n_blocks, const longlong2 *__restrict__ blk,
           const int64_t *__restrict__ rp, const int32_t *__restrict__ ci, dict_in d,
           const V *__restrict__ val, const X *__restrict__ x, T *__restrict__ y, T alpha, T beta)
{
    if constexpr (DICT)
        dict_blocks<V, T, X, NNZ>(first, step, n_blocks, blk, d, (const V *)d.values, x, y, alpha,
                               beta);
    else
        stream_blocks<V, T, X, NNZ>(first, step, n_blocks, blk, rp, ci, val, x, y, alpha, beta);
}

/* The long rows' chunks (csr_kernels.h), device arrays of the plan. */
template <typename T> struct long_in {
    int64_t n_chunks;
    const int64_t *cbeg, *cend; /* each chunk's nonzeros */
    const int64_t *chunk_long;  /* each chunk's long row r */
    const int64_t *long_first;  /* row r's chunks: [long_first[r], long_first[r + 1]) */
    const int64_t *long_rows;   /* row r's index in A */
    unsigned *done;             /* row r's chunks summed in this call (0 between calls) */
    T *partial;                 /* each chunk's sum */
};

/* After lane 0 stored its chunk's sum: true in every lane of the warp that
 * counted the last of the row's n chunks. Each counting lane 0 fences
 * (release: its partial before its count); the last one's atomic follows
 * every other count of the row, so after its fence (acquire) and the
 * __syncwarp (which orders lane 0's fence before the other lanes' loads) the
 * warp sees every partial of the row, read through __ldcg as L1 may hold a
 * stale line. The last resets the counter (every chunk of the row has
 * counted): the next call on the plan is ordered after this one by the
 * plan's stream (with pdl, its counts come after its spx__pdl_wait). */
__device__ __forceinline__ bool last_chunk(unsigned *done, int64_t n, int lane)
{
    unsigned last = 0;
    if (lane == 0) {
        __threadfence();
        last = atomicAdd(done, 1u) == (unsigned)(n - 1);
        if (last) *done = 0;
    }
    if (!__shfl_sync(0xffffffffu, last, 0)) return false;
    __threadfence();
    __syncwarp();
    return true;
}

/* y[row] = alpha * (sum of the row's chunk sums) + beta * y[row] by one warp,
 * the sums added in a fixed order: lane l adds chunks first + l, first + l +
 * 32, ... in turn, then the lanes are added by shuffles (the order of the
 * second kernel this replaced, so the bits are the same). */
template <typename T>
__device__ __forceinline__ void long_row_sum(const T *partial, int64_t first, int64_t end,
                                             int64_t row, T *y, T alpha, T beta, int lane)
{
    T sum = T(0);
    for (int64_t c = first + lane; c < end; c += 32)
        sum += __ldcg(partial + c);
    sum = group_sum<32>(sum, 0xffffffffu);
    if (lane == 0) y[row] = finish(sum, alpha, beta, y + row);
}

/* A chunk's sum is in `sum` (each lane's part): its total goes to
 * partial[c] (pa), and the warp that counts the last of long row r's chunks
 * writes the row's y (last_chunk, long_row_sum). */
template <typename T>
__device__ __forceinline__ void chunk_done(const long_in<T> &L, int64_t c, int64_t r, T sum, T *pa,
                                           T *y, T alpha, T beta, int lane)
{
    sum = group_sum<32>(sum, 0xffffffffu);
    if (lane == 0) pa[c] = sum;
    const int64_t c0 = __ldg(L.long_first + r), c1 = __ldg(L.long_first + r + 1);
    if (last_chunk(spx__pdl_after(L.done) + r, c1 - c0, lane))
        long_row_sum(pa, c0, c1, __ldg(L.long_rows + r), spx__pdl_after(y), alpha, beta, lane);
}

/* Long rows: a warp per chunk of at most SPX__CUDA_CSR_CHUNK nonzeros,
 * CHUNK_ITEMS per lane, all loads in flight before the first product; its
 * sum goes to partial[c], and the warp that finishes a row's last chunk (in
 * time, last_chunk) adds the row's sums and writes y: one launch, no second
 * pass. Thread block `block` of `n_block` doing chunks. */
template <typename V, typename T, typename X>
__device__ __forceinline__ void
chunk_warps(int64_t block, int64_t n_block, long_in<T> L, const int32_t *__restrict__ ci,
            const V *__restrict__ val, const X *__restrict__ x, T *__restrict__ y, T alpha, T beta)
{
    const int lane = threadIdx.x & 31;
    const int64_t step = n_block * (BLOCK / 32);
    for (int64_t c = (block * BLOCK + threadIdx.x) / 32; c < L.n_chunks; c += step) {
        const int64_t beg = __ldg(L.cbeg + c) + lane, end = __ldg(L.cend + c);
        const int64_t r = __ldg(L.chunk_long + c);
        int col[CHUNK_ITEMS];
        V v[CHUNK_ITEMS];
        T xg[CHUNK_ITEMS];
#pragma unroll
        for (int j = 0; j < CHUNK_ITEMS; j++)
            if (beg + 32 * j < end) {
                col[j] = __ldcs(ci + beg + 32 * j);
                v[j] = spx__load_val(val, beg + 32 * j);
            }
        const X *xa = spx__pdl_after(x); /* x, y, partial and the counts from here on */
        T *pa = spx__pdl_after(L.partial);
#pragma unroll
        for (int j = 0; j < CHUNK_ITEMS; j++)
            if (beg + 32 * j < end) xg[j] = T(spx__ld_fresh(xa + col[j]));
        T sum = T(0);
#pragma unroll
        for (int j = 0; j < CHUNK_ITEMS; j++)
            if (beg + 32 * j < end) sum += spx__times(v[j], xg[j]);
        chunk_done(L, c, r, sum, pa, y, alpha, beta, lane);
    }
    spx__pdl_wait(); /* a warp without chunks */
}

/* y = alpha * (row sums) + beta * y for a warp segment's nrows rows (y: its
 * first row's) from their products in wp: lane l's row_beg is row l's first
 * slot (l < nrows), the last row ends at span. nt = 2^j lanes a row (nt *
 * nrows <= 32), given the row's bounds by shuffles, each add every nt-th
 * slot of it in turn; then shuffles add the nt sums. */
template <typename T>
__device__ __forceinline__ void segment_rows(const T *wp, int nrows, int span, int row_beg, T *y,
                                             T alpha, T beta)
{
    const int lane = threadIdx.x & 31; /* not a parameter: its range gives unsigned divisions */
    int nt = 1;
    while (nt < 32 && 2 * nt * nrows <= 32)
        nt *= 2;
    const int row = lane / nt, sub = lane & (nt - 1);
    const int beg = __shfl_sync(0xffffffffu, row_beg, row);
    const int next = __shfl_sync(0xffffffffu, row_beg, row + 1 < 32 ? row + 1 : 31);
    const int end = row + 1 < nrows ? next : span;
    T sum = T(0);
    if (row < nrows)
        for (int k = beg + sub; k < end; k += nt)
            sum += wp[k];
    for (int d = nt / 2; d > 0; d >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, d, nt);
    if (row < nrows && sub == 0) y[row] = finish(sum, alpha, beta, y + row);
}

/* kernel=warp: the rows up to long_len in warp segments (csr_kernels.h) of
 * at most 32 rows and SPX__CUDA_CSR_SEGMENT nonzeros, segments first, first
 * + step, ... of this warp. A warp loads its segment from win, the multiple
 * of SPX__CUDA_CSR_ALIGN at or before the first nonzero (lane l: nonzeros
 * win + l, win + l + 32, ..., 8 a lane at most), and, lane l, the start of
 * the segment's row l; gathers x; puts the products in its own 256 slots of
 * shared memory (wp, slot e for nonzero win + e); then nt = 2^j lanes a row
 * (nt * rows <= 32) add each row's slots, the row bounds passed by
 * shuffles. No barrier but the warp's own: a warp waits for its gathers
 * alone, where a row block's 8 warps wait for the slowest. */
template <typename V, typename T, typename X>
__device__ __forceinline__ void
warp_segments(int64_t first, int64_t step, int64_t n_seg, const longlong2 *__restrict__ blk,
              const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
              const V *__restrict__ val, const X *__restrict__ x, T *__restrict__ y, T alpha,
              T beta, T *wp)
{
    const int lane = threadIdx.x & 31;
    for (int64_t sg = first; sg < n_seg; sg += step) {
        const longlong2 rows = __ldg(blk + 2 * sg), nz = __ldg(blk + 2 * sg + 1);
        const int64_t r0 = rows.x, win = nz.x & ~(int64_t)(SPX__CUDA_CSR_ALIGN - 1);
        const int nrows = (int)(rows.y - r0), lead = (int)(nz.x - win), span = (int)(nz.y - win);
        int col[CHUNK_ITEMS];
        V v[CHUNK_ITEMS];
#pragma unroll
        for (int j = 0; j < CHUNK_ITEMS; j++) {
            const int e = lane + 32 * j;
            if (e >= lead && e < span) {
                col[j] = __ldcs(ci + win + e);
                v[j] = spx__load_val(val, win + e);
            }
        }
        const int row_beg = lane < nrows ? (int)(__ldcs(rp + r0 + lane) - win) : span;
        const X *xa = spx__pdl_after(x); /* x and y from here on */
        T *ya = spx__pdl_after(y);
        T xg[CHUNK_ITEMS];
#pragma unroll
        for (int j = 0; j < CHUNK_ITEMS; j++) {
            const int e = lane + 32 * j;
            if (e >= lead && e < span) xg[j] = T(spx__ld_fresh(xa + col[j]));
        }
#pragma unroll
        for (int j = 0; j < CHUNK_ITEMS; j++) {
            const int e = lane + 32 * j;
            if (e >= lead && e < span) wp[e] = spx__times(v[j], xg[j]);
        }
        __syncwarp();
        segment_rows(wp, nrows, span, row_beg, ya + r0, alpha, beta);
        __syncwarp(); /* wp is reused by the next segment */
    }
    spx__pdl_wait(); /* a warp without segments */
}

/* kernel=warp: thread blocks [0, chunk_grid) do the long rows' chunks, the
 * others the warp segments, one warp each. */
template <typename V, typename T, typename X>
__global__ void __launch_bounds__(BLOCK, STREAM_MIN_BLOCKS(T, SPX__CUDA_CSR_STREAM_NNZ))
    csr_warp_kernel(int64_t n_seg, const longlong2 *__restrict__ blk,
                    const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                    const V *__restrict__ val, const X *__restrict__ x, T *__restrict__ y, T alpha,
                    T beta, unsigned chunk_grid, long_in<T> L)
{
    __shared__ T prod[(BLOCK / 32) * SPX__CUDA_CSR_CHUNK];
    spx__pdl_let_next_start();
    const int64_t warps = BLOCK / 32;
    if (blockIdx.x < chunk_grid)
        chunk_warps<V, T, X>(blockIdx.x, chunk_grid, L, ci, val, x, y, alpha, beta);
    else
        warp_segments<V, T, X>((blockIdx.x - chunk_grid) * warps + threadIdx.x / 32,
                               (gridDim.x - chunk_grid) * warps, n_seg, blk, rp, ci, val, x, y,
                               alpha, beta, prod + (threadIdx.x / 32) * SPX__CUDA_CSR_CHUNK);
}

/* kernel=lean's thread blocks per multiprocessor: 8 of 256 threads, the
 * most an sm_90 multiprocessor holds (32 registers a thread). */
#define LEAN_MIN_BLOCKS 8
#define LEAN_PAIRS (SPX__CUDA_CSR_CHUNK / 64) /* pairs of nonzeros a lane */
static_assert(SPX__CUDA_CSR_CHUNK % SPX__CUDA_CSR_ALIGN == 0 && SPX__CUDA_CSR_ALIGN % 2 == 0,
              "a chunk's window must start at a multiple of ALIGN, pairs at even entries");

/* Values e and e + 1 of A in one register (half2): pair_two loads both as
 * one 4-byte word (e even; A's values are the plan's own cudaMalloc array,
 * as fp16 plans never borrow a device matrix's), pair_one value e alone
 * (e + 1 is past the window); iso plans load nothing. */
template <typename V> struct val_pair;
template <> struct val_pair<spx__iso_val> {
    __device__ __forceinline__ spx__iso_val lo() const
    {
        return spx__iso_val{};
    }
    __device__ __forceinline__ spx__iso_val hi() const
    {
        return spx__iso_val{};
    }
};
template <> struct val_pair<__half> {
    __half2 h;
    __device__ __forceinline__ __half lo() const
    {
        return __low2half(h);
    }
    __device__ __forceinline__ __half hi() const
    {
        return __high2half(h);
    }
};
__device__ __forceinline__ val_pair<__half> pair_two(const __half *v)
{
    return val_pair<__half>{__ldcs(reinterpret_cast<const __half2 *>(v))};
}
__device__ __forceinline__ val_pair<__half> pair_one(const __half *v)
{
    return val_pair<__half>{__halves2half2(__ldcs(v), __ushort_as_half(0))};
}
__device__ __forceinline__ val_pair<spx__iso_val> pair_two(const spx__iso_val *)
{
    return val_pair<spx__iso_val>{};
}
__device__ __forceinline__ val_pair<spx__iso_val> pair_one(const spx__iso_val *)
{
    return val_pair<spx__iso_val>{};
}

/* Two sums side by side in shared memory (one 8-byte store for float). */
template <typename T> struct alignas(2 * sizeof(T)) sum_pair {
    T a, b;
};

/* kernel=lean (fp16 plans): the warp kernel's work (long rows' chunks and
 * warp segments, csr_kernels.h) in 32 registers a thread where it takes 48,
 * so that 8 thread blocks of 256 fit a multiprocessor instead of 5, each
 * lane still with 8 gathers of x in flight at once:
 *  - one loop of warp items, chunks first (a long row's may be the last to
 *    end), then segments, so the loads and gathers are compiled once where
 *    the warp kernel inlines two copies;
 *  - an item is read from win, its first nonzero rounded down to a multiple
 *    of SPX__CUDA_CSR_ALIGN, its nonzeros being [win + lead, win + span),
 *    span <= 256 (a segment by its size, a chunk as chunks end at multiples
 *    of 256), so offsets in it are 32-bit;
 *  - lane l holds the pairs e = 2l + 64j, e + 1 (j < 4): an 8-byte load of
 *    columns and a 4-byte one of values a pair, values in 4 registers where
 *    the warp kernel's take 8. A pair whose e + 1 is at span is loaded as
 *    entry e alone, so nothing at or past win + span is read (the last item
 *    ends at nnz); entries before lead are A's (win >= 0), loaded but not
 *    gathered;
 *  - a segment's products go to the warp's 256 slots of shared memory and
 *    its rows are summed by segment_rows: the warp kernel's bits; a chunk's
 *    are added in the lane, pair by pair, then by chunk_done's shuffles (an
 *    order of its own, fixed). */
template <typename V, typename T, typename X>
__global__ void __launch_bounds__(BLOCK, LEAN_MIN_BLOCKS)
    csr_lean_kernel(int64_t n_seg, const longlong2 *__restrict__ blk,
                    const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                    const V *__restrict__ val, const X *__restrict__ x, T *__restrict__ y, T alpha,
                    T beta, long_in<T> L)
{
    __shared__ __align__(16) T prod[(BLOCK / 32) * SPX__CUDA_CSR_CHUNK];
    T *wp = prod + (threadIdx.x / 32) * SPX__CUDA_CSR_CHUNK;
    const int lane = threadIdx.x & 31;
    const int64_t n_items = L.n_chunks + n_seg, step = (int64_t)gridDim.x * (BLOCK / 32);
    spx__pdl_let_next_start();
    for (int64_t it = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; it < n_items; it += step) {
        const bool chunk = it < L.n_chunks; /* the same for the whole warp */
        int64_t beg, end, r; /* r: a chunk's long row, a segment's first row */
        int nrows = 0;
        if (chunk) {
            beg = __ldg(L.cbeg + it);
            end = __ldg(L.cend + it);
            r = __ldg(L.chunk_long + it);
        } else {
            const longlong2 rows = __ldg(blk + 2 * (it - L.n_chunks));
            const longlong2 nz = __ldg(blk + 2 * (it - L.n_chunks) + 1);
            beg = nz.x;
            end = nz.y;
            r = rows.x;
            nrows = (int)(rows.y - rows.x);
        }
        const int64_t win = beg & ~(int64_t)(SPX__CUDA_CSR_ALIGN - 1);
        const int lead = (int)(beg - win), span = (int)(end - win);
        const int e0 = 2 * lane; /* this lane's first pair; the others at +64j */
        const int32_t *cl = ci + win + e0;
        const V *vl = val + win + e0;
        int2 col[LEAN_PAIRS];
        val_pair<V> v[LEAN_PAIRS];
#pragma unroll
        for (int j = 0; j < LEAN_PAIRS; j++) {
            col[j] = make_int2(0, 0);
            v[j] = val_pair<V>{};
            if (e0 + 64 * j + 1 < span) {
                col[j] = __ldcs(reinterpret_cast<const int2 *>(cl + 64 * j));
                v[j] = pair_two(vl + 64 * j);
            } else if (e0 + 64 * j < span) {
                col[j].x = __ldcs(cl + 64 * j);
                v[j] = pair_one(vl + 64 * j);
            }
        }
        const int row_beg = !chunk && lane < nrows ? (int)(__ldcs(rp + r + lane) - win) : span;
        const X *xa = spx__pdl_after(x); /* x, y, partial and the counts from here on */
        X xg[2 * LEAN_PAIRS];
#pragma unroll
        for (int j = 0; j < LEAN_PAIRS; j++) {
            const int e = e0 + 64 * j;
            xg[2 * j] = xg[2 * j + 1] = X(0);
            if (e >= lead && e < span) xg[2 * j] = spx__ld_fresh(xa + col[j].x);
            if (e + 1 >= lead && e + 1 < span) xg[2 * j + 1] = spx__ld_fresh(xa + col[j].y);
        }
        if (chunk) {
            T sum = T(0);
#pragma unroll
            for (int j = 0; j < LEAN_PAIRS; j++) {
                sum += spx__times(v[j].lo(), T(xg[2 * j]));
                sum += spx__times(v[j].hi(), T(xg[2 * j + 1]));
            }
            chunk_done(L, it, r, sum, spx__pdl_after(L.partial), y, alpha, beta, lane);
        } else {
#pragma unroll
            for (int j = 0; j < LEAN_PAIRS; j++)
                reinterpret_cast<sum_pair<T> *>(wp)[lane + 32 * j] =
                    sum_pair<T>{spx__times(v[j].lo(), T(xg[2 * j])),
                                spx__times(v[j].hi(), T(xg[2 * j + 1]))};
            __syncwarp();
            segment_rows(wp, nrows, span, row_beg, spx__pdl_after(y) + r, alpha, beta);
            __syncwarp(); /* wp is reused by the next segment */
        }
    }
    spx__pdl_wait(); /* a warp without items */
}

/* The row blocks alone (no long rows). */
template <typename V, typename T, typename X, int NNZ, bool DICT>
__global__ void __launch_bounds__(BLOCK)
    csr_stream_kernel(int64_t n_blocks, const longlong2 *__restrict__ blk,
                      const int64_t *__restrict__ rp, const int32_t *__restrict__ ci, dict_in d,
                      const V *__restrict__ val, const X *__restrict__ x, T *__restrict__ y,
                      T alpha, T beta)
{
    spx__pdl_let_next_start();
    row_blocks<V, T, X, NNZ, DICT>(blockIdx.x, gridDim.x, n_blocks, blk, rp, ci, d, val, x, y, alpha,
                                beta);
}

/* Row blocks and long rows (chunks and their sums) in one launch: thread
 * blocks [0, chunk_grid) do the chunks (first, as a long row's may be the
 * last to end), the others the row blocks. The branch is the same for a
 * whole thread block, so the row blocks' __syncthreads are safe. */
template <typename V, typename T, typename X, int NNZ, bool DICT>
__global__ void __launch_bounds__(BLOCK, STREAM_MIN_BLOCKS(T, NNZ))
    csr_stream_chunk_kernel(int64_t n_blocks, const longlong2 *__restrict__ blk,
                            const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                            dict_in d, const V *__restrict__ val, const X *__restrict__ x,
                            T *__restrict__ y, T alpha, T beta, unsigned chunk_grid, long_in<T> L)
{
    spx__pdl_let_next_start();
    if (blockIdx.x < chunk_grid)
        chunk_warps<V, T, X>(blockIdx.x, chunk_grid, L, ci, val, x, y, alpha, beta);
    else
        row_blocks<V, T, X, NNZ, DICT>(blockIdx.x - chunk_grid, gridDim.x - chunk_grid, n_blocks, blk,
                                    rp, ci, d, val, x, y, alpha, beta);
}

/* The long rows alone (after the vector kernel's launch). Not merged into
 * it as the stream kernel's are: the group kernel takes 21-32 registers,
 * this one 48-80 (80 for fp64), and a merged kernel would run the short rows
 * at the chunks' occupancy. */
template <typename V, typename T, typename X>
__global__ void __launch_bounds__(BLOCK)
    csr_chunk_kernel(long_in<T> L, const int32_t *__restrict__ ci, const V *__restrict__ val,
                     const X *__restrict__ x, T *__restrict__ y, T alpha, T beta)
{
    spx__pdl_let_next_start();
    chunk_warps<V, T, X>(blockIdx.x, gridDim.x, L, ci, val, x, y, alpha, beta);
}

/* Blocks for n work items of `per_block` items each, capped (the kernels loop). */
static unsigned grid_for(int64_t n, int64_t per_block)
{
    int64_t b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > (1 << 30) ? (1 << 30) : b);
}

template <typename V, typename T, typename X, int G>
static void launch_group(const spx__cuda_csr_plan *p, const X *x, T *y, T alpha, T beta)
{
    cudaStream_t s = (cudaStream_t)p->stream;
    spx__launch(csr_group_kernel<V, T, X, G>, grid_for(p->A.rows, BLOCK / G), BLOCK, s, p->pdl,
                p->A.rows, p->A.rowptr, p->A.colidx, (const V *)p->A.values, x, y, alpha, beta,
                p->long_len);
}

template <typename V, typename T, typename X>
static void launch_vector(const spx__cuda_csr_plan *p, const X *x, T *y, T alpha, T beta)
{
    switch (p->group) {
    case 1: launch_group<V, T, X, 1>(p, x, y, alpha, beta); break;
    case 2: launch_group<V, T, X, 2>(p, x, y, alpha, beta); break;
    case 4: launch_group<V, T, X, 4>(p, x, y, alpha, beta); break;
    case 8: launch_group<V, T, X, 8>(p, x, y, alpha, beta); break;
    case 16: launch_group<V, T, X, 16>(p, x, y, alpha, beta); break;
    default: launch_group<V, T, X, 32>(p, x, y, alpha, beta); break;
    }
}

/* The stream kernel, with the long rows' chunks when there are any. */
template <typename V, typename T, typename X, int NNZ, bool DICT>
static void launch_stream(const spx__cuda_csr_plan *p, const X *x, T *y, T alpha, T beta,
                          unsigned chunk_grid, long_in<T> L)
{
    cudaStream_t s = (cudaStream_t)p->stream;
    const dict_in d = {p->dict.dstart, p->dict.dict, p->dict.code,
                       p->dict.roff,   p->dict.grow, (const void *)p->dict_values};
    const unsigned stream_grid = p->n_blocks == 0                       ? 0
                                 : p->grid > 0 && p->grid < p->n_blocks ? (unsigned)p->grid
                                                                        : grid_for(p->n_blocks, 1);
    if (chunk_grid == 0 && stream_grid > 0)
        spx__launch(csr_stream_kernel<V, T, X, NNZ, DICT>, stream_grid, BLOCK, s, p->pdl, p->n_blocks,
                    (const longlong2 *)p->blk, p->A.rowptr, p->A.colidx, d, (const V *)p->A.values,
                    x, y, alpha, beta);
    else if (chunk_grid > 0)
        spx__launch(csr_stream_chunk_kernel<V, T, X, NNZ, DICT>, chunk_grid + stream_grid, BLOCK, s,
                    p->pdl, p->n_blocks, (const longlong2 *)p->blk, p->A.rowptr, p->A.colidx, d,
                    (const V *)p->A.values, x, y, alpha, beta, chunk_grid, L);
}

/* kernel=lean, stamped out for 16-bit values (V half, or iso with float
 * sums) alone: csr_format.c declines it for other plans, and
 * spx__cuda_csr_spmv checks. */
template <typename V, typename T, typename X>
static void launch_lean(const spx__cuda_csr_plan *p, const X *x, T *y, T alpha, T beta,
                        long_in<T> L)
{
    if constexpr (sizeof(V) <= 2 && sizeof(T) == 4) {
        const unsigned all = grid_for(p->n_chunks + p->n_blocks, BLOCK / 32);
        const unsigned grid = p->grid > 0 && p->grid < all ? (unsigned)p->grid : all;
        spx__launch(csr_lean_kernel<V, T, X>, grid, BLOCK, (cudaStream_t)p->stream, p->pdl,
                    p->n_blocks, (const longlong2 *)p->blk, p->A.rowptr, p->A.colidx,
                    (const V *)p->A.values, x, y, alpha, beta, L);
    }
}

/* One launch for the stream, warp and lean kernels (row blocks or warp
 * segments, and long rows), two for the vector kernel (its rows, then the
 * long rows). */
template <typename V, typename T, typename X>
static void launch_all(const spx__cuda_csr_plan *p, double alpha_d, const void *xv, double beta_d,
                       void *yv)
{
    const X *x = (const X *)xv;
    T *y = (T *)yv;
    const T alpha = (T)alpha_d, beta = (T)beta_d;
    cudaStream_t s = (cudaStream_t)p->stream;
    const unsigned chunk_grid = p->n_long ? grid_for(p->n_chunks, BLOCK / 32) : 0;
    const long_in<T> L = {p->n_chunks,   p->chunk_beg, p->chunk_end, p->chunk_long,
                          p->long_first, p->long_rows, p->long_done, (T *)p->partial};
    if (p->kernel == SPX__CUDA_CSR_LEAN) {
        launch_lean<V, T, X>(p, x, y, alpha, beta, L);
    } else if (p->kernel == SPX__CUDA_CSR_WARP) {
        const unsigned all = p->n_blocks ? grid_for(p->n_blocks, BLOCK / 32) : 0;
        const unsigned seg_grid = p->grid > 0 && p->grid < all ? (unsigned)p->grid : all;
        if (chunk_grid + seg_grid > 0)
            spx__launch(csr_warp_kernel<V, T, X>, chunk_grid + seg_grid, BLOCK, s, p->pdl,
                        p->n_blocks, (const longlong2 *)p->blk, p->A.rowptr, p->A.colidx,
                        (const V *)p->A.values, x, y, alpha, beta, chunk_grid, L);
    } else if (p->kernel == SPX__CUDA_CSR_VECTOR) {
        launch_vector<V, T, X>(p, x, y, alpha, beta);
        if (p->n_long)
            spx__launch(csr_chunk_kernel<V, T, X>, chunk_grid, BLOCK, s, p->pdl, L, p->A.colidx,
                        (const V *)p->A.values, x, y, alpha, beta);
    } else if (p->block_nnz < SPX__CUDA_CSR_STREAM_NNZ) {
        if (p->index_dict)
            launch_stream<V, T, X, SPX__CUDA_CSR_STREAM_NNZ_MIN, true>(p, x, y, alpha, beta,
                                                                       chunk_grid, L);
        else
            launch_stream<V, T, X, SPX__CUDA_CSR_STREAM_NNZ_MIN, false>(p, x, y, alpha, beta,
                                                                        chunk_grid, L);
    } else if (p->index_dict) {
        launch_stream<V, T, X, SPX__CUDA_CSR_STREAM_NNZ, true>(p, x, y, alpha, beta, chunk_grid, L);
    } else {
        launch_stream<V, T, X, SPX__CUDA_CSR_STREAM_NNZ, false>(p, x, y, alpha, beta, chunk_grid,
                                                                L);
    }
}

template <typename V, typename T, typename X, int NNZ>
static cudaError_t dict_blocks_per_sm(const spx__cuda_csr_plan *p, int *n)
{
    return p->n_long ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                           n, csr_stream_chunk_kernel<V, T, X, NNZ, true>, BLOCK, 0)
                     : cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                           n, csr_stream_kernel<V, T, X, NNZ, true>, BLOCK, 0);
}

template <typename V, typename T, typename X>
static cudaError_t dict_blocks_per_sm(const spx__cuda_csr_plan *p, int *n)
{
    if (p->iso)
        return p->block_nnz < SPX__CUDA_CSR_STREAM_NNZ
                   ? dict_blocks_per_sm<spx__iso_val, T, X, SPX__CUDA_CSR_STREAM_NNZ_MIN>(p, n)
                   : dict_blocks_per_sm<spx__iso_val, T, X, SPX__CUDA_CSR_STREAM_NNZ>(p, n);
    return p->block_nnz < SPX__CUDA_CSR_STREAM_NNZ
               ? dict_blocks_per_sm<V, T, X, SPX__CUDA_CSR_STREAM_NNZ_MIN>(p, n)
               : dict_blocks_per_sm<V, T, X, SPX__CUDA_CSR_STREAM_NNZ>(p, n);
}

extern "C" spx_status spx__cuda_csr_dict_grid(const spx__cuda_csr_plan *p, int64_t *grid)
{
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = p->precision == SPX_F64   ? dict_blocks_per_sm<double, double, double>(p, &per_sm)
            : p->precision == SPX_F32 ? dict_blocks_per_sm<float, float, float>(p, &per_sm)
            : p->x_half               ? dict_blocks_per_sm<__half, float, __half>(p, &per_sm)
                                      : dict_blocks_per_sm<__half, float, float>(p, &per_sm);
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda csr dict occupancy: %s", cudaGetErrorString(e));
    const int64_t fit = (int64_t)(per_sm > 0 ? per_sm : 1) * (sms > 0 ? sms : 1);
    *grid = fit < p->n_blocks ? fit : p->n_blocks;
    return SPX_OK;
}

/* The kernels of a plan of values V: V's, or the iso ones with the plan's
 * value folded into alpha. */
template <typename V, typename T, typename X>
static void launch_values(const spx__cuda_csr_plan *p, double alpha, const void *x, double beta,
                          void *y)
{
    if (p->iso)
        launch_all<spx__iso_val, T, X>(p, alpha * p->iso_value, x, beta, y);
    else
        launch_all<V, T, X>(p, alpha, x, beta, y);
}

extern "C" spx_status spx__cuda_csr_spmv(const spx__cuda_csr_plan *p, double alpha, const void *x,
                                         double beta, void *y)
{
    if (!p || (p->A.rows > 0 && !y) || (p->A.cols > 0 && !x))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda csr spmv: NULL plan or vector");
    if (p->kernel == SPX__CUDA_CSR_LEAN && p->precision != SPX_F16)
        return spx__error(SPX_ERR_INVALID_ARG, "cuda csr spmv: kernel=lean needs an fp16 plan");
    if (p->A.rows == 0) return SPX_OK;
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
        return spx__error(SPX_ERR_DEVICE, "cuda csr spmv launch failed: %s", cudaGetErrorString(e));
    return SPX_OK;
}

/* index=dict's values of an update (spx_plan_update_values): a thread block
 * a row block b, copying its nonzeros' values from their place in CSR order
 * to their codes' places, dst[blk[4b + 2] + t] = src[first[b] + t] for t <
 * blk[4b + 3] - blk[4b + 2]; E is an unsigned type of the values' size, so
 * the bits are copied as they are (the values converted already). */
template <typename E>
__global__ void __launch_bounds__(BLOCK)
    dict_refill_kernel(E *__restrict__ dst, const E *__restrict__ src,
                       const int64_t *__restrict__ blk, const int64_t *__restrict__ first,
                       int64_t n_blocks)
{
    for (int64_t b = blockIdx.x; b < n_blocks; b += gridDim.x) {
        const int64_t c0 = blk[4 * b + 2], n = blk[4 * b + 3] - c0, s0 = first[b];
        for (int64_t t = threadIdx.x; t < n; t += BLOCK)
            dst[c0 + t] = src[s0 + t];
    }
}

extern "C" spx_status spx__cuda_csr_dict_refill(const spx__cuda_csr_plan *p, void *dst,
                                                const void *src)
{
    if (!p || !p->index_dict || !dst || !src || (p->n_blocks > 0 && !p->dict_first))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda csr dict refill: bad argument");
    if (p->n_blocks == 0) return SPX_OK;
    cudaStream_t s = (cudaStream_t)p->stream;
    const unsigned grid = grid_for(p->n_blocks, 1);
    if (p->precision == SPX_F64)
        dict_refill_kernel<uint64_t><<<grid, BLOCK, 0, s>>>((uint64_t *)dst, (const uint64_t *)src,
                                                            p->blk, p->dict_first, p->n_blocks);
    else if (p->precision == SPX_F32)
        dict_refill_kernel<uint32_t><<<grid, BLOCK, 0, s>>>((uint32_t *)dst, (const uint32_t *)src,
                                                            p->blk, p->dict_first, p->n_blocks);
    else
        dict_refill_kernel<uint16_t><<<grid, BLOCK, 0, s>>>((uint16_t *)dst, (const uint16_t *)src,
                                                            p->blk, p->dict_first, p->n_blocks);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda csr dict refill: %s", cudaGetErrorString(e));
    return SPX_OK;
}
