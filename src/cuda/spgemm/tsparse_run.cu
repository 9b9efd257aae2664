/* tsparse's gateway (tsparse.h): a matrix to tiles, and C = A*B panel by
 * panel.
 *
 * Panels. The tasks of every tile of A are counted first (8 bytes a tile of
 * A); their prefix sum at each tile row's first tile, copied to the host,
 * tells the tasks of any range of tile rows. A panel takes tile rows while
 * their tasks stay under TASK_SHARE of the device's free memory at
 * TASK_BYTES a task (the task list, its sort, and at most one tile of C a
 * task), and under params panel_rows= when given. An allocation that fails
 * for memory inside a panel frees the panel's buffers and halves its tile
 * rows (and every later panel's), down to one tile row; only a tile row of
 * C that does not fit the device alone fails. Each panel's rows of C come to
 * the host as a matrix of their own, joined at the end (one panel: that
 * matrix is C). */
#include <cuda_fp16.h>
#include <string.h>

extern "C" {
#include "cuda/spgemm/device_view.h"
}
#include "cuda/spgemm/tsparse_dev.cuh"

namespace spx_tsparse {

/* Bytes a task may cost at its peak: key and pair unsorted and sorted (24),
 * CUB's segmented sort scratch (about the same again), a head flag, and the
 * metadata of at most one tile of C (40). */
#define TASK_BYTES 96
#define TASK_SHARE 0.5

/* rowtask[I] = offset[ptr[I]], the first task of tile row I. */
__global__ void row_tasks(int64_t trows, const int64_t *__restrict__ ptr,
                          const int64_t *__restrict__ offset, int64_t *rowtask)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t I = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; I <= trows; I += stride)
        rowtask[I] = offset[ptr[I]];
}

/* What a product keeps while its panels run. */
struct product {
    const spx__cuda_tsparse_plan *p;
    spx__cuda_tiles B;
    int64_t *offset;   /* device, A.ntiles + 1 */
    int64_t *rowtask;  /* host, A.trows + 1 */
    int64_t cols;      /* of C */
    double unscale;    /* F16: 2^-(a_exp + b_exp); F64: 1 */
    bool device_c;     /* B a device matrix: C a device matrix, one panel */
    cudaStream_t s;
};

/* Rows [8 I0, 8 I1) of C, to the host. */
static spx_status run_panel(const product *x, int64_t I0, int64_t I1, spx_matrix **piece)
{
    const spx__cuda_tiles *A = &x->p->A;
    const int64_t a0 = x->p->ptr_host[I0], a1 = x->p->ptr_host[I1];
    const int64_t base = x->rowtask[I0], n = x->rowtask[I1] - base;
    const size_t val_bytes = x->p->precision == SPX_F16 ? sizeof(float) : sizeof(double);
    panel_tasks P = {};
    ctiles C = {};
    spx_status st;
    SPX_TRY(tasks_build(A, &x->B, I0, I1, a0, a1, x->offset, base, n, x->s, &P));
    trace("tsparse: panel tasks", x->s);
    SPX_TRY(ctiles_count(A, &x->B, &P, x->s, &C));
    trace("tsparse: panel C tiles count", x->s);
    SPX_TRY(dev_alloc(&C.val, (size_t)C.nvals * val_bytes, "tsparse C tile values", x->s));
    SPX_TRY(ctiles_multiply(A, &x->B, &P, x->p->precision, x->s, &C));
    trace("tsparse: panel multiply", x->s);
    tasks_free(&P, x->s);
    if (x->device_c)
        SPX_TRY(ctiles_to_device(&C, A->rows, x->cols, x->p->precision, x->unscale, x->s, piece));
    else
        SPX_TRY(ctiles_to_host(&C, I0, I1, A->rows, x->cols, x->p->precision, x->unscale, x->s,
                               piece));
    trace("tsparse: panel C CSR", x->s);
cleanup:
    tasks_free(&P, x->s);
    ctiles_free(&C, x->s);
    return st;
}

/* The end of the panel starting at tile row I0: as many tile rows as fit the
 * task budget and the cap, at least one. */
static int64_t panel_end(const product *x, int64_t I0, int64_t budget, int64_t cap)
{
    const int64_t trows = x->p->A.trows;
    int64_t I1 = I0 + 1;
    while (I1 < trows && I1 - I0 < cap && x->rowtask[I1 + 1] - x->rowtask[I0] <= budget) I1++;
    return I1;
}

/* C from the panels' rows: the only one, or all joined. */
static spx_status join(spx_matrix **pieces, int n, int64_t rows, int64_t cols, spx_matrix **C)
{
    int64_t nnz = 0, r = 0, k = 0;
    spx_matrix *M = NULL;
    spx_status st;
    if (n == 1) {
        *C = pieces[0];
        pieces[0] = NULL;
        return SPX_OK;
    }
    for (int q = 0; q < n; q++) nnz += pieces[q]->nnz;
    SPX_TRY(spx__matrix_alloc(rows, cols, nnz, SPX_F64, &M));
    M->rowptr[0] = 0;
    for (int q = 0; q < n; q++) {
        const spx_matrix *X = pieces[q];
        for (int64_t i = 0; i < X->rows; i++) M->rowptr[r + i + 1] = k + X->rowptr[i + 1];
        memcpy(M->col32 + k, X->col32, (size_t)X->nnz * sizeof *X->col32);
        memcpy((double *)M->values + k, X->values, (size_t)X->nnz * sizeof(double));
        r += X->rows;
        k += X->nnz;
    }
    *C = M;
cleanup:
    return st;
}

/* SPX_ERR_OOM for a device C whose product does not fit the device whole. */
static spx_status device_c_does_not_fit(const product *x)
{
    return spx__error(SPX_ERR_OOM,
                      "tsparse: the product's %lld tasks and C's tiles do not fit the device "
                      "(%.3g GB free); a device C (B a device matrix) is made in one panel: "
                      "multiply by a host B for C on the host in row panels",
                      (long long)x->rowtask[x->p->A.trows], (double)free_bytes() * 1e-9);
}

/* A device C: one panel of every tile row. */
static spx_status run_one_panel(product *x, spx_matrix **C, int *panels)
{
    spx_status st = run_panel(x, 0, x->p->A.trows, C);
    if (st == SPX_ERR_OOM) return device_c_does_not_fit(x);
    if (st == SPX_OK) *panels = 1;
    return st;
}

/* C = A*B over the panels; *panels their count. */
static spx_status run_panels(product *x, spx_matrix **C, int *panels)
{
    const spx__cuda_tsparse_plan *p = x->p;
    const int64_t trows = p->A.trows;
    int64_t cap = p->panel_rows > 0 ? (p->panel_rows + 7) / 8 : trows;
    int64_t budget = (int64_t)(TASK_SHARE * (double)free_bytes() / TASK_BYTES);
    spx_matrix **pieces = NULL;
    int n = 0;
    spx_status st;
    SPX_TRY(spx__calloc((void **)&pieces, (size_t)trows, sizeof *pieces, "tsparse panels"));
    for (int64_t I0 = 0; I0 < trows;) {
        const int64_t I1 = panel_end(x, I0, budget, cap);
        st = run_panel(x, I0, I1, &pieces[n]);
        if (st == SPX_ERR_OOM && I1 - I0 > 1) {
            cap = (I1 - I0) / 2;
            budget = (x->rowtask[I1] - x->rowtask[I0]) / 2;
            continue;
        }
        if (st != SPX_OK) goto cleanup;
        n++;
        I0 = I1;
    }
    SPX_TRY(join(pieces, n, p->A.rows, x->cols, C));
    trace("tsparse: join panels", x->s);
    *panels = n;
cleanup:
    for (int q = 0; pieces && q < n; q++) spx_matrix_destroy(pieces[q]);
    spx__free(pieces);
    return st;
}

} // namespace spx_tsparse

using namespace spx_tsparse;

/* out[k] = half of 2^e in[k]: a power of two, exact but for the rounding
 * to half (the caller checked that every value lands in half's range). */
__global__ void scaled_half(int64_t n, const double *__restrict__ in, int e, __half *out)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
        out[k] = __double2half(ldexp(in[k], e));
}

/* *h = half of 2^e v for the n fp64 values v (a new device array; on s). */
static spx_status half_copy(const void *v, int64_t n, int e, cudaStream_t s, void **h)
{
    spx_status st;
    SPX_TRY(spx__cuda_alloc(h, (size_t)n * sizeof(__half), "tsparse scaled values"));
    if (n > 0) {
        scaled_half<<<blocks_for(n, 256), 256, 0, s>>>(n, (const double *)v, e, (__half *)*h);
        SPX_TRY(launched("tsparse value scaling"));
    }
cleanup:
    return st;
}

/* d's values (fp64) replaced by half of 2^e v. */
static spx_status to_scaled_half(spx__cuda_csr *d, int e)
{
    void *h = NULL;
    spx_status st;
    SPX_TRY(half_copy(d->values, d->nnz, e, NULL, &h));
    spx__cuda_free(d->values);
    d->values = h;
    d->vtype = SPX_F16;
    h = NULL;
cleanup:
    spx__cuda_free(h);
    return st;
}

/* T = the tiles of a device matrix M, read in place (or widened and
 * converted: device_view.h), its values rounded to half of 2^e v for F16. */
static spx_status device_tiles(const spx_matrix *M, spx_type precision, int e, cudaStream_t s,
                               spx__cuda_tiles *T)
{
    spx__cuda_csr view, held, d;
    void *h = NULL;
    spx_status st;
    SPX_TRY(spx__cuda_device_view(M, "tsparse", &view, &held));
    d = view;
    if (precision == SPX_F16) {
        SPX_TRY(half_copy(view.values, view.nnz, e, s, &h));
        d.values = h;
        d.vtype = SPX_F16;
    }
    SPX_TRY(tiles_build(&d, s, T));
    SPX_TRY(cuda_ok(cudaStreamSynchronize(s), "tsparse tiles"));
cleanup:
    spx__cuda_csr_free(&held);
    spx__cuda_free(h);
    if (st != SPX_OK) tiles_free(T, s);
    return st;
}

/* The largest |v|, the smallest nonzero |v| and the first entry not finite
 * of n values: atomics on the bits of |v|, whose order is the order of the
 * values (non-negative doubles); lo starts at +infinity, bad at 2^63 - 1. */
template <typename V>
__global__ void value_range(int64_t n, const V *__restrict__ v, unsigned long long *hi,
                            unsigned long long *lo, unsigned long long *bad)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    unsigned long long h = 0, l = 0x7ff0000000000000ull;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        const double a = fabs((double)v[k]);
        if (!isfinite(a)) atomicMin(bad, (unsigned long long)k);
        const unsigned long long b = (unsigned long long)__double_as_longlong(a);
        if (isfinite(a) && b > h) h = b;
        if (a != 0.0 && b < l) l = b;
    }
    atomicMax(hi, h);
    atomicMin(lo, l);
}

extern "C" spx_status spx__cuda_tsparse_range(const spx_matrix *M, double *big, double *small,
                                              int64_t *bad)
{
    unsigned long long *r = NULL, h[3] = {0, 0x7ff0000000000000ull, 0x7fffffffffffffffull};
    spx_status st;
    const unsigned grid = blocks_for(M->nnz, 256) < 1024 ? blocks_for(M->nnz, 256) : 1024;
    SPX_TRY(spx__cuda_alloc((void **)&r, sizeof h, "tsparse value range"));
    SPX_TRY(cuda_ok(cudaMemcpy(r, h, sizeof h, cudaMemcpyHostToDevice), "tsparse value range"));
    if (M->nnz > 0) {
        if (M->vtype == SPX_F32)
            value_range<<<grid, 256>>>(M->nnz, (const float *)M->dev.values, r, r + 1, r + 2);
        else
            value_range<<<grid, 256>>>(M->nnz, (const double *)M->dev.values, r, r + 1, r + 2);
        SPX_TRY(launched("tsparse value range"));
    }
    SPX_TRY(cuda_ok(cudaMemcpy(h, r, sizeof h, cudaMemcpyDeviceToHost), "tsparse value range"));
    memcpy(big, &h[0], sizeof *big);
    memcpy(small, &h[1], sizeof *small);
    *bad = h[2] == 0x7fffffffffffffffull ? -1 : (int64_t)h[2];
cleanup:
    spx__cuda_free(r);
    return st;
}

/* Sampled block b (of n evenly spaced blocks of 8 rows, step apart): its
 * entries and its non-empty 8x8 tiles (a merge of its rows' sorted columns
 * by tile column, as spx__block_tiles8 on the host), one thread a block. */
template <typename O>
__global__ void sampled_tiles(int64_t rows, int64_t n, int64_t step, const O *__restrict__ rp,
                              const int32_t *__restrict__ col, unsigned long long *sums)
{
    const int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= n) return;
    const int64_t r0 = 8 * b * step, nr = r0 + 8 < rows ? 8 : rows - r0;
    int64_t pos[8], end[8], tiles = 0;
    for (int r = 0; r < nr; r++) pos[r] = (int64_t)rp[r0 + r], end[r] = (int64_t)rp[r0 + r + 1];
    for (;;) {
        int32_t t = INT32_MAX;
        for (int r = 0; r < nr; r++)
            if (pos[r] < end[r] && (col[pos[r]] >> 3) < t) t = col[pos[r]] >> 3;
        if (t == INT32_MAX) break;
        tiles++;
        for (int r = 0; r < nr; r++)
            while (pos[r] < end[r] && (col[pos[r]] >> 3) == t) pos[r]++;
    }
    atomicAdd(&sums[0], (unsigned long long)((int64_t)rp[r0 + nr] - (int64_t)rp[r0]));
    atomicAdd(&sums[1], (unsigned long long)tiles);
}

extern "C" spx_status spx__cuda_tsparse_sampled_density(const spx_matrix *M, int64_t samples,
                                                        double *density)
{
    const int64_t blocks = (M->rows + 7) / 8, step = blocks > samples ? blocks / samples : 1;
    const int64_t n = (blocks + step - 1) / step;
    unsigned long long *d = NULL, h[2] = {0, 0};
    spx_status st;
    *density = 0.0;
    if (n == 0) return SPX_OK;
    SPX_TRY(spx__cuda_alloc((void **)&d, sizeof h, "tsparse sampled tiles"));
    SPX_TRY(cuda_ok(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), "tsparse sampled tiles"));
    if (M->dev.rowptr_bits == 32)
        sampled_tiles<<<blocks_for(n, 64), 64>>>(M->rows, n, step, (const int32_t *)M->dev.rowptr,
                                                 M->dev.col32, d);
    else
        sampled_tiles<<<blocks_for(n, 64), 64>>>(M->rows, n, step, (const int64_t *)M->dev.rowptr,
                                                 M->dev.col32, d);
    SPX_TRY(launched("tsparse sampled tiles"));
    SPX_TRY(cuda_ok(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "tsparse sampled tiles"));
    *density = h[1] ? (double)h[0] / (double)h[1] : 0.0;
cleanup:
    spx__cuda_free(d);
    return st;
}

extern "C" spx_status spx__cuda_tsparse_tiles(const spx_matrix *M, spx_type precision, int e,
                                              void *stream, spx__cuda_tiles *T)
{
    spx__cuda_csr d = {};
    const bool scaled = precision == SPX_F16 && e != 0;
    spx_status st;
    *T = spx__cuda_tiles{};
    if (M->dev.on) return device_tiles(M, precision, e, (cudaStream_t)stream, T);
    SPX_TRY(spx__cuda_csr_upload(M, precision == SPX_F16 && !scaled ? SPX_F16 : SPX_F64, &d));
    if (scaled) SPX_TRY(to_scaled_half(&d, e));
    /* the upload's copies and the scaling run on the default stream and may
     * still be in flight for a pageable source: the tiles are built on the
     * plan's */
    SPX_TRY(cuda_ok(cudaDeviceSynchronize(), "tsparse upload"));
    SPX_TRY(tiles_build(&d, (cudaStream_t)stream, T));
    SPX_TRY(cuda_ok(cudaStreamSynchronize((cudaStream_t)stream), "tsparse tiles"));
cleanup:
    spx__cuda_csr_free(&d);
    if (st != SPX_OK) tiles_free(T, (cudaStream_t)stream);
    return st;
}

extern "C" void spx__cuda_tsparse_tiles_free(spx__cuda_tiles *T)
{
    tiles_free(T, NULL);
}

extern "C" spx_status spx__cuda_tsparse_multiply(const spx__cuda_tsparse_plan *p,
                                                 const spx_matrix *B, int b_exp, spx_matrix **C,
                                                 int *panels)
{
    product x = {};
    int64_t *rowtask_dev = NULL;
    spx_status st;
    *C = NULL;
    *panels = 0;
    x.p = p;
    x.s = (cudaStream_t)p->stream;
    x.cols = B->cols;
    x.unscale = p->precision == SPX_F16 ? ldexp(1.0, -(p->a_exp + b_exp)) : 1.0;
    x.device_c = B->dev.on;
    if (p->A.trows == 0 && x.device_c) { /* A has no rows: C has none, on the device */
        const ctiles none = {};
        return ctiles_to_device(&none, 0, B->cols, p->precision, 1.0, x.s, C);
    }
    if (p->A.trows == 0) { /* A has no rows */
        SPX_TRY(spx__matrix_alloc(0, B->cols, 0, SPX_F64, C));
        (*C)->rowptr[0] = 0;
        return SPX_OK;
    }
    trace_start();
    SPX_TRY(spx__cuda_tsparse_tiles(B, p->precision, b_exp, p->stream, &x.B));
    trace("tsparse: B upload and tiles", x.s);
    SPX_TRY(dev_alloc_n(&x.offset, p->A.ntiles + 1, "tsparse task offsets", x.s));
    SPX_TRY(task_offsets(&p->A, &x.B, x.s, x.offset));
    SPX_TRY(dev_alloc_n(&rowtask_dev, p->A.trows + 1, "tsparse tile row tasks", x.s));
    row_tasks<<<blocks_for(p->A.trows + 1, 256), 256, 0, x.s>>>(p->A.trows, p->A.ptr, x.offset,
                                                                rowtask_dev);
    SPX_TRY(launched("tsparse tile row tasks"));
    SPX_TRY(spx__alloc((void **)&x.rowtask, (size_t)p->A.trows + 1, sizeof *x.rowtask,
                       "tsparse tile row tasks"));
    SPX_TRY(download(x.rowtask, rowtask_dev, ((size_t)p->A.trows + 1) * sizeof *x.rowtask, x.s));
    dev_free(rowtask_dev, x.s);
    rowtask_dev = NULL;
    trace("tsparse: task offsets", x.s);
    SPX_TRY(x.device_c ? run_one_panel(&x, C, panels) : run_panels(&x, C, panels));
cleanup:
    dev_free(rowtask_dev, x.s);
    dev_free(x.offset, x.s);
    tiles_free(&x.B, x.s);
    spx__free(x.rowtask);
    if (st == SPX_OK) st = cuda_ok(cudaStreamSynchronize(x.s), "tsparse product");
    trace("tsparse: frees", x.s);
    return st;
}
