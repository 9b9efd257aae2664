/* Matrix statistics (spx_matrix_stats).
 *
 * Row lengths l_i = rowptr[i+1] - rowptr[i], i = 0..m-1:
 *   rave = nnz / m,  rsd = sqrt(sum_i (l_i - rave)^2 / m)  (population deviation,
 *   as in the table of ../shared/matrices/README.md),  rsdp = 100 * rsd / rave.
 * Row classes follow DASP: lengths 1..4 (short), 5..255 (medium), exactly 256,
 * over 256 (long), and empty rows.
 * tiles8 counts the distinct 8x8 tiles (i/8, j/8) holding an entry. Rows are
 * scanned 8 at a time; a byte per column tile marks the tiles seen in the current
 * block and is reset at the touched entries only, so the cost is O(nnz) plus one
 * marker array of cols/8 bytes per thread. Very wide matrices (markers of all
 * threads over SPX__STATS_MARKER_MAX bytes) merge the 8 sorted rows of a block.
 * symmetric: square and, for every entry a_ij, a_ji is stored with the same value
 * (found by binary search in the sorted row j).
 * iso, iso_value: spx_matrix_iso (core/iso.c), every stored value the same.
 */
#include <math.h>
#include <omp.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"

/* Largest tile markers of all threads together (bytes); wider: the merge. */
#define SPX__STATS_MARKER_MAX ((int64_t)1 << 26)

typedef struct row_counts {
    int64_t rmin, rmax, empty, len[5], medium, exact256, longer;
} row_counts;

static void row_counts_add(row_counts *c, int64_t l)
{
    if (l < c->rmin) c->rmin = l;
    if (l > c->rmax) c->rmax = l;
    if (l == 0)
        c->empty++;
    else if (l <= 4)
        c->len[l]++;
    else if (l <= 255)
        c->medium++;
    else if (l == 256)
        c->exact256++;
    else
        c->longer++;
}

static void row_counts_merge(row_counts *into, const row_counts *c)
{
    if (c->rmin < into->rmin) into->rmin = c->rmin;
    if (c->rmax > into->rmax) into->rmax = c->rmax;
    into->empty += c->empty;
    for (int l = 1; l <= 4; l++)
        into->len[l] += c->len[l];
    into->medium += c->medium;
    into->exact256 += c->exact256;
    into->longer += c->longer;
}

/* Length extremes and classes of every row, and rsd (two passes over rowptr). */
static void row_length_stats(const spx_matrix *A, spx_stats *s)
{
    const int64_t m = A->rows;
    row_counts all = {.rmin = m > 0 ? INT64_MAX : 0};
    double ave = m > 0 ? (double)A->nnz / (double)m : 0.0, ss = 0.0;
#pragma omp parallel reduction(+ : ss)
    {
        row_counts mine = {.rmin = INT64_MAX};
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < m; i++) {
            int64_t l = spx__row_off(A, i + 1) - spx__row_off(A, i);
            double d = (double)l - ave;
            ss += d * d;
            row_counts_add(&mine, l);
        }
#pragma omp critical(spx_stats_rows)
        row_counts_merge(&all, &mine);
    }
    s->rmin = all.rmin;
    s->rmax = all.rmax;
    s->rave = ave;
    s->rsd = m > 0 ? sqrt(ss / (double)m) : 0.0;
    s->rsdp = ave > 0.0 ? 100.0 * s->rsd / ave : 0.0;
    s->empty_rows = all.empty;
    s->rows_len1 = all.len[1];
    s->rows_len2 = all.len[2];
    s->rows_len3 = all.len[3];
    s->rows_len4 = all.len[4];
    s->rows_5_255 = all.medium;
    s->rows_256 = all.exact256;
    s->rows_gt256 = all.longer;
}

/* Distinct column tiles of rows [r0, r1) with a zeroed marker, left zeroed. */
static int64_t block_tiles_marker(const spx_matrix *A, int64_t r0, int64_t r1, unsigned char *mark)
{
    int64_t b = spx__row_off(A, r0), e = spx__row_off(A, r1), n = 0;
    for (int64_t k = b; k < e; k++) {
        int64_t t = spx__col(A, k) >> 3;
        n += !mark[t];
        mark[t] = 1;
    }
    for (int64_t k = b; k < e; k++)
        mark[spx__col(A, k) >> 3] = 0;
    return n;
}

int64_t spx__block_tiles8(const spx_matrix *A, int64_t r0, int64_t r1)
{
    int64_t pos[8], end[8], n = 0, nr = r1 - r0;
    for (int64_t r = 0; r < nr; r++) {
        pos[r] = spx__row_off(A, r0 + r);
        end[r] = spx__row_off(A, r0 + r + 1);
    }
    for (;;) {
        int64_t t = INT64_MAX;
        for (int64_t r = 0; r < nr; r++)
            if (pos[r] < end[r] && (spx__col(A, pos[r]) >> 3) < t) t = spx__col(A, pos[r]) >> 3;
        if (t == INT64_MAX) return n;
        n++;
        for (int64_t r = 0; r < nr; r++)
            while (pos[r] < end[r] && (spx__col(A, pos[r]) >> 3) == t)
                pos[r]++;
    }
}

/* Number of non-empty 8x8 tiles. */
static spx_status count_tiles8(const spx_matrix *A, int64_t *tiles)
{
    int64_t blocks = (A->rows + 7) / 8, ctiles = (A->cols + 7) / 8, total = 0;
    int nt = omp_get_max_threads(), use_marker = ctiles <= SPX__STATS_MARKER_MAX / nt;
    unsigned char *mark = NULL;
    spx_status st = SPX_OK;
    if (use_marker)
        SPX_TRY(spx__calloc((void **)&mark, (size_t)nt, (size_t)ctiles, "tile markers"));
#pragma omp parallel num_threads(nt) reduction(+ : total)
    {
        unsigned char *my =
            use_marker ? mark + (size_t)omp_get_thread_num() * (size_t)ctiles : NULL;
#pragma omp for schedule(dynamic, 256)
        for (int64_t bl = 0; bl < blocks; bl++) {
            int64_t r0 = bl * 8, r1 = r0 + 8 < A->rows ? r0 + 8 : A->rows;
            total += my ? block_tiles_marker(A, r0, r1, my) : spx__block_tiles8(A, r0, r1);
        }
    }
    *tiles = total;
cleanup:
    spx__free(mark);
    return st;
}

/* Position of column j in row i of A, or -1 (rows are sorted). */
static int64_t find_in_row(const spx_matrix *A, int64_t i, int64_t j)
{
    int64_t lo = spx__row_off(A, i), hi = spx__row_off(A, i + 1);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2, c = spx__col(A, mid);
        if (c == j) return mid;
        if (c < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Values compared in their stored type, so fp32 matrices compare exactly too. */
static int same_value(const spx_matrix *A, int64_t k, int64_t q)
{
    if (A->vtype == SPX_F32) return ((const float *)A->values)[k] == ((const float *)A->values)[q];
    return ((const double *)A->values)[k] == ((const double *)A->values)[q];
}

int64_t spx__row_first_at_least(const spx_matrix *A, int64_t i, int64_t j)
{
    int64_t lo = spx__row_off(A, i), hi = spx__row_off(A, i + 1);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (spx__col(A, mid) < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A = A^T iff as many entries lie below the diagonal as above, and each
 * entry above, a_ij with j > i, has an a_ji of the same value: the mirrors
 * of the entries above are then distinct entries below, and all of them.
 * Half the searches of checking every entry. */
int spx__matrix_symmetric(const spx_matrix *A)
{
    int asym = 0;
    int64_t below = 0, above = 0;
    if (A->rows != A->cols) return 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(| : asym) reduction(+ : below, above)
    for (int64_t i = 0; i < A->rows; i++) {
        const int64_t b = spx__row_off(A, i), e = spx__row_off(A, i + 1);
        int64_t k = spx__row_first_at_least(A, i, i);
        below += k - b;
        if (k < e && spx__col(A, k) == i) k++;
        above += e - k;
        for (; k < e && !asym; k++) {
            int64_t q = find_in_row(A, spx__col(A, k), i);
            asym = q < 0 || !same_value(A, k, q);
        }
    }
    return !asym && below == above;
}

spx_status spx_matrix_stats(const spx_matrix *A, spx_stats *s)
{
    spx_status st = spx__check_matrix(A, "spx_matrix_stats");
    if (st != SPX_OK) return st;
    if (!s) return spx__error(SPX_ERR_INVALID_ARG, "statistics output pointer is NULL");
    spx_stats out = {.rows = A->rows, .cols = A->cols, .nnz = A->nnz};
    row_length_stats(A, &out);
    st = count_tiles8(A, &out.tiles8);
    if (st != SPX_OK) return st;
    out.tile_density = out.tiles8 > 0 ? (double)out.nnz / (double)out.tiles8 : 0.0;
    out.symmetric = spx__matrix_symmetric(A);
    out.iso = spx_matrix_iso(A, &out.iso_value);
    *s = out;
    spx__clear_error();
    return SPX_OK;
}
