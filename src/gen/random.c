/* Random sparse matrices built row by row (see src/gen/README.md):
 *   random:   nnz entries at uniform positions of an m x n matrix: nnz row
 *             draws give the row lengths (a multinomial), then each row takes
 *             that many distinct uniform columns; nnz is exact (draws beyond
 *             a full row go to the first rows with room: dense matrices only);
 *   powerlaw: n x n, row lengths round(x) with x from a Pareto law of density
 *             ~ x^-alpha truncated to [xm, max], xm solved so that the law's
 *             mean is avg (lengths below 1 become 1); columns uniform;
 *   circuit:  n x n, diagonal always present, short rows of 1 .. 2*avg-1
 *             entries (mean avg), plus `long` rows of longlen/2 .. longlen
 *             entries, one in each of `long` equal slices of the rows.
 * Each row draws from its own stream (seed, row), so nothing depends on the
 * thread count. values=random: uniform in [-1, 1) by position; values=ones: 1.
 * Sizes: random knows its nnz before drawing; powerlaw and circuit rows hold
 * one entry at least, so their sizes are checked with nnz = rows first, and
 * with the exact count once spx__gen_build_rows has summed the lengths. */
#include <math.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gen/gen.h"

enum { STREAM_COUNT = 2, STREAM_LEN = 3, STREAM_COL = 4, STREAM_LONG = 5 };
/* Row draws per random stream (and per task); the fuzz build lowers it so
 * that small matrices take several threads (its matrices differ). */
#ifndef SPX__GEN_DRAW_BLOCK
#define SPX__GEN_DRAW_BLOCK 65536
#endif
#define DRAW_BLOCK ((int64_t)SPX__GEN_DRAW_BLOCK)

typedef struct rand_ctx {
    int64_t rows, cols;
    uint64_t seed;
    int random_values;
    const int64_t *len;  /* random: lengths per row */
    double xm, max, a;   /* powerlaw: Pareto scale, cut-off, shape alpha-1 */
    int64_t avg, nlong, longlen, stride; /* circuit */
    int64_t work;        /* sampling scratch (spx__gen_sample_work) */
} rand_ctx;

static const char *const value_choices[] = {"ones", "random", NULL};

static void set_values(const rand_ctx *c, int64_t i, const int64_t *col, double *val, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        val[k] = c->random_values ? spx__gen_value(c->seed, i, col[k]) : 1.0;
}

/* ------------------------------------------------------------ uniform */

static int64_t table_len(const void *ctx, int64_t i) { return ((const rand_ctx *)ctx)->len[i]; }

static void uniform_fill(const void *ctx, int64_t i, int64_t *col, double *val)
{
    const rand_ctx *c = ctx;
    spx__rng r = spx__rng_at(c->seed, STREAM_COL, (uint64_t)i);
    spx__gen_sample_sorted(&r, c->cols, c->len[i], col, c->work);
    set_values(c, i, col, val, c->len[i]);
}

/* Row counts of nnz uniform row draws; what passes a row's width (dense
 * matrices only) goes to the first rows with room, so the total stays nnz. */
static void count_rows(const rand_ctx *c, int64_t nnz, int64_t *len)
{
    int64_t nblocks = (nnz + DRAW_BLOCK - 1) / DRAW_BLOCK;
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < nblocks; b++) {
        spx__rng r = spx__rng_at(c->seed, STREAM_COUNT, (uint64_t)b);
        int64_t end = (b + 1) * DRAW_BLOCK < nnz ? (b + 1) * DRAW_BLOCK : nnz;
        for (int64_t e = b * DRAW_BLOCK; e < end; e++) {
            int64_t i = spx__rng_below(&r, c->rows);
#pragma omp atomic
            len[i]++;
        }
    }
    int64_t excess = 0;
#pragma omp parallel for reduction(+ : excess)
    for (int64_t i = 0; i < c->rows; i++) {
        if (len[i] > c->cols) {
            excess += len[i] - c->cols;
            len[i] = c->cols;
        }
    }
    for (int64_t i = 0; i < c->rows && excess > 0; i++) {
        int64_t add = c->cols - len[i] < excess ? c->cols - len[i] : excess;
        len[i] += add;
        excess -= add;
    }
}

spx_status spx__gen_random(spx__gen_args *a, spx_matrix **A)
{
    spx_status st;
    rand_ctx c = {0};
    int64_t nnz, seed, *len = NULL;
    double density;
    SPX_TRY(spx__gen_int(a, "m", SPX__GEN_REQUIRED, 0, (int64_t)1 << 40, &c.rows));
    SPX_TRY(spx__gen_int(a, "n", c.rows, 0, (int64_t)1 << 40, &c.cols));
    SPX_TRY(spx__gen_int(a, "nnz", -1, 0, (int64_t)1 << 52, &nnz));
    SPX_TRY(spx__gen_real(a, "density", -1.0, 0.0, 1.0, &density));
    SPX_TRY(spx__gen_int(a, "seed", 1, 0, INT64_MAX, &seed));
    SPX_TRY(spx__gen_choice(a, "values", value_choices, 1, &c.random_values));
    SPX_TRY(spx__gen_args_done(a));
    double cells = (double)c.rows * (double)c.cols;
    if ((nnz < 0) == (density < 0))
        return spx__error(SPX_ERR_INVALID_ARG, "generator 'random': give exactly one of keys 'nnz' and 'density'");
    if (density >= 0) {
        if (density * cells >= 0x1.0p52)
            return spx__error(SPX_ERR_OVERFLOW, "generator 'random': key 'density' = %g gives %g nonzeros",
                              density, density * cells);
        nnz = (int64_t)llround(density * cells);
    }
    if ((double)nnz > cells)
        return spx__error(SPX_ERR_INVALID_ARG, "generator 'random': key 'nnz' = %lld exceeds m*n = %g",
                          (long long)nnz, cells);
    if (nnz > 0 && c.rows == 0)
        return spx__error(SPX_ERR_INVALID_ARG, "generator 'random': key 'nnz' > 0 with m = 0");
    c.seed = (uint64_t)seed;
    SPX_TRY(spx__gen_check_size(a->gen, c.rows, c.cols, nnz, 8.0 * (double)c.rows));
    SPX_TRY(spx__calloc((void **)&len, (size_t)c.rows, sizeof *len, "random row lengths"));
    count_rows(&c, nnz, len);
    c.len = len;
    c.work = spx__gen_sample_work(c.cols);
    spx__gen_rows g = {c.rows, c.cols, table_len, uniform_fill, &c, c.work, a->gen};
    SPX_TRY(spx__gen_build_rows(&g, A));
cleanup:
    spx__free(len);
    return st;
}

/* ----------------------------------------------------------- power law */

/* Mean of the Pareto law of shape a on [xm, X] (density ~ x^-(a+1)). */
static double pareto_mean(double xm, double X, double a)
{
    double z = 1.0 - pow(xm / X, a);
    if (fabs(a - 1.0) < 1e-12) return a * xm * log(X / xm) / z;
    return a * pow(xm, a) * (pow(X, 1.0 - a) - pow(xm, 1.0 - a)) / (1.0 - a) / z;
}

/* xm in (0, avg] with pareto_mean(xm) = avg, by bisection (the mean grows with xm). */
static double pareto_scale(double avg, double X, double a)
{
    double lo = 1e-9 * avg, hi = avg;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        if (pareto_mean(mid, X, a) < avg)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static int64_t powerlaw_len(const void *ctx, int64_t i)
{
    const rand_ctx *c = ctx;
    spx__rng r = spx__rng_at(c->seed, STREAM_LEN, (uint64_t)i);
    double u = spx__rng_unit(&r), tail = pow(c->xm / c->max, c->a);
    double x = c->xm * pow(1.0 - u * (1.0 - tail), -1.0 / c->a);
    int64_t len = (int64_t)(x + 0.5);
    return len < 1 ? 1 : (len > (int64_t)c->max ? (int64_t)c->max : len);
}

static void powerlaw_fill(const void *ctx, int64_t i, int64_t *col, double *val)
{
    const rand_ctx *c = ctx;
    int64_t len = powerlaw_len(ctx, i);
    spx__rng r = spx__rng_at(c->seed, STREAM_COL, (uint64_t)i);
    spx__gen_sample_sorted(&r, c->cols, len, col, c->work);
    set_values(c, i, col, val, len);
}

spx_status spx__gen_powerlaw(spx__gen_args *a, spx_matrix **A)
{
    spx_status st;
    rand_ctx c = {0};
    int64_t seed, max;
    double avg, alpha;
    SPX_TRY(spx__gen_int(a, "n", SPX__GEN_REQUIRED, 1, (int64_t)1 << 40, &c.rows));
    SPX_TRY(spx__gen_real(a, "avg", 16.0, 1.0, (double)c.rows, &avg));
    SPX_TRY(spx__gen_real(a, "alpha", 2.1, 1.05, 10.0, &alpha));
    SPX_TRY(spx__gen_int(a, "max", c.rows, 1, c.rows, &max));
    SPX_TRY(spx__gen_int(a, "seed", 1, 0, INT64_MAX, &seed));
    SPX_TRY(spx__gen_choice(a, "values", value_choices, 1, &c.random_values));
    SPX_TRY(spx__gen_args_done(a));
    if (avg > (double)max)
        return spx__error(SPX_ERR_INVALID_ARG, "generator 'powerlaw': key 'avg' = %g exceeds 'max' = %lld",
                          avg, (long long)max);
    c.cols = c.rows;
    c.seed = (uint64_t)seed;
    c.a = alpha - 1.0;
    c.max = (double)max;
    c.xm = avg == c.max ? c.max : pareto_scale(avg, c.max, c.a);
    c.work = spx__gen_sample_work(c.cols);
    SPX_TRY(spx__gen_check_size(a->gen, c.rows, c.cols, c.rows, 0.0)); /* rows of 1 at least */
    spx__gen_rows g = {c.rows, c.cols, powerlaw_len, powerlaw_fill, &c, c.work, a->gen};
    SPX_TRY(spx__gen_build_rows(&g, A));
cleanup:
    return st;
}

/* ------------------------------------------------------------- circuit */

/* Row of the k-th long row: somewhere in the k-th slice of `stride` rows. */
static int64_t long_row(const rand_ctx *c, int64_t k)
{
    spx__rng r = spx__rng_at(c->seed, STREAM_LONG, (uint64_t)k);
    return k * c->stride + spx__rng_below(&r, c->stride);
}

static int64_t circuit_len(const void *ctx, int64_t i)
{
    const rand_ctx *c = ctx;
    spx__rng r = spx__rng_at(c->seed, STREAM_LEN, (uint64_t)i);
    int64_t k = c->stride ? i / c->stride : c->nlong;
    if (k < c->nlong && long_row(c, k) == i) {
        int64_t lo = (c->longlen + 1) / 2;
        return lo + spx__rng_below(&r, c->longlen - lo + 1);
    }
    int64_t len = 1 + spx__rng_below(&r, 2 * c->avg - 1);
    return len < c->cols ? len : c->cols;
}

/* len-1 distinct columns other than i, then i put in its place. */
static void circuit_fill(const void *ctx, int64_t i, int64_t *col, double *val)
{
    const rand_ctx *c = ctx;
    int64_t len = circuit_len(ctx, i), k = len - 2;
    spx__rng r = spx__rng_at(c->seed, STREAM_COL, (uint64_t)i);
    spx__gen_sample_sorted(&r, c->cols - 1, len - 1, col, c->work);
    for (; k >= 0 && col[k] >= i; k--) col[k + 1] = col[k] + 1;
    col[k + 1] = i;
    set_values(c, i, col, val, len);
}

spx_status spx__gen_circuit(spx__gen_args *a, spx_matrix **A)
{
    spx_status st;
    rand_ctx c = {0};
    int64_t seed;
    SPX_TRY(spx__gen_int(a, "n", SPX__GEN_REQUIRED, 1, (int64_t)1 << 40, &c.rows));
    SPX_TRY(spx__gen_int(a, "avg", 4, 1, (c.rows + 1) / 2, &c.avg));
    SPX_TRY(spx__gen_int(a, "long", c.rows < 10 ? 0 : 10, 0, c.rows, &c.nlong));
    SPX_TRY(spx__gen_int(a, "longlen", c.rows < 100000 ? c.rows : 100000, 1, c.rows, &c.longlen));
    SPX_TRY(spx__gen_int(a, "seed", 1, 0, INT64_MAX, &seed));
    SPX_TRY(spx__gen_choice(a, "values", value_choices, 1, &c.random_values));
    SPX_TRY(spx__gen_args_done(a));
    c.cols = c.rows;
    c.seed = (uint64_t)seed;
    c.stride = c.nlong ? c.rows / c.nlong : 0;
    c.work = spx__gen_sample_work(c.cols);
    SPX_TRY(spx__gen_check_size(a->gen, c.rows, c.cols, c.rows, 0.0)); /* rows of 1 at least */
    spx__gen_rows g = {c.rows, c.cols, circuit_len, circuit_fill, &c, c.work, a->gen};
    SPX_TRY(spx__gen_build_rows(&g, A));
cleanup:
    return st;
}
