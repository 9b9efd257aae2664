/* tsparse: the task list of a panel, its tiles of C, and the counting kernel
 * (the method: tsparse.h; the host model: cpu/tile8.c).
 *
 * Pairs: a group of eight lanes takes a tile (I, K) of A and walks B's tile
 * row K eight tiles at a time; a pair whose bitmaps are culled (cpu/tile8.h)
 * is dropped. Pass 1 counts each tile's survivors (a prefix sum gives every
 * tile of A its first task, 64-bit); pass 2 writes them in B's order, a
 * ballot placing each lane's survivor after those of the lanes before it.
 * The tasks of tile row I are then sorted by J with CUB's stable segmented
 * sort (one segment per tile row of A), which keeps increasing K inside a
 * run of equal J: each run is one tile of C, its head a task whose (I, J)
 * differs from the one before. CUB selects the heads' positions.
 *
 * Counting: a thread per tile of C ORs the bitmap products of its tasks:
 * the exact pattern, whose popcount is the number of values to allocate. */
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cpu/tile8.h"
#include "cuda/spgemm/tsparse_dev.cuh"

namespace spx_tsparse {

#define BLOCK 256
#define WARPS (BLOCK / 32)

/* Pass 1 (offset NULL): count[ta] = surviving pairs of tile ta of A. Pass 2:
 * write the pairs of the tiles [a0, a1) at offset[ta] - base. */
__global__ void __launch_bounds__(BLOCK)
    pairs_kernel(int64_t a0, int64_t a1, spx__cuda_tiles A, spx__cuda_tiles B, int64_t *count,
                 const int64_t *__restrict__ offset, int64_t base, int32_t *key, uint64_t *pair)
{
    const int lane = threadIdx.x & 31, r = lane & 7, group = lane >> 3;
    const int64_t nquads = (a1 - a0 + 3) / 4, stride = (int64_t)gridDim.x * WARPS;
    for (int64_t quad = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; quad < nquads;
         quad += stride) {
        const int64_t ta = a0 + 4 * quad + group;
        uint64_t a = 0;
        int64_t b = 0, b1 = 0, out = 0, n = 0;
        if (ta < a1) {
            const int32_t K = A.col[ta];
            a = A.bits[ta];
            b = B.ptr[K];
            b1 = B.ptr[K + 1];
            out = offset ? offset[ta] - base : 0;
        }
        for (; __any_sync(FULL, b < b1); b += 8) {
            const int64_t tb = b + r;
            const bool keep = tb < b1 && !spx__tile8_culled(a, B.bits[tb]);
            const unsigned mine = (__ballot_sync(FULL, keep) >> (8 * group)) & 0xffu;
            if (keep && offset) {
                const int64_t p = out + __popc(mine & ((1u << r) - 1u));
                key[p] = B.col[tb];
                pair[p] = (uint64_t)ta << 32 | (uint64_t)tb;
            }
            out += __popc(mine);
            n += __popc(mine);
        }
        if (!offset && ta < a1 && r == 0) count[ta] = n;
    }
}

static unsigned quad_blocks(int64_t tiles) { return blocks_for((tiles + 3) / 4 * 32, BLOCK); }

spx_status task_offsets(const spx__cuda_tiles *A, const spx__cuda_tiles *B, cudaStream_t s,
                        int64_t *offset)
{
    int64_t *count = NULL;
    spx_status st;
    SPX_TRY(dev_alloc_n(&count, A->ntiles, "tsparse task counts", s));
    if (A->ntiles > 0) {
        pairs_kernel<<<quad_blocks(A->ntiles), BLOCK, 0, s>>>(0, A->ntiles, *A, *B, count, NULL,
                                                              0, NULL, NULL);
        SPX_TRY(launched("tsparse task count kernel"));
    }
    SPX_TRY(exclusive_sum(count, offset, A->ntiles, s));
cleanup:
    dev_free(count, s);
    return st;
}

/* seg[L] = first task of tile row I0 + L, relative to the panel's first. */
__global__ void segment_starts(int64_t ntr, const int64_t *__restrict__ ptr,
                               const int64_t *__restrict__ offset, int64_t base, int64_t *seg)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t L = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; L <= ntr; L += stride)
        seg[L] = offset[ptr[L]] - base;
}

/* flag[t] = 1 when task t starts a tile of C; *heads += the flags. */
__global__ void __launch_bounds__(BLOCK)
    mark_heads(int64_t n, const int32_t *__restrict__ key, const uint64_t *__restrict__ pair,
               const int32_t *__restrict__ arow, unsigned char *flag, unsigned long long *heads)
{
    const int64_t stride = (int64_t)gridDim.x * BLOCK;
    unsigned long long mine = 0;
    for (int64_t t = (int64_t)blockIdx.x * BLOCK + threadIdx.x; t < n; t += stride) {
        const bool head = t == 0 || key[t] != key[t - 1] ||
                          arow[pair[t] >> 32] != arow[pair[t - 1] >> 32];
        flag[t] = head;
        mine += head;
    }
    for (int d = 16; d; d >>= 1) mine += __shfl_xor_sync(FULL, mine, d);
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(heads, mine);
}

__global__ void set_i64(int64_t *p, int64_t v) { *p = v; }

void tasks_free(panel_tasks *P, cudaStream_t s)
{
    dev_free(P->key, s);
    dev_free(P->pair, s);
    dev_free(P->cstart, s);
    *P = panel_tasks{};
}

/* The panel's tasks, written unsorted into key_in, pair_in, then sorted into
 * P->key, P->pair. */
static spx_status write_sorted(const spx__cuda_tiles *A, const spx__cuda_tiles *B, int64_t I0,
                               int64_t I1, int64_t a0, int64_t a1, const int64_t *offset,
                               int64_t base, cudaStream_t s, panel_tasks *P)
{
    const int64_t n = P->n, ntr = I1 - I0;
    int32_t *key_in = NULL;
    uint64_t *pair_in = NULL;
    int64_t *seg = NULL;
    void *tmp = NULL;
    size_t bytes = 0;
    spx_status st;
    SPX_TRY(dev_alloc_n(&key_in, n, "tsparse task keys", s));
    SPX_TRY(dev_alloc_n(&pair_in, n, "tsparse task pairs", s));
    SPX_TRY(dev_alloc_n(&seg, ntr + 1, "tsparse task segments", s));
    pairs_kernel<<<quad_blocks(a1 - a0), BLOCK, 0, s>>>(a0, a1, *A, *B, NULL, offset, base,
                                                        key_in, pair_in);
    SPX_TRY(launched("tsparse task kernel"));
    segment_starts<<<blocks_for(ntr + 1, BLOCK), BLOCK, 0, s>>>(ntr, A->ptr + I0, offset, base,
                                                                seg);
    SPX_TRY(launched("tsparse task segments"));
    SPX_TRY(dev_alloc_n(&P->key, n, "tsparse sorted task keys", s));
    SPX_TRY(dev_alloc_n(&P->pair, n, "tsparse sorted task pairs", s));
    SPX_TRY(cuda_ok(cub::DeviceSegmentedSort::StableSortPairs(NULL, bytes, key_in, P->key, pair_in,
                                                              P->pair, n, ntr, seg, seg + 1, s),
                    "tsparse task sort"));
    SPX_TRY(dev_alloc(&tmp, bytes, "tsparse task sort scratch", s));
    SPX_TRY(cuda_ok(cub::DeviceSegmentedSort::StableSortPairs(tmp, bytes, key_in, P->key, pair_in,
                                                              P->pair, n, ntr, seg, seg + 1, s),
                    "tsparse task sort"));
cleanup:
    dev_free(tmp, s);
    dev_free(seg, s);
    dev_free(key_in, s);
    dev_free(pair_in, s);
    return st;
}

/* P->cstart: the positions of the heads of the runs of equal (I, J). */
static spx_status select_heads(const spx__cuda_tiles *A, cudaStream_t s, panel_tasks *P)
{
    unsigned char *flag = NULL;
    unsigned long long *heads = NULL, nc = 0;
    int64_t *selected = NULL;
    void *tmp = NULL;
    size_t bytes = 0;
    const thrust::counting_iterator<int64_t> index(0);
    spx_status st;
    SPX_TRY(dev_alloc_n(&flag, P->n, "tsparse task heads", s));
    SPX_TRY(dev_alloc_n(&heads, 1, "tsparse head count", s));
    SPX_TRY(dev_alloc_n(&selected, 1, "tsparse head count", s));
    SPX_TRY(cuda_ok(cudaMemsetAsync(heads, 0, sizeof *heads, s), "tsparse head count"));
    mark_heads<<<blocks_for(P->n, BLOCK), BLOCK, 0, s>>>(P->n, P->key, P->pair, A->row, flag,
                                                         heads);
    SPX_TRY(launched("tsparse head kernel"));
    SPX_TRY(download(&nc, heads, sizeof nc, s));
    P->nc = (int64_t)nc;
    SPX_TRY(dev_alloc_n(&P->cstart, P->nc + 1, "tsparse C tile starts", s));
    SPX_TRY(cuda_ok(cub::DeviceSelect::Flagged(NULL, bytes, index, flag, P->cstart, selected, P->n,
                                               s),
                    "tsparse head selection"));
    SPX_TRY(dev_alloc(&tmp, bytes, "tsparse head selection scratch", s));
    SPX_TRY(cuda_ok(cub::DeviceSelect::Flagged(tmp, bytes, index, flag, P->cstart, selected, P->n,
                                               s),
                    "tsparse head selection"));
    set_i64<<<1, 1, 0, s>>>(P->cstart + P->nc, P->n);
    SPX_TRY(launched("tsparse C tile starts"));
cleanup:
    dev_free(tmp, s);
    dev_free(flag, s);
    dev_free(heads, s);
    dev_free(selected, s);
    return st;
}

spx_status tasks_build(const spx__cuda_tiles *A, const spx__cuda_tiles *B, int64_t I0, int64_t I1,
                       int64_t a0, int64_t a1, const int64_t *offset, int64_t base, int64_t n,
                       cudaStream_t s, panel_tasks *P)
{
    spx_status st;
    *P = panel_tasks{};
    P->n = n;
    if (n == 0) {
        SPX_TRY(dev_alloc_n(&P->cstart, 1, "tsparse C tile starts", s));
        set_i64<<<1, 1, 0, s>>>(P->cstart, 0);
        SPX_TRY(launched("tsparse C tile starts"));
        return SPX_OK;
    }
    SPX_TRY(write_sorted(A, B, I0, I1, a0, a1, offset, base, s, P));
    SPX_TRY(select_heads(A, s, P));
    return SPX_OK;
cleanup:
    tasks_free(P, s);
    return st;
}

/* ---------------------------------------------------------------- counting */

__global__ void __launch_bounds__(BLOCK)
    count_kernel(panel_tasks P, spx__cuda_tiles A, spx__cuda_tiles B, ctiles C, int64_t *count)
{
    const int64_t stride = (int64_t)gridDim.x * BLOCK;
    for (int64_t c = (int64_t)blockIdx.x * BLOCK + threadIdx.x; c < P.nc; c += stride) {
        const int64_t t0 = P.cstart[c], t1 = P.cstart[c + 1];
        uint64_t bits = 0;
        for (int64_t t = t0; t < t1; t++) {
            const uint64_t pr = P.pair[t];
            bits |= spx__tile8_product(A.bits[pr >> 32], B.bits[pr & 0xffffffffu]);
        }
        C.row[c] = A.row[P.pair[t0] >> 32];
        C.col[c] = P.key[t0];
        C.bits[c] = bits;
        count[c] = __popcll(bits);
    }
}

void ctiles_free(ctiles *C, cudaStream_t s)
{
    dev_free(C->row, s);
    dev_free(C->col, s);
    dev_free(C->bits, s);
    dev_free(C->nz, s);
    dev_free(C->off, s);
    dev_free(C->val, s);
    *C = ctiles{};
}

spx_status ctiles_count(const spx__cuda_tiles *A, const spx__cuda_tiles *B, const panel_tasks *P,
                        cudaStream_t s, ctiles *C)
{
    int64_t *count = NULL;
    spx_status st;
    *C = ctiles{};
    C->n = P->nc;
    SPX_TRY(dev_alloc_n(&C->row, C->n, "tsparse C tile rows", s));
    SPX_TRY(dev_alloc_n(&C->col, C->n, "tsparse C tile columns", s));
    SPX_TRY(dev_alloc_n(&C->bits, C->n, "tsparse C tile patterns", s));
    SPX_TRY(dev_alloc_n(&C->nz, C->n, "tsparse C tile nonzeros", s));
    SPX_TRY(dev_alloc_n(&C->off, C->n + 1, "tsparse C tile offsets", s));
    SPX_TRY(dev_alloc_n(&count, C->n, "tsparse C tile counts", s));
    if (C->n > 0) {
        count_kernel<<<blocks_for(C->n, BLOCK), BLOCK, 0, s>>>(*P, *A, *B, *C, count);
        SPX_TRY(launched("tsparse counting kernel"));
    }
    SPX_TRY(exclusive_sum(count, C->off, C->n, s));
    SPX_TRY(fetch_i64(C->off + C->n, &C->nvals, s));
cleanup:
    dev_free(count, s);
    if (st != SPX_OK) ctiles_free(C, s);
    return st;
}

} // namespace spx_tsparse
