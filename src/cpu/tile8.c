/* 8x8 bitmap tiles on the host (layout and math: tile8.h): conversion from
 * and to CSR, and tSparse's task list of C = A*B with its counts. These are
 * the host model of what src/cuda/spgemm/tsparse_*.cu do on the device, used by the
 * SpGEMM statistics (spgemm_stats.c) and the tests.
 *
 * From CSR: the rows 8I..8I+7 of tile row I are merged by tile column, the
 * smallest J among the rows' next entries first; each row then gives up its
 * entries of tile J, ORing their bits. Tile row I's values start at
 * rowptr[8I], so one pass counts the tiles of each row, a prefix sum places
 * them, and a second pass writes them, both in parallel over tile rows.
 *
 * Tasks: the pairs of tile row I of A, (I, K) x (K, J) for every tile of B's
 * tile row K, are merged by J (a heap over A's tiles of the row, ties to the
 * smaller K), so they come out grouped by tile of C in the order (I, J), and
 * by increasing K inside a group: the sorted task list, without a sort. A
 * pair whose bitmaps are culled (tile8.h) is counted and dropped. The same
 * walk counts (pass 1) and, once prefix sums place each tile row, writes
 * (pass 2). Memory: per thread, two positions per tile of A's longest tile
 * row.
 *
 * Counts alone (spx__tile8_count, the statistics) need no order: each
 * thread keeps, per tile column J of B, the last tile row that met it and
 * the OR of its products there, so a pair costs O(1) instead of a heap step;
 * when those slots of every thread would pass COUNT_SLOTS_MAX bytes (B has
 * very many tile columns) the merge counts instead. */
#include <omp.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cpu/tile8.h"

/* ---------------------------------------------------------- CSR -> tiles */

/* Tile row I of A: count its tiles, or (T->col != NULL) write them from tile
 * t0 on. Returns the tiles of the row. */
static int64_t tile_row(const spx_matrix *A, int64_t I, spx__tile8 *T, int64_t t0)
{
    int64_t pos[8], end[8], r0 = 8 * I, nr = A->rows - r0 < 8 ? A->rows - r0 : 8, n = 0;
    int64_t voff = spx__row_off(A, r0);
    for (int64_t r = 0; r < nr; r++) {
        pos[r] = spx__row_off(A, r0 + r);
        end[r] = spx__row_off(A, r0 + r + 1);
    }
    for (;; n++) {
        int64_t J = INT64_MAX, next[8];
        uint64_t bits = 0;
        for (int64_t r = 0; r < nr; r++)
            if (pos[r] < end[r] && spx__col(A, pos[r]) >> 3 < J) J = spx__col(A, pos[r]) >> 3;
        if (J == INT64_MAX) return n;
        for (int64_t r = 0; r < nr; r++) {
            for (next[r] = pos[r]; next[r] < end[r] && spx__col(A, next[r]) >> 3 == J; next[r]++)
                bits |= 1ull << (8 * r + (spx__col(A, next[r]) & 7));
        }
        if (T && T->col) {
            T->col[t0 + n] = J;
            T->bits[t0 + n] = bits;
            T->off[t0 + n] = voff;
            for (int64_t r = 0; r < nr && T->val; r++)
                for (int64_t k = pos[r]; k < next[r]; k++)
                    T->val[voff + spx__tile8_rank(bits, (int)(8 * r + (spx__col(A, k) & 7)))] =
                        spx__val(A, k);
        }
        voff += spx__tile8_popc(bits);
        for (int64_t r = 0; r < nr; r++) pos[r] = next[r];
    }
}

void spx__tile8_free(spx__tile8 *T)
{
    if (!T) return;
    spx__free(T->ptr);
    spx__free(T->col);
    spx__free(T->bits);
    spx__free(T->off);
    spx__free(T->val);
    memset(T, 0, sizeof *T);
}

/* ptr[I + 1] = tiles of row I, then the prefix sum. */
static void count_tiles(const spx_matrix *A, spx__tile8 *T)
{
    T->ptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t I = 0; I < T->trows; I++) T->ptr[I + 1] = tile_row(A, I, NULL, 0);
    for (int64_t I = 0; I < T->trows; I++) T->ptr[I + 1] += T->ptr[I];
    T->ntiles = T->ptr[T->trows];
}

spx_status spx__tile8_from_csr(const spx_matrix *A, int with_values, spx__tile8 *T)
{
    spx_status st;
    memset(T, 0, sizeof *T);
    if ((st = spx__check_matrix(A, "8x8 tiles")) != SPX_OK) return st;
    T->rows = A->rows;
    T->cols = A->cols;
    T->trows = (A->rows + 7) / 8;
    T->tcols = (A->cols + 7) / 8;
    SPX_TRY(spx__alloc((void **)&T->ptr, (size_t)T->trows + 1, sizeof *T->ptr, "tile row offsets"));
    count_tiles(A, T);
    SPX_TRY(spx__alloc((void **)&T->col, (size_t)T->ntiles, sizeof *T->col, "tile columns"));
    SPX_TRY(spx__alloc((void **)&T->bits, (size_t)T->ntiles, sizeof *T->bits, "tile bitmaps"));
    SPX_TRY(spx__alloc((void **)&T->off, (size_t)T->ntiles + 1, sizeof *T->off, "tile offsets"));
    if (with_values)
        SPX_TRY(spx__alloc((void **)&T->val, (size_t)A->nnz, sizeof *T->val, "tile values"));
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t I = 0; I < T->trows; I++) tile_row(A, I, T, T->ptr[I]);
    T->off[T->ntiles] = A->nnz;
    return SPX_OK;
cleanup:
    spx__tile8_free(T);
    return st;
}

/* ---------------------------------------------------------- tiles -> CSR */

spx_status spx__tile8_to_csr(const spx__tile8 *T, spx_matrix **out)
{
    spx_matrix *A = NULL;
    spx_status st;
    *out = NULL;
    SPX_TRY(spx__matrix_alloc(T->rows, T->cols, T->off[T->ntiles], SPX_F64, &A));
    double *v = A->values;
    int64_t k = 0;
    A->rowptr[0] = 0;
    for (int64_t i = 0; i < T->rows; i++) {
        const int64_t I = i / 8, r = i % 8;
        for (int64_t t = T->ptr[I]; t < T->ptr[I + 1]; t++) {
            for (uint64_t row = (T->bits[t] >> (8 * r)) & 0xffu; row; row &= row - 1, k++) {
                const int c = __builtin_ctzll(row), b = (int)(8 * r) + c;
                const int64_t j = 8 * T->col[t] + c;
                if (A->col_bits == 32) A->col32[k] = (int32_t)j;
                else A->col64[k] = j;
                v[k] = T->val ? T->val[T->off[t] + spx__tile8_rank(T->bits[t], b)] : 1.0;
            }
        }
        A->rowptr[i + 1] = k;
    }
    *out = A;
cleanup:
    return st;
}

/* ------------------------------------------------------------------ tasks */

/* The pairs of one tile row of A, merged by J of their B tile (ties: the
 * earlier A tile). pos[q] and end[q] walk B's tile row under A's q-th tile;
 * heap holds the q whose walk is not over. */
typedef struct pair_merge {
    const spx__tile8 *A, *B;
    int64_t a0, n;
    int64_t *pos, *end, *heap;
} pair_merge;

static int before(const pair_merge *m, int64_t p, int64_t q)
{
    const int64_t jp = m->B->col[m->pos[p]], jq = m->B->col[m->pos[q]];
    return jp < jq || (jp == jq && p < q);
}

static void sift_down(pair_merge *m, int64_t i)
{
    for (int64_t c; (c = 2 * i + 1) < m->n; i = c) {
        if (c + 1 < m->n && before(m, m->heap[c + 1], m->heap[c])) c++;
        if (!before(m, m->heap[c], m->heap[i])) return;
        const int64_t t = m->heap[c];
        m->heap[c] = m->heap[i];
        m->heap[i] = t;
    }
}

static void merge_start(pair_merge *m, int64_t I)
{
    const spx__tile8 *A = m->A, *B = m->B;
    m->a0 = A->ptr[I];
    m->n = 0;
    for (int64_t q = 0; q < A->ptr[I + 1] - m->a0; q++) {
        const int64_t K = A->col[m->a0 + q];
        m->pos[q] = B->ptr[K];
        m->end[q] = B->ptr[K + 1];
        if (m->pos[q] < m->end[q]) m->heap[m->n++] = q;
    }
    for (int64_t i = m->n / 2; i-- > 0;) sift_down(m, i);
}

/* The next pair in task order; 0 when the row is done. */
static int merge_next(pair_merge *m, int64_t *ta, int64_t *tb)
{
    if (m->n == 0) return 0;
    const int64_t q = m->heap[0];
    *ta = m->a0 + q;
    *tb = m->pos[q]++;
    if (m->pos[q] == m->end[q]) m->heap[0] = m->heap[--m->n];
    sift_down(m, 0);
    return 1;
}

/* Where pass 2 writes a tile row: its first task and first tile of C. */
typedef struct row_out {
    spx__tile8_tasks *L;
    int64_t task, ctile;
} row_out;

/* Close the group of tile (I, J) of C: a tile of C when a task survived. */
static void close_group(spx__tile8_counts *c, row_out *o, int64_t I, int64_t J, uint64_t bits,
                        int64_t first_task)
{
    if (!bits) return;
    if (o) {
        o->L->crow[o->ctile] = I;
        o->L->ccol[o->ctile] = J;
        o->L->cbits[o->ctile] = bits;
        o->L->cstart[o->ctile++] = first_task;
    }
    c->ctiles++;
    c->cnnz += spx__tile8_popc(bits);
}

/* Walk tile row I: add its counts to c; with o, write its tasks and tiles. */
static void task_row(pair_merge *m, int64_t I, spx__tile8_counts *c, row_out *o)
{
    int64_t ta, tb, J = -1, first = o ? o->task : 0;
    uint64_t bits = 0;
    merge_start(m, I);
    while (merge_next(m, &ta, &tb)) {
        if (m->B->col[tb] != J) {
            close_group(c, o, I, J, bits, first);
            J = m->B->col[tb];
            bits = 0;
            first = o ? o->task : 0;
        }
        c->pairs++;
        if (spx__tile8_culled(m->A->bits[ta], m->B->bits[tb])) continue;
        bits |= spx__tile8_product(m->A->bits[ta], m->B->bits[tb]);
        c->tasks++;
        if (o) {
            o->L->a[o->task] = ta;
            o->L->b[o->task++] = tb;
        }
    }
    close_group(c, o, I, J, bits, first);
}

/* Tiles in A's longest tile row. */
static int64_t widest_row(const spx__tile8 *A)
{
    int64_t w = 0;
    for (int64_t I = 0; I < A->trows; I++)
        if (A->ptr[I + 1] - A->ptr[I] > w) w = A->ptr[I + 1] - A->ptr[I];
    return w;
}

/* Per thread merge arrays for rows of up to w tiles. */
static spx_status merges_alloc(const spx__tile8 *A, const spx__tile8 *B, int threads,
                               pair_merge **out)
{
    const int64_t w = widest_row(A);
    pair_merge *m = NULL;
    int64_t *space = NULL;
    spx_status st;
    *out = NULL;
    SPX_TRY(spx__calloc((void **)&m, (size_t)threads, sizeof *m, "task merges"));
    SPX_TRY(spx__alloc((void **)&space, (size_t)threads * 3 * ((size_t)w + 1), sizeof *space,
                       "task merge heaps"));
    for (int t = 0; t < threads; t++) {
        m[t].A = A;
        m[t].B = B;
        m[t].pos = space + (size_t)t * 3 * ((size_t)w + 1);
        m[t].end = m[t].pos + w + 1;
        m[t].heap = m[t].end + w + 1;
    }
    *out = m;
    return SPX_OK;
cleanup:
    spx__free(m);
    return st;
}

static void merges_free(pair_merge *m)
{
    if (m) spx__free(m[0].pos);
    spx__free(m);
}

static spx_status check_shapes(const spx__tile8 *A, const spx__tile8 *B)
{
    if (A->cols != B->rows)
        return spx__error(SPX_ERR_DIM_MISMATCH, "tiles of A (%lld columns) and B (%lld rows)",
                          (long long)A->cols, (long long)B->rows);
    return SPX_OK;
}

/* Pass 1 over every tile row: totals in *c, and with per_row (2 * trows
 * entries) each row's tasks and tiles of C. */
static spx_status count_rows(const spx__tile8 *A, const spx__tile8 *B, spx__tile8_counts *c,
                             int64_t *per_row)
{
    const int threads = omp_get_max_threads();
    int64_t pairs = 0, tasks = 0, ctiles = 0, cnnz = 0;
    pair_merge *m = NULL;
    spx_status st = merges_alloc(A, B, threads, &m);
    if (st != SPX_OK) return st;
#pragma omp parallel num_threads(threads) reduction(+ : pairs, tasks, ctiles, cnnz)
    {
        pair_merge *my = &m[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 16)
        for (int64_t I = 0; I < A->trows; I++) {
            spx__tile8_counts r = {0, 0, 0, 0};
            task_row(my, I, &r, NULL);
            pairs += r.pairs;
            tasks += r.tasks;
            ctiles += r.ctiles;
            cnnz += r.cnnz;
            if (per_row) {
                per_row[2 * I] = r.tasks;
                per_row[2 * I + 1] = r.ctiles;
            }
        }
    }
    merges_free(m);
    c->pairs = pairs;
    c->tasks = tasks;
    c->ctiles = ctiles;
    c->cnnz = cnnz;
    return SPX_OK;
}

/* Bytes of the dense count slots of all threads at most (24 a tile column). */
#define COUNT_SLOTS_MAX ((int64_t)1 << 28)

/* One thread's slots: seen[J] = 1 + the last tile row that met column J,
 * bits[J] its pattern there; cols lists the row's columns. */
typedef struct count_slots {
    int64_t *seen, *cols;
    uint64_t *bits;
} count_slots;

/* Add tile row I's counts to c. */
static void count_row(const spx__tile8 *A, const spx__tile8 *B, int64_t I, count_slots *w,
                      spx__tile8_counts *c)
{
    int64_t n = 0;
    for (int64_t ta = A->ptr[I]; ta < A->ptr[I + 1]; ta++) {
        const int64_t K = A->col[ta];
        c->pairs += B->ptr[K + 1] - B->ptr[K];
        for (int64_t tb = B->ptr[K]; tb < B->ptr[K + 1]; tb++) {
            if (spx__tile8_culled(A->bits[ta], B->bits[tb])) continue;
            const int64_t J = B->col[tb];
            if (w->seen[J] != I + 1) {
                w->seen[J] = I + 1;
                w->bits[J] = 0;
                w->cols[n++] = J;
            }
            w->bits[J] |= spx__tile8_product(A->bits[ta], B->bits[tb]);
            c->tasks++;
        }
    }
    c->ctiles += n;
    for (int64_t q = 0; q < n; q++) c->cnnz += spx__tile8_popc(w->bits[w->cols[q]]);
}

static spx_status count_dense(const spx__tile8 *A, const spx__tile8 *B, int threads,
                              spx__tile8_counts *c)
{
    const size_t tc = (size_t)B->tcols + 1;
    int64_t *space = NULL, pairs = 0, tasks = 0, ctiles = 0, cnnz = 0;
    spx_status st = spx__calloc((void **)&space, (size_t)threads * 3, tc * sizeof *space,
                                "tile count slots");
    if (st != SPX_OK) return st;
#pragma omp parallel num_threads(threads) reduction(+ : pairs, tasks, ctiles, cnnz)
    {
        int64_t *mine = space + (size_t)omp_get_thread_num() * 3 * tc;
        count_slots w = {mine, mine + tc, (uint64_t *)(mine + 2 * tc)};
#pragma omp for schedule(dynamic, 16)
        for (int64_t I = 0; I < A->trows; I++) {
            spx__tile8_counts r = {0, 0, 0, 0};
            count_row(A, B, I, &w, &r);
            pairs += r.pairs;
            tasks += r.tasks;
            ctiles += r.ctiles;
            cnnz += r.cnnz;
        }
    }
    spx__free(space);
    c->pairs = pairs;
    c->tasks = tasks;
    c->ctiles = ctiles;
    c->cnnz = cnnz;
    return SPX_OK;
}

spx_status spx__tile8_count(const spx__tile8 *A, const spx__tile8 *B, spx__tile8_counts *c)
{
    const int threads = omp_get_max_threads();
    spx_status st = check_shapes(A, B);
    if (st != SPX_OK) return st;
    if ((B->tcols + 1) * 24 * (int64_t)threads <= COUNT_SLOTS_MAX)
        return count_dense(A, B, threads, c);
    return count_rows(A, B, c, NULL);
}

void spx__tile8_tasks_free(spx__tile8_tasks *L)
{
    if (!L) return;
    spx__free(L->a);
    spx__free(L->b);
    spx__free(L->cstart);
    spx__free(L->crow);
    spx__free(L->ccol);
    spx__free(L->cbits);
    memset(L, 0, sizeof *L);
}

/* per_row: each row's tasks and tiles of C, made exclusive prefix sums. */
static void row_offsets(int64_t *per_row, int64_t trows)
{
    int64_t task = 0, ctile = 0;
    for (int64_t I = 0; I < trows; I++) {
        const int64_t t = per_row[2 * I], c = per_row[2 * I + 1];
        per_row[2 * I] = task;
        per_row[2 * I + 1] = ctile;
        task += t;
        ctile += c;
    }
}

static spx_status tasks_alloc(spx__tile8_tasks *L)
{
    spx_status st;
    SPX_TRY(spx__alloc((void **)&L->a, (size_t)L->n, sizeof *L->a, "tile tasks"));
    SPX_TRY(spx__alloc((void **)&L->b, (size_t)L->n, sizeof *L->b, "tile tasks"));
    SPX_TRY(spx__alloc((void **)&L->cstart, (size_t)L->nc + 1, sizeof *L->cstart, "C tiles"));
    SPX_TRY(spx__alloc((void **)&L->crow, (size_t)L->nc, sizeof *L->crow, "C tiles"));
    SPX_TRY(spx__alloc((void **)&L->ccol, (size_t)L->nc, sizeof *L->ccol, "C tiles"));
    SPX_TRY(spx__alloc((void **)&L->cbits, (size_t)L->nc, sizeof *L->cbits, "C tiles"));
cleanup:
    return st;
}

spx_status spx__tile8_tasks_build(const spx__tile8 *A, const spx__tile8 *B, spx__tile8_tasks *L)
{
    const int threads = omp_get_max_threads();
    spx__tile8_counts c = {0, 0, 0, 0};
    int64_t *per_row = NULL;
    pair_merge *m = NULL;
    spx_status st;
    memset(L, 0, sizeof *L);
    SPX_TRY(check_shapes(A, B));
    SPX_TRY(spx__alloc((void **)&per_row, 2 * (size_t)A->trows + 1, sizeof *per_row,
                       "task row counts"));
    SPX_TRY(count_rows(A, B, &c, per_row));
    row_offsets(per_row, A->trows);
    L->pairs = c.pairs;
    L->n = c.tasks;
    L->nc = c.ctiles;
    SPX_TRY(tasks_alloc(L));
    SPX_TRY(merges_alloc(A, B, threads, &m));
#pragma omp parallel num_threads(threads)
    {
        pair_merge *my = &m[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 16)
        for (int64_t I = 0; I < A->trows; I++) {
            spx__tile8_counts r = {0, 0, 0, 0};
            row_out o = {L, per_row[2 * I], per_row[2 * I + 1]};
            task_row(my, I, &r, &o);
        }
    }
    L->cstart[L->nc] = L->n;
cleanup:
    merges_free(m);
    spx__free(per_row);
    if (st != SPX_OK) spx__tile8_tasks_free(L);
    return st;
}
