/* DASP packing on the host (layout in dasp.h): classify rows by length, sort
 * the medium rows by decreasing length (a stable counting sort), piece the
 * short rows together, and fill one value and one column array with the 8x4
 * blocks of every class. Sizing passes run first so that every array is
 * allocated once; the fills run in parallel over blocks (OpenMP). */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/dasp/dasp.h"

#define CHUNK SPX__DASP_CHUNK

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t row_len(const spx_matrix *A, int64_t i)
{
    return A->rowptr[i + 1] - A->rowptr[i];
}

/* Entry k of A into slot e of the packed arrays. */
static void put(spx__dasp_host *h, const spx_matrix *A, int64_t e, int64_t k)
{
    h->val[e] = spx__val(A, k);
    h->col[e] = (int32_t)spx__col(A, k);
}

static int paper_loop_num(int64_t n_medium)
{
    return n_medium < 59990 ? 1 : n_medium < 400000 ? 2 : 4;
}

/* Count the rows of each class, and the long rows' chunks and tasks. */
static void count_classes(const spx_matrix *A, spx__dasp_host *h)
{
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t len = row_len(A, i), chunks = ceil_div(len, CHUNK);
        if (len == 0) h->n_empty++;
        else if (len == 1) h->n_len1++;
        else if (len == 2) h->n_len2++;
        else if (len == 3) h->n_len3++;
        else if (len == 4) h->n_len4++;
        else if (len <= SPX__DASP_MAX_LEN) h->n_medium++;
        else {
            h->n_long++;
            h->long_chunks += chunks;
            h->n_tasks += ceil_div(chunks, SPX__DASP_TASK_CHUNKS);
        }
    }
    h->n_short = h->n_len1 + h->n_len2 + h->n_len3 + h->n_len4;
}

static spx_status alloc_rows(int32_t **p, int64_t n, const char *what)
{
    spx_status st = spx__alloc((void **)p, (size_t)n, sizeof **p, what);
    if (st == SPX_OK)
        for (int64_t i = 0; i < n; i++) (*p)[i] = -1;
    return st;
}

/* Rows of each short length, in row order, into lists[len - 1]; the empty
 * and long rows into their arrays; the medium rows stable-sorted by
 * decreasing length into med_row. */
static void list_rows(const spx_matrix *A, spx__dasp_host *h, int32_t *lists[4])
{
    int64_t fill[4] = {0, 0, 0, 0}, nl = 0, ne = 0;
    int64_t start[SPX__DASP_MAX_LEN + 2];
    memset(start, 0, sizeof start);
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t len = row_len(A, i);
        if (len > 4 && len <= SPX__DASP_MAX_LEN) start[SPX__DASP_MAX_LEN - len + 1]++;
    }
    for (int k = 1; k <= SPX__DASP_MAX_LEN + 1; k++) start[k] += start[k - 1];
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t len = row_len(A, i);
        if (len == 0) h->empty_row[ne++] = (int32_t)i;
        else if (len <= 4) lists[len - 1][fill[len - 1]++] = (int32_t)i;
        else if (len <= SPX__DASP_MAX_LEN) h->med_row[start[SPX__DASP_MAX_LEN - len]++] = (int32_t)i;
        else h->long_row[nl++] = (int32_t)i;
    }
}

/* Regular chunks of a row-block with lengths len[0..7] (decreasing): the
 * leading chunks whose count of nonzeros exceeds threshold% of 32, and at
 * least enough that no row keeps more than SPX__DASP_IRR_MAX irregular
 * entries (a row's irregular part is one lane's serial loop). */
static int64_t regular_chunks(const int64_t len[8], int threshold)
{
    int64_t k = 0, least = ceil_div(len[0] - SPX__DASP_IRR_MAX, 4);
    for (;; k++) {
        int64_t count = 0;
        for (int i = 0; i < 8; i++) {
            int64_t left = len[i] - 4 * k;
            count += left < 0 ? 0 : left > 4 ? 4 : left;
        }
        if (count == 0 || count * 100 <= (int64_t)threshold * CHUNK)
            return k > least ? k : least;
    }
}

static void rowblock_lens(const spx_matrix *A, const spx__dasp_host *h, int64_t b,
                          int64_t len[8])
{
    for (int i = 0; i < 8; i++) {
        int32_t r = h->med_row[8 * b + i];
        len[i] = r < 0 ? 0 : row_len(A, r);
    }
}

/* rb_ptr and irr_ptr from the regular chunks of each row-block. */
static void size_medium(const spx_matrix *A, spx__dasp_host *h)
{
    int64_t nb = h->n_rowblocks;
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        int64_t len[8];
        rowblock_lens(A, h, b, len);
        int64_t k = regular_chunks(len, h->threshold);
        h->rb_ptr[b + 1] = k;
        for (int i = 0; i < 8; i++) h->irr_ptr[8 * b + i + 1] = len[i] - (len[i] < 4 * k ? len[i] : 4 * k);
    }
    h->rb_ptr[0] = 0;
    h->irr_ptr[0] = 0;
    for (int64_t b = 0; b < nb; b++) h->rb_ptr[b + 1] += h->rb_ptr[b];
    for (int64_t r = 0; r < 8 * nb; r++) h->irr_ptr[r + 1] += h->irr_ptr[r];
    h->n_regular = h->rb_ptr[nb];
    h->n_irreg = h->irr_ptr[8 * nb];
    /* lengths decrease, so the heavy row-blocks lead */
    for (h->n_heavy = 0; h->n_heavy < nb; h->n_heavy++) {
        int64_t k = h->rb_ptr[h->n_heavy + 1] - h->rb_ptr[h->n_heavy];
        if (k <= SPX__DASP_HEAVY_CHUNKS) break;
        h->n_htasks += ceil_div(k, SPX__DASP_TASK_CHUNKS);
    }
}

/* Tasks of the heavy row-blocks, after the long rows' in task_chunk. */
static void size_heavy(spx__dasp_host *h)
{
    int64_t t = 0;
    for (int64_t b = 0; b < h->n_heavy; b++) {
        h->hv_task_ptr[b] = t;
        for (int64_t c = h->rb_ptr[b]; c < h->rb_ptr[b + 1]; c += SPX__DASP_TASK_CHUNKS) {
            h->hv_block[t] = (int32_t)b;
            h->task_chunk[h->n_tasks + t++] = h->med_chunk0 + c;
        }
    }
    h->hv_task_ptr[h->n_heavy] = t;
    h->task_chunk[h->n_tasks + t] = h->med_chunk0 + h->rb_ptr[h->n_heavy];
}

/* long_task_ptr and task_chunk: a long row has ceil(len/32) chunks, cut into
 * tasks of SPX__DASP_TASK_CHUNKS. */
static void size_long(const spx_matrix *A, spx__dasp_host *h)
{
    int64_t t = 0, c = 0;
    for (int64_t r = 0; r < h->n_long; r++) {
        int64_t chunks = ceil_div(row_len(A, h->long_row[r]), CHUNK);
        h->long_task_ptr[r] = t;
        for (int64_t k = 0; k < chunks; k += SPX__DASP_TASK_CHUNKS) {
            h->task_row[t] = (int32_t)r;
            h->task_chunk[t++] = c + k;
        }
        c += chunks;
    }
    h->long_task_ptr[h->n_long] = t;
    h->task_chunk[t] = c;
}

/* Long row r: its entries in order, then padding to a whole chunk. */
static void fill_long(const spx_matrix *A, spx__dasp_host *h)
{
    int64_t n = h->n_long;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t r = 0; r < n; r++) {
        int64_t i = h->long_row[r];
        int64_t e = h->task_chunk[h->long_task_ptr[r]] * CHUNK;
        int64_t end = h->task_chunk[h->long_task_ptr[r + 1]] * CHUNK;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) put(h, A, e++, k);
        for (; e < end; e++) h->col[e] = -1;
    }
}

/* Row-block b: chunk k holds slots 4k..4k+3 of its 8 rows (row-major), the
 * rest of each row goes to the irregular part. */
static void fill_medium(const spx_matrix *A, spx__dasp_host *h)
{
    int64_t nb = h->n_rowblocks;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t b = 0; b < nb; b++) {
        int64_t c0 = h->med_chunk0 + h->rb_ptr[b], nk = h->rb_ptr[b + 1] - h->rb_ptr[b];
        for (int i = 0; i < 8; i++) {
            int32_t r = h->med_row[8 * b + i];
            int64_t beg = r < 0 ? 0 : A->rowptr[r], len = r < 0 ? 0 : row_len(A, r);
            for (int64_t s = 0; s < 4 * nk; s++) {
                int64_t e = (c0 + s / 4) * CHUNK + i * 4 + s % 4;
                if (s < len) put(h, A, e, beg + s);
                else h->col[e] = -1;
            }
            int64_t e = h->irr0 + h->irr_ptr[8 * b + i];
            for (int64_t s = 4 * nk; s < len; s++) put(h, A, e++, beg + s);
        }
    }
}

/* Row r's entries into slots [e, e + n) of a 4-slot piece, padding after. */
static void fill_slots(const spx_matrix *A, spx__dasp_host *h, int32_t r, int64_t e, int n)
{
    int64_t len = r < 0 ? 0 : row_len(A, r);
    for (int s = 0; s < n; s++) {
        if (s < len) put(h, A, e + s, A->rowptr[r] + s);
        else h->col[e + s] = -1;
    }
}

/* Short blocks: piece p of a class sits in row p%8 of chunk c0 + p/8; its
 * rows' ids in rows[2p], rows[2p+1] (one id for rows of 4). */
static void fill_short(const spx_matrix *A, spx__dasp_host *h, int32_t *lists[4])
{
    int64_t p13 = h->n_len1 < h->n_len3 ? h->n_len1 : h->n_len3;
    int64_t p22 = ceil_div(h->n_len2, 2), p4 = h->n_len4 + h->n_len3 - p13;
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < 8 * h->n_blk13; p++) {
        int64_t e = (h->chunk13 + p / 8) * CHUNK + (p % 8) * 4;
        int32_t one = p < p13 ? lists[0][p] : -1, three = p < p13 ? lists[2][p] : -1;
        h->row13[2 * p] = one;
        h->row13[2 * p + 1] = three;
        fill_slots(A, h, one, e, 1);
        fill_slots(A, h, three, e + 1, 3);
    }
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < 8 * h->n_blk22; p++) {
        int64_t e = (h->chunk22 + p / 8) * CHUNK + (p % 8) * 4;
        int32_t a = p < p22 ? lists[1][2 * p] : -1;
        int32_t b = p < p22 && 2 * p + 1 < h->n_len2 ? lists[1][2 * p + 1] : -1;
        h->row22[2 * p] = a;
        h->row22[2 * p + 1] = b;
        fill_slots(A, h, a, e, 2);
        fill_slots(A, h, b, e + 2, 2);
    }
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < 8 * h->n_blk4; p++) {
        int64_t e = (h->chunk4 + p / 8) * CHUNK + (p % 8) * 4;
        int32_t r = p >= p4 ? -1 : p < h->n_len4 ? lists[3][p] : lists[2][p13 + p - h->n_len4];
        h->row4[p] = r;
        fill_slots(A, h, r, e, 4);
    }
    for (int64_t s = 0; s < h->n_single; s++) {
        int32_t r = lists[0][p13 + s];
        h->single_row[s] = r;
        put(h, A, h->single0 + s, A->rowptr[r]);
    }
}

/* Block counts and segment offsets, once the classes are counted. */
static void layout_segments(spx__dasp_host *h)
{
    int64_t p13 = h->n_len1 < h->n_len3 ? h->n_len1 : h->n_len3;
    h->n_blk13 = ceil_div(p13, 8);
    h->n_blk22 = ceil_div(ceil_div(h->n_len2, 2), 8);
    h->n_blk4 = ceil_div(h->n_len4 + h->n_len3 - p13, 8);
    h->n_single = h->n_len1 - p13;
    h->n_rowblocks = ceil_div(h->n_medium, 8);
}

static spx_status alloc_arrays(spx__dasp_host *h)
{
    spx_status st;
    SPX_TRY(alloc_rows(&h->long_row, h->n_long, "dasp long rows"));
    SPX_TRY(spx__alloc((void **)&h->long_task_ptr, (size_t)h->n_long + 1, sizeof(int64_t),
                       "dasp long row tasks"));
    SPX_TRY(alloc_rows(&h->med_row, 8 * h->n_rowblocks, "dasp medium rows"));
    SPX_TRY(spx__alloc((void **)&h->rb_ptr, (size_t)h->n_rowblocks + 1, sizeof(int64_t),
                       "dasp row-block offsets"));
    SPX_TRY(spx__alloc((void **)&h->irr_ptr, 8 * (size_t)h->n_rowblocks + 1, sizeof(int64_t),
                       "dasp irregular offsets"));
    SPX_TRY(alloc_rows(&h->row13, 16 * h->n_blk13, "dasp 1&3 rows"));
    SPX_TRY(alloc_rows(&h->row22, 16 * h->n_blk22, "dasp 2&2 rows"));
    SPX_TRY(alloc_rows(&h->row4, 8 * h->n_blk4, "dasp rows of 4"));
    SPX_TRY(alloc_rows(&h->single_row, h->n_single, "dasp singleton rows"));
    SPX_TRY(alloc_rows(&h->empty_row, h->n_empty, "dasp empty rows"));
cleanup:
    return st;
}

/* Sizes of the value arrays once the medium part is sized; then allocate. */
static spx_status alloc_values(spx__dasp_host *h)
{
    spx_status st;
    h->med_chunk0 = h->long_chunks;
    h->chunk13 = h->med_chunk0 + h->n_regular;
    h->chunk22 = h->chunk13 + h->n_blk13;
    h->chunk4 = h->chunk22 + h->n_blk22;
    h->n_chunks = h->chunk4 + h->n_blk4;
    h->single0 = h->n_chunks * CHUNK;
    h->irr0 = h->single0 + h->n_single;
    h->n_entries = h->irr0 + h->n_irreg;
    SPX_TRY(spx__calloc((void **)&h->val, (size_t)h->n_entries, sizeof(double), "dasp values"));
    SPX_TRY(spx__alloc((void **)&h->col, (size_t)h->n_entries, sizeof(int32_t), "dasp columns"));
    SPX_TRY(spx__alloc((void **)&h->task_chunk, (size_t)(h->n_tasks + h->n_htasks) + 1,
                       sizeof(int64_t), "dasp tasks"));
    SPX_TRY(spx__alloc((void **)&h->hv_task_ptr, (size_t)h->n_heavy + 1, sizeof(int64_t),
                       "dasp heavy row-block tasks"));
    SPX_TRY(alloc_rows(&h->hv_block, h->n_htasks, "dasp heavy task blocks"));
    SPX_TRY(alloc_rows(&h->task_row, h->n_tasks, "dasp long task rows"));
cleanup:
    return st;
}

void spx__dasp_host_free(spx__dasp_host *h)
{
    if (!h) return;
    spx__free(h->val);
    spx__free(h->col);
    spx__free(h->long_row);
    spx__free(h->long_task_ptr);
    spx__free(h->task_chunk);
    spx__free(h->hv_task_ptr);
    spx__free(h->hv_block);
    spx__free(h->task_row);
    spx__free(h->med_row);
    spx__free(h->rb_ptr);
    spx__free(h->irr_ptr);
    spx__free(h->row13);
    spx__free(h->row22);
    spx__free(h->row4);
    spx__free(h->single_row);
    spx__free(h->empty_row);
    spx__free(h);
}

spx_status spx__dasp_pack(const spx_matrix *A, int threshold, int loop_num,
                          spx__dasp_host **out)
{
    spx__dasp_host *h = NULL;
    int32_t *lists[4] = {NULL, NULL, NULL, NULL};
    spx_status st;
    *out = NULL;
    if (A->rows > INT32_MAX || A->cols > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "dasp: %lld x %lld matrix; rows and columns must fit int32",
                          (long long)A->rows, (long long)A->cols);
    if (threshold < 0 || threshold > 100 || (loop_num != 0 && loop_num != 1 &&
                                             loop_num != 2 && loop_num != 4))
        return spx__error(SPX_ERR_BAD_PARAM, "dasp: threshold=%d (0..100), loop=%d (0,1,2,4)",
                          threshold, loop_num);
    SPX_TRY(spx__calloc((void **)&h, 1, sizeof *h, "dasp packing"));
    h->rows = A->rows;
    h->cols = A->cols;
    h->nnz = A->nnz;
    h->threshold = threshold;
    count_classes(A, h);
    h->loop_num = loop_num ? loop_num : paper_loop_num(h->n_medium);
    int64_t n_len[4] = {h->n_len1, h->n_len2, h->n_len3, h->n_len4};
    for (int k = 0; k < 4; k++) SPX_TRY(alloc_rows(&lists[k], n_len[k], "dasp short rows"));
    layout_segments(h);
    SPX_TRY(alloc_arrays(h));
    list_rows(A, h, lists);
    size_medium(A, h);
    SPX_TRY(alloc_values(h));
    size_long(A, h);
    size_heavy(h);
    fill_long(A, h);
    fill_medium(A, h);
    fill_short(A, h, lists);
    *out = h;
    h = NULL;
cleanup:
    for (int k = 0; k < 4; k++) spx__free(lists[k]);
    spx__dasp_host_free(h);
    return st;
}
