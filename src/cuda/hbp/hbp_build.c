/* The hbp layout built on the host (layout: hbp_kernels.h; rules:
 * hbp_rules.h). Plain C, no CUDA: tests/test_hbp_build.c decodes what it
 * makes without a GPU, and the device build (hbp_prep.cu) must make the same
 * arrays. Steps, each a function below:
 *   pieces   count each (column block, row block)'s rows with entries, and a
 *            histogram of their lengths (the hash's sample);
 *   blocks   the stored blocks in column-major order and their slots;
 *   slots    each block's slots in row order: row, length, first entry;
 *   order    each block's slots by hash key (or by decreasing length);
 *   groups   32 ordered slots a group, lanes by decreasing length;
 *   tiles    each group's steps cut by spx__hbp_group_tiles;
 *   entries  scattered step by step (column-major within the group);
 *   firsts   each lane's first entry in A kept in 32 bits (new values). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/hbp/hbp_rules.h"

#define W SPX__HBP_W

spx_status spx__hbp_shape(int64_t rows, int64_t cols, int64_t nnz, const spx__hbp_opts *o,
                          spx__hbp *h)
{
    memset(h, 0, sizeof *h);
    if (o->N < W || o->N > SPX__HBP_MAX_ROWS || (o->N & (o->N - 1)))
        return spx__error(SPX_ERR_BAD_PARAM,
                          "hbp (cuda): rows=%lld is not a power of two from %d to %d",
                          (long long)o->N, W, SPX__HBP_MAX_ROWS);
    if (o->M < 1 || o->T < 0)
        return spx__error(SPX_ERR_BAD_PARAM, "hbp (cuda): cols=%lld or tile=%lld out of range",
                          (long long)o->M, (long long)o->T);
    const int64_t R = (rows + o->N - 1) / o->N, C = cols > o->M ? (cols + o->M - 1) / o->M : 1;
    if ((double)C * (double)R > (double)SPX__HBP_MAX_BLOCKS)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "hbp (cuda): rows=%lld and cols=%lld cut the matrix into %lld x %lld "
                          "blocks, more than %d; take larger blocks",
                          (long long)o->N, (long long)o->M, (long long)R, (long long)C,
                          SPX__HBP_MAX_BLOCKS);
    h->rows = rows;
    h->cols = cols;
    h->nnz = nnz;
    h->N = o->N;
    h->M = o->M;
    h->T = o->T;
    h->R = R;
    h->C = C;
    h->combine = C == 1 ? SPX__HBP_DIRECT : o->combine;
    h->order = o->order;
    h->col16 = o->M <= SPX__HBP_COL16;
    h->vtype = o->vtype;
    return SPX_OK;
}

spx_status spx__hbp_check(const spx_matrix *A, const spx__hbp_opts *o)
{
    spx__hbp h;
    if (A->col_bits != 32)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "hbp (cuda): needs 32-bit column indices; the matrix has %lld columns",
                          (long long)A->cols);
    if (A->rows > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED, "hbp (cuda): %lld rows, more than 2^31 - 1",
                          (long long)A->rows);
    return spx__hbp_shape(A->rows, A->cols, A->nnz, o, &h);
}

spx__hbp_hash spx__hbp_hash_of(const int64_t hist[SPX__HBP_BINS], int64_t N)
{
    spx__hbp_hash h = {0, (int)(N / 16), 0, 1};
    int64_t total = 0, cum = 0;
    int q = 0, lb = 0;
    for (int i = 0; i < SPX__HBP_BINS; i++)
        total += hist[i];
    /* q: the first bin at which 90% of the pieces are counted; they are
     * shorter than 2^(q+1), so len >> (q - 2) < 8 */
    for (q = 0; q < SPX__HBP_BINS - 1; q++) {
        cum += hist[q];
        if (10 * cum >= 9 * total) break;
    }
    h.a = q > 2 ? q - 2 : 0;
    while ((1 << (lb + 1)) <= h.b)
        lb++;
    h.c = h.a > lb ? h.a - lb : 0;
    h.d = 1 << (h.a - h.c);
    return h;
}

/* Work arrays of one build, freed at its end. */
typedef struct build_ctx {
    const spx_matrix *A;
    const spx__hbp_opts *o;
    spx__hbp *h;
    int full;            /* every row of a row block is a slot of its blocks */
    int64_t *cnt;        /* C * R (c major): rows of row block r with entries in column block c */
    int64_t *bid;        /* C * R: the stored block of (c, r), or -1 */
    int64_t *slot0;      /* n_blocks + 1: each block's first slot */
    uint16_t *s_row;     /* slots in row order per block: row within the row block */
    uint32_t *s_len;     /* its entries in the block */
    int64_t *s_first;    /* its first entry in A */
    int64_t *order;      /* slots in hash (or sort) order: the row-order slot at each */
    int64_t *lane_first; /* 32 n_groups: first entry in A of each lane's row piece */
    int64_t hist[SPX__HBP_BINS]; /* pieces by floor(log2 length) */
} build_ctx;

static int64_t rows_in(const build_ctx *x, int64_t r)
{
    const int64_t left = x->A->rows - r * x->o->N;
    return left < x->o->N ? left : x->o->N;
}

/* Calls piece(x, i, c, len, first) for each column block c where row i has
 * entries (columns sorted: one run each). */
static void each_piece(build_ctx *x, int64_t i,
                       void (*piece)(build_ctx *, int64_t, int64_t, int64_t, int64_t))
{
    const spx_matrix *A = x->A;
    int64_t k = spx__row_off(A, i);
    const int64_t end = spx__row_off(A, i + 1);
    while (k < end) {
        const int64_t c = A->col32[k] / x->o->M, first = k;
        while (k < end && A->col32[k] / x->o->M == c)
            k++;
        piece(x, i, c, k - first, first);
    }
}

static void count_piece(build_ctx *x, int64_t i, int64_t c, int64_t len, int64_t first)
{
    (void)first;
    x->cnt[c * x->h->R + i / x->o->N]++;
    x->hist[spx__hbp_bin((uint32_t)len)]++;
}

/* cnt, and the histogram of the pieces' lengths. */
static spx_status count_pieces(build_ctx *x)
{
    spx__hbp *h = x->h;
    spx_status st =
        spx__calloc((void **)&x->cnt, (size_t)(h->C * h->R), sizeof *x->cnt, "hbp block counts");
    if (st != SPX_OK) return st;
    for (int64_t i = 0; i < x->A->rows; i++)
        each_piece(x, i, count_piece);
    return SPX_OK;
}

/* The stored blocks, column-major: with C == 1 every row block, else those
 * with entries; their slots (full: every row of the row block). */
static spx_status place_blocks(build_ctx *x)
{
    spx__hbp *h = x->h;
    spx_status st = SPX_OK;
    const int64_t n = h->C * h->R;
    int64_t nb = 0;
    SPX_TRY(spx__alloc((void **)&x->bid, (size_t)n, sizeof *x->bid, "hbp block ids"));
    for (int64_t k = 0; k < n; k++)
        x->bid[k] = h->C == 1 || x->cnt[k] > 0 ? nb++ : -1;
    h->n_blocks = nb;
    SPX_TRY(spx__alloc((void **)&h->blk_r, (size_t)nb, sizeof *h->blk_r, "hbp block rows"));
    SPX_TRY(spx__alloc((void **)&h->blk_c, (size_t)nb, sizeof *h->blk_c, "hbp block columns"));
    SPX_TRY(spx__alloc((void **)&x->slot0, (size_t)nb + 1, sizeof *x->slot0, "hbp block slots"));
    x->slot0[0] = 0;
    for (int64_t k = 0; k < n; k++) {
        const int64_t b = x->bid[k], r = k % h->R;
        if (b < 0) continue;
        h->blk_r[b] = (int32_t)r;
        h->blk_c[b] = (int32_t)(k / h->R);
        x->slot0[b + 1] = x->slot0[b] + (x->full ? rows_in(x, r) : x->cnt[k]);
    }
    if (x->slot0[nb] > INT32_MAX)
        st = spx__error(SPX_ERR_UNSUPPORTED,
                        "hbp (cuda): %lld slots (rows of blocks), more than 2^31 - 1; take "
                        "combine=owner or larger blocks",
                        (long long)x->slot0[nb]);
cleanup:
    return st;
}

static void put_piece(build_ctx *x, int64_t i, int64_t c, int64_t len, int64_t first)
{
    const int64_t r = i / x->o->N, b = x->bid[c * x->h->R + r];
    int64_t s;
    if (x->full) {
        s = x->slot0[b] + i - r * x->o->N;
    } else { /* the next free slot of b: rows come in order */
        s = x->slot0[b] + x->cnt[c * x->h->R + r]++;
    }
    x->s_row[s] = (uint16_t)(i - r * x->o->N);
    x->s_len[s] = (uint32_t)len;
    x->s_first[s] = first;
}

/* Each block's slots in row order. Full blocks start with every row empty. */
static spx_status fill_slots(build_ctx *x)
{
    spx__hbp *h = x->h;
    const int64_t ns = x->slot0[h->n_blocks];
    spx_status st = SPX_OK;
    SPX_TRY(spx__alloc((void **)&x->s_row, (size_t)ns, sizeof *x->s_row, "hbp slot rows"));
    SPX_TRY(spx__alloc((void **)&x->s_len, (size_t)ns, sizeof *x->s_len, "hbp slot lengths"));
    SPX_TRY(spx__alloc((void **)&x->s_first, (size_t)ns, sizeof *x->s_first, "hbp slot entries"));
    for (int64_t b = 0; x->full && b < h->n_blocks; b++)
        for (int64_t s = x->slot0[b]; s < x->slot0[b + 1]; s++) {
            const int64_t i = (int64_t)h->blk_r[b] * x->o->N + s - x->slot0[b];
            x->s_row[s] = (uint16_t)(s - x->slot0[b]);
            x->s_len[s] = 0;
            x->s_first[s] = spx__row_off(x->A, i);
        }
    memset(x->cnt, 0, (size_t)(h->C * h->R) * sizeof *x->cnt); /* fill counters */
    for (int64_t i = 0; i < x->A->rows; i++)
        each_piece(x, i, put_piece);
cleanup:
    return st;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
    return p < q ? -1 : p > q;
}

/* order: each block's slots by (hash key, row order), or by (decreasing
 * length, row order) for SPX__HBP_SORT. */
static spx_status order_slots(build_ctx *x)
{
    spx__hbp *h = x->h;
    uint64_t *key = NULL;
    spx_status st = SPX_OK;
    SPX_TRY(spx__alloc((void **)&x->order, (size_t)x->slot0[h->n_blocks], sizeof *x->order,
                       "hbp slot order"));
    SPX_TRY(spx__alloc((void **)&key, (size_t)x->o->N, sizeof *key, "hbp sort keys"));
    for (int64_t b = 0; b < h->n_blocks; b++) {
        const int64_t s0 = x->slot0[b], n = x->slot0[b + 1] - s0;
        for (int64_t j = 0; j < n; j++) {
            const uint32_t len = x->s_len[s0 + j];
            const uint64_t k = h->order == SPX__HBP_SORT ? (uint64_t)(UINT32_MAX - len)
                                                         : spx__hbp_key(h->hash, len);
            key[j] = k << 32 | (uint64_t)j;
        }
        qsort(key, (size_t)n, sizeof *key, cmp_u64);
        for (int64_t j = 0; j < n; j++)
            x->order[s0 + j] = s0 + (int64_t)(key[j] & 0xffffffffu);
    }
cleanup:
    spx__free(key);
    return st;
}

/* Population standard deviation of the lengths of n slots. */
static double spread(const uint32_t *len, int n)
{
    double mean = 0.0, var = 0.0;
    for (int l = 0; l < n; l++)
        mean += len[l];
    mean /= n;
    for (int l = 0; l < n; l++)
        var += ((double)len[l] - mean) * ((double)len[l] - mean);
    return sqrt(var / n);
}

/* Group g (slots [q0, q0 + n) in hash order) into its lanes: decreasing
 * length, ties in hash order, then the pads. */
static void fill_group(build_ctx *x, int64_t g, int64_t q0, int n, int64_t row_s0)
{
    spx__hbp *h = x->h;
    uint64_t key[W];
    uint32_t before[W], after[W];
    for (int j = 0; j < n; j++) {
        const uint32_t len = x->s_len[x->order[q0 + j]];
        key[j] = (uint64_t)(UINT32_MAX - len) << 32 | (uint64_t)j;
        before[j] = x->s_len[row_s0 + j];
        after[j] = len;
    }
    qsort(key, (size_t)n, sizeof *key, cmp_u64);
    for (int l = 0; l < W; l++) {
        const int64_t li = g * W + l,
                      s = l < n ? x->order[q0 + (int64_t)(key[l] & 0xffffffffu)] : -1;
        h->lane_row[li] = s < 0 ? SPX__HBP_ROW_PAD : x->s_row[s];
        h->lane_len[li] = s < 0 ? 0 : x->s_len[s];
        x->lane_first[li] = s < 0 ? 0 : x->s_first[s];
    }
    h->sd_before += spread(before, n);
    h->sd_after += spread(after, n);
}

/* groups: 32 ordered slots each; group_entry; blk_group. */
static spx_status make_groups(build_ctx *x)
{
    spx__hbp *h = x->h;
    spx_status st = SPX_OK;
    int64_t ng = 0;
    SPX_TRY(spx__alloc((void **)&h->blk_group, (size_t)h->n_blocks + 1, sizeof *h->blk_group,
                       "hbp block groups"));
    h->blk_group[0] = 0;
    for (int64_t b = 0; b < h->n_blocks; b++)
        h->blk_group[b + 1] = ng += (x->slot0[b + 1] - x->slot0[b] + W - 1) / W;
    h->n_groups = ng;
    SPX_TRY(
        spx__alloc((void **)&h->lane_row, (size_t)(W * ng), sizeof *h->lane_row, "hbp lane rows"));
    SPX_TRY(spx__alloc((void **)&h->lane_len, (size_t)(W * ng), sizeof *h->lane_len,
                       "hbp lane lengths"));
    SPX_TRY(spx__alloc((void **)&x->lane_first, (size_t)(W * ng), sizeof *x->lane_first,
                       "hbp lane entries"));
    SPX_TRY(spx__alloc((void **)&h->group_entry, (size_t)ng + 1, sizeof *h->group_entry,
                       "hbp group entries"));
    for (int64_t b = 0; b < h->n_blocks; b++)
        for (int64_t g = h->blk_group[b]; g < h->blk_group[b + 1]; g++) {
            const int64_t q0 = x->slot0[b] + W * (g - h->blk_group[b]);
            const int64_t left = x->slot0[b + 1] - q0;
            fill_group(x, g, q0, left < W ? (int)left : W, q0);
        }
    h->group_entry[0] = 0;
    for (int64_t g = 0; g < ng; g++) {
        int64_t e = 0;
        for (int l = 0; l < W; l++)
            e += h->lane_len[g * W + l];
        h->group_entry[g + 1] = h->group_entry[g] + e;
    }
    if (ng) {
        h->sd_before /= (double)ng;
        h->sd_after /= (double)ng;
    }
cleanup:
    return st;
}

/* Tile t of group g (block b) from its span. */
static void put_tile(build_ctx *x, int64_t b, int64_t g, int64_t t, const spx__hbp_span *sp,
                     int64_t ntiles, int staged)
{
    spx__hbp *h = x->h;
    spx__hbp_tile *tl = &h->tiles[t];
    const int direct = h->combine == SPX__HBP_DIRECT;
    tl->entry = h->group_entry[g] + spx__hbp_entries_before(h->lane_len + g * W, sp->s0);
    tl->pbase = h->combine == SPX__HBP_PAPER ? b * h->N : W * t;
    tl->group = (int32_t)g;
    tl->row0 = (int32_t)((int64_t)h->blk_r[b] * h->N);
    tl->col0 = (int32_t)((int64_t)h->blk_c[b] * h->M);
    tl->s0 = sp->s0;
    tl->s1 = sp->s1;
    tl->alive = sp->alive;
    tl->flags = (uint16_t)((direct && ntiles == 1 ? SPX__HBP_TILE_DIRECT : 0) |
                           (h->combine == SPX__HBP_PAPER ? SPX__HBP_TILE_PAPER : 0) |
                           (staged ? SPX__HBP_TILE_STAGE : 0));
}

/* tiles, group_tile, multi, n_staged. */
static spx_status make_tiles(build_ctx *x)
{
    spx__hbp *h = x->h;
    spx__hbp_span *sp = NULL;
    spx_status st = SPX_OK;
    SPX_TRY(spx__alloc((void **)&h->group_tile, (size_t)h->n_groups + 1, sizeof *h->group_tile,
                       "hbp group tiles"));
    h->group_tile[0] = 0;
    h->n_multi = 0;
    for (int64_t g = 0; g < h->n_groups; g++) {
        const int64_t n = spx__hbp_group_tiles(h->lane_len + g * W, h->T, NULL);
        h->group_tile[g + 1] = h->group_tile[g] + n;
        h->n_multi += h->combine == SPX__HBP_DIRECT && n > 1;
    }
    h->n_tiles = h->group_tile[h->n_groups];
    if (h->n_tiles > INT32_MAX) {
        st = spx__error(SPX_ERR_UNSUPPORTED, "hbp (cuda): %lld tiles, more than 2^31 - 1",
                        (long long)h->n_tiles);
        goto cleanup;
    }
    SPX_TRY(spx__alloc((void **)&h->tiles, (size_t)h->n_tiles, sizeof *h->tiles, "hbp tiles"));
    SPX_TRY(spx__alloc((void **)&h->multi, (size_t)h->n_multi, sizeof *h->multi, "hbp multi"));
    SPX_TRY(spx__alloc((void **)&sp, (size_t)h->n_tiles, sizeof *sp, "hbp spans"));
    h->n_multi = 0;
    h->n_staged = 0;
    for (int64_t b = 0; b < h->n_blocks; b++) {
        const int64_t e = h->group_entry[h->blk_group[b + 1]] - h->group_entry[h->blk_group[b]];
        const int staged = x->o->stage_min > 0 && e >= x->o->stage_min;
        h->n_staged += staged;
        for (int64_t g = h->blk_group[b]; g < h->blk_group[b + 1]; g++) {
            const int64_t t0 = h->group_tile[g], n = h->group_tile[g + 1] - t0;
            spx__hbp_group_tiles(h->lane_len + g * W, h->T, sp + t0);
            for (int64_t t = t0; t < t0 + n; t++)
                put_tile(x, b, g, t, sp + t, n, staged);
            if (h->combine == SPX__HBP_DIRECT && n > 1) h->multi[h->n_multi++] = (int32_t)g;
        }
    }
cleanup:
    spx__free(sp);
    return st;
}

/* The entries of each group, step by step (hbp_kernels.h). */
static spx_status scatter_entries(build_ctx *x)
{
    spx__hbp *h = x->h;
    const spx_matrix *A = x->A;
    const size_t vs = A->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    spx_status st = SPX_OK;
    SPX_TRY(spx__alloc(&h->col, (size_t)A->nnz, h->col16 ? sizeof(uint16_t) : sizeof(int32_t),
                       "hbp columns"));
    SPX_TRY(spx__alloc(&h->values, (size_t)A->nnz, vs, "hbp values"));
    for (int64_t b = 0; b < h->n_blocks; b++) {
        const int64_t col0 = (int64_t)h->blk_c[b] * h->M;
        for (int64_t g = h->blk_group[b]; g < h->blk_group[b + 1]; g++) {
            const uint32_t *len = h->lane_len + g * W;
            int64_t pos = h->group_entry[g];
            for (uint32_t k = 0; k < len[0]; k++)
                for (int l = 0; l < W && len[l] > k; l++, pos++) {
                    const int64_t a = x->lane_first[g * W + l] + k;
                    if (h->col16)
                        ((uint16_t *)h->col)[pos] = (uint16_t)(A->col32[a] - col0);
                    else
                        ((int32_t *)h->col)[pos] = A->col32[a];
                    memcpy((char *)h->values + (size_t)pos * vs,
                           (const char *)A->values + (size_t)a * vs, vs);
                }
        }
    }
cleanup:
    return st;
}

/* lane_first: the lanes' first entries in A, narrowed to 32 bits; none for
 * more than INT32_MAX entries (that plan refuses new values). */
static spx_status keep_lane_first(build_ctx *x)
{
    spx__hbp *h = x->h;
    const int64_t lanes = W * h->n_groups;
    if (h->nnz > INT32_MAX) return SPX_OK;
    spx_status st = spx__alloc((void **)&h->lane_first, (size_t)lanes, sizeof *h->lane_first,
                               "hbp lane first entries");
    if (st != SPX_OK) return st;
    for (int64_t li = 0; li < lanes; li++)
        h->lane_first[li] = (int32_t)x->lane_first[li];
    return SPX_OK;
}

/* rb_ptr, rb_list: each row block's blocks, columns ascending (blocks are
 * stored column-major, so in storage order). */
static spx_status make_rb_lists(spx__hbp *h)
{
    spx_status st = SPX_OK;
    int64_t *fill = NULL;
    SPX_TRY(
        spx__calloc((void **)&h->rb_ptr, (size_t)h->R + 1, sizeof *h->rb_ptr, "hbp row blocks"));
    SPX_TRY(spx__alloc((void **)&h->rb_list, (size_t)h->n_blocks, sizeof *h->rb_list,
                       "hbp row block lists"));
    SPX_TRY(spx__alloc((void **)&fill, (size_t)h->R + 1, sizeof *fill, "hbp row block fill"));
    for (int64_t b = 0; b < h->n_blocks; b++)
        h->rb_ptr[h->blk_r[b] + 1]++;
    for (int64_t r = 0; r < h->R; r++)
        h->rb_ptr[r + 1] += h->rb_ptr[r];
    memcpy(fill, h->rb_ptr, ((size_t)h->R + 1) * sizeof *fill);
    for (int64_t b = 0; b < h->n_blocks; b++)
        h->rb_list[fill[h->blk_r[b]]++] = (int32_t)b;
cleanup:
    spx__free(fill);
    return st;
}

static void free_ctx(build_ctx *x)
{
    spx__free(x->cnt);
    spx__free(x->bid);
    spx__free(x->slot0);
    spx__free(x->s_row);
    spx__free(x->s_len);
    spx__free(x->s_first);
    spx__free(x->order);
    spx__free(x->lane_first);
}

spx_status spx__hbp_build(const spx_matrix *A, const spx__hbp_opts *o, spx__hbp *out)
{
    build_ctx x;
    spx_status st = SPX_OK;
    memset(&x, 0, sizeof x);
    memset(out, 0, sizeof *out);
    SPX_TRY(spx__hbp_check(A, o));
    SPX_TRY(spx__hbp_shape(A->rows, A->cols, A->nnz, o, out));
    out->vtype = A->vtype;
    x.A = A;
    x.o = o;
    x.h = out;
    x.full = out->combine != SPX__HBP_OWNER;
    SPX_TRY(count_pieces(&x));
    out->hash = spx__hbp_hash_of(x.hist, o->N);
    SPX_TRY(place_blocks(&x));
    SPX_TRY(fill_slots(&x));
    SPX_TRY(order_slots(&x));
    SPX_TRY(make_groups(&x));
    SPX_TRY(make_tiles(&x));
    SPX_TRY(scatter_entries(&x));
    SPX_TRY(keep_lane_first(&x));
    if (out->combine != SPX__HBP_DIRECT) SPX_TRY(make_rb_lists(out));
    free_ctx(&x);
    return SPX_OK;
cleanup:
    free_ctx(&x);
    spx__hbp_free_host(out);
    return st;
}

spx_status spx__hbp_paper_arrays(const spx__hbp *h, int8_t **add_sign, int8_t **zero_row)
{
    spx_status st = SPX_OK;
    *add_sign = *zero_row = NULL;
    SPX_TRY(spx__alloc((void **)add_sign, (size_t)h->nnz, 1, "hbp add_sign"));
    SPX_TRY(spx__alloc((void **)zero_row, (size_t)(W * h->n_groups), 1, "hbp zero_row"));
    for (int64_t g = 0; g < h->n_groups; g++) {
        const uint32_t *len = h->lane_len + g * W;
        int64_t pos = h->group_entry[g];
        int8_t empty = 0;
        for (int l = 0; l < W; l++) {
            (*zero_row)[g * W + l] = len[l] == 0 ? (int8_t)-1 : empty;
            empty = (int8_t)(empty + (len[l] == 0));
        }
        for (uint32_t k = 0; k < len[0]; k++) {
            int alive = 0;
            while (alive < W && len[alive] > k)
                alive++;
            for (int l = 0; l < alive; l++, pos++)
                (*add_sign)[pos] = len[l] > k + 1 ? (int8_t)alive : (int8_t)-1;
        }
    }
    return SPX_OK;
cleanup:
    spx__free(*add_sign);
    spx__free(*zero_row);
    *add_sign = *zero_row = NULL;
    return st;
}

#define FREE_ARRAYS(h, f)                                                                          \
    do {                                                                                           \
        f((h)->blk_r);                                                                             \
        f((h)->blk_c);                                                                             \
        f((h)->blk_group);                                                                         \
        f((h)->group_entry);                                                                       \
        f((h)->group_tile);                                                                        \
        f((h)->lane_row);                                                                          \
        f((h)->lane_len);                                                                          \
        f((h)->tiles);                                                                             \
        f((h)->multi);                                                                             \
        f((h)->rb_ptr);                                                                            \
        f((h)->rb_list);                                                                           \
        f((h)->col);                                                                               \
        f((h)->values);                                                                            \
        f((h)->lane_first);                                                                        \
    } while (0)

void spx__hbp_free_host(spx__hbp *h)
{
    if (!h) return;
    FREE_ARRAYS(h, spx__free);
    memset(h, 0, sizeof *h);
}

void spx__hbp_free_device(spx__hbp *h)
{
    if (!h) return;
    FREE_ARRAYS(h, spx__cuda_free);
    memset(h, 0, sizeof *h);
}
