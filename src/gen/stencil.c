/* Stencil and banded matrices, built directly in CSR.
 *
 * Laplacians on an nx x ny x nz grid (2D: nz = 1), point (x, y, z) is row
 * x + nx*(y + ny*z). Star stencils (5-, 7-point) couple points at distance 1
 * along one axis, box stencils (9-, 27-point) every point of the 3x3(x3) cube.
 * Values as in HPCG: diagonal = neighbours of an interior point (4, 6, 8, 26),
 * off-diagonal -1 (Dirichlet boundary: boundary rows have positive sums).
 * nnz: 5-point 5N^2-4N, 9-point (3N-2)^2, 7-point 7N^3-6N^2, 27-point (3N-2)^3.
 *
 * Banded n x n: row i holds columns max(0, i-lower) .. min(n-1, i+upper),
 * off-diagonal -1, diagonal lower+upper+1 (strictly diagonally dominant). */
#include "core/alloc.h"
#include "core/error.h"
#include "gen/gen.h"

typedef struct lap_ctx {
    int64_t n[3]; /* nx, ny, nz */
    int box;      /* 1: all offsets in {-1,0,1}^3; 0: one axis at a time */
    double diag;
} lap_ctx;

/* Offsets along axis d allowed at coordinate c: [lo, hi] within {-1, 0, 1}. */
static void axis_range(const lap_ctx *c, int d, int64_t x, int *lo, int *hi)
{
    *lo = x > 0 ? -1 : 0;
    *hi = x + 1 < c->n[d] ? 1 : 0;
}

static void coords(const lap_ctx *c, int64_t i, int64_t x[3])
{
    x[0] = i % c->n[0];
    x[1] = (i / c->n[0]) % c->n[1];
    x[2] = i / (c->n[0] * c->n[1]);
}

static int64_t lap_len(const void *ctx, int64_t i)
{
    const lap_ctx *c = ctx;
    int64_t x[3], len = 1;
    coords(c, i, x);
    for (int d = 0; d < 3; d++) {
        int lo, hi;
        axis_range(c, d, x[d], &lo, &hi);
        len = c->box ? len * (hi - lo + 1) : len + (hi - lo);
    }
    return len;
}

/* Offsets in (dz, dy, dx) lexicographic order give increasing columns. */
static void lap_fill(const void *ctx, int64_t i, int64_t *col, double *val)
{
    const lap_ctx *c = ctx;
    int64_t x[3], k = 0, plane = c->n[0] * c->n[1];
    int lo[3], hi[3];
    coords(c, i, x);
    for (int d = 0; d < 3; d++) axis_range(c, d, x[d], &lo[d], &hi[d]);
    for (int dz = lo[2]; dz <= hi[2]; dz++)
        for (int dy = lo[1]; dy <= hi[1]; dy++)
            for (int dx = lo[0]; dx <= hi[0]; dx++) {
                int far = (dx != 0) + (dy != 0) + (dz != 0);
                if (!c->box && far > 1) continue;
                col[k] = i + dx + c->n[0] * dy + plane * dz;
                val[k++] = far == 0 ? c->diag : -1.0;
            }
}

/* Nonzeros of the grid of `rows` (< 2^31) points: box stencils the product of
 * (3 n_d - 2) over the axes, star stencils one diagonal plus two neighbours
 * for each of the (n_d - 1) rows / n_d links along each axis. */
static int64_t lap_nnz(const lap_ctx *c, int64_t rows)
{
    int64_t nnz = c->box ? 1 : rows;
    for (int d = 0; d < 3; d++)
        nnz = c->box ? nnz * (3 * c->n[d] - 2) : nnz + 2 * (c->n[d] - 1) * (rows / c->n[d]);
    return nnz;
}

/* Grid side of axis key, default n; the product of the sides must fit. */
spx_status spx__gen_lap(spx__gen_args *a, int dims, int points, spx_matrix **A)
{
    spx_status st;
    int64_t n;
    lap_ctx c = {{1, 1, 1}, points == 9 || points == 27, (double)(points - 1)};
    static const char *const side[3] = {"nx", "ny", "nz"};
    SPX_TRY(spx__gen_int(a, "n", 0, 1, INT64_MAX, &n));
    for (int d = 0; d < dims; d++) {
        SPX_TRY(spx__gen_int(a, side[d], n, 1, INT64_MAX, &c.n[d]));
        if (c.n[d] == 0)
            return spx__error(SPX_ERR_INVALID_ARG, "generator '%s': key 'n' (or '%s') is required",
                              a->gen, side[d]);
    }
    SPX_TRY(spx__gen_args_done(a));
    int64_t rows = 1;
    for (int d = 0; d < dims; d++) {
        if (c.n[d] > INT32_MAX / rows)
            return spx__error(SPX_ERR_OVERFLOW,
                              "generator '%s': grid of key 'n' = %lld (or '%s') has more than 2^31 points",
                              a->gen, (long long)n, side[d]);
        rows *= c.n[d];
    }
    SPX_TRY(spx__gen_check_size(a->gen, rows, rows, lap_nnz(&c, rows), 0.0));
    spx__gen_rows g = {rows, rows, lap_len, lap_fill, &c, 0, a->gen};
    SPX_TRY(spx__gen_build_rows(&g, A));
cleanup:
    return st;
}

typedef struct band_ctx {
    int64_t n, lower, upper;
} band_ctx;

static int64_t band_len(const void *ctx, int64_t i)
{
    const band_ctx *c = ctx;
    int64_t first = i > c->lower ? i - c->lower : 0;
    int64_t last = c->n - 1 - i > c->upper ? i + c->upper : c->n - 1;
    return last - first + 1;
}

static void band_fill(const void *ctx, int64_t i, int64_t *col, double *val)
{
    const band_ctx *c = ctx;
    int64_t first = i > c->lower ? i - c->lower : 0, len = band_len(ctx, i);
    for (int64_t k = 0; k < len; k++) {
        col[k] = first + k;
        val[k] = first + k == i ? (double)(c->lower + c->upper + 1) : -1.0;
    }
}

/* Entries of the w diagonals on one side of the main one: sum of n - k for
 * k = 1 .. min(w, n-1). With n, w < 2^31 it stays below 2^61. */
static int64_t band_side(int64_t n, int64_t w)
{
    int64_t k = n > 0 && w > n - 1 ? n - 1 : w;
    return n > 0 ? k * n - k * (k + 1) / 2 : 0;
}

spx_status spx__gen_banded(spx__gen_args *a, spx_matrix **A)
{
    spx_status st;
    band_ctx c;
    int64_t bw;
    SPX_TRY(spx__gen_int(a, "n", SPX__GEN_REQUIRED, 0, INT32_MAX, &c.n));
    SPX_TRY(spx__gen_int(a, "bw", 0, 0, INT32_MAX, &bw));
    SPX_TRY(spx__gen_int(a, "lower", bw, 0, INT32_MAX, &c.lower));
    SPX_TRY(spx__gen_int(a, "upper", bw, 0, INT32_MAX, &c.upper));
    SPX_TRY(spx__gen_args_done(a));
    int64_t nnz = c.n + band_side(c.n, c.lower) + band_side(c.n, c.upper);
    SPX_TRY(spx__gen_check_size(a->gen, c.n, c.n, nnz, 0.0));
    spx__gen_rows g = {c.n, c.n, band_len, band_fill, &c, 0, a->gen};
    SPX_TRY(spx__gen_build_rows(&g, A));
cleanup:
    return st;
}
