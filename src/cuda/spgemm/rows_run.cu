/* gpu-rows: the gateway and its pipeline (the method: rows.h). Rows are
 * binned by a bound (products, then entries of C): a kernel gives each row
 * its bin and counts the bins, CUB's radix sort on the bin (4 bits, stable)
 * lists the rows bin after bin, and each bin's kernel takes its slice of
 * the list. Rows needing global tables (symbolic: those that gave up in bin
 * 8; numeric: bin 8) get 2^ceil(log2(2 bound)) slots each, placed by a
 * prefix sum and run in chunks whose tables fit TABLE_SHARE of the free
 * device memory (at least one row a chunk). */
#include <cub/device/device_radix_sort.cuh>

#include "cuda/spgemm/rows_dev.cuh"

namespace spx_rows {

#define BLOCK 256
#define TABLE_SHARE 0.5
#define PANEL_SHARE 0.5 /* of the free device memory, at most, for a panel of C */

/* f[i] = sum over A(i,:) of the lengths of B's rows, a warp a row (lanes
 * over its entries): a thread a row left R-MAT 20's hub rows to one lane
 * each, 5.5 ms of an 86 ms product (run CK, H100). */
__global__ void row_products(int64_t m, csr_in A, const int64_t *__restrict__ brp, int64_t *f)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (BLOCK / 32);
    for (int64_t i = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; i < m; i += warps) {
        int64_t sum = 0;
        for (int64_t q = A.rp[i] + lane; q < A.rp[i + 1]; q += 32)
            sum += brp[A.col[q] + 1] - brp[A.col[q]];
        for (int d = 16; d > 0; d /= 2) sum += __shfl_down_sync(FULL, sum, d);
        if (lane == 0) f[i] = sum;
    }
}

/* Blocks for row_products over m rows: a warp a row. */
static unsigned row_product_blocks(int64_t m) { return blocks_for(m, BLOCK / 32); }

static __device__ __forceinline__ uint8_t bin_of(int64_t b)
{
    uint8_t k = 0;
    if (b > 0)
        for (k = 1; k < BIG && b > bin_bound(k); k++) {
        }
    return k;
}

/* For rows first + i, i < m: bin[i] of key[first + i], index[i] = first + i,
 * count[k] += rows of bin k, count[BINS + k] += their products f. */
__global__ void bin_rows(int64_t first, int64_t m, const int64_t *__restrict__ key,
                         const int64_t *__restrict__ f, uint8_t *bin, int32_t *index,
                         unsigned long long *count)
{
    __shared__ unsigned long long local[2 * BINS];
    if (threadIdx.x < 2 * BINS) local[threadIdx.x] = 0;
    __syncthreads();
    const int64_t stride = (int64_t)gridDim.x * BLOCK;
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < m; i += stride) {
        const uint8_t k = bin_of(key[first + i]);
        bin[i] = k;
        index[i] = (int32_t)(first + i);
        atomicAdd(&local[k], 1ull);
        atomicAdd(&local[BINS + k], (unsigned long long)f[first + i]);
    }
    __syncthreads();
    if (threadIdx.x < 2 * BINS && local[threadIdx.x])
        atomicAdd(&count[threadIdx.x], local[threadIdx.x]);
}

/* Slots of the global table of each listed row: the smallest power of two
 * >= 2 min(bound, cols), at least 2. */
__global__ void table_sizes(int64_t n, const int32_t *__restrict__ rows,
                            const int64_t *__restrict__ bound, int64_t cols, int64_t *size)
{
    const int64_t stride = (int64_t)gridDim.x * BLOCK;
    for (int64_t r = (int64_t)blockIdx.x * BLOCK + threadIdx.x; r < n; r += stride) {
        const int64_t b = bound[rows[r]], want = 2 * (b < cols ? b : cols);
        int64_t t = 2;
        while (t < want) t <<= 1;
        size[r] = t;
    }
}

/* Rows of A sorted by bin: rows[start[k] .. start[k + 1]) are bin k, and
 * products[k] the sum of their products. */
struct binned {
    int32_t *rows;
    int64_t start[BINS + 1];
    int64_t products[BINS];
};

/* Rows first .. first + m - 1 of A by their key (f: their products). */
static spx_status bin_by(const int64_t *key, const int64_t *f, int64_t first, int64_t m,
                         cudaStream_t s, binned *out)
{
    uint8_t *bin = NULL, *bin_sorted = NULL;
    int32_t *index = NULL;
    unsigned long long *count = NULL, host[2 * BINS];
    void *tmp = NULL;
    size_t bytes = 0;
    spx_status st;
    SPX_TRY(dev_alloc_n(&bin, m, "gpu-rows bins", s));
    SPX_TRY(dev_alloc_n(&bin_sorted, m, "gpu-rows bins", s));
    SPX_TRY(dev_alloc_n(&index, m, "gpu-rows row list", s));
    SPX_TRY(dev_alloc_n(&out->rows, m, "gpu-rows row list", s));
    SPX_TRY(dev_alloc_n(&count, 2 * BINS, "gpu-rows bin counts", s));
    SPX_TRY(cuda_ok(cudaMemsetAsync(count, 0, sizeof host, s), "gpu-rows bins"));
    bin_rows<<<blocks_for(m, BLOCK), BLOCK, 0, s>>>(first, m, key, f, bin, index, count);
    SPX_TRY(launched("gpu-rows bin kernel"));
    SPX_TRY(download(host, count, sizeof host, s));
    out->start[0] = 0;
    for (int k = 0; k < BINS; k++) {
        out->start[k + 1] = out->start[k] + (int64_t)host[k];
        out->products[k] = (int64_t)host[BINS + k];
    }
    SPX_TRY(cuda_ok(cub::DeviceRadixSort::SortPairs(NULL, bytes, bin, bin_sorted, index, out->rows,
                                                    m, 0, 4, s),
                    "gpu-rows bin sort"));
    SPX_TRY(dev_alloc(&tmp, bytes, "gpu-rows bin sort scratch", s));
    SPX_TRY(cuda_ok(cub::DeviceRadixSort::SortPairs(tmp, bytes, bin, bin_sorted, index, out->rows,
                                                    m, 0, 4, s),
                    "gpu-rows bin sort"));
cleanup:
    dev_free(tmp, s);
    dev_free(bin, s);
    dev_free(bin_sorted, s);
    dev_free(index, s);
    dev_free(count, s);
    return st;
}

/* Run the listed rows (J.rows, J.nrows) with global tables sized by bound,
 * in chunks that fit the memory. */
static spx_status run_global(hash_job J, const int64_t *bound, int64_t cols, bool numeric,
                             spx_type precision, cudaStream_t s)
{
    const size_t slot = sizeof(int32_t) + (numeric ? (precision == SPX_F32 ? 4 : 8) : 0);
    const int64_t n = J.nrows, budget = (int64_t)(TABLE_SHARE * (double)free_bytes() / slot);
    int64_t *size = NULL, *toff = NULL, *host = NULL;
    const int32_t *rows = J.rows;
    spx_status st;
    SPX_TRY(dev_alloc_n(&size, n, "gpu-rows table sizes", s));
    SPX_TRY(dev_alloc_n(&toff, n + 1, "gpu-rows table offsets", s));
    table_sizes<<<blocks_for(n, BLOCK), BLOCK, 0, s>>>(n, rows, bound, cols, size);
    SPX_TRY(launched("gpu-rows table sizes"));
    SPX_TRY(exclusive_sum(size, toff, n, s));
    SPX_TRY(spx__alloc((void **)&host, (size_t)n + 1, sizeof *host, "gpu-rows table offsets"));
    SPX_TRY(download(host, toff, ((size_t)n + 1) * sizeof *host, s));
    for (int64_t r0 = 0, r1; r0 < n; r0 = r1) {
        for (r1 = r0 + 1; r1 < n && host[r1 + 1] - host[r0] <= budget; r1++) {
        }
        J.rows = rows + r0;
        J.nrows = r1 - r0;
        J.toff = toff + r0;
        J.tbase = host[r0];
        SPX_TRY(dev_alloc_n(&J.gkeys, host[r1] - host[r0], "gpu-rows global tables", s));
        if (numeric) SPX_TRY(dev_alloc(&J.gvals, (host[r1] - host[r0]) * (slot - 4),
                                       "gpu-rows global sums", s));
        SPX_TRY(numeric ? numeric_global(J, precision, s) : symbolic_global(J, s));
        dev_free(J.gkeys, s);
        dev_free(J.gvals, s);
        J.gkeys = NULL;
        J.gvals = NULL;
    }
cleanup:
    dev_free(J.gkeys, s);
    dev_free(J.gvals, s);
    dev_free(size, s);
    dev_free(toff, s);
    spx__free(host);
    return st;
}

/* What a product keeps on the device. */
struct product {
    const spx__cuda_rows_plan *p;
    spx__cuda_csr B;     /* B on the device: uploaded, or a device B's view */
    bool device_c;       /* B a device matrix: C stays on the device (multiply_device) */
    bool pooled;         /* a device C's arrays from SpX's pool (pool=keep), else cudaMalloc */
    int64_t m, cols;
    bool dense; /* bin 8 with dense accumulators (rows_dense.cu) */
    int64_t *f, *cnt, *rowptr;
    int32_t *ccol;
    double *cval;
    int32_t *over;
    unsigned long long *n_over;
    cudaStream_t s;
};

static hash_job job_of(const product *x)
{
    hash_job J = {};
    J.A = {x->p->A.rowptr, x->p->A.colidx, x->p->A.values};
    J.B = {x->B.rowptr, x->B.colidx, x->B.values};
    J.cnt = x->cnt;
    J.over = x->over;
    J.n_over = x->n_over;
    J.rowptr = x->rowptr;
    J.ccol = x->ccol;
    J.cval = x->cval;
    J.sort_table = x->p->sort_table;
    return J;
}

/* cnt[i] = nnz(C(i,:)): bins 1..7 in shared memory; bin 8 with dense
 * bitmaps where B's columns fit one, else in shared memory and then, for
 * those that gave up, in global tables. */
static spx_status symbolic(product *x)
{
    const bool dense = x->dense;
    binned b = {};
    unsigned long long n_over = 0;
    spx_status st;
    hash_job J = job_of(x);
    SPX_TRY(bin_by(x->f, x->f, 0, x->m, x->s, &b));
    trace("rows: symbolic binning", x->s);
    SPX_TRY(cuda_ok(cudaMemsetAsync(x->cnt, 0, (size_t)x->m * sizeof *x->cnt, x->s), "gpu-rows"));
    SPX_TRY(dev_alloc_n(&x->over, b.start[BINS] - b.start[BIG], "gpu-rows long rows", x->s));
    SPX_TRY(dev_alloc_n(&x->n_over, 1, "gpu-rows long rows", x->s));
    SPX_TRY(cuda_ok(cudaMemsetAsync(x->n_over, 0, sizeof *x->n_over, x->s), "gpu-rows"));
    J = job_of(x);
    for (int k = 1; k < BINS; k++) {
        J.rows = b.rows + b.start[k];
        J.nrows = b.start[k + 1] - b.start[k];
        if (k == BIG && dense) SPX_TRY(symbolic_dense(J, x->cols, x->s));
        else SPX_TRY(symbolic_shared(k, J, x->s));
    }
    trace(dense ? "rows: symbolic, shared bins and dense" : "rows: symbolic, shared bins", x->s);
    SPX_TRY(download(&n_over, x->n_over, sizeof n_over, x->s));
    J.rows = x->over;
    J.nrows = (int64_t)n_over;
    if (n_over) SPX_TRY(run_global(J, x->f, x->cols, false, x->p->precision, x->s));
    trace("rows: symbolic, global tables", x->s);
cleanup:
    dev_free(b.rows, x->s);
    return st;
}

/* Whether a numeric bin of n rows and `products` products in all takes a
 * block of threads a row instead of a warp (rows_hash.cu): when its rows
 * average more than WIDE_PRODUCTS products and are too few for WIDE_ROWS
 * warps an SM. bcsstk28 squared (run AK, H100): 4410 rows of 2560 products
 * on average but 135 entries of C, so a warp a row (bins 3 and 4, 1480 and
 * 2816 rows) left 5 warps a scheduler, each running 80 rounds of products
 * and a 512-slot sort: 417 and 540 us of a 0.93 ms numeric phase. A block a
 * row, device to device (run AM, one process, run_ms): bcsstk28 1.445 ->
 * 1.01-1.11 ms, cavity19 0.92 -> 0.78-0.79, xenon1 2.32 -> 1.94-1.96,
 * TSOPF_RS_b39_c30 1.40 -> 1.23-1.25; less than the 5x I had predicted from
 * the occupancy: the kernel issues 18 instructions a product and lane. */
#define WIDE_PRODUCTS 512
#define WIDE_ROWS 64
static bool wide_rows(int64_t n, int64_t products)
{
    int dev = 0, sms = 0; /* the current device's (products may run on several) */
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return n > 0 && products > WIDE_PRODUCTS * n && n < (int64_t)WIDE_ROWS * (sms > 0 ? sms : 1);
}

/* Whether such a bin takes the dense accumulators (rows_dense.cu): where
 * B's columns allow them and wide=dense, or wide=auto and B has at most
 * WIDE_DENSE_COLS columns. Device to device on the H100, run_ms against a
 * block a row (run AM, one process): bcsstk28 (4410 columns) 0.722 ms
 * against 1.01-1.11, cavity19 (4562) 0.688 against 0.78-0.79; but sinc18
 * (16428) 4.16 against 4.00, xenon1 (48600) 2.23 against 1.94-1.96,
 * TSOPF_RS_b39_c30 (60098) 1.48 against 1.23-1.25: a row's pass over the
 * bitmap and its sums in shared memory grow with B's columns. */
#define WIDE_DENSE_COLS 8192
static bool wide_dense(const product *x)
{
    if (!x->dense) return false;
    if (x->p->wide == SPX__ROWS_WIDE_DENSE) return true;
    return x->p->wide == SPX__ROWS_WIDE_AUTO && x->cols <= WIDE_DENSE_COLS;
}

/* C's columns and values of rows [r0, r1) into ccol and cval from entry
 * cbase = rowptr[r0] on: bins 1..7 in shared memory, bin 8 with dense
 * accumulators where B's columns fit them, else in global tables. Bins 6
 * and 7 dense too (3f39f4d, B of at most 2^17 columns) did not pay on the
 * H100: cage11 13% slower, sinc18 even, in one process (run T of
 * bench/results/h100-2026-11-26.md); reverted. */
static const char *const numeric_bin_name[BINS] = {
    "",
    "rows: numeric bin 1 (<= 32)",
    "rows: numeric bin 2 (<= 64)",
    "rows: numeric bin 3 (<= 128)",
    "rows: numeric bin 4 (<= 256)",
    "rows: numeric bin 5 (<= 512)",
    "rows: numeric bin 6 (<= 1024)",
    "rows: numeric bin 7 (<= 2048)",
    "rows: numeric bin 8 (long rows)",
};
static spx_status numeric(product *x, int64_t r0, int64_t r1, int64_t cbase)
{
    binned b = {};
    spx_status st;
    hash_job J = job_of(x);
    J.cbase = cbase;
    SPX_TRY(bin_by(x->cnt, x->f, r0, r1 - r0, x->s, &b));
    trace("rows: numeric binning", x->s);
    for (int k = 1; k < BINS; k++) {
        J.rows = b.rows + b.start[k];
        J.nrows = b.start[k + 1] - b.start[k];
        const bool wide = x->p->wide != SPX__ROWS_WIDE_OFF && wide_rows(J.nrows, b.products[k]);
        if (k < BIG && wide && wide_dense(x))
            SPX_TRY(numeric_dense(J, x->cols, x->p->precision, x->p->rank, x->s));
        else if (k < BIG) SPX_TRY(numeric_shared(k, J, wide, x->p->precision, x->s));
        else if (x->dense) SPX_TRY(numeric_dense(J, x->cols, x->p->precision, x->p->rank, x->s));
        else if (J.nrows) SPX_TRY(run_global(J, x->cnt, x->cols, true, x->p->precision, x->s));
        trace(numeric_bin_name[k], x->s);
    }
cleanup:
    dev_free(b.rows, x->s);
    return st;
}

/* Entries of C a row panel may hold on the device: the plan's panel_nnz, or
 * what PANEL_SHARE of the free memory holds (a column and a value each). */
static int64_t panel_capacity(const product *x)
{
    if (x->p->panel_nnz > 0) return x->p->panel_nnz;
    const int64_t fit = (int64_t)(PANEL_SHARE * (double)free_bytes() /
                                  (sizeof(int32_t) + sizeof(double)));
    return fit > 1 ? fit : 1;
}

/* The end of the row panel starting at r0: as many rows as fit cap entries,
 * at least one. */
static int64_t panel_end(const int64_t *rowptr, int64_t m, int64_t r0, int64_t cap)
{
    int64_t r1 = r0 + 1;
    while (r1 < m && rowptr[r1 + 1] - rowptr[r0] <= cap) r1++;
    return r1;
}

/* The largest panel's entries (the device buffers' size). */
static int64_t largest_panel(const int64_t *rowptr, int64_t m, int64_t cap)
{
    int64_t most = 0;
    for (int64_t r0 = 0, r1; r0 < m; r0 = r1) {
        r1 = panel_end(rowptr, m, r0, cap);
        if (rowptr[r1] - rowptr[r0] > most) most = rowptr[r1] - rowptr[r0];
    }
    return most;
}

/* C's array of n entries of T: a device C's from SpX's pool (pool=keep) or
 * cudaMalloc (they become C's), a host C's device buffer from the pool. */
template <typename T> static spx_status c_alloc(const product *x, T **a, int64_t n, const char *what)
{
    if (x->device_c && !x->pooled)
        return spx__cuda_alloc((void **)a, (size_t)(n > 0 ? n : 1) * sizeof(T), what);
    return dev_alloc_n(a, n, what, x->s);
}

/* Steps 1-3: row products, symbolic phase, C's row offsets in x->rowptr
 * (c_alloc) and its size in *nnz. */
static spx_status count(product *x, int64_t *nnz)
{
    const spx__cuda_csr *A = &x->p->A;
    spx_status st;
    SPX_TRY(dev_alloc_n(&x->f, x->m, "gpu-rows row products", x->s));
    SPX_TRY(dev_alloc_n(&x->cnt, x->m, "gpu-rows row counts", x->s));
    SPX_TRY(c_alloc(x, &x->rowptr, x->m + 1, "gpu-rows C row offsets"));
    row_products<<<row_product_blocks(x->m), BLOCK, 0, x->s>>>(
        x->m, csr_in{A->rowptr, A->colidx, A->values}, x->B.rowptr, x->f);
    SPX_TRY(launched("gpu-rows row products"));
    trace("rows: row products", x->s);
    SPX_TRY(symbolic(x));
    SPX_TRY(exclusive_sum(x->cnt, x->rowptr, x->m, x->s));
    SPX_TRY(fetch_i64(x->rowptr + x->m, nnz, x->s));
cleanup:
    return st;
}

/* SPX_ERR_OOM for a device C that cannot be allocated whole: `why` says what
 * it passed. */
static spx_status c_does_not_fit(int64_t nnz, const char *why, long long limit)
{
    return spx__error(SPX_ERR_OOM,
                      "gpu-rows: C has %lld entries (%.3g GB), past %s (%lld); a device C (B a "
                      "device matrix) is allocated whole, not in row panels: multiply by a host "
                      "B for C on the host in panels",
                      (long long)nnz, (double)nnz * 12e-9, why, limit);
}

/* C's columns and values at their full size (c_alloc: they become C's). */
static spx_status device_c_alloc(product *x, int64_t nnz)
{
    spx_status st;
    if (x->p->panel_nnz > 0 && nnz > x->p->panel_nnz)
        return c_does_not_fit(nnz, "the entries panel_nnz lets on the device", x->p->panel_nnz);
    st = c_alloc(x, &x->ccol, nnz, "gpu-rows C columns");
    if (st == SPX_OK) st = c_alloc(x, &x->cval, nnz, "gpu-rows C values");
    if (st == SPX_ERR_OOM)
        return c_does_not_fit(nnz, "what the device could give (bytes free now)",
                              (long long)free_bytes());
    return st;
}

/* C = A*B into a new device matrix that owns x's rowptr, ccol and cval (x's
 * pointers cleared): one numeric pass over every row (cbase 0), then a wait
 * for the stream, so that C is complete when the caller has it. */
static spx_status multiply_device(product *x, spx_matrix **C)
{
    int64_t nnz = 0;
    spx_status st;
    SPX_TRY(count(x, &nnz));
    SPX_TRY(device_c_alloc(x, nnz));
    trace("rows: C's offsets and allocation", x->s);
    if (nnz > 0) SPX_TRY(numeric(x, 0, x->m, 0));
    SPX_TRY(cuda_ok(cudaStreamSynchronize(x->s), "gpu-rows product"));
    trace("rows: numeric, C on the device", x->s);
    __atomic_store_n(&((spx__cuda_rows_plan *)x->p)->last_panels, 1, __ATOMIC_RELAXED);
    st = spx__matrix_device_adopt(x->m, x->cols, nnz, x->rowptr, x->ccol, x->cval, SPX_F64,
                                  x->pooled, C);
    x->rowptr = NULL; /* C's now, or freed with it */
    x->ccol = NULL;
    x->cval = NULL;
cleanup:
    return st;
}

/* C = A*B into a new host matrix H, in row panels whose entries fit the
 * device (one panel unless C does not). H's row offsets come first; its
 * pages are touched by the host's cores while the GPU runs the first
 * panel's numeric phase, so the copies back write into memory already
 * faulted in (spx__parallel_touch); each panel's columns and values then
 * follow. */
static spx_status multiply(product *x, spx_matrix **C)
{
    spx_matrix *H = NULL;
    int64_t nnz = 0, cap = 0, panels = 0;
    spx_status st;
    SPX_TRY(count(x, &nnz));
    SPX_TRY(host_csr_alloc(x->m, x->cols, nnz, &H));
    SPX_TRY(download_to_host(H->rowptr, x->rowptr, ((size_t)x->m + 1) * sizeof *H->rowptr, x->s));
    cap = panel_capacity(x);
    {
        const int64_t most = largest_panel(H->rowptr, x->m, cap);
        SPX_TRY(dev_alloc_n(&x->ccol, most, "gpu-rows C columns", x->s));
        SPX_TRY(dev_alloc_n(&x->cval, most, "gpu-rows C values", x->s));
    }
    trace("rows: C's offsets and allocation", x->s);
    for (int64_t r0 = 0, r1; r0 < x->m; r0 = r1, panels++) {
        r1 = panel_end(H->rowptr, x->m, r0, cap);
        const int64_t c0 = H->rowptr[r0], n = H->rowptr[r1] - c0;
        SPX_TRY(numeric(x, r0, r1, c0));
        if (panels == 0 && x->p->prefault) host_csr_touch(H);
        trace("rows: numeric, C's host pages touched beside it", x->s);
        SPX_TRY(download_to_host(H->col32 + c0, x->ccol, (size_t)n * sizeof *x->ccol, x->s));
        SPX_TRY(download_to_host((double *)H->values + c0, x->cval, (size_t)n * sizeof(double),
                                 x->s));
        trace("rows: C to the host", x->s);
    }
    __atomic_store_n(&((spx__cuda_rows_plan *)x->p)->last_panels, (int)panels, __ATOMIC_RELAXED);
    *C = H;
    H = NULL;
cleanup:
    spx_matrix_destroy(H);
    return st;
}

/* B's pattern does not make C's (spx_spgemm_numeric). */
static spx_status pattern_differs(void)
{
    return spx__error(SPX_ERR_INVALID_ARG,
                      "gpu-rows: A*B has another pattern than C's: B's pattern is not the one "
                      "that made C (spx_spgemm_numeric)");
}

/* C's values again, C's pattern kept (spx_spgemm_numeric), without the
 * memo: C's row offsets give the rows' counts, except on a C not yet found
 * to be this plan's product for B's pattern (hash), where the symbolic
 * phase counts them and they must equal C's (else SPX_ERR_INVALID_ARG, C
 * untouched); then the numeric phase into C's arrays. x->rowptr, ccol and
 * cval are C's: the caller clears them. */
static spx_status multiply_again(product *x, spx_matrix *C, uint64_t hash)
{
    const spx__cuda_csr *A = &x->p->A;
    bool match = true;
    spx_status st;
    x->rowptr = (int64_t *)C->dev.rowptr;
    x->ccol = (int32_t *)C->dev.col32;
    x->cval = (double *)C->dev.values;
    SPX_TRY(dev_alloc_n(&x->f, x->m, "gpu-rows row products", x->s));
    SPX_TRY(dev_alloc_n(&x->cnt, x->m, "gpu-rows row counts", x->s));
    row_products<<<row_product_blocks(x->m), BLOCK, 0, x->s>>>(
        x->m, csr_in{A->rowptr, A->colidx, A->values}, x->B.rowptr, x->f);
    SPX_TRY(launched("gpu-rows row products"));
    if (C->numeric.serial == x->p->serial && C->numeric.hash == hash) {
        SPX_TRY(row_counts(x->rowptr, x->m, x->cnt, x->s));
    } else {
        SPX_TRY(symbolic(x));
        SPX_TRY(counts_match(x->cnt, x->rowptr, x->m, x->s, &match));
        trace("rows again: symbolic check of C's pattern", x->s);
    }
    if (!match) return pattern_differs();
    if (C->nnz > 0) SPX_TRY(numeric(x, 0, x->m, 0));
    SPX_TRY(cuda_ok(cudaStreamSynchronize(x->s), "gpu-rows product"));
    trace("rows again: numeric into C", x->s);
    C->numeric.serial = x->p->serial;
    C->numeric.hash = hash;
cleanup:
    return st;
}

/* spx_spgemm_numeric (rows.h): from C's memo where it is this plan's and
 * B's pattern hashes to its own; else B's hash, and a memo built for it
 * (which checks C's pattern) unless memo=off or it would not fit; else
 * multiply_again. */
static spx_status numeric_again(product *x, spx_matrix *C)
{
    const spx__cuda_csr &A = x->p->A;
    bool same = false, built = false, match = false;
    uint64_t hash = 0;
    spx_status st;
    if (C->numeric.memo && C->numeric.serial == x->p->serial) {
        SPX_TRY(memo_run(A, x->B, C, x->s, &same, &hash));
        trace("rows again: from the memo", x->s);
        if (same) return SPX_OK;
    } else {
        SPX_TRY(pattern_hash(x->B.rowptr, x->B.colidx, x->B.rows, x->B.nnz, x->s, &hash));
    }
    if (x->p->memo) {
        SPX_TRY(memo_build(A, x->B, C, x->s, &built, &match));
        trace("rows again: memo built", x->s);
        if (built && !match) return pattern_differs();
    }
    if (!built) return multiply_again(x, C, hash);
    C->numeric.serial = x->p->serial;
    C->numeric.hash = hash;
    SPX_TRY(memo_run(A, x->B, C, x->s, &same, &hash));
    if (!same) st = spx__error(SPX_ERR_DEVICE, "gpu-rows: B changed during spx_spgemm_numeric");
cleanup:
    return st;
}

} // namespace spx_rows

using namespace spx_rows;

/* C's arrays or buffers that x still holds (c_alloc's). */
static void free_c_buffers(product *x)
{
    void *c[] = {x->rowptr, x->ccol, x->cval};
    for (void *a : c)
        if (x->device_c && !x->pooled) spx__cuda_free(a);
        else dev_free(a, x->s);
}

/* x for a product of p by a B of `cols` columns; device_c: B a device
 * matrix, C one too. */
static spx_status product_setup(product *x, const spx__cuda_rows_plan *p, int64_t cols,
                                bool device_c)
{
    x->p = p;
    x->s = (cudaStream_t)p->stream;
    x->m = p->A.rows;
    x->cols = cols;
    x->device_c = device_c;
    x->pooled = p->pool_keep;
    x->dense = p->long_rows != SPX__ROWS_LONG_HASH && dense_fits(cols);
    if (p->long_rows == SPX__ROWS_LONG_DENSE && !x->dense)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "gpu-rows long=dense: B's %lld columns pass the dense bitmap's %lld",
                          (long long)cols, (long long)DENSE_MAX_COLS);
    if (device_c && cols > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED, "SpGEMM on cuda: C needs 32-bit columns");
    return SPX_OK;
}

/* The product's scratch back to the pool (and C's buffers that x holds). */
static void product_free(product *x)
{
    dev_free(x->f, x->s);
    dev_free(x->cnt, x->s);
    free_c_buffers(x);
    dev_free(x->over, x->s);
    dev_free(x->n_over, x->s);
}

extern "C" spx_status spx__cuda_rows_multiply(const spx__cuda_rows_plan *p, const spx_matrix *B,
                                              const spx__cuda_csr *Bdev, spx_matrix **C)
{
    product x = {};
    spx_status st;
    *C = NULL;
    if ((st = product_setup(&x, p, B->cols, Bdev != NULL)) != SPX_OK) return st;
    const bool kept = pool_keep(p->pool_keep); /* this thread's, back as it was at the end */
    trace_start();
    if (x.device_c) {
        x.B = *Bdev; /* the caller's (rows_format.c), read in place */
        /* B's view may come from kernels on the default stream (widened
         * offsets, converted values: they wait for them); a device matrix's
         * arrays are written before it was wrapped */
    } else {
        SPX_TRY(spx__cuda_csr_upload(B, p->precision, &x.B));
        /* the upload's copies run on the default stream; the product on the plan's */
        SPX_TRY(cuda_ok(cudaDeviceSynchronize(), "gpu-rows upload"));
        trace("rows: B upload", x.s);
    }
    SPX_TRY(x.device_c ? multiply_device(&x, C) : multiply(&x, C));
cleanup:
    product_free(&x);
    if (st == SPX_OK) st = cuda_ok(cudaStreamSynchronize(x.s), "gpu-rows product");
    if (st != SPX_OK) {
        spx_matrix_destroy(*C); /* the final wait failed */
        *C = NULL;
    }
    if (!x.device_c) spx__cuda_csr_free(&x.B);
    trace("rows: frees", x.s);
    pool_keep(kept);
    return st;
}

extern "C" spx_status spx__cuda_rows_numeric(const spx__cuda_rows_plan *p,
                                             const spx__cuda_csr *Bdev, spx_matrix *C)
{
    product x = {};
    spx_status st;
    if ((st = product_setup(&x, p, Bdev->cols, true)) != SPX_OK) return st;
    const bool kept = pool_keep(p->pool_keep);
    trace_start();
    x.B = *Bdev;
    st = numeric_again(&x, C);
    x.rowptr = NULL; /* C's */
    x.ccol = NULL;
    x.cval = NULL;
    product_free(&x);
    if (st == SPX_OK) st = cuda_ok(cudaStreamSynchronize(x.s), "gpu-rows product");
    pool_keep(kept);
    return st;
}

extern "C" size_t spx__cuda_rows_free_bytes(void) { return free_bytes(); }
