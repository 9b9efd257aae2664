/* The CUDA hbp format's layout (src/cuda/hbp/hbp_build.c), built on the host
 * and checked without a GPU:
 *  - structure: blocks in column-major order, each block's lanes exactly its
 *    rows (every row of the row block when full, else the rows with entries),
 *    lanes of a group by non-increasing length, pads last, groups in hash (or
 *    decreasing-length) order, the hash's parameters as hbp_rules.h defines;
 *  - decoding: every entry of A found once, through the lanes' steps and
 *    again through the paper's add_sign and zero_row (its Algorithm 3);
 *  - tiles: each group's steps covered in order, lane tiles of at most T
 *    steps, coop tiles over a constant count of lanes, entry offsets right;
 *  - new values: the walk that places them (tile_entries of hbp_prep.cu)
 *    through the lanes' first entries meets every entry of A once, at the
 *    place that holds its value and column;
 *  - arithmetic: an emulation of the kernel and combine steps (the tiles'
 *    sums in the kernel's order, then the direct, owner or paper combine)
 *    against the long-double reference, |y - ref| <= 64 eps (|A||x|);
 *  - errors: bad block shapes and too many blocks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/alloc.h"
#include "core/matrix.h"
#include "cuda/hbp/hbp_rules.h"

#define W SPX__HBP_W
#define TOL (64.0 * 0x1.0p-53)

static double layout_value(const spx__hbp *h, int64_t e)
{
    return h->vtype == SPX_F64 ? ((const double *)h->values)[e]
                               : (double)((const float *)h->values)[e];
}

/* The column of entry e of a tile whose block starts at column col0. */
static int64_t layout_col(const spx__hbp *h, int64_t e, int64_t col0)
{
    return h->col16 ? col0 + ((const uint16_t *)h->col)[e] : ((const int32_t *)h->col)[e];
}

/* Block b's first column and the group's block. */
static int64_t block_of_group(const spx__hbp *h, int64_t g)
{
    int64_t lo = 0, hi = h->n_blocks - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi + 1) / 2;
        if (h->blk_group[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The first entry of row i at column c or beyond (columns are sorted). */
static int64_t lower_col(const spx_matrix *A, int64_t i, int64_t c)
{
    int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1];
    while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (A->col32[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Entries of row i in columns [c0, c1). */
static int64_t piece_len(const spx_matrix *A, int64_t i, int64_t c0, int64_t c1)
{
    return lower_col(A, i, c1) - lower_col(A, i, c0);
}

/* Lanes of each block: its rows, once each, lengths right, non-increasing in a
 * group, pads last; blocks column-major. */
static int blocks_ok(const spx_matrix *A, const spx__hbp *h, int full)
{
    char *seen = calloc((size_t)h->N, 1);
    int ok = h->blk_group[0] == 0 && h->blk_group[h->n_blocks] == h->n_groups;
    for (int64_t b = 0; ok && b < h->n_blocks; b++) {
        const int64_t r = h->blk_r[b], c0 = (int64_t)h->blk_c[b] * h->M, c1 = c0 + h->M;
        if (b > 0)
            ok = h->blk_c[b] > h->blk_c[b - 1] ||
                 (h->blk_c[b] == h->blk_c[b - 1] && r > h->blk_r[b - 1]);
        memset(seen, 0, (size_t)h->N);
        int64_t real = 0, want = 0;
        for (int64_t g = h->blk_group[b]; ok && g < h->blk_group[b + 1]; g++)
            for (int l = 0; ok && l < W; l++) {
                const int64_t li = g * W + l;
                const uint16_t row = h->lane_row[li];
                if (l > 0) ok = h->lane_len[li] <= h->lane_len[li - 1];
                if (l > 0 && h->lane_row[li - 1] == SPX__HBP_ROW_PAD)
                    ok = ok && row == SPX__HBP_ROW_PAD;
                if (row == SPX__HBP_ROW_PAD) {
                    ok = ok && h->lane_len[li] == 0 && g == h->blk_group[b + 1] - 1;
                    continue;
                }
                const int64_t i = r * h->N + row;
                ok = ok && row < h->N && i < A->rows && !seen[row] &&
                     (int64_t)h->lane_len[li] == piece_len(A, i, c0, c1) &&
                     (full || h->lane_len[li] > 0);
                seen[row] = 1;
                real++;
            }
        for (int64_t i = r * h->N; i < (r + 1) * h->N && i < A->rows; i++)
            want += full || piece_len(A, i, c0, c1) > 0;
        ok = ok && real == want && real > 0;
    }
    free(seen);
    return ok;
}

/* Groups of a block in hash order: keys do not decrease from group to group
 * (decreasing length for SPX__HBP_SORT). */
static int order_ok(const spx__hbp *h)
{
    for (int64_t b = 0; b < h->n_blocks; b++) {
        uint32_t prev_hi = 0, prev_lo = UINT32_MAX;
        for (int64_t g = h->blk_group[b]; g < h->blk_group[b + 1]; g++) {
            uint32_t lo = UINT32_MAX, hi = 0;
            for (int l = 0; l < W; l++) {
                const int64_t li = g * W + l;
                if (h->lane_row[li] == SPX__HBP_ROW_PAD) continue;
                const uint32_t k = h->order == SPX__HBP_SORT
                                       ? h->lane_len[li]
                                       : spx__hbp_key(h->hash, h->lane_len[li]);
                lo = k < lo ? k : lo;
                hi = k > hi ? k : hi;
            }
            if (g > h->blk_group[b] && (h->order == SPX__HBP_SORT ? hi > prev_lo : lo < prev_hi))
                return 0;
            prev_hi = hi;
            prev_lo = lo;
        }
    }
    return 1;
}

/* a: 90% of the pieces have len >> a < 8, and a - 1 would not do. */
static int hash_ok(const spx_matrix *A, const spx__hbp *h)
{
    int64_t total = 0, fit = 0, fit_less = 0;
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t c = 0; c < h->C; c++) {
            const int64_t n = piece_len(A, i, c * h->M, (c + 1) * h->M);
            if (n == 0) continue;
            total++;
            fit += (n >> h->hash.a) < 8;
            fit_less += h->hash.a > 0 && (n >> (h->hash.a - 1)) < 8;
        }
    int lb = 0;
    while ((1 << (lb + 1)) <= h->hash.b)
        lb++;
    return h->hash.b == h->N / 16 && h->hash.c == (h->hash.a > lb ? h->hash.a - lb : 0) &&
           h->hash.d == 1 << (h->hash.a - h->hash.c) && 10 * fit >= 9 * total &&
           (h->hash.a == 0 || 10 * fit_less < 9 * total);
}

/* Every entry of A once, through the lanes' steps, lane by lane: entry k of
 * lane l of group g at group_entry[g] + sum_l' min(len[l'], k) + l. */
static int decode_steps(const spx_matrix *A, const spx__hbp *h)
{
    int64_t found = 0;
    for (int64_t g = 0; g < h->n_groups; g++) {
        const int64_t b = block_of_group(h, g), col0 = (int64_t)h->blk_c[b] * h->M;
        const uint32_t *len = h->lane_len + g * W;
        for (int l = 0; l < W; l++) {
            const int64_t i = (int64_t)h->blk_r[b] * h->N + h->lane_row[g * W + l];
            for (uint32_t k = 0; k < len[l]; k++, found++) {
                int64_t before = 0, a = lower_col(A, i, col0) + k; /* entry k of row i in b */
                for (int m = 0; m < W; m++)
                    before += len[m] < k ? len[m] : k;
                const int64_t pos = h->group_entry[g] + before + l;
                if (a >= A->rowptr[i + 1] || pos >= h->group_entry[g + 1] ||
                    layout_col(h, pos, col0) != A->col32[a] ||
                    layout_value(h, pos) != spx__val(A, a))
                    return 0;
            }
        }
    }
    return found == A->nnz && h->group_entry[h->n_groups] == A->nnz;
}

/* The paper's Algorithm 3: lane l of group g starts at begin + l -
 * zero_row[l] and follows add_sign to its row's last entry. */
static int decode_paper(const spx_matrix *A, const spx__hbp *h)
{
    int8_t *add_sign = NULL, *zero_row = NULL;
    int ok = spx__hbp_paper_arrays(h, &add_sign, &zero_row) == SPX_OK;
    int64_t found = 0;
    for (int64_t g = 0; ok && g < h->n_groups; g++) {
        const int64_t b = block_of_group(h, g), col0 = (int64_t)h->blk_c[b] * h->M;
        for (int l = 0; ok && l < W; l++) {
            const int64_t li = g * W + l;
            if (zero_row[li] == -1) {
                ok = h->lane_len[li] == 0;
                continue;
            }
            const int64_t i = (int64_t)h->blk_r[b] * h->N + h->lane_row[li];
            int64_t j = h->group_entry[g] + l - zero_row[li], a = lower_col(A, i, col0);
            for (;; j += add_sign[j], a++, found++) {
                ok = a < A->rowptr[i + 1] && layout_col(h, j, col0) == A->col32[a] &&
                     layout_value(h, j) == spx__val(A, a);
                if (!ok || add_sign[j] < 0) break;
            }
            found += ok;
        }
    }
    spx__free(add_sign);
    spx__free(zero_row);
    return ok && found == A->nnz;
}

/* Tiles cover each group's steps in order, within the rule's limits. */
static int tiles_ok(const spx__hbp *h)
{
    for (int64_t g = 0; g < h->n_groups; g++) {
        const uint32_t *len = h->lane_len + g * W;
        const int64_t b = block_of_group(h, g), t0 = h->group_tile[g], t1 = h->group_tile[g + 1];
        uint32_t next = 0;
        for (int64_t t = t0; t < t1; t++) {
            const spx__hbp_tile *tl = &h->tiles[t];
            int bad = tl->group != g || tl->s0 != next || tl->s1 < tl->s0 ||
                      (tl->s1 == tl->s0 && !(len[0] == 0 && t1 - t0 == 1)) ||
                      tl->entry != h->group_entry[g] + spx__hbp_entries_before(len, tl->s0) ||
                      tl->row0 != (int64_t)h->blk_r[b] * h->N ||
                      tl->col0 != (int64_t)h->blk_c[b] * h->M;
            if (tl->alive == 0) {
                bad = bad || (h->T > 0 && tl->s1 - tl->s0 > h->T);
            } else {
                const int gt = spx__hbp_coop_threads(tl->alive);
                bad = bad || tl->alive > 16 || h->T == 0 || tl->s1 - tl->s0 > (uint64_t)gt * h->T ||
                      len[tl->alive - 1] < tl->s1 || (tl->alive < W && len[tl->alive] > tl->s0);
            }
            const int direct = h->combine == SPX__HBP_DIRECT && t1 - t0 == 1;
            bad = bad || !(tl->flags & SPX__HBP_TILE_DIRECT) != !direct ||
                  !(tl->flags & SPX__HBP_TILE_PAPER) != !(h->combine == SPX__HBP_PAPER) ||
                  (h->combine == SPX__HBP_PAPER && tl->pbase != b * h->N) ||
                  (h->combine != SPX__HBP_PAPER && tl->pbase != W * t);
            if (bad) return 0;
            next = tl->s1;
        }
        if (next != len[0] || t1 <= t0) return 0;
    }
    return h->group_tile[h->n_groups] == h->n_tiles;
}

/* Entry a of A at place pos of a tile whose block starts at column col0:
 * met once, with its value and column there. */
static int placed(const spx_matrix *A, const spx__hbp *h, char *seen, int64_t pos, int64_t a,
                  int64_t col0)
{
    if (a < 0 || a >= A->nnz || pos < 0 || pos >= h->nnz || seen[a]) return 0;
    seen[a] = 1;
    return layout_value(h, pos) == spx__val(A, a) && layout_col(h, pos, col0) == A->col32[a];
}

/* The walk of new values (tile_entries of hbp_prep.cu), tile by tile: lane
 * tiles step by step over the lanes with entries, coop tiles entry e at
 * entry + e of lane e % alive, step s0 + e / alive; entry k of a lane is A's
 * lane_first + k. Every entry of A met once, where its value is. */
static int firsts_ok(const spx_matrix *A, const spx__hbp *h)
{
    char *seen = calloc((size_t)A->nnz + 1, 1);
    int ok = h->lane_first != NULL;
    int64_t met = 0;
    for (int64_t t = 0; ok && t < h->n_tiles; t++) {
        const spx__hbp_tile *tl = &h->tiles[t];
        const uint32_t *len = h->lane_len + (int64_t)tl->group * W;
        const int32_t *first = h->lane_first + (int64_t)tl->group * W;
        if (tl->alive == 0) {
            int64_t base = tl->entry;
            for (uint32_t k = tl->s0; ok && k < tl->s1; k++) {
                int alive = 0;
                for (int l = 0; ok && l < W && len[l] > k; l++, alive++, met++)
                    ok = placed(A, h, seen, base + l, (int64_t)first[l] + k, tl->col0);
                base += alive;
            }
        } else {
            const int64_t n = (int64_t)tl->alive * (tl->s1 - tl->s0);
            for (int64_t e = 0; ok && e < n; e++, met++)
                ok = placed(A, h, seen, tl->entry + e,
                            (int64_t)first[e % tl->alive] + tl->s0 + e / tl->alive, tl->col0);
        }
    }
    free(seen);
    return ok && met == A->nnz;
}

/* The sum of one tile for each lane, in the kernel's order (hbp_spmv.cu). */
static void tile_sums(const spx__hbp *h, const spx__hbp_tile *tl, const double *x, double sum[W])
{
    const uint32_t *len = h->lane_len + (int64_t)tl->group * W;
    for (int l = 0; l < W; l++)
        sum[l] = 0.0;
    if (tl->alive == 0) { /* a lane per row, step by step */
        int64_t pos = tl->entry;
        for (uint32_t k = tl->s0; k < tl->s1; k++) {
            int a = 0;
            while (a < W && len[a] > k)
                a++;
            for (int l = 0; l < a; l++)
                sum[l] += layout_value(h, pos + l) * x[layout_col(h, pos + l, tl->col0)];
            pos += a;
        }
        return;
    }
    const int A = tl->alive, g = spx__hbp_coop_threads((uint32_t)A);
    const uint32_t steps = tl->s1 - tl->s0;
    double th[W] = {0};
    for (int t = 0; t < A * g; t++) /* thread t: row t / g, steps t % g, + g, ... */
        for (uint32_t j = (uint32_t)(t % g); j < steps; j += (uint32_t)g) {
            const int64_t e = tl->entry + (int64_t)j * A + t / g;
            th[t] += layout_value(h, e) * x[layout_col(h, e, tl->col0)];
        }
    for (int off = g / 2; off > 0; off /= 2) /* shuffle-down tree inside each row's g threads */
        for (int t = 0; t < W; t++)
            if (t % g + off < g) th[t] += th[t + off];
    for (int l = 0; l < A; l++)
        sum[l] = th[l * g];
}

static double finish(double s, double alpha, double beta, double y)
{
    return beta == 0.0 ? alpha * s : alpha * s + beta * y;
}

/* Sum of lane l's partials over group g's tiles, in step order. */
static double lane_partials(const spx__hbp *h, const double *partial, int64_t g, int l)
{
    double s = 0.0;
    for (int64_t t = h->group_tile[g]; t < h->group_tile[g + 1]; t++)
        if (h->lane_len[g * W + l] > h->tiles[t].s0) s += partial[h->tiles[t].pbase + l];
    return s;
}

/* y = alpha A x + beta y through the layout: tiles, then the combine. */
static void emulate(const spx__hbp *h, double alpha, const double *x, double beta, double *y)
{
    const int64_t np = h->combine == SPX__HBP_PAPER ? h->n_blocks * h->N : W * h->n_tiles;
    double *partial = calloc((size_t)np + 1, sizeof *partial), sum[W];
    double *acc = calloc((size_t)h->N, sizeof *acc);
    for (int64_t t = 0; t < h->n_tiles; t++) {
        const spx__hbp_tile *tl = &h->tiles[t];
        tile_sums(h, tl, x, sum);
        for (int l = 0; l < W; l++) {
            const int64_t li = (int64_t)tl->group * W + l;
            const uint16_t row = h->lane_row[li];
            if (tl->flags & SPX__HBP_TILE_DIRECT) {
                if (row != SPX__HBP_ROW_PAD)
                    y[tl->row0 + row] = finish(sum[l], alpha, beta, y[tl->row0 + row]);
            } else if (tl->flags & SPX__HBP_TILE_PAPER) {
                if (row != SPX__HBP_ROW_PAD) partial[tl->pbase + row] = sum[l];
            } else if (h->lane_len[li] > tl->s0) {
                partial[tl->pbase + l] = sum[l];
            }
        }
    }
    for (int64_t m = 0; h->combine == SPX__HBP_DIRECT && m < h->n_multi; m++) {
        const int64_t g = h->multi[m], row0 = h->tiles[h->group_tile[g]].row0;
        for (int l = 0; l < W; l++)
            if (h->lane_row[g * W + l] != SPX__HBP_ROW_PAD) {
                const int64_t i = row0 + h->lane_row[g * W + l];
                y[i] = finish(lane_partials(h, partial, g, l), alpha, beta, y[i]);
            }
    }
    for (int64_t r = 0; h->combine != SPX__HBP_DIRECT && r < h->R; r++) {
        memset(acc, 0, (size_t)h->N * sizeof *acc);
        for (int64_t q = h->rb_ptr[r]; q < h->rb_ptr[r + 1]; q++) {
            const int64_t b = h->rb_list[q];
            for (int64_t i = 0; h->combine == SPX__HBP_PAPER && i < h->N; i++)
                acc[i] += partial[b * h->N + i];
            for (int64_t g = h->blk_group[b];
                 h->combine == SPX__HBP_OWNER && g < h->blk_group[b + 1]; g++)
                for (int l = 0; l < W; l++)
                    if (h->lane_row[g * W + l] != SPX__HBP_ROW_PAD)
                        acc[h->lane_row[g * W + l]] += lane_partials(h, partial, g, l);
        }
        for (int64_t i = r * h->N; i < (r + 1) * h->N && i < h->rows; i++)
            y[i] = finish(acc[i - r * h->N], alpha, beta, y[i]);
    }
    free(partial);
    free(acc);
}

static int arithmetic_ok(const spx_matrix *A, const spx__hbp *h)
{
    const int64_t m = A->rows, n = A->cols;
    double *x = malloc(((size_t)n + 1) * sizeof *x), *y0 = malloc(((size_t)m + 1) * sizeof *y0);
    double *y = malloc(((size_t)m + 1) * sizeof *y), *ref = malloc(((size_t)m + 1) * sizeof *ref);
    double *scale = malloc(((size_t)m + 1) * sizeof *scale);
    uint64_t seed = 99;
    int ok = 1;
    for (int64_t j = 0; j < n; j++)
        x[j] = spx_test_rand(&seed);
    for (int64_t i = 0; i < m; i++)
        y0[i] = spx_test_rand(&seed);
    static const double ab[2][2] = {{1.0, 0.0}, {-0.75, 2.0}};
    for (int k = 0; k < 2 && ok; k++) {
        for (int64_t i = 0; i < m; i++)
            y[i] = ab[k][1] == 0.0 ? NAN : y0[i];
        emulate(h, ab[k][0], x, ab[k][1], y);
        spx_test_reference(A, SPX_OP_N, ab[k][0], x, ab[k][1], y0, ref, scale);
        ok = spx_test_rel_err(y, ref, scale, m) <= TOL;
    }
    free(x), free(y0), free(y), free(ref), free(scale);
    return ok;
}

static const char *combine_name(int c)
{
    return c == SPX__HBP_DIRECT ? "direct" : c == SPX__HBP_OWNER ? "owner" : "paper";
}

/* Build A with o and check everything. */
static void check(const spx_matrix *A, const char *what, spx__hbp_opts o)
{
    spx__hbp h;
    if (!CHECK_STATUS(spx__hbp_build(A, &o, &h), SPX_OK)) {
        printf("  %s N=%lld M=%lld: %s\n", what, (long long)o.N, (long long)o.M, spx_last_error());
        return;
    }
    const int full = h.combine != SPX__HBP_OWNER;
    const int b = blocks_ok(A, &h, full), od = order_ok(&h), hs = hash_ok(A, &h);
    const int d = decode_steps(A, &h), p = decode_paper(A, &h), t = tiles_ok(&h);
    const int f = t ? firsts_ok(A, &h) : 0;
    const int e = b && d && t ? arithmetic_ok(A, &h) : 0;
    if (!CHECK(b && od && hs && d && p && t && f && e))
        printf("  %s N=%lld M=%lld T=%lld %s %s: blocks %d order %d hash %d steps %d paper %d "
               "tiles %d firsts %d arithmetic %d\n",
               what, (long long)o.N, (long long)o.M, (long long)o.T, combine_name(h.combine),
               o.order == SPX__HBP_SORT ? "sort" : "hash", b, od, hs, d, p, t, f, e);
    spx__hbp_free_host(&h);
}

static spx__hbp_opts opts(int64_t N, int64_t M, int64_t T, int combine, int order)
{
    spx__hbp_opts o = {N, M, T, combine, order, 0, SPX_F64};
    return o;
}

/* Every combination of block shape, tile length, combine and order. */
static void check_all(const spx_matrix *A, const char *what)
{
    const int64_t wide = A->cols > 0 ? A->cols : 1;
    const int64_t shapes[][2] = {{1024, wide}, {32, wide}, {64, 7}, {32, 100}, {256, 1000}};
    const int64_t tiles[] = {0, 8, 128};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
            for (int order = SPX__HBP_HASH; order <= SPX__HBP_SORT; order++) {
                check(A, what, opts(shapes[s][0], shapes[s][1], tiles[t], SPX__HBP_OWNER, order));
                if (tiles[t] == 0 &&
                    shapes[s][1] >= 100) /* paper: every row a slot of each block */
                    check(A, what, opts(shapes[s][0], shapes[s][1], 0, SPX__HBP_PAPER, order));
            }
}

/* Rows of the given lengths, columns spread over [0, n). */
static spx_matrix *rows_of(const int64_t *len, int64_t m, int64_t n, uint64_t seed)
{
    int64_t *rp = malloc(((size_t)m + 1) * sizeof *rp);
    rp[0] = 0;
    for (int64_t i = 0; i < m; i++)
        rp[i + 1] = rp[i] + len[i];
    int32_t *ci = malloc(((size_t)rp[m] + 1) * sizeof *ci);
    double *v = malloc(((size_t)rp[m] + 1) * sizeof *v);
    for (int64_t i = 0; i < m; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            const double step = (double)n / (double)len[i];
            ci[k] = (int32_t)((double)(k - rp[i]) * step +
                              (spx_test_rand(&seed) + 1.0) * 0.49 * (step - 1.0));
            v[k] = spx_test_rand(&seed);
        }
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(m, n, rp, ci, v, &A), SPX_OK);
    free(rp), free(ci), free(v);
    return A;
}

static void test_hand(void)
{
    static const int64_t lens[] = {0,   1,   2,    3,    5,    8,     31, 32, 33, 64, 100,   255,
                                   256, 257, 1000, 2048, 4097, 10000, 0,  0,  3,  1,  40000, 7};
    const int64_t m = (int64_t)(sizeof lens / sizeof lens[0]);
    spx_matrix *A = rows_of(lens, m, 40001, 3);
    if (A) check_all(A, "rows of 0..40000");
    spx_matrix_destroy(A);
    int64_t many[3000];
    for (int i = 0; i < 3000; i++)
        many[i] = i % 7 == 3 ? 0 : i % 97 == 0 ? 500 + i % 300 : 1 + i % 40;
    A = rows_of(many, 3000, 2500, 5);
    if (A) check_all(A, "3000 rows, rectangular");
    spx_matrix_destroy(A);
    int64_t dense[40];
    for (int i = 0; i < 40; i++)
        dense[i] = i == 17 ? 3000 : i % 5;
    A = rows_of(dense, 40, 3000, 7);
    if (A) check_all(A, "one dense row");
    spx_matrix_destroy(A);
    int64_t wide[5] = {3, 200000, 0, 12, 1};
    A = rows_of(wide, 5, 300000, 9);
    if (A) check_all(A, "very wide 5x300000");
    spx_matrix_destroy(A);
    static const int64_t rp0[] = {0, 0, 0, 0};
    static const int32_t ci0[] = {0};
    const int64_t shapes[3][2] = {{3, 0}, {0, 3}, {3, 3}};
    for (int s = 0; s < 3; s++) {
        A = NULL;
        CHECK_STATUS(spx_matrix_create_csr(shapes[s][0], shapes[s][1], rp0, ci0, NULL, &A), SPX_OK);
        if (A) check_all(A, "no entries");
        spx_matrix_destroy(A);
    }
}

static void test_generated(void)
{
    static const char *specs[] = {"rmat:scale=11,ef=16,sym=1", "rmat:scale=10,ef=8,perm=0",
                                  "circuit:n=6000,avg=4,long=4,longlen=3000",
                                  "powerlaw:n=4000,avg=12,alpha=1.8", "lap2d5:40"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_matrix *A = NULL;
        if (CHECK_STATUS(spx_generate(specs[i], &A), SPX_OK)) check_all(A, specs[i]);
        spx_matrix_destroy(A);
    }
    /* float values, x staged on every block of 1+ entries */
    spx_matrix *A = NULL, *B = NULL;
    if (CHECK_STATUS(spx_generate("rmat:scale=9,ef=8,values=random", &A), SPX_OK) &&
        CHECK_STATUS(spx_matrix_copy(A, SPX_F32, &B), SPX_OK)) {
        spx__hbp_opts o = opts(64, 100, 16, SPX__HBP_OWNER, SPX__HBP_HASH);
        o.stage_min = 1;
        check(B, "rmat scale 9, float", o);
        spx__hbp h;
        if (CHECK_STATUS(spx__hbp_build(B, &o, &h), SPX_OK))
            CHECK(h.n_staged == h.n_blocks && h.n_tiles > 0 &&
                  (h.tiles[0].flags & SPX__HBP_TILE_STAGE));
        spx__hbp_free_host(&h);
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* The hash groups similar lengths: the spread inside a group drops. */
static void test_spread(void)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate("powerlaw:n=20000,avg=16,alpha=2.1", &A), SPX_OK)) return;
    spx__hbp h;
    for (int order = SPX__HBP_HASH; order <= SPX__HBP_SORT; order++)
        if (CHECK_STATUS(
                spx__hbp_build(
                    A, &(spx__hbp_opts){1024, 20000, 128, SPX__HBP_OWNER, order, 0, SPX_F64}, &h),
                SPX_OK)) {
            printf("powerlaw n=20000 %s: a=%d b=%d c=%d d=%d, per-group sd %.2f -> %.2f\n",
                   order == SPX__HBP_SORT ? "sort" : "hash", h.hash.a, h.hash.b, h.hash.c, h.hash.d,
                   h.sd_before, h.sd_after);
            CHECK(h.sd_after < h.sd_before);
            spx__hbp_free_host(&h);
        }
    spx_matrix_destroy(A);
}

static void test_errors(void)
{
    spx_matrix *A = NULL;
    int64_t len[4] = {1, 2, 3, 4};
    A = rows_of(len, 4, 10, 1);
    spx__hbp h;
    static const int64_t bad_n[] = {0, 16, 48, 8192};
    for (size_t i = 0; A && i < sizeof bad_n / sizeof bad_n[0]; i++) {
        const spx__hbp_opts o = opts(bad_n[i], 10, 0, SPX__HBP_OWNER, SPX__HBP_HASH);
        CHECK_STATUS(spx__hbp_build(A, &o, &h), SPX_ERR_BAD_PARAM);
    }
    const spx__hbp_opts no_cols = opts(32, 0, 0, SPX__HBP_OWNER, SPX__HBP_HASH);
    if (A) CHECK_STATUS(spx__hbp_build(A, &no_cols, &h), SPX_ERR_BAD_PARAM);
    spx_matrix_destroy(A);
    /* 70000 x 70000 in blocks of 32 x 1: 2188 x 70000 blocks, refused before any work */
    static const int32_t ci0[] = {0};
    int64_t *rp0 = calloc(70001, sizeof *rp0);
    const spx__hbp_opts tiny = opts(32, 1, 0, SPX__HBP_OWNER, SPX__HBP_HASH);
    A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(70000, 70000, rp0, ci0, NULL, &A), SPX_OK);
    if (A) {
        CHECK_STATUS(spx__hbp_build(A, &tiny, &h), SPX_ERR_UNSUPPORTED);
        CHECK(h.tiles == NULL && h.n_tiles == 0);
    }
    spx_matrix_destroy(A);
    free(rp0);
}

int main(void)
{
    test_hand();
    test_generated();
    test_spread();
    test_errors();
    return spx_test_finish();
}
