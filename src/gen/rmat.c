/* R-MAT / Graph500 Kronecker graph as an adjacency matrix.
 *
 * 2^scale vertices, ef * 2^scale edges. Each edge picks, at each of the scale
 * levels, one quadrant of the adjacency matrix with probabilities a, b, c,
 * d = 1-a-b-c (top-left, top-right, bottom-left, bottom-right), which sets one
 * bit of its row and of its column. Vertex labels are then scrambled by a
 * seeded bijection of [0, 2^scale) (perm=1, as Graph500 does) so that high
 * degrees are not all at small labels. sym=1 adds (v, u) for every (u, v).
 * Repeated edges are merged into one entry (dropped, not summed); self loops
 * are kept unless loops=0. Values 1, or values=random: uniform in [-1, 1) as a
 * function of the unordered pair, so sym=1 gives a symmetric matrix.
 *
 * Edges are made in blocks of `eblock` with one random stream per block,
 * twice: once to count, per block, the entries falling in each part (2^p
 * consecutive rows), once to write them, packed as (row in part, column), into
 * that part's region at the block's place. Each part is then grouped by row
 * (a counting sort in cache), and each row sorted and its repeats dropped. The
 * result depends on neither the thread count nor the order of the writes, and
 * the writes go to a few streams per block instead of all over memory. */
#include "core/alloc.h"
#include "core/error.h"
#include "gen/gen.h"

#include <omp.h>
#include <string.h>

/* Fewest edges per random stream; the fuzz build lowers it so that small
 * graphs take several threads (its graphs differ). */
#ifndef SPX__GEN_EDGE_BLOCK_MIN
#define SPX__GEN_EDGE_BLOCK_MIN 65536
#endif
#define EBLOCK_MIN ((int64_t)SPX__GEN_EDGE_BLOCK_MIN)
#define PART_BITS 10

typedef struct rmat_ctx {
    int scale, sym, loops, perm, random_values;
    int part_shift;            /* row >> part_shift is the row's part */
    int64_t edges, rows, eblock, nblocks, nparts;
    uint64_t ta, tab, tabc;    /* cumulative quadrant probabilities x 2^32 */
    uint64_t seed, mul[3];
    int64_t *off;              /* nblocks x nparts: counts, then write cursors */
    int64_t *pstart;           /* nparts+1: region of each part in col */
    int64_t *start, *uniq;     /* per row: first entry in col, distinct entries */
    int64_t *col;              /* packed entries, then columns grouped by row */
} rmat_ctx;

static uint64_t scramble(const rmat_ctx *c, uint64_t x)
{
    uint64_t mask = ((uint64_t)1 << c->scale) - 1;
    int shift = c->scale / 2 + 1;
    for (int r = 0; r < 3; r++) {
        x = (x * c->mul[r] + (uint64_t)r) & mask;
        x ^= x >> shift;
    }
    return x;
}

/* One level per 32-bit half of a draw: u < ta top-left, < tab top-right,
 * < tabc bottom-left, else bottom-right; the row bit is u >= tab and the
 * column bit (u >= ta) ^ (u >= tab) ^ (u >= tabc), without branches. */
static void rmat_edge(const rmat_ctx *c, spx__rng *r, int64_t *u, int64_t *v)
{
    uint64_t row = 0, col = 0, bits = 0;
    for (int l = 0; l < c->scale; l++) {
        if ((l & 1) == 0) bits = spx__rng_next(r);
        uint64_t x = bits & 0xffffffffu;
        bits >>= 32;
        uint64_t down = x >= c->tab;
        row = row << 1 | down;
        col = col << 1 | ((uint64_t)(x >= c->ta) ^ down ^ (uint64_t)(x >= c->tabc));
    }
    if (c->perm) {
        row = scramble(c, row);
        col = scramble(c, col);
    }
    *u = (int64_t)row;
    *v = (int64_t)col;
}

/* write == 0: count block b's entries per part into off; else write them at
 * the cursors off (advanced). An entry is (row - part start) << scale | col. */
static void rmat_block(const rmat_ctx *c, int64_t b, int write)
{
    spx__rng r = spx__rng_at(c->seed, 1, (uint64_t)b);
    int64_t *off = c->off + b * c->nparts;
    int64_t end = (b + 1) * c->eblock < c->edges ? (b + 1) * c->eblock : c->edges;
    int64_t in_part = ((int64_t)1 << c->part_shift) - 1;
    for (int64_t e = b * c->eblock; e < end; e++) {
        int64_t uv[2];
        rmat_edge(c, &r, &uv[0], &uv[1]);
        if (uv[0] == uv[1] && !c->loops) continue;
        int sides = c->sym && uv[0] != uv[1] ? 2 : 1;
        for (int s = 0; s < sides; s++) {
            int64_t part = uv[s] >> c->part_shift;
            if (write)
                c->col[off[part]++] = (uv[s] & in_part) << c->scale | uv[1 - s];
            else
                off[part]++;
        }
    }
}

static void rmat_edges(const rmat_ctx *c, int write)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < c->nblocks; b++) rmat_block(c, b, write);
}

/* Counts per (block, part) -> write cursors: parts in order, blocks in order. */
static int64_t rmat_cursors(rmat_ctx *c)
{
    int64_t total = 0, largest = 0;
    for (int64_t p = 0; p < c->nparts; p++) {
        c->pstart[p] = total;
        for (int64_t b = 0; b < c->nblocks; b++) {
            int64_t n = c->off[b * c->nparts + p];
            c->off[b * c->nparts + p] = total;
            total += n; /* at most 2 * edges, checked against overflow in rmat_keys */
        }
        if (total - c->pstart[p] > largest) largest = total - c->pstart[p];
    }
    c->pstart[c->nparts] = total;
    return largest;
}

/* Part p: group its entries by row through tmp (room for the part) and cnt
 * (room for the part's rows + 1), then sort each row and drop repeats. */
static void rmat_part(rmat_ctx *c, int64_t p, int64_t *tmp, int64_t *cnt)
{
    int64_t base = c->pstart[p], n = c->pstart[p + 1] - base, span = (int64_t)1 << c->part_shift;
    int64_t colmask = ((int64_t)1 << c->scale) - 1, *ent = c->col + base, row0 = p * span;
    memset(cnt, 0, (size_t)(span + 1) * sizeof *cnt);
    for (int64_t k = 0; k < n; k++) cnt[(ent[k] >> c->scale) + 1]++;
    for (int64_t i = 0; i < span; i++) cnt[i + 1] += cnt[i];
    for (int64_t i = 0; i < span; i++) c->start[row0 + i] = base + cnt[i];
    for (int64_t k = 0; k < n; k++) tmp[cnt[ent[k] >> c->scale]++] = ent[k] & colmask;
    memcpy(ent, tmp, (size_t)n * sizeof *ent);
    for (int64_t i = 0; i < span; i++) {
        int64_t first = c->start[row0 + i];
        c->uniq[row0 + i] = spx__gen_sort_unique(c->col + first, cnt[i] - (first - base));
    }
}

static void rmat_group(rmat_ctx *c, int64_t *scratch, int64_t room)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t p = 0; p < c->nparts; p++) {
        int64_t *tmp = scratch + (size_t)omp_get_thread_num() * (size_t)room;
        rmat_part(c, p, tmp, tmp + (room - ((int64_t)1 << c->part_shift) - 1));
    }
}

static int64_t rmat_len(const void *ctx, int64_t i) { return ((const rmat_ctx *)ctx)->uniq[i]; }

static void rmat_fill(const void *ctx, int64_t i, int64_t *col, double *val)
{
    const rmat_ctx *c = ctx;
    const int64_t *v = c->col + c->start[i];
    for (int64_t k = 0; k < c->uniq[i]; k++) {
        col[k] = v[k];
        val[k] = c->random_values ? spx__gen_value(c->seed, i < v[k] ? i : v[k],
                                                   i < v[k] ? v[k] : i)
                                  : 1.0;
    }
}

static spx_status rmat_keys(spx__gen_args *a, rmat_ctx *c)
{
    spx_status st;
    int64_t scale, ef, seed, flag[3];
    double pa, b, cc;
    static const char *const values[] = {"ones", "random", NULL};
    SPX_TRY(spx__gen_int(a, "scale", SPX__GEN_REQUIRED, 1, 36, &scale));
    SPX_TRY(spx__gen_int(a, "ef", 16, 1, INT32_MAX, &ef));
    SPX_TRY(spx__gen_real(a, "a", 0.57, 0.0, 1.0, &pa));
    SPX_TRY(spx__gen_real(a, "b", 0.19, 0.0, 1.0, &b));
    SPX_TRY(spx__gen_real(a, "c", 0.19, 0.0, 1.0, &cc));
    SPX_TRY(spx__gen_int(a, "sym", 0, 0, 1, &flag[0]));
    SPX_TRY(spx__gen_int(a, "loops", 1, 0, 1, &flag[1]));
    SPX_TRY(spx__gen_int(a, "perm", 1, 0, 1, &flag[2]));
    SPX_TRY(spx__gen_int(a, "seed", 1, 0, INT64_MAX, &seed));
    SPX_TRY(spx__gen_choice(a, "values", values, 0, &c->random_values));
    SPX_TRY(spx__gen_args_done(a));
    if (pa + b + cc > 1.0 + 1e-12)
        return spx__error(SPX_ERR_INVALID_ARG, "generator 'rmat': keys 'a'+'b'+'c' = %g exceed 1",
                          pa + b + cc);
    if (ef > (INT64_MAX / 2) >> scale)
        return spx__error(SPX_ERR_OVERFLOW, "generator 'rmat': key 'ef' = %lld times 2^%lld edges overflow",
                          (long long)ef, (long long)scale);
    c->scale = (int)scale;
    c->rows = (int64_t)1 << scale;
    c->edges = ef << scale;
    c->eblock = c->edges / 1024 > EBLOCK_MIN ? c->edges / 1024 : EBLOCK_MIN;
    c->nblocks = (c->edges + c->eblock - 1) / c->eblock;
    c->part_shift = c->scale > PART_BITS ? c->scale - PART_BITS : 0;
    c->nparts = c->rows >> c->part_shift;
    c->ta = (uint64_t)(pa * 0x1.0p32);
    c->tab = (uint64_t)((pa + b) * 0x1.0p32);
    c->tabc = (uint64_t)((pa + b + cc) * 0x1.0p32);
    c->sym = (int)flag[0];
    c->loops = (int)flag[1];
    c->perm = (int)flag[2];
    c->seed = (uint64_t)seed;
    for (int r = 0; r < 3; r++) c->mul[r] = spx__mix64(c->seed + 0x632be59bd9b4e019ull * (uint64_t)(r + 1)) | 1u;
cleanup:
    return st;
}

/* Before the edges are drawn: at most `entries` = edges (twice that with sym)
 * packed entries of 8 bytes, as many nonzeros (and no more than rows^2), row
 * starts and lengths, and the counts per block and part. */
static spx_status rmat_check_size(const char *gen, const rmat_ctx *c)
{
    int64_t entries = c->sym ? 2 * c->edges : c->edges, nnz = entries;
    if (c->scale < 31 && nnz > c->rows * c->rows) nnz = c->rows * c->rows;
    double extra = 8.0 * (double)entries + 16.0 * (double)c->rows +
                   8.0 * (double)c->nblocks * (double)c->nparts;
    return spx__gen_check_size(gen, c->rows, c->rows, nnz, extra);
}

spx_status spx__gen_rmat(spx__gen_args *a, spx_matrix **A)
{
    spx_status st;
    rmat_ctx c = {0};
    int64_t *scratch = NULL, room;
    size_t offs, bytes;
    SPX_TRY(rmat_keys(a, &c));
    SPX_TRY(rmat_check_size(a->gen, &c));
    SPX_TRY(spx__mul_size((size_t)c.nblocks, (size_t)c.nparts, &offs, "R-MAT block counts"));
    SPX_TRY(spx__calloc((void **)&c.off, offs, sizeof(int64_t), "R-MAT block counts"));
    SPX_TRY(spx__alloc((void **)&c.pstart, (size_t)c.nparts + 1, sizeof(int64_t), "R-MAT parts"));
    SPX_TRY(spx__alloc((void **)&c.start, (size_t)c.rows, sizeof(int64_t), "R-MAT row starts"));
    SPX_TRY(spx__alloc((void **)&c.uniq, (size_t)c.rows, sizeof(int64_t), "R-MAT row lengths"));
    rmat_edges(&c, 0);
    room = rmat_cursors(&c) + ((int64_t)1 << c.part_shift) + 1;
    SPX_TRY(spx__alloc((void **)&c.col, (size_t)c.pstart[c.nparts], sizeof(int64_t), "R-MAT entries"));
    rmat_edges(&c, 1);
    SPX_TRY(spx__mul_size((size_t)omp_get_max_threads(), (size_t)room, &bytes, "R-MAT sort buffers"));
    SPX_TRY(spx__alloc((void **)&scratch, bytes, sizeof(int64_t), "R-MAT sort buffers"));
    rmat_group(&c, scratch, room);
    spx__gen_rows g = {c.rows, c.rows, rmat_len, rmat_fill, &c, 0, a->gen};
    SPX_TRY(spx__gen_build_rows(&g, A));
cleanup:
    spx__free(scratch);
    spx__free(c.col);
    spx__free(c.uniq);
    spx__free(c.start);
    spx__free(c.pstart);
    spx__free(c.off);
    return st;
}
