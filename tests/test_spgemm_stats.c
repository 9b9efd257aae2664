/* spx_spgemm_stats (tSparse's Table 1 of C = A*B) on the CPU: three
 * hand-computed cases (identity, a culled pair, a 10x12 times 12x9 product
 * whose tiles straddle the edges, a B of 2^31 - 1 columns, worked out in
 * the comments), then random
 * and generated products against independent counts: nnz(C) against
 * gustavson's product (which keeps the symbolic pattern), tiles of A and of
 * C against spx_matrix_stats, intermediate products by a direct sum, and
 * tile pairs before and after culling by brute force over a dense grid of
 * tiles (each tile product formed element by element); errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static spx_matrix *csr(int64_t m, int64_t n, int64_t nnz, const int64_t *ri, const int64_t *ci)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(m, n, nnz, ri, ci, NULL, &A), SPX_OK);
    return A;
}

static int same_info(const spx_spgemm_info *s, const spx_spgemm_info *want)
{
    return s->nnz_c == want->nnz_c && s->products == want->products &&
           s->tiles_c == want->tiles_c && s->tile_pairs == want->tile_pairs &&
           s->tile_products == want->tile_products && s->tiles_a == want->tiles_a &&
           s->tiles_b == want->tiles_b && s->density_median == want->density_median &&
           fabs(s->density_mean - want->density_mean) < 1e-12 &&
           fabs(s->density_std - want->density_std) < 1e-12;
}

/* I_16 * I_16: two diagonal tiles of 8 entries each, one pair per tile row. */
static void test_identity(void)
{
    int64_t d[16];
    for (int i = 0; i < 16; i++) d[i] = i;
    spx_matrix *I = csr(16, 16, 16, d, d);
    spx_spgemm_info s, want = {16, 16, 2, 2, 2, 2, 2, 8.0, 8.0, 0.0};
    if (CHECK_STATUS(spx_spgemm_stats(I, I, &s), SPX_OK)) CHECK(same_info(&s, &want));
    spx_matrix_destroy(I);
}

/* A = e0 e0^T, B = e1 e1^T (8x8): one tile pair, column 0 of A's tile never
 * meets row 1 of B's: culled, and C is empty. */
static void test_culled_pair(void)
{
    const int64_t r0[] = {0}, r1[] = {1};
    spx_matrix *A = csr(8, 8, 1, r0, r0), *B = csr(8, 8, 1, r1, r1);
    spx_spgemm_info s, want = {0, 0, 0, 1, 0, 1, 1, 1.0, 1.0, 0.0};
    if (CHECK_STATUS(spx_spgemm_stats(A, B, &s), SPX_OK)) CHECK(same_info(&s, &want));
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* A (10x12): (0,0) (0,9) (3,4) (9,8) (9,11); B (12x9): (0,0) (0,8) (4,1) (9,2)
 * (10,5) (11,8).
 * C: row 0 = A00 B(0,:) + A09 B(9,:) = cols {0, 8} + {2}; row 3 = A34 B(4,:) =
 * {1}; row 9 = A98 B(8,:) (empty) + A9,11 B(11,:) = {8}: nnz 5, products
 * 2 + 1 + 1 + 0 + 1 = 5; tiles of C (0,0) (0,1) (1,1).
 * Tiles of A: (0,0) {(0,0), (3,4)}, (0,1) {(0,9)}, (1,1) {(9,8), (9,11)}:
 * densities 2, 1, 2 (median 2, mean 5/3, std sqrt(2)/3). Tiles of B: (0,0),
 * (0,1), (1,0) {(9,2), (10,5)}, (1,1) {(11,8)}.
 * Pairs: A(0,0) x B(0,0), B(0,1); A(0,1) x B(1,0), B(1,1); A(1,1) x B(1,0),
 * B(1,1): 6. Culled: A(0,1) (local column 1) x B(1,1) (local row 3), and
 * A(1,1) (local columns 0, 3) x B(1,0) (local rows 1, 2): 4 tasks left. */
static void test_straddling(void)
{
    const int64_t ar[] = {0, 0, 3, 9, 9}, ac[] = {0, 9, 4, 8, 11};
    const int64_t br[] = {0, 0, 4, 9, 10, 11}, bc[] = {0, 8, 1, 2, 5, 8};
    spx_matrix *A = csr(10, 12, 5, ar, ac), *B = csr(12, 9, 6, br, bc);
    spx_spgemm_info s, want = {5, 5, 3, 6, 4, 3, 4, 2.0, 5.0 / 3.0, sqrt(2.0) / 3.0};
    if (CHECK_STATUS(spx_spgemm_stats(A, B, &s), SPX_OK) && !CHECK(same_info(&s, &want)))
        fprintf(stderr, "  got nnz %lld products %lld tiles_c %lld pairs %lld tasks %lld\n",
                (long long)s.nnz_c, (long long)s.products, (long long)s.tiles_c,
                (long long)s.tile_pairs, (long long)s.tile_products);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* B with 2^31 - 1 columns (2^28 tile columns: the counts take the merge,
 * not per-column slots). A (2x3) = (0,0) (0,2) (1,1); B (3 x 2^31-1) = (0,5)
 * (0,2^31-2) (1,2^31-2) (2,5). C: row 0 = B(0,:) + B(2,:) = {5, 2^31-2},
 * row 1 = B(1,:): nnz 3, products 2 + 1 + 1. One tile of A (3 entries); B's
 * tile row 0 has tiles 0 and 2^28-1, both met by A's columns 0..2: 2 pairs,
 * 2 tasks, 2 tiles of C. */
static void test_wide(void)
{
    const int64_t arp[] = {0, 2, 3}, brp[] = {0, 2, 3, 4};
    const int32_t aci[] = {0, 2, 1}, bci[] = {5, 2147483646, 2147483646, 5};
    const double av[] = {2, 3, 4}, bv[] = {1, 10, 100, 1000};
    spx_matrix *A = NULL, *B = NULL;
    spx_spgemm_info s, want = {3, 4, 2, 2, 2, 1, 2, 3.0, 3.0, 0.0};
    CHECK_STATUS(spx_matrix_wrap_csr(2, 3, arp, aci, av, &A), SPX_OK);
    CHECK_STATUS(spx_matrix_wrap_csr(3, 2147483647, brp, bci, bv, &B), SPX_OK);
    if (CHECK_STATUS(spx_spgemm_stats(A, B, &s), SPX_OK)) CHECK(same_info(&s, &want));
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* Dense grid of tile bitmaps of a small matrix: grid[I * tc + J]. */
static uint64_t *tile_grid(const spx_matrix *A, int64_t *tr, int64_t *tc)
{
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    *tr = (m + 7) / 8;
    *tc = (n + 7) / 8;
    uint64_t *g = calloc((size_t)(*tr * *tc + 1), sizeof *g);
    int64_t *ri = malloc(sizeof *ri * (size_t)(nnz + 1)), *ci = malloc(sizeof *ci * (size_t)(nnz + 1));
    spx_matrix_to_coo(A, ri, ci, NULL);
    for (int64_t k = 0; k < nnz; k++)
        g[ri[k] / 8 * *tc + ci[k] / 8] |= 1ull << (ri[k] % 8 * 8 + ci[k] % 8);
    free(ri);
    free(ci);
    return g;
}

/* Entry (r, c) of the boolean product of tiles a and b, element by element. */
static int tile_product_bit(uint64_t a, uint64_t b, int r, int c)
{
    for (int k = 0; k < 8; k++)
        if ((a >> (8 * r + k) & 1) && (b >> (8 * k + c) & 1)) return 1;
    return 0;
}

/* Tile pairs before and after culling, by brute force over the grids. */
static void brute_pairs(const spx_matrix *A, const spx_matrix *B, int64_t *pairs, int64_t *tasks)
{
    int64_t tr, tk, tk2, tc;
    uint64_t *ga = tile_grid(A, &tr, &tk), *gb = tile_grid(B, &tk2, &tc);
    *pairs = *tasks = 0;
    for (int64_t I = 0; I < tr; I++)
        for (int64_t K = 0; K < tk; K++)
            for (int64_t J = 0; J < tc && ga[I * tk + K]; J++) {
                const uint64_t a = ga[I * tk + K], b = gb[K * tc + J];
                int empty = 1;
                if (!b) continue;
                ++*pairs;
                for (int e = 0; e < 64 && empty; e++) empty = !tile_product_bit(a, b, e / 8, e % 8);
                *tasks += !empty;
            }
    free(ga);
    free(gb);
}

static int64_t direct_products(const spx_matrix *A, const spx_matrix *B)
{
    const int64_t *ar, *br;
    const void *ac;
    int bits;
    int64_t m, total = 0;
    spx_matrix_dims(A, &m, NULL, NULL);
    spx_matrix_csr(A, &ar, &ac, &bits, NULL, NULL);
    spx_matrix_csr(B, &br, NULL, NULL, NULL, NULL);
    for (int64_t q = 0; q < ar[m]; q++) {
        const int64_t k = bits == 32 ? ((const int32_t *)ac)[q] : ((const int64_t *)ac)[q];
        total += br[k + 1] - br[k];
    }
    return total;
}

/* The statistics of A*B against independent counts. */
static void check_against_counts(const spx_matrix *A, const spx_matrix *B, const char *what)
{
    spx_spgemm_info s;
    spx_stats sa, sb, sc;
    spx_matrix *C = NULL;
    int64_t cnnz, pairs, tasks;
    if (!CHECK_STATUS(spx_spgemm_stats(A, B, &s), SPX_OK)) return;
    CHECK_STATUS(spx_spgemm(A, B, NULL, &C), SPX_OK);
    spx_matrix_dims(C, NULL, NULL, &cnnz);
    spx_matrix_stats(A, &sa);
    spx_matrix_stats(B, &sb);
    spx_matrix_stats(C, &sc);
    brute_pairs(A, B, &pairs, &tasks);
    int ok = CHECK(s.nnz_c == cnnz) & CHECK(s.products == direct_products(A, B)) &
             CHECK(s.tiles_a == sa.tiles8) & CHECK(s.tiles_b == sb.tiles8) &
             CHECK(s.tiles_c == sc.tiles8) & CHECK(s.tile_pairs == pairs) &
             CHECK(s.tile_products == tasks) &
             CHECK(fabs(s.density_mean - sa.tile_density) <= 1e-12 * sa.tile_density);
    if (!ok)
        fprintf(stderr, "  %s: nnz %lld/%lld pairs %lld/%lld tasks %lld/%lld\n", what,
                (long long)s.nnz_c, (long long)cnnz, (long long)s.tile_pairs, (long long)pairs,
                (long long)s.tile_products, (long long)tasks);
    spx_matrix_destroy(C);
}

static spx_matrix *generated(const char *spec)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate(spec, &A), SPX_OK);
    return A;
}

static void test_random(void)
{
    static const char *const pairs[][2] = {
        {"random:m=37,n=53,nnz=300,seed=1", "random:m=53,n=29,nnz=400,seed=2"},
        {"random:m=100,n=100,nnz=900,seed=3", "random:m=100,n=100,nnz=900,seed=4"},
        {"random:m=64,n=200,nnz=6000,seed=5", "random:m=200,n=71,nnz=300,seed=6"},
        {"lap2d9:12", "lap2d9:12"},
        {"lap3d27:6", "lap3d27:6"},
        {"banded:n=90,bw=9", "random:m=90,n=45,nnz=500,seed=7"},
        {"rmat:scale=8,ef=8", "rmat:scale=8,ef=8"},
        {"random:m=1,n=1,nnz=1,seed=8", "random:m=1,n=9,nnz=4,seed=9"},
    };
    for (size_t t = 0; t < sizeof pairs / sizeof *pairs; t++) {
        spx_matrix *A = generated(pairs[t][0]), *B = generated(pairs[t][1]);
        if (A && B) check_against_counts(A, B, pairs[t][0]);
        spx_matrix_destroy(A);
        spx_matrix_destroy(B);
    }
}

/* Shapes with a zero dimension: everything 0. */
static void test_empty(void)
{
    spx_matrix *A = NULL, *B = NULL;
    spx_spgemm_info s, zero;
    memset(&zero, 0, sizeof zero);
    CHECK_STATUS(spx_matrix_from_coo(0, 5, 0, NULL, NULL, NULL, &A), SPX_OK);
    CHECK_STATUS(spx_matrix_from_coo(5, 0, 0, NULL, NULL, NULL, &B), SPX_OK);
    if (CHECK_STATUS(spx_spgemm_stats(A, B, &s), SPX_OK)) CHECK(same_info(&s, &zero));
    if (CHECK_STATUS(spx_spgemm_stats(B, A, &s), SPX_OK)) CHECK(same_info(&s, &zero));
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

static void test_errors(void)
{
    spx_matrix *A = generated("random:m=10,n=12,nnz=30,seed=1");
    spx_spgemm_info s;
    CHECK_STATUS(spx_spgemm_stats(A, A, &s), SPX_ERR_DIM_MISMATCH);
    CHECK_STATUS(spx_spgemm_stats(A, NULL, &s), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_spgemm_stats(NULL, A, &s), SPX_ERR_BAD_HANDLE);
    spx_matrix *B = generated("random:m=12,n=3,nnz=10,seed=2");
    CHECK_STATUS(spx_spgemm_stats(A, B, NULL), SPX_ERR_INVALID_ARG);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

int main(void)
{
    test_identity();
    test_culled_pair();
    test_straddling();
    test_wide();
    test_random();
    test_empty();
    test_errors();
    return spx_test_finish();
}
