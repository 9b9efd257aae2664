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
 * Edges are made in blocks of EBLOCK with one random stream per block, twice:
 * once to count each row's entries, once to place them in row buckets; each
 * row is then sorted and its repeats dropped, so the result does not depend on
 * the thread count or on the order the buckets fill. */
#include "core/alloc.h"
#include "core/error.h"
#include "gen/gen.h"

#define EBLOCK 65536

typedef struct rmat_ctx {
    int scale, sym, loops, perm, random_values;
    int64_t edges;
    double a, ab, abc; /* cumulative quadrant probabilities */
    uint64_t seed, mul[3];
    int64_t *start;    /* bucket of row i: start[i] .. start[i] + uniq[i] */
    int64_t *uniq;     /* distinct entries of row i after dedup */
    int64_t *col;      /* bucket contents */
} rmat_ctx;

static uint64_t scramble(const rmat_ctx *c, uint64_t x)
{
    uint64_t mask = c->scale >= 64 ? ~0ull : (1ull << c->scale) - 1;
    int shift = c->scale / 2 + 1;
    for (int r = 0; r < 3; r++) {
        x = (x * c->mul[r] + (uint64_t)r) & mask;
        x ^= x >> shift;
    }
    return x;
}

static void rmat_edge(const rmat_ctx *c, spx__rng *r, int64_t *u, int64_t *v)
{
    uint64_t row = 0, col = 0;
    for (int l = 0; l < c->scale; l++) {
        double p = spx__rng_unit(r);
        row = row << 1 | (p >= c->ab);
        col = col << 1 | ((p >= c->a && p < c->ab) || p >= c->abc);
    }
    if (c->perm) {
        row = scramble(c, row);
        col = scramble(c, col);
    }
    *u = (int64_t)row;
    *v = (int64_t)col;
}

/* count != NULL: add each entry to its row's count; else place it in its
 * bucket at the row's cursor (start[] advanced atomically). */
static void rmat_pass(const rmat_ctx *c, int64_t *count, int64_t *cursor)
{
    int64_t nblocks = (c->edges + EBLOCK - 1) / EBLOCK;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < nblocks; b++) {
        spx__rng r = spx__rng_at(c->seed, 1, (uint64_t)b);
        int64_t end = (b + 1) * EBLOCK < c->edges ? (b + 1) * EBLOCK : c->edges;
        for (int64_t e = b * EBLOCK; e < end; e++) {
            int64_t uv[2];
            rmat_edge(c, &r, &uv[0], &uv[1]);
            if (uv[0] == uv[1] && !c->loops) continue;
            int sides = c->sym && uv[0] != uv[1] ? 2 : 1;
            for (int s = 0; s < sides; s++) {
                int64_t row = uv[s], slot;
                if (count) {
#pragma omp atomic
                    count[row]++;
                    continue;
                }
#pragma omp atomic capture
                slot = cursor[row]++;
                c->col[slot] = uv[1 - s];
            }
        }
    }
}

/* Sort each bucket and drop repeats; uniq[i] is what is left. */
static void rmat_dedup(rmat_ctx *c, const int64_t *end, int64_t rows)
{
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t i = 0; i < rows; i++) {
        int64_t *v = c->col + c->start[i], n = end[i] - c->start[i], k = 0;
        spx__gen_sort_i64(v, n);
        for (int64_t t = 0; t < n; t++)
            if (k == 0 || v[t] != v[k - 1]) v[k++] = v[t];
        c->uniq[i] = k;
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
    double b, cc;
    static const char *const values[] = {"ones", "random", NULL};
    SPX_TRY(spx__gen_int(a, "scale", SPX__GEN_REQUIRED, 1, 40, &scale));
    SPX_TRY(spx__gen_int(a, "ef", 16, 1, INT32_MAX, &ef));
    SPX_TRY(spx__gen_real(a, "a", 0.57, 0.0, 1.0, &c->a));
    SPX_TRY(spx__gen_real(a, "b", 0.19, 0.0, 1.0, &b));
    SPX_TRY(spx__gen_real(a, "c", 0.19, 0.0, 1.0, &cc));
    SPX_TRY(spx__gen_int(a, "sym", 0, 0, 1, &flag[0]));
    SPX_TRY(spx__gen_int(a, "loops", 1, 0, 1, &flag[1]));
    SPX_TRY(spx__gen_int(a, "perm", 1, 0, 1, &flag[2]));
    SPX_TRY(spx__gen_int(a, "seed", 1, 0, INT64_MAX, &seed));
    SPX_TRY(spx__gen_choice(a, "values", values, 0, &c->random_values));
    SPX_TRY(spx__gen_args_done(a));
    if (c->a + b + cc > 1.0 + 1e-12)
        return spx__error(SPX_ERR_INVALID_ARG, "generator 'rmat': keys 'a'+'b'+'c' = %g exceed 1",
                          c->a + b + cc);
    if (ef > (INT64_MAX / 2) >> scale)
        return spx__error(SPX_ERR_OVERFLOW, "generator 'rmat': key 'ef' = %lld times 2^%lld edges overflow",
                          (long long)ef, (long long)scale);
    c->scale = (int)scale;
    c->edges = ef << scale;
    c->ab = c->a + b;
    c->abc = c->a + b + cc;
    c->sym = (int)flag[0];
    c->loops = (int)flag[1];
    c->perm = (int)flag[2];
    c->seed = (uint64_t)seed;
    for (int r = 0; r < 3; r++) c->mul[r] = spx__mix64(c->seed + 0x632be59bd9b4e019ull * (uint64_t)(r + 1)) | 1u;
cleanup:
    return st;
}

spx_status spx__gen_rmat(spx__gen_args *a, spx_matrix **A)
{
    spx_status st;
    rmat_ctx c = {0};
    int64_t *cursor = NULL, rows, total = 0;
    SPX_TRY(rmat_keys(a, &c));
    rows = (int64_t)1 << c.scale;
    SPX_TRY(spx__calloc((void **)&c.start, (size_t)rows + 1, sizeof(int64_t), "R-MAT row counts"));
    SPX_TRY(spx__alloc((void **)&cursor, (size_t)rows, sizeof(int64_t), "R-MAT row cursors"));
    SPX_TRY(spx__alloc((void **)&c.uniq, (size_t)rows, sizeof(int64_t), "R-MAT row lengths"));
    rmat_pass(&c, c.start, NULL);
    for (int64_t i = 0; i < rows; i++) {
        int64_t n = c.start[i];
        c.start[i] = cursor[i] = total;
        total += n; /* at most 2 * edges, checked against overflow in rmat_keys */
    }
    SPX_TRY(spx__alloc((void **)&c.col, (size_t)total, sizeof(int64_t), "R-MAT edge buckets"));
    rmat_pass(&c, NULL, cursor);
    rmat_dedup(&c, cursor, rows);
    spx__gen_rows g = {rows, rows, rmat_len, rmat_fill, &c, 0};
    SPX_TRY(spx__gen_build_rows(&g, A));
cleanup:
    spx__free(c.col);
    spx__free(c.uniq);
    spx__free(cursor);
    spx__free(c.start);
    return st;
}
