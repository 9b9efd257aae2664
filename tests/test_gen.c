/* Generators: exact stencil nnz, symmetry and row sums of the Laplacians,
 * determinism (same seed, any thread count -> identical arrays; other seed ->
 * different), shapes of R-MAT, power-law and circuit matrices, scale-up nnz,
 * and the status of bad specs. Sizes are modest so that ASan runs stay fast. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "core/alloc.h"
#include "gen/gen.h"

typedef struct view {
    int64_t rows, cols, nnz;
    const int64_t *rp;
    const int32_t *ci; /* the tests use 32-bit column sizes */
    const double *v;
} view;

static view view_of(const spx_matrix *A)
{
    view w = {0};
    const void *ci, *v;
    int bits;
    spx_type t;
    spx_matrix_dims(A, &w.rows, &w.cols, &w.nnz);
    spx_matrix_csr(A, &w.rp, &ci, &bits, &v, &t);
    CHECK(bits == 32 && t == SPX_F64);
    w.ci = ci;
    w.v = v;
    return w;
}

/* Position of (i, j) in the CSR arrays, or -1. */
static int64_t find(const view *w, int64_t i, int64_t j)
{
    int64_t lo = w->rp[i], hi = w->rp[i + 1] - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (w->ci[mid] == j) return mid;
        if (w->ci[mid] < j) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

/* Pattern and values symmetric. */
static int symmetric(const view *w)
{
    if (w->rows != w->cols) return 0;
    for (int64_t i = 0; i < w->rows; i++)
        for (int64_t k = w->rp[i]; k < w->rp[i + 1]; k++) {
            int64_t t = find(w, w->ci[k], i);
            if (t < 0 || w->v[t] != w->v[k]) return 0;
        }
    return 1;
}

static spx_matrix *gen(const char *spec)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate(spec, &A), SPX_OK)) fprintf(stderr, "  spec %s\n", spec);
    if (A) CHECK_STATUS(spx_matrix_validate(A), SPX_OK);
    return A;
}

static int64_t longest_row(const view *w)
{
    int64_t mx = 0;
    for (int64_t i = 0; i < w->rows; i++)
        if (w->rp[i + 1] - w->rp[i] > mx) mx = w->rp[i + 1] - w->rp[i];
    return mx;
}

/* nnz formula, symmetry, and row sums diag - (len-1) of a Laplacian. */
static void check_lap(const char *name, int64_t N, int dims, int64_t want_nnz, double diag)
{
    char spec[64];
    snprintf(spec, sizeof spec, "%s:%lld", name, (long long)N);
    spx_matrix *A = gen(spec);
    if (!A) return;
    view w = view_of(A);
    int64_t rows = dims == 2 ? N * N : N * N * N, bad = 0;
    CHECK(w.rows == rows && w.cols == rows);
    if (!CHECK(w.nnz == want_nnz)) fprintf(stderr, "  %s: nnz %lld, want %lld\n", spec, (long long)w.nnz, (long long)want_nnz);
    CHECK(symmetric(&w));
    for (int64_t i = 0; i < w.rows; i++) {
        double sum = 0.0;
        for (int64_t k = w.rp[i]; k < w.rp[i + 1]; k++) sum += w.v[k];
        if (sum != diag - (double)(w.rp[i + 1] - w.rp[i] - 1)) bad++;
        int64_t d = find(&w, i, i);
        if (d < 0 || w.v[d] != diag) bad++;
    }
    CHECK(bad == 0);
    spx_matrix_destroy(A);
}

static void test_stencils(void)
{
    for (int64_t N = 1; N <= 13; N += 4) {
        check_lap("lap2d5", N, 2, 5 * N * N - 4 * N, 4.0);
        check_lap("lap2d9", N, 2, (3 * N - 2) * (3 * N - 2), 8.0);
        check_lap("lap3d7", N, 3, 7 * N * N * N - 6 * N * N, 6.0);
        check_lap("lap3d27", N, 3, (3 * N - 2) * (3 * N - 2) * (3 * N - 2), 26.0);
    }
    spx_matrix *A = gen("lap3d7:nx=3,ny=4,nz=5");
    if (A) {
        view w = view_of(A);
        CHECK(w.rows == 60 && w.nnz == 60 + 2 * (2 * 4 * 5 + 3 * 3 * 5 + 3 * 4 * 4));
        CHECK(symmetric(&w));
        spx_matrix_destroy(A);
    }
    A = gen("lap2d9:nx=7,ny=3");
    if (A) {
        view w = view_of(A);
        CHECK(w.rows == 21 && w.nnz == (3 * 7 - 2) * (3 * 3 - 2));
        spx_matrix_destroy(A);
    }
}

static void test_banded(void)
{
    spx_matrix *A = gen("banded:n=100,bw=3");
    if (A) {
        view w = view_of(A);
        CHECK(w.rows == 100 && w.nnz == 100 * 7 - 3 * 4);
        CHECK(symmetric(&w));
        spx_matrix_destroy(A);
    }
    A = gen("banded:n=2k,lower=2,upper=5");
    if (A) {
        view w = view_of(A);
        CHECK(w.rows == 2000 && w.nnz == 2000 + (1999 + 1998) + (1999 + 1998 + 1997 + 1996 + 1995));
        CHECK(w.ci[w.rp[10]] == 8 && w.ci[w.rp[11] - 1] == 15);
        spx_matrix_destroy(A);
    }
}

static int same_arrays(const spx_matrix *A, const spx_matrix *B)
{
    view a = view_of(A), b = view_of(B);
    return a.rows == b.rows && a.cols == b.cols && a.nnz == b.nnz &&
           memcmp(a.rp, b.rp, (size_t)(a.rows + 1) * sizeof *a.rp) == 0 &&
           memcmp(a.ci, b.ci, (size_t)a.nnz * sizeof *a.ci) == 0 &&
           memcmp(a.v, b.v, (size_t)a.nnz * sizeof *a.v) == 0;
}

/* spec ends in "seed=": same seed on 1 and several threads, then seed 2. */
static void check_determinism(const char *spec_prefix)
{
    char spec[128];
    snprintf(spec, sizeof spec, "%s1", spec_prefix);
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    spx_matrix *A = gen(spec);
    omp_set_num_threads(threads > 1 ? threads : 2);
    spx_matrix *B = gen(spec);
    omp_set_num_threads(threads);
    snprintf(spec, sizeof spec, "%s2", spec_prefix);
    spx_matrix *C = gen(spec);
    if (A && B && C) {
        if (!CHECK(same_arrays(A, B))) fprintf(stderr, "  %s: thread count changes the matrix\n", spec);
        if (!CHECK(!same_arrays(A, C))) fprintf(stderr, "  %s: seed does not change the matrix\n", spec);
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    spx_matrix_destroy(C);
}

static void test_determinism(void)
{
    check_determinism("random:m=3000,n=2000,nnz=40000,seed=");
    check_determinism("rmat:scale=11,ef=8,sym=1,values=random,seed=");
    check_determinism("powerlaw:n=5000,avg=6,alpha=2.1,seed=");
    check_determinism("circuit:n=5000,avg=3,long=3,longlen=2000,seed=");
}

static void test_random(void)
{
    spx_matrix *A = gen("random:m=1000,n=800,nnz=20000,seed=3");
    if (A) {
        view w = view_of(A);
        CHECK(w.rows == 1000 && w.cols == 800 && w.nnz == 20000);
        spx_matrix_destroy(A);
    }
    A = gen("random:m=1e3,density=0.01,values=ones");
    if (A) {
        view w = view_of(A);
        CHECK(w.cols == 1000 && w.nnz == 10000 && w.v[0] == 1.0 && w.v[w.nnz - 1] == 1.0);
        spx_matrix_destroy(A);
    }
    A = gen("random:m=50,n=40,density=1");
    if (A) {
        view w = view_of(A);
        CHECK(w.nnz == 2000);
        spx_matrix_destroy(A);
    }
}

static void test_rmat(void)
{
    spx_matrix *A = gen("rmat:scale=12,ef=8,sym=1,values=random,seed=5");
    if (A) {
        view w = view_of(A);
        double avg = (double)w.nnz / (double)w.rows;
        CHECK(w.rows == 4096 && w.nnz <= 2 * 8 * 4096 && w.nnz > 8 * 4096);
        CHECK(symmetric(&w));
        if (!CHECK((double)longest_row(&w) > 10.0 * avg))
            fprintf(stderr, "  rmat: max degree %lld, average %.1f\n", (long long)longest_row(&w), avg);
        spx_matrix_destroy(A);
    }
    A = gen("rmat:scale=10,ef=16,loops=0,perm=0");
    if (A) {
        view w = view_of(A);
        int64_t loops = 0, ones = 0;
        for (int64_t i = 0; i < w.rows; i++) loops += find(&w, i, i) >= 0;
        for (int64_t k = 0; k < w.nnz; k++) ones += w.v[k] == 1.0;
        CHECK(loops == 0 && ones == w.nnz);
        /* without the label scramble the heaviest rows are the first ones (a > d) */
        CHECK(w.rp[1] - w.rp[0] == longest_row(&w));
        spx_matrix_destroy(A);
    }
}

static void test_powerlaw_circuit(void)
{
    spx_matrix *A = gen("powerlaw:n=20000,avg=8,alpha=2.1,seed=4");
    if (A) {
        view w = view_of(A);
        double avg = (double)w.nnz / (double)w.rows;
        CHECK(avg > 6.0 && avg < 11.0);
        if (!CHECK(longest_row(&w) >= 200)) fprintf(stderr, "  powerlaw: longest row %lld\n", (long long)longest_row(&w));
        spx_matrix_destroy(A);
    }
    A = gen("circuit:n=30000,avg=3,long=4,longlen=20000,seed=9");
    if (A) {
        view w = view_of(A);
        int64_t longs = 0, nodiag = 0, bad = 0;
        for (int64_t i = 0; i < w.rows; i++) {
            int64_t len = w.rp[i + 1] - w.rp[i];
            longs += len >= 10000;
            bad += len > 5 && len < 10000;
            nodiag += find(&w, i, i) < 0;
        }
        CHECK(longs == 4 && bad == 0 && nodiag == 0);
        double avg = (double)(w.nnz - 4 * 15000) / (double)w.rows;
        CHECK(avg > 2.5 && avg < 3.5);
        spx_matrix_destroy(A);
    }
}

/* Block (p, q) of B equals A: the first and last block rows spot-checked. */
static int block_equals(const view *b, const view *a, int64_t p, int64_t q)
{
    for (int64_t i = 0; i < a->rows; i++)
        for (int64_t k = a->rp[i]; k < a->rp[i + 1]; k++) {
            int64_t t = find(b, p * a->rows + i, q * a->cols + a->ci[k]);
            if (t < 0 || b->v[t] != a->v[k]) return 0;
        }
    return 1;
}

static void test_scale(void)
{
    spx_matrix *A = gen("circuit:n=300,avg=3,long=2,longlen=100"), *B = NULL;
    if (!A) return;
    view a = view_of(A);
    if (CHECK_STATUS(spx__gen_kron(A, 5, SPX__SCALE_BLOCKDIAG, 0.0, 1, &B), SPX_OK)) {
        CHECK_STATUS(spx_matrix_validate(B), SPX_OK);
        view b = view_of(B);
        CHECK(b.rows == 1500 && b.cols == 1500 && b.nnz == 5 * a.nnz);
        CHECK(block_equals(&b, &a, 0, 0) && block_equals(&b, &a, 4, 4));
        spx_matrix_destroy(B);
    }
    if (CHECK_STATUS(spx__gen_kron(A, 6, SPX__SCALE_KRON_TRIDIAG, 0.0, 1, &B), SPX_OK)) {
        CHECK_STATUS(spx_matrix_validate(B), SPX_OK);
        view b = view_of(B);
        CHECK(b.nnz == (3 * 6 - 2) * a.nnz);
        CHECK(block_equals(&b, &a, 2, 1) && block_equals(&b, &a, 2, 3) && block_equals(&b, &a, 5, 5));
        spx_matrix_destroy(B);
    }
    if (CHECK_STATUS(spx__gen_kron(A, 8, SPX__SCALE_KRON_RANDOM, 0.3, 7, &B), SPX_OK)) {
        CHECK_STATUS(spx_matrix_validate(B), SPX_OK);
        view b = view_of(B);
        CHECK(b.nnz % a.nnz == 0 && b.nnz / a.nnz >= 8 && b.nnz / a.nnz < 64);
        spx_matrix_destroy(B);
    }
    spx_matrix_destroy(A);

    const char *dir = spx_test_matrices_dir();
    if (!dir) return;
    char spec[4200], path[4096];
    snprintf(path, sizeof path, "%s/west0067.mtx", dir);
    if (CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) {
        view a2 = view_of(A);
        snprintf(spec, sizeof spec, "scale:file=%s,copies=3", path);
        B = gen(spec);
        if (B) CHECK(view_of(B).nnz == 3 * a2.nnz);
        spx_matrix_destroy(B);
        snprintf(spec, sizeof spec, "scale:file=%s,mode=kron,copies=4", path);
        B = gen(spec);
        if (B) CHECK(view_of(B).nnz == 10 * a2.nnz);
        spx_matrix_destroy(B);
        spx_matrix_destroy(A);
    }
}

/* A bad spec gives want, and the message names `word`. */
static void bad(const char *spec, spx_status want, const char *word)
{
    spx_matrix *A = (spx_matrix *)&A;
    if (!CHECK_STATUS(spx_generate(spec, &A), want)) fprintf(stderr, "  spec %s\n", spec);
    CHECK(A == NULL);
    if (!CHECK(strstr(spx_last_error(), word) != NULL))
        fprintf(stderr, "  spec %s: message '%s' lacks '%s'\n", spec, spx_last_error(), word);
}

static void test_bad_specs(void)
{
    spx_matrix *A;
    CHECK_STATUS(spx_generate(NULL, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_generate("lap2d5:4", NULL), SPX_ERR_INVALID_ARG);
    bad("nosuch:n=4", SPX_ERR_INVALID_ARG, "nosuch");
    bad("lap2d5", SPX_ERR_INVALID_ARG, "'n'");
    bad("lap2d5:n=10,foo=1", SPX_ERR_INVALID_ARG, "foo");
    bad("lap2d5:0", SPX_ERR_INVALID_ARG, "'n'");
    bad("lap2d5:ten", SPX_ERR_INVALID_ARG, "'n'");
    bad("lap2d5:n=4,n=5", SPX_ERR_INVALID_ARG, "twice");
    bad("lap3d27:2000", SPX_ERR_OVERFLOW, "'n'");
    bad("rmat:scale=8,a=0.9,b=0.2", SPX_ERR_INVALID_ARG, "'b'");
    bad("rmat:scale=37", SPX_ERR_INVALID_ARG, "scale");
    bad("rmat:scale=36,ef=1e9", SPX_ERR_OVERFLOW, "ef");
    bad("rmat:scale=8,values=two", SPX_ERR_INVALID_ARG, "values");
    bad("random:m=10,n=10,nnz=101", SPX_ERR_INVALID_ARG, "nnz");
    bad("random:m=10", SPX_ERR_INVALID_ARG, "nnz");
    bad("random:m=10,nnz=5,density=0.5", SPX_ERR_INVALID_ARG, "density");
    bad("powerlaw:n=100,avg=8,max=4", SPX_ERR_INVALID_ARG, "max");
    bad("circuit:n=100,longlen=101", SPX_ERR_INVALID_ARG, "longlen");
    bad("banded:bw=3", SPX_ERR_INVALID_ARG, "'n'");
    bad("scale:copies=2", SPX_ERR_INVALID_ARG, "file");
    bad("scale:file=/nonexistent/m.mtx,copies=2,mode=diag", SPX_ERR_INVALID_ARG, "mode");
    spx_matrix *B = NULL;
    CHECK(spx_generate("scale:file=/nonexistent/m.mtx,copies=2", &B) != SPX_OK && B == NULL);
}

/* A spec whose matrix cannot be made fails before any work in proportion to
 * its nonzeros: with want, a message naming word, and within a second. */
static void refused_fast(const char *spec, spx_status want, const char *word)
{
    double t0 = omp_get_wtime();
    bad(spec, want, word);
    if (!CHECK(omp_get_wtime() - t0 < 1.0))
        fprintf(stderr, "  spec %s: refused after %.2f s\n", spec, omp_get_wtime() - t0);
}

/* Sizes checked before the work (src/gen/size.c): matrices beyond any
 * machine's memory (petabytes: the same on every machine), counts that
 * overflow, and the test limit the fuzz harness sets. */
static void test_sizes(void)
{
    refused_fast("banded:n=2e9,bw=1e9", SPX_ERR_OOM, "GB");
    refused_fast("random:m=1e12,nnz=1e15", SPX_ERR_OOM, "GB");
    refused_fast("random:m=1e12,nnz=0", SPX_ERR_OOM, "GB"); /* 8 TB of row offsets */
    refused_fast("powerlaw:n=1e12,avg=2", SPX_ERR_OOM, "GB");
    refused_fast("circuit:n=1e12", SPX_ERR_OOM, "GB");
    refused_fast("rmat:scale=36,ef=6e7", SPX_ERR_OOM, "GB");
    /* 1e10 nonzeros need 120 GB: refused at once where memory is smaller. */
    if ((double)spx__physical_memory() < 1.2e11)
        refused_fast("random:m=1e5,density=1", SPX_ERR_OOM, "GB");
    else
        printf("SKIP random:m=1e5,density=1: this machine has 120 GB of memory\n");

    spx_matrix *A = gen("lap2d5:100"), *B = (spx_matrix *)&B;
    if (A) {
        double t0 = omp_get_wtime();
        CHECK_STATUS(spx__gen_kron(A, INT32_MAX, SPX__SCALE_BLOCKDIAG, 0.0, 1, &B), SPX_ERR_OOM);
        CHECK(B == NULL);
        CHECK_STATUS(spx__gen_kron(A, INT64_MAX / 3, SPX__SCALE_KRON_TRIDIAG, 0.0, 1, &B),
                     SPX_ERR_OVERFLOW);
        CHECK(B == NULL && omp_get_wtime() - t0 < 1.0);
        spx_matrix_destroy(A);
    }

    spx__gen_set_max_nnz(1000);
    A = gen("lap3d7:4"); /* 352 nonzeros */
    spx_matrix_destroy(A);
    refused_fast("lap3d7:10", SPX_ERR_OOM, "test limit");
    refused_fast("rmat:scale=10,ef=1", SPX_ERR_OOM, "test limit");
    refused_fast("random:m=1e5,density=1", SPX_ERR_OOM, "test limit");
    refused_fast("random:m=1e6,nnz=0", SPX_ERR_OOM, "test limit");
    refused_fast("powerlaw:n=300,avg=5", SPX_ERR_OOM, "test limit"); /* after the lengths */
    spx__gen_set_max_nnz(0);
}

/* Every allocation failing in turn gives SPX_ERR_OOM (ASan sees any leak). */
static void test_alloc_failures(void)
{
    const char *specs[] = {"rmat:scale=6,ef=4,sym=1", "random:m=50,nnz=200", "lap2d9:5"};
    for (int s = 0; s < 3; s++) {
        for (long n = 1; n < 50; n++) {
            spx_matrix *A = NULL;
            spx__alloc_fail_at(n);
            spx_status st = spx_generate(specs[s], &A);
            spx__alloc_fail_at(0);
            spx_matrix_destroy(A);
            if (st == SPX_OK) break;
            if (!CHECK_STATUS(st, SPX_ERR_OOM)) break;
        }
    }
}

int main(void)
{
    test_stencils();
    test_banded();
    test_determinism();
    test_random();
    test_rmat();
    test_powerlaw_circuit();
    test_scale();
    test_bad_specs();
    test_sizes();
    test_alloc_failures();
    return spx_test_finish();
}
