/* Hot columns in shared memory: SpMV of a power-law matrix split by columns.
 *
 *   y = alpha*(A_hot*x_hot + A_cold*x) + beta*y,   x_hot[r] = x[hot[r]]
 *
 * hot[0..K-1] are A's K columns of highest degree (ties: lower column first),
 * A_hot holds their entries with column r = the rank (16 bits: K <= 65536),
 * A_cold the rest with A's own columns. A gather of x from L2 costs a 32-byte
 * sector for 8 useful bytes; on R-MAT 20 the top 8192 columns hold 45% of the
 * nonzeros, so serving x_hot from shared memory (or from L1, being compact)
 * removes that many sectors from the L2 (bench/results/h100-2026-11-26d.md:
 * dasp runs R-MAT 20 at 94% of the L2's peak).
 *
 *   hot_split M [--k 0,1024,4096,8192,16384] [--calls 200] [--precision f64|f32]
 *               [--values stored|iso] [--group G] [--host-only]
 *
 * M: a .mtx/.mtx.gz/.spx file or gen:SPEC. One process, device-resident
 * vectors, CUDA events around every call; a variant's time is the median of
 * --calls calls (in 3 rounds that alternate the variants of a group, after
 * warm-up), alpha 1 and beta 0. Variants, in groups:
 *   K = 0 (no split): cuSPARSE CSR (cusparseSpMV, ALG_DEFAULT, its buffer and
 *     preprocessing outside the timing), SpX auto, csr, dasp;
 *   each K > 0: cuSPARSE and SpX auto again (anchors of the group), then
 *     spx-split:F   gather x_hot, SpX plan F of A_hot (beta), SpX plan F of
 *                   A_cold (beta = 1), F = auto, csr, dasp;
 *     own-smem+F    gather x_hot, the kernel below with x_hot in shared
 *                   memory (beta), SpX plan F of A_cold (beta = 1);
 *     own-l1+F      the same kernel reading x_hot from global memory (L1);
 *     part:...      one part alone (not an SpMV of A; checked against its
 *                   own reference), to see where the time goes.
 * Every variant is checked twice against a long-double reference: alpha
 * -0.75, beta 0.5 on a random y, and alpha 1, beta 0 on a y of NaN (of 0 for
 * cuSPARSE): per row |y - ref| / (sum |alpha a x| + |beta y0|), the largest
 * printed; above 1e-12 (f64) or 1e-5 (f32) the program fails (exit 1).
 * --values stored: A's values (SpX csr plans get values=stored, so that
 * every kernel reads them, as cuSPARSE does); iso: every value 1 (csr takes
 * its iso path and the own kernel reads no values). x uniform in [-1, 1).
 *
 * The own kernel (hot_kernel): a few thread blocks per multiprocessor (as
 * many as the shared memory and registers allow), each loads x_hot once into
 * shared memory and then takes work by tickets (atomic counters, reset by
 * the last block to finish), longest first:
 *   rows of more than BLOCK_ROW hot entries: a whole block each, block sum;
 *   rows of more than 8*G: a warp each (both lists sorted by length, longest
 *   first, made on the host);
 *   the other rows, in order, in chunks of rows: G lanes a row (G = the power
 *   of two at or above the mean hot row length of rows of at most 64), each
 *   group summing SHORT_ROWS rows side by side so that their loads are in
 *   flight together; every row is written, also those without hot entries
 *   (y = beta*y).
 * A_hot: uint32 row offsets, uint16 columns (ranks), values of the precision
 * (none for iso); matrix streams loaded with __ldcs (evict first).
 * The host split (a degree count, a sort of the columns by degree, and the
 * parts by counting sort) is timed and printed; on the GPU it would be a
 * degree count (an atomicAdd a nonzero), a top-K select and a stable
 * partition of each row.
 *
 * Output: per K the split (hot share, bytes of each part, split time), then
 * one table row per variant (median ms, speed-up over the group's cuSPARSE,
 * largest error) and one machine-readable "RESULT key=value ..." line each.
 * Without a usable GPU it says so and exits 2 (--host-only: only the split,
 * checked on the host). */
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "spx.h"

#define CU(call) cuda_check((call), #call, __LINE__)
#define SP(call) cusparse_check((call), #call, __LINE__)

static void cuda_check(cudaError_t e, const char *what, int line)
{
    if (e == cudaSuccess) return;
    fprintf(stderr, "hot_split:%d: %s: %s\n", line, what, cudaGetErrorString(e));
    exit(2);
}

static void cusparse_check(cusparseStatus_t s, const char *what, int line)
{
    if (s == CUSPARSE_STATUS_SUCCESS) return;
    fprintf(stderr, "hot_split:%d: %s: %s\n", line, what, cusparseGetErrorString(s));
    exit(2);
}

static void spx_check(spx_status s, const char *what)
{
    if (s == SPX_OK) return;
    fprintf(stderr, "hot_split: %s: %s: %s\n", what, spx_status_name(s), spx_last_error());
    exit(2);
}

static double now_ms()
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/* ------------------------------------------------------------ the kernel */

#define BLOCK_ROW 4096  /* rows longer than this: a thread block each */
#define GROUP_ITERS 8   /* a group of G lanes takes rows of at most 8*G entries */
#define SHORT_ROWS 4    /* short rows a group sums side by side */
#define CHUNK_STEPS 4   /* a short-row ticket: CHUNK_STEPS * SHORT_ROWS rows a group */

template <typename T> struct hot_args {
    int64_t rows;
    const uint32_t *rp;   /* rows+1 offsets */
    const uint16_t *col;  /* ranks 0..K-1 */
    const T *val;         /* NULL for iso */
    const T *xhot;        /* K entries, gathered this call */
    int K;
    const int32_t *block_rows; /* rows for a whole block, longest first */
    int n_block;
    const int32_t *warp_rows;  /* rows for a warp, longest first */
    int n_warp;
    int G;                     /* lanes a short row: 1, 2, 4, ..., 32 */
    int64_t short_max;         /* rows longer than this are in the lists */
    int64_t rows_per_ticket, n_tickets;
    unsigned *ctr;             /* tickets: block rows, warp rows, short chunks; done blocks */
    T alpha, beta;             /* alpha: times the iso value for iso */
    T *y;
};

template <typename T> __device__ __forceinline__ T finish(T s, T alpha, T beta, const T *y)
{
    return beta == T(0) ? alpha * s : alpha * s + beta * *y;
}

template <typename T> __device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* a_k * x_hot[col_k]; x_hot in shared memory (SMEM) or through L1. */
template <typename T, bool ISO, bool SMEM>
__device__ __forceinline__ T term(const hot_args<T> &a, const T *xs, uint32_t k)
{
    const unsigned c = __ldcs(a.col + k);
    const T xv = SMEM ? xs[c] : __ldg(xs + c);
    if (ISO) return xv;
    return __ldcs(a.val + k) * xv;
}

/* One ticket for the warp (lane 0 takes it). */
__device__ __forceinline__ unsigned warp_ticket(unsigned *ctr)
{
    unsigned t = 0;
    if ((threadIdx.x & 31) == 0) t = atomicAdd(ctr, 1u);
    return __shfl_sync(0xffffffffu, t, 0);
}

/* Rows of block_rows: all BLOCK threads stride through the row. */
template <typename T, bool ISO, bool SMEM, int BLOCK>
__device__ __forceinline__ void block_phase(const hot_args<T> &a, const T *xs)
{
    __shared__ T part[BLOCK / 32];
    __shared__ unsigned ticket;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (;;) {
        if (threadIdx.x == 0) ticket = atomicAdd(a.ctr + 0, 1u);
        __syncthreads();
        const unsigned t = ticket;
        if (t >= (unsigned)a.n_block) break; /* the same for the whole block */
        const int64_t row = a.block_rows[t];
        const uint32_t beg = __ldg(a.rp + row), end = __ldg(a.rp + row + 1);
        T s = T(0);
#pragma unroll 4
        for (uint32_t k = beg + threadIdx.x; k < end; k += BLOCK)
            s += term<T, ISO, SMEM>(a, xs, k);
        s = warp_sum(s);
        if (lane == 0) part[warp] = s;
        __syncthreads();
        if (warp == 0) {
            s = lane < BLOCK / 32 ? part[lane] : T(0);
            s = warp_sum(s);
            if (lane == 0) a.y[row] = finish(s, a.alpha, a.beta, a.y + row);
        }
        __syncthreads(); /* part and ticket are reused */
    }
}

/* Rows of warp_rows: a warp each. Lane 0 asks for the next ticket before the
 * row is summed, so the atomic's round trip overlaps the row's loads. */
template <typename T, bool ISO, bool SMEM>
__device__ __forceinline__ void warp_phase(const hot_args<T> &a, const T *xs)
{
    const int lane = threadIdx.x & 31;
    unsigned t = warp_ticket(a.ctr + 1);
    while (t < (unsigned)a.n_warp) {
        const unsigned next = lane == 0 ? atomicAdd(a.ctr + 1, 1u) : 0u;
        const int64_t row = a.warp_rows[t];
        const uint32_t beg = __ldg(a.rp + row), end = __ldg(a.rp + row + 1);
        T s = T(0);
#pragma unroll 4
        for (uint32_t k = beg + lane; k < end; k += 32)
            s += term<T, ISO, SMEM>(a, xs, k);
        s = warp_sum(s);
        if (lane == 0) a.y[row] = finish(s, a.alpha, a.beta, a.y + row);
        t = __shfl_sync(0xffffffffu, next, 0);
    }
}

/* Every row of at most short_max entries (the longer ones are the lists'),
 * by chunks of consecutive rows. A step of a chunk is SHORT_ROWS rows per
 * group: group g of the warp takes rows base + j*groups + g, j < SHORT_ROWS,
 * and sums them side by side (one accumulator each), so the loads of
 * SHORT_ROWS rows are in flight at once and, for each j, the warp's groups
 * read neighbouring rows. Rows without hot entries are written too. */
template <typename T, bool ISO, bool SMEM>
__device__ __forceinline__ void short_phase(const hot_args<T> &a, const T *xs)
{
    const int lane = threadIdx.x & 31, G = a.G, groups = 32 / G;
    const int g = lane / G, gl = lane & (G - 1);
    const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (g * G);
    for (;;) {
        const unsigned t = warp_ticket(a.ctr + 2);
        if ((int64_t)t >= a.n_tickets) break;
        const int64_t r0 = (int64_t)t * a.rows_per_ticket;
        const int64_t r1 = r0 + a.rows_per_ticket < a.rows ? r0 + a.rows_per_ticket : a.rows;
        for (int64_t base = r0; base < r1; base += (int64_t)groups * SHORT_ROWS) {
            uint32_t beg[SHORT_ROWS], end[SHORT_ROWS], most = 0;
            bool mine[SHORT_ROWS];
#pragma unroll
            for (int j = 0; j < SHORT_ROWS; j++) {
                const int64_t row = base + j * groups + g;
                beg[j] = end[j] = 0;
                mine[j] = row < r1;
                if (mine[j]) {
                    beg[j] = __ldg(a.rp + row);
                    end[j] = __ldg(a.rp + row + 1);
                }
                if (end[j] - beg[j] > a.short_max) mine[j] = false, end[j] = beg[j];
                most = max(most, end[j] - beg[j]);
            }
            T s[SHORT_ROWS];
#pragma unroll
            for (int j = 0; j < SHORT_ROWS; j++)
                s[j] = T(0);
            for (uint32_t it = gl; it < most; it += G) /* most: the same for the group */
#pragma unroll
                for (int j = 0; j < SHORT_ROWS; j++)
                    if (beg[j] + it < end[j]) s[j] += term<T, ISO, SMEM>(a, xs, beg[j] + it);
#pragma unroll
            for (int j = 0; j < SHORT_ROWS; j++) {
                for (int off = G / 2; off > 0; off >>= 1)
                    s[j] += __shfl_down_sync(mask, s[j], off, G);
                const int64_t row = base + j * groups + g;
                if (gl == 0 && mine[j]) a.y[row] = finish(s[j], a.alpha, a.beta, a.y + row);
            }
        }
    }
}

/* y = alpha*A_hot*x_hot + beta*y over every row (see the file's comment). */
template <typename T, bool ISO, bool SMEM, int BLOCK>
__global__ void __launch_bounds__(BLOCK, 2048 / BLOCK / 2) hot_kernel(const hot_args<T> a)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const T *xs = a.xhot;
    if (SMEM) {
        T *sx = reinterpret_cast<T *>(smem_raw);
        for (int i = threadIdx.x; i < a.K; i += BLOCK)
            sx[i] = __ldg(a.xhot + i);
        __syncthreads();
        xs = sx;
    }
    block_phase<T, ISO, SMEM, BLOCK>(a, xs);
    warp_phase<T, ISO, SMEM>(a, xs);
    short_phase<T, ISO, SMEM>(a, xs);
    /* The last block to finish resets the tickets for the next launch: every
     * block took its last tickets before it counted itself done. */
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(a.ctr + 3, 1u) == gridDim.x - 1) {
            for (int i = 0; i < 4; i++)
                atomicExch(a.ctr + i, 0u);
            __threadfence();
        }
    }
}

/* x_hot[r] = x[hot[r]]. */
template <typename T>
__global__ void gather_hot(int K, const int32_t *__restrict__ hot, const T *__restrict__ x,
                           T *__restrict__ xhot)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < K) xhot[r] = x[hot[r]];
}

/* ------------------------------------------------------------ host split */

struct host_csr { /* A's arrays, as SpX holds them */
    int64_t m, n, nnz;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
};

/* Columns by degree, highest first (ties: lower column first); *nonempty:
 * columns of degree > 0. */
static std::vector<int32_t> columns_by_degree(const host_csr &A, int64_t *nonempty)
{
    std::vector<int64_t> deg(A.n, 0);
    for (int64_t k = 0; k < A.nnz; k++)
        deg[A.ci[k]]++;
    std::vector<int32_t> order(A.n);
    for (int64_t c = 0; c < A.n; c++)
        order[c] = (int32_t)c;
    std::sort(order.begin(), order.end(), [&](int32_t p, int32_t q) {
        return deg[p] != deg[q] ? deg[p] > deg[q] : p < q;
    });
    *nonempty = 0;
    for (int64_t c = 0; c < A.n; c++)
        *nonempty += deg[c] > 0;
    return order;
}

struct split_parts {
    int K = 0;
    std::vector<int32_t> hot;     /* K original columns by rank */
    std::vector<int64_t> hrp;     /* A_hot: columns are ranks, sorted in each row */
    std::vector<int32_t> hcol;
    std::vector<double> hval;
    std::vector<int64_t> crp;     /* A_cold: A's columns */
    std::vector<int32_t> ccol;
    std::vector<double> cval;
    double ms = 0;                /* building the parts (the ranking not included) */
};

/* The parts for the first K columns of order: A_cold row by row, A_hot by a
 * counting sort of its entries by rank (so its rows come out sorted). */
static void split_build(const host_csr &A, const std::vector<int32_t> &order, int K,
                        split_parts *s)
{
    const double t0 = now_ms();
    s->K = K;
    s->hot.assign(order.begin(), order.begin() + K);
    std::vector<int32_t> rank(A.n, -1);
    for (int r = 0; r < K; r++)
        rank[order[r]] = r;
    std::vector<int64_t> bucket(K + 1, 0); /* entries of each rank, then offsets */
    s->hrp.assign(A.m + 1, 0);
    s->crp.assign(A.m + 1, 0);
    for (int64_t i = 0; i < A.m; i++) {
        int64_t hot = 0;
        for (int64_t k = A.rp[i]; k < A.rp[i + 1]; k++)
            if (rank[A.ci[k]] >= 0) hot++, bucket[rank[A.ci[k]] + 1]++;
        s->hrp[i + 1] = s->hrp[i] + hot;
        s->crp[i + 1] = s->crp[i] + (A.rp[i + 1] - A.rp[i] - hot);
    }
    for (int r = 0; r < K; r++)
        bucket[r + 1] += bucket[r];
    const int64_t nh = s->hrp[A.m];
    std::vector<int32_t> brow(nh);
    std::vector<double> bval(nh);
    s->ccol.resize(A.nnz - nh);
    s->cval.resize(A.nnz - nh);
    for (int64_t i = 0, c = 0; i < A.m; i++)
        for (int64_t k = A.rp[i]; k < A.rp[i + 1]; k++) {
            const int32_t r = rank[A.ci[k]];
            if (r >= 0) {
                brow[bucket[r]] = (int32_t)i;
                bval[bucket[r]++] = A.v[k];
            } else {
                s->ccol[c] = A.ci[k];
                s->cval[c++] = A.v[k];
            }
        }
    s->hcol.resize(nh);
    s->hval.resize(nh);
    std::vector<int64_t> pos(s->hrp.begin(), s->hrp.end() - 1);
    for (int r = 0, k = 0; r < K; r++) /* bucket[r] is now the end of rank r */
        for (; k < bucket[r]; k++) {
            const int64_t p = pos[brow[k]]++;
            s->hcol[p] = r;
            s->hval[p] = bval[k];
        }
    s->ms = now_ms() - t0;
}

/* ------------------------------------------------------------ reference */

/* Per row, in long double: the sum of a*x and of |a*x| (values and x as the
 * device holds them, of type T). */
template <typename T> struct ref_sums {
    std::vector<long double> s, abs;
};

template <typename T>
static ref_sums<T> reference(int64_t m, const int64_t *rp, const int32_t *ci, const double *v,
                             const std::vector<T> &x)
{
    ref_sums<T> r;
    r.s.assign(m, 0.0L);
    r.abs.assign(m, 0.0L);
    for (int64_t i = 0; i < m; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            const long double p = (long double)(T)v[k] * (long double)x[ci[k]];
            r.s[i] += p;
            r.abs[i] += fabsl(p);
        }
    return r;
}

/* max over rows of |y - (alpha s + beta y0)| / (|alpha| |s| + |beta y0|). */
template <typename T>
static double rel_err(const ref_sums<T> &r, double alpha, double beta, const std::vector<T> &y0,
                      const std::vector<T> &y)
{
    double worst = 0;
    for (size_t i = 0; i < y.size(); i++) {
        const long double b = beta == 0 ? 0.0L : (long double)beta * y0[i];
        const long double want = (long double)alpha * r.s[i] + b;
        const long double scale = fabsl((long double)alpha) * r.abs[i] + fabsl(b);
        const long double d = fabsl((long double)y[i] - want);
        const double e = (double)(scale > 0 ? d / scale : d);
        if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;
    }
    return worst;
}

/* ------------------------------------------------------------ variants */

struct options {
    const char *matrix = nullptr;
    std::vector<int> ks{0, 1024, 4096, 8192, 16384};
    int calls = 200;
    spx_type prec = SPX_F64;
    bool iso = false, host_only = false;
    int group = 0; /* 0: from the mean row length */
};

template <typename T> struct variant {
    std::string name;
    std::function<void(double alpha, double beta, T *y)> run;
    const ref_sums<T> *ref; /* what it computes */
    bool nan_ok;            /* beta = 0 must not read y: checked with a y of NaN */
    double err = 0;
    std::vector<float> ms;
};

/* One group of variants: checked, then timed in rounds that alternate them. */
template <typename T>
static void check_and_time(std::vector<variant<T>> &vs, int calls, cudaStream_t s, T *dy,
                           const std::vector<T> &y0, double tol, bool *failed)
{
    const int64_t m = (int64_t)y0.size();
    std::vector<T> y(m), nan(m, (T)NAN), zero(m, (T)0);
    for (auto &v : vs) {
        CU(cudaMemcpy(dy, y0.data(), m * sizeof(T), cudaMemcpyHostToDevice));
        v.run(-0.75, 0.5, dy);
        CU(cudaStreamSynchronize(s));
        CU(cudaMemcpy(y.data(), dy, m * sizeof(T), cudaMemcpyDeviceToHost));
        const double e1 = rel_err(*v.ref, -0.75, 0.5, y0, y);
        CU(cudaMemcpy(dy, (v.nan_ok ? nan : zero).data(), m * sizeof(T), cudaMemcpyHostToDevice));
        v.run(1.0, 0.0, dy);
        CU(cudaStreamSynchronize(s));
        CU(cudaMemcpy(y.data(), dy, m * sizeof(T), cudaMemcpyDeviceToHost));
        v.err = std::max(e1, rel_err(*v.ref, 1.0, 0.0, y0, y));
        if (!(v.err <= tol)) {
            fprintf(stderr, "hot_split: FAILED: %s: error %.3g above %.0e\n", v.name.c_str(),
                    v.err, tol);
            *failed = true;
        }
    }
    const int rounds = 3, per = std::max(1, (calls + rounds - 1) / rounds);
    std::vector<cudaEvent_t> ev(per + 1);
    for (auto &e : ev)
        CU(cudaEventCreate(&e));
    for (int round = 0; round < rounds; round++)
        for (auto &v : vs) {
            for (int w = 0; w < (round == 0 ? 10 : 3); w++)
                v.run(1.0, 0.0, dy);
            for (int c = 0; c < per; c++) {
                CU(cudaEventRecord(ev[c], s));
                v.run(1.0, 0.0, dy);
            }
            CU(cudaEventRecord(ev[per], s));
            CU(cudaEventSynchronize(ev[per]));
            for (int c = 0; c < per; c++) {
                float t;
                CU(cudaEventElapsedTime(&t, ev[c], ev[c + 1]));
                v.ms.push_back(t);
            }
        }
    for (auto &e : ev)
        cudaEventDestroy(e);
    CU(cudaGetLastError());
}

static double median(std::vector<float> v)
{
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/* ------------------------------------------------------------ device parts */

template <typename T> static T *upload(const T *h, size_t n)
{
    T *d = nullptr;
    CU(cudaMalloc(&d, n * sizeof(T) + 16));
    if (n) CU(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static std::vector<T> converted(const double *v, int64_t n)
{
    std::vector<T> out(n);
    for (int64_t k = 0; k < n; k++)
        out[k] = (T)v[k];
    return out;
}

template <typename T> struct cusparse_csr {
    cusparseHandle_t h = nullptr;
    cusparseSpMatDescr_t A = nullptr;
    cusparseDnVecDescr_t x = nullptr, y = nullptr;
    void *rp = nullptr, *ci = nullptr, *val = nullptr, *buf = nullptr;
    T *dy = nullptr;

    void create(const host_csr &M, const T *dx, T *y_dev, cudaStream_t s)
    {
        std::vector<int32_t> r32(M.m + 1);
        for (int64_t i = 0; i <= M.m; i++)
            r32[i] = (int32_t)M.rp[i];
        std::vector<T> v = converted<T>(M.v, M.nnz);
        rp = upload(r32.data(), r32.size());
        ci = upload(M.ci, M.nnz);
        val = upload(v.data(), v.size());
        dy = y_dev;
        const cudaDataType t = sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
        SP(cusparseCreate(&h));
        SP(cusparseSetStream(h, s));
        SP(cusparseCreateCsr(&A, M.m, M.n, M.nnz, rp, ci, val, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, t));
        SP(cusparseCreateDnVec(&x, M.n, (void *)dx, t));
        SP(cusparseCreateDnVec(&y, M.m, y_dev, t));
        T one = 1, zero = 0;
        size_t bytes = 0;
        SP(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, x, &zero, y, t,
                                   CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
        CU(cudaMalloc(&buf, bytes + 16));
        SP(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, x, &zero, y, t,
                                   CUSPARSE_SPMV_ALG_DEFAULT, buf));
    }
    void run(double alpha, double beta, T *y_dev)
    {
        if (y_dev != dy) {
            fprintf(stderr, "hot_split: cuSPARSE's y is fixed at creation\n");
            exit(2);
        }
        T a = (T)alpha, b = (T)beta;
        SP(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &a, A, x, &b, y,
                        sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
    }
    void destroy()
    {
        cusparseDestroySpMat(A);
        cusparseDestroyDnVec(x);
        cusparseDestroyDnVec(y);
        cusparseDestroy(h);
        cudaFree(rp), cudaFree(ci), cudaFree(val), cudaFree(buf);
    }
};

/* An SpX CUDA plan of M, or NULL with the reason printed. */
static spx_plan *spx_plan_of(const spx_matrix *M, const char *format, spx_type prec, bool iso,
                             cudaStream_t s, const char *what)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.format = format;
    o.precision = prec;
    o.expected_calls = 1000;
    o.stream = s;
    o.params = !iso && strcmp(format, "csr") == 0 ? "values=stored" : nullptr;
    spx_plan *P = nullptr;
    const spx_status st = spx_plan_create(M, SPX_OP_SPMV, &o, &P);
    if (st != SPX_OK) {
        printf("  note: %s %s: %s (%s): variants using it are left out\n", what, format,
               spx_status_name(st), spx_last_error());
        return nullptr;
    }
    printf("  plan %-5s %-5s -> %-5s prep %8.1f ms  %8.1f MB  %s\n", what, format,
           spx_plan_format(P), spx_plan_prep_ms(P), spx_plan_bytes(P) / 1e6,
           spx_plan_describe(P));
    return P;
}

static void spmv_or_die(const spx_plan *P, double alpha, const void *x, double beta, void *y)
{
    spx_check(spx_spmv(P, alpha, x, beta, y), "spx_spmv");
}

/* How the own kernel shares A_hot's rows out: G lanes a short row (the power
 * of two at or above the mean length of rows of at most 64 entries, or
 * --group), rows longer than 8*G for a warp, longer than BLOCK_ROW for a
 * block; both lists longest first. */
struct hot_layout {
    int G;
    int64_t short_max;
    std::vector<int32_t> block_rows, warp_rows;
};

static hot_layout layout_of(const split_parts &p, int64_t m, int group)
{
    hot_layout L;
    int64_t cnt = 0, sum = 0;
    for (int64_t i = 0; i < m; i++) {
        const int64_t len = p.hrp[i + 1] - p.hrp[i];
        if (len <= 64) cnt++, sum += len;
    }
    const double mean = cnt ? (double)sum / cnt : 1.0;
    L.G = 1;
    while (L.G < 32 && L.G < mean) L.G *= 2;
    if (group) L.G = group;
    L.short_max = (int64_t)GROUP_ITERS * L.G;
    for (int64_t i = 0; i < m; i++) {
        const int64_t len = p.hrp[i + 1] - p.hrp[i];
        if (len > BLOCK_ROW) L.block_rows.push_back((int32_t)i);
        else if (len > L.short_max) L.warp_rows.push_back((int32_t)i);
    }
    auto longest_first = [&](int32_t a, int32_t b) {
        const int64_t la = p.hrp[a + 1] - p.hrp[a], lb = p.hrp[b + 1] - p.hrp[b];
        return la != lb ? la > lb : a < b;
    };
    std::sort(L.block_rows.begin(), L.block_rows.end(), longest_first);
    std::sort(L.warp_rows.begin(), L.warp_rows.end(), longest_first);
    return L;
}

/* The own kernel's arrays for one split. */
template <typename T> struct hot_dev {
    hot_args<T> a{};
    int32_t *hot = nullptr;
    T *xhot = nullptr;
    int block = 0, grid_smem = 0, grid_l1 = 0;
    void (*k_smem)(hot_args<T>) = nullptr;
    void (*k_l1)(hot_args<T>) = nullptr;
    size_t smem = 0;
    void *owned[6] = {};
};

template <typename T, bool ISO>
static void pick_kernels(hot_dev<T> &h, int sms, size_t smem_max)
{
    /* The block size giving the more resident warps with x_hot in shared memory. */
    void (*cand[2])(hot_args<T>) = {hot_kernel<T, ISO, true, 512>, hot_kernel<T, ISO, true, 1024>};
    const int sizes[2] = {512, 1024};
    int best = -1, best_warps = 0, best_blocks = 0;
    for (int c = 0; c < 2 && h.smem <= smem_max; c++) {
        CU(cudaFuncSetAttribute(cand[c], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)h.smem));
        int nb = 0;
        CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, cand[c], sizes[c], h.smem));
        if (nb * sizes[c] / 32 > best_warps) best = c, best_warps = nb * sizes[c] / 32, best_blocks = nb;
    }
    h.block = best < 0 ? 512 : sizes[best];
    if (best >= 0) {
        h.k_smem = cand[best];
        h.grid_smem = best_blocks * sms;
    }
    h.k_l1 = h.block == 512 ? hot_kernel<T, ISO, false, 512> : hot_kernel<T, ISO, false, 1024>;
    CU(cudaFuncSetAttribute(h.k_l1, cudaFuncAttributePreferredSharedMemoryCarveout, 4));
    int nb = 0;
    CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, h.k_l1, h.block, 0));
    h.grid_l1 = std::max(1, nb) * sms;
}

template <typename T>
static void hot_create(hot_dev<T> &h, const split_parts &p, int64_t m, bool iso, double iso_value,
                       int group, int sms, size_t smem_max, std::string *desc)
{
    const int64_t nh = p.hrp[m];
    std::vector<uint32_t> rp(m + 1);
    std::vector<uint16_t> col(nh);
    for (int64_t i = 0; i <= m; i++)
        rp[i] = (uint32_t)p.hrp[i];
    for (int64_t k = 0; k < nh; k++)
        col[k] = (uint16_t)p.hcol[k];
    const hot_layout L = layout_of(p, m, group);
    const int G = L.G;
    const int64_t short_max = L.short_max;
    const std::vector<int32_t> &block_rows = L.block_rows, &warp_rows = L.warp_rows;

    hot_args<T> &a = h.a;
    a.rows = m;
    a.rp = upload(rp.data(), rp.size());
    a.col = upload(col.data(), col.size());
    if (!iso) {
        std::vector<T> v = converted<T>(p.hval.data(), nh);
        a.val = upload(v.data(), v.size());
    }
    h.hot = upload(p.hot.data(), p.hot.size());
    CU(cudaMalloc(&h.xhot, p.K * sizeof(T) + 16));
    a.xhot = h.xhot;
    a.K = p.K;
    a.block_rows = upload(block_rows.data(), block_rows.size());
    a.n_block = (int)block_rows.size();
    a.warp_rows = upload(warp_rows.data(), warp_rows.size());
    a.n_warp = (int)warp_rows.size();
    a.G = G;
    a.short_max = short_max;
    a.rows_per_ticket = (int64_t)(32 / G) * SHORT_ROWS * CHUNK_STEPS;
    a.n_tickets = (m + a.rows_per_ticket - 1) / a.rows_per_ticket;
    CU(cudaMalloc(&a.ctr, 4 * sizeof(unsigned)));
    CU(cudaMemset(a.ctr, 0, 4 * sizeof(unsigned)));
    a.alpha = (T)(iso ? iso_value : 1.0);
    void *owned[6] = {(void *)a.rp, (void *)a.col, (void *)a.val, (void *)a.block_rows,
                      (void *)a.warp_rows, (void *)a.ctr};
    std::copy(owned, owned + 6, h.owned);
    h.smem = (size_t)p.K * sizeof(T);
    if (iso)
        pick_kernels<T, true>(h, sms, smem_max);
    else
        pick_kernels<T, false>(h, sms, smem_max);
    char buf[256];
    snprintf(buf, sizeof buf,
             "G=%d short<=%lld warp_rows=%d block_rows=%d rows/ticket=%lld block=%d "
             "grid smem=%d l1=%d smem=%zu B",
             G, (long long)short_max, a.n_warp, a.n_block, (long long)a.rows_per_ticket,
             h.block, h.grid_smem, h.grid_l1, h.smem);
    *desc = buf;
}

template <typename T> static void hot_gather(hot_dev<T> &h, const T *dx, cudaStream_t s)
{
    gather_hot<T><<<(h.a.K + 255) / 256, 256, 0, s>>>(h.a.K, h.hot, dx, h.xhot);
}

/* gather x_hot, then y = alpha*A_hot*x_hot + beta*y by the own kernel. */
template <typename T>
static void hot_run(hot_dev<T> &h, bool smem, double alpha, double beta, const T *dx, T *y,
                    cudaStream_t s)
{
    hot_gather(h, dx, s);
    hot_args<T> a = h.a;
    a.alpha = (T)(alpha * (double)h.a.alpha);
    a.beta = (T)beta;
    a.y = y;
    if (smem)
        h.k_smem<<<h.grid_smem, h.block, h.smem, s>>>(a);
    else
        h.k_l1<<<h.grid_l1, h.block, 0, s>>>(a);
    CU(cudaGetLastError());
}

template <typename T> static void hot_destroy(hot_dev<T> &h)
{
    for (void *p : h.owned)
        cudaFree(p);
    cudaFree(h.hot);
    cudaFree(h.xhot);
}

/* ------------------------------------------------------------ output */

/* The group's table rows and RESULT lines; the first variant is cuSPARSE. */
template <typename T>
static void print_group(const char *matrix, const char *values, int K, double hot_frac,
                        double hot_mb, double cold_mb, double split_ms,
                        const std::vector<variant<T>> &vs)
{
    const double cusp = median(vs[0].ms);
    printf("  %-6s %-26s %10s %9s %10s\n", "K", "variant", "median_ms", "x_cusp", "max_err");
    for (const auto &v : vs)
        printf("  %-6d %-26s %10.4f %9.3f %10.2e\n", K, v.name.c_str(), median(v.ms),
               cusp / median(v.ms), v.err);
    for (const auto &v : vs)
        printf("RESULT matrix=%s precision=%s values=%s K=%d hot_frac=%.4f variant=%s "
               "ms=%.5f x_cusparse=%.4f max_err=%.3e hot_mb=%.2f cold_mb=%.2f split_ms=%.1f\n",
               matrix, sizeof(T) == 8 ? "f64" : "f32", values, K, hot_frac, v.name.c_str(),
               median(v.ms), cusp / median(v.ms), v.err, hot_mb, cold_mb, split_ms);
    fflush(stdout);
}

/* ------------------------------------------------------------ driver */

static const char *const FORMATS[3] = {"auto", "csr", "dasp"};

template <typename T> static int run(const options &o, spx_matrix *A, const host_csr &H)
{
    const double tol = sizeof(T) == 8 ? 1e-12 : 1e-5;
    bool failed = false;
    int sms = 0, smem_optin = 0;
    CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CU(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    const size_t smem_max = (size_t)smem_optin - 1024; /* the block phase's own */
    cudaStream_t s;
    CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    /* x uniform in [-1, 1) and a random y0, fixed seeds, of type T. */
    std::vector<T> x(H.n), y0(H.m);
    uint64_t st = 0x9e3779b97f4a7c15ull;
    auto uniform = [&]() {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        return (double)(st >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    };
    for (auto &v : x) v = (T)uniform();
    for (auto &v : y0) v = (T)uniform();
    T *dx = upload(x.data(), x.size()), *dy = nullptr;
    CU(cudaMalloc(&dy, H.m * sizeof(T) + 16));
    const ref_sums<T> ref = reference<T>(H.m, H.rp, H.ci, H.v, x);
    double iso_value = 0;
    const bool matrix_iso = spx_matrix_iso(A, &iso_value);
    printf("matrix %s: %lld x %lld, %lld nonzeros, %s, values %s (A %s)\n", o.matrix,
           (long long)H.m, (long long)H.n, (long long)H.nnz, sizeof(T) == 8 ? "f64" : "f32",
           o.iso ? "iso" : "stored", matrix_iso ? "is iso" : "is not iso");
    printf("alpha 1, beta 0 timed; %d calls a variant (3 rounds), CUDA events a call, median\n",
           o.calls);
    const char *values = o.iso ? "iso" : "stored";

    cusparse_csr<T> cs;
    cs.create(H, dx, dy, s);
    spx_plan *whole[3] = {};
    for (int f = 0; f < 3; f++)
        whole[f] = spx_plan_of(A, FORMATS[f], o.prec, o.iso, s, "A");
    auto cusparse_variant = [&]() {
        return variant<T>{"cusparse-csr", [&](double al, double be, T *y) { cs.run(al, be, y); },
                          &ref, false};
    };
    auto whole_variant = [&](int f) {
        spx_plan *P = whole[f];
        return variant<T>{std::string("spx:") + FORMATS[f],
                          [=](double al, double be, T *y) { spmv_or_die(P, al, dx, be, y); },
                          &ref, true};
    };

    int64_t nonempty = 0;
    const double t_rank0 = now_ms();
    const std::vector<int32_t> order = columns_by_degree(H, &nonempty);
    const double rank_ms = now_ms() - t_rank0;
    printf("host: degree count and sort of the %lld columns by degree: %.1f ms (%lld columns "
           "hold entries); on the GPU this would be an atomicAdd a nonzero and a top-K select\n",
           (long long)H.n, rank_ms, (long long)nonempty);

    bool whole_done = false;
    for (int K_asked : o.ks) {
        if (K_asked == 0 || nonempty == 0) {
            if (whole_done) continue;
            whole_done = true;
            std::vector<variant<T>> vs{cusparse_variant()};
            for (int f = 0; f < 3; f++)
                if (whole[f]) vs.push_back(whole_variant(f));
            check_and_time(vs, o.calls, s, dy, y0, tol, &failed);
            printf("\nK = 0 (no split)\n");
            print_group(o.matrix, values, 0, 0.0, 0.0, 0.0, 0.0, vs);
            continue;
        }
        const int K = (int)std::min<int64_t>(K_asked, nonempty);
        split_parts p;
        split_build(H, order, K, &p);
        const int64_t nh = p.hrp[H.m], nc = H.nnz - nh;
        const double hot_frac = (double)nh / H.nnz;
        const double hot_mb = ((H.m + 1) * 4.0 + nh * (2.0 + (o.iso ? 0 : sizeof(T))) +
                               K * (4.0 + sizeof(T))) / 1e6;
        const double cold_mb = ((H.m + 1) * 8.0 + nc * (4.0 + sizeof(T))) / 1e6;
        const double split_ms = rank_ms + p.ms;
        printf("\nK = %d (asked %d): hot %lld nonzeros (%.1f%%), cold %lld; own hot part %.1f MB, "
               "cold CSR %.1f MB; L2 sectors of x saved %.1f MB a call; host split %.1f ms "
               "(ranking %.1f + parts %.1f)\n",
               K, K_asked, (long long)nh, 100 * hot_frac, (long long)nc, hot_mb, cold_mb,
               nh * 32.0 / 1e6, split_ms, rank_ms, p.ms);

        spx_matrix *Ah = nullptr, *Ac = nullptr;
        spx_check(spx_matrix_create_csr(H.m, K, p.hrp.data(), p.hcol.data(), p.hval.data(), &Ah),
                  "A_hot");
        spx_check(spx_matrix_create_csr(H.m, H.n, p.crp.data(), p.ccol.data(), p.cval.data(), &Ac),
                  "A_cold");
        spx_plan *hp[3] = {}, *cp[3] = {};
        for (int f = 0; f < 3; f++) {
            hp[f] = spx_plan_of(Ah, FORMATS[f], o.prec, o.iso, s, "A_hot");
            cp[f] = nc ? spx_plan_of(Ac, FORMATS[f], o.prec, o.iso, s, "A_cold") : nullptr;
        }
        hot_dev<T> h;
        std::string desc;
        hot_create(h, p, H.m, o.iso, o.iso ? 1.0 : 0.0, o.group, sms, smem_max, &desc);
        printf("  own kernel: %s%s\n", desc.c_str(),
               h.k_smem ? "" : " (x_hot does not fit shared memory: own-smem left out)");

        std::vector<T> xh(K);
        for (int r = 0; r < K; r++)
            xh[r] = x[p.hot[r]];
        const ref_sums<T> ref_hot = reference<T>(H.m, p.hrp.data(), p.hcol.data(), p.hval.data(), xh);
        const ref_sums<T> ref_cold = reference<T>(H.m, p.crp.data(), p.ccol.data(), p.cval.data(), x);

        auto cold = [=](int f, double al, T *y) {
            if (nc) spmv_or_die(cp[f], al, dx, 1.0, y);
        };
        std::vector<variant<T>> vs{cusparse_variant()};
        if (whole[0]) vs.push_back(whole_variant(0));
        for (int f = 0; f < 3; f++)
            if (hp[f] && (cp[f] || !nc))
                vs.push_back({std::string("spx-split:") + FORMATS[f],
                              [&, f](double al, double be, T *y) {
                                  hot_gather(h, dx, s);
                                  spmv_or_die(hp[f], al, h.xhot, be, y);
                                  cold(f, al, y);
                              },
                              &ref, true});
        for (int on_smem = 1; on_smem >= 0; on_smem--) {
            if (on_smem && !h.k_smem) continue;
            const std::string own = on_smem ? "own-smem" : "own-l1";
            for (int f = 0; f < 3; f++)
                if (cp[f] || !nc)
                    vs.push_back({own + "+" + FORMATS[f],
                                  [&, f, on_smem](double al, double be, T *y) {
                                      hot_run(h, on_smem, al, be, dx, y, s);
                                      cold(f, al, y);
                                  },
                                  &ref, true});
            vs.push_back({"part:hot-" + own,
                          [&, on_smem](double al, double be, T *y) {
                              hot_run(h, on_smem, al, be, dx, y, s);
                          },
                          &ref_hot, true});
        }
        if (hp[0])
            vs.push_back({"part:hot-spx-auto",
                          [&](double al, double be, T *y) {
                              hot_gather(h, dx, s);
                              spmv_or_die(hp[0], al, h.xhot, be, y);
                          },
                          &ref_hot, true});
        for (int f = 0; f < 3; f++)
            if (cp[f])
                vs.push_back({std::string("part:cold-") + FORMATS[f],
                              [=](double al, double be, T *y) { spmv_or_die(cp[f], al, dx, be, y); },
                              &ref_cold, true});
        check_and_time(vs, o.calls, s, dy, y0, tol, &failed);
        print_group(o.matrix, values, K, hot_frac, hot_mb, cold_mb, split_ms, vs);

        hot_destroy(h);
        for (int f = 0; f < 3; f++)
            spx_plan_destroy(hp[f]), spx_plan_destroy(cp[f]);
        spx_matrix_destroy(Ah);
        spx_matrix_destroy(Ac);
    }
    for (int f = 0; f < 3; f++)
        spx_plan_destroy(whole[f]);
    cs.destroy();
    cudaFree(dx);
    cudaFree(dy);
    cudaStreamDestroy(s);
    if (failed) {
        printf("hot_split: FAILED: a variant's error was above %.0e (see stderr)\n", tol);
        return 1;
    }
    return 0;
}

/* --host-only: the split and its check on the host (no GPU needed). */
static int host_only(const options &o, const host_csr &H)
{
    int64_t nonempty = 0;
    double t0 = now_ms();
    const std::vector<int32_t> order = columns_by_degree(H, &nonempty);
    const double rank_ms = now_ms() - t0;
    std::vector<double> x(H.n);
    for (int64_t c = 0; c < H.n; c++)
        x[c] = std::sin(0.7 * (double)c + 0.3);
    const ref_sums<double> ref = reference<double>(H.m, H.rp, H.ci, H.v, x);
    printf("matrix %s: %lld x %lld, %lld nonzeros; ranking %.1f ms, %lld columns hold entries\n",
           o.matrix, (long long)H.m, (long long)H.n, (long long)H.nnz, rank_ms,
           (long long)nonempty);
    int bad = 0;
    for (int K_asked : o.ks) {
        const int K = (int)std::min<int64_t>(K_asked, nonempty);
        if (K == 0) continue;
        split_parts p;
        split_build(H, order, K, &p);
        std::vector<double> xh(K);
        for (int r = 0; r < K; r++)
            xh[r] = x[p.hot[r]];
        const ref_sums<double> rh = reference<double>(H.m, p.hrp.data(), p.hcol.data(),
                                                      p.hval.data(), xh);
        const ref_sums<double> rc = reference<double>(H.m, p.crp.data(), p.ccol.data(),
                                                      p.cval.data(), x);
        std::vector<double> y(H.m), y0(H.m, 0.0);
        int64_t unsorted = 0, maxlen = 0;
        for (int64_t i = 0; i < H.m; i++) {
            y[i] = (double)(rh.s[i] + rc.s[i]);
            maxlen = std::max(maxlen, p.hrp[i + 1] - p.hrp[i]);
            for (int64_t k = p.hrp[i] + 1; k < p.hrp[i + 1]; k++)
                unsorted += p.hcol[k] <= p.hcol[k - 1];
        }
        const double err = rel_err(ref, 1.0, 0.0, y0, y);
        const int64_t nh = p.hrp[H.m];
        const hot_layout L = layout_of(p, H.m, o.group);
        int64_t in_block = 0, in_warp = 0;
        for (int32_t r : L.block_rows) in_block += p.hrp[r + 1] - p.hrp[r];
        for (int32_t r : L.warp_rows) in_warp += p.hrp[r + 1] - p.hrp[r];
        printf("K %6d (asked %6d): hot %.1f%% of nonzeros, longest hot row %lld, parts %.1f ms, "
               "hot rows unsorted %lld, split product error %.2e\n"
               "  own kernel: G=%d; %zu rows a block (%.1f%% of hot nonzeros), %zu rows a warp "
               "(%.1f%%), the rest by groups\n",
               K, K_asked, 100.0 * nh / std::max<int64_t>(1, H.nnz), (long long)maxlen, p.ms,
               (long long)unsorted, err, L.G, L.block_rows.size(),
               100.0 * in_block / std::max<int64_t>(1, nh), L.warp_rows.size(),
               100.0 * in_warp / std::max<int64_t>(1, nh));
        bad |= unsorted != 0 || !(err <= 1e-14);
    }
    return bad;
}

static std::vector<int> parse_ks(const char *s)
{
    std::vector<int> ks;
    for (const char *p = s; *p;) {
        char *end;
        const long k = strtol(p, &end, 10);
        if (end == p || k < 0 || k > 65536) {
            fprintf(stderr, "hot_split: --k takes 0..65536 (16-bit hot columns): '%s'\n", s);
            exit(2);
        }
        ks.push_back((int)k);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            fprintf(stderr, "hot_split: bad --k list '%s'\n", s);
            exit(2);
        }
    }
    return ks;
}

static void usage()
{
    fprintf(stderr,
            "usage: hot_split M [--k 0,1024,4096,8192,16384] [--calls 200] [--precision f64|f32]\n"
            "                   [--values stored|iso] [--group G] [--host-only]\n"
            "M: .mtx, .mtx.gz, .spx or gen:SPEC\n");
    exit(2);
}

static options parse(int argc, char **argv)
{
    options o;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool more = i + 1 < argc;
        if (!strcmp(a, "--k") && more) o.ks = parse_ks(argv[++i]);
        else if (!strcmp(a, "--calls") && more) o.calls = std::max(1, atoi(argv[++i]));
        else if (!strcmp(a, "--precision") && more) {
            const char *p = argv[++i];
            if (strcmp(p, "f64") && strcmp(p, "f32")) usage();
            o.prec = strcmp(p, "f64") ? SPX_F32 : SPX_F64;
        } else if (!strcmp(a, "--values") && more) {
            const char *v = argv[++i];
            if (strcmp(v, "stored") && strcmp(v, "iso")) usage();
            o.iso = !strcmp(v, "iso");
        } else if (!strcmp(a, "--group") && more) {
            o.group = atoi(argv[++i]);
            if (o.group < 1 || o.group > 32 || (o.group & (o.group - 1))) usage();
        } else if (!strcmp(a, "--host-only")) o.host_only = true;
        else if (a[0] != '-' && !o.matrix) o.matrix = a;
        else usage();
    }
    if (!o.matrix) usage();
    return o;
}

int main(int argc, char **argv)
{
    const options o = parse(argc, argv);
    if (!o.host_only) {
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e != cudaSuccess || count == 0 || !spx_device_available(SPX_DEV_CUDA)) {
            fprintf(stderr, "hot_split: no usable CUDA GPU (%s): this experiment needs one "
                            "(--host-only checks the split alone)\n",
                    e != cudaSuccess ? cudaGetErrorString(e) : "none seen");
            return 2;
        }
    }
    spx_matrix *A = nullptr;
    const double t0 = now_ms();
    spx_check(strncmp(o.matrix, "gen:", 4) == 0 ? spx_generate(o.matrix + 4, &A)
                                                : spx_matrix_read(o.matrix, &A),
              o.matrix);
    const double load_ms = now_ms() - t0;
    host_csr H{};
    const void *ci = nullptr, *v = nullptr;
    int bits = 0;
    spx_type vt;
    spx_check(spx_matrix_dims(A, &H.m, &H.n, &H.nnz), "dims");
    spx_check(spx_matrix_csr(A, &H.rp, &ci, &bits, &v, &vt), "csr");
    if (bits != 32 || vt != SPX_F64 || H.nnz >= (int64_t)1 << 31) {
        fprintf(stderr, "hot_split: needs 32-bit columns, fp64 values, < 2^31 nonzeros\n");
        return 2;
    }
    H.ci = (const int32_t *)ci;
    H.v = (const double *)v;
    std::vector<double> ones;
    if (o.iso) { /* every value 1: a new matrix SpX sees as iso */
        ones.assign(H.nnz, 1.0);
        spx_matrix *B = nullptr;
        spx_check(spx_matrix_create_csr(H.m, H.n, H.rp, H.ci, nullptr, &B), "iso copy");
        spx_matrix_destroy(A);
        A = B;
        spx_check(spx_matrix_csr(A, &H.rp, &ci, &bits, &v, &vt), "csr");
        H.ci = (const int32_t *)ci;
        H.v = ones.data();
    }
    printf("loaded %s in %.0f ms\n", o.matrix, load_ms);
    int rc;
    if (o.host_only) rc = host_only(o, H);
    else {
        cudaDeviceProp prop;
        CU(cudaGetDeviceProperties(&prop, 0));
        printf("device: %s, %d SMs, L2 %.0f MB, shared memory a block up to %zu KB\n", prop.name,
               prop.multiProcessorCount, prop.l2CacheSize / 1e6, prop.sharedMemPerBlockOptin / 1024);
        rc = o.prec == SPX_F64 ? run<double>(o, A, H) : run<float>(o, A, H);
    }
    spx_matrix_destroy(A);
    return rc;
}
