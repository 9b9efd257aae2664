/* hbp SpMV, y = alpha*A*x + beta*y (layout: hbp_kernels.h).
 *
 * The tile kernel: every warp of a persistent grid runs its fixed share of
 * tiles, then draws tiles from the ticket. A lane tile gives lane l its row:
 * at step k the lanes with entries are 0..alive(k)-1 (rows by decreasing
 * length), alive(k) is a ballot of len > k, and lane l's entry sits at base(k)
 * + l, so the warp computes STEPS steps' addresses at once and has all their
 * loads in flight before it gathers x (no chain of dependent loads, unlike
 * following add_sign). A coop tile (a constant a <= 16 rows with entries)
 * gives each row g threads, thread j of a row taking steps j, j + g, ...;
 * shuffles add the g sums. Then the tile writes y (DIRECT), its row's dense
 * partial (PAPER) or its lanes' partials, and the combine kernels add the
 * partials in a fixed order (finish: a warp per multi-tile group; owner: a
 * thread block per row block, its blocks in column order into shared memory;
 * paper: a thread per row). Stamped out for the value type V, the sum and y
 * type T, the x type X (as csr_spmv.cu), the column type (uint16_t offsets
 * from the block's first column, or int32_t columns) and staging; an iso
 * plan's V is iso_one (no values read, each 1). Matrix
 * arrays are loaded with the streaming hint, x through L1 (spx__ld_fresh);
 * x, y, the partials and the ticket are touched after spx__pdl_after. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/gateway.h"
#include "cuda/hbp/hbp_kernels.h"
#include "cuda/hbp/hbp_rules.h"
#include "cuda/pdl.cuh"

#define BLOCK 256       /* threads of a thread block (tiles without staging, combines) */
#define STAGE_BLOCK 128 /* tiles with per-warp x segments */
#define STEPS 8         /* steps whose loads a lane issues before gathering */
/* Thread blocks of 256 per multiprocessor the tile kernel is built for: 24
 * warps, at most 85 registers (fp64 took 96 unbounded, 2 blocks). */
#define TILE_MIN_BLOCKS 3
#define FULL 0xffffffffu

/* The value type of an iso plan: no value array; every entry reads as 1
 * (the plan folds the matrix's one value into alpha). */
struct iso_one {
    template <typename T> __device__ __forceinline__ explicit operator T() const { return T(1); }
};

/* Entry i of the values (none read for an iso plan). */
template <typename V> __device__ __forceinline__ V value_at(const V *val, int64_t i)
{
    return __ldcs(val + i);
}
__device__ __forceinline__ iso_one value_at(const iso_one *, int64_t) { return iso_one{}; }

template <typename T> __device__ __forceinline__ T finish(T sum, T alpha, T beta, const T *y)
{
    return beta == T(0) ? alpha * sum : alpha * sum + beta * *y;
}

/* What the tile kernel reads and writes, device pointers. */
template <typename V, typename T, typename X, typename COL> struct tile_in {
    const spx__hbp_tile *tiles;
    const uint16_t *lane_row;
    const uint32_t *lane_len;
    const COL *col;
    const V *val;
    const X *x;
    T *y, *partial;
    unsigned *ticket;
    int64_t n_tiles, fixed, cols;
    int32_t seg; /* columns of a staged x segment */
    T alpha, beta;
};

__device__ __forceinline__ spx__hbp_tile load_tile(const spx__hbp_tile *p)
{
    union {
        long long w[5];
        spx__hbp_tile t;
    } u;
#pragma unroll
    for (int i = 0; i < 5; i++)
        u.w[i] = __ldg(reinterpret_cast<const long long *>(p) + i);
    return u.t;
}

/* Where a tile gathers x: the warp's staged segment, or x (from the
 * block's first column for 16-bit columns). */
template <typename X, typename COL> struct x_view {
    const X *x;
    const X *seg;
    __device__ __forceinline__ X operator()(COL c) const
    {
        return seg ? seg[c] : spx__ld_fresh(x + c);
    }
};

/* Lane tile: this lane's sum over steps [s0, s1) of its row (length len).
 * Offsets from the tile's first entry fit 32 bits (at most 32 T entries). */
template <typename V, typename T, typename X, typename COL>
__device__ __forceinline__ T lane_sum(const tile_in<V, T, X, COL> &a, const spx__hbp_tile &t,
                                      uint32_t len, const x_view<X, COL> &xv)
{
    const int lane = threadIdx.x & 31;
    const COL *col = a.col + t.entry;
    int base = 0;
    T sum = T(0);
    for (uint32_t k = t.s0; k < t.s1; k += STEPS) { /* the same k for the whole warp */
        int pos[STEPS];
        bool in[STEPS];
#pragma unroll
        for (int u = 0; u < STEPS; u++) {
            in[u] = k + u < t.s1 && len > k + u;
            pos[u] = base + lane;
            base += __popc(__ballot_sync(FULL, in[u]));
        }
        COL c[STEPS];
        V v[STEPS];
#pragma unroll
        for (int u = 0; u < STEPS; u++)
            if (in[u]) {
                c[u] = __ldcs(col + pos[u]);
                v[u] = value_at(a.val, t.entry + pos[u]);
            }
        T g[STEPS];
#pragma unroll
        for (int u = 0; u < STEPS; u++)
            g[u] = in[u] ? T(xv(c[u])) : T(0);
#pragma unroll
        for (int u = 0; u < STEPS; u++)
            if (in[u]) sum += T(v[u]) * g[u];
    }
    return sum;
}

/* Coop tile: rows 0..alive-1, g threads each; lane l < alive gets row l's sum. */
template <typename V, typename T, typename X, typename COL>
__device__ __forceinline__ T coop_sum(const tile_in<V, T, X, COL> &a, const spx__hbp_tile &t,
                                      const x_view<X, COL> &xv)
{
    const int lane = threadIdx.x & 31, rows = t.alive;
    const int g = spx__hbp_coop_threads((uint32_t)rows), row = lane / g;
    const uint32_t steps = t.s1 - t.s0;
    const COL *col = a.col + t.entry + row;
    T sum = T(0);
    if (lane < rows * g)
        for (uint32_t j = (uint32_t)(lane & (g - 1)); j < steps; j += (uint32_t)g * STEPS) {
            bool in[STEPS];
            COL c[STEPS];
            V v[STEPS];
#pragma unroll
            for (int u = 0; u < STEPS; u++) {
                const uint32_t jj = j + (uint32_t)(u * g);
                in[u] = jj < steps;
                if (in[u]) {
                    c[u] = __ldcs(col + (int)jj * rows);
                    v[u] = value_at(a.val, t.entry + row + (int64_t)jj * rows);
                }
            }
            T x[STEPS];
#pragma unroll
            for (int u = 0; u < STEPS; u++)
                x[u] = in[u] ? T(xv(c[u])) : T(0);
#pragma unroll
            for (int u = 0; u < STEPS; u++)
                if (in[u]) sum += T(v[u]) * x[u];
        }
    for (int off = g / 2; off > 0; off >>= 1) /* each row's g threads, aligned */
        sum += __shfl_down_sync(FULL, sum, off, g);
    const T total = __shfl_sync(FULL, sum, lane < rows ? lane * g : 0);
    return lane < rows ? total : T(0);
}

/* Stage x[col0, col0 + seg) in the warp's segment unless it holds it already. */
template <typename V, typename T, typename X, typename COL>
__device__ __forceinline__ void stage(const tile_in<V, T, X, COL> &a, int32_t col0, X *seg,
                                      int32_t &staged)
{
    if (staged == col0) return;
    const int64_t n = a.cols - col0 < a.seg ? a.cols - col0 : a.seg;
    __syncwarp(); /* the warp's last tile is done reading the old segment */
    for (int64_t j = threadIdx.x & 31; j < n; j += 32)
        seg[j] = spx__ld_fresh(a.x + col0 + j);
    __syncwarp();
    staged = col0;
}

template <typename V, typename T, typename X, typename COL, bool STAGE>
__device__ __forceinline__ void run_tile(const tile_in<V, T, X, COL> &a, int64_t ti, X *seg,
                                         int32_t &staged)
{
    const int lane = threadIdx.x & 31;
    const spx__hbp_tile t = load_tile(a.tiles + ti);
    const int64_t li = (int64_t)t.group * SPX__HBP_W + lane;
    const uint32_t len = __ldg(a.lane_len + li);
    const unsigned row = __ldg(a.lane_row + li);
    x_view<X, COL> xv = {sizeof(COL) == 2 ? a.x + t.col0 : a.x, nullptr};
    if constexpr (STAGE)
        if (t.flags & SPX__HBP_TILE_STAGE) {
            stage(a, t.col0, seg, staged);
            xv.seg = seg;
        }
    const T sum = t.alive ? coop_sum(a, t, xv) : lane_sum(a, t, len, xv);
    if (t.flags & SPX__HBP_TILE_DIRECT) {
        if (row != SPX__HBP_ROW_PAD) {
            T *yi = a.y + t.row0 + row;
            *yi = finish(sum, a.alpha, a.beta, yi);
        }
    } else if (t.flags & SPX__HBP_TILE_PAPER) {
        if (row != SPX__HBP_ROW_PAD) a.partial[t.pbase + row] = sum;
    } else if (len > t.s0) {
        a.partial[t.pbase + lane] = sum;
    }
}

/* The persistent tile kernel: the fixed share, then the ticket. */
template <typename V, typename T, typename X, typename COL, bool STAGE>
__global__ void __launch_bounds__(STAGE ? STAGE_BLOCK : BLOCK, STAGE ? 1 : TILE_MIN_BLOCKS)
    hbp_tile_kernel(tile_in<V, T, X, COL> a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warps = blockDim.x / 32;
    X *seg = STAGE ? reinterpret_cast<X *>(smem) + (size_t)(threadIdx.x / 32) * a.seg : nullptr;
    int32_t staged = -1;
    spx__pdl_let_next_start();
    a.x = spx__pdl_after(a.x);
    a.y = spx__pdl_after(a.y);
    a.partial = spx__pdl_after(a.partial);
    a.ticket = spx__pdl_after(a.ticket);
    const int64_t nw = (int64_t)gridDim.x * warps,
                  w = (int64_t)blockIdx.x * warps + threadIdx.x / 32;
    for (int64_t t = w * a.fixed; t < (w + 1) * a.fixed; t++)
        run_tile<V, T, X, COL, STAGE>(a, t, seg, staged);
    const int64_t first = nw * a.fixed; /* the competitive tiles: the same for every warp */
    if (first < a.n_tiles) {
        unsigned tk = lane == 0 ? atomicAdd(a.ticket, 1u) : 0u;
        tk = __shfl_sync(FULL, tk, 0);
        while (first + tk < a.n_tiles) {
            const unsigned next = lane == 0 ? atomicAdd(a.ticket, 1u) : 0u; /* drawn ahead */
            run_tile<V, T, X, COL, STAGE>(a, first + tk, seg, staged);
            tk = __shfl_sync(FULL, next, 0);
        }
        if (lane == 0) { /* the last warp out resets the ticket for the next call */
            __threadfence();
            if (atomicAdd(a.ticket + 1, 1u) == (unsigned)(nw - 1)) {
                atomicExch(a.ticket, 0u);
                atomicExch(a.ticket + 1, 0u);
            }
        }
    }
    spx__pdl_wait();
}

/* What the combine kernels read, device pointers. */
template <typename T> struct combine_in {
    const spx__hbp_tile *tiles;
    const int64_t *group_tile, *blk_group, *rb_ptr;
    const int32_t *rb_list, *multi;
    const uint16_t *lane_row;
    const uint32_t *lane_len;
    const T *partial;
    T *y;
    int64_t rows, N, R, n_multi;
    T alpha, beta;
};

/* Lane l of group g: its partials over the group's tiles, in step order. */
template <typename T>
__device__ __forceinline__ T lane_partials(const combine_in<T> &a, int64_t g, int lane,
                                           uint32_t len)
{
    T s = T(0);
    for (int64_t t = __ldg(a.group_tile + g); t < __ldg(a.group_tile + g + 1); t++)
        if (len > __ldg(&a.tiles[t].s0)) s += a.partial[__ldg(&a.tiles[t].pbase) + lane];
    return s;
}

/* Direct: a warp per group of several tiles writes its rows. */
template <typename T> __global__ void __launch_bounds__(BLOCK) hbp_finish_kernel(combine_in<T> a)
{
    const int lane = threadIdx.x & 31;
    spx__pdl_let_next_start();
    a.partial = spx__pdl_after(a.partial);
    a.y = spx__pdl_after(a.y);
    const int64_t step = (int64_t)gridDim.x * (BLOCK / 32);
    for (int64_t m = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; m < a.n_multi; m += step) {
        const int64_t g = __ldg(a.multi + m), li = g * SPX__HBP_W + lane;
        const unsigned row = __ldg(a.lane_row + li);
        const T s = lane_partials(a, g, lane, __ldg(a.lane_len + li));
        if (row != SPX__HBP_ROW_PAD) {
            T *yi = a.y + __ldg(&a.tiles[__ldg(a.group_tile + g)].row0) + row;
            *yi = finish(s, a.alpha, a.beta, yi);
        }
    }
}

/* Owner: a thread block per row block adds its blocks' rows in column order
 * in shared memory (a row once per block), then writes every row. */
template <typename T> __global__ void __launch_bounds__(BLOCK) hbp_owner_kernel(combine_in<T> a)
{
    __shared__ T acc[SPX__HBP_MAX_ROWS];
    spx__pdl_let_next_start();
    a.partial = spx__pdl_after(a.partial);
    a.y = spx__pdl_after(a.y);
    for (int64_t r = blockIdx.x; r < a.R; r += gridDim.x) {
        const int64_t row0 = r * a.N, n = a.rows - row0 < a.N ? a.rows - row0 : a.N;
        for (int64_t i = threadIdx.x; i < n; i += BLOCK)
            acc[i] = T(0);
        __syncthreads();
        for (int64_t q = __ldg(a.rb_ptr + r); q < __ldg(a.rb_ptr + r + 1); q++) {
            const int64_t b = __ldg(a.rb_list + q), g0 = __ldg(a.blk_group + b);
            const int64_t lanes = (__ldg(a.blk_group + b + 1) - g0) * SPX__HBP_W;
            for (int64_t j = threadIdx.x; j < lanes; j += BLOCK) {
                const int64_t li = g0 * SPX__HBP_W + j;
                const unsigned row = __ldg(a.lane_row + li);
                if (row != SPX__HBP_ROW_PAD)
                    acc[row] += lane_partials(a, g0 + j / SPX__HBP_W, (int)(j & 31),
                                              __ldg(a.lane_len + li));
            }
            __syncthreads(); /* the next block may hold the same rows */
        }
        for (int64_t i = threadIdx.x; i < n; i += BLOCK)
            a.y[row0 + i] = finish(acc[i], a.alpha, a.beta, a.y + row0 + i);
        __syncthreads();
    }
    spx__pdl_wait();
}

/* Paper: a thread per row adds its row block's dense segments in column order. */
template <typename T> __global__ void __launch_bounds__(BLOCK) hbp_paper_kernel(combine_in<T> a)
{
    spx__pdl_let_next_start();
    a.partial = spx__pdl_after(a.partial);
    a.y = spx__pdl_after(a.y);
    const int64_t step = (int64_t)gridDim.x * BLOCK;
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < a.rows; i += step) {
        const int64_t r = i / a.N;
        T s = T(0);
        for (int64_t q = __ldg(a.rb_ptr + r); q < __ldg(a.rb_ptr + r + 1); q++)
            s += a.partial[(int64_t)__ldg(a.rb_list + q) * a.N + i - r * a.N];
        a.y[i] = finish(s, a.alpha, a.beta, a.y + i);
    }
}

/* spx__launch (pdl.cuh) with dynamic shared memory. */
template <typename... Params, typename... Args>
static void launch_smem(void (*kernel)(Params...), unsigned grid, unsigned block, size_t smem,
                        cudaStream_t stream, int pdl, Args... args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    cudaLaunchKernelEx(&cfg, kernel, (Params)args...);
}

static unsigned grid_for(int64_t n, int64_t per_block)
{
    const int64_t b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > (1 << 30) ? (1 << 30) : b);
}

template <typename X> static size_t stage_bytes(const spx__cuda_hbp_plan *p)
{
    return p->stage ? (size_t)(STAGE_BLOCK / 32) * (size_t)p->H.M * sizeof(X) : 0;
}

template <typename V, typename T, typename X, typename COL>
static void launch_tiles(const spx__cuda_hbp_plan *p, const X *x, T *y, T alpha, T beta)
{
    const spx__hbp *H = &p->H;
    const tile_in<V, T, X, COL> a = {H->tiles,
                                     H->lane_row,
                                     H->lane_len,
                                     (const COL *)H->col,
                                     (const V *)H->values,
                                     x,
                                     y,
                                     (T *)p->partial,
                                     p->ticket,
                                     H->n_tiles,
                                     p->fixed,
                                     H->cols,
                                     (int32_t)H->M,
                                     alpha,
                                     beta};
    cudaStream_t s = (cudaStream_t)p->stream;
    if (p->stage)
        launch_smem(hbp_tile_kernel<V, T, X, COL, true>, (unsigned)p->grid, STAGE_BLOCK,
                    stage_bytes<X>(p), s, p->pdl, a);
    else
        launch_smem(hbp_tile_kernel<V, T, X, COL, false>, (unsigned)p->grid, BLOCK, 0, s, p->pdl,
                    a);
}

template <typename V, typename T, typename X>
static void launch_all(const spx__cuda_hbp_plan *p, double alpha_d, const void *xv, double beta_d,
                       void *yv)
{
    const spx__hbp *H = &p->H;
    const X *x = (const X *)xv;
    T *y = (T *)yv;
    const T alpha = (T)alpha_d, beta = (T)beta_d;
    cudaStream_t s = (cudaStream_t)p->stream;
    if (H->n_tiles > 0) {
        if (H->col16)
            launch_tiles<V, T, X, uint16_t>(p, x, y, alpha, beta);
        else
            launch_tiles<V, T, X, int32_t>(p, x, y, alpha, beta);
    }
    const combine_in<T> c = {H->tiles,    H->group_tile, H->blk_group,
                             H->rb_ptr,   H->rb_list,    H->multi,
                             H->lane_row, H->lane_len,   (const T *)p->partial,
                             y,           H->rows,       H->N,
                             H->R,        H->n_multi,    alpha,
                             beta};
    if (H->combine == SPX__HBP_DIRECT && H->n_multi > 0)
        spx__launch(hbp_finish_kernel<T>, grid_for(H->n_multi, BLOCK / 32), BLOCK, s, p->pdl, c);
    else if (H->combine == SPX__HBP_OWNER)
        spx__launch(hbp_owner_kernel<T>, (unsigned)p->combine_grid, BLOCK, s, p->pdl, c);
    else if (H->combine == SPX__HBP_PAPER)
        spx__launch(hbp_paper_kernel<T>, grid_for(H->rows, BLOCK), BLOCK, s, p->pdl, c);
}

/* Thread blocks of the tile kernel p launches that fit one multiprocessor. */
template <typename V, typename T, typename X, typename COL>
static cudaError_t tile_blocks(const spx__cuda_hbp_plan *p, int *n)
{
    if (!p->stage)
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            n, hbp_tile_kernel<V, T, X, COL, false>, BLOCK, 0);
    const size_t smem = stage_bytes<X>(p);
    cudaError_t e = cudaFuncSetAttribute(hbp_tile_kernel<V, T, X, COL, true>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, hbp_tile_kernel<V, T, X, COL, true>,
                                                         STAGE_BLOCK, smem);
}

template <typename V, typename T, typename X>
static cudaError_t tile_blocks(const spx__cuda_hbp_plan *p, int *n)
{
    return p->H.col16 ? tile_blocks<V, T, X, uint16_t>(p, n) : tile_blocks<V, T, X, int32_t>(p, n);
}

/* The launcher and the occupancy of p's types: V, T, X by precision and xtype. */
typedef void (*launcher)(const spx__cuda_hbp_plan *, double, const void *, double, void *);
typedef cudaError_t (*occupancy)(const spx__cuda_hbp_plan *, int *);
struct typed {
    launcher launch;
    occupancy blocks;
};

static typed typed_for(const spx__cuda_hbp_plan *p)
{
    if (p->iso && p->precision == SPX_F64)
        return {launch_all<iso_one, double, double>, tile_blocks<iso_one, double, double>};
    if (p->iso && p->precision == SPX_F32)
        return {launch_all<iso_one, float, float>, tile_blocks<iso_one, float, float>};
    if (p->iso && p->x_half)
        return {launch_all<iso_one, float, __half>, tile_blocks<iso_one, float, __half>};
    if (p->iso) return {launch_all<iso_one, float, float>, tile_blocks<iso_one, float, float>};
    if (p->precision == SPX_F64)
        return {launch_all<double, double, double>, tile_blocks<double, double, double>};
    if (p->precision == SPX_F32)
        return {launch_all<float, float, float>, tile_blocks<float, float, float>};
    if (p->x_half) return {launch_all<__half, float, __half>, tile_blocks<__half, float, __half>};
    return {launch_all<__half, float, float>, tile_blocks<__half, float, float>};
}

extern "C" spx_status spx__cuda_hbp_grid(spx__cuda_hbp_plan *p)
{
    int dev = 0, sms = 0, per_sm = 0, owner = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = typed_for(p).blocks(p, &per_sm);
    if (e == cudaSuccess)
        e = p->precision == SPX_F64
                ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&owner, hbp_owner_kernel<double>,
                                                                BLOCK, 0)
                : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&owner, hbp_owner_kernel<float>,
                                                                BLOCK, 0);
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda hbp occupancy: %s", cudaGetErrorString(e));
    if (per_sm < 1)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "hbp (cuda): the tile kernel with %lld-column x segments does not fit a "
                          "multiprocessor; take smaller cols= or xseg=off",
                          (long long)p->H.M);
    p->grid = (int64_t)per_sm * (sms > 0 ? sms : 1);
    p->warps = p->grid * ((p->stage ? STAGE_BLOCK : BLOCK) / 32);
    const int64_t fit = (int64_t)(owner > 0 ? owner : 1) * (sms > 0 ? sms : 1);
    p->combine_grid = p->H.R < fit ? (p->H.R > 0 ? p->H.R : 1) : fit;
    return SPX_OK;
}

extern "C" spx_status spx__cuda_hbp_spmv(const spx__cuda_hbp_plan *p, double alpha, const void *x,
                                         double beta, void *y)
{
    if (!p || (p->H.rows > 0 && !y) || (p->H.cols > 0 && !x))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda hbp spmv: NULL plan or vector");
    if (p->H.rows == 0) return SPX_OK;
    typed_for(p).launch(p, alpha, x, beta, y);
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? SPX_OK
                            : spx__error(SPX_ERR_DEVICE, "cuda hbp spmv launch failed: %s",
                                         cudaGetErrorString(e));
}
