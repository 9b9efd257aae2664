/* DASP packing on the host (layout in dasp.h): classify rows by length, sort
 * the medium rows by decreasing length (a stable counting sort over row
 * ranges, in parallel), piece the short rows together, size the blocks, and
 * for spx__dasp_pack map every row to the slots its entries take (map_slot,
 * map_rest, map_reg) and scatter the values and columns by that map on the
 * host; spx__dasp_pack_layout leaves that to the device (dasp_fill.cu, which
 * reads the placements from the row lists: spx__dasp_walk in dasp.h). Sizing
 * passes run first so that every array is allocated once; the passes over
 * rows and blocks run in parallel (OpenMP), the ones over long rows and heavy
 * row-blocks' tasks and the prefix sums over row-blocks serially. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/dasp/dasp.h"

#define CHUNK SPX__DASP_CHUNK
/* Loops shorter than this run on one thread: a parallel region costs more. */
#define PAR_MIN 32768

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t row_len(const spx_matrix *A, int64_t i)
{
    return spx__row_off(A, i + 1) - spx__row_off(A, i);
}

static int paper_loop_num(int64_t n_medium)
{
    return n_medium < 59990 ? 1 : n_medium < 400000 ? 2 : 4;
}

/* The rows are cut into NPART ranges; cnt[p * NBUCKET + k] counts the rows of
 * range p in bucket k: the length for 0..MAX_LEN, NBUCKET - 1 for long rows. */
#define NPART 64
#define NBUCKET (SPX__DASP_MAX_LEN + 2)

static int64_t part_begin(int64_t rows, int p)
{
    return rows * p / NPART;
}

static int bucket_of(int64_t len)
{
    return len > SPX__DASP_MAX_LEN ? NBUCKET - 1 : (int)len;
}

static void count_parts(const spx_matrix *A, int64_t *cnt)
{
#pragma omp parallel for schedule(dynamic, 1) if (A->rows > PAR_MIN)
    for (int p = 0; p < NPART; p++)
        for (int64_t i = part_begin(A->rows, p); i < part_begin(A->rows, p + 1); i++)
            cnt[p * NBUCKET + bucket_of(row_len(A, i))]++;
}

/* The class counts from the ranges' counts. */
static void count_classes(const int64_t *cnt, spx__dasp_host *h)
{
    int64_t tot[NBUCKET] = {0};
    for (int p = 0; p < NPART; p++)
        for (int k = 0; k < NBUCKET; k++)
            tot[k] += cnt[p * NBUCKET + k];
    h->n_empty = tot[0];
    h->n_len1 = tot[1];
    h->n_len2 = tot[2];
    h->n_len3 = tot[3];
    h->n_len4 = tot[4];
    for (int k = 5; k <= SPX__DASP_MAX_LEN; k++)
        h->n_medium += tot[k];
    h->n_long = tot[NBUCKET - 1];
    h->n_short = h->n_len1 + h->n_len2 + h->n_len3 + h->n_len4;
}

/* The ranges' counts become their first positions in the row lists: each
 * bucket's own list, but one list for the medium rows, longest first. */
static void part_offsets(int64_t *cnt)
{
    int64_t med = 0;
    for (int k = NBUCKET - 1; k >= 0; k--) {
        int medium = k > 4 && k <= SPX__DASP_MAX_LEN;
        int64_t at = medium ? med : 0;
        for (int p = 0; p < NPART; p++) {
            int64_t c = cnt[p * NBUCKET + k];
            cnt[p * NBUCKET + k] = at;
            at += c;
        }
        if (medium) med = at;
    }
}

static spx_status alloc_rows(int32_t **p, int64_t n, const char *what)
{
    spx_status st = spx__alloc((void **)p, (size_t)n, sizeof **p, what);
    if (st != SPX_OK) return st;
    int32_t *a = *p;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        a[i] = -1;
    return SPX_OK;
}

/* Rows of each short length, in row order, into lists[len - 1]; the empty
 * and long rows into their arrays; the medium rows stable-sorted by
 * decreasing length into med_row; at: part_offsets' positions. */
static void list_rows(const spx_matrix *A, spx__dasp_host *h, int32_t *lists[4], int64_t *at)
{
#pragma omp parallel for schedule(dynamic, 1) if (A->rows > PAR_MIN)
    for (int p = 0; p < NPART; p++) {
        int64_t *pos = at + p * NBUCKET;
        for (int64_t i = part_begin(A->rows, p); i < part_begin(A->rows, p + 1); i++) {
            int k = bucket_of(row_len(A, i));
            int32_t *list = k == 0                   ? h->empty_row
                            : k <= 4                 ? lists[k - 1]
                            : k <= SPX__DASP_MAX_LEN ? h->med_row
                                                     : h->long_row;
            list[pos[k]++] = (int32_t)i;
        }
    }
}

/* The long rows' chunks and tasks. */
static void count_long(const spx_matrix *A, spx__dasp_host *h)
{
    for (int64_t r = 0; r < h->n_long; r++) {
        int64_t chunks = ceil_div(row_len(A, h->long_row[r]), CHUNK);
        h->long_chunks += chunks;
        h->n_tasks += ceil_div(chunks, SPX__DASP_TASK_CHUNKS);
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
        if (count == 0 || count * 100 <= (int64_t)threshold * CHUNK) return k > least ? k : least;
    }
}

static void rowblock_lens(const spx_matrix *A, const spx__dasp_host *h, int64_t b, int64_t len[8])
{
    for (int i = 0; i < 8; i++) {
        int32_t r = h->med_row[8 * b + i];
        len[i] = r < 0 ? 0 : row_len(A, r);
    }
}

/* rb_ptr and irr_ptr from the regular chunks of each row-block, and
 * irr_words from irr_ptr. */
static void size_medium(const spx_matrix *A, spx__dasp_host *h)
{
    int64_t nb = h->n_rowblocks;
#pragma omp parallel for schedule(static) if (nb > PAR_MIN / 8)
    for (int64_t b = 0; b < nb; b++) {
        int64_t len[8];
        rowblock_lens(A, h, b, len);
        int64_t k = regular_chunks(len, h->threshold);
        h->rb_ptr[b + 1] = k;
        for (int i = 0; i < 8; i++)
            h->irr_ptr[8 * b + i + 1] = len[i] - (len[i] < 4 * k ? len[i] : 4 * k);
    }
    h->rb_ptr[0] = 0;
    h->irr_ptr[0] = 0;
    for (int64_t b = 0; b < nb; b++)
        h->rb_ptr[b + 1] += h->rb_ptr[b];
    for (int64_t r = 0; r < 8 * nb; r++)
        h->irr_ptr[r + 1] += h->irr_ptr[r];
    h->n_regular = h->rb_ptr[nb];
    h->n_irreg = h->irr_ptr[8 * nb];
    for (int64_t b = 0; b < nb; b++) {
        uint64_t lens = 0;
        for (int i = 0; i < 8; i++)
            lens |= (uint64_t)(h->irr_ptr[8 * b + i + 1] - h->irr_ptr[8 * b + i]) << (8 * i);
        h->irr_words[b] = h->irr_ptr[8 * b];
        h->irr_words[nb + b] = (int64_t)lens;
    }
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

static void map_row(spx__dasp_host *h, int64_t i, int64_t slot, int64_t rest, int64_t reg)
{
    h->map_slot[i] = slot;
    h->map_rest[i] = rest;
    h->map_reg[i] = (uint16_t)reg;
}

/* Long row r: its entries in order from its first chunk (padded to a whole
 * chunk). */
static void map_long(spx__dasp_host *h)
{
    int64_t n = h->n_long;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int64_t r = 0; r < n; r++)
        map_row(h, h->long_row[r], 0, h->task_chunk[h->long_task_ptr[r]] * CHUNK, 0);
}

/* Row i of row-block b: slots 4k..4k+3 of chunk k of the block (row-major,
 * row i at 4i), the rest of the row in the irregular part. */
static void map_medium(const spx_matrix *A, spx__dasp_host *h)
{
    int64_t nb = h->n_rowblocks;
#pragma omp parallel for schedule(static) if (nb > PAR_MIN / 8)
    for (int64_t b = 0; b < nb; b++) {
        int64_t c0 = h->med_chunk0 + h->rb_ptr[b], nk = h->rb_ptr[b + 1] - h->rb_ptr[b];
        for (int i = 0; i < 8; i++) {
            int32_t r = h->med_row[8 * b + i];
            if (r < 0) continue;
            int64_t len = row_len(A, r);
            map_row(h, r, c0 * CHUNK + 4 * i, h->irr0 + h->irr_ptr[8 * b + i],
                    len < 4 * nk ? len : 4 * nk);
        }
    }
}

static void map_piece(spx__dasp_host *h, int32_t r, int64_t e)
{
    if (r >= 0 && h->map_slot) map_row(h, r, 0, e, 0);
}

/* Short blocks: piece p of a class sits in row p%8 of chunk c0 + p/8; its
 * rows' ids in rows[2p], rows[2p+1] (one id for rows of 4); the singletons
 * and the empty rows after. The rows' placements only where the host
 * scatters (map_slot set). */
static void map_short(spx__dasp_host *h, int32_t *lists[4])
{
    int64_t p13 = h->n_len1 < h->n_len3 ? h->n_len1 : h->n_len3;
    int64_t p22 = ceil_div(h->n_len2, 2), p4 = h->n_len4 + h->n_len3 - p13;
#pragma omp parallel if (h->n_short + h->n_empty > PAR_MIN)
    {
#pragma omp for schedule(static) nowait
        for (int64_t p = 0; p < 8 * h->n_blk13; p++) {
            int64_t e = spx__dasp_piece_slot(h->chunk13, p);
            int32_t one = p < p13 ? lists[0][p] : -1, three = p < p13 ? lists[2][p] : -1;
            h->row13[2 * p] = one;
            h->row13[2 * p + 1] = three;
            map_piece(h, one, e);
            map_piece(h, three, e + 1);
        }
#pragma omp for schedule(static) nowait
        for (int64_t p = 0; p < 8 * h->n_blk22; p++) {
            int64_t e = spx__dasp_piece_slot(h->chunk22, p);
            int32_t a = p < p22 ? lists[1][2 * p] : -1;
            int32_t b = p < p22 && 2 * p + 1 < h->n_len2 ? lists[1][2 * p + 1] : -1;
            h->row22[2 * p] = a;
            h->row22[2 * p + 1] = b;
            map_piece(h, a, e);
            map_piece(h, b, e + 2);
        }
#pragma omp for schedule(static) nowait
        for (int64_t p = 0; p < 8 * h->n_blk4; p++) {
            int64_t e = spx__dasp_piece_slot(h->chunk4, p);
            int32_t r = p >= p4 ? -1 : p < h->n_len4 ? lists[3][p] : lists[2][p13 + p - h->n_len4];
            h->row4[p] = r;
            map_piece(h, r, e);
        }
#pragma omp for schedule(static) nowait
        for (int64_t s = 0; s < h->n_single; s++) {
            int32_t r = lists[0][p13 + s];
            h->single_row[s] = r;
            map_piece(h, r, h->single0 + s);
        }
#pragma omp for schedule(static) nowait
        for (int64_t s = 0; s < h->n_empty; s++)
            if (h->map_slot) map_row(h, h->empty_row[s], 0, 0, 0);
    }
}

/* val/col by the row map: padding (column -1, value 0) in every slot, then
 * each row's entries in theirs. */
static void scatter(const spx_matrix *A, spx__dasp_host *h)
{
    int64_t n = h->n_entries, rows = A->rows;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int64_t e = 0; e < n; e++)
        h->col[e] = -1;
#pragma omp parallel for schedule(dynamic, 256) if (A->nnz > PAR_MIN)
    for (int64_t i = 0; i < rows; i++) {
        int64_t beg = spx__row_off(A, i), len = row_len(A, i);
        for (int64_t s = 0; s < len; s++) {
            int64_t e = spx__dasp_slot(h->map_slot[i], h->map_rest[i], h->map_reg[i], s);
            h->val[e] = spx__val(A, beg + s);
            h->col[e] = (int32_t)spx__col(A, beg + s);
        }
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
    SPX_TRY(spx__alloc((void **)&h->irr_words, 2 * (size_t)h->n_rowblocks, sizeof(int64_t),
                       "dasp irregular words"));
cleanup:
    return st;
}

/* Sizes of the value arrays once the medium part is sized; then allocate
 * (val/col and the row map only when the host fills them). */
static spx_status alloc_values(spx__dasp_host *h, int fill)
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
    if (fill) {
        SPX_TRY(spx__calloc((void **)&h->val, (size_t)h->n_entries, sizeof(double), "dasp values"));
        SPX_TRY(
            spx__alloc((void **)&h->col, (size_t)h->n_entries, sizeof(int32_t), "dasp columns"));
        SPX_TRY(spx__alloc((void **)&h->map_slot, (size_t)h->rows, sizeof(int64_t),
                           "dasp row map slots"));
        SPX_TRY(spx__alloc((void **)&h->map_rest, (size_t)h->rows, sizeof(int64_t),
                           "dasp row map rests"));
        SPX_TRY(spx__alloc((void **)&h->map_reg, (size_t)h->rows, sizeof(uint16_t),
                           "dasp row map counts"));
    }
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
    spx__free(h->irr_words);
    spx__free(h->map_slot);
    spx__free(h->map_rest);
    spx__free(h->map_reg);
    spx__free(h);
}

static spx_status check_args(const spx_matrix *A, int threshold, int loop_num)
{
    if (A->rows > INT32_MAX || A->cols > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "dasp: %lld x %lld matrix; rows and columns must fit int32",
                          (long long)A->rows, (long long)A->cols);
    if (threshold < 0 || threshold > 100 ||
        (loop_num != 0 && loop_num != 1 && loop_num != 2 && loop_num != 4))
        return spx__error(SPX_ERR_BAD_PARAM, "dasp: threshold=%d (0..100), loop=%d (0,1,2,4)",
                          threshold, loop_num);
    return SPX_OK;
}

/* Classes, row lists and sizes: everything but the row map and val/col. */
static spx_status layout_rows(const spx_matrix *A, spx__dasp_host *h, int32_t *lists[4])
{
    int64_t *cnt = NULL;
    spx_status st;
    SPX_TRY(spx__calloc((void **)&cnt, NPART * NBUCKET, sizeof *cnt, "dasp row counts"));
    count_parts(A, cnt);
    count_classes(cnt, h);
    int64_t n_len[4] = {h->n_len1, h->n_len2, h->n_len3, h->n_len4};
    for (int k = 0; k < 4; k++)
        SPX_TRY(alloc_rows(&lists[k], n_len[k], "dasp short rows"));
    layout_segments(h);
    SPX_TRY(alloc_arrays(h));
    part_offsets(cnt);
    list_rows(A, h, lists, cnt);
    count_long(A, h);
    size_medium(A, h);
cleanup:
    spx__free(cnt);
    return st;
}

/* The packing; fill: the row map and val/col on the host, else left to the
 * device. */
static spx_status pack(const spx_matrix *A, int threshold, int loop_num, int fill,
                       spx__dasp_host **out)
{
    spx__dasp_host *h = NULL;
    int32_t *lists[4] = {NULL, NULL, NULL, NULL};
    spx_status st;
    *out = NULL;
    SPX_TRY(check_args(A, threshold, loop_num));
    SPX_TRY(spx__calloc((void **)&h, 1, sizeof *h, "dasp packing"));
    h->rows = A->rows;
    h->cols = A->cols;
    h->nnz = A->nnz;
    h->threshold = threshold;
    SPX_TRY(layout_rows(A, h, lists));
    h->loop_num = loop_num ? loop_num : paper_loop_num(h->n_medium);
    SPX_TRY(alloc_values(h, fill));
    size_long(A, h);
    size_heavy(h);
    if (fill) {
        map_long(h);
        map_medium(A, h);
    }
    map_short(h, lists);
    if (fill) scatter(A, h);
    h->A = A;
    *out = h;
    h = NULL;
cleanup:
    for (int k = 0; k < 4; k++)
        spx__free(lists[k]);
    spx__dasp_host_free(h);
    return st;
}

spx_status spx__dasp_pack(const spx_matrix *A, int threshold, int loop_num, spx__dasp_host **out)
{
    return pack(A, threshold, loop_num, 1, out);
}

spx_status spx__dasp_pack_layout(const spx_matrix *A, int threshold, int loop_num,
                                 spx__dasp_host **out)
{
    return pack(A, threshold, loop_num, 0, out);
}
