/* The hbp layout built on the GPU from the device CSR (layout:
 * hbp_kernels.h): the same arrays as the host build (hbp_build.c), bit for
 * bit, in three timed phases.
 *
 * Partition: a thread per row walks its sorted columns in runs of one column
 * block (count_kernel: rows with entries per block, and the lengths'
 * histogram, integer atomics); exclusive scans over the dense C x R counts
 * place the stored blocks, their slots and groups in column-major order.
 * Slots in row order: with every row a slot (direct, paper) each row writes
 * its piece at its row's slot; with only pieces (owner) the pieces, written
 * in row order, are sorted by block with a stable radix sort, which keeps
 * the row order inside a block.
 * Order: hash (hash_kernel, a thread block per block): a histogram of the
 * keys in shared memory, its exclusive scan, then each slot's place is its
 * key's next free one, taken in row order (warps in turn, lanes of a key
 * ranked by __match_any_sync): the paper's hash table, its collisions
 * resolved in row order so that the layout is the same on every build.
 * sort (prep=sort): CUB's stable segmented sort by decreasing length.
 * Layout: a warp per group ranks its lanes by decreasing length, counts
 * entries and tiles; scans give each group's first entry and tile; a thread
 * per group writes its tiles; a warp per tile scatters its entries. The
 * lanes' first entries stay with the layout (lane_first, 32-bit), and new
 * values (spx__cuda_hbp_values) take the scatter's walk again. */
#include <cub/cub.cuh>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/gateway.h"
#include "cuda/hbp/hbp_kernels.h"
#include "cuda/hbp/hbp_rules.h"

#define PB 256 /* threads of a thread block */
#define W SPX__HBP_W
#define FULL 0xffffffffu
#define KMAX (SPX__HBP_CLASSES * SPX__HBP_MAX_ROWS / 16) /* most hash keys of a block */
#define KITEMS (KMAX / PB)                               /* keys a thread scans */

static_assert(KMAX % PB == 0, "hash keys split evenly over a thread block");

/* The shape every kernel needs. */
struct shape {
    int64_t rows, N, M, R, C;
    int direct, full;
};

__device__ __forceinline__ int64_t rows_in(const shape &s, int64_t r)
{
    return s.rows - r * s.N < s.N ? s.rows - r * s.N : s.N;
}

__device__ __forceinline__ int64_t gid()
{
    return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t gstride()
{
    return (int64_t)gridDim.x * blockDim.x;
}

/* The end of the run of row entries from k in column block ci[k] / M. */
__device__ __forceinline__ int64_t run_end(const int32_t *ci, int64_t k, int64_t end, int64_t M)
{
    const int64_t c = ci[k] / M;
    while (k < end && ci[k] / M == c)
        k++;
    return k;
}

/* ---- partition */

__global__ void __launch_bounds__(PB) count_kernel(shape s, const int64_t *rp, const int32_t *ci,
                                                   int32_t *cnt, unsigned long long *hist)
{
    __shared__ unsigned long long h[SPX__HBP_BINS];
    for (int i = threadIdx.x; i < SPX__HBP_BINS; i += PB)
        h[i] = 0;
    __syncthreads();
    for (int64_t i = gid(); i < s.rows; i += gstride()) {
        const int64_t r = i / s.N, end = rp[i + 1];
        for (int64_t k = rp[i]; k < end;) {
            const int64_t e = s.C == 1 ? end : run_end(ci, k, end, s.M);
            atomicAdd(&cnt[(s.C == 1 ? 0 : ci[k] / s.M) * s.R + r], 1);
            atomicAdd(&h[spx__hbp_bin((uint32_t)(e - k))], 1ull);
            k = e;
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < SPX__HBP_BINS; i += PB)
        if (h[i]) atomicAdd(&hist[i], h[i]);
}

/* Per dense block k = c R + r (and a 0 at k = C R): stored, its slots, groups. */
__global__ void __launch_bounds__(PB)
    dense_kernel(shape s, const int32_t *cnt, int64_t *stored, int64_t *slots, int64_t *groups)
{
    const int64_t n = s.C * s.R;
    for (int64_t k = gid(); k <= n; k += gstride()) {
        const int st = k < n && (s.C == 1 || cnt[k] > 0);
        const int64_t sl = !st ? 0 : s.full ? rows_in(s, k % s.R) : cnt[k];
        stored[k] = st;
        slots[k] = sl;
        groups[k] = (sl + W - 1) / W;
    }
}

/* Stored blocks' rows, columns, first group and slot (and the totals at n_blocks). */
__global__ void __launch_bounds__(PB)
    blocks_kernel(shape s, const int32_t *cnt, const int64_t *bidx, const int64_t *goff,
                  const int64_t *soff, int32_t *blk_r, int32_t *blk_c, int64_t *blk_group,
                  int64_t *slot0)
{
    const int64_t n = s.C * s.R;
    for (int64_t k = gid(); k <= n; k += gstride()) {
        if (k == n) {
            blk_group[bidx[n]] = goff[n];
            slot0[bidx[n]] = soff[n];
        } else if (s.C == 1 || cnt[k] > 0) {
            const int64_t b = bidx[k];
            blk_r[b] = (int32_t)(k % s.R);
            blk_c[b] = (int32_t)(k / s.R);
            blk_group[b] = goff[k];
            slot0[b] = soff[k];
        }
    }
}

__global__ void __launch_bounds__(PB)
    group_block_kernel(int64_t n_blocks, const int64_t *blk_group, int32_t *group_block)
{
    for (int64_t b = gid(); b < n_blocks; b += gstride())
        for (int64_t g = blk_group[b]; g < blk_group[b + 1]; g++)
            group_block[g] = (int32_t)b;
}

/* Full blocks: every row of the row block a slot, empty (direct: its row). */
__global__ void __launch_bounds__(PB)
    full_slots_kernel(shape s, int64_t n_blocks, const int32_t *blk_r, const int64_t *slot0,
                      const int64_t *rp, uint16_t *s_row, uint32_t *s_len, int64_t *s_first)
{
    for (int64_t b = blockIdx.x; b < n_blocks; b += gridDim.x)
        for (int64_t j = threadIdx.x; j < slot0[b + 1] - slot0[b]; j += PB) {
            const int64_t i = (int64_t)blk_r[b] * s.N + j, q = slot0[b] + j;
            s_row[q] = (uint16_t)j;
            s_len[q] = s.direct ? (uint32_t)(rp[i + 1] - rp[i]) : 0u;
            s_first[q] = rp[i];
        }
}

/* Paper: each row's pieces into its row's slot of their blocks. */
__global__ void __launch_bounds__(PB)
    paper_pieces_kernel(shape s, const int64_t *rp, const int32_t *ci, const int64_t *bidx,
                        const int64_t *slot0, uint32_t *s_len, int64_t *s_first)
{
    for (int64_t i = gid(); i < s.rows; i += gstride()) {
        const int64_t r = i / s.N, end = rp[i + 1];
        for (int64_t k = rp[i]; k < end;) {
            const int64_t e = run_end(ci, k, end, s.M);
            const int64_t q = slot0[bidx[(ci[k] / s.M) * s.R + r]] + i - r * s.N;
            s_len[q] = (uint32_t)(e - k);
            s_first[q] = k;
            k = e;
        }
    }
}

/* Owner: each row's pieces (count: into npc; write: at poff in row order). */
__global__ void __launch_bounds__(PB)
    pieces_kernel(shape s, const int64_t *rp, const int32_t *ci, int64_t *npc, const int64_t *poff,
                  uint32_t *pkey, int32_t *pidx, uint16_t *p_row, uint32_t *p_len, int64_t *p_first)
{
    for (int64_t i = gid(); i <= s.rows; i += gstride()) {
        int64_t n = 0, p = poff ? poff[i] : 0;
        const int64_t r = i / s.N, end = i < s.rows ? rp[i + 1] : 0;
        for (int64_t k = i < s.rows ? rp[i] : 0; k < end; n++) {
            const int64_t e = run_end(ci, k, end, s.M);
            if (poff) {
                pkey[p] = (uint32_t)((ci[k] / s.M) * s.R + r);
                pidx[p] = (int32_t)p;
                p_row[p] = (uint16_t)(i - r * s.N);
                p_len[p] = (uint32_t)(e - k);
                p_first[p] = k;
                p++;
            }
            k = e;
        }
        if (!poff) npc[i] = n; /* npc[rows] = 0 for the scan's total */
    }
}

__global__ void __launch_bounds__(PB)
    gather_slots_kernel(int64_t n, const int32_t *perm, const uint16_t *p_row,
                        const uint32_t *p_len, const int64_t *p_first, uint16_t *s_row,
                        uint32_t *s_len, int64_t *s_first)
{
    for (int64_t q = gid(); q < n; q += gstride()) {
        const int32_t p = perm[q];
        s_row[q] = p_row[p];
        s_len[q] = p_len[p];
        s_first[q] = p_first[p];
    }
}

/* ---- order */

/* A thread block per block: its slots by (key, row order) into order. */
__global__ void __launch_bounds__(PB)
    hash_kernel(int64_t n_blocks, const int64_t *slot0, const uint32_t *s_len, spx__hbp_hash h,
                int32_t *order)
{
    typedef cub::BlockScan<int, PB> scan_t;
    __shared__ int cnt[KMAX];
    __shared__ typename scan_t::TempStorage tmp;
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32, K = SPX__HBP_CLASSES * h.b;
    for (int64_t b = blockIdx.x; b < n_blocks; b += gridDim.x) {
        const int64_t base = slot0[b];
        const int n = (int)(slot0[b + 1] - base);
        for (int k = threadIdx.x; k < KMAX; k += PB)
            cnt[k] = 0;
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += PB)
            atomicAdd(&cnt[spx__hbp_key(h, s_len[base + i])], 1);
        __syncthreads();
        int v[KITEMS];
        for (int j = 0; j < KITEMS; j++)
            v[j] = cnt[threadIdx.x * KITEMS + j];
        scan_t(tmp).ExclusiveSum(v, v);
        __syncthreads();
        for (int j = 0; j < KITEMS; j++)
            cnt[threadIdx.x * KITEMS + j] = v[j]; /* each key's first place */
        __syncthreads();
        for (int c0 = 0; c0 < n; c0 += PB) { /* chunks in row order; warps in turn */
            const int i = c0 + threadIdx.x;
            const bool valid = i < n;
            const uint32_t key = valid ? spx__hbp_key(h, s_len[base + i]) : (uint32_t)K;
            const unsigned peers = __match_any_sync(FULL, key);
            const int rank = __popc(peers & ((1u << lane) - 1u)), leader = __ffs(peers) - 1;
            int place = 0;
            for (int w = 0; w < PB / 32; w++) {
                if (warp == w && valid) place = cnt[key] + rank;
                __syncwarp();
                if (warp == w && valid && lane == leader) cnt[key] += __popc(peers);
                __syncthreads();
            }
            if (valid) order[base + place] = (int32_t)(base + i);
        }
        __syncthreads(); /* cnt is the next block's */
    }
}

__global__ void __launch_bounds__(PB) iota_kernel(int64_t n, int32_t *v)
{
    for (int64_t i = gid(); i < n; i += gstride())
        v[i] = (int32_t)i;
}

/* ---- layout */

template <typename T> __device__ __forceinline__ T warp_sum(T v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(FULL, v, off);
    return v;
}

/* Population standard deviation of the valid lanes' lengths (n of them). */
__device__ __forceinline__ double lane_spread(uint32_t len, bool valid, int n)
{
    const double mean = warp_sum(valid ? (double)len : 0.0) / n;
    const double d = valid ? (double)len - mean : 0.0;
    return sqrt(warp_sum(d * d) / n);
}

struct group_out {
    uint16_t *lane_row;
    uint32_t *lane_len;
    int64_t *lane_first, *entries, *tiles, *multi_flag;
    double *sd_before, *sd_after;
    int32_t *kept_first; /* lane_first in 32 bits, kept with the layout; or NULL */
};

/* A warp per group: its lanes by decreasing length (ties in hash order, pads
 * last), its entries, tiles, and the spread before and after. */
__global__ void __launch_bounds__(PB)
    groups_kernel(int64_t n_groups, const int32_t *group_block, const int64_t *blk_group,
                  const int64_t *slot0, const int32_t *order, const uint16_t *s_row,
                  const uint32_t *s_len, const int64_t *s_first, int64_t T, int direct, group_out o)
{
    __shared__ uint32_t sorted[PB / 32][W];
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    for (int64_t g = gid() / W; g < n_groups; g += gstride() / W) {
        const int64_t b = group_block[g], q0 = slot0[b] + W * (g - blk_group[b]);
        const int n = slot0[b + 1] - q0 < W ? (int)(slot0[b + 1] - q0) : W;
        const bool valid = lane < n;
        const int64_t src = valid ? order[q0 + lane] : 0;
        const uint32_t len = valid ? s_len[src] : 0u;
        int rank = 0;
        for (int m = 0; m < W; m++) {
            const uint32_t other = __shfl_sync(FULL, len, m);
            rank += other > len || (other == len && m < lane);
        }
        const int64_t li = g * W + rank;
        o.lane_row[li] = valid ? s_row[src] : (uint16_t)SPX__HBP_ROW_PAD;
        o.lane_len[li] = len;
        o.lane_first[li] = valid ? s_first[src] : 0;
        if (o.kept_first) o.kept_first[li] = valid ? (int32_t)s_first[src] : 0;
        sorted[warp][rank] = len;
        const int64_t entries = warp_sum((int64_t)len);
        const double before = lane_spread(valid ? s_len[q0 + lane] : 0u, valid, n);
        const double after = lane_spread(len, valid, n);
        __syncwarp();
        if (lane == 0) {
            const int64_t t = spx__hbp_group_tiles(sorted[warp], T, nullptr);
            o.entries[g] = entries;
            o.tiles[g] = t;
            o.multi_flag[g] = direct && t > 1;
            o.sd_before[g] = before;
            o.sd_after[g] = after;
        }
        __syncwarp();
    }
}

/* Blocks of at least stage_min entries stage x. */
__global__ void __launch_bounds__(PB)
    stage_kernel(int64_t n_blocks, const int64_t *blk_group, const int64_t *group_entry,
                 int64_t stage_min, uint8_t *staged, unsigned long long *n_staged)
{
    for (int64_t b = gid(); b < n_blocks; b += gstride()) {
        const int64_t e = group_entry[blk_group[b + 1]] - group_entry[blk_group[b]];
        staged[b] = stage_min > 0 && e >= stage_min;
        if (staged[b]) atomicAdd(n_staged, 1ull);
    }
}

struct tile_src {
    const int32_t *group_block, *blk_r, *blk_c;
    const int64_t *group_entry, *group_tile, *multi_pos;
    const uint32_t *lane_len;
    const uint8_t *staged;
    int64_t N, M, T;
    int combine;
};

/* A thread per group: its tiles (spans via the rule, then the records). */
__global__ void __launch_bounds__(PB) tiles_kernel(int64_t n_groups, tile_src s, spx__hbp_span *sp,
                                                   spx__hbp_tile *tiles, int32_t *multi)
{
    for (int64_t g = gid(); g < n_groups; g += gstride()) {
        uint32_t len[W];
        for (int l = 0; l < W; l++)
            len[l] = s.lane_len[g * W + l];
        const int64_t t0 = s.group_tile[g], b = s.group_block[g];
        const int64_t n = spx__hbp_group_tiles(len, s.T, sp + t0);
        const int direct = s.combine == SPX__HBP_DIRECT, paper = s.combine == SPX__HBP_PAPER;
        for (int64_t j = 0; j < n; j++) {
            spx__hbp_tile t;
            t.entry = s.group_entry[g] + spx__hbp_entries_before(len, sp[t0 + j].s0);
            t.pbase = paper ? b * s.N : W * (t0 + j);
            t.group = (int32_t)g;
            t.row0 = (int32_t)((int64_t)s.blk_r[b] * s.N);
            t.col0 = (int32_t)((int64_t)s.blk_c[b] * s.M);
            t.s0 = sp[t0 + j].s0;
            t.s1 = sp[t0 + j].s1;
            t.alive = sp[t0 + j].alive;
            t.flags = (uint16_t)((direct && n == 1 ? SPX__HBP_TILE_DIRECT : 0) |
                                 (paper ? SPX__HBP_TILE_PAPER : 0) |
                                 (s.staged[b] ? SPX__HBP_TILE_STAGE : 0));
            tiles[t0 + j] = t;
        }
        if (direct && n > 1) multi[s.multi_pos[g]] = (int32_t)g;
    }
}

/* One warp over tile t: put(pos, a) for each of its entries, pos its place
 * in the layout, a its entry in A (the lane's first entry plus the step). */
template <typename First, typename Put>
__device__ __forceinline__ void tile_entries(const spx__hbp_tile &t, const uint32_t *lane_len,
                                             const First *lane_first, int lane, Put put)
{
    const int64_t li = (int64_t)t.group * W + lane;
    if (t.alive == 0) {
        const uint32_t len = lane_len[li];
        const int64_t first = lane_first[li];
        int64_t base = t.entry;
        for (uint32_t k = t.s0; k < t.s1; k++) {
            const bool in = len > k;
            if (in) put(base + lane, first + k);
            base += __popc(__ballot_sync(FULL, in));
        }
    } else {
        const int64_t rows = t.alive, n = rows * (int64_t)(t.s1 - t.s0);
        for (int64_t e = lane; e < n; e += W)
            put(t.entry + e,
                (int64_t)lane_first[(int64_t)t.group * W + e % rows] + t.s0 + e / rows);
    }
}

/* A warp per tile: its entries from A into the layout. */
template <typename V>
__global__ void __launch_bounds__(PB)
    scatter_kernel(int64_t n_tiles, const spx__hbp_tile *tiles, const uint32_t *lane_len,
                   const int64_t *lane_first, const int32_t *ci, const V *val, int col16,
                   void *col_out, V *val_out)
{
    const int lane = threadIdx.x & 31;
    for (int64_t ti = gid() / W; ti < n_tiles; ti += gstride() / W) {
        const spx__hbp_tile t = tiles[ti];
        tile_entries(t, lane_len, lane_first, lane, [&](int64_t pos, int64_t a) {
            if (col16)
                static_cast<uint16_t *>(col_out)[pos] = (uint16_t)(ci[a] - t.col0);
            else
                static_cast<int32_t *>(col_out)[pos] = ci[a];
            val_out[pos] = val[a];
        });
    }
}

/* New values: the scatter's walk, values only (spx__cuda_hbp_values). */
template <typename V>
__global__ void __launch_bounds__(PB)
    values_kernel(int64_t n_tiles, const spx__hbp_tile *tiles, const uint32_t *lane_len,
                  const int32_t *lane_first, const V *val, V *val_out)
{
    const int lane = threadIdx.x & 31;
    for (int64_t ti = gid() / W; ti < n_tiles; ti += gstride() / W)
        tile_entries(tiles[ti], lane_len, lane_first, lane,
                     [&](int64_t pos, int64_t a) { val_out[pos] = val[a]; });
}

/* Owner, paper: each row block's stored blocks in column order (count, then fill). */
__global__ void __launch_bounds__(PB)
    rb_kernel(shape s, const int32_t *cnt, const int64_t *bidx, int64_t *rbc, const int64_t *rb_ptr,
              int32_t *rb_list)
{
    for (int64_t r = gid(); r <= s.R; r += gstride()) {
        int64_t n = 0;
        for (int64_t c = 0; r < s.R && c < s.C; c++)
            if (cnt[c * s.R + r] > 0) {
                if (rb_ptr) rb_list[rb_ptr[r] + n] = (int32_t)bidx[c * s.R + r];
                n++;
            }
        if (!rb_ptr) rbc[r] = n;
    }
}

/* ---- the build */

/* Device arrays of one build that do not stay in the layout. */
struct prep_tmp {
    int32_t *cnt = nullptr, *group_block = nullptr, *order = nullptr, *pidx = nullptr,
            *perm = nullptr, *ids = nullptr;
    int64_t *stored = nullptr, *slots = nullptr, *groups = nullptr, *bidx = nullptr,
            *soff = nullptr, *goff = nullptr, *slot0 = nullptr;
    int64_t *npc = nullptr, *poff = nullptr, *g_entries = nullptr, *g_tiles = nullptr,
            *multi_flag = nullptr, *multi_pos = nullptr, *lane_first = nullptr, *rbc = nullptr;
    uint16_t *s_row = nullptr, *p_row = nullptr;
    uint32_t *s_len = nullptr, *p_len = nullptr, *pkey = nullptr, *pkey2 = nullptr, *klen = nullptr;
    int64_t *s_first = nullptr, *p_first = nullptr;
    double *sd = nullptr;
    uint8_t *staged = nullptr;
    unsigned long long *counters = nullptr; /* histogram bins, then n_staged */
    spx__hbp_span *spans = nullptr;
    void *cub = nullptr;
    size_t cub_bytes = 0;
    cudaEvent_t ev[4] = {nullptr, nullptr, nullptr, nullptr};
};

static void free_tmp(prep_tmp &t)
{
    void *arrays[] = {t.cnt,       t.group_block, t.order,    t.pidx,      t.perm,    t.ids,
                      t.stored,    t.slots,       t.groups,   t.bidx,      t.soff,    t.goff,
                      t.slot0,     t.npc,         t.poff,     t.g_entries, t.g_tiles, t.multi_flag,
                      t.multi_pos, t.lane_first,  t.rbc,      t.s_row,     t.p_row,   t.s_len,
                      t.p_len,     t.pkey,        t.pkey2,    t.klen,      t.s_first, t.p_first,
                      t.sd,        t.staged,      t.counters, t.spans,     t.cub};
    for (void *p : arrays)
        spx__cuda_free(p);
    for (cudaEvent_t e : t.ev)
        if (e) cudaEventDestroy(e);
}

static spx_status cuda_fail(cudaError_t e, const char *what)
{
    cudaGetLastError();
    return spx__error(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                      "cuda hbp prep (%s): %s", what, cudaGetErrorString(e));
}

#define CUDA_TRY(call, what)                                                                       \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            st = cuda_fail(e_, what);                                                              \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)
#define LAUNCHED(what) CUDA_TRY(cudaGetLastError(), what)

template <typename T> static spx_status dalloc(T **p, int64_t n, const char *what)
{
    return spx__cuda_alloc((void **)p, (size_t)(n > 0 ? n : 1) * sizeof(T), what);
}

static unsigned blocks_for(int64_t n, int64_t per)
{
    const int64_t b = (n + per - 1) / per;
    return (unsigned)(b < 1 ? 1 : b > 65536 ? 65536 : b);
}

/* CUB's temporary storage: grown to bytes. */
static spx_status cub_room(prep_tmp &t, size_t bytes)
{
    if (bytes <= t.cub_bytes) return SPX_OK;
    spx__cuda_free(t.cub);
    t.cub = nullptr;
    t.cub_bytes = 0;
    spx_status st = spx__cuda_alloc(&t.cub, bytes, "cuda hbp prep cub storage");
    if (st == SPX_OK) t.cub_bytes = bytes;
    return st;
}

/* out[0..n) = exclusive sums of in[0..n). */
static spx_status scan(prep_tmp &t, const int64_t *in, int64_t *out, int64_t n)
{
    size_t bytes = 0;
    cudaError_t e = cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n);
    if (e != cudaSuccess) return cuda_fail(e, "scan");
    spx_status st = cub_room(t, bytes);
    if (st != SPX_OK) return st;
    e = cub::DeviceScan::ExclusiveSum(t.cub, bytes, in, out, n);
    return e == cudaSuccess ? SPX_OK : cuda_fail(e, "scan");
}

static spx_status fetch(void *host, const void *dev, size_t bytes)
{
    return spx__cuda_copy(host, dev, bytes, 0);
}

/* Slots in row order: full blocks (a slot per row), or pieces sorted by block. */
static spx_status partition_slots(const spx__cuda_csr *d, const shape &s, spx__hbp *h, prep_tmp &t)
{
    const int64_t rows = s.rows;
    spx_status st = SPX_OK;
    int64_t n_slots = 0, pieces = 0;
    SPX_TRY(fetch(&n_slots, t.soff + s.C * s.R, sizeof n_slots));
    SPX_TRY(dalloc(&t.s_row, n_slots, "cuda hbp slot rows"));
    SPX_TRY(dalloc(&t.s_len, n_slots, "cuda hbp slot lengths"));
    SPX_TRY(dalloc(&t.s_first, n_slots, "cuda hbp slot entries"));
    if (s.full) {
        full_slots_kernel<<<blocks_for(h->n_blocks, 1), PB>>>(
            s, h->n_blocks, h->blk_r, t.slot0, d->rowptr, t.s_row, t.s_len, t.s_first);
        LAUNCHED("full slots");
        if (!s.direct) {
            paper_pieces_kernel<<<blocks_for(rows, PB), PB>>>(s, d->rowptr, d->colidx, t.bidx,
                                                              t.slot0, t.s_len, t.s_first);
            LAUNCHED("paper pieces");
        }
        return SPX_OK;
    }
    SPX_TRY(dalloc(&t.npc, rows + 1, "cuda hbp pieces per row"));
    SPX_TRY(dalloc(&t.poff, rows + 1, "cuda hbp piece offsets"));
    pieces_kernel<<<blocks_for(rows + 1, PB), PB>>>(s, d->rowptr, d->colidx, t.npc, nullptr,
                                                    nullptr, nullptr, nullptr, nullptr, nullptr);
    LAUNCHED("pieces count");
    SPX_TRY(scan(t, t.npc, t.poff, rows + 1));
    SPX_TRY(fetch(&pieces, t.poff + rows, sizeof pieces));
    if (pieces != n_slots) {
        st = spx__error(SPX_ERR_DEVICE, "cuda hbp prep: %lld pieces, %lld slots", (long long)pieces,
                        (long long)n_slots);
        goto cleanup;
    }
    SPX_TRY(dalloc(&t.pkey, pieces, "cuda hbp piece keys"));
    SPX_TRY(dalloc(&t.pkey2, pieces, "cuda hbp piece keys"));
    SPX_TRY(dalloc(&t.pidx, pieces, "cuda hbp piece ids"));
    SPX_TRY(dalloc(&t.perm, pieces, "cuda hbp piece order"));
    SPX_TRY(dalloc(&t.p_row, pieces, "cuda hbp piece rows"));
    SPX_TRY(dalloc(&t.p_len, pieces, "cuda hbp piece lengths"));
    SPX_TRY(dalloc(&t.p_first, pieces, "cuda hbp piece entries"));
    pieces_kernel<<<blocks_for(rows + 1, PB), PB>>>(s, d->rowptr, d->colidx, t.npc, t.poff, t.pkey,
                                                    t.pidx, t.p_row, t.p_len, t.p_first);
    LAUNCHED("pieces");
    {
        int bits = 1;
        while (bits < 32 && ((int64_t)1 << bits) < s.C * s.R)
            bits++;
        size_t bytes = 0;
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, t.pkey, t.pkey2, t.pidx, t.perm,
                                                 pieces, 0, bits),
                 "piece sort");
        SPX_TRY(cub_room(t, bytes));
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(t.cub, bytes, t.pkey, t.pkey2, t.pidx, t.perm,
                                                 pieces, 0, bits),
                 "piece sort");
    }
    gather_slots_kernel<<<blocks_for(pieces, PB), PB>>>(pieces, t.perm, t.p_row, t.p_len, t.p_first,
                                                        t.s_row, t.s_len, t.s_first);
    LAUNCHED("slot gather");
cleanup:
    return st;
}

/* Counts, blocks and their slots in row order; the hash from the lengths. */
static spx_status partition(const spx__cuda_csr *d, const shape &s, spx__hbp *h, prep_tmp &t)
{
    const int64_t n = s.C * s.R;
    unsigned long long hist[SPX__HBP_BINS];
    int64_t hist64[SPX__HBP_BINS], total[2];
    spx_status st = SPX_OK;
    SPX_TRY(dalloc(&t.cnt, n, "cuda hbp block counts"));
    SPX_TRY(dalloc(&t.counters, SPX__HBP_BINS + 1, "cuda hbp histogram"));
    CUDA_TRY(cudaMemset(t.cnt, 0, (size_t)(n > 0 ? n : 1) * sizeof *t.cnt), "memset");
    CUDA_TRY(cudaMemset(t.counters, 0, (SPX__HBP_BINS + 1) * sizeof *t.counters), "memset");
    if (s.rows > 0) {
        count_kernel<<<blocks_for(s.rows, PB), PB>>>(s, d->rowptr, d->colidx, t.cnt, t.counters);
        LAUNCHED("count");
    }
    SPX_TRY(dalloc(&t.stored, n + 1, "cuda hbp stored blocks"));
    SPX_TRY(dalloc(&t.slots, n + 1, "cuda hbp block slots"));
    SPX_TRY(dalloc(&t.groups, n + 1, "cuda hbp block groups"));
    SPX_TRY(dalloc(&t.bidx, n + 1, "cuda hbp block ids"));
    SPX_TRY(dalloc(&t.soff, n + 1, "cuda hbp slot offsets"));
    SPX_TRY(dalloc(&t.goff, n + 1, "cuda hbp group offsets"));
    dense_kernel<<<blocks_for(n + 1, PB), PB>>>(s, t.cnt, t.stored, t.slots, t.groups);
    LAUNCHED("dense");
    SPX_TRY(scan(t, t.stored, t.bidx, n + 1));
    SPX_TRY(scan(t, t.slots, t.soff, n + 1));
    SPX_TRY(scan(t, t.groups, t.goff, n + 1));
    SPX_TRY(fetch(&total[0], t.bidx + n, sizeof total[0]));
    SPX_TRY(fetch(&total[1], t.goff + n, sizeof total[1]));
    h->n_blocks = total[0];
    h->n_groups = total[1];
    SPX_TRY(fetch(&total[0], t.soff + n, sizeof total[0]));
    if (total[0] > INT32_MAX) {
        st = spx__error(SPX_ERR_UNSUPPORTED,
                        "hbp (cuda): %lld slots (rows of blocks), more than 2^31 - 1; take "
                        "combine=owner or larger blocks",
                        (long long)total[0]);
        goto cleanup;
    }
    SPX_TRY(dalloc(&h->blk_r, h->n_blocks, "cuda hbp block rows"));
    SPX_TRY(dalloc(&h->blk_c, h->n_blocks, "cuda hbp block columns"));
    SPX_TRY(dalloc(&h->blk_group, h->n_blocks + 1, "cuda hbp block groups"));
    SPX_TRY(dalloc(&t.slot0, h->n_blocks + 1, "cuda hbp block slots"));
    SPX_TRY(dalloc(&t.group_block, h->n_groups, "cuda hbp group blocks"));
    blocks_kernel<<<blocks_for(n + 1, PB), PB>>>(s, t.cnt, t.bidx, t.goff, t.soff, h->blk_r,
                                                 h->blk_c, h->blk_group, t.slot0);
    LAUNCHED("blocks");
    group_block_kernel<<<blocks_for(h->n_blocks, PB), PB>>>(h->n_blocks, h->blk_group,
                                                            t.group_block);
    LAUNCHED("group blocks");
    SPX_TRY(partition_slots(d, s, h, t));
    SPX_TRY(fetch(hist, t.counters, sizeof hist));
    for (int i = 0; i < SPX__HBP_BINS; i++)
        hist64[i] = (int64_t)hist[i];
    h->hash = spx__hbp_hash_of(hist64, s.N);
cleanup:
    return st;
}

/* order: each block's slots by hash key (or decreasing length), row order on ties. */
static spx_status order_slots(const shape &s, spx__hbp *h, prep_tmp &t)
{
    int64_t n_slots = 0;
    spx_status st = SPX_OK;
    (void)s;
    SPX_TRY(fetch(&n_slots, t.slot0 + h->n_blocks, sizeof n_slots));
    SPX_TRY(dalloc(&t.order, n_slots, "cuda hbp slot order"));
    if (h->order == SPX__HBP_HASH) {
        hash_kernel<<<blocks_for(h->n_blocks, 1), PB>>>(h->n_blocks, t.slot0, t.s_len, h->hash,
                                                        t.order);
        LAUNCHED("hash");
    } else if (n_slots > 0) {
        size_t bytes = 0;
        SPX_TRY(dalloc(&t.klen, n_slots, "cuda hbp sorted lengths"));
        SPX_TRY(dalloc(&t.ids, n_slots, "cuda hbp slot ids"));
        iota_kernel<<<blocks_for(n_slots, PB), PB>>>(n_slots, t.ids);
        LAUNCHED("iota");
        CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairsDescending(
                     nullptr, bytes, t.s_len, t.klen, t.ids, t.order, n_slots, h->n_blocks, t.slot0,
                     t.slot0 + 1),
                 "segmented sort");
        SPX_TRY(cub_room(t, bytes));
        CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairsDescending(
                     t.cub, bytes, t.s_len, t.klen, t.ids, t.order, n_slots, h->n_blocks, t.slot0,
                     t.slot0 + 1),
                 "segmented sort");
    }
cleanup:
    return st;
}

/* groups, tiles, entries, row block lists and the spread statistics. */
static spx_status layout(const spx__cuda_csr *d, const spx__hbp_opts *o, const shape &s,
                         spx__hbp *h, prep_tmp &t)
{
    const int64_t ng = h->n_groups;
    int64_t total[3];
    double sd[2] = {0.0, 0.0};
    unsigned long long n_staged = 0;
    spx_status st = SPX_OK;
    size_t bytes = 0;
    SPX_TRY(dalloc(&h->lane_row, W * ng, "cuda hbp lane rows"));
    SPX_TRY(dalloc(&h->lane_len, W * ng, "cuda hbp lane lengths"));
    SPX_TRY(dalloc(&t.lane_first, W * ng, "cuda hbp lane entries"));
    if (d->nnz <= INT32_MAX) SPX_TRY(dalloc(&h->lane_first, W * ng, "cuda hbp lane first entries"));
    SPX_TRY(dalloc(&t.g_entries, ng + 1, "cuda hbp group entries"));
    SPX_TRY(dalloc(&t.g_tiles, ng + 1, "cuda hbp group tiles"));
    SPX_TRY(dalloc(&t.multi_flag, ng + 1, "cuda hbp multi flags"));
    SPX_TRY(dalloc(&t.sd, 2 * ng + 2, "cuda hbp spread"));
    SPX_TRY(dalloc(&h->group_entry, ng + 1, "cuda hbp group entries"));
    SPX_TRY(dalloc(&h->group_tile, ng + 1, "cuda hbp group tiles"));
    SPX_TRY(dalloc(&t.multi_pos, ng + 1, "cuda hbp multi places"));
    CUDA_TRY(cudaMemset(t.g_entries + ng, 0, sizeof(int64_t)), "memset");
    CUDA_TRY(cudaMemset(t.g_tiles + ng, 0, sizeof(int64_t)), "memset");
    CUDA_TRY(cudaMemset(t.multi_flag + ng, 0, sizeof(int64_t)), "memset");
    {
        const group_out go = {h->lane_row,  h->lane_len, t.lane_first, t.g_entries,  t.g_tiles,
                              t.multi_flag, t.sd,        t.sd + ng,    h->lane_first};
        groups_kernel<<<blocks_for(W * ng, PB), PB>>>(ng, t.group_block, h->blk_group, t.slot0,
                                                      t.order, t.s_row, t.s_len, t.s_first, h->T,
                                                      h->combine == SPX__HBP_DIRECT, go);
        LAUNCHED("groups");
    }
    SPX_TRY(scan(t, t.g_entries, h->group_entry, ng + 1));
    SPX_TRY(scan(t, t.g_tiles, h->group_tile, ng + 1));
    SPX_TRY(scan(t, t.multi_flag, t.multi_pos, ng + 1));
    SPX_TRY(fetch(&total[0], h->group_entry + ng, sizeof total[0]));
    SPX_TRY(fetch(&total[1], h->group_tile + ng, sizeof total[1]));
    SPX_TRY(fetch(&total[2], t.multi_pos + ng, sizeof total[2]));
    if (total[0] != d->nnz || total[1] > INT32_MAX) {
        st = spx__error(total[0] != d->nnz ? SPX_ERR_DEVICE : SPX_ERR_UNSUPPORTED,
                        "hbp (cuda): %lld entries laid out of %lld, %lld tiles (at most 2^31 - 1)",
                        (long long)total[0], (long long)d->nnz, (long long)total[1]);
        goto cleanup;
    }
    h->n_tiles = total[1];
    h->n_multi = total[2];
    SPX_TRY(dalloc(&t.staged, h->n_blocks, "cuda hbp staged blocks"));
    stage_kernel<<<blocks_for(h->n_blocks, PB), PB>>>(h->n_blocks, h->blk_group, h->group_entry,
                                                      o->stage_min, t.staged,
                                                      t.counters + SPX__HBP_BINS);
    LAUNCHED("stage");
    SPX_TRY(fetch(&n_staged, t.counters + SPX__HBP_BINS, sizeof n_staged));
    h->n_staged = (int64_t)n_staged;
    SPX_TRY(dalloc(&h->tiles, h->n_tiles, "cuda hbp tiles"));
    SPX_TRY(dalloc(&h->multi, h->n_multi, "cuda hbp multi"));
    SPX_TRY(dalloc(&t.spans, h->n_tiles, "cuda hbp spans"));
    {
        const tile_src ts = {t.group_block, h->blk_r,    h->blk_c,    h->group_entry,
                             h->group_tile, t.multi_pos, h->lane_len, t.staged,
                             h->N,          h->M,        h->T,        h->combine};
        tiles_kernel<<<blocks_for(ng, PB), PB>>>(ng, ts, t.spans, h->tiles, h->multi);
        LAUNCHED("tiles");
    }
    SPX_TRY(spx__cuda_alloc(&h->col, (size_t)(d->nnz > 0 ? d->nnz : 1) * (h->col16 ? 2 : 4),
                            "cuda hbp columns"));
    SPX_TRY(spx__cuda_alloc(&h->values,
                            (size_t)(d->nnz > 0 ? d->nnz : 1) * (h->vtype == SPX_F64   ? 8
                                                                 : h->vtype == SPX_F32 ? 4
                                                                                       : 2),
                            "cuda hbp values"));
    if (h->vtype == SPX_F64)
        scatter_kernel<<<blocks_for(W * h->n_tiles, PB), PB>>>(
            h->n_tiles, h->tiles, h->lane_len, t.lane_first, d->colidx, (const double *)d->values,
            h->col16, h->col, (double *)h->values);
    else if (h->vtype == SPX_F32)
        scatter_kernel<<<blocks_for(W * h->n_tiles, PB), PB>>>(
            h->n_tiles, h->tiles, h->lane_len, t.lane_first, d->colidx, (const float *)d->values,
            h->col16, h->col, (float *)h->values);
    else
        scatter_kernel<<<blocks_for(W * h->n_tiles, PB), PB>>>(
            h->n_tiles, h->tiles, h->lane_len, t.lane_first, d->colidx, (const __half *)d->values,
            h->col16, h->col, (__half *)h->values);
    LAUNCHED("scatter");
    if (!s.direct) {
        SPX_TRY(dalloc(&t.rbc, s.R + 1, "cuda hbp row block counts"));
        SPX_TRY(dalloc(&h->rb_ptr, s.R + 1, "cuda hbp row blocks"));
        SPX_TRY(dalloc(&h->rb_list, h->n_blocks, "cuda hbp row block lists"));
        rb_kernel<<<blocks_for(s.R + 1, PB), PB>>>(s, t.cnt, t.bidx, t.rbc, nullptr, nullptr);
        LAUNCHED("row block counts");
        SPX_TRY(scan(t, t.rbc, h->rb_ptr, s.R + 1));
        rb_kernel<<<blocks_for(s.R + 1, PB), PB>>>(s, t.cnt, t.bidx, nullptr, h->rb_ptr,
                                                   h->rb_list);
        LAUNCHED("row block lists");
    }
    if (ng > 0) {
        for (int k = 0; k < 2; k++) {
            CUDA_TRY(cub::DeviceReduce::Sum(nullptr, bytes, t.sd + k * ng, t.sd + 2 * ng + k, ng),
                     "reduce");
            SPX_TRY(cub_room(t, bytes));
            CUDA_TRY(cub::DeviceReduce::Sum(t.cub, bytes, t.sd + k * ng, t.sd + 2 * ng + k, ng),
                     "reduce");
        }
        SPX_TRY(fetch(sd, t.sd + 2 * ng, sizeof sd));
        h->sd_before = sd[0] / (double)ng;
        h->sd_after = sd[1] / (double)ng;
    }
cleanup:
    return st;
}

static float elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0.0f;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms : 0.0f;
}

extern "C" spx_status spx__cuda_hbp_build(const spx__cuda_csr *d, const spx__hbp_opts *o,
                                          spx__hbp *out, spx__hbp_times *tm)
{
    prep_tmp t;
    spx_status st = SPX_OK;
    memset(out, 0, sizeof *out);
    memset(tm, 0, sizeof *tm);
    if (!d || !o || d->vtype != o->vtype)
        return spx__error(SPX_ERR_INVALID_ARG, "cuda hbp prep: bad arguments");
    st = spx__hbp_shape(d->rows, d->cols, d->nnz, o, out);
    if (st != SPX_OK) return st;
    const shape s = {
        out->rows, out->N, out->M, out->R, out->C, out->C == 1, out->combine != SPX__HBP_OWNER};
    for (cudaEvent_t &e : t.ev)
        CUDA_TRY(cudaEventCreate(&e), "event");
    CUDA_TRY(cudaEventRecord(t.ev[0], 0), "event");
    SPX_TRY(partition(d, s, out, t));
    CUDA_TRY(cudaEventRecord(t.ev[1], 0), "event");
    SPX_TRY(order_slots(s, out, t));
    CUDA_TRY(cudaEventRecord(t.ev[2], 0), "event");
    SPX_TRY(layout(d, o, s, out, t));
    CUDA_TRY(cudaEventRecord(t.ev[3], 0), "event");
    CUDA_TRY(cudaEventSynchronize(t.ev[3]), "prep");
    tm->partition_ms = elapsed(t.ev[0], t.ev[1]);
    tm->order_ms = elapsed(t.ev[1], t.ev[2]);
    tm->layout_ms = elapsed(t.ev[2], t.ev[3]);
    tm->total_ms = elapsed(t.ev[0], t.ev[3]);
    free_tmp(t);
    return SPX_OK;
cleanup:
    free_tmp(t);
    spx__hbp_free_device(out);
    return st;
}

extern "C" spx_status spx__cuda_hbp_values(const spx__hbp *H, void *dst, const void *src,
                                           void *stream)
{
    spx_status st = SPX_OK;
    cudaStream_t s = (cudaStream_t)stream;
    if (!H || (H->nnz > 0 && (!dst || !src || !H->lane_first)))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda hbp values: bad arguments");
    if (H->n_tiles == 0) return SPX_OK;
    const unsigned grid = blocks_for(W * H->n_tiles, PB);
    if (H->vtype == SPX_F64)
        values_kernel<<<grid, PB, 0, s>>>(H->n_tiles, H->tiles, H->lane_len, H->lane_first,
                                          (const double *)src, (double *)dst);
    else if (H->vtype == SPX_F32)
        values_kernel<<<grid, PB, 0, s>>>(H->n_tiles, H->tiles, H->lane_len, H->lane_first,
                                          (const float *)src, (float *)dst);
    else
        values_kernel<<<grid, PB, 0, s>>>(H->n_tiles, H->tiles, H->lane_len, H->lane_first,
                                          (const __half *)src, (__half *)dst);
    LAUNCHED("values");
    CUDA_TRY(cudaStreamSynchronize(s), "values");
cleanup:
    return st;
}
