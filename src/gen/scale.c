/* Scale-up of a real matrix A (m x n) to K copies: B = P (x) A, the Kronecker
 * product with a K x K pattern P whose values are 1:
 *   block (p, q) of B, rows p*m .. p*m+m-1, columns q*n .. q*n+n-1, is A
 *   when P[p][q] is stored, and empty otherwise.
 * blockdiag: P = I (K copies on the diagonal, nnz(B) = K nnz(A));
 * kron: P tridiagonal (nnz(P) = 3K-2) or random (diagonal plus each other
 * entry with probability `density`, seeded); nnz(B) = nnz(P) nnz(A).
 * Row p*m + i of B is A's row i repeated for each q of P's row p, with the
 * column offset q*n: increasing columns because q increases. */
#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "gen/gen.h"

typedef struct kron_ctx {
    const spx_matrix *A;
    const int64_t *prow, *pcol; /* P in CSR, K x K */
} kron_ctx;

static int64_t kron_len(const void *ctx, int64_t r)
{
    const kron_ctx *c = ctx;
    int64_t p = r / c->A->rows, i = r % c->A->rows;
    return (c->prow[p + 1] - c->prow[p]) * (spx__row_off(c->A, i + 1) - spx__row_off(c->A, i));
}

static void kron_fill(const void *ctx, int64_t r, int64_t *col, double *val)
{
    const kron_ctx *c = ctx;
    const spx_matrix *A = c->A;
    int64_t p = r / A->rows, i = r % A->rows, w = 0;
    for (int64_t t = c->prow[p]; t < c->prow[p + 1]; t++) {
        int64_t base = c->pcol[t] * A->cols;
        for (int64_t k = spx__row_off(A, i); k < spx__row_off(A, i + 1); k++) {
            col[w] = base + spx__col(A, k);
            val[w++] = spx__val(A, k);
        }
    }
}

/* Fill P's CSR: prow K+1 offsets, pcol room for K*K (random) or 3K entries. */
static void make_pattern(int64_t K, int pattern, double density, uint64_t seed,
                         int64_t *prow, int64_t *pcol)
{
    int64_t w = 0;
    for (int64_t p = 0; p < K; p++) {
        prow[p] = w;
        if (pattern == SPX__SCALE_KRON_RANDOM) {
            spx__rng r = spx__rng_at(seed, 7, (uint64_t)p);
            for (int64_t q = 0; q < K; q++)
                if (spx__rng_unit(&r) < density || q == p) pcol[w++] = q;
            continue;
        }
        int tri = pattern == SPX__SCALE_KRON_TRIDIAG;
        int64_t lo = tri && p > 0 ? p - 1 : p, hi = tri && p + 1 < K ? p + 1 : p;
        for (int64_t q = lo; q <= hi; q++) pcol[w++] = q;
    }
    prow[K] = w;
}

spx_status spx__gen_kron(const spx_matrix *A, int64_t copies, int pattern, double density,
                         uint64_t seed, spx_matrix **B)
{
    spx_status st = spx__check_matrix(A, "scale:");
    int64_t *prow = NULL, *pcol = NULL, rows, cols;
    size_t room = pattern == SPX__SCALE_KRON_RANDOM ? (size_t)copies * (size_t)copies
                                                    : 3 * (size_t)copies;
    *B = NULL;
    if (st != SPX_OK) return st;
    if (copies < 1 || (pattern == SPX__SCALE_KRON_RANDOM && copies > 4096))
        return spx__error(SPX_ERR_INVALID_ARG, "scale-up: key 'copies' = %lld out of range",
                          (long long)copies);
    if (copies > INT64_MAX / 4)
        return spx__error(SPX_ERR_OVERFLOW, "scale-up: key 'copies' = %lld overflows",
                          (long long)copies);
    if (A->rows > 0 && copies > INT64_MAX / 2 / A->rows)
        return spx__error(SPX_ERR_OVERFLOW, "scale-up: key 'copies' = %lld times %lld rows overflows",
                          (long long)copies, (long long)A->rows);
    if (A->cols > 0 && copies > INT64_MAX / 2 / A->cols)
        return spx__error(SPX_ERR_OVERFLOW, "scale-up: key 'copies' = %lld times %lld columns overflows",
                          (long long)copies, (long long)A->cols);
    rows = copies * A->rows;
    cols = copies * A->cols;
    /* P's diagonal is always there, so nnz(B) >= copies * nnz(A); exact but
     * for the random pattern, whose count spx__gen_build_rows checks again. */
    int64_t nnz_p = pattern == SPX__SCALE_KRON_TRIDIAG ? 3 * copies - 2 : copies;
    if (A->nnz > 0 && nnz_p > INT64_MAX / A->nnz)
        return spx__error(SPX_ERR_OVERFLOW,
                          "scale-up: key 'copies' = %lld times %lld nonzeros overflows",
                          (long long)copies, (long long)A->nnz);
    SPX_TRY(spx__gen_check_size("scale", rows, cols, nnz_p * A->nnz,
                                8.0 * ((double)copies + 1.0 + (double)room)));
    SPX_TRY(spx__alloc((void **)&prow, (size_t)copies + 1, sizeof *prow, "scale-up pattern"));
    SPX_TRY(spx__alloc((void **)&pcol, room, sizeof *pcol, "scale-up pattern"));
    make_pattern(copies, pattern, density, seed, prow, pcol);
    kron_ctx c = {A, prow, pcol};
    spx__gen_rows g = {rows, cols, kron_len, kron_fill, &c, 0, "scale"};
    SPX_TRY(spx__gen_build_rows(&g, B));
cleanup:
    spx__free(prow);
    spx__free(pcol);
    return st;
}

spx_status spx__gen_scale(spx__gen_args *a, spx_matrix **A)
{
    spx_status st;
    const char *file;
    int mode, pattern;
    int64_t copies, seed;
    double density;
    spx_matrix *base = NULL;
    static const char *const modes[] = {"blockdiag", "kron", NULL};
    static const char *const patterns[] = {"tridiag", "random", NULL};
    SPX_TRY(spx__gen_string(a, "file", 1, &file));
    SPX_TRY(spx__gen_choice(a, "mode", modes, 0, &mode));
    SPX_TRY(spx__gen_int(a, "copies", SPX__GEN_REQUIRED, 1, INT32_MAX, &copies));
    SPX_TRY(spx__gen_choice(a, "pattern", patterns, 0, &pattern));
    SPX_TRY(spx__gen_real(a, "density", 0.1, 0.0, 1.0, &density));
    SPX_TRY(spx__gen_int(a, "seed", 1, 0, INT64_MAX, &seed));
    SPX_TRY(spx__gen_args_done(a));
    SPX_TRY(spx_matrix_read(file, &base));
    pattern = mode == 0 ? SPX__SCALE_BLOCKDIAG : 1 + pattern;
    SPX_TRY(spx__gen_kron(base, copies, pattern, density, (uint64_t)seed, A));
cleanup:
    spx_matrix_destroy(base);
    return st;
}
