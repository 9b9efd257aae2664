/* tsparse: CSR -> 8x8 tiles, and the tiles of C -> CSR (layout: cpu/tile8.h).
 *
 * CSR -> tiles: a warp takes four tile rows, a group of eight lanes each and
 * a lane a row. Each step the group agrees on the smallest tile column J
 * among its rows' next entries (a minimum over the eight lanes), each lane
 * takes its row's entries of tile J, and the group ORs their bits. Pass 1
 * counts the tiles of each tile row, a prefix sum places them, pass 2 writes
 * them: tile row I's values start at rowptr[8I], so each lane writes its
 * values at that base plus the tile's running popcount plus their rank.
 *
 * Tiles of C -> CSR: a warp takes a tile row of C. Counting: each lane sums
 * the popcounts of bytes 0..7 of its tiles' nonzero bitmaps (row r is byte
 * r), the warp adds them up; a prefix sum gives the row offsets. Writing: the
 * warp takes 32 tiles at a time, and for each row r a prefix sum over the
 * lanes places each tile's entries of the row after those of the tiles to
 * its left: columns come out increasing. Entries outside the nonzero bitmap
 * (value exactly 0) are dropped here. */
#include <cuda_fp16.h>

#include "cpu/tile8.h"
#include "cuda/spgemm/tsparse_dev.cuh"

namespace spx_tsparse {

#define BLOCK 256
#define WARPS (BLOCK / 32)

static __device__ __forceinline__ int32_t group_min(int32_t v)
{
    for (int d = 4; d; d >>= 1) v = min(v, __shfl_xor_sync(FULL, v, d, 8));
    return v;
}

static __device__ __forceinline__ uint64_t group_or(uint64_t v)
{
    for (int d = 4; d; d >>= 1) v |= __shfl_xor_sync(FULL, v, d, 8);
    return v;
}

/* Pass 1 (ptr NULL): count[I] = tiles of tile row I. Pass 2: write them from
 * ptr[I] on. */
template <typename V>
__global__ void __launch_bounds__(BLOCK)
    tile_rows(int64_t rows, int64_t trows, const int64_t *__restrict__ rp,
              const int32_t *__restrict__ ci, const V *__restrict__ cv, int64_t *count,
              const int64_t *__restrict__ ptr, spx__cuda_tiles T)
{
    const int lane = threadIdx.x & 31, r = lane & 7;
    const int64_t nquads = (trows + 3) / 4, stride = (int64_t)gridDim.x * WARPS;
    for (int64_t quad = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; quad < nquads;
         quad += stride) {
        const int64_t I = 4 * quad + (lane >> 3), row = 8 * I + r;
        int64_t pos = 0, end = 0, t = 0, n = 0, voff = 0;
        if (I < trows) {
            voff = rp[8 * I];
            t = ptr ? ptr[I] : 0;
            if (row < rows) {
                pos = rp[row];
                end = rp[row + 1];
            }
        }
        for (;;) {
            const int32_t J = group_min(pos < end ? ci[pos] >> 3 : INT32_MAX);
            if (__all_sync(FULL, J == INT32_MAX)) break;
            uint64_t bits = 0;
            int64_t q = pos;
            for (; J != INT32_MAX && q < end && ci[q] >> 3 == J; q++)
                bits |= 1ull << (8 * r + (ci[q] & 7));
            bits = group_or(bits);
            if (J == INT32_MAX) continue;
            if (ptr) {
                if (r == 0) {
                    T.row[t] = (int32_t)I;
                    T.col[t] = J;
                    T.bits[t] = bits;
                    T.off[t] = voff;
                }
                for (int64_t k = pos; k < q; k++)
                    ((V *)T.val)[voff + spx__tile8_rank(bits, 8 * r + (ci[k] & 7))] = cv[k];
            }
            voff += spx__tile8_popc(bits);
            t++;
            n++;
            pos = q;
        }
        if (!ptr && r == 0 && I < trows) count[I] = n;
    }
}

void tiles_free(spx__cuda_tiles *T, cudaStream_t s)
{
    dev_free(T->ptr, s);
    dev_free(T->row, s);
    dev_free(T->col, s);
    dev_free(T->bits, s);
    dev_free(T->off, s);
    dev_free(T->val, s);
    *T = spx__cuda_tiles{};
}

template <typename V>
static spx_status build(const spx__cuda_csr *M, cudaStream_t s, spx__cuda_tiles *T)
{
    int64_t *count = NULL;
    const unsigned grid = blocks_for((T->trows + 3) / 4 * 32, BLOCK);
    spx_status st;
    SPX_TRY(dev_alloc_n(&T->ptr, T->trows + 1, "tsparse tile row offsets", s));
    SPX_TRY(dev_alloc_n(&count, T->trows, "tsparse tile counts", s));
    if (T->trows > 0) {
        tile_rows<V><<<grid, BLOCK, 0, s>>>(M->rows, T->trows, M->rowptr, M->colidx,
                                            (const V *)M->values, count, NULL, *T);
        SPX_TRY(launched("tsparse tile count kernel"));
    }
    SPX_TRY(exclusive_sum(count, T->ptr, T->trows, s));
    SPX_TRY(fetch_i64(T->ptr + T->trows, &T->ntiles, s));
    if (T->ntiles >= INT32_MAX) {
        st = spx__error(SPX_ERR_UNSUPPORTED, "tsparse: %lld tiles; at most 2^31 - 1",
                        (long long)T->ntiles);
        goto cleanup;
    }
    SPX_TRY(dev_alloc_n(&T->row, T->ntiles, "tsparse tile rows", s));
    SPX_TRY(dev_alloc_n(&T->col, T->ntiles, "tsparse tile columns", s));
    SPX_TRY(dev_alloc_n(&T->bits, T->ntiles, "tsparse tile bitmaps", s));
    SPX_TRY(dev_alloc_n(&T->off, T->ntiles, "tsparse tile offsets", s));
    SPX_TRY(dev_alloc_n((V **)&T->val, T->nnz, "tsparse tile values", s));
    if (T->trows > 0) {
        tile_rows<V><<<grid, BLOCK, 0, s>>>(M->rows, T->trows, M->rowptr, M->colidx,
                                            (const V *)M->values, NULL, T->ptr, *T);
        SPX_TRY(launched("tsparse tile kernel"));
    }
cleanup:
    dev_free(count, s);
    return st;
}

spx_status tiles_build(const spx__cuda_csr *M, cudaStream_t s, spx__cuda_tiles *T)
{
    spx_status st;
    *T = spx__cuda_tiles{};
    T->rows = M->rows;
    T->cols = M->cols;
    T->trows = (M->rows + 7) / 8;
    T->tcols = (M->cols + 7) / 8;
    T->nnz = M->nnz;
    if (T->trows >= INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED, "tsparse: %lld rows; at most 8 (2^31 - 1)",
                          (long long)M->rows);
    st = M->vtype == SPX_F16 ? build<__half>(M, s, T) : build<double>(M, s, T);
    if (st != SPX_OK) tiles_free(T, s);
    return st;
}

/* ------------------------------------------------------ tiles of C -> CSR */

/* first[L] = the first tile of C in tile row I0 + L (L = 0..ntr). */
__global__ void c_row_starts(int64_t n, const int32_t *__restrict__ row, int64_t I0, int64_t ntr,
                             int64_t *first)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t L = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; L <= ntr; L += stride) {
        int64_t lo = 0, hi = n;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (row[mid] < I0 + L) lo = mid + 1;
            else hi = mid;
        }
        first[L] = lo;
    }
}

static __device__ __forceinline__ int warp_sum(int v)
{
    for (int d = 16; d; d >>= 1) v += __shfl_xor_sync(FULL, v, d);
    return v;
}

static __device__ __forceinline__ int warp_inclusive(int v)
{
    const int lane = threadIdx.x & 31;
    for (int d = 1; d < 32; d <<= 1) {
        const int u = __shfl_up_sync(FULL, v, d);
        if (lane >= d) v += u;
    }
    return v;
}

/* count[8L + r] = entries of row r of tile row L (rows below nrows). */
__global__ void __launch_bounds__(BLOCK)
    c_row_counts(int64_t ntr, int64_t nrows, const int64_t *__restrict__ first,
                 const uint64_t *__restrict__ nz, int64_t *count)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * WARPS;
    for (int64_t L = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; L < ntr; L += stride) {
        int c[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int64_t t = first[L] + lane; t < first[L + 1]; t += 32) {
            const uint64_t x = nz[t];
#pragma unroll
            for (int r = 0; r < 8; r++) c[r] += __popc((unsigned)(x >> (8 * r)) & 0xffu);
        }
#pragma unroll
        for (int r = 0; r < 8; r++) {
            const int sum = warp_sum(c[r]);
            if (lane == r && 8 * L + r < nrows) count[8 * L + r] = sum;
        }
    }
}

/* Columns and values (times unscale, a power of two) of tile row L's rows
 * at their offsets rowptr. */
template <typename W>
__global__ void __launch_bounds__(BLOCK)
    c_fill(int64_t ntr, int64_t nrows, const int64_t *__restrict__ first, ctiles C,
           const int64_t *__restrict__ rowptr, double unscale, int32_t *ocol, double *oval)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * WARPS;
    for (int64_t L = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; L < ntr; L += stride) {
        int64_t base[8];
#pragma unroll
        for (int r = 0; r < 8; r++) base[r] = 8 * L + r < nrows ? rowptr[8 * L + r] : 0;
        for (int64_t t0 = first[L]; t0 < first[L + 1]; t0 += 32) {
            const int64_t t = t0 + lane;
            const uint64_t x = t < first[L + 1] ? C.nz[t] : 0;
            const uint64_t bits = x ? C.bits[t] : 0;
            const int64_t off = x ? C.off[t] : 0, j0 = x ? 8 * (int64_t)C.col[t] : 0;
#pragma unroll
            for (int r = 0; r < 8; r++) {
                unsigned byte = (unsigned)(x >> (8 * r)) & 0xffu;
                const int cnt = __popc(byte), incl = warp_inclusive(cnt);
                for (int64_t pos = base[r] + incl - cnt; byte; byte &= byte - 1, pos++) {
                    const int c = __ffs(byte) - 1;
                    ocol[pos] = (int32_t)(j0 + c);
                    oval[pos] =
                        unscale * (double)((const W *)C.val)[off + spx__tile8_rank(bits, 8 * r + c)];
                }
                base[r] += __shfl_sync(FULL, incl, 31);
            }
        }
    }
}

/* The rows of a panel of C: tile rows [I0, I0 + ntr), rows [8 I0, 8 I0 +
 * nrows). */
struct c_rows {
    int64_t I0, ntr, nrows;
    int64_t *first; /* ntr + 1: each tile row's first tile of C */
};

static c_rows rows_of(int64_t I0, int64_t I1, int64_t rows)
{
    const int64_t r0 = 8 * I0;
    return c_rows{I0, I1 - I0, (8 * I1 < rows ? 8 * I1 : rows) - r0, NULL};
}

/* R's tile rows' first tiles, its row offsets into rowptr (nrows + 1) and
 * their total in *nnz (waits). */
static spx_status c_offsets(const ctiles *C, c_rows *R, int64_t *rowptr, int64_t *nnz,
                            cudaStream_t s)
{
    int64_t *count = NULL;
    spx_status st;
    SPX_TRY(dev_alloc_n(&R->first, R->ntr + 1, "tsparse C tile rows", s));
    SPX_TRY(dev_alloc_n(&count, R->nrows, "tsparse C row counts", s));
    c_row_starts<<<blocks_for(R->ntr + 1, BLOCK), BLOCK, 0, s>>>(C->n, C->row, R->I0, R->ntr,
                                                                  R->first);
    SPX_TRY(launched("tsparse C tile rows"));
    if (R->nrows > 0) {
        c_row_counts<<<blocks_for(R->ntr * 32, BLOCK), BLOCK, 0, s>>>(R->ntr, R->nrows, R->first,
                                                                      C->nz, count);
        SPX_TRY(launched("tsparse C row counts"));
    }
    SPX_TRY(exclusive_sum(count, rowptr, R->nrows, s));
    SPX_TRY(fetch_i64(rowptr + R->nrows, nnz, s));
cleanup:
    dev_free(count, s);
    return st;
}

/* R's columns and values (times unscale) at their offsets rowptr (queued). */
static spx_status c_entries(const ctiles *C, const c_rows *R, const int64_t *rowptr,
                            spx_type precision, double unscale, int32_t *ocol, double *oval,
                            cudaStream_t s)
{
    const unsigned grid = blocks_for(R->ntr * 32, BLOCK);
    if (R->nrows == 0) return SPX_OK;
    if (precision == SPX_F16)
        c_fill<float><<<grid, BLOCK, 0, s>>>(R->ntr, R->nrows, R->first, *C, rowptr, unscale,
                                              ocol, oval);
    else
        c_fill<double><<<grid, BLOCK, 0, s>>>(R->ntr, R->nrows, R->first, *C, rowptr, unscale,
                                               ocol, oval);
    return launched("tsparse C to CSR");
}

spx_status ctiles_to_host(const ctiles *C, int64_t I0, int64_t I1, int64_t rows, int64_t cols,
                          spx_type precision, double unscale, cudaStream_t s, spx_matrix **piece)
{
    c_rows R = rows_of(I0, I1, rows);
    int64_t *rowptr = NULL, nnz = 0;
    int32_t *ocol = NULL;
    double *oval = NULL;
    spx_matrix *H = NULL;
    spx_status st;
    *piece = NULL;
    SPX_TRY(dev_alloc_n(&rowptr, R.nrows + 1, "tsparse C row offsets", s));
    SPX_TRY(c_offsets(C, &R, rowptr, &nnz, s));
    SPX_TRY(host_csr_alloc(R.nrows, cols, nnz, &H));
    SPX_TRY(dev_alloc_n(&ocol, nnz, "tsparse C columns", s));
    SPX_TRY(dev_alloc_n(&oval, nnz, "tsparse C values", s));
    SPX_TRY(c_entries(C, &R, rowptr, precision, unscale, ocol, oval, s));
    host_csr_touch(H); /* while c_fill runs */
    trace("tsparse: panel C tiles to CSR", s);
    SPX_TRY(csr_download(H, rowptr, ocol, oval, s));
    *piece = H;
    H = NULL;
cleanup:
    spx_matrix_destroy(H);
    dev_free(R.first, s);
    dev_free(rowptr, s);
    dev_free(ocol, s);
    dev_free(oval, s);
    return st;
}

/* n entries of T that become a device C's: from SpX's pool (pooled) or
 * cudaMalloc. */
template <typename T> static spx_status c_array(T **a, int64_t n, bool pooled, const char *what,
                                                cudaStream_t s)
{
    if (pooled) return dev_alloc_n(a, n, what, s);
    return spx__cuda_alloc((void **)a, (size_t)(n > 0 ? n : 1) * sizeof(T), what);
}

static void c_array_free(void *a, bool pooled, cudaStream_t s)
{
    if (pooled) dev_free(a, s);
    else spx__cuda_free(a);
}

spx_status ctiles_to_device(const ctiles *C, int64_t rows, int64_t cols, spx_type precision,
                            double unscale, cudaStream_t s, spx_matrix **D)
{
    const bool pooled = pool_kept();
    c_rows R = rows_of(0, (rows + 7) / 8, rows);
    int64_t *rowptr = NULL, nnz = 0;
    int32_t *ocol = NULL;
    double *oval = NULL;
    spx_status st;
    *D = NULL;
    SPX_TRY(c_array(&rowptr, rows + 1, pooled, "tsparse device C row offsets", s));
    SPX_TRY(c_offsets(C, &R, rowptr, &nnz, s));
    SPX_TRY(c_array(&ocol, nnz, pooled, "tsparse device C columns", s));
    SPX_TRY(c_array(&oval, nnz, pooled, "tsparse device C values", s));
    SPX_TRY(c_entries(C, &R, rowptr, precision, unscale, ocol, oval, s));
    SPX_TRY(cuda_ok(cudaStreamSynchronize(s), "tsparse device C"));
    trace("tsparse: C tiles to CSR on the device", s);
    st = spx__matrix_device_adopt(rows, cols, nnz, rowptr, ocol, oval, SPX_F64, pooled, D);
    rowptr = NULL; /* D's now, or freed by the adoption's failure */
    ocol = NULL;
    oval = NULL;
cleanup:
    dev_free(R.first, s);
    c_array_free(rowptr, pooled, s);
    c_array_free(ocol, pooled, s);
    c_array_free(oval, pooled, s);
    return st;
}

} // namespace spx_tsparse
