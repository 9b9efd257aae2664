/* gpu-rows' memo of a product for spx_spgemm_numeric: C = A*B again for a
 * B of the same pattern, from a list of each entry's products made once.
 *
 * The products of C = A*B are numbered p = aoff[q] + t for the t-th entry
 * of row k = col(a_q) of B (aoff: the prefix sum over A's entries q of
 * nnz(B(k,:))). Building the memo (the first call on a C for a plan and a B
 * pattern):
 *   1. aoff, and P, the number of products;
 *   2. each product's entry e of C: its column j found in C's sorted row i
 *      by binary search (a warp a row of A); a column not in C's row sets
 *      the mismatch flag;
 *   3. the products sorted by e (CUB's radix sort, stable: within an
 *      entry, in the order of A's columns k);
 *   4. poff[e], where entry e's products begin; an entry no product reaches
 *      is a mismatch too (every entry of C is reached: the symbolic
 *      pattern), so C's pattern is A*B's exactly when there is none;
 *   5. per sorted product, its entry of A (pa, found by binary search in
 *      aoff) and of B (pb); the entries of more than LONG products listed.
 * The memo is one device allocation: a slot for the per-call hash, poff
 * (nnz(C) + 1), pa and pb (P each), the long entries: 8 P + 4 nnz(C) bytes
 * and more. It is built only where P, nnz(C), nnz(A) and nnz(B) are below
 * 2^32 and the build's memory (24 P + 12 nnz(A) + 4 nnz(C) bytes and CUB's
 * scratch) is under MEMO_SHARE of the free device memory; else gpu-rows
 * runs its numeric phase (rows_run.cu).
 *
 * Each call: B's pattern hashed into the slot, then c_e = sum over the
 * entry's products of a[pa] * b[pb] (a thread an entry; a warp for the long
 * ones, its lanes' sums added in a fixed order), in a fixed order: C's
 * values come out the same, bit for bit, from call to call. The kernels
 * read the slot first and write nothing when the hash is not the memo's
 * (B of another pattern); the host reads it after them (the one wait). */
#include <cub/device/device_radix_sort.cuh>

#include "cuda/spgemm/rows_dev.cuh"

namespace spx_rows {

#define MEMO_BLOCK 256
#define MEMO_GRID 8192
#define MEMO_SHARE 0.6
#define LONG 64 /* products of an entry past which a warp sums it */

static unsigned memo_grid(int64_t n, int per_block)
{
    const int64_t b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > MEMO_GRID ? MEMO_GRID : b);
}

/* The memo's arrays within its allocation (the hash's HASH_WORDS words,
 * slot[0] its result, then uint32s). */
struct memo_view {
    unsigned long long *slot;
    uint32_t *poff, *pa, *pb, *longs;
};

static memo_view view_of(void *memo, int64_t nnz_c, int64_t products)
{
    memo_view v;
    v.slot = (unsigned long long *)memo;
    v.poff = (uint32_t *)(v.slot + HASH_WORDS);
    v.pa = v.poff + nnz_c + 1;
    v.pb = v.pa + products;
    v.longs = v.pb + products;
    return v;
}

static size_t memo_bytes(int64_t nnz_c, int64_t products, int64_t n_long)
{
    return HASH_WORDS * sizeof(unsigned long long) +
           sizeof(uint32_t) * (size_t)(nnz_c + 1 + 2 * products + n_long);
}

/* blen[q] = nnz(B(col(a_q), :)). */
__global__ void b_lengths(int64_t nnz_a, const int32_t *__restrict__ acol,
                          const int64_t *__restrict__ brp, int64_t *blen)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < nnz_a; q += stride)
        blen[q] = brp[acol[q] + 1] - brp[acol[q]];
}

/* Step 2, a warp a row of A: key[p] = the entry of C product p lands on,
 * val[p] = p; *bad = 1 for a column missing from C's row. */
__global__ void place_products(int64_t m, csr_in A, const int64_t *__restrict__ brp,
                               const int32_t *__restrict__ bcol, const int64_t *__restrict__ crp,
                               const int32_t *__restrict__ ccol, const int64_t *__restrict__ aoff,
                               uint32_t *key, uint32_t *val, int *bad)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; i < m; i += warps) {
        const int64_t c0 = crp[i], c1 = crp[i + 1];
        for (int64_t q = A.rp[i]; q < A.rp[i + 1]; q++) {
            const int64_t b0 = brp[A.col[q]], len = brp[A.col[q] + 1] - b0, base = aoff[q];
            for (int64_t t = lane; t < len; t += 32) {
                const int32_t j = bcol[b0 + t];
                int64_t lo = c0, hi = c1;
                while (lo < hi) {
                    const int64_t mid = (lo + hi) / 2;
                    if (ccol[mid] < j) lo = mid + 1;
                    else hi = mid;
                }
                if (lo == c1 || ccol[lo] != j) *bad = 1;
                key[base + t] = (uint32_t)lo;
                val[base + t] = (uint32_t)(base + t);
            }
        }
    }
}

/* Step 4 over the sorted keys: poff[e] = the first product of entry e, the
 * entries reached counted; poff[nnz_c] = P. */
__global__ void first_of_runs(int64_t products, int64_t nnz_c, const uint32_t *__restrict__ key,
                              uint32_t *poff, unsigned long long *reached)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s < products; s += stride)
        if (s == 0 || key[s] != key[s - 1]) {
            poff[key[s]] = (uint32_t)s;
            atomicAdd(reached, 1ull);
        }
    if (blockIdx.x == 0 && threadIdx.x == 0) poff[nnz_c] = (uint32_t)products;
}

/* Step 5: the sorted product numbers as entries of A and of B. */
__global__ void to_sources(int64_t products, int64_t nnz_a, const uint32_t *__restrict__ sorted,
                           const int64_t *__restrict__ aoff, const int32_t *__restrict__ acol,
                           const int64_t *__restrict__ brp, uint32_t *pa, uint32_t *pb)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s < products; s += stride) {
        const int64_t p = sorted[s];
        int64_t lo = 0, hi = nnz_a; /* the last q with aoff[q] <= p: a non-empty range */
        while (lo < hi) {
            const int64_t mid = (lo + hi + 1) / 2;
            if (aoff[mid] <= p) lo = mid;
            else hi = mid - 1;
        }
        pa[s] = (uint32_t)lo;
        pb[s] = (uint32_t)(brp[acol[lo]] + (p - aoff[lo]));
    }
}

/* The entries of more than LONG products into longs (count in *n). */
__global__ void list_long(int64_t nnz_c, const uint32_t *__restrict__ poff, uint32_t *longs,
                          unsigned long long *n)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz_c; e += stride)
        if (poff[e + 1] - poff[e] > LONG) {
            const unsigned long long k = atomicAdd(n, 1ull);
            if (longs) longs[k] = (uint32_t)e;
        }
}

/* c_e = sum over the entry's products of a[pa] * b[pb], in list order:
 * blocks [0, short_blocks) take the entries of at most LONG products, a
 * thread each; the blocks past them the n_long listed ones, a warp each
 * (lane l sums products l, l + 32, ..., the lanes' sums then added by a
 * fixed tree). Nothing when *slot (B's pattern hash) is not `expect`. */
__global__ void sum_products(int64_t nnz_c, int64_t n_long, unsigned short_blocks,
                             const uint32_t *__restrict__ poff, const uint32_t *__restrict__ longs,
                             const uint32_t *__restrict__ pa, const uint32_t *__restrict__ pb,
                             const double *__restrict__ av, const double *__restrict__ bv,
                             double *cv, const unsigned long long *slot, unsigned long long expect)
{
    if (*slot != expect) return;
    if (blockIdx.x < short_blocks) {
        const int64_t stride = (int64_t)short_blocks * blockDim.x;
        for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz_c; e += stride) {
            const uint32_t t0 = poff[e], t1 = poff[e + 1];
            if (t1 - t0 > LONG) continue;
            double sum = 0.0;
            for (uint32_t t = t0; t < t1; t++)
                sum += av[pa[t]] * bv[pb[t]];
            cv[e] = sum;
        }
        return;
    }
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)(gridDim.x - short_blocks) * (blockDim.x / 32);
    for (int64_t w = ((int64_t)(blockIdx.x - short_blocks) * blockDim.x + threadIdx.x) / 32;
         w < n_long; w += warps) {
        const uint32_t e = longs[w];
        double sum = 0.0;
        for (uint32_t t = poff[e] + lane; t < poff[e + 1]; t += 32)
            sum += av[pa[t]] * bv[pb[t]];
        for (int d = 16; d > 0; d /= 2)
            sum += __shfl_down_sync(FULL, sum, d);
        if (lane == 0) cv[e] = sum;
    }
}

/* Scratch of one build, freed on every path. */
struct build_scratch {
    cudaStream_t s;
    int64_t *blen = NULL, *aoff = NULL;
    uint32_t *key = NULL, *val = NULL, *key2 = NULL, *val2 = NULL, *poff = NULL;
    void *cub = NULL;
    int *bad = NULL;
    unsigned long long *count = NULL;
    explicit build_scratch(cudaStream_t stream) : s(stream) {}
    ~build_scratch()
    {
        void *a[] = {blen, aoff, key, val, key2, val2, poff, cub, bad, count};
        for (void *p : a)
            dev_free(p, s);
    }
};

static int key_bits(int64_t n)
{
    int b = 1;
    while (b < 32 && ((int64_t)1 << b) < n) b++;
    return b;
}

/* Step 1: aoff and *products. */
static spx_status count_products(const spx__cuda_csr &A, const spx__cuda_csr &B,
                                 build_scratch &w, int64_t *products)
{
    spx_status st;
    SPX_TRY(dev_alloc_n(&w.blen, A.nnz, "gpu-rows memo", w.s));
    SPX_TRY(dev_alloc_n(&w.aoff, A.nnz + 1, "gpu-rows memo", w.s));
    b_lengths<<<memo_grid(A.nnz, MEMO_BLOCK), MEMO_BLOCK, 0, w.s>>>(A.nnz, A.colidx, B.rowptr,
                                                                    w.blen);
    SPX_TRY(launched("gpu-rows memo"));
    SPX_TRY(exclusive_sum(w.blen, w.aoff, A.nnz, w.s));
    SPX_TRY(fetch_i64(w.aoff + A.nnz, products, w.s));
cleanup:
    return st;
}

/* Whether the memo is built: every count under 2^32, the build's memory
 * under MEMO_SHARE of the free memory (*cub_bytes: the sort's scratch). */
static spx_status memo_fits(const spx__cuda_csr &A, const spx__cuda_csr &B, int64_t nnz_c,
                            int64_t products, size_t *cub_bytes, bool *fits)
{
    const int64_t lim = (int64_t)UINT32_MAX - 1;
    *fits = false;
    if (A.nnz > lim || B.nnz > lim || nnz_c > lim || products > lim) return SPX_OK;
    uint32_t *none = NULL;
    spx_status st = cuda_ok(cub::DeviceRadixSort::SortPairs(NULL, *cub_bytes, none, none, none, none,
                                                           products, 0, key_bits(nnz_c + 1)),
                            "gpu-rows memo sort");
    const double need = 24.0 * (double)products + 4.0 * (double)nnz_c + (double)*cub_bytes;
    *fits = st == SPX_OK && need <= MEMO_SHARE * (double)free_bytes();
    return st;
}

/* Step 2: each product's entry of C (key) and number (val), the mismatch
 * flag. */
static spx_status place(const spx__cuda_csr &A, const spx__cuda_csr &B, const spx_matrix *C,
                        int64_t products, build_scratch &w)
{
    spx_status st;
    SPX_TRY(dev_alloc_n(&w.key, products, "gpu-rows memo", w.s));
    SPX_TRY(dev_alloc_n(&w.val, products, "gpu-rows memo", w.s));
    SPX_TRY(dev_alloc_n(&w.bad, 1, "gpu-rows memo", w.s));
    SPX_TRY(cuda_ok(cudaMemsetAsync(w.bad, 0, sizeof *w.bad, w.s), "gpu-rows memo"));
    place_products<<<memo_grid(A.rows, MEMO_BLOCK / 32), MEMO_BLOCK, 0, w.s>>>(
        A.rows, csr_in{A.rowptr, A.colidx, A.values}, B.rowptr, B.colidx,
        (const int64_t *)C->dev.rowptr, C->dev.col32, w.aoff, w.key, w.val, w.bad);
    SPX_TRY(launched("gpu-rows memo"));
cleanup:
    return st;
}

/* Steps 3-4: sorted by entry, poff, and whether every entry was reached
 * and no product fell outside C's pattern. */
static spx_status sort_and_check(int64_t products, int64_t nnz_c, size_t cub_bytes,
                                 build_scratch &w, bool *match)
{
    unsigned long long reached = 0;
    int bad = 0;
    spx_status st;
    SPX_TRY(dev_alloc_n(&w.key2, products, "gpu-rows memo", w.s));
    SPX_TRY(dev_alloc_n(&w.val2, products, "gpu-rows memo", w.s));
    SPX_TRY(dev_alloc((void **)&w.cub, cub_bytes, "gpu-rows memo sort", w.s));
    SPX_TRY(cuda_ok(cub::DeviceRadixSort::SortPairs(w.cub, cub_bytes, w.key, w.key2, w.val,
                                                    w.val2, products, 0,
                                                    key_bits(nnz_c + 1), w.s),
                    "gpu-rows memo sort"));
    SPX_TRY(dev_alloc_n(&w.poff, nnz_c + 1, "gpu-rows memo", w.s));
    SPX_TRY(dev_alloc_n(&w.count, 1, "gpu-rows memo", w.s));
    SPX_TRY(cuda_ok(cudaMemsetAsync(w.count, 0, sizeof *w.count, w.s), "gpu-rows memo"));
    first_of_runs<<<memo_grid(products, MEMO_BLOCK), MEMO_BLOCK, 0, w.s>>>(products, nnz_c, w.key2,
                                                                           w.poff, w.count);
    SPX_TRY(launched("gpu-rows memo"));
    SPX_TRY(download(&reached, w.count, sizeof reached, w.s));
    SPX_TRY(download(&bad, w.bad, sizeof bad, w.s));
    *match = !bad && (int64_t)reached == nnz_c;
cleanup:
    return st;
}

/* Step 5 into a new memo allocation, which C then holds (its old one freed). */
static spx_status fill_memo(const spx__cuda_csr &A, const spx__cuda_csr &B, spx_matrix *C,
                            int64_t products, build_scratch &w)
{
    const int64_t nnz_c = C->nnz;
    unsigned long long n_long = 0;
    void *memo = NULL;
    spx_status st;
    if (!w.count) SPX_TRY(dev_alloc_n(&w.count, 1, "gpu-rows memo", w.s));
    SPX_TRY(cuda_ok(cudaMemsetAsync(w.count, 0, sizeof *w.count, w.s), "gpu-rows memo"));
    list_long<<<memo_grid(nnz_c, MEMO_BLOCK), MEMO_BLOCK, 0, w.s>>>(nnz_c, w.poff, NULL, w.count);
    SPX_TRY(launched("gpu-rows memo"));
    SPX_TRY(download(&n_long, w.count, sizeof n_long, w.s));
    SPX_TRY(spx__cuda_alloc(&memo, memo_bytes(nnz_c, products, (int64_t)n_long),
                            "gpu-rows memo of C's products"));
    {
        const memo_view v = view_of(memo, nnz_c, products);
        SPX_TRY(cuda_ok(cudaMemsetAsync(v.slot, 0, HASH_WORDS * sizeof *v.slot, w.s),
                        "gpu-rows memo"));
        SPX_TRY(cuda_ok(w.poff ? cudaMemcpyAsync(v.poff, w.poff,
                                                 sizeof(uint32_t) * (size_t)(nnz_c + 1),
                                                 cudaMemcpyDeviceToDevice, w.s)
                               : cudaMemsetAsync(v.poff, 0, sizeof *v.poff, w.s), /* C empty */
                        "gpu-rows memo"));
        to_sources<<<memo_grid(products, MEMO_BLOCK), MEMO_BLOCK, 0, w.s>>>(
            products, A.nnz, w.val2, w.aoff, A.colidx, B.rowptr, v.pa, v.pb);
        SPX_TRY(launched("gpu-rows memo"));
        SPX_TRY(cuda_ok(cudaMemsetAsync(w.count, 0, sizeof *w.count, w.s), "gpu-rows memo"));
        list_long<<<memo_grid(nnz_c, MEMO_BLOCK), MEMO_BLOCK, 0, w.s>>>(nnz_c, v.poff, v.longs,
                                                                        w.count);
        SPX_TRY(launched("gpu-rows memo"));
        SPX_TRY(cuda_ok(cudaStreamSynchronize(w.s), "gpu-rows memo"));
    }
    spx__cuda_free(C->numeric.memo);
    C->numeric.memo = memo;
    C->numeric.memo_bytes = memo_bytes(nnz_c, products, (int64_t)n_long);
    C->numeric.products = products;
    C->numeric.n_long = (int64_t)n_long;
    memo = NULL;
cleanup:
    spx__cuda_free(memo);
    return st;
}

spx_status memo_build(const spx__cuda_csr &A, const spx__cuda_csr &B, spx_matrix *C,
                      cudaStream_t s, bool *built, bool *match)
{
    build_scratch w(s);
    int64_t products = 0;
    size_t cub_bytes = 0;
    spx_status st = SPX_OK;
    *built = false;
    *match = false;
    SPX_TRY(count_products(A, B, w, &products));
    SPX_TRY(memo_fits(A, B, C->nnz, products, &cub_bytes, built));
    if (!*built) return SPX_OK;
    if (products == 0 || C->nnz == 0) { /* no sort: C empty exactly when no product */
        *match = products == 0 && C->nnz == 0;
        if (*match) st = fill_memo(A, B, C, 0, w);
        return st;
    }
    SPX_TRY(place(A, B, C, products, w));
    SPX_TRY(sort_and_check(products, C->nnz, cub_bytes, w, match));
    if (*match) SPX_TRY(fill_memo(A, B, C, products, w));
cleanup:
    return st;
}

spx_status memo_run(const spx__cuda_csr &A, const spx__cuda_csr &B, spx_matrix *C,
                    cudaStream_t s, bool *same, uint64_t *hash)
{
    const memo_view v = view_of(C->numeric.memo, C->nnz, C->numeric.products);
    const unsigned long long expect = C->numeric.hash;
    const int64_t n_long = C->numeric.n_long;
    const double *av = (const double *)A.values, *bv = (const double *)B.values;
    double *cv = (double *)C->dev.values;
    unsigned long long h = 0;
    spx_status st;
    SPX_TRY(pattern_hash_queue(B.rowptr, B.colidx, B.rows, B.nnz, v.slot, s));
    if (C->nnz > 0) {
        const unsigned short_blocks = memo_grid(C->nnz, MEMO_BLOCK),
                       long_blocks = n_long ? memo_grid(n_long, MEMO_BLOCK / 32) : 0;
        sum_products<<<short_blocks + long_blocks, MEMO_BLOCK, 0, s>>>(
            C->nnz, n_long, short_blocks, v.poff, v.longs, v.pa, v.pb, av, bv, cv, v.slot, expect);
        SPX_TRY(launched("gpu-rows numeric from the memo"));
    }
    SPX_TRY(download(&h, v.slot, sizeof h, s));
    *hash = (uint64_t)h;
    *same = h == expect;
cleanup:
    return st;
}

} // namespace spx_rows
