/* DASP kernels (layout in dasp.h): one launch covers every class, a warp per
 * piece of work picked from its global warp index (long-row tasks first, then
 * heavy medium row-blocks' tasks, light medium row-blocks, short blocks,
 * singletons, empty rows). Long rows and heavy row-blocks are split in tasks
 * writing partial sums; the last task of a row (block) to finish, told by an
 * atomic counter, adds the partials in task order (deterministic) and writes
 * y, then sets the counter back to zero for the next call; with two_pass a
 * second launch (dasp_finish) does that instead, without fences or atomics.
 *
 * Lane l of a warp loads entry l of an 8x4 block: A[l/4][l%4] = value,
 * B[l%4][l/4] = x[column]; the product's diagonal C[i][i] (lane 4i + i/2,
 * accumulator i%2) is row i's dot product.
 *   F64: mma.sync f64 (DMMA), accumulation in fp64, in one of three shapes
 *        (param mma=4|8|16): m8n8k4, a chunk per mma; or m16n8k8 (m16n8k16)
 *        with A's rows 8..15 zero, 2 (4) chunks of a batch per mma. With g =
 *        lane/4 and t = lane%4 the m16n8kK fragments are a[2q] = A[g][t+4q],
 *        a[2q+1] = A[g+8][t+4q], b[q] = B[t+4q][g], c[0] = C[g][2t], c[1] =
 *        C[g][2t+1] (c[2], c[3]: rows g+8): entry `lane` of the batch's chunk
 *        q is A[g][t+4q] and x of its column B[t+4q][g], so the loads are the
 *        same and the diagonal is in the same lane and register as m8n8k4's.
 *        The PTX ISA leaves the order of the sums inside one mma to the
 *        hardware (on an H100 the three shapes give the same bits). A batch's
 *        last 1 or 2 chunks take the smaller shapes. Not faster on an H100
 *        (64 registers instead of 54), so m8n8k4 is the default.
 *   F16: values stored in IEEE half; x and y are float. A half is exact in
 *        tf32, and x is split into two tf32 parts (hi + lo, |x - hi - lo| <=
 *        2^-22 |x|), so mma.sync m16n8k4 tf32 with fp32 accumulators (rows 8..15
 *        of A zero) gives the products of the fp16 values with x in fp32:
 *        |y - A x| <= (2^-11 + c 2^-24) (|A||x|) for values in half's normal range.
 *   F16H: F16 with x in IEEE half (xtype=half): one mma per chunk, exact
 *        products, |y - A x| <= (2^-11 + c 2^-24) (|A||x|) with A's values as
 *        given before their rounding to half and x as the caller's halves.
 * The matrix arrays are read with streaming (evict-first) loads, x through L1
 * (spx__ld_fresh: with pdl, cuda/pdl.cuh, the kernel waits at its start for
 * the kernel before, and a read-only-cache load could be moved above that
 * wait). The F64 m8n8k4 main kernel is also compiled with its
 * registers capped (48 and 40 instead of 54, more warps resident per SM), the
 * same code and bits: pick_regs takes 48 where that saves a wave of warps. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

extern "C" {
#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
}
#include "cuda/dasp/dasp.h"
#include "cuda/pdl.cuh"

#define WARPS_PER_BLOCK 4
#define SHORT_BLOCKS_PER_WARP 2 /* 1&3 and 2&2 blocks: 4 mma per warp */
#define FOUR_BLOCKS_PER_WARP 4  /* blocks of rows of 4 */
#define BATCH 4                 /* chunks loaded before their mma */
/* Resident blocks per SM asked of ptxas by the capped F64 main kernels: 65536
 * registers / (10 * 128 threads) = 51, allocated in steps of 8: 48 registers;
 * 12 blocks: 40 (the uncapped kernel takes 54 on sm_90, 9 blocks). */
#define CAP_48 10
#define CAP_40 12

/* ------------------------------------------------------------ precisions */

template <int K> struct F64 {
    static constexpr bool iso = false; /* values read (Iso: none) */
    typedef double val_t; /* stored matrix value */
    typedef double vec_t; /* y */
    typedef double x_t;   /* x */
    typedef double acc_t;
    typedef double a_t;
    typedef double b_t;
    struct frag {
        double c[2];
    };
    static __device__ frag zero() { return frag{{0.0, 0.0}}; }
    static __device__ a_t a_of(double v) { return v; }
    static __device__ a_t a_zero() { return 0.0; }
    static __device__ b_t b_of(double x) { return x; }
    static __device__ b_t b_zero() { return 0.0; }
    static __device__ acc_t scalar(double v) { return v; }
    static __device__ void mma(frag &f, a_t a, b_t b)
    {
        asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
            : "+d"(f.c[0]), "+d"(f.c[1])
            : "d"(a), "d"(b));
    }
    /* Chunks a[0..1], b[0..1] in one m16n8k8 (rows 8..15 zero, their sums dropped). */
    static __device__ void mma2(frag &f, const a_t *a, const b_t *b)
    {
        double lo0, lo1;
        asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
            "{%4, %7, %5, %7}, {%6, %8}, {%0, %1, %7, %7};"
            : "+d"(f.c[0]), "+d"(f.c[1]), "=d"(lo0), "=d"(lo1)
            : "d"(a[0]), "d"(a[1]), "d"(b[0]), "d"(0.0), "d"(b[1]));
    }
    /* Chunks a[0..3], b[0..3] in one m16n8k16. */
    static __device__ void mma4(frag &f, const a_t *a, const b_t *b)
    {
        double lo0, lo1;
        asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
            "{%4, %8, %5, %8, %6, %8, %7, %8}, {%9, %10, %11, %12}, {%0, %1, %8, %8};"
            : "+d"(f.c[0]), "+d"(f.c[1]), "=d"(lo0), "=d"(lo1)
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(0.0), "d"(b[0]), "d"(b[1]),
              "d"(b[2]), "d"(b[3]));
    }
    /* f += chunks u < n of a batch (n is the same in every lane). */
    static __device__ void batch(frag &f, const a_t *a, const b_t *b, int n)
    {
#pragma unroll
        for (int u = 0; u < BATCH; u += K / 4) {
            int left = n - u;
            if (left <= 0) break;
            if (K == 16 && left > 2) mma4(f, a + u, b + u);
            else if (K >= 8 && left > 1) mma2(f, a + u, b + u);
            else mma(f, a[u], b[u]);
        }
    }
    static __device__ acc_t diag(const frag &f, int e) { return e ? f.c[1] : f.c[0]; }
};

struct F16 {
    static constexpr bool iso = false;
    typedef __half val_t;
    typedef float vec_t;
    typedef float x_t;
    typedef float acc_t;
    typedef uint32_t a_t; /* tf32 bits of the half value (exact) */
    struct b_t {
        uint32_t hi, lo; /* x = hi + lo in tf32 */
    };
    struct frag {
        float c[4];
    };
    static __device__ frag zero() { return frag{{0.f, 0.f, 0.f, 0.f}}; }
    static __device__ a_t a_of(__half v) { return __float_as_uint(__half2float(v)); }
    static __device__ a_t a_zero() { return 0u; }
    static __device__ uint32_t tf32(float v)
    {
        uint32_t r;
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
        return r;
    }
    static __device__ b_t b_of(float x)
    {
        uint32_t hi = tf32(x);
        float rest = x - __uint_as_float(hi);
        return b_t{hi, isfinite(x) ? tf32(rest) : 0u};
    }
    static __device__ b_t b_zero() { return b_t{0u, 0u}; }
    static __device__ acc_t scalar(__half v) { return __half2float(v); }
    static __device__ void mma1(frag &f, uint32_t a, uint32_t b)
    {
        asm("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, "
            "{%6}, {%0, %1, %2, %3};"
            : "+f"(f.c[0]), "+f"(f.c[1]), "+f"(f.c[2]), "+f"(f.c[3])
            : "r"(a), "r"(0u), "r"(b));
    }
    static __device__ void mma(frag &f, a_t a, b_t b)
    {
        mma1(f, a, b.hi);
        mma1(f, a, b.lo);
    }
    static __device__ void batch(frag &f, const a_t *a, const b_t *b, int n)
    {
#pragma unroll
        for (int u = 0; u < BATCH; u++)
            if (u < n) mma(f, a[u], b[u]);
    }
    static __device__ acc_t diag(const frag &f, int e) { return e ? f.c[1] : f.c[0]; }
};

/* F16 with x in IEEE half (xtype=half): a half is exact in tf32, so x needs
 * no lo part and a chunk takes one mma instead of two; the products are
 * exact and only the fp32 sums round. */
struct F16H : F16 {
    typedef __half x_t;
    typedef uint32_t b_t; /* tf32 bits of the half x (exact) */
    static __device__ b_t b_of(__half x) { return __float_as_uint(__half2float(x)); }
    static __device__ b_t b_zero() { return 0u; }
    static __device__ void mma(frag &f, a_t a, b_t b) { mma1(f, a, b); }
    static __device__ void batch(frag &f, const a_t *a, const b_t *b, int n)
    {
#pragma unroll
        for (int u = 0; u < BATCH; u++)
            if (u < n) mma(f, a[u], b[u]);
    }
};

/* A precision's kernels for an iso plan: no value array; every entry's value
 * is 1 (the plan folds the matrix's one value into alpha), a padding entry
 * still gives 0 through its x operand (column -1: b = 0). */
template <class T> struct Iso : T {
    static constexpr bool iso = true;
};

/* Entry e's stored value, or 1 for an iso plan (val NULL, not read). */
template <class T>
static __device__ __forceinline__ typename T::val_t value_at(const typename T::val_t *val,
                                                             int64_t e)
{
    if constexpr (T::iso) return typename T::val_t(1.0f);
    else return __ldcs(val + e);
}

/* --------------------------------------------------------------- layout */

struct layout {
    const int32_t *col;
    const int32_t *long_row, *med_row, *row13, *row22, *row4, *single_row, *empty_row;
    const int64_t *long_task_ptr, *task_chunk, *rb_ptr, *hv_task_ptr;
    const int64_t *irr_base;  /* per row-block: its first irregular entry (from irr0) */
    const uint64_t *irr_len8; /* per row-block: byte i = row i's irregular count */
    const int32_t *hv_block, *task_row;
    unsigned *count; /* n_long + n_heavy tasks finished, zero between calls */
    int two_pass;    /* tasks' partials added by a second launch, not the last task */
    int64_t n_long, n_tasks, n_rowblocks, med_chunk0, irr0, n_heavy, n_htasks;
    int64_t n_blk13, n_blk22, n_blk4, chunk13, chunk22, chunk4, n_single, single0, n_empty;
    int loop_num;
    int mma; /* F64 chunks per mma: 4 (m8n8k4), 8 (m16n8k8), 16 (m16n8k16) */
    int min_blocks; /* F64 m8n8k4 main kernel: 0 (no register cap), CAP_48 or CAP_40 */
    /* end of each class's warps in the main launch */
    int64_t w_long, w_heavy, w_med, w_13, w_22, w_4, w_single, w_empty;
};

struct spx__dasp_dev {
    spx_type prec;
    cudaStream_t stream;
    layout L;
    void *val;
    int32_t *col, *rows;
    int64_t *offs;
    int64_t *rowptr;     /* A's row offsets (rows + 1), for the fill and update's walk */
    spx__dasp_walk walk; /* the walk of L's row lists and rowptr (dasp.h) */
    void *partial; /* n_tasks partial sums of long rows, then 8 per heavy task */
    unsigned *count;
    size_t bytes;
    int64_t n_entries; /* slots of val and col */
    int64_t nnz;       /* A's entries */
    int pdl;           /* launches may overlap the kernel before */
    int iso;           /* no values (val NULL): the Iso kernels */
};

/* ---------------------------------------------------------- warp pieces */

static __device__ __forceinline__ bool diag_lane(int lane)
{
    return (lane & 3) == ((lane >> 2) >> 1);
}

template <class T>
static __device__ __forceinline__ void store_y(typename T::vec_t *y, int32_t r,
                                               typename T::acc_t v, typename T::acc_t alpha,
                                               typename T::acc_t beta)
{
    if (r < 0) return;
    typename T::acc_t out = alpha * v;
    if (beta != (typename T::acc_t)0) out += beta * (typename T::acc_t)y[r];
    y[r] = (typename T::vec_t)out;
}

/* Operands of entry e (a padding entry, column -1, gives zeros). */
template <class T>
static __device__ __forceinline__ void load_entry(const typename T::val_t *val,
                                                  const int32_t *col,
                                                  const typename T::x_t *x, int64_t e,
                                                  typename T::a_t &a, typename T::b_t &b)
{
    int32_t j = __ldcs(col + e);
    a = T::a_of(value_at<T>(val, e));
    b = j >= 0 ? T::b_of(spx__ld_fresh(x + j)) : T::b_zero();
}

/* f += the blocks of chunks [c, min(c + BATCH, c1)): their loads first. */
template <class T>
static __device__ __forceinline__ void batch_mma(typename T::frag &f,
                                                 const typename T::val_t *val,
                                                 const int32_t *col,
                                                 const typename T::x_t *x, int64_t c,
                                                 int64_t c1, int lane)
{
    typename T::a_t a[BATCH];
    typename T::b_t b[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; u++) {
        a[u] = T::a_zero();
        b[u] = T::b_zero();
        if (c + u < c1) load_entry<T>(val, col, x, (c + u) * SPX__DASP_CHUNK + lane, a[u], b[u]);
    }
    T::batch(f, a, b, (int)(c1 - c < BATCH ? c1 - c : BATCH));
}

/* f += the blocks of chunks [c0, c1), a batch at a time. */
template <class T>
static __device__ __forceinline__ void chunks_mma(typename T::frag &f,
                                                  const typename T::val_t *val,
                                                  const int32_t *col,
                                                  const typename T::x_t *x, int64_t c0,
                                                  int64_t c1, int lane)
{
    for (int64_t c = c0; c < c1; c += BATCH) batch_mma<T>(f, val, col, x, c, c1, lane);
}

template <class T>
static __device__ __forceinline__ typename T::acc_t warp_sum(typename T::acc_t v)
{
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

/* After a warp wrote its task's partials: true in the warp that finished the
 * last of n tasks counted at *cnt (which it resets); its reads of the
 * others' partials must bypass L1 (__ldcg). */
static __device__ __forceinline__ bool last_task(unsigned *cnt, int64_t n, int lane)
{
    __threadfence();
    __syncwarp();
    unsigned last = 0;
    if (lane == 0) {
        last = atomicAdd(cnt, 1u) == (unsigned)(n - 1);
        if (last) *cnt = 0;
    }
    last = __shfl_sync(0xffffffffu, last, 0);
    if (last) __threadfence();
    return last != 0;
}

/* y of long row r from its task partials, added in task order. */
template <class T>
static __device__ void long_finish(const layout &L, const typename T::acc_t *partial,
                                   typename T::vec_t *y, typename T::acc_t alpha,
                                   typename T::acc_t beta, int64_t r, int lane)
{
    typename T::acc_t s = 0;
    for (int64_t k = __ldg(L.long_task_ptr + r) + lane; k < __ldg(L.long_task_ptr + r + 1); k += 32)
        s += __ldcg(partial + k);
    s = warp_sum<T>(s);
    if (lane == 0) store_y<T>(y, __ldg(L.long_row + r), s, alpha, beta);
}

/* Long rows: task t's chunks; partial[t] = sum of the diagonal; the row's
 * last task (unless a second pass does it) finishes the row. */
template <class T>
static __device__ void long_task(const layout &L, const typename T::val_t *val,
                                 const typename T::x_t *x, typename T::vec_t *y,
                                 typename T::acc_t *partial, typename T::acc_t alpha,
                                 typename T::acc_t beta, int64_t t, int lane)
{
    typename T::frag f = T::zero();
    chunks_mma<T>(f, val, L.col, x, __ldg(L.task_chunk + t), __ldg(L.task_chunk + t + 1), lane);
    int i = lane >> 2;
    typename T::acc_t s = warp_sum<T>(diag_lane(lane) ? T::diag(f, i & 1) : 0);
    if (lane == 0) partial[t] = s;
    if (L.two_pass) return;
    int32_t r = __ldg(L.task_row + t);
    int64_t n = __ldg(L.long_task_ptr + r + 1) - __ldg(L.long_task_ptr + r);
    if (last_task(L.count + r, n, lane)) long_finish<T>(L, partial, y, alpha, beta, r, lane);
}

/* A medium row's irregular entries (at most SPX__DASP_IRR_MAX), four lanes
 * per row: the loads are issued first (irr_load), the sums later (irr_sum), so
 * they overlap the regular blocks. */
#define IRR_PER_LANE (SPX__DASP_IRR_MAX / 4)

template <class T> struct irr_regs {
    typename T::val_t v[IRR_PER_LANE];
    int32_t j[IRR_PER_LANE];
};

/* A medium row-block's offsets, as lane group i (row i) needs them. */
struct rb_meta {
    int64_t c0, c1, irr; /* its chunks, its first irregular entry */
    uint64_t lens;       /* byte i: row i's irregular count */
    int32_t row;         /* original row of row i */
};

static __device__ __forceinline__ rb_meta load_meta(const layout &L, int64_t b, int i)
{
    rb_meta m;
    m.c0 = L.med_chunk0 + __ldg(L.rb_ptr + b);
    m.c1 = L.med_chunk0 + __ldg(L.rb_ptr + b + 1);
    m.irr = L.irr0 + __ldg(L.irr_base + b);
    m.lens = __ldg(L.irr_len8 + b);
    m.row = __ldg(L.med_row + 8 * b + i);
    return m;
}

template <class T>
static __device__ __forceinline__ void irr_load(const layout &L, const typename T::val_t *val,
                                                const rb_meta &m, int lane, irr_regs<T> &g)
{
    int i = lane >> 2;
    uint64_t upto = m.lens * 0x0101010101010101ull; /* byte k: rows 0..k's counts */
    int64_t start = m.irr + (i ? (int64_t)((upto >> (8 * i - 8)) & 0xff) : 0);
    int64_t k0 = start + (lane & 3), k1 = start + (int64_t)((m.lens >> (8 * i)) & 0xff);
#pragma unroll
    for (int u = 0; u < IRR_PER_LANE; u++) {
        int64_t k = k0 + 4 * u;
        g.j[u] = k < k1 ? __ldcs(L.col + k) : -1;
        g.v[u] = k < k1 ? value_at<T>(val, k) : typename T::val_t(0);
    }
}

template <class T>
static __device__ __forceinline__ typename T::acc_t irr_sum(const irr_regs<T> &g,
                                                            const typename T::x_t *x)
{
    typename T::acc_t s = 0;
#pragma unroll
    for (int u = 0; u < IRR_PER_LANE; u++)
        if (g.j[u] >= 0) s += T::scalar(g.v[u]) * (typename T::acc_t)spx__ld_fresh(x + g.j[u]);
    s += __shfl_xor_sync(0xffffffffu, s, 1);
    s += __shfl_xor_sync(0xffffffffu, s, 2);
    return s;
}

/* Light medium row-blocks (at most HEAVY_CHUNKS chunks each), loop_num per
 * warp: regular chunks on the tensor cores, the irregular rest four lanes per
 * row; the diagonal lane adds both and writes y. The irregular entries and
 * the first batch of blocks are loaded together, and the next row-block's
 * offsets while this one runs, to keep the chain of dependent loads short. */
template <class T>
static __device__ void medium_rows(const layout &L, const typename T::val_t *val,
                                   const typename T::x_t *x, typename T::vec_t *y,
                                   typename T::acc_t alpha, typename T::acc_t beta,
                                   int64_t w, int lane)
{
    int i = lane >> 2;
    int64_t b = L.n_heavy + w * L.loop_num;
    if (b >= L.n_rowblocks) return;
    rb_meta m = load_meta(L, b, i);
    for (int q = 0;; q++, b++) {
        irr_regs<T> g;
        irr_load<T>(L, val, m, lane, g);
        bool more = q + 1 < L.loop_num && b + 1 < L.n_rowblocks;
        rb_meta next = m;
        if (more) next = load_meta(L, b + 1, i);
        typename T::frag f = T::zero();
        batch_mma<T>(f, val, L.col, x, m.c0, m.c1, lane);
        typename T::acc_t s = irr_sum<T>(g, x);
        chunks_mma<T>(f, val, L.col, x, m.c0 + BATCH, m.c1, lane);
        if (diag_lane(lane)) store_y<T>(y, m.row, T::diag(f, i & 1) + s, alpha, beta);
        if (!more) return;
        m = next;
    }
}

/* y of heavy row-block b's rows from their task partials, lane i < 8 for row i. */
template <class T>
static __device__ void heavy_finish(const layout &L, const typename T::acc_t *partial,
                                    typename T::vec_t *y, typename T::acc_t alpha,
                                    typename T::acc_t beta, int64_t b, int lane)
{
    if (lane >= 8) return;
    const typename T::acc_t *part = partial + L.n_tasks;
    typename T::acc_t s = 0;
    for (int64_t k = __ldg(L.hv_task_ptr + b); k < __ldg(L.hv_task_ptr + b + 1); k++)
        s += __ldcg(part + 8 * k + lane);
    store_y<T>(y, __ldg(L.med_row + 8 * b + lane), s, alpha, beta);
}

/* Heavy row-blocks: task t's chunks (the block's first task adds the
 * irregular part); 8 partial sums, one per row; the block's last task
 * (unless a second pass does it) finishes the block. */
template <class T>
static __device__ void heavy_task(const layout &L, const typename T::val_t *val,
                                  const typename T::x_t *x, typename T::vec_t *y,
                                  typename T::acc_t *partial, typename T::acc_t alpha,
                                  typename T::acc_t beta, int64_t t, int lane)
{
    int i = lane >> 2;
    int64_t b = __ldg(L.hv_block + t);
    int64_t t0 = __ldg(L.hv_task_ptr + b), t1 = __ldg(L.hv_task_ptr + b + 1);
    bool first = t0 == t;
    irr_regs<T> g;
    if (first) irr_load<T>(L, val, load_meta(L, b, i), lane, g);
    typename T::frag f = T::zero();
    chunks_mma<T>(f, val, L.col, x, __ldg(L.task_chunk + L.n_tasks + t),
                  __ldg(L.task_chunk + L.n_tasks + t + 1), lane);
    typename T::acc_t s = first ? irr_sum<T>(g, x) : 0;
    if (diag_lane(lane)) partial[L.n_tasks + 8 * t + i] = T::diag(f, i & 1) + s;
    if (!L.two_pass && last_task(L.count + L.n_long + b, t1 - t0, lane))
        heavy_finish<T>(L, partial, y, alpha, beta, b, lane);
}

/* Operands of short blocks blk0 .. blk0 + N - 1 (zeros past n_blk), all loads
 * issued before any mma. */
template <class T, int N>
static __device__ __forceinline__ void load_blocks(const typename T::val_t *val,
                                                   const int32_t *col,
                                                   const typename T::x_t *x, int64_t chunk0,
                                                   int64_t blk0, int64_t n_blk, int lane,
                                                   typename T::a_t a[N], typename T::b_t b[N])
{
#pragma unroll
    for (int u = 0; u < N; u++) {
        a[u] = T::a_zero();
        b[u] = T::b_zero();
        if (blk0 + u < n_blk)
            load_entry<T>(val, col, x, (chunk0 + blk0 + u) * SPX__DASP_CHUNK + lane, a[u], b[u]);
    }
}

/* Pieced short rows: a block's rows hold a row of `first` slots then a row
 * of 4 - first slots; two mma with x masked to each part. */
template <class T>
static __device__ void pieced_rows(const typename T::val_t *val, const int32_t *col,
                                   const typename T::x_t *x, typename T::vec_t *y,
                                   const int32_t *rows, int64_t chunk0, int64_t n_blk,
                                   int first, typename T::acc_t alpha,
                                   typename T::acc_t beta, int64_t w, int lane)
{
    typename T::a_t a[SHORT_BLOCKS_PER_WARP];
    typename T::b_t b[SHORT_BLOCKS_PER_WARP];
    int64_t blk0 = w * SHORT_BLOCKS_PER_WARP;
    load_blocks<T, SHORT_BLOCKS_PER_WARP>(val, col, x, chunk0, blk0, n_blk, lane, a, b);
    bool lead = (lane & 3) < first;
    int i = lane >> 2;
#pragma unroll
    for (int u = 0; u < SHORT_BLOCKS_PER_WARP; u++) {
        if (blk0 + u >= n_blk) return;
        typename T::frag f0 = T::zero(), f1 = T::zero();
        T::mma(f0, a[u], lead ? b[u] : T::b_zero());
        T::mma(f1, a[u], lead ? T::b_zero() : b[u]);
        if (diag_lane(lane)) {
            int64_t p = (blk0 + u) * 8 + i;
            store_y<T>(y, rows[2 * p], T::diag(f0, i & 1), alpha, beta);
            store_y<T>(y, rows[2 * p + 1], T::diag(f1, i & 1), alpha, beta);
        }
    }
}

/* Rows of 4 (and of 3, padded): one mma per block of 8 rows. */
template <class T>
static __device__ void rows_of_four(const layout &L, const typename T::val_t *val,
                                    const typename T::x_t *x, typename T::vec_t *y,
                                    typename T::acc_t alpha, typename T::acc_t beta,
                                    int64_t w, int lane)
{
    typename T::a_t a[FOUR_BLOCKS_PER_WARP];
    typename T::b_t b[FOUR_BLOCKS_PER_WARP];
    int64_t blk0 = w * FOUR_BLOCKS_PER_WARP;
    load_blocks<T, FOUR_BLOCKS_PER_WARP>(val, L.col, x, L.chunk4, blk0, L.n_blk4, lane, a, b);
    int i = lane >> 2;
#pragma unroll
    for (int u = 0; u < FOUR_BLOCKS_PER_WARP; u++) {
        if (blk0 + u >= L.n_blk4) return;
        typename T::frag f = T::zero();
        T::mma(f, a[u], b[u]);
        if (diag_lane(lane))
            store_y<T>(y, L.row4[(blk0 + u) * 8 + i], T::diag(f, i & 1), alpha, beta);
    }
}

template <class T>
static __device__ void single_rows(const layout &L, const typename T::val_t *val,
                                   const typename T::x_t *x, typename T::vec_t *y,
                                   typename T::acc_t alpha, typename T::acc_t beta,
                                   int64_t w, int lane)
{
    int64_t s = w * 32 + lane;
    if (s >= L.n_single) return;
    int64_t e = L.single0 + s;
    typename T::acc_t v =
        T::scalar(value_at<T>(val, e)) * (typename T::acc_t)spx__ld_fresh(x + __ldcs(L.col + e));
    store_y<T>(y, L.single_row[s], v, alpha, beta);
}

template <class T>
static __device__ void empty_rows(const layout &L, typename T::vec_t *y,
                                  typename T::acc_t beta, int64_t w, int lane)
{
    int64_t s = w * 32 + lane;
    if (s >= L.n_empty) return;
    int32_t r = L.empty_row[s];
    y[r] = beta != (typename T::acc_t)0 ? (typename T::vec_t)(beta * (typename T::acc_t)y[r])
                                        : (typename T::vec_t)0;
}

/* ------------------------------------------------------------- kernels */

/* MINB > 0: at least MINB blocks resident per SM, so ptxas caps the registers
 * (see pick_regs); 0 leaves them to ptxas (1 would not: 56 registers, not 54). */
template <class T, int MINB>
__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK, MINB)
    dasp_main(layout L, const typename T::val_t *__restrict__ val,
              const typename T::x_t *__restrict__ x, typename T::vec_t *__restrict__ y,
              typename T::acc_t *__restrict__ partial, typename T::acc_t alpha,
              typename T::acc_t beta)
{
    int64_t w = (int64_t)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    spx__pdl_let_next_start();
    x = spx__pdl_after(x);
    y = spx__pdl_after(y);
    partial = spx__pdl_after(partial);
    if (w < L.w_long) long_task<T>(L, val, x, y, partial, alpha, beta, w, lane);
    else if (w < L.w_heavy)
        heavy_task<T>(L, val, x, y, partial, alpha, beta, w - L.w_long, lane);
    else if (w < L.w_med) medium_rows<T>(L, val, x, y, alpha, beta, w - L.w_heavy, lane);
    else if (w < L.w_13)
        pieced_rows<T>(val, L.col, x, y, L.row13, L.chunk13, L.n_blk13, 1, alpha, beta,
                       w - L.w_med, lane);
    else if (w < L.w_22)
        pieced_rows<T>(val, L.col, x, y, L.row22, L.chunk22, L.n_blk22, 2, alpha, beta,
                       w - L.w_13, lane);
    else if (w < L.w_4) rows_of_four<T>(L, val, x, y, alpha, beta, w - L.w_22, lane);
    else if (w < L.w_single) single_rows<T>(L, val, x, y, alpha, beta, w - L.w_4, lane);
    else if (w < L.w_empty) empty_rows<T>(L, y, beta, w - L.w_single, lane);
}

/* The second pass (param sum=pass): a warp per long row, then per heavy
 * row-block. */
template <class T>
__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK)
    dasp_finish(layout L, const typename T::acc_t *__restrict__ partial,
                typename T::vec_t *__restrict__ y, typename T::acc_t alpha,
                typename T::acc_t beta)
{
    int64_t w = (int64_t)blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    spx__pdl_let_next_start();
    partial = spx__pdl_after(partial);
    y = spx__pdl_after(y);
    if (w < L.n_long) long_finish<T>(L, partial, y, alpha, beta, w, lane);
    else if (w < L.n_long + L.n_heavy)
        heavy_finish<T>(L, partial, y, alpha, beta, w - L.n_long, lane);
}

/* ------------------------------------------------------------- host side */

static spx_status cuda_error(cudaError_t e, const char *what)
{
    return spx__error(SPX_ERR_DEVICE, "dasp: %s failed: %s", what, cudaGetErrorString(e));
}

static int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

static spx_status dev_alloc(spx__dasp_dev *d, void **p, size_t bytes, const char *what)
{
    spx_status st = spx__dasp_dev_alloc(p, bytes, what);
    if (st == SPX_OK) d->bytes += bytes;
    return st;
}

/* Append n elements of src at dst[*at] (host to device). */
template <class I>
static spx_status put_array(I *dst, int64_t *at, const I *src, int64_t n, const I **view)
{
    *view = dst + *at;
    if (n == 0) return SPX_OK;
    cudaError_t e = cudaMemcpy(dst + *at, src, (size_t)n * sizeof(I), cudaMemcpyHostToDevice);
    *at += n;
    return e == cudaSuccess ? SPX_OK : cuda_error(e, "cudaMemcpy of the dasp layout");
}

static spx_status upload_rows(spx__dasp_dev *d, const spx__dasp_host *h)
{
    layout &L = d->L;
    int64_t n = h->n_long + 8 * h->n_rowblocks + 16 * (h->n_blk13 + h->n_blk22) +
                8 * h->n_blk4 + h->n_single + h->n_empty + h->n_htasks + h->n_tasks, at = 0;
    spx_status st;
    SPX_TRY(dev_alloc(d, (void **)&d->rows, (size_t)n * sizeof(int32_t), "dasp row ids"));
    SPX_TRY(put_array(d->rows, &at, h->long_row, h->n_long, &L.long_row));
    SPX_TRY(put_array(d->rows, &at, h->med_row, 8 * h->n_rowblocks, &L.med_row));
    SPX_TRY(put_array(d->rows, &at, h->row13, 16 * h->n_blk13, &L.row13));
    SPX_TRY(put_array(d->rows, &at, h->row22, 16 * h->n_blk22, &L.row22));
    SPX_TRY(put_array(d->rows, &at, h->row4, 8 * h->n_blk4, &L.row4));
    SPX_TRY(put_array(d->rows, &at, h->single_row, h->n_single, &L.single_row));
    SPX_TRY(put_array(d->rows, &at, h->empty_row, h->n_empty, &L.empty_row));
    SPX_TRY(put_array(d->rows, &at, h->hv_block, h->n_htasks, &L.hv_block));
    SPX_TRY(put_array(d->rows, &at, h->task_row, h->n_tasks, &L.task_row));
cleanup:
    return st;
}

/* The irregular offsets per row-block: its first entry, and the 8 rows'
 * counts packed in a byte each (h->irr_words): 2 words per row-block instead
 * of 8. */
static spx_status put_irregular(spx__dasp_dev *d, int64_t *at, const spx__dasp_host *h)
{
    int64_t nb = h->n_rowblocks;
    const int64_t *view;
    spx_status st = put_array(d->offs, at, h->irr_words, 2 * nb, &view);
    d->L.irr_base = view;
    d->L.irr_len8 = (const uint64_t *)(view + nb);
    return st;
}

static spx_status upload_offsets(spx__dasp_dev *d, const spx__dasp_host *h)
{
    layout &L = d->L;
    int64_t n = h->n_long + 1 + h->n_tasks + h->n_htasks + 1 + h->n_rowblocks + 1 +
                2 * h->n_rowblocks + h->n_heavy + 1;
    int64_t at = 0;
    spx_status st;
    SPX_TRY(dev_alloc(d, (void **)&d->offs, (size_t)n * sizeof(int64_t), "dasp offsets"));
    SPX_TRY(put_array(d->offs, &at, h->long_task_ptr, h->n_long + 1, &L.long_task_ptr));
    SPX_TRY(put_array(d->offs, &at, h->task_chunk, h->n_tasks + h->n_htasks + 1,
                      &L.task_chunk));
    SPX_TRY(put_array(d->offs, &at, h->rb_ptr, h->n_rowblocks + 1, &L.rb_ptr));
    SPX_TRY(put_irregular(d, &at, h));
    SPX_TRY(put_array(d->offs, &at, h->hv_task_ptr, h->n_heavy + 1, &L.hv_task_ptr));
cleanup:
    return st;
}

/* Values as half on the host, then uploaded; a value beyond half's range
 * declines the plan (SPX_ERR_UNSUPPORTED) rather than becoming an infinity. */
static spx_status upload_half(spx__dasp_dev *d, const spx__dasp_host *h)
{
    __half *tmp = NULL;
    spx_status st;
    int64_t bad = -1;
    SPX_TRY(spx__alloc((void **)&tmp, (size_t)h->n_entries, sizeof *tmp, "dasp fp16 values"));
    for (int64_t e = 0; e < h->n_entries; e++) {
        tmp[e] = __double2half(h->val[e]);
        if (isinf(__half2float(tmp[e])) && !isinf(h->val[e]) && bad < 0) bad = e;
    }
    if (bad >= 0) {
        st = spx__error(SPX_ERR_UNSUPPORTED,
                        "dasp fp16: value %g is beyond the half range (65504)", h->val[bad]);
        goto cleanup;
    }
    SPX_TRY(dev_alloc(d, &d->val, (size_t)h->n_entries * sizeof(__half), "dasp fp16 values"));
    if (h->n_entries) {
        cudaError_t e = cudaMemcpy(d->val, tmp, (size_t)h->n_entries * sizeof(__half),
                                   cudaMemcpyHostToDevice);
        if (e != cudaSuccess) st = cuda_error(e, "cudaMemcpy of the dasp values");
    }
cleanup:
    spx__free(tmp);
    return st;
}

/* A's row offsets, kept: with L's row lists they say where every row's
 * entries go (the walk, dasp.h), for the device fill and for updates. */
static spx_status upload_walk(spx__dasp_dev *d, const spx__dasp_host *h)
{
    const int64_t *rowptr = NULL;
    const layout &L = d->L;
    spx__dasp_walk &w = d->walk;
    size_t bytes = ((size_t)h->rows + 1) * sizeof(int64_t);
    spx_status st;
    SPX_TRY(spx__matrix_rowptr(h->A, &rowptr));
    SPX_TRY(dev_alloc(d, (void **)&d->rowptr, bytes, "dasp row offsets"));
    SPX_TRY(spx__cuda_copy_staged(d->rowptr, rowptr, bytes, d->stream));
    w.rowptr = d->rowptr;
    w.long_row = L.long_row;
    w.med_row = L.med_row;
    w.row13 = L.row13;
    w.row22 = L.row22;
    w.row4 = L.row4;
    w.single_row = L.single_row;
    w.long_task_ptr = L.long_task_ptr;
    w.task_chunk = L.task_chunk;
    w.rb_ptr = L.rb_ptr;
    w.irr_base = L.irr_base;
    w.irr_len8 = L.irr_len8;
    w.n_long = L.n_long;
    w.n_rowblocks = L.n_rowblocks;
    w.n_blk13 = L.n_blk13;
    w.n_blk22 = L.n_blk22;
    w.n_blk4 = L.n_blk4;
    w.n_single = L.n_single;
    w.med_chunk0 = L.med_chunk0;
    w.irr0 = L.irr0;
    w.chunk13 = L.chunk13;
    w.chunk22 = L.chunk22;
    w.chunk4 = L.chunk4;
    w.single0 = L.single0;
    d->nnz = h->nnz;
cleanup:
    return st;
}

/* val/col: scattered on the device (dasp_fill.cu) when the packing has none,
 * else uploaded. */
static spx_status upload_values(spx__dasp_dev *d, const spx__dasp_host *h)
{
    spx_status st;
    int64_t at = 0;
    const int32_t *cv;
    SPX_TRY(dev_alloc(d, (void **)&d->col, (size_t)h->n_entries * sizeof(int32_t),
                      "dasp columns"));
    d->L.col = d->col;
    d->n_entries = h->n_entries;
    if (!h->val || !h->col) {
        size_t vb = d->prec == SPX_F16 ? sizeof(__half) : sizeof(double);
        if (!h->iso) SPX_TRY(dev_alloc(d, &d->val, (size_t)h->n_entries * vb, "dasp values"));
        SPX_TRY(spx__dasp_fill(h, &d->walk, d->prec, d->stream, d->val, d->col));
        goto cleanup;
    }
    SPX_TRY(put_array(d->col, &at, h->col, h->n_entries, &cv));
    if (h->iso) {
        /* no values */
    } else if (d->prec == SPX_F16) {
        SPX_TRY(upload_half(d, h));
    } else {
        const double *vv;
        at = 0;
        SPX_TRY(dev_alloc(d, &d->val, (size_t)h->n_entries * sizeof(double), "dasp values"));
        SPX_TRY(put_array((double *)d->val, &at, h->val, h->n_entries, &vv));
    }
cleanup:
    return st;
}

/* Partial sums of the tasks, and their counters (zero). */
static spx_status alloc_scratch(spx__dasp_dev *d, const spx__dasp_host *h)
{
    size_t pb = (size_t)(h->n_tasks + 8 * h->n_htasks) *
                (d->prec == SPX_F16 ? sizeof(float) : sizeof(double));
    size_t cb = (size_t)(h->n_long + h->n_heavy) * sizeof(unsigned);
    spx_status st = dev_alloc(d, &d->partial, pb, "dasp partial sums");
    if (st == SPX_OK) st = dev_alloc(d, (void **)&d->count, cb, "dasp task counters");
    if (st != SPX_OK || cb == 0) return st;
    cudaError_t e = cudaMemset(d->count, 0, cb);
    d->L.count = d->count;
    return e == cudaSuccess ? SPX_OK : cuda_error(e, "cudaMemset of the dasp counters");
}

static void set_counts(layout &L, const spx__dasp_host *h)
{
    L.n_long = h->n_long;
    L.n_tasks = h->n_tasks;
    L.n_rowblocks = h->n_rowblocks;
    L.med_chunk0 = h->med_chunk0;
    L.irr0 = h->irr0;
    L.n_heavy = h->n_heavy;
    L.n_htasks = h->n_htasks;
    L.n_blk13 = h->n_blk13;
    L.n_blk22 = h->n_blk22;
    L.n_blk4 = h->n_blk4;
    L.chunk13 = h->chunk13;
    L.chunk22 = h->chunk22;
    L.chunk4 = h->chunk4;
    L.n_single = h->n_single;
    L.single0 = h->single0;
    L.n_empty = h->n_empty;
    L.loop_num = h->loop_num;
    L.two_pass = h->two_pass;
    L.mma = h->mma == 8 || h->mma == 16 ? h->mma : 4;
    L.min_blocks = h->regs == 48 ? CAP_48 : h->regs == 40 ? CAP_40 : h->regs == 54 ? 0 : -1;
    L.w_long = h->n_tasks;
    L.w_heavy = L.w_long + h->n_htasks;
    L.w_med = L.w_heavy + div_up(h->n_rowblocks - h->n_heavy, h->loop_num);
    L.w_13 = L.w_med + div_up(h->n_blk13, SHORT_BLOCKS_PER_WARP);
    L.w_22 = L.w_13 + div_up(h->n_blk22, SHORT_BLOCKS_PER_WARP);
    L.w_4 = L.w_22 + div_up(h->n_blk4, FOUR_BLOCKS_PER_WARP);
    L.w_single = L.w_4 + div_up(h->n_single, 32);
    L.w_empty = L.w_single + div_up(h->n_empty, 32);
}

/* *waves: how many times `blocks` blocks of dasp_main<F64<4>, MINB> fill
 * every SM, rounded up (0 for none). */
template <int MINB>
static spx_status waves_of(int64_t blocks, int sms, int64_t *waves)
{
    int per_sm = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, dasp_main<F64<4>, MINB>, 32 * WARPS_PER_BLOCK, 0);
    if (e != cudaSuccess) return cuda_error(e, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    *waves = per_sm > 0 ? div_up(blocks, (int64_t)per_sm * sms) : INT64_MAX;
    return SPX_OK;
}

/* Register cap of the F64 m8n8k4 main kernel (param regs, spx__dasp_host.regs:
 * 0 auto, else 54, 48 or 40). The L2-resident
 * matrices are about one wave of warps (a wave: every SM full of blocks), and
 * a second, nearly empty wave costs up to a warp's whole time; the caps' spills
 * cost every warp (measured on an H100: 48 registers 2-11% slower at the same
 * waves, 40 registers 4-28%: bench/results/gpu-dasp-regs-2026-11-22.md).
 * So auto takes 48 registers only where the uncapped kernel needs 2 waves and
 * the capped one 1 (blocks in (9, 10] x SMs on sm_90: cage11, +8%), never
 * 40 (xenon1, 1.28 waves uncapped, 0.96 at 40: 6-12% slower). The SM count and
 * the resident blocks come from the device once, here, at upload. */
static spx_status pick_regs(layout &L, spx_type t)
{
    int dev = 0, sms = 0;
    int64_t blocks = div_up(L.w_empty, WARPS_PER_BLOCK), w0 = 0, w48 = 0;
    spx_status st = SPX_OK;
    if (t != SPX_F64 || L.mma != 4) {
        L.min_blocks = 0;
        return SPX_OK;
    }
    if (L.min_blocks >= 0) return SPX_OK;
    L.min_blocks = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return cuda_error(e, "cudaDeviceGetAttribute(SM count)");
    SPX_TRY(waves_of<0>(blocks, sms, &w0));
    if (w0 != 2) return SPX_OK;
    SPX_TRY(waves_of<CAP_48>(blocks, sms, &w48));
    if (w48 == 1) L.min_blocks = CAP_48;
cleanup:
    return st;
}

extern "C" void spx__dasp_free(spx__dasp_dev *d)
{
    if (!d) return;
    cudaFree(d->val);
    cudaFree(d->col);
    cudaFree(d->rows);
    cudaFree(d->offs);
    cudaFree(d->rowptr);
    cudaFree(d->partial);
    cudaFree(d->count);
    spx__free(d);
}

extern "C" spx_status spx__dasp_upload(const spx__dasp_host *h, spx_type t, void *stream,
                                       spx__dasp_dev **out)
{
    spx__dasp_dev *d = NULL;
    spx_status st;
    *out = NULL;
    if (t != SPX_F64 && t != SPX_F16)
        return spx__error(SPX_ERR_UNSUPPORTED, "dasp: precision %d (F64 or F16 only)", (int)t);
    SPX_TRY(spx__calloc((void **)&d, 1, sizeof *d, "dasp device plan"));
    d->prec = t;
    d->stream = (cudaStream_t)stream;
    d->pdl = h->pdl;
    d->iso = h->iso;
    set_counts(d->L, h);
    SPX_TRY(pick_regs(d->L, t));
    SPX_TRY(upload_rows(d, h));
    SPX_TRY(upload_offsets(d, h));
    SPX_TRY(upload_walk(d, h));
    SPX_TRY(upload_values(d, h));
    SPX_TRY(alloc_scratch(d, h));
    *out = d;
    return SPX_OK;
cleanup:
    spx__dasp_free(d);
    return st;
}

template <class T, int MINB>
static spx_status launch(const spx__dasp_dev *d, double alpha, const void *x, double beta,
                         void *y)
{
    typedef typename T::acc_t acc_t;
    const layout &L = d->L;
    const typename T::x_t *xv = (const typename T::x_t *)x;
    typename T::vec_t *yv = (typename T::vec_t *)y;
    int64_t blocks = div_up(L.w_empty, WARPS_PER_BLOCK);
    if (blocks > INT32_MAX || L.n_long + L.n_heavy > INT32_MAX)
        return spx__error(SPX_ERR_OVERFLOW, "dasp: %lld thread blocks exceed the grid limit",
                          (long long)blocks);
    int64_t finish = L.two_pass ? div_up(L.n_long + L.n_heavy, WARPS_PER_BLOCK) : 0;
    if (blocks > 0)
        spx__launch(dasp_main<T, MINB>, (unsigned)blocks, 32 * WARPS_PER_BLOCK, d->stream, d->pdl,
                    L, (const typename T::val_t *)d->val, xv, yv, (acc_t *)d->partial,
                    (acc_t)alpha, (acc_t)beta);
    if (finish > 0)
        spx__launch(dasp_finish<T>, (unsigned)finish, 32 * WARPS_PER_BLOCK, d->stream, d->pdl, L,
                    (const acc_t *)d->partial, yv, (acc_t)alpha, (acc_t)beta);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? SPX_OK : cuda_error(e, "dasp kernel launch");
}

/* New values (dasp.h): an iso plan's value array is made first, all padding
 * (+0), and kept once the refill has written it; a refusal (a value beyond
 * half's range, found before anything is written) leaves d as it was. */
extern "C" spx_status spx__dasp_update(spx__dasp_dev *d, const void *values, int on_device)
{
    size_t bytes = (size_t)d->n_entries * (d->prec == SPX_F16 ? sizeof(__half) : sizeof(double));
    void *val = d->val;
    spx_status st = SPX_OK;
    if (!val && bytes) {
        SPX_TRY(spx__dasp_dev_alloc(&val, bytes, "dasp values"));
        cudaError_t e = cudaMemsetAsync(val, 0, bytes, d->stream);
        if (e != cudaSuccess) SPX_TRY(cuda_error(e, "cudaMemsetAsync of the dasp values"));
    }
    SPX_TRY(spx__dasp_refill(&d->walk, d->nnz, values, on_device, d->prec, d->stream, val));
    if (d->iso) {
        d->val = val;
        d->bytes += bytes;
        d->iso = 0;
    }
cleanup:
    if (st != SPX_OK && val != d->val) cudaFree(val);
    return st;
}

/* The iso kernels: the same choice among the precisions' kernels. */
static spx_status spmv_iso(const spx__dasp_dev *d, double alpha, const void *x, double beta,
                           void *y, int x_half)
{
    if (d->prec == SPX_F16 && x_half) return launch<Iso<F16H>, 0>(d, alpha, x, beta, y);
    if (d->prec == SPX_F16) return launch<Iso<F16>, 0>(d, alpha, x, beta, y);
    if (d->L.mma == 16) return launch<Iso<F64<16>>, 0>(d, alpha, x, beta, y);
    if (d->L.mma == 8) return launch<Iso<F64<8>>, 0>(d, alpha, x, beta, y);
    if (d->L.min_blocks == CAP_48) return launch<Iso<F64<4>>, CAP_48>(d, alpha, x, beta, y);
    if (d->L.min_blocks == CAP_40) return launch<Iso<F64<4>>, CAP_40>(d, alpha, x, beta, y);
    return launch<Iso<F64<4>>, 0>(d, alpha, x, beta, y);
}

extern "C" spx_status spx__dasp_spmv(const spx__dasp_dev *d, double alpha, const void *x,
                                     double beta, void *y, int x_half)
{
    if (d->iso) return spmv_iso(d, alpha, x, beta, y, x_half);
    if (d->prec == SPX_F16 && x_half) return launch<F16H, 0>(d, alpha, x, beta, y);
    if (d->prec == SPX_F16) return launch<F16, 0>(d, alpha, x, beta, y);
    if (d->L.mma == 16) return launch<F64<16>, 0>(d, alpha, x, beta, y);
    if (d->L.mma == 8) return launch<F64<8>, 0>(d, alpha, x, beta, y);
    if (d->L.min_blocks == CAP_48) return launch<F64<4>, CAP_48>(d, alpha, x, beta, y);
    if (d->L.min_blocks == CAP_40) return launch<F64<4>, CAP_40>(d, alpha, x, beta, y);
    return launch<F64<4>, 0>(d, alpha, x, beta, y);
}

extern "C" size_t spx__dasp_bytes(const spx__dasp_dev *d) { return d ? d->bytes : 0; }

extern "C" spx_status spx__dasp_download(const spx__dasp_dev *d, void *val, int32_t *col,
                                         int64_t *n)
{
    size_t vb = d->prec == SPX_F16 ? sizeof(__half) : sizeof(double);
    cudaError_t e = cudaStreamSynchronize(d->stream);
    *n = d->n_entries;
    if (e == cudaSuccess && val && d->val && d->n_entries)
        e = cudaMemcpy(val, d->val, (size_t)d->n_entries * vb, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess && col && d->n_entries)
        e = cudaMemcpy(col, d->col, (size_t)d->n_entries * sizeof(int32_t),
                       cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? SPX_OK : cuda_error(e, "dasp download");
}
