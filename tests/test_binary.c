/* SpX binary files (.spx): exact round trips (fp64, fp32, 64-bit column
 * indices, empty), and every kind of damage refused with SPX_ERR_BIN_FORMAT
 * and a message saying which: a flipped byte anywhere (checksum mismatch),
 * a cut file (truncated), trailing bytes, a wrong magic, a newer version. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "core/alloc.h"

static char tmpdir[512];

static const char *tmp_path(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static unsigned char *slurp(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)*n + 1);
    if (fread(buf, 1, (size_t)*n, f) != (size_t)*n) *n = -1;
    fclose(f);
    return buf;
}

static void spill(const char *path, const unsigned char *buf, long n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(buf, 1, (size_t)n, f);
    fclose(f);
}

/* Same dims, offsets, column indices, value type and value bits. */
static int identical(const spx_matrix *A, const spx_matrix *B)
{
    int64_t r[2], c[2], z[2];
    const int64_t *rp[2];
    const void *ci[2], *v[2];
    int bits[2];
    spx_type t[2];
    const spx_matrix *M[2] = {A, B};
    for (int m = 0; m < 2; m++) {
        spx_matrix_dims(M[m], &r[m], &c[m], &z[m]);
        spx_matrix_csr(M[m], &rp[m], &ci[m], &bits[m], &v[m], &t[m]);
    }
    if (r[0] != r[1] || c[0] != c[1] || z[0] != z[1] || bits[0] != bits[1] || t[0] != t[1])
        return 0;
    return memcmp(rp[0], rp[1], (size_t)(r[0] + 1) * 8) == 0 &&
           memcmp(ci[0], ci[1], (size_t)z[0] * (size_t)(bits[0] / 8)) == 0 &&
           memcmp(v[0], v[1], (size_t)z[0] * (t[0] == SPX_F32 ? 4u : 8u)) == 0;
}

static void round_trip(const char *name, const spx_matrix *A)
{
    spx_matrix *B = NULL;
    const char *path = tmp_path(name);
    if (!CHECK_STATUS(spx_matrix_write(A, path), SPX_OK)) return;
    if (CHECK_STATUS(spx_matrix_read(path, &B), SPX_OK))
        if (!CHECK(identical(A, B))) fprintf(stderr, "  %s differs after the round trip\n", name);
    spx_matrix_destroy(B);
    remove(path);
}

static void test_round_trips(void)
{
    spx_matrix *A = spx_test_random_matrix(300, 200, 3001, 1), *F = NULL,
               *E = spx_test_random_matrix(0, 0, 0, 2);
    spx_matrix *W = NULL;
    /* 3e9 columns: 64-bit column indices (read from text: spx_matrix_from_coo
     * would need memory for every column). */
    static const int64_t rp[] = {0, 2, 3};
    static const char text[] = "%%MatrixMarket matrix coordinate real general\n"
                               "2 3000000000 3\n1 6 1.5\n1 3000000000 -2\n2 8 3.25\n";
    char wide[1024];
    snprintf(wide, sizeof wide, "%s", tmp_path("wide.mtx"));
    spill(wide, (const unsigned char *)text, (long)strlen(text));
    round_trip("a.spx", A);
    if (CHECK_STATUS(spx_matrix_copy(A, SPX_F32, &F), SPX_OK)) round_trip("f.spx", F);
    round_trip("e.spx", E);
    if (CHECK_STATUS(spx_matrix_read(wide, &W), SPX_OK)) {
        const int64_t *wrp;
        const void *wci, *wv;
        int bits;
        spx_type t;
        spx_matrix_csr(W, &wrp, &wci, &bits, &wv, &t);
        CHECK(bits == 64 && memcmp(wrp, rp, sizeof rp) == 0);
        CHECK(((const int64_t *)wci)[1] == 2999999999LL);
        round_trip("w.spx", W);
    }
    remove(wide);
    spx_matrix_destroy(A);
    spx_matrix_destroy(F);
    spx_matrix_destroy(E);
    spx_matrix_destroy(W);
}

/* Write path's bytes with a change, read, expect BIN_FORMAT with the word. */
static void expect_damage(const unsigned char *good, long n, long at, int flip, long new_len,
                          const char *word)
{
    unsigned char *bad = malloc((size_t)(n > new_len ? n : new_len) + 1);
    spx_matrix *B = (spx_matrix *)bad;
    const char *path = tmp_path("bad.spx");
    memcpy(bad, good, (size_t)(n < new_len ? n : new_len));
    if (new_len > n) memset(bad + n, 0, (size_t)(new_len - n));
    if (at >= 0) bad[at] = (unsigned char)(bad[at] ^ flip);
    spill(path, bad, new_len);
    CHECK_STATUS(spx_matrix_read(path, &B), SPX_ERR_BIN_FORMAT);
    if (!CHECK(strstr(spx_last_error(), word) != NULL))
        fprintf(stderr, "  byte %ld, length %ld: \"%s\" lacks \"%s\"\n", at, new_len,
                spx_last_error(), word);
    CHECK(B == NULL);
    remove(path);
    free(bad);
}

static void test_damage(void)
{
    spx_matrix *A = spx_test_random_matrix(40, 30, 201, 3);
    const char *path = tmp_path("good.spx");
    unsigned char *good;
    long n = 0;
    CHECK_STATUS(spx_matrix_write_bin(A, path), SPX_OK);
    good = slurp(path, &n);
    if (!CHECK(good != NULL && n > 64)) return;
    /* A flip in the rows+1 offsets, the columns, the values, the checksum. */
    long spots[] = {64 + 8 * 5, 64 + 41 * 8 + 4 * 100, n - 8 - 8 * 3, n - 3};
    for (int s = 0; s < 4; s++)
        expect_damage(good, n, spots[s], 0x10, n, "checksum mismatch");
    /* Header bytes that pass the header checks. */
    expect_damage(good, n, 50, 0x01, n, "checksum mismatch");
    expect_damage(good, n, 0, 0x20, n, "bad magic");
    expect_damage(good, n, 8, 0x02, n, "unsupported version");
    expect_damage(good, n, -1, 0, n - 1, "truncated");
    expect_damage(good, n, -1, 0, n / 2, "truncated");
    expect_damage(good, n, -1, 0, 20, "truncated");
    expect_damage(good, n, -1, 0, n + 5, "trailing");
    /* rows changed: the sizes no longer match the file. */
    expect_damage(good, n, 16, 0x08, n, "trailing");
    free(good);
    remove(path);
    /* A text file under a .spx name. */
    spill(path, (const unsigned char *)"%%MatrixMarket matrix coordinate real general\n1 1 0\n",
          52);
    spx_matrix *B = NULL;
    CHECK_STATUS(spx_matrix_read_bin(path, &B), SPX_ERR_BIN_FORMAT);
    CHECK(strstr(spx_last_error(), "bad magic") != NULL);
    remove(path);
    CHECK_STATUS(spx_matrix_read_bin("/nonexistent/x.spx", &B), SPX_ERR_IO);
    CHECK_STATUS(spx_matrix_write_bin(NULL, path), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_matrix_write_bin(A, "/nonexistent/x.spx"), SPX_ERR_IO);
    spx_matrix_destroy(A);
}

/* Each allocation of a write and of a read failing in turn: SPX_ERR_OOM. */
static void test_alloc_failures(void)
{
    spx_matrix *A = spx_test_random_matrix(20, 20, 50, 5);
    const char *path = tmp_path("alloc.spx");
    for (int reading = 0; reading < 2; reading++) {
        long n, made;
        for (n = 1; n < 100; n++) {
            spx_matrix *B = NULL;
            spx__alloc_fail_at(n);
            spx_status st = reading ? spx_matrix_read(path, &B) : spx_matrix_write(A, path);
            made = spx__alloc_fail_at(0);
            spx_matrix_destroy(B);
            if (st == SPX_OK && made < n) break;
            if (st != SPX_OK && !CHECK_STATUS(st, SPX_ERR_OOM)) break;
        }
        CHECK(n < 100);
        if (!reading) CHECK_STATUS(spx_matrix_write(A, path), SPX_OK);
    }
    remove(path);
    spx_matrix_destroy(A);
}

/* A shared matrix through .mtx -> .spx -> matrix (part "shared"). */
static void test_shared(void)
{
    const char *dir = spx_test_matrices_dir();
    spx_matrix *A = dir ? spx_test_read_matrix(dir, "bcsstk13") : NULL;
    if (A) round_trip("bcsstk13.spx", A);
    spx_matrix_destroy(A);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/spx_test_bin_%ld", t && *t ? t : "/tmp", (long)getpid());
    if (mkdir(tmpdir, 0700) != 0) {
        fprintf(stderr, "cannot create %s\n", tmpdir);
        return 1;
    }
    if (spx_test_part("shared")) test_shared();
    if (spx_test_part(NULL)) {
        test_round_trips();
        test_damage();
        test_alloc_failures();
    }
    rmdir(tmpdir);
    return spx_test_finish();
}
