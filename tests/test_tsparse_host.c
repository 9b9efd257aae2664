/* The host side of tsparse (cpu/tile8.h, the model of the device code),
 * without a GPU:
 * - bit math: rows, columns, bitmap product and the culling test against an
 *   element-by-element product, on random and edge bitmaps;
 * - CSR -> tiles -> CSR gives back every matrix (pattern and values, bit for
 *   bit), with the layout's invariants (offsets are prefix popcounts, tile
 *   row I's values start at rowptr[8I], columns increase);
 * - the task list of A*B against the CPU reference (gustavson): its tiles of
 *   C are the tiles of the reference product, in order, with the same
 *   bitmaps (counting by bitmaps gives nnz(C) exactly); every task is a
 *   pair of the C tile's row and column with a non-empty product, in
 *   increasing K; the pairs before culling match a brute-force count; and
 *   multiplying through the tasks (8x8 dense products in fp64, summed in
 *   task order) gives the reference's values, which sum in the same order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cpu/tile8.h"

/* Element-by-element boolean product of tiles. */
static uint64_t slow_product(uint64_t a, uint64_t b)
{
    uint64_t p = 0;
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++)
            for (int k = 0; k < 8; k++)
                if ((a >> (8 * r + k) & 1) && (b >> (8 * k + c) & 1)) p |= 1ull << (8 * r + c);
    return p;
}

static unsigned slow_cols(uint64_t a)
{
    unsigned m = 0;
    for (int b = 0; b < 64; b++)
        if (a >> b & 1) m |= 1u << (b % 8);
    return m;
}

static unsigned slow_rows(uint64_t a)
{
    unsigned m = 0;
    for (int b = 0; b < 64; b++)
        if (a >> b & 1) m |= 1u << (b / 8);
    return m;
}

/* A sparse random bitmap: each bit kept with probability about 2^-sparsity. */
static uint64_t random_bits(uint64_t *seed, int sparsity)
{
    uint64_t x = ~0ull;
    for (int s = 0; s < sparsity; s++) x &= (uint64_t)((spx_test_rand(seed) + 1.0) * 0x1p63);
    return x;
}

static void test_bit_math(void)
{
    static const uint64_t edges[] = {0, 1, 0x80, 0x8000000000000000ull, ~0ull,
                                     0x0101010101010101ull, 0xff00000000000000ull};
    uint64_t seed = 17;
    long bad = 0;
    for (int t = 0; t < 20000; t++) {
        const uint64_t a = t < 49 ? edges[t % 7] : random_bits(&seed, 1 + t % 5);
        const uint64_t b = t < 49 ? edges[t / 7] : random_bits(&seed, 1 + t / 7 % 5);
        const uint64_t p = slow_product(a, b);
        bad += spx__tile8_product(a, b) != p;
        bad += spx__tile8_culled(a, b) != (p == 0);
        bad += spx__tile8_cols(a) != slow_cols(a) || spx__tile8_rows(b) != slow_rows(b);
    }
    for (int bit = 0; bit < 64; bit++) bad += spx__tile8_rank(~0ull, bit) != bit;
    if (!CHECK(bad == 0)) fprintf(stderr, "  bit math: %ld mismatches\n", bad);
}

static spx_matrix *generated(const char *spec)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate(spec, &A), SPX_OK);
    return A;
}

/* The same pattern and values, bit for bit. */
static int same_matrix(const spx_matrix *X, const spx_matrix *Y)
{
    int64_t m, n, nnz, m2, n2, nnz2;
    spx_matrix_dims(X, &m, &n, &nnz);
    spx_matrix_dims(Y, &m2, &n2, &nnz2);
    if (m != m2 || n != n2 || nnz != nnz2) return 0;
    int64_t *r = malloc(sizeof *r * (size_t)(4 * nnz + 4)), *c = r + nnz + 1, *r2 = c + nnz + 1,
            *c2 = r2 + nnz + 1;
    double *v = malloc(sizeof *v * (size_t)(2 * nnz + 2)), *v2 = v + nnz + 1;
    spx_matrix_to_coo(X, r, c, v);
    spx_matrix_to_coo(Y, r2, c2, v2);
    int same = 1;
    for (int64_t k = 0; k < nnz && same; k++) same = r[k] == r2[k] && c[k] == c2[k] && v[k] == v2[k];
    free(r);
    free(v);
    return same;
}

/* Offsets are prefix popcounts, tile row I starts at rowptr[8I], columns increase. */
static int layout_holds(const spx_matrix *A, const spx__tile8 *T)
{
    const int64_t *rp;
    spx_matrix_csr(A, &rp, NULL, NULL, NULL, NULL);
    int ok = T->ptr[0] == 0 && T->off[0] == 0;
    for (int64_t I = 0; I < T->trows && ok; I++) {
        ok = T->ptr[I] == T->ptr[I + 1] || T->off[T->ptr[I]] == rp[8 * I];
        for (int64_t t = T->ptr[I]; t < T->ptr[I + 1] && ok; t++)
            ok = T->bits[t] != 0 && T->off[t + 1] - T->off[t] == spx__tile8_popc(T->bits[t]) &&
                 (t == T->ptr[I] || T->col[t] > T->col[t - 1]) && T->col[t] < T->tcols;
    }
    return ok;
}

static const char *const shapes[] = {
    "random:m=1,n=1,nnz=1,seed=1",     "random:m=13,n=29,nnz=60,seed=2",
    "random:m=64,n=64,nnz=4096,seed=3", "random:m=70,n=9,nnz=100,seed=4",
    "lap2d9:11",                       "lap3d27:5",
    "banded:n=50,bw=12",               "circuit:n=300,avg=3,long=2,longlen=250,seed=5",
    "rmat:scale=9,ef=6,values=random",
};

static void test_round_trip(void)
{
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        spx_matrix *A = generated(shapes[s]), *B = NULL;
        spx__tile8 T;
        if (!A) continue;
        if (CHECK_STATUS(spx__tile8_from_csr(A, 1, &T), SPX_OK)) {
            if (!CHECK(layout_holds(A, &T))) fprintf(stderr, "  layout of %s\n", shapes[s]);
            CHECK_STATUS(spx__tile8_to_csr(&T, &B), SPX_OK);
            if (!CHECK(same_matrix(A, B))) fprintf(stderr, "  round trip of %s\n", shapes[s]);
        }
        spx__tile8_free(&T);
        spx_matrix_destroy(B);
        spx_matrix_destroy(A);
    }
    spx_matrix *E = NULL, *F = NULL; /* 0 x 0 and an empty 20 x 3 */
    spx__tile8 T;
    CHECK_STATUS(spx_matrix_from_coo(20, 3, 0, NULL, NULL, NULL, &E), SPX_OK);
    if (CHECK_STATUS(spx__tile8_from_csr(E, 1, &T), SPX_OK)) {
        CHECK(T.ntiles == 0 && T.trows == 3 && T.tcols == 1);
        CHECK_STATUS(spx__tile8_to_csr(&T, &F), SPX_OK);
        CHECK(same_matrix(E, F));
    }
    spx__tile8_free(&T);
    spx_matrix_destroy(E);
    spx_matrix_destroy(F);
}

/* The task list's tiles of C are those of the reference product R, in order,
 * bitmap for bitmap; each task belongs to its tile and has a non-empty
 * product; K increases within a tile. */
static int tasks_match_pattern(const spx__tile8 *ta, const spx__tile8 *tb,
                               const spx__tile8_tasks *L, const spx__tile8 *tr)
{
    int64_t t = 0;
    int ok = L->nc == tr->ntiles && L->cstart[0] == 0 && L->cstart[L->nc] == L->n;
    for (int64_t I = 0; I < tr->trows && ok; I++) {
        for (int64_t q = tr->ptr[I]; q < tr->ptr[I + 1] && ok; q++, t++) {
            ok = L->crow[t] == I && L->ccol[t] == tr->col[q] && L->cbits[t] == tr->bits[q];
            for (int64_t k = L->cstart[t]; k < L->cstart[t + 1] && ok; k++) {
                const int64_t a = L->a[k], b = L->b[k], K = ta->col[a];
                ok = a >= ta->ptr[I] && a < ta->ptr[I + 1] && b >= tb->ptr[K] &&
                     b < tb->ptr[K + 1] && tb->col[b] == L->ccol[t] &&
                     spx__tile8_product(ta->bits[a], tb->bits[b]) != 0 &&
                     (k == L->cstart[t] || K > ta->col[L->a[k - 1]]);
            }
        }
    }
    return ok;
}

/* Value of bit e of tile t of T (0 when absent). */
static double tile_value(const spx__tile8 *T, int64_t t, int e)
{
    return T->bits[t] >> e & 1 ? T->val[T->off[t] + spx__tile8_rank(T->bits[t], e)] : 0.0;
}

/* C through the tasks: each tile of C the sum, in task order, of its dense
 * 8x8 tile products, against the reference tiles tr (the same bitmaps). */
static int tasks_multiply(const spx__tile8 *ta, const spx__tile8 *tb, const spx__tile8_tasks *L,
                          const spx__tile8 *tr)
{
    int ok = 1;
    for (int64_t t = 0; t < L->nc && ok; t++) {
        double c[64] = {0};
        for (int64_t k = L->cstart[t]; k < L->cstart[t + 1]; k++)
            for (int r = 0; r < 8; r++)
                for (int x = 0; x < 8; x++)
                    for (int j = 0; j < 8; j++)
                        c[8 * r + j] += tile_value(ta, L->a[k], 8 * r + x) *
                                        tile_value(tb, L->b[k], 8 * x + j);
        for (int e = 0; e < 64 && ok; e++)
            ok = c[e] == tile_value(tr, t, e);
    }
    return ok;
}

static int64_t brute_pairs(const spx__tile8 *ta, const spx__tile8 *tb)
{
    int64_t n = 0;
    for (int64_t a = 0; a < ta->ntiles; a++) n += tb->ptr[ta->col[a] + 1] - tb->ptr[ta->col[a]];
    return n;
}

static void check_tasks(const spx_matrix *A, const spx_matrix *B, const char *what)
{
    spx__tile8 ta, tb, tr;
    spx__tile8_tasks L;
    spx__tile8_counts cnt;
    spx_matrix *R = NULL;
    memset(&L, 0, sizeof L);
    CHECK_STATUS(spx_spgemm(A, B, NULL, &R), SPX_OK);
    CHECK_STATUS(spx__tile8_from_csr(A, 1, &ta), SPX_OK);
    CHECK_STATUS(spx__tile8_from_csr(B, 1, &tb), SPX_OK);
    CHECK_STATUS(spx__tile8_from_csr(R, 1, &tr), SPX_OK);
    if (CHECK_STATUS(spx__tile8_tasks_build(&ta, &tb, &L), SPX_OK)) {
        int64_t nnz, cnnz = 0;
        spx_matrix_dims(R, NULL, NULL, &nnz);
        for (int64_t t = 0; t < L.nc; t++) cnnz += spx__tile8_popc(L.cbits[t]);
        CHECK_STATUS(spx__tile8_count(&ta, &tb, &cnt), SPX_OK);
        int ok = CHECK(tasks_match_pattern(&ta, &tb, &L, &tr)) & CHECK(cnnz == nnz) &
                 CHECK(L.pairs == brute_pairs(&ta, &tb)) & CHECK(tasks_multiply(&ta, &tb, &L, &tr)) &
                 CHECK(cnt.pairs == L.pairs && cnt.tasks == L.n && cnt.ctiles == L.nc &&
                       cnt.cnnz == nnz);
        if (!ok)
            fprintf(stderr, "  %s: tasks %lld of %lld pairs, C tiles %lld (reference %lld)\n",
                    what, (long long)L.n, (long long)L.pairs, (long long)L.nc,
                    (long long)tr.ntiles);
    }
    spx__tile8_tasks_free(&L);
    spx__tile8_free(&ta);
    spx__tile8_free(&tb);
    spx__tile8_free(&tr);
    spx_matrix_destroy(R);
}

static void test_tasks(void)
{
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        spx_matrix *A = generated(shapes[s]), *At = NULL;
        if (!A) continue;
        CHECK_STATUS(spx_matrix_transpose(A, &At), SPX_OK);
        check_tasks(A, At, shapes[s]);
        int64_t m, n;
        spx_matrix_dims(A, &m, &n, NULL);
        if (m == n) check_tasks(A, A, shapes[s]);
        spx_matrix_destroy(A);
        spx_matrix_destroy(At);
    }
    spx_matrix *A = generated("random:m=40,n=33,nnz=200,seed=11"); /* B != A, rectangular */
    spx_matrix *B = generated("random:m=33,n=77,nnz=150,seed=12");
    check_tasks(A, B, "40x33 * 33x77");
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

int main(void)
{
    test_bit_math();
    test_round_trip();
    test_tasks();
    return spx_test_finish();
}
