/* spx_matrix_stats: every field on small hand-computed matrices; tiles8 against
 * a brute-force count (sort of the tile numbers) on random and real matrices;
 * symmetry against the transpose; and (part "shared", tests/common.h) every
 * shared matrix against the table of ../shared/matrices/README.md, parsed here
 * (rows, nnz, rmin, rave, rmax, rsd, len-1 rows, empty rows). The table prints Python's round(x, 3)
 * (trailing zeros dropped), so a real number is checked to 0.5e-3, or half a unit of its last
 * printed digit when it shows more than 3 decimals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define NEAR(x, want, tol) (fabs((x) - (want)) <= (tol))

static spx_matrix *csr(int64_t rows, int64_t cols, const int64_t *rp, const int32_t *ci,
                       const double *v)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(rows, cols, rp, ci, v, &A), SPX_OK);
    return A;
}

/* Rows of lengths 0,1,2,3,4,5,0,1,2 over 20 columns: two row blocks of 8x8 tiles. */
static void test_mixed_rows(void)
{
    const int64_t rp[] = {0, 0, 1, 3, 6, 10, 15, 15, 16, 18};
    const int32_t ci[] = {0, 1, 9, 2, 3, 17, 0, 8, 16, 19, 4, 5, 6, 7, 8, 15, 0, 19};
    spx_matrix *A = csr(9, 20, rp, ci, NULL);
    spx_stats s;
    CHECK_STATUS(spx_matrix_stats(A, &s), SPX_OK);
    CHECK(s.rows == 9 && s.cols == 20 && s.nnz == 18);
    CHECK(s.rmin == 0 && s.rmax == 5);
    CHECK(NEAR(s.rave, 2.0, 1e-15));
    CHECK(NEAR(s.rsd, sqrt(24.0 / 9.0), 1e-12));            /* population: sum d^2 = 24 */
    CHECK(NEAR(s.rsdp, 100.0 * sqrt(24.0 / 9.0) / 2.0, 1e-10));
    CHECK(s.empty_rows == 2);
    CHECK(s.rows_len1 == 2 && s.rows_len2 == 2 && s.rows_len3 == 1 && s.rows_len4 == 1);
    CHECK(s.rows_5_255 == 1 && s.rows_256 == 0 && s.rows_gt256 == 0);
    CHECK(s.tiles8 == 5); /* block 0: column tiles 0, 1, 2; block 1: 0, 2 */
    CHECK(NEAR(s.tile_density, 18.0 / 5.0, 1e-15));
    CHECK(s.symmetric == 0);
    spx_matrix_destroy(A);
}

/* Rows of 256, 257 and 300 entries: the exact-256 and long classes. */
static void test_long_rows(void)
{
    const int64_t rp[] = {0, 256, 513, 813};
    int32_t ci[813];
    for (int k = 0; k < 256; k++) ci[k] = k;
    for (int k = 0; k < 257; k++) ci[256 + k] = k;
    for (int k = 0; k < 300; k++) ci[513 + k] = k;
    spx_matrix *A = csr(3, 300, rp, ci, NULL);
    spx_stats s;
    CHECK_STATUS(spx_matrix_stats(A, &s), SPX_OK);
    CHECK(s.nnz == 813 && s.rmin == 256 && s.rmax == 300);
    CHECK(NEAR(s.rave, 271.0, 1e-12));
    CHECK(NEAR(s.rsd, sqrt(1262.0 / 3.0), 1e-12)); /* deviations -15, -14, 29 */
    CHECK(s.rows_5_255 == 0 && s.rows_256 == 1 && s.rows_gt256 == 2);
    CHECK(s.rows_len1 + s.rows_len2 + s.rows_len3 + s.rows_len4 + s.empty_rows == 0);
    CHECK(s.tiles8 == 38); /* columns 0..299: tiles 0..37, one row block */
    CHECK(s.symmetric == 0);
    spx_matrix_destroy(A);
}

/* 4x4 symmetric, then broken in a value, then in the pattern; fp32 copy too. */
static void test_symmetry(void)
{
    const int64_t rp[] = {0, 2, 4, 7, 8};
    const int32_t ci[] = {0, 1, 0, 2, 1, 2, 3, 2};
    double v[] = {2, 1, 1, 3, 3, 5, -1, -1};
    spx_matrix *A = csr(4, 4, rp, ci, v), *F = NULL;
    spx_stats s;
    CHECK_STATUS(spx_matrix_stats(A, &s), SPX_OK);
    CHECK(s.symmetric == 1);
    CHECK(s.tiles8 == 1 && NEAR(s.tile_density, 8.0, 0.0));
    CHECK(s.rmin == 1 && s.rmax == 3 && s.rows_len1 == 1 && s.rows_len2 == 2 &&
          s.rows_len3 == 1);
    CHECK_STATUS(spx_matrix_copy(A, SPX_F32, &F), SPX_OK);
    CHECK_STATUS(spx_matrix_stats(F, &s), SPX_OK);
    CHECK(s.symmetric == 1);
    spx_matrix_destroy(F);
    spx_matrix_destroy(A);

    v[7] = -2; /* a_32 != a_23 */
    A = csr(4, 4, rp, ci, v);
    CHECK_STATUS(spx_matrix_stats(A, &s), SPX_OK);
    CHECK(s.symmetric == 0);
    spx_matrix_destroy(A);

    const int64_t rp2[] = {0, 3, 5, 8, 9};
    const int32_t ci2[] = {0, 1, 3, 0, 2, 1, 2, 3, 2}; /* (0,3) without (3,0) */
    A = csr(4, 4, rp2, ci2, NULL);
    CHECK_STATUS(spx_matrix_stats(A, &s), SPX_OK);
    CHECK(s.symmetric == 0);
    spx_matrix_destroy(A);
}

/* 0x0, 3x3 without entries, 0x5 and 5x0. */
static void test_empty(void)
{
    const int64_t rp0[] = {0}, rp3[] = {0, 0, 0, 0}, rp5[] = {0, 0, 0, 0, 0, 0};
    const int64_t dims[][3] = {{0, 0, 1}, {3, 3, 1}, {0, 5, 0}, {5, 0, 0}};
    const int64_t *rps[] = {rp0, rp3, rp0, rp5};
    for (int t = 0; t < 4; t++) {
        spx_matrix *A = csr(dims[t][0], dims[t][1], rps[t], NULL, NULL);
        spx_stats s;
        memset(&s, 0x7f, sizeof s);
        CHECK_STATUS(spx_matrix_stats(A, &s), SPX_OK);
        CHECK(s.rows == dims[t][0] && s.cols == dims[t][1] && s.nnz == 0);
        CHECK(s.rmin == 0 && s.rmax == 0 && s.rave == 0.0 && s.rsd == 0.0 && s.rsdp == 0.0);
        CHECK(s.empty_rows == dims[t][0] && s.rows_len1 == 0 && s.rows_gt256 == 0);
        CHECK(s.tiles8 == 0 && s.tile_density == 0.0);
        CHECK(s.symmetric == (int)dims[t][2]);
        spx_matrix_destroy(A);
    }
}

/* Very wide (2^31 - 1 columns, beyond the tile marker's size): merge path. */
static void test_wide(void)
{
    const int64_t rp[] = {0, 3, 5, 5, 5, 5, 5, 5, 5, 6};
    const int32_t ci[] = {0, 7, 8, 15, 2147483646, 2147483640};
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_wrap_csr(9, 2147483647, rp, ci, (const double[6]){1, 2, 3, 4, 5, 6},
                                     &A),
                 SPX_OK);
    spx_stats s;
    CHECK_STATUS(spx_matrix_stats(A, &s), SPX_OK);
    CHECK(s.tiles8 == 4); /* block 0: tiles 0, 1, 268435455; block 1: 268435455 */
    CHECK(s.rmax == 3 && s.empty_rows == 6 && s.rows_len1 == 1 && s.rows_len2 == 1 &&
          s.rows_len3 == 1);
    spx_matrix_destroy(A);
}

static void bad_calls(void)
{
    spx_stats s;
    const int64_t rp[] = {0, 1};
    const int32_t ci[] = {0};
    spx_matrix *A = csr(1, 1, rp, ci, NULL);
    CHECK_STATUS(spx_matrix_stats(NULL, &s), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_matrix_stats(A, NULL), SPX_ERR_INVALID_ARG);
    spx_matrix_destroy(A);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct (i/8, j/8) by sorting tile numbers: independent of the library. */
static int64_t brute_tiles8(const spx_matrix *A)
{
    int64_t rows, cols, nnz, n = 0, distinct = 0;
    const int64_t *rp;
    const void *ci;
    int bits;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, NULL, NULL);
    int64_t *key = malloc(sizeof *key * (size_t)(nnz + 1)), ct = (cols + 7) / 8;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int64_t j = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
            key[n++] = (i / 8) * ct + j / 8;
        }
    qsort(key, (size_t)n, sizeof *key, cmp_i64);
    for (int64_t k = 0; k < n; k++) distinct += k == 0 || key[k] != key[k - 1];
    free(key);
    return distinct;
}

/* Symmetry by comparing A with spx_matrix_transpose(A) array by array. */
static int brute_symmetric(const spx_matrix *A)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    if (rows != cols) return 0;
    spx_matrix *T = NULL;
    if (spx_matrix_transpose(A, &T) != SPX_OK) return -1;
    int64_t *ri = malloc(sizeof *ri * (size_t)(nnz + 1)), *ci = malloc(sizeof *ci * (size_t)(nnz + 1));
    int64_t *ti = malloc(sizeof *ti * (size_t)(nnz + 1)), *tc = malloc(sizeof *tc * (size_t)(nnz + 1));
    double *v = malloc(sizeof *v * (size_t)(nnz + 1)), *tv = malloc(sizeof *tv * (size_t)(nnz + 1));
    spx_matrix_to_coo(A, ri, ci, v);
    spx_matrix_to_coo(T, ti, tc, tv);
    int same = 1;
    for (int64_t k = 0; k < nnz && same; k++) same = ri[k] == ti[k] && ci[k] == tc[k] && v[k] == tv[k];
    free(ri);
    free(ci);
    free(ti);
    free(tc);
    free(v);
    free(tv);
    spx_matrix_destroy(T);
    return same;
}

/* Random rectangular matrices with clustered and scattered columns. */
static void test_random_tiles(void)
{
    for (int t = 0; t < 6; t++) {
        spx_matrix *A = spx_test_random_matrix(1 + t * 37, 1 + t * 53, t * 211, 42 + (uint64_t)t);
        spx_stats s;
        if (!A) continue;
        CHECK_STATUS(spx_matrix_stats(A, &s), SPX_OK);
        CHECK(s.tiles8 == brute_tiles8(A));
        CHECK(s.symmetric == brute_symmetric(A));
        spx_matrix_destroy(A);
    }
}

/* Split a README table line "| a | b | ... |" into at most max fields. */
static int split_row(char *line, char **field, int max)
{
    int n = 0;
    char *p = strchr(line, '|');
    while (p && n < max) {
        char *q = strchr(p + 1, '|');
        if (!q) break;
        *q = '\0';
        char *a = p + 1, *b = q;
        while (*a == ' ') a++;
        while (b > a && b[-1] == ' ') *--b = '\0';
        field[n++] = a;
        p = q;
    }
    return n;
}

/* Half a unit of the last printed digit, at least 0.5e-3 (round(x, 3)). */
static double printed_tol(const char *num)
{
    const char *dot = strchr(num, '.');
    int dec = dot ? (int)strlen(dot + 1) : 0;
    return 0.5 * pow(10.0, -(dec > 3 ? dec : 3)) * (1.0 + 1e-9);
}

static void check_table_row(const char *dir, char **f)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, f[0]);
    spx_matrix *A = NULL;
    spx_stats s;
    if (!CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) return;
    CHECK_STATUS(spx_matrix_stats(A, &s), SPX_OK);
    int ok = CHECK(s.rows == atoll(f[1])) & CHECK(s.nnz == atoll(f[2])) &
             CHECK(s.rmin == atoll(f[3])) & CHECK(NEAR(s.rave, atof(f[4]), printed_tol(f[4]))) &
             CHECK(s.rmax == atoll(f[5])) & CHECK(NEAR(s.rsd, atof(f[6]), printed_tol(f[6]))) &
             CHECK(s.rows_len1 == atoll(f[7])) & CHECK(s.empty_rows == atoll(f[8])) &
             CHECK(s.tiles8 == brute_tiles8(A)) & CHECK(s.symmetric == brute_symmetric(A));
    printf("%-22s rows %lld nnz %lld rave %.3f rsd %.3f tiles8 %lld (%.2f per tile) "
           "symmetric %d %s\n",
           f[0], (long long)s.rows, (long long)s.nnz, s.rave, s.rsd, (long long)s.tiles8,
           s.tile_density, s.symmetric, ok ? "ok" : "MISMATCH");
    spx_matrix_destroy(A);
}

/* Every matrix row of the README table. */
static void test_shared_table(void)
{
    const char *dir = spx_test_matrices_dir();
    if (!dir) return;
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/README.md", dir);
    FILE *fp = fopen(path, "r");
    if (!CHECK(fp != NULL)) return;
    int checked = 0;
    while (fgets(line, sizeof line, fp)) {
        char *f[16];
        if (split_row(line, f, 16) != 9 || !strstr(f[0], ".mtx")) continue;
        check_table_row(dir, f);
        checked++;
    }
    fclose(fp);
    printf("checked %d shared matrices against README.md\n", checked);
    CHECK(checked > 0);
}

int main(void)
{
    if (spx_test_part("shared")) test_shared_table();
    if (spx_test_part(NULL)) {
        test_mixed_rows();
        test_long_rows();
        test_symmetry();
        test_empty();
        test_wide();
        bad_calls();
        test_random_tiles();
    }
    return spx_test_finish();
}
