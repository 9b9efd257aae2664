/* AXC / AXT layouts from CSR (see axt.h for the layouts): count the slabs,
 * allocate, place each entry's value and column, write rwp / brp / hdr
 * (spx__axt_layout, shared by the CPU formats and the CUDA ones of
 * src/cuda/axt/, THW = a->thw: the CPU's vector lanes or 16 / 32 lanes of a
 * warp), then, for the CPU, split the units among threads (spx__axt_build).
 *
 * Entry k of row r (j = k - rowptr[r] its place in the row) goes to
 *   axc, uh1: slab first_slab(r) + j / THW, lane j % THW
 *   uh:       column c = first_column(r) + j / TH (tile c / THW, lane c % THW),
 *             slab tile*TH + j % TH
 *   ch1:      slab k / THW, lane k % THW (block k / BS)
 *   ch:       tile k / (TH*THW); q = k % (TH*THW): lane q / TH, slab tile*TH + q % TH
 * Headers (ch1, ch) mark the first entry of each row and of each block (ch1)
 * or column (ch): ((row + 1) << obits) | (entries after it in the segment).
 *
 * New values (spx__axt_refill) go where the entries went, found without A's
 * row offsets (the plan keeps none): ch1 and ch place entry k by k alone;
 * axc, uh1 and uh visit each row's entries in order, rows in order, when they
 * walk the slots slab by slab (axc, uh1) or lane column by lane column, down
 * each column (uh), so entry k is the k-th slot of that walk not holding
 * column -1 (padding). Each thread walks its spmv units from the entry they
 * start at, counted by the first refill and kept (ufirst). */
#include <omp.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cpu/axt.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Bits holding 0..n-1. */
static int bits_for(int64_t n)
{
    int b = 0;
    while ((INT64_C(1) << b) < n)
        b++;
    return b;
}

static void count_layout(const spx_matrix *A, const int64_t *rp, spx__axt *a)
{
    int64_t n = 0;
    switch (a->variant) {
    case SPX__AXC:
    case SPX__AXT_UH1:
        for (int64_t r = 0; r < A->rows; r++)
            n += ceil_div(rp[r + 1] - rp[r], a->thw);
        a->nslab = n;
        a->nunits = a->variant == SPX__AXC ? A->rows : n;
        a->unit_slabs = 1;
        break;
    case SPX__AXT_UH:
        for (int64_t r = 0; r < A->rows; r++)
            n += ceil_div(rp[r + 1] - rp[r], a->th);
        a->nunits = ceil_div(n, a->thw);
        a->unit_slabs = a->th;
        break;
    case SPX__AXT_CH1:
        a->nunits = ceil_div(A->nnz, a->bs);
        a->unit_slabs = a->bs / a->thw;
        a->obits = bits_for(a->bs);
        break;
    default:
        a->nunits = ceil_div(A->nnz, (int64_t)a->th * a->thw);
        a->unit_slabs = a->th;
        a->obits = bits_for(a->th);
        break;
    }
    if (a->variant != SPX__AXC && a->variant != SPX__AXT_UH1) a->nslab = a->nunits * a->unit_slabs;
}

static spx_status alloc_layout(spx__axt *a)
{
    spx_status st;
    size_t vals = (size_t)a->thw * a->vsize, idx = (size_t)a->thw * sizeof(int32_t);
    size_t cells;
    /* x=live: the column half is padded to whole values so values stay aligned. */
    a->sb = vals + (a->live ? (idx + a->vsize - 1) / a->vsize * a->vsize : vals);
    SPX_TRY(spx__mul_size((size_t)a->nslab, (size_t)a->thw, &cells, "axt slots"));
    const size_t slack = (SPX__AXT_PF_BYTES + a->sb - 1) / a->sb; /* slabs of prefetch slack */
    SPX_TRY(spx__calloc((void **)&a->ax, (size_t)a->nslab + slack, a->sb, "axt ax[]"));
    if (a->live) {
        for (int64_t s = 0; s < a->nslab; s++) {
            int32_t *c = (int32_t *)(a->ax + (size_t)s * a->sb + vals);
            for (int l = 0; l < a->thw; l++)
                c[l] = -1;
        }
    } else {
        SPX_TRY(spx__alloc((void **)&a->col, cells + SPX__AXT_PF_BYTES / sizeof(int32_t),
                           sizeof(int32_t), "axt refresh columns"));
        memset(a->col, 0xff, cells * sizeof(int32_t));
    }
    if (a->variant == SPX__AXT_UH1)
        SPX_TRY(spx__alloc((void **)&a->rwp, (size_t)a->nslab, sizeof(int32_t), "axt rwp[]"));
    if (a->variant == SPX__AXT_UH)
        SPX_TRY(spx__alloc((void **)&a->rwp, cells / (size_t)a->th, sizeof(int32_t), "axt rwp[]"));
    if (a->variant == SPX__AXT_CH1 || a->variant == SPX__AXT_CH)
        SPX_TRY(spx__calloc((void **)&a->hdr, cells, sizeof(uint32_t), "axt hdr[]"));
    if (a->variant == SPX__AXC)
        SPX_TRY(spx__alloc((void **)&a->brp, (size_t)a->rows + 1, sizeof(int64_t), "axc brp[]"));
    return SPX_OK;
cleanup:
    return st;
}

/* Entry k's value (in vals) into lane of slab. */
static void put_value(spx__axt *a, int64_t slab, int64_t lane, const unsigned char *vals, int64_t k)
{
    unsigned char *p = a->ax + (size_t)slab * a->sb;
    if (a->vsize == sizeof(double)) /* constant sizes: the copies become moves */
        memcpy(p + (size_t)lane * sizeof(double), vals + (size_t)k * sizeof(double),
               sizeof(double));
    else
        memcpy(p + (size_t)lane * sizeof(float), vals + (size_t)k * sizeof(float), sizeof(float));
}

/* Entry k of A (value in vals, column in ci) into lane of slab. */
static void put(spx__axt *a, int64_t slab, int64_t lane, const unsigned char *vals,
                const int32_t *ci, int64_t k)
{
    unsigned char *p = a->ax + (size_t)slab * a->sb;
    put_value(a, slab, lane, vals, k);
    if (a->live)
        memcpy(p + (size_t)a->thw * a->vsize + (size_t)lane * sizeof(int32_t), ci + k,
               sizeof(int32_t));
    else
        a->col[(size_t)slab * (size_t)a->thw + (size_t)lane] = ci[k];
}

/* start[r]: row r's first slab (axc, uh1) or lane column (uh); start[rows]: the total. */
static void row_starts(const spx_matrix *A, const int64_t *rp, const spx__axt *a, int64_t *start)
{
    int64_t per = a->variant == SPX__AXT_UH ? a->th : a->thw;
    start[0] = 0;
    for (int64_t r = 0; r < A->rows; r++)
        start[r + 1] = start[r] + ceil_div(rp[r + 1] - rp[r], per);
}

static void place_rows(const spx_matrix *A, const int64_t *rp, spx__axt *a,
                       const unsigned char *vals, const int64_t *start)
{
#pragma omp parallel for schedule(dynamic, 256) num_threads(a->nthreads)
    for (int64_t r = 0; r < A->rows; r++) {
        int64_t s = start[r];
        for (int64_t j = 0; j < rp[r + 1] - rp[r]; j++)
            put(a, s + j / a->thw, j % a->thw, vals, A->col32, rp[r] + j);
        for (int64_t q = s; a->rwp && q < start[r + 1]; q++)
            a->rwp[q] = (int32_t)r;
    }
    if (a->brp) memcpy(a->brp, start, ((size_t)A->rows + 1) * sizeof(int64_t));
}

static void place_uh(const spx_matrix *A, const int64_t *rp, spx__axt *a, const unsigned char *vals,
                     const int64_t *start)
{
    int64_t last = 0;
#pragma omp parallel for schedule(dynamic, 256) num_threads(a->nthreads)
    for (int64_t r = 0; r < A->rows; r++) {
        for (int64_t j = 0; j < rp[r + 1] - rp[r]; j++) {
            int64_t col = start[r] + j / a->th;
            put(a, col / a->thw * a->th + j % a->th, col % a->thw, vals, A->col32, rp[r] + j);
        }
        for (int64_t q = start[r]; q < start[r + 1]; q++)
            a->rwp[q] = (int32_t)r;
    }
    for (int64_t r = A->rows - 1; r > 0 && last == 0; r--)
        if (rp[r + 1] > rp[r]) last = r;
    for (int64_t c = start[A->rows]; c < a->nunits * a->thw; c++)
        a->rwp[c] = (int32_t)last;
}

/* Slot (slab * THW + lane) of packed entry e. */
static int64_t packed_slot(const spx__axt *a, int64_t e)
{
    if (a->variant == SPX__AXT_CH1) return e;
    int64_t tile = (int64_t)a->th * a->thw, q = e % tile;
    return (e / tile * a->th + q % a->th) * a->thw + q / a->th;
}

static void place_packed(const spx_matrix *A, const int64_t *rp, spx__axt *a,
                         const unsigned char *vals)
{
    int64_t seg = a->variant == SPX__AXT_CH1 ? a->bs : a->th;
#pragma omp parallel for schedule(static) num_threads(a->nthreads)
    for (int64_t k = 0; k < A->nnz; k++) {
        int64_t slot = packed_slot(a, k);
        put(a, slot / a->thw, slot % a->thw, vals, A->col32, k);
    }
#pragma omp parallel for schedule(dynamic, 256) num_threads(a->nthreads)
    for (int64_t r = 0; r < A->rows; r++)
        for (int64_t e = rp[r]; e < rp[r + 1];) {
            int64_t end = (e / seg + 1) * seg;
            if (end > rp[r + 1]) end = rp[r + 1];
            a->hdr[packed_slot(a, e)] = ((uint32_t)(r + 1) << a->obits) | (uint32_t)(end - 1 - e);
            e = end;
        }
}

/* The 32-bit column slots of slab s: its second half (x=live) or col[]. */
static const int32_t *slab_cols(const spx__axt *a, int64_t s)
{
    if (!a->live) return a->col + (size_t)s * (size_t)a->thw;
    return (const int32_t *)(const void *)(a->ax + (size_t)s * a->sb + (size_t)a->thw * a->vsize);
}

/* axc, uh1: entries of slabs [s0, s1), the first being entry k, and with
 * vals their values written. A row's entry j is at lane j % THW, so a slab's
 * entries fill its first lanes and padding the rest. */
static int64_t walk_slabs(spx__axt *a, int64_t s0, int64_t s1, const unsigned char *vals, int64_t k)
{
    for (int64_t s = s0; s < s1; s++) {
        const int32_t *c = slab_cols(a, s);
        int n = 0;
        while (n < a->thw && c[n] >= 0)
            n++;
        if (vals)
            memcpy(a->ax + (size_t)s * a->sb, vals + (size_t)k * a->vsize, (size_t)n * a->vsize);
        k += n;
    }
    return k;
}

/* uh: the same for tiles [t0, t1). Lane column l of a tile holds n[l]
 * consecutive entries of one row down its first slabs, padding after, and
 * the columns follow each other in entry order: column l's entry m is entry
 * base[l] + m. Both passes run slab by slab. */
static int64_t walk_tiles(spx__axt *a, int64_t t0, int64_t t1, const unsigned char *vals, int64_t k)
{
    int64_t n[SPX__AXT_MAX_THW], base[SPX__AXT_MAX_THW];
    for (int64_t t = t0; t < t1; t++) {
        for (int l = 0; l < a->thw; l++)
            n[l] = 0;
        for (int64_t m = 0; m < a->th; m++) {
            const int32_t *c = slab_cols(a, t * a->th + m);
            for (int l = 0; l < a->thw; l++)
                n[l] += c[l] >= 0;
        }
        for (int l = 0; l < a->thw; l++) {
            base[l] = k;
            k += n[l];
        }
        for (int64_t m = 0; vals && m < a->th; m++)
            for (int l = 0; l < a->thw; l++)
                if (m < n[l]) put_value(a, t * a->th + m, l, vals, base[l] + m);
    }
    return k;
}

/* axc, uh1, uh: thread t's units (as spmv splits them) walked from entry k. */
static int64_t walk_units(spx__axt *a, int t, const unsigned char *vals, int64_t k)
{
    const int64_t u0 = a->ubound[t], u1 = a->ubound[t + 1];
    if (a->variant == SPX__AXT_UH) return walk_tiles(a, u0, u1, vals, k);
    if (a->variant == SPX__AXC) return walk_slabs(a, a->brp[u0], a->brp[u1], vals, k);
    return walk_slabs(a, u0, u1, vals, k);
}

/* ch1, ch: thread t's units; entry k sits at packed_slot(k), here walked
 * slab by slab (ch1: THW consecutive entries; ch: lane l of slab m of tile t
 * holds entry t*TH*THW + l*TH + m). */
static void refill_packed(spx__axt *a, int t, const unsigned char *vals)
{
    const int64_t s0 = a->ubound[t] * a->unit_slabs, s1 = a->ubound[t + 1] * a->unit_slabs;
    const int64_t thw = a->thw, th = a->th;
    for (int64_t s = s0; s < s1; s++) {
        if (a->variant == SPX__AXT_CH1) {
            const int64_t k = s * thw, n = a->nnz - k < thw ? a->nnz - k : thw;
            if (n > 0)
                memcpy(a->ax + (size_t)s * a->sb, vals + (size_t)k * a->vsize,
                       (size_t)n * a->vsize);
            continue;
        }
        const int64_t k = s / th * th * thw + s % th;
        for (int64_t l = 0; l < thw && k + l * th < a->nnz; l++)
            put_value(a, s, l, vals, k + l * th);
    }
}

/* ufirst: the entry each thread's units start at, by a walk that counts. */
static spx_status count_firsts(spx__axt *a)
{
    const int T = a->nthreads;
    spx_status st = spx__alloc((void **)&a->ufirst, (size_t)T + 1, sizeof(int64_t), "axt refill");
    if (st != SPX_OK) return st;
    a->ufirst[0] = 0;
#pragma omp parallel num_threads(T)
    {
        const int nt = omp_get_num_threads();
        for (int t = omp_get_thread_num(); t < T; t += nt)
            a->ufirst[t + 1] = walk_units(a, t, NULL, 0);
    }
    for (int t = 0; t < T; t++)
        a->ufirst[t + 1] += a->ufirst[t];
    return SPX_OK;
}

spx_status spx__axt_refill(spx__axt *a, const void *vals)
{
    const int T = a->nthreads, packed = a->variant == SPX__AXT_CH1 || a->variant == SPX__AXT_CH;
    if (T == 0) return SPX_OK; /* no units: no entries */
    if (!packed && !a->ufirst) {
        spx_status st = count_firsts(a);
        if (st != SPX_OK) return st;
    }
#pragma omp parallel num_threads(T)
    {
        const int nt = omp_get_num_threads();
        for (int t = omp_get_thread_num(); t < T; t += nt) {
            if (packed)
                refill_packed(a, t, vals);
            else
                walk_units(a, t, vals, a->ufirst[t]);
        }
    }
    return SPX_OK;
}

int64_t spx__axt_unit_row(const spx__axt *a, int64_t u)
{
    switch (a->variant) {
    case SPX__AXC: return u;
    case SPX__AXT_UH1: return a->rwp[u];
    case SPX__AXT_UH: return a->rwp[u * a->thw];
    default: return (int64_t)(a->hdr[u * a->unit_slabs * a->thw] >> a->obits) - 1;
    }
}

/* Work before row r of axc: its slabs and one per row for the loop. */
static int64_t axc_work(const spx__axt *a, int64_t r)
{
    return a->brp[r] * a->thw + r;
}

/* Units [ubound[t], ubound[t+1]) to thread t: equal counts (equal stored
 * slots), or for axc rows of about equal work. */
static spx_status partition(spx__axt *a)
{
    spx_status st;
    int T = a->nthreads;
    if ((int64_t)T > a->nunits) T = (int)a->nunits;
    a->nthreads = T;
    SPX_TRY(spx__alloc((void **)&a->ubound, (size_t)T + 1, sizeof(int64_t), "axt partition"));
    SPX_TRY(spx__alloc((void **)&a->own, (size_t)T + 1, sizeof(int64_t), "axt partition"));
    if (T == 0) return SPX_OK;
    for (int t = 0; t <= T; t++) {
        if (a->variant != SPX__AXC) {
            a->ubound[t] = a->nunits / T * t + a->nunits % T * t / T;
            continue;
        }
        int64_t target = axc_work(a, a->rows) / T * t + axc_work(a, a->rows) % T * t / T;
        int64_t lo = 0, hi = a->rows;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (axc_work(a, mid) < target)
                lo = mid + 1;
            else
                hi = mid;
        }
        a->ubound[t] = lo;
    }
    for (int t = 0; t <= T; t++)
        a->own[t] = t == 0 ? 0 : t == T ? a->rows : spx__axt_unit_row(a, a->ubound[t]);
    return SPX_OK;
cleanup:
    return st;
}

void spx__axt_free_arrays(spx__axt *a)
{
    spx__free(a->ax);
    spx__free(a->col);
    spx__free(a->rwp);
    spx__free(a->hdr);
    spx__free(a->brp);
    spx__free(a->ubound);
    spx__free(a->own);
    spx__free(a->ufirst);
}

spx_status spx__axt_layout(const spx_matrix *A, spx__axt *a)
{
    spx_status st;
    const int64_t *rp;
    const void *vals = NULL;
    void *owned = NULL;
    int64_t *start = NULL;
    if ((st = spx__matrix_rowptr(A, &rp)) != SPX_OK) return st;
    a->rows = A->rows;
    a->cols = A->cols;
    a->nnz = A->nnz;
    count_layout(A, rp, a);
    if ((a->variant == SPX__AXT_UH1 || a->variant == SPX__AXT_UH) && A->rows > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED, "axt: %lld rows do not fit the 32-bit rwp[]",
                          (long long)A->rows);
    if ((a->variant == SPX__AXT_CH1 || a->variant == SPX__AXT_CH) &&
        (uint64_t)A->rows + 1 > (UINT32_MAX >> a->obits))
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "axt: %lld rows do not fit a 32-bit header with %d offset bits",
                          (long long)A->rows, a->obits);
    SPX_TRY(alloc_layout(a));
    SPX_TRY(spx__values_as(A, a->type, &vals, &owned));
    if (a->variant == SPX__AXC || a->variant == SPX__AXT_UH1 || a->variant == SPX__AXT_UH) {
        SPX_TRY(
            spx__alloc((void **)&start, (size_t)A->rows + 1, sizeof(int64_t), "axt row starts"));
        row_starts(A, rp, a, start);
    }
    if (a->variant == SPX__AXC || a->variant == SPX__AXT_UH1)
        place_rows(A, rp, a, vals, start);
    else if (a->variant == SPX__AXT_UH)
        place_uh(A, rp, a, vals, start);
    else
        place_packed(A, rp, a, vals);
    st = SPX_OK;
cleanup:
    spx__free(owned);
    spx__free(start);
    return st;
}

spx_status spx__axt_build(const spx_matrix *A, spx__axt *a)
{
    spx_status st = spx__axt_layout(A, a);
    return st == SPX_OK ? partition(a) : st;
}
