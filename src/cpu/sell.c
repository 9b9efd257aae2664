/* The `sell` format: SELL-C-sigma SpMV on the CPU, fp64 and fp32.
 *
 *   y = alpha*A*x + beta*y, A stored as chunks of C rows, rows sorted by
 *   decreasing length inside windows of sigma rows (layout in sell.h).
 *
 * Parameters: c = chunk height, a power of two up to 64 (default: the vector
 * width of the best kernel, 8 for fp64 and 16 for fp32 on AVX-512, 4 and 8 on
 * AVX2); sigma = sorting window in rows (default 4096: on power-law rows 256
 * leaves too much padding, a whole-matrix sort scatters x; 1 keeps the row
 * order and drops the permutation); isa = scalar|avx2|avx512 (default: what the
 * CPU has); long = length above which a row is summed apart from the chunks
 * (default max(4096, 256 * mean row length); 0: never); xpf = 1 prefetches
 * x through the columns ahead (default 0: about 10% faster on a circuit-like
 * matrix with 48 MB of x read at random, no gain on R-MAT scale 20;
 * bench/results/cpu-large-2026-11-22.md); values=auto|stored|iso (default
 * auto: a matrix whose values are all one number, spx_matrix_iso, is stored
 * without values and multiplied as y = (alpha * v) * (pattern(A) x) + beta * y;
 * iso on a matrix that is not iso is SPX_ERR_BAD_PARAM; core/iso.h).
 * A SIMD kernel serves C multiples of its width; otherwise a lower ISA's
 * kernel, down to the portable one, is used. describe() gives the occupancy
 * beta = nonzeros in chunks / stored elements. Threads share chunks by stored
 * elements plus rows, then the long rows' elements evenly.
 *
 * New values (spx_plan_update_values) are written where analyze put A's: the
 * plan keeps no copy of A's row offsets, so the update rebuilds them (rows+1
 * offsets, freed after) from the row lengths it keeps, rowlen through perm
 * and the long rows' long_ptr, rather than hold a slot map (4-8 bytes per
 * stored element) for the plan's life. An iso plan takes one number in place
 * and varied values into arrays of its own from then on (values=iso refuses
 * them).
 */
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/iso.h"
#include "core/matrix.h"
#include "cpu/isa.h"
#include "cpu/sell.h"
#include "plan/format.h"

#define SELL_SIGMA_DEFAULT 4096
/* Below this many stored elements plus rows (rows to sort) one thread does the
 * product (the sort): a parallel region costs more than the work. */
#define SELL_PARALLEL_MIN 32768
/* A row costs about as much as this many stored elements (y, perm, rowlen). */
#define SELL_ROW_COST 2
/* Windows whose row lengths span fewer values than this are counting-sorted. */
#define SELL_BUCKETS 64
/* Default long-row length: at least this, and this many times the mean. */
#define SELL_LONG_MIN 4096
#define SELL_LONG_MEANS 256

typedef struct sell_params {
    long C, sigma, isa; /* 0: default */
    long lng;           /* -1: default */
    long xpf;           /* -1: default */
    spx__values_mode values;
} sell_params;

static spx_status sell_param(void *ctx, const char *key, const char *value)
{
    sell_params *p = ctx;
    if (strcmp(key, "c") == 0) {
        spx_status st = spx__param_int(key, value, 1, SPX__SELL_CMAX, &p->C);
        if (st == SPX_OK && (p->C & (p->C - 1)))
            return spx__error(SPX_ERR_BAD_PARAM, "sell: c=%ld is not a power of two", p->C);
        return st;
    }
    if (strcmp(key, "sigma") == 0) return spx__param_int(key, value, 1, INT32_MAX, &p->sigma);
    if (strcmp(key, "long") == 0) return spx__param_int(key, value, 0, INT32_MAX, &p->lng);
    if (strcmp(key, "xpf") == 0) return spx__param_int(key, value, 0, 1, &p->xpf);
    if (strcmp(key, "values") == 0) return spx__param_values("sell", value, &p->values);
    if (strcmp(key, "isa") == 0) {
        p->isa = spx__isa_parse(value) + 1;
        if (p->isa == 0)
            return spx__error(SPX_ERR_BAD_PARAM, "sell: isa=%s is not scalar, avx2 or avx512",
                              value);
        return SPX_OK;
    }
    return spx__error(SPX_ERR_BAD_PARAM,
                      "sell: unknown parameter '%s' (c, sigma, isa, long, xpf, values)", key);
}

/* The kernel of the highest ISA <= isa that serves (t, C); sets S->isa. */
static void sell_pick_kernel(spx__sell *S, int isa)
{
    S->kernel = NULL;
    if (isa >= 2) S->kernel = spx__sell_kernel_avx512(S->type, S->C, S->iso), S->isa = 2;
    if (!S->kernel && isa >= 1)
        S->kernel = spx__sell_kernel_avx2(S->type, S->C, S->iso), S->isa = 1;
    if (!S->kernel) S->kernel = spx__sell_kernel_portable(S->type, S->C, S->iso), S->isa = 0;
}

static spx_status sell_setup(spx__sell *S, const spx_matrix *A, const spx_plan_opts *o)
{
    sell_params p = {0, 0, 0, -1, -1, SPX__VALUES_AUTO};
    spx_status st = spx__params_each(o->params, sell_param, &p);
    if (st == SPX_OK)
        st = spx__values_choose(A, p.values, o->precision, "sell", &S->iso, &S->iso_value);
    if (st != SPX_OK) return st;
    S->mode = p.values;
    const int cpu = (int)spx__isa_active();
    if (p.isa - 1 > cpu)
        return spx__error(SPX_ERR_BAD_PARAM, "sell: isa=%s is above this CPU's (or SPX_ARCH's) %s",
                          spx__isa_name((spx__isa)(p.isa - 1)), spx__isa_name((spx__isa)cpu));
    int isa = p.isa ? (int)p.isa - 1 : cpu;
    S->type = o->precision;
    S->C = p.C ? p.C : (isa == 2 ? 8 : 4) * (S->type == SPX_F32 ? 2 : 1);
    S->sigma = p.sigma ? p.sigma : SELL_SIGMA_DEFAULT;
    S->rows = A->rows;
    S->cols = A->cols;
    S->nnz = A->nnz;
    S->threads = o->threads > 0 ? o->threads : 0;
    S->nchunks = (A->rows + S->C - 1) / S->C;
    const int64_t mean = A->rows > 0 ? A->nnz / A->rows : 0;
    S->long_min = p.lng > 0    ? p.lng
                  : p.lng == 0 ? INT64_MAX
                               : (mean > SELL_LONG_MIN / SELL_LONG_MEANS ? mean * SELL_LONG_MEANS
                                                                         : SELL_LONG_MIN);
    S->xpf = p.xpf == 1;
    S->long_kernel = spx__sell_long_portable(S->type, S->iso);
    sell_pick_kernel(S, isa);
    return SPX_OK;
}

/* Threads of the plan's parallel regions. */
static int sell_threads(const spx__sell *S)
{
    return S->threads > 0 ? S->threads : omp_get_max_threads();
}

/* Row i's length in the chunks: 0 for a long row. */
static inline int64_t sell_len(const spx__sell *S, const int64_t *rowptr, int64_t i)
{
    const int64_t len = rowptr[i + 1] - rowptr[i];
    return len > S->long_min ? 0 : len;
}

/* k[r] moved down the max-heap k[0..end) to its place. */
static void sell_sift(uint64_t *k, int64_t r, int64_t end)
{
    for (int64_t ch; (ch = 2 * r + 1) < end; r = ch) {
        if (ch + 1 < end && k[ch + 1] > k[ch]) ch++;
        if (k[r] >= k[ch]) return;
        uint64_t t = k[r];
        k[r] = k[ch];
        k[ch] = t;
    }
}

/* k[0..n) ascending, in place: heapsort, no allocation, no callbacks. */
static void sell_heapsort(uint64_t *k, int64_t n)
{
    for (int64_t i = n / 2 - 1; i >= 0; i--)
        sell_sift(k, i, n);
    for (int64_t end = n - 1; end > 0; end--) {
        uint64_t t = k[0];
        k[0] = k[end];
        k[end] = t;
        sell_sift(k, 0, end);
    }
}

/* Stable counting sort of rows w0..w1 by decreasing length into perm and
 * rowlen at w0, when their lengths span fewer than SELL_BUCKETS values (the
 * usual case); returns 0, writing nothing, otherwise. */
static int sell_bucket_sort(spx__sell *S, const int64_t *rowptr, int64_t w0, int64_t w1)
{
    int64_t lo = INT64_MAX, hi = -1, start[SELL_BUCKETS + 1] = {0};
    for (int64_t i = w0; i < w1; i++) {
        const int64_t len = sell_len(S, rowptr, i);
        lo = len < lo ? len : lo;
        hi = len > hi ? len : hi;
    }
    if (hi - lo >= SELL_BUCKETS) return 0;
    for (int64_t i = w0; i < w1; i++)
        start[hi - sell_len(S, rowptr, i) + 1]++;
    for (int b = 0; b < SELL_BUCKETS; b++)
        start[b + 1] += start[b];
    for (int64_t i = w0; i < w1; i++) {
        const int64_t len = sell_len(S, rowptr, i), p = w0 + start[hi - len]++;
        S->perm[p] = (int32_t)i;
        S->rowlen[p] = (int32_t)len;
    }
    return 1;
}

/* The same for any lengths: keys (INT32_MAX - length) << 32 | row sorted
 * ascending in key[w0..w1). */
static void sell_key_sort(spx__sell *S, const int64_t *rowptr, int64_t w0, int64_t w1,
                          uint64_t *key)
{
    for (int64_t i = w0; i < w1; i++)
        key[i] = ((uint64_t)INT32_MAX - (uint64_t)sell_len(S, rowptr, i)) << 32 | (uint64_t)i;
    sell_heapsort(key + w0, w1 - w0);
    for (int64_t p = w0; p < w1; p++) {
        S->perm[p] = (int32_t)(key[p] & 0xffffffffu);
        S->rowlen[p] = (int32_t)(INT32_MAX - (int64_t)(key[p] >> 32));
    }
}

/* rowlen and perm of the sorted rows: decreasing length inside windows of
 * sigma rows, ties in row order. */
static spx_status sell_sort_rows(spx__sell *S, const int64_t *rowptr)
{
    const int64_t n = S->rows, sigma = S->sigma < n ? S->sigma : (n > 0 ? n : 1);
    uint64_t *key = NULL;
    spx_status st = SPX_OK;
    if (S->sigma == 1) {
        for (int64_t i = 0; i < n; i++)
            S->rowlen[i] = (int32_t)sell_len(S, rowptr, i);
        return SPX_OK;
    }
    SPX_TRY(spx__alloc((void **)&key, (size_t)n, sizeof *key, "sell sort keys"));
#pragma omp parallel for schedule(dynamic, 16)                                                     \
    num_threads(sell_threads(S)) if (n >= SELL_PARALLEL_MIN)
    for (int64_t w0 = 0; w0 < n; w0 += sigma) {
        const int64_t w1 = w0 + sigma < n ? w0 + sigma : n;
        if (!sell_bucket_sort(S, rowptr, w0, w1)) sell_key_sort(S, rowptr, w0, w1, key);
    }
cleanup:
    spx__free(key);
    return st;
}

/* chunk_ptr from the widest row of each chunk; S->stored. */
static spx_status sell_chunk_offsets(spx__sell *S)
{
    S->chunk_ptr[0] = 0;
    for (int64_t c = 0; c < S->nchunks; c++) {
        int64_t w = 0;
        for (int64_t l = 0; l < S->C; l++)
            w = S->rowlen[c * S->C + l] > w ? S->rowlen[c * S->C + l] : w;
        spx_status st =
            spx__add_i64(S->chunk_ptr[c], w * S->C, &S->chunk_ptr[c + 1], "sell stored elements");
        if (st != SPX_OK) return st;
    }
    S->stored = S->chunk_ptr[S->nchunks];
    return SPX_OK;
}

/* A chunk's elements from dst on (element j of lane l at j*C + l, w per
 * lane): lane l's len[l] entries from from[src[l]] on, then padding 0. Lane
 * by lane, each row read in order while the chunk's few cache lines take the
 * writes: analyze and an update took half the time of a fill in storage
 * order, which tests j < len[l] per element (lap3d7:64, 2 threads). One body
 * for columns and each value type. */
#define SELL_CHUNK_FILL(name, T)                                                                   \
    static void name(T *restrict dst, const T *restrict from, const int64_t *src,                  \
                     const int32_t *len, int64_t C, int64_t w)                                     \
    {                                                                                              \
        for (int64_t l = 0; l < C; l++) {                                                          \
            int64_t j = 0;                                                                         \
            for (; j < len[l]; j++)                                                                \
                dst[j * C + l] = from[src[l] + j];                                                 \
            for (; j < w; j++)                                                                     \
                dst[j * C + l] = (T)0;                                                             \
        }                                                                                          \
    }
SELL_CHUNK_FILL(sell_chunk_cols, int32_t)
SELL_CHUNK_FILL(sell_chunk_f64, double)
SELL_CHUNK_FILL(sell_chunk_f32, float)

/* Copy A's rows (offsets rowptr) into the column-major chunks, padding with
 * value 0, column 0: columns from col (NULL: values only, an update), vals
 * in the plan's type (NULL for an iso plan: columns only). */
static void sell_fill(spx__sell *S, const int32_t *col, const int64_t *rowptr, const void *vals)
{
    const int64_t C = S->C;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(sell_threads(S)) if (S->stored >= SELL_PARALLEL_MIN)
    for (int64_t c = 0; c < S->nchunks; c++) {
        int64_t src[SPX__SELL_CMAX], d = S->chunk_ptr[c];
        const int64_t w = (S->chunk_ptr[c + 1] - d) / C;
        const int32_t *len = S->rowlen + c * C;
        for (int64_t l = 0; l < C; l++)
            src[l] = len[l] ? rowptr[S->perm ? S->perm[c * C + l] : c * C + l] : 0;
        if (col) sell_chunk_cols(S->col + d, col, src, len, C, w);
        if (vals && S->type == SPX_F64)
            sell_chunk_f64((double *)S->val + d, vals, src, len, C, w);
        else if (vals)
            sell_chunk_f32((float *)S->val + d, vals, src, len, C, w);
    }
}

/* The long rows' values from A's (offsets rowptr, values vals in the
 * plan's type) into long_val. */
static void sell_long_values(spx__sell *S, const int64_t *rowptr, const void *vals)
{
    const size_t vsize = S->type == SPX_F64 ? sizeof(double) : sizeof(float);
    for (int64_t k = 0; k < S->nlong; k++)
        memcpy((char *)S->long_val + (size_t)S->long_ptr[k] * vsize,
               (const char *)vals + (size_t)rowptr[S->long_row[k]] * vsize,
               (size_t)(S->long_ptr[k + 1] - S->long_ptr[k]) * vsize);
}

/* The long rows' own CSR (sell.h), from A's rows (offsets rowptr), values in
 * the plan's type (none for an iso plan: vals NULL). */
static spx_status sell_long_rows(spx__sell *S, const spx_matrix *A, const int64_t *rowptr,
                                 const void *vals)
{
    const size_t vsize = S->type == SPX_F64 ? sizeof(double) : sizeof(float);
    spx_status st;
    for (int64_t i = 0; i < A->rows; i++)
        if (rowptr[i + 1] - rowptr[i] > S->long_min) {
            S->nlong++;
            S->long_nnz += rowptr[i + 1] - rowptr[i];
        }
    if (S->nlong == 0) return SPX_OK;
    SPX_TRY(
        spx__alloc((void **)&S->long_row, (size_t)S->nlong, sizeof *S->long_row, "sell long rows"));
    SPX_TRY(spx__alloc((void **)&S->long_ptr, (size_t)S->nlong + 1, sizeof *S->long_ptr,
                       "sell long row offsets"));
    SPX_TRY(spx__alloc((void **)&S->long_col, (size_t)S->long_nnz + SPX__SELL_PF_AHEAD,
                       sizeof *S->long_col, "sell long row columns"));
    if (vals)
        SPX_TRY(spx__alloc(&S->long_val, (size_t)S->long_nnz + SPX__SELL_PF_AHEAD, vsize,
                           "sell long row values"));
    memset(S->long_col + S->long_nnz, 0, SPX__SELL_PF_AHEAD * sizeof *S->long_col);
    S->long_ptr[0] = 0;
    for (int64_t i = 0, k = 0; i < A->rows; i++) {
        const int64_t a = rowptr[i], len = rowptr[i + 1] - a;
        if (len <= S->long_min) continue;
        S->long_row[k] = (int32_t)i;
        S->long_ptr[k + 1] = S->long_ptr[k] + len;
        memcpy(S->long_col + S->long_ptr[k], A->col32 + a, (size_t)len * sizeof(int32_t));
        k++;
    }
    if (vals) sell_long_values(S, rowptr, vals);
cleanup:
    return st;
}

static void sell_destroy(void *state)
{
    spx__sell *S = state;
    if (!S) return;
    spx__free(S->chunk_ptr);
    spx__free(S->col);
    spx__free(S->val);
    spx__free(S->rowlen);
    spx__free(S->perm);
    spx__free(S->long_row);
    spx__free(S->long_ptr);
    spx__free(S->long_col);
    spx__free(S->long_val);
    spx__free(S);
}

static spx_status sell_check(const spx_matrix *A, const spx_plan_opts *o)
{
    if (!A || !o) return spx__error(SPX_ERR_INVALID_ARG, "sell: NULL matrix or options");
    if (o->precision != SPX_F64 && o->precision != SPX_F32)
        return spx__error(SPX_ERR_UNSUPPORTED, "sell: precision %d is not fp64 or fp32",
                          (int)o->precision);
    if (A->col_bits != 32)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "sell: %lld columns need 64-bit indices; sell stores 32-bit",
                          (long long)A->cols);
    if (A->rows > INT32_MAX - SPX__SELL_CMAX)
        return spx__error(SPX_ERR_UNSUPPORTED, "sell: %lld rows exceed its 32-bit row indices",
                          (long long)A->rows);
    return SPX_OK;
}

static spx_status sell_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    spx__sell *S = NULL;
    const int64_t *rowptr;
    const void *vals = NULL;
    void *owned = NULL;
    spx_status st = sell_check(A, o);
    if (st != SPX_OK) return st;
    if (!state) return spx__error(SPX_ERR_INVALID_ARG, "sell: NULL state pointer");
    SPX_TRY(spx__matrix_rowptr(A, &rowptr));
    SPX_TRY(spx__calloc((void **)&S, 1, sizeof *S, "sell state"));
    SPX_TRY(sell_setup(S, A, o));
    const size_t padded = (size_t)(S->nchunks * S->C);
    const size_t vsize = S->type == SPX_F64 ? sizeof(double) : sizeof(float);
    SPX_TRY(spx__calloc((void **)&S->rowlen, padded, sizeof *S->rowlen, "sell row lengths"));
    if (S->sigma > 1)
        SPX_TRY(spx__calloc((void **)&S->perm, padded, sizeof *S->perm, "sell permutation"));
    SPX_TRY(spx__alloc((void **)&S->chunk_ptr, (size_t)S->nchunks + 1, sizeof *S->chunk_ptr,
                       "sell chunk offsets"));
    SPX_TRY(sell_sort_rows(S, rowptr));
    SPX_TRY(sell_chunk_offsets(S));
    SPX_TRY(spx__alloc((void **)&S->col, (size_t)S->stored + SPX__SELL_PF_AHEAD, sizeof *S->col,
                       "sell columns"));
    memset(S->col + S->stored, 0, SPX__SELL_PF_AHEAD * sizeof *S->col);
    if (!S->iso) {
        SPX_TRY(spx__alloc(&S->val, (size_t)S->stored + SPX__SELL_PF_AHEAD, vsize, "sell values"));
        SPX_TRY(spx__values_as(A, S->type, &vals, &owned));
    }
    sell_fill(S, A->col32, rowptr, vals);
    SPX_TRY(sell_long_rows(S, A, rowptr, vals));
    spx__free(owned);
    *state = S;
    return SPX_OK;
cleanup:
    spx__free(owned);
    sell_destroy(S);
    return st;
}

/* First chunk of thread t of nt, splitting chunk_ptr[c] + SELL_ROW_COST*C*c. */
static int64_t sell_split(const spx__sell *S, int t, int nt)
{
    const int64_t rowcost = SELL_ROW_COST * S->C;
    const int64_t total = S->stored + rowcost * S->nchunks;
    const int64_t target = (int64_t)((double)total * t / nt);
    int64_t lo = 0, hi = S->nchunks; /* first c with cost(c) >= target */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (S->chunk_ptr[mid] + rowcost * mid < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Long rows cut between slices are added after the parallel region, in slice
 * order, from a per-call buffer: the plan stays read-only during spmv. */
static void add_carries(const spx__sell *S, const spx__sell_carry *carry, int n, void *y)
{
    for (int j = 0; j < 2 * n; j++) {
        if (carry[j].row < 0) continue;
        if (S->type == SPX_F64)
            ((double *)y)[carry[j].row] += carry[j].sum;
        else
            ((float *)y)[carry[j].row] += (float)carry[j].sum;
    }
}

static spx_status sell_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    const spx__sell *S = state;
    spx__sell_carry *carry = NULL;
    if (!S) return spx__error(SPX_ERR_BAD_HANDLE, "sell: NULL state");
    if ((!x && S->cols > 0) || (!y && S->rows > 0))
        return spx__error(SPX_ERR_INVALID_ARG, "sell: NULL x or y");
    const int nt = sell_threads(S);
    const int par = nt > 1 && S->stored + S->rows + S->long_nnz >= SELL_PARALLEL_MIN;
    if (S->iso) alpha *= S->iso_value;
    spx_status st = spx__alloc((void **)&carry, 2 * (size_t)nt, sizeof *carry, "sell carries");
    if (st != SPX_OK) return st;
    for (int j = 0; j < 2 * nt; j++) carry[j].row = -1;
    int used = 1;
#pragma omp parallel num_threads(nt) if (par)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        const int64_t c0 = sell_split(S, t, n), c1 = sell_split(S, t + 1, n);
        if (c0 < c1) S->kernel(S, c0, c1, alpha, x, beta, y);
        if (t == 0) used = n;
        if (S->nlong > 0) {
#pragma omp barrier
            const int64_t e0 = (int64_t)((double)S->long_nnz * t / n);
            const int64_t e1 = (int64_t)((double)S->long_nnz * (t + 1) / n);
            if (e0 < e1) S->long_kernel(S, e0, e1, alpha, x, y, carry + 2 * t);
        }
    }
    add_carries(S, carry, used, y);
    spx__free(carry);
    return SPX_OK;
}

/* ------------------------------------------------------------ new values */

/* A's row offsets (rows+1, allocated) from the lengths the plan keeps: sorted
 * row p is row perm[p] (p without a permutation) and holds rowlen[p] entries
 * in the chunks, a long row (rowlen 0) its long_ptr span; offsets are their
 * running sum, in blocks of rows, one a thread. */
static spx_status sell_row_offsets(const spx__sell *S, int64_t **out)
{
    const int64_t n = S->rows;
    const int T = n >= SELL_PARALLEL_MIN ? sell_threads(S) : 1;
    int64_t *rp = NULL, *block = NULL;
    spx_status st;
    SPX_TRY(spx__alloc((void **)&rp, (size_t)n + 1, sizeof *rp, "sell row offsets"));
    SPX_TRY(spx__alloc((void **)&block, (size_t)T + 1, sizeof *block, "sell row offset blocks"));
    rp[0] = block[0] = 0;
#pragma omp parallel num_threads(T)
    {
        const int nt = omp_get_num_threads();
#pragma omp for schedule(static)
        for (int64_t p = 0; p < n; p++)
            rp[(S->perm ? S->perm[p] : p) + 1] = S->rowlen[p];
#pragma omp for schedule(static)
        for (int64_t k = 0; k < S->nlong; k++)
            rp[S->long_row[k] + 1] = S->long_ptr[k + 1] - S->long_ptr[k];
        for (int t = omp_get_thread_num(); t < T; t += nt) {
            block[t + 1] = 0;
            for (int64_t i = n * t / T; i < n * (t + 1) / T; i++)
                block[t + 1] += rp[i + 1];
        }
#pragma omp barrier
#pragma omp single
        for (int t = 0; t < T; t++)
            block[t + 1] += block[t];
        for (int t = omp_get_thread_num(); t < T; t += nt) {
            int64_t sum = block[t];
            for (int64_t i = n * t / T; i < n * (t + 1) / T; i++) {
                sum += rp[i + 1];
                rp[i + 1] = sum;
            }
        }
    }
    *out = rp;
    rp = NULL;
cleanup:
    spx__free(rp);
    spx__free(block);
    return st;
}

/* An iso plan given varied values: arrays for them (contents left to the
 * caller) and the stored kernels, of the ISA the iso ones were (every ISA
 * serves the same C stored and iso), as a plan made from such values has. */
static spx_status sell_store_values(spx__sell *S)
{
    const size_t vsize = S->type == SPX_F64 ? sizeof(double) : sizeof(float);
    void *val = NULL, *long_val = NULL;
    spx_status st;
    SPX_TRY(spx__alloc(&val, (size_t)S->stored + SPX__SELL_PF_AHEAD, vsize, "sell values"));
    if (S->nlong > 0)
        SPX_TRY(spx__alloc(&long_val, (size_t)S->long_nnz + SPX__SELL_PF_AHEAD, vsize,
                           "sell long row values"));
    S->val = val;
    S->long_val = long_val;
    S->iso = 0;
    sell_pick_kernel(S, S->isa);
    S->long_kernel = spx__sell_long_portable(S->type, 0);
    return SPX_OK;
cleanup:
    spx__free(val);
    spx__free(long_val);
    return st;
}

/* New values (spx_plan_update_values, host memory, the plan's type) in A's
 * CSR order, written where analyze wrote A's (padding keeps its 0). */
static spx_status sell_update_values(void *state, const void *values, int on_device)
{
    spx__sell *S = state;
    int64_t *rowptr = NULL;
    spx_status st;
    (void)on_device; /* a CPU plan: host memory */
    if (S->iso) {
        int iso;
        double v;
        spx__values_iso_array(values, S->nnz, S->type, &iso, &v);
        if (iso) {
            S->iso_value = v;
            return SPX_OK;
        }
        if (S->mode == SPX__VALUES_ISO)
            return spx__error(SPX_ERR_UNSUPPORTED,
                              "sell: the plan was made with values=iso and the new values are "
                              "not all one number; make it with values=stored or auto");
    }
    SPX_TRY(sell_row_offsets(S, &rowptr));
    if (S->iso) SPX_TRY(sell_store_values(S));
    sell_fill(S, NULL, rowptr, values);
    sell_long_values(S, rowptr, values);
cleanup:
    spx__free(rowptr);
    return st;
}

static size_t sell_bytes(const void *state)
{
    const spx__sell *S = state;
    const size_t padded = (size_t)(S->nchunks * S->C);
    const size_t vsize = S->iso ? 0 : S->type == SPX_F64 ? sizeof(double) : sizeof(float);
    return sizeof *S + ((size_t)S->nchunks + 1) * sizeof(int64_t) +
           (size_t)S->stored * (sizeof(int32_t) + vsize) +
           padded * sizeof(int32_t) * (S->perm ? 2 : 1) +
           (S->nlong ? (size_t)S->nlong * (sizeof(int32_t) + sizeof(int64_t)) + sizeof(int64_t)
                     : 0) +
           (size_t)S->long_nnz * (sizeof(int32_t) + vsize);
}

static void sell_describe(const void *state, char *buf, size_t len)
{
    const spx__sell *S = state;
    const int64_t in_chunks = S->nnz - S->long_nnz;
    const double occ = S->stored > 0 ? (double)in_chunks / (double)S->stored : 1.0;
    char values[48] = "stored";
    if (S->iso) snprintf(values, sizeof values, "iso value=%.17g", S->iso_value);
    snprintf(buf, len,
             "c=%lld sigma=%lld isa=%s beta=%.3f chunks=%lld long_rows=%lld xpf=%d values=%s",
             (long long)S->C, (long long)S->sigma, spx__isa_name((spx__isa)S->isa), occ,
             (long long)S->nchunks, (long long)S->nlong, S->xpf, values);
}

/* AUTO on the CPU (bench/results/cpu-auto.md): sell unless
 *   no AVX2 or AVX-512 kernel may run      (sell's portable kernel is about
 *                                           1.3x slower than csr), or
 *   0 < expected_calls < SELL_REPAY_CALLS  (its preparation, 3-15 ns per
 *                                           nonzero, is not repaid).
 * SELL-C-sigma (sigma = 4096, long rows summed apart) was the fastest CPU
 * format on every matrix measured: regular stencils, FEM, circuit and
 * power-law rows, 294 to 7.6M nonzeros, and again on five generated matrices
 * of 26M to 56M nonzeros (bench/results/cpu-large-2026-11-22.md; break-even
 * against csr 5 to 78 calls there); 1.2x-3x csr on the AVX-512 VM. The row
 * statistics that could steer a choice (mean, spread, longest row) are
 * absorbed inside sell: the sorting window takes the spread, the long-row
 * pass the longest rows. axc and the AXT variants were measured too and were
 * never the fastest on the 2-core VM, so they offer no suits hook. */
#define SELL_REPAY_CALLS 50 /* median of 31 measured break-evens: 46 calls */
#define SELL_EXPECTED_GAIN 1.5

static double sell_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    (void)A;
    if (!f->simd) return 0.0;
    if (f->o->expected_calls > 0 && f->o->expected_calls < SELL_REPAY_CALLS) return 0.0;
    return SELL_EXPECTED_GAIN;
}

/* The stored path beside the iso default, measured in the same bench run. */
static const char *const sell_bench_variants[] = {"values=stored", NULL};

const spx_format_ops spx__format_sell = {
    .name = "sell",
    .devices = SPX_DEV_CPU,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),
    .analyze = sell_analyze,
    .spmv = sell_spmv,
    .bytes = sell_bytes,
    .destroy = sell_destroy,
    .describe = sell_describe,
    .update_values = sell_update_values,
    .borrows_matrix = 0,
    .bench_variants = sell_bench_variants,
    .suits = sell_suits,
};
