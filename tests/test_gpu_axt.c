/* The CUDA formats axc, axt-uh1, axt-uh, axt-ch1 and axt-ch on a GPU
 * (src/cuda/axt/): every variant in fp64 and fp32, x=live and x=refresh,
 * combine=ordered and atomic, a sweep of th and bs, pdl on and off, against
 * the long-double reference on edge cases (no entries, empty rows, one dense
 * row, rows of up to 100,000 entries, rectangular) and generated matrices.
 *
 * Tolerance (tests/test_gpu.c's): |y - ref|_inf <= 64 u (|alpha| |A| |x| +
 * |beta| |y0|)_inf, u = 2^-53 (fp64) or 2^-24 (fp32, the reference taken on
 * the float x and y0). Each plan runs twice on device vectors: alpha = 1.25,
 * beta = 0 with y full of NaN (must not leak, every entry written), then a
 * second x (a stale x=refresh copy would show) with beta = 0.75.
 * combine=ordered (and axc) must give the same bits in 20 calls; chains of
 * calls whose x is the call before's y must give the bits of pdl=off.
 * Parameter errors are SPX_ERR_BAD_PARAM. Without a GPU: SKIP, exit 77.
 * SPX_TEST_QUICK=1 (compute-sanitizer): the x and combine modes only, 3
 * repeats, the small generated matrices, a short chain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axt_matrices.h"
#include "common.h"
#include "core/matrix.h"
#include "cuda/gateway.h"

#define TOL64 (64.0 * 0x1.0p-53)
#define TOL32 (64.0 * 0x1.0p-24)
#define REPEATS 20

static const char *const formats[] = {"axc", "axt-uh1", "axt-uh", "axt-ch1", "axt-ch"};
enum { NFORMATS = 5 };

static int quick(void)
{
    const char *q = getenv("SPX_TEST_QUICK");
    return q && *q == '1';
}

static size_t esize(spx_type t)
{
    return t == SPX_F64 ? sizeof(double) : sizeof(float);
}

/* n doubles as the plan's type, in a new device buffer (NULL: n NaN). */
static void *to_device(const double *v, int64_t n, spx_type t)
{
    void *h = malloc((size_t)(n + 1) * esize(t)), *d = NULL;
    for (int64_t i = 0; i < n; i++) {
        const double a = v ? v[i] : NAN;
        if (t == SPX_F64)
            ((double *)h)[i] = a;
        else
            ((float *)h)[i] = (float)a;
    }
    CHECK_STATUS(spx__cuda_upload(&d, h, (size_t)n * esize(t), "test vector"), SPX_OK);
    free(h);
    return d;
}

/* The device vector d (n of type t) into raw host bytes. */
static void *from_device(const void *d, int64_t n, spx_type t)
{
    void *h = malloc((size_t)(n + 1) * esize(t));
    CHECK_STATUS(spx__cuda_sync(NULL), SPX_OK);
    CHECK_STATUS(spx__cuda_copy(h, d, (size_t)n * esize(t), 0), SPX_OK);
    return h;
}

static double as_double(const void *h, int64_t i, spx_type t)
{
    return t == SPX_F64 ? ((const double *)h)[i] : (double)((const float *)h)[i];
}

/* Random values, rounded to t (the plan sees them so). */
static double *random_vec(int64_t n, spx_type t, uint64_t seed)
{
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = t == SPX_F64 ? spx_test_rand(&seed) : (double)(float)spx_test_rand(&seed);
    return v;
}

/* One call y = alpha*A*x + beta*y0 (beta = 0: y starts NaN); its error
 * against the reference, relative to the scale. */
static double call_error(const spx_plan *P, const spx_matrix *A, spx_type t, double alpha,
                         double beta, uint64_t seed)
{
    int64_t m, n;
    spx_matrix_dims(A, &m, &n, NULL);
    double *x = random_vec(n, t, seed), *y0 = random_vec(m, t, seed + 1);
    double *ref = malloc((size_t)(m + 1) * sizeof *ref),
           *scale = malloc((size_t)(m + 1) * sizeof *scale);
    double *y = malloc((size_t)(m + 1) * sizeof *y);
    void *dx = to_device(x, n, t), *dy = to_device(beta == 0.0 ? NULL : y0, m, t);
    double err = INFINITY;
    if (CHECK_STATUS(spx_spmv(P, alpha, dx, beta, dy), SPX_OK)) {
        void *h = from_device(dy, m, t);
        for (int64_t i = 0; i < m; i++)
            y[i] = as_double(h, i, t);
        free(h);
        spx_test_reference(A, SPX_OP_N, alpha, x, beta, y0, ref, scale);
        err = m ? spx_test_rel_err(y, ref, scale, m) : 0.0;
    }
    spx__cuda_free(dx);
    spx__cuda_free(dy);
    free(x), free(y0), free(ref), free(scale), free(y);
    return err;
}

/* REPEATS calls on the same vectors give the same bits (beta = 0.5: y
 * restored before each). */
static int repeats_bitwise(const spx_plan *P, const spx_matrix *A, spx_type t)
{
    int64_t m, n;
    spx_matrix_dims(A, &m, &n, NULL);
    double *x = random_vec(n, t, 5), *y0 = random_vec(m, t, 6);
    void *dx = to_device(x, n, t), *dy = to_device(y0, m, t), *dy0 = to_device(y0, m, t);
    void *first = NULL;
    int same = 1;
    for (int k = 0; k < (quick() ? 3 : REPEATS) && same; k++) {
        CHECK_STATUS(spx__cuda_copy_d2d(dy, dy0, (size_t)m * esize(t), NULL), SPX_OK);
        CHECK_STATUS(spx_spmv(P, 1.0, dx, 0.5, dy), SPX_OK);
        void *h = from_device(dy, m, t);
        if (!first)
            first = h;
        else {
            same = memcmp(first, h, (size_t)m * esize(t)) == 0;
            free(h);
        }
    }
    free(first), free(x), free(y0);
    spx__cuda_free(dx), spx__cuda_free(dy), spx__cuda_free(dy0);
    return same;
}

static int ordered(const char *format, const char *params)
{
    return strcmp(format, "axc") == 0 || !params || !strstr(params, "combine=atomic");
}

static void check_plan(const spx_matrix *A, const char *what, const char *format, spx_type t,
                       const char *params)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = SPX_DEV_CUDA;
    o.format = format;
    o.precision = t;
    o.params = params;
    const char *tn = t == SPX_F64 ? "f64" : "f32";
    if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) {
        fprintf(stderr, "  %s %s %s params=%s: %s\n", format, tn, what, params, spx_last_error());
        return;
    }
    const double tol = t == SPX_F64 ? TOL64 : TOL32;
    const double e1 = call_error(P, A, t, 1.25, 0.0, 11), e2 = call_error(P, A, t, -0.5, 0.75, 21);
    if (!CHECK(e1 <= tol && e2 <= tol))
        fprintf(stderr, "  %s %s on %s (%s): errors %.3g, %.3g > %.3g\n", format, tn, what,
                spx_plan_describe(P), e1, e2, tol);
    if (ordered(format, params) && !CHECK(repeats_bitwise(P, A, t)))
        fprintf(stderr, "  %s %s on %s (%s): not the same bits in %d calls\n", format, tn, what,
                spx_plan_describe(P), REPEATS);
    int64_t nnz = 0;
    spx_matrix_dims(A, NULL, NULL, &nnz);
    /* a matrix without entries stores no slabs: no bytes to report */
    if (!CHECK(strstr(spx_plan_describe(P), "beta=") != NULL && (nnz == 0 || spx_plan_bytes(P) > 0)))
        fprintf(stderr, "  %s %s on %s: describe \"%s\", %zu bytes\n", format, tn, what,
                spx_plan_describe(P), spx_plan_bytes(P));
    spx_plan_destroy(P);
}

/* Parameter sets of format f: both x modes with both combines, then its own
 * sizes. */
static int param_sets(int f, const char **sets)
{
    static const char *const modes[] = {"x=live,combine=ordered", "x=refresh,combine=ordered",
                                        "x=live,combine=atomic", "x=refresh,combine=atomic"};
    static const char *const axc[] = {"x=live", "x=refresh", "pdl=off"};
    static const char *const uh[] = {"th=1",  "th=2,x=refresh", "th=8", "th=16,combine=atomic",
                                     "th=33", "pdl=off"};
    static const char *const ch[] = {"th=1", "th=3,x=refresh", "th=16", "th=64,combine=atomic",
                                     "pdl=off"};
    static const char *const ch1[] = {"bs=32", "bs=96,x=refresh", "bs=1024", "bs=64,combine=atomic",
                                      "pdl=off"};
    static const char *const uh1[] = {"pdl=off"};
    int n = 0;
    if (f == 0) {
        for (int i = 0; i < (quick() ? 2 : 3); i++)
            sets[n++] = axc[i];
        return n;
    }
    for (int i = 0; i < 4; i++)
        sets[n++] = modes[i];
    if (quick()) return n;
    const char *const *own = f == 1 ? uh1 : f == 2 ? uh : f == 3 ? ch1 : ch;
    const int nown = f == 1 ? 1 : f == 2 ? 6 : 5;
    for (int i = 0; i < nown; i++)
        sets[n++] = own[i];
    return n;
}

static void check_all(const spx_matrix *A, const char *what)
{
    if (!A) return;
    const long before = spx_test_failed;
    for (int f = 0; f < NFORMATS; f++) {
        const char *sets[16];
        const int n = param_sets(f, sets);
        for (int t = SPX_F64; t <= SPX_F32; t++)
            for (int i = 0; i < n; i++)
                check_plan(A, what, formats[f], (spx_type)t, sets[i]);
    }
    printf("%-28s %s\n", what, spx_test_failed == before ? "ok" : "FAILED");
}

static void test_edge_cases(void)
{
    const char *what;
    spx_matrix *A;
    for (int i = 0; (A = axt_edge_case(i, &what)) || what; i++) {
        check_all(A, what);
        spx_matrix_destroy(A);
    }
}

static void test_generated(void)
{
    spx_matrix *A = axt_random_rows(quick() ? 2000 : 20000, quick() ? 2000 : 20000, 40, 5);
    check_all(A, "random square");
    spx_matrix_destroy(A);
    static const char *const specs[] = {"lap3d7:24", "lap3d27:16", "lap2d5:300",
                                        "rmat:scale=14,ef=8", "lap3d7:64"};
    for (size_t i = 0; i < (quick() ? 2 : sizeof specs / sizeof specs[0]); i++) {
        A = NULL;
        if (CHECK_STATUS(spx_generate(specs[i], &A), SPX_OK)) check_all(A, specs[i]);
        spx_matrix_destroy(A);
    }
}

/* v = a A u + 0.5 v, u = a A v + 0.5 u, ... on one stream (A square): each
 * call's x is the call before's y, so pdl=on must wait for it. */
static void *chain(const spx_matrix *A, const char *format, const char *params, int steps, double a,
                   const double *u0, int64_t n)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = SPX_DEV_CUDA;
    o.format = format;
    o.params = params;
    void *u = to_device(u0, n, SPX_F64), *v = to_device(u0, n, SPX_F64), *out = NULL;
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) {
        for (int k = 0; k < steps; k++)
            CHECK_STATUS(k % 2 ? spx_spmv(P, a, v, 0.5, u) : spx_spmv(P, a, u, 0.5, v), SPX_OK);
        out = from_device(steps % 2 ? v : u, n, SPX_F64);
    }
    spx__cuda_free(u), spx__cuda_free(v);
    spx_plan_destroy(P);
    return out;
}

static void test_chains(void)
{
    const int64_t n = quick() ? 3000 : 20000;
    const int steps = quick() ? 10 : 40;
    int64_t *len = malloc((size_t)n * sizeof *len);
    for (int64_t i = 0; i < n; i++)
        len[i] = i % 97 == 0 ? 300 + i % 700 : i % 40;
    spx_matrix *A = axt_rows_of(len, n, n, 31);
    free(len);
    double *u0 = random_vec(n, SPX_F64, 17), *cur = malloc((size_t)n * sizeof *cur);
    double *next = malloc((size_t)n * sizeof *next), *scale = malloc((size_t)n * sizeof *scale);
    double rmax = 1.0; /* a = 1 / the largest row sum of |a_ij|: the chain stays bounded */
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += fabs(spx__val(A, k));
        rmax = fmax(rmax, s);
    }
    const double a = 1.0 / rmax;
    memcpy(cur, u0, (size_t)n * sizeof *cur);
    memcpy(next, u0, (size_t)n * sizeof *next);
    for (int k = 0; k < steps; k++) {
        spx_test_reference(A, SPX_OP_N, a, cur, 0.5, next, next, scale);
        double *t = cur;
        cur = next;
        next = t;
    }
    for (int f = 0; f < NFORMATS; f++)
        for (int m = 0; m < 4; m++) {
            if (f == 0 && m >= 2) continue;
            char on[64], off[64];
            static const char *const modes[] = {"x=live", "x=refresh", "x=live,combine=atomic",
                                                "x=refresh,combine=atomic"};
            snprintf(on, sizeof on, "%s,pdl=on", modes[m]);
            snprintf(off, sizeof off, "%s,pdl=off", modes[m]);
            double *yon = chain(A, formats[f], on, steps, a, u0, n);
            double *yoff = chain(A, formats[f], off, steps, a, u0, n);
            double worst = 0.0;
            for (int64_t i = 0; yon && i < n; i++)
                worst = fmax(worst, fabs(yon[i] - cur[i]));
            const int same = yon && yoff && memcmp(yon, yoff, (size_t)n * sizeof *yon) == 0;
            if (!CHECK(yon && worst <= 1e-12 && (same || m >= 2)))
                printf("  chain %s %s: pdl on/off %s, max |u - ref| %.3g\n", formats[f], modes[m],
                       same ? "equal" : "DIFFERENT", worst);
            free(yon), free(yoff);
        }
    free(u0), free(cur), free(next), free(scale);
    spx_matrix_destroy(A);
}

static void test_params(void)
{
    static const struct {
        const char *format, *params;
    } bad[] = {{"axc", "th=2"},         {"axc", "combine=atomic"},
               {"axc", "hbrs=32"},      {"axt-uh1", "th=2"},
               {"axt-uh1", "bs=64"},    {"axt-uh1", "thw=16"},
               {"axt-uh", "th=0"},      {"axt-uh", "th=257"},
               {"axt-uh", "bs=64"},     {"axt-ch", "th=0"},
               {"axt-ch", "x=stale"},   {"axt-ch1", "bs=48"},
               {"axt-ch1", "bs=16"},    {"axt-ch1", "bs=2048"},
               {"axt-ch1", "th=2"},     {"axt-ch1", "combine=fast"},
               {"axt-uh", "pdl=maybe"}, {"axt-ch", "isa=avx2"}};
    spx_matrix *A = axt_random_rows(50, 50, 5, 1);
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    for (size_t i = 0; A && i < sizeof bad / sizeof bad[0]; i++) {
        spx_plan *P = NULL;
        o.format = bad[i].format;
        o.params = bad[i].params;
        if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM) ||
            !CHECK(P == NULL))
            fprintf(stderr, "  %s %s accepted\n", bad[i].format, bad[i].params);
        spx_plan_destroy(P);
    }
    o.params = NULL;
    o.precision = SPX_F16; /* fp64 and fp32 only */
    for (int f = 0; A && f < NFORMATS; f++) {
        spx_plan *P = NULL;
        o.format = formats[f];
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_NO_FORMAT);
        spx_plan_destroy(P);
    }
    spx_matrix_destroy(A);
    printf("%-28s %s\n", "parameter errors", "checked");
}

/* axt-uh's th default on a 3D 7-point stencil: 4 while L2-resident
 * (lap3d7:20, 55k nonzeros); from DRAM (lap3d7:100, 6.9M nonzeros, about 100
 * MB at th=4) th=7, rows of 7 in one column, 15% fewer bytes. */
static void check_uh_th(const char *gen, const char *want, int smaller)
{
    spx_matrix *A = NULL;
    spx_plan *P = NULL, *Q = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.format = "axt-uh";
    if (CHECK_STATUS(spx_generate(gen, &A), SPX_OK) &&
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) {
        o.params = "th=4";
        if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &Q), SPX_OK)) {
            CHECK(strstr(spx_plan_describe(Q), " th=4 ") != NULL);
            if (!CHECK(strstr(spx_plan_describe(P), want) != NULL &&
                       (spx_plan_bytes(P) < spx_plan_bytes(Q)) == smaller))
                fprintf(stderr, "  axt-uh default on %s: %s, %zu bytes (th=4: %zu)\n", gen,
                        spx_plan_describe(P), spx_plan_bytes(P), spx_plan_bytes(Q));
        }
    }
    spx_plan_destroy(P), spx_plan_destroy(Q);
    spx_matrix_destroy(A);
}

/* axt-uh's th default (check_uh_th); AUTO takes axc for a small matrix of
 * long rows and never for a stencil. */
static void test_defaults(void)
{
    spx_matrix *A = NULL, *B = axt_random_rows(4000, 4000, 80, 3);
    spx_plan *P = NULL, *Q = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    check_uh_th("lap3d7:20", " th=4 ", 0);
    if (!quick()) check_uh_th("lap3d7:100", " th=7 ", 1);
    CHECK_STATUS(spx_generate("lap3d7:20", &A), SPX_OK);
    o.format = "auto";
    o.params = NULL;
    if (B && CHECK_STATUS(spx_plan_create(B, SPX_OP_SPMV, &o, &P), SPX_OK))
        CHECK(strcmp(spx_plan_format(P), "axc") == 0); /* 4000 rows of 34 on average */
    if (A && CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &Q), SPX_OK))
        CHECK(strcmp(spx_plan_format(Q), "axc") != 0);
    spx_plan_destroy(P), spx_plan_destroy(Q);
    spx_matrix_destroy(A), spx_matrix_destroy(B);
    printf("%-28s %s\n", "defaults", "checked");
}

int main(void)
{
    if (!spx_device_available(SPX_DEV_CUDA)) {
        printf("SKIP: no CUDA device (none seen, or built without CUDA): CUDA axc/axt-* not run\n");
        return 77;
    }
    test_params();
    test_defaults();
    test_edge_cases();
    test_generated();
    test_chains();
    return spx_test_finish();
}
