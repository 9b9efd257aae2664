/* Matrix Market reader and writer: the corpus of broken files (each gives the
 * status in mtx_corpus/EXPECTED with its line in the message), every field and
 * symmetry on hand-written files against hand-computed CSR, number parsing
 * against strtod, write/read round trips (plain, gzip, large enough for the
 * threaded path), and (part "shared", tests/common.h) the shared matrices
 * against their README. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "core/alloc.h"
#include "core/matrix.h"

static char tmpdir[512];

static const char *tmp_path(const char *name)
{
    static char path[4][1024];
    static int slot;
    slot = (slot + 1) % 4;
    snprintf(path[slot], sizeof path[slot], "%s/%s", tmpdir, name);
    return path[slot];
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        CHECK(!"cannot write a temporary file");
        return;
    }
    fwrite(text, 1, strlen(text), f);
    fclose(f);
}

/* A's CSR equals the given arrays exactly. */
/* A's values (fp64). */
static const double *values_of(const spx_matrix *A)
{
    const int64_t *rp;
    const void *ci, *v;
    int bits;
    spx_type t;
    spx_matrix_csr(A, &rp, &ci, &bits, &v, &t);
    return (const double *)v;
}

static int same_csr(const spx_matrix *A, int64_t rows, int64_t cols, int64_t nnz, const int64_t *rp,
                    const int64_t *ci, const double *v)
{
    int64_t r, c, z;
    const int64_t *arp;
    const void *aci, *av;
    int bits;
    spx_type t;
    if (spx_matrix_dims(A, &r, &c, &z) != SPX_OK || r != rows || c != cols || z != nnz) return 0;
    spx_matrix_csr(A, &arp, &aci, &bits, &av, &t);
    if (t != SPX_F64) return 0;
    for (int64_t i = 0; i <= rows; i++)
        if (arp[i] != rp[i]) return 0;
    for (int64_t k = 0; k < nnz; k++) {
        int64_t j = bits == 32 ? ((const int32_t *)aci)[k] : ((const int64_t *)aci)[k];
        double x = ((const double *)av)[k];
        if (j != ci[k] || memcmp(&x, &v[k], sizeof x) != 0) return 0;
    }
    return spx_matrix_validate(A) == SPX_OK;
}

/* Read text as a .mtx file and compare with the expected CSR. */
static void expect_read(const char *name, const char *text, int64_t rows, int64_t cols, int64_t nnz,
                        const int64_t *rp, const int64_t *ci, const double *v)
{
    spx_matrix *A = NULL;
    const char *path = tmp_path(name);
    write_text(path, text);
    if (CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) {
        if (!CHECK(same_csr(A, rows, cols, nnz, rp, ci, v)))
            fprintf(stderr, "  wrong matrix from %s\n", name);
    }
    spx_matrix_destroy(A);
    remove(path);
}

/* ---------------------------------------------------------------- corpus */

static void test_corpus(void)
{
    char path[1024], line[512], name[256], status[64];
    long want_line;
    int files = 0;
    snprintf(path, sizeof path, "%s/mtx_corpus/EXPECTED", spx_test_data_dir());
    FILE *f = fopen(path, "r");
    if (!CHECK(f != NULL)) {
        fprintf(stderr, "cannot open %s\n", path);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        spx_matrix *A = (spx_matrix *)&files; /* must be reset to NULL on failure */
        char file[1300], needle[64];
        if (line[0] == '#' || sscanf(line, "%255s %63s %ld", name, status, &want_line) != 3)
            continue;
        snprintf(file, sizeof file, "%s/mtx_corpus/%s", spx_test_data_dir(), name);
        spx_status st = spx_matrix_read(file, &A);
        files++;
        if (st == SPX_ERR_NOT_COMPILED && strstr(name, ".gz")) {
            printf("SKIP %s: built without zlib\n", name);
            continue;
        }
        snprintf(needle, sizeof needle, "line %ld:", want_line);
        if (!CHECK(strcmp(spx_status_name(st), status) == 0) ||
            !CHECK(strstr(spx_last_error(), needle) != NULL) ||
            !CHECK(strstr(spx_last_error(), name) != NULL))
            fprintf(stderr, "  %s: got %s \"%s\", expected %s at line %ld\n", name,
                    spx_status_name(st), spx_last_error(), status, want_line);
        CHECK(A == NULL);
    }
    fclose(f);
    CHECK(files >= 35);
}

/* ------------------------------------------------------ hand-written files */

static void test_general(void)
{
    /* Unsorted, a duplicate (2,3) summed, an explicit zero kept, an empty row. */
    static const char text[] = "%%MatrixMarket matrix coordinate real general\n"
                               "% comment\n"
                               "4 3 6\n"
                               "2 3 1.5\n"
                               "1 2 -2\n"
                               "2 1 0.25\n"
                               "2 3 2.5\n"
                               "4 1 0\n"
                               "1 1 1e3\n";
    static const int64_t rp[] = {0, 2, 4, 4, 5}, ci[] = {0, 1, 0, 2, 0};
    static const double v[] = {1000.0, -2.0, 0.25, 4.0, 0.0};
    expect_read("general.mtx", text, 4, 3, 5, rp, ci, v);
}

static void test_integer_and_pattern(void)
{
    static const char itext[] = "%%MatrixMarket matrix coordinate integer general\n"
                                "2 2 3\n2 2 -7\n1 2 +3\n2 1 9007199254740993\n";
    static const int64_t irp[] = {0, 1, 3}, ici[] = {1, 0, 1};
    static const double iv[] = {3.0, 9007199254740992.0, -7.0};
    static const char ptext[] = "%%MatrixMarket matrix coordinate pattern general\n"
                                "3 2 3\n3 1\n1 2\n3 1\n";
    static const int64_t prp[] = {0, 1, 1, 2}, pci[] = {1, 0};
    static const double pv[] = {1.0, 2.0};
    expect_read("integer.mtx", itext, 2, 2, 3, irp, ici, iv);
    expect_read("pattern.mtx", ptext, 3, 2, 2, prp, pci, pv);
}

static void test_symmetric_kinds(void)
{
    /* Lower and upper triangle entries both mirrored, diagonal once. */
    static const char sym[] = "%%MatrixMarket matrix coordinate real symmetric\n"
                              "3 3 4\n1 1 4\n2 1 -1\n3 3 5\n2 3 7\n";
    static const int64_t srp[] = {0, 2, 4, 6}, sci[] = {0, 1, 0, 2, 1, 2};
    static const double sv[] = {4, -1, -1, 7, 7, 5};
    static const char skew[] = "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                               "3 3 3\n2 1 2\n3 1 -3\n2 3 4\n";
    static const int64_t krp[] = {0, 2, 4, 6}, kci[] = {1, 2, 0, 2, 0, 1};
    static const double kv[] = {-2, 3, 2, 4, -3, -4};
    static const char herm[] = "%%MatrixMarket matrix coordinate real Hermitian\n"
                               "2 2 2\n1 1 1\n2 1 6\n";
    static const int64_t hrp[] = {0, 2, 3}, hci[] = {0, 1, 0};
    static const double hv[] = {1, 6, 6};
    static const char psym[] = "%%MatrixMarket matrix coordinate pattern symmetric\n"
                               "3 3 3\n1 1\n3 1\n3 2\n";
    static const int64_t prp[] = {0, 2, 3, 5}, pci[] = {0, 2, 2, 0, 1};
    static const double pv[] = {1, 1, 1, 1, 1};
    static const char isym[] = "%%MatrixMarket matrix coordinate integer symmetric\n"
                               "2 2 2\n2 1 3\n2 2 -4\n";
    static const int64_t irp[] = {0, 1, 3}, ici[] = {1, 0, 1};
    static const double iv[] = {3, 3, -4};
    /* Both (2,1) and (1,2) stored: each position gets the sum. */
    static const char both[] = "%%MatrixMarket matrix coordinate real symmetric\n"
                               "2 2 2\n2 1 1\n1 2 10\n";
    static const int64_t brp[] = {0, 1, 2}, bci[] = {1, 0};
    static const double bv[] = {11, 11};
    expect_read("sym.mtx", sym, 3, 3, 6, srp, sci, sv);
    expect_read("skew.mtx", skew, 3, 3, 6, krp, kci, kv);
    expect_read("herm.mtx", herm, 2, 2, 3, hrp, hci, hv);
    expect_read("psym.mtx", psym, 3, 3, 5, prp, pci, pv);
    expect_read("isym.mtx", isym, 2, 2, 3, irp, ici, iv);
    expect_read("both.mtx", both, 2, 2, 2, brp, bci, bv);
}

static void test_array(void)
{
    /* Column-major; zeros are dropped. */
    static const char gen[] = "%%MatrixMarket matrix array real general\n"
                              "% 2 x 3\n2 3\n1\n0\n0\n4\n5.5\n-6\n";
    static const int64_t grp[] = {0, 2, 4}, gci[] = {0, 2, 1, 2};
    static const double gv[] = {1, 5.5, 4, -6};
    static const char sym[] = "%%MatrixMarket matrix array real symmetric\n"
                              "3 3\n1\n2\n0\n4\n5\n6\n";
    static const int64_t srp[] = {0, 2, 5, 7}, sci[] = {0, 1, 0, 1, 2, 1, 2};
    static const double sv[] = {1, 2, 2, 4, 5, 5, 6};
    static const char skew[] = "%%MatrixMarket matrix array real skew-symmetric\n"
                               "3 3\n1\n2\n3\n";
    static const int64_t krp[] = {0, 2, 4, 6}, kci[] = {1, 2, 0, 2, 0, 1};
    static const double kv[] = {-1, -2, 1, -3, 2, 3};
    static const char integer[] = "%%MatrixMarket matrix array integer general\n"
                                  "1 2\n0\n-3\n";
    static const int64_t irp[] = {0, 1}, ici[] = {1};
    static const double iv[] = {-3};
    expect_read("agen.mtx", gen, 2, 3, 4, grp, gci, gv);
    expect_read("asym.mtx", sym, 3, 3, 7, srp, sci, sv);
    expect_read("askew.mtx", skew, 3, 3, 6, krp, kci, kv);
    expect_read("aint.mtx", integer, 1, 2, 1, irp, ici, iv);
}

static void test_layout_variants(void)
{
    /* CRLF, tabs, extra blanks, banner in mixed case, comments and blank
     * lines between entries, no final newline after a complete last entry. */
    static const char text[] = "%%matrixmarket MATRIX Coordinate REAL General\r\n"
                               "%\r\n"
                               "\r\n"
                               "  2\t2   3  \r\n"
                               "\t1 1\t\t1.0\r\n"
                               "% between\r\n"
                               "\r\n"
                               "  2   2   2.0   \r\n"
                               "1 2 3.0";
    static const int64_t rp[] = {0, 2, 3}, ci[] = {0, 1, 1};
    static const double v[] = {1.0, 3.0, 2.0};
    static const int64_t erp[] = {0, 0, 0, 0, 0, 0};
    expect_read("crlf.mtx", text, 2, 2, 3, rp, ci, v);
    expect_read("nnz0.mtx", "%%MatrixMarket matrix coordinate real general\n5 3 0\n", 5, 3, 0, erp,
                NULL, NULL);
    expect_read("zero.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", 0, 0, 0, erp,
                NULL, NULL);
    expect_read("m_by_0.mtx", "%%MatrixMarket matrix coordinate pattern general\n4 0 0", 4, 0, 0,
                erp, NULL, NULL);
    expect_read("array0.mtx", "%%MatrixMarket matrix array real general\n0 3\n", 0, 3, 0, erp, NULL,
                NULL);
}

static void test_special_numbers(void)
{
    static const char text[] = "%%MatrixMarket matrix coordinate real general\n"
                               "1 8 8\n1 1 inf\n1 2 -Infinity\n1 3 NaN\n1 4 1e-400\n"
                               "1 5 -0\n1 6 123456789012345678901234567890\n"
                               "1 7 .5E+1\n1 8 -0.000000000000000000000000000001e-290\n";
    spx_matrix *A = NULL;
    const char *path = tmp_path("special.mtx");
    write_text(path, text);
    if (CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) {
        const double *v = values_of(A);
        CHECK(isinf(v[0]) && v[0] > 0);
        CHECK(isinf(v[1]) && v[1] < 0);
        CHECK(isnan(v[2]));
        CHECK(v[3] == 0.0);
        CHECK(v[4] == 0.0 && signbit(v[4]));
        CHECK(v[5] == strtod("123456789012345678901234567890", NULL));
        CHECK(v[6] == 5.0);
        CHECK(v[7] == strtod("-0.000000000000000000000000000001e-290", NULL));
    }
    spx_matrix_destroy(A);
    remove(path);
}

/* Decimal strings of many shapes read exactly as strtod reads them. */
static void test_number_exactness(void)
{
    enum { N = 20000 };
    static const char *const fmts[] = {"%.17g", "%.16g", "%.15e", "%.19e",
                                       "%.3f",  "%.21g", "%.9g",  "%.17e"};
    char *text = malloc((size_t)N * 64 + 128), *p = text;
    double *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
    uint64_t seed = 7;
    spx_matrix *A = NULL;
    const char *path = tmp_path("numbers.mtx");
    p += sprintf(p, "%%%%MatrixMarket matrix coordinate real general\n1 %d %d\n", N, N);
    for (int k = 0; k < N; k++) {
        char field[64];
        double mant = spx_test_rand(&seed), e = floor(spx_test_rand(&seed) * 40.0);
        snprintf(field, sizeof field, fmts[k % 8], ldexp(mant, (int)e) * pow(10.0, e / 2));
        want[k] = strtod(field, NULL);
        p += sprintf(p, "1 %d %s\n", k + 1, field);
    }
    write_text(path, text);
    if (CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) {
        int bad = 0;
        memcpy(got, values_of(A), N * sizeof *got);
        for (int k = 0; k < N; k++)
            bad += memcmp(&want[k], &got[k], sizeof got[k]) != 0;
        if (!CHECK(bad == 0)) fprintf(stderr, "  %d of %d numbers differ from strtod\n", bad, N);
    }
    spx_matrix_destroy(A);
    remove(path);
    free(text);
    free(want);
    free(got);
}

/* ------------------------------------------------------------ round trips */

/* A random matrix (tests/common.h) with its values spread over 2^-300..2^300. */
static spx_matrix *random_matrix(int64_t rows, int64_t cols, int64_t nnz, uint64_t seed)
{
    spx_matrix *A = spx_test_random_matrix(rows, cols, nnz, seed);
    double *v = A ? (double *)A->values : NULL;
    for (int64_t k = 0; A && k < A->nnz; k++)
        v[k] = ldexp(v[k], (int)(spx_test_rand(&seed) * 300));
    return A;
}

static int same_matrix(const spx_matrix *A, const spx_matrix *B)
{
    int64_t r, c, z;
    const int64_t *rp;
    const void *ci, *v;
    int bits;
    spx_type t;
    int64_t *ci64;
    int ok;
    spx_matrix_dims(A, &r, &c, &z);
    spx_matrix_csr(A, &rp, &ci, &bits, &v, &t);
    ci64 = malloc(((size_t)z + 1) * sizeof *ci64);
    for (int64_t k = 0; k < z; k++)
        ci64[k] = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
    ok = same_csr(B, r, c, z, rp, ci64, (const double *)v);
    free(ci64);
    return ok;
}

static void round_trip(const char *name, const spx_matrix *A)
{
    spx_matrix *B = NULL;
    const char *path = tmp_path(name);
    spx_status st = spx_matrix_write(A, path);
    if (st == SPX_ERR_NOT_COMPILED && strstr(name, ".gz")) {
        printf("SKIP %s: built without zlib\n", name);
        return;
    }
    if (!CHECK_STATUS(st, SPX_OK)) return;
    CHECK_STATUS(spx_matrix_read(path, &B), SPX_OK);
    if (B && !CHECK(same_matrix(A, B))) fprintf(stderr, "  round trip %s differs\n", name);
    spx_matrix_destroy(B);
    remove(path);
}

/* The writer's text is exactly "%.17g" of each value (integers are
 * formatted by hand, the rest by snprintf). */
static void test_writer_text(void)
{
    static const double v[] = {1.0,
                               -7.0,
                               0.0,
                               -0.0,
                               1e16,
                               99999999999999984.0,
                               1e17,
                               123456789012345678.0,
                               -9007199254740993.0,
                               0.5,
                               1e-300,
                               -2.5e300,
                               3.0517578125e-05,
                               1.0 / 3.0};
    enum { N = sizeof v / sizeof v[0] };
    char want[4096], got[4096], *p = want;
    spx_matrix *A = NULL;
    const char *path = tmp_path("text.mtx");
    p += sprintf(p, "%%%%MatrixMarket matrix coordinate real general\n2 %d %d\n", N + 1, N + 2);
    for (int k = 0; k < N; k++)
        p += sprintf(p, "1 %d %.17g\n", k + 1, v[k]);
    p += sprintf(p, "2 %d nan\n2 %d -inf\n", N, N + 1);
    write_text(path, want);
    if (CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK) &&
        CHECK_STATUS(spx_matrix_write(A, path), SPX_OK)) {
        FILE *f = fopen(path, "rb");
        size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
        got[n] = '\0';
        if (f) fclose(f);
        if (!CHECK(strcmp(got, want) == 0)) fprintf(stderr, "  wrote:\n%s\nwanted:\n%s", got, want);
    }
    spx_matrix_destroy(A);
    remove(path);
}

static void test_round_trips(void)
{
    spx_matrix *small = random_matrix(50, 70, 400, 1),
               *big = random_matrix(30000, 20000, 300000, 2);
    spx_matrix *empty = random_matrix(0, 0, 0, 3), *tall = random_matrix(9, 0, 0, 4);
    round_trip("small.mtx", small);
    round_trip("small.mtx.gz", small);
    round_trip("big.mtx", big); /* > 1 MB of text: the threaded parser */
    round_trip("big.mtx.gz", big);
    round_trip("empty.mtx", empty);
    round_trip("tall.mtx", tall);
    CHECK_STATUS(spx_matrix_write(small, tmp_path("x.txt")), SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_matrix_write(small, "/nonexistent-dir/x.mtx"), SPX_ERR_IO);
    CHECK_STATUS(spx_matrix_write(NULL, tmp_path("n.mtx")), SPX_ERR_BAD_HANDLE);
    spx_matrix_destroy(small);
    spx_matrix_destroy(big);
    spx_matrix_destroy(empty);
    spx_matrix_destroy(tall);
}

/* A large file with two bad lines: the first one is reported, whichever
 * thread finds it; one extra entry is reported at its line. */
static void test_large_errors(void)
{
    enum { N = 120000 };
    char *text = malloc((size_t)N * 40 + 256), *p = text;
    spx_matrix *A = (spx_matrix *)text;
    const char *path = tmp_path("large_bad.mtx");
    p += sprintf(p, "%%%%MatrixMarket matrix coordinate real general\n1000 1000 %d\n", N);
    for (int k = 0; k < N; k++) {
        if (k == 90000)
            p += sprintf(p, "7 1001 1.0\n"); /* line 90003 */
        else if (k == 100000)
            p += sprintf(p, "7 x 1.0\n"); /* line 100003 */
        else
            p += sprintf(p, "%d %d %.17g\n", 1 + k % 1000, 1 + k / 1000 % 1000, k * 0.37);
    }
    write_text(path, text);
    CHECK_STATUS(spx_matrix_read(path, &A), SPX_ERR_INDEX_RANGE);
    CHECK(strstr(spx_last_error(), "line 90003:") != NULL);
    CHECK(A == NULL);
    /* Now fix both and add one entry too many at the end. */
    p = text;
    p += sprintf(p, "%%%%MatrixMarket matrix coordinate real general\n1000 1000 %d\n", N);
    for (int k = 0; k <= N; k++)
        p += sprintf(p, "%d %d 2.5\n", 1 + k % 1000, 1 + k / 1000 % 1000);
    write_text(path, text);
    CHECK_STATUS(spx_matrix_read(path, &A), SPX_ERR_MTX_TOO_MANY);
    CHECK(strstr(spx_last_error(), "line 120003:") != NULL);
    remove(path);
    free(text);
}

/* Every allocation of a read (and of a write) failing in turn gives
 * SPX_ERR_OOM and leaks nothing (ASan checks the leaks). */
static void walk_failures(const char *path, const spx_matrix *A)
{
    long n, made;
    for (n = 1; n < 1000; n++) {
        spx_matrix *B = NULL;
        spx__alloc_fail_at(n);
        spx_status st = A ? spx_matrix_write(A, path) : spx_matrix_read(path, &B);
        made = spx__alloc_fail_at(0);
        spx_matrix_destroy(B);
        if (st == SPX_ERR_NOT_COMPILED) return; /* .gz without zlib */
        if (st == SPX_OK && made < n) break;
        if (st != SPX_OK && !CHECK_STATUS(st, SPX_ERR_OOM)) break;
    }
    CHECK(n > 1 && n < 1000);
}

static void test_alloc_failures(void)
{
    /* Unsorted rows and a symmetric kind: both build paths. */
    static const char text[] = "%%MatrixMarket matrix coordinate real symmetric\n"
                               "4 4 5\n3 1 1\n1 1 2\n4 2 3\n2 2 4\n4 3 5\n";
    const char *path = tmp_path("alloc.mtx");
    spx_matrix *A = NULL;
    write_text(path, text);
    walk_failures(path, NULL);
    if (CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) {
        walk_failures(tmp_path("alloc_w.mtx"), A);
        walk_failures(tmp_path("alloc_w.mtx.gz"), A);
        walk_failures(tmp_path("alloc_w.mtx.gz"), NULL);
        remove(tmp_path("alloc_w.mtx"));
        remove(tmp_path("alloc_w.mtx.gz"));
    }
    spx_matrix_destroy(A);
    remove(path);
}

static void test_bad_arguments(void)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_read(NULL, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_read("x.mtx", NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_read("/nonexistent/x.mtx", &A), SPX_ERR_IO);
    CHECK_STATUS(spx_matrix_read("/nonexistent/x.bin", &A), SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_matrix_read_mtx(NULL, &A), SPX_ERR_INVALID_ARG);
}

/* ------------------------------------------------------- shared matrices */

static void test_shared(void)
{
    const char *dir = spx_test_matrices_dir();
    char path[1024], line[512];
    int files = 0;
    if (!dir) return;
    snprintf(path, sizeof path, "%s/README.md", dir);
    FILE *f = fopen(path, "r");
    if (!CHECK(f != NULL)) return;
    while (fgets(line, sizeof line, f)) {
        char name[256];
        long long rows, nnz, r, c, z;
        spx_matrix *A = NULL;
        if (sscanf(line, "| %255s | %lld | %lld |", name, &rows, &nnz) != 3) continue;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        files++;
        if (!CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) continue;
        spx_matrix_dims(A, (int64_t *)&r, (int64_t *)&c, (int64_t *)&z);
        if (!CHECK(r == rows && z == nnz && spx_matrix_validate(A) == SPX_OK))
            fprintf(stderr, "  %s: %lld rows %lld nnz, README says %lld and %lld\n", name, r, z,
                    rows, nnz);
        spx_matrix_destroy(A);
    }
    fclose(f);
    CHECK(files > 0);
    printf("read %d shared matrices\n", files);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/spx_test_mtx_%ld", t && *t ? t : "/tmp", (long)getpid());
    if (mkdir(tmpdir, 0700) != 0) {
        fprintf(stderr, "cannot create %s\n", tmpdir);
        return 1;
    }
    if (spx_test_part("shared")) test_shared();
    if (spx_test_part(NULL)) {
        test_corpus();
        test_general();
        test_integer_and_pattern();
        test_symmetric_kinds();
        test_array();
        test_layout_variants();
        test_special_numbers();
        test_number_exactness();
        test_writer_text();
        test_round_trips();
        test_large_errors();
        test_bad_arguments();
        test_alloc_failures();
    }
    rmdir(tmpdir);
    return spx_test_finish();
}
