/* AXC and AXT formats: every variant x {refresh, live} x every ISA this CPU
 * may run (param isa=, lowered by SPX_ARCH) x fp64, fp32 x a sweep of TH
 * (uh, ch) or BS (ch1), against the long-double reference, on hand cases,
 * empty rows, a row of 100,000 entries, rectangular and random matrices and a
 * few shared ones (part "shared", tests/common.h). Each plan is called three
 * times: beta = 0 with NaN in y, beta != 0, and beta = 0 with a second x (a
 * stale x copy would show), then the first call again, which must give the
 * same bits (fixed thread count).
 *
 * Tolerance: |y - ref|_inf <= c * u * (|alpha| |A| |x| + |beta| |y0|)_inf,
 * c = 16 * log2(rmax + 2), u = 2^-53 (fp64) or 2^-24 (fp32): sums are split
 * into at most a few levels of vector lanes, columns and carried partials, so
 * the error grows with the depth of those sums, for which log2 of the longest
 * row stands, times a small constant. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/matrix.h"
#include "cpu/isa.h"

static const char *const formats[] = {"axc", "axt-uh1", "axt-uh", "axt-ch1", "axt-ch"};
static const int th_sweep[] = {1, 2, 4, 8, 16, 32, 64};
static const int bs_sweep[] = {64, 128, 256, 512, 1024};

/* Vectors of one test matrix, in double (reference) and the plan's type. */
typedef struct vecs {
    int64_t rows, cols;
    double *x1, *x2, *y0, *ref, *scale, *yd;
    void *xt1, *xt2, *yt, *yfirst;
} vecs;

static void *to_type(const double *v, int64_t n, spx_type t)
{
    size_t vs = t == SPX_F64 ? sizeof(double) : sizeof(float);
    void *out = malloc(vs * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) {
        if (t == SPX_F64)
            ((double *)out)[i] = v[i];
        else
            ((float *)out)[i] = (float)v[i];
    }
    return out;
}

static void from_type(const void *v, int64_t n, spx_type t, double *out)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = t == SPX_F64 ? ((const double *)v)[i] : (double)((const float *)v)[i];
}

/* One check: y (plan type) against the reference of alpha*A*x + beta*y0. */
static int check_result(const spx_matrix *A, vecs *w, spx_type t, double alpha, const double *x,
                        double beta, double c, const char *what)
{
    double u = t == SPX_F64 ? 0x1p-53 : 0x1p-24;
    spx_test_reference(A, SPX_OP_N, alpha, x, beta, w->y0, w->ref, w->scale);
    from_type(w->yt, w->rows, t, w->yd);
    return spx_test_close(w->yd, w->ref, w->scale, w->rows, c * u, "%s alpha=%g beta=%g", what,
                          alpha, beta);
}

static void fill_y(vecs *w, spx_type t, double value, const double *from)
{
    for (int64_t i = 0; i < w->rows; i++) {
        double v = from ? from[i] : value;
        if (t == SPX_F64)
            ((double *)w->yt)[i] = v;
        else
            ((float *)w->yt)[i] = (float)v;
    }
}

/* One plan, three calls and a repeat; returns 0 when the plan could not be made. */
static int run_plan(const spx_matrix *A, vecs *w, const char *fmt, spx_type t, const char *params,
                    int threads, double c)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.format = fmt;
    o.precision = t;
    o.params = params;
    o.threads = threads;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (!CHECK_STATUS(st, SPX_OK)) {
        fprintf(stderr, "  plan %s %s %s\n", fmt, t == SPX_F64 ? "f64" : "f32", params);
        return 0;
    }
    size_t vs = t == SPX_F64 ? sizeof(double) : sizeof(float);
    char what[160];
    snprintf(what, sizeof what, "%s %s params=%s threads=%d", fmt, t == SPX_F64 ? "f64" : "f32",
             params, threads);
    int ok = 1;
    fill_y(w, t, NAN, NULL);
    ok &= CHECK_STATUS(spx_spmv(P, 1.25, w->xt1, 0.0, w->yt), SPX_OK);
    ok &= check_result(A, w, t, 1.25, w->x1, 0.0, c, what);
    memcpy(w->yfirst, w->yt, vs * (size_t)w->rows);
    fill_y(w, t, 0.0, w->y0);
    ok &= CHECK_STATUS(spx_spmv(P, -0.5, w->xt1, 0.75, w->yt), SPX_OK);
    ok &= check_result(A, w, t, -0.5, w->x1, 0.75, c, what);
    fill_y(w, t, NAN, NULL);
    ok &= CHECK_STATUS(spx_spmv(P, 1.0, w->xt2, 0.0, w->yt), SPX_OK);
    ok &= check_result(A, w, t, 1.0, w->x2, 0.0, c, what);
    fill_y(w, t, NAN, NULL);
    ok &= CHECK_STATUS(spx_spmv(P, 1.25, w->xt1, 0.0, w->yt), SPX_OK);
    ok &= CHECK(memcmp(w->yfirst, w->yt, vs * (size_t)w->rows) == 0);
    const char *d = spx_plan_describe(P);
    ok &= CHECK(strstr(d, "isa=") != NULL && strstr(d, "beta=") != NULL);
    ok &= CHECK(spx_plan_bytes(P) > 0);
    if (!ok) fprintf(stderr, "  in %s: %s\n", what, d);
    spx_plan_destroy(P);
    return 1;
}

static void vecs_make(const spx_matrix *A, vecs *w, spx_type t, uint64_t seed)
{
    spx_matrix_dims(A, &w->rows, &w->cols, NULL);
    size_t r = (size_t)w->rows + 1, c = (size_t)w->cols + 1;
    w->x1 = malloc(c * sizeof(double));
    w->x2 = malloc(c * sizeof(double));
    w->y0 = malloc(r * sizeof(double));
    w->ref = malloc(r * sizeof(double));
    w->scale = malloc(r * sizeof(double));
    w->yd = malloc(r * sizeof(double));
    for (int64_t j = 0; j < w->cols; j++) {
        /* exactly representable in fp32, so both precisions see the same x */
        w->x1[j] = (double)(float)spx_test_rand(&seed);
        w->x2[j] = (double)(float)(spx_test_rand(&seed) * 4.0);
    }
    for (int64_t i = 0; i < w->rows; i++)
        w->y0[i] = (double)(float)spx_test_rand(&seed);
    w->xt1 = to_type(w->x1, w->cols, t);
    w->xt2 = to_type(w->x2, w->cols, t);
    w->yt = to_type(w->y0, w->rows, t);
    w->yfirst = to_type(w->y0, w->rows, t);
}

static void vecs_free(vecs *w)
{
    free(w->x1), free(w->x2), free(w->y0), free(w->ref), free(w->scale), free(w->yd);
    free(w->xt1), free(w->xt2), free(w->yt), free(w->yfirst);
}

/* Every variant, x mode, ISA and precision (full sweep), or a reduced sweep. */
static void run_matrix(const char *name, const spx_matrix *A, int full)
{
    if (!A) return;
    double c = 16.0 * log2((double)spx_test_longest_row(A, SPX_OP_N) + 2.0);
    long before = spx_test_failed;
    int threads[] = {1, 2, 3};
    int nrun = 0;
    for (int ti = 0; ti < 2; ti++) {
        spx_type t = ti == 0 ? SPX_F64 : SPX_F32;
        vecs w;
        vecs_make(A, &w, t, 42);
        for (int isa = 0; isa <= (int)spx__isa_active(); isa++)
            for (int live = 0; live < 2; live++)
                for (int f = 0; f < 5; f++) {
                    int n = f == 2 || f == 4 ? 7 : f == 3 ? 5 : 1;
                    for (int i = 0; i < n; i++) {
                        if (!full && i % 3 != 1 && n > 1) continue;
                        char params[96];
                        int len = snprintf(params, sizeof params, "isa=%s,x=%s",
                                           spx__isa_name((spx__isa)isa), live ? "live" : "refresh");
                        if (f == 2 || f == 4)
                            snprintf(params + len, sizeof params - (size_t)len, ",th=%d",
                                     th_sweep[i]);
                        if (f == 3)
                            snprintf(params + len, sizeof params - (size_t)len, ",bs=%d",
                                     bs_sweep[i]);
                        run_plan(A, &w, formats[f], t, params, threads[nrun++ % 3], c);
                    }
                }
        /* portable kernels with a THW no vector width divides */
        run_plan(A, &w, "axt-uh", t, "isa=scalar,thw=3,th=5", 2, c);
        run_plan(A, &w, "axt-ch", t, "isa=scalar,thw=5,th=3,x=refresh", 3, c);
        run_plan(A, &w, "axt-ch1", t, "isa=scalar,thw=6,bs=96", 2, c);
        run_plan(A, &w, "axc", t, "hbrs=16,x=refresh", 3, c);
        /* half a vector: the next ISA's kernel (or the portable one) */
        run_plan(A, &w, "axc", t, "hbrs=4", 2, c);
        run_plan(A, &w, "axt-ch1", t, "thw=4,bs=64,x=refresh", 3, c);
        vecs_free(&w);
    }
    printf("%-28s %s (%d plans per precision, c = %.1f)\n", name,
           spx_test_failed == before ? "ok" : "FAILED", nrun / 2, c);
}

static void hand_cases(void)
{
    /* 4 x 5, row 2 empty, row 3 dense */
    int64_t ri[] = {0, 0, 1, 3, 3, 3, 3, 3}, ci[] = {0, 4, 2, 0, 1, 2, 3, 4};
    double v[] = {1, 2, 3, 4, 5, 6, 7, 8};
    spx_matrix *A = spx_test_coo_matrix(4, 5, 8, ri, ci, v);
    run_matrix("hand 4x5", A, 1);
    spx_matrix_destroy(A);
    int64_t r1[] = {0}, c1[] = {0};
    double v1[] = {-2.5};
    A = spx_test_coo_matrix(1, 1, 1, r1, c1, v1);
    run_matrix("1x1", A, 1);
    spx_matrix_destroy(A);
    A = spx_test_coo_matrix(0, 0, 0, NULL, NULL, NULL);
    run_matrix("0x0", A, 0);
    spx_matrix_destroy(A);
    A = spx_test_coo_matrix(7, 0, 0, NULL, NULL, NULL);
    run_matrix("7x0", A, 0);
    spx_matrix_destroy(A);
    A = spx_test_coo_matrix(6, 4, 0, NULL, NULL, NULL);
    run_matrix("6x4 no entries", A, 0);
    spx_matrix_destroy(A);
}

static void long_row(void)
{
    spx_matrix *A = spx_test_dense_row_matrix(6, 100000, 2, 1, 7);
    run_matrix("row of 100,000 (6 x 100000)", A, 1);
    spx_matrix_destroy(A);
}

static void random_cases(void)
{
    spx_matrix *A = spx_test_varied_matrix(700, 1300, 61.0, 11);
    run_matrix("random 700x1300 varied", A, 1);
    vecs w;
    vecs_make(A, &w, SPX_F64, 3);
    if (A) /* more threads than the carries kept on the stack */
        run_plan(A, &w, "axt-uh", SPX_F64, "th=2", 65, 16.0 * log2(62.0));
    vecs_free(&w);
    spx_matrix_destroy(A);
    A = spx_test_uniform_rows_matrix(1500, 300, 4, 12);
    run_matrix("random 1500x300 short", A, 1);
    spx_matrix_destroy(A);
}

static void shared_cases(void)
{
    const char *dir = spx_test_matrices_dir();
    static const char *const names[] = {"west0067", "1138_bus", "gemat12", "rajat01"};
    for (int i = 0; dir && i < 4; i++) {
        spx_matrix *A = spx_test_read_matrix(dir, names[i]);
        if (!A) continue;
        run_matrix(names[i], A, i < 2);
        spx_matrix_destroy(A);
    }
}

/* Bad parameters and unsupported input get their specific errors. */
static void errors(void)
{
    int64_t ri[] = {0, 1}, ci[] = {0, 1};
    spx_matrix *A = spx_test_coo_matrix(2, 2, 2, ri, ci, NULL);
    static const char *const bad[][2] = {
        {"axt-uh", "th=0"},          {"axt-uh", "th=100000"}, {"axt-uh", "foo=1"},
        {"axt-uh1", "th=2"},         {"axt-ch1", "bs=99"},    {"axt-ch1", "th=4"},
        {"axt-ch", "x=stale"},       {"axc", "isa=sse"},      {"axc", "thw=8"},
        {"axt-ch", "th=256,thw=64"}, {"axt-uh", "bs=64"},     {"axt-ch", "thw=65"},
    };
    for (size_t i = 0; A && i < sizeof bad / sizeof bad[0]; i++) {
        spx_plan_opts o = spx_plan_opts_default();
        spx_plan *P = NULL;
        o.format = bad[i][0];
        o.params = bad[i][1];
        if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM))
            fprintf(stderr, "  %s %s\n", bad[i][0], bad[i][1]);
        spx_plan_destroy(P);
    }
    spx_matrix_destroy(A);
    /* more columns than a 32-bit index holds */
    A = NULL;
    if (CHECK_STATUS(spx__matrix_alloc(1, INT64_C(3000000001), 1, SPX_F64, &A), SPX_OK)) {
        A->rowptr[0] = 0;
        A->rowptr[1] = 1;
        A->col64[0] = INT64_C(3000000000);
        ((double *)A->values)[0] = 1.0;
    }
    for (int f = 0; A && f < 5; f++) {
        spx_plan_opts o = spx_plan_opts_default();
        spx_plan *P = NULL;
        o.format = formats[f];
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
        spx_plan_destroy(P);
    }
    spx_matrix_destroy(A);
}

/* An isa param above what may run falls back, and describe says so. */
static void isa_fallback(void)
{
    int64_t ri[] = {0, 1}, ci[] = {1, 0};
    spx_matrix *A = spx_test_coo_matrix(2, 2, 2, ri, ci, NULL);
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.format = "axt-uh";
    o.params = "isa=avx512";
    if (A && CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) {
        const char *d = spx_plan_describe(P);
        if (spx__isa_active() < SPX__ISA_AVX512)
            CHECK(strstr(d, "asked avx512: not available") != NULL);
        else
            CHECK(strstr(d, "isa=avx512") != NULL);
        printf("isa=avx512 asked: %s\n", d);
    }
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
}

/* A live plan is read-only during spmv: two threads may share it. */
typedef struct shared_call {
    const spx_plan *P;
    const double *x;
    double *y;
    int64_t rows;
    int same; /* every call gave the bits of the first */
} shared_call;

static void *call_many(void *arg)
{
    shared_call *c = arg;
    double *first = malloc(sizeof *first * (size_t)(c->rows + 1));
    spx_spmv(c->P, 1.0, c->x, 0.0, first);
    c->same = 1;
    for (int i = 0; i < 50; i++) {
        spx_spmv(c->P, 1.0, c->x, 0.0, c->y);
        c->same &= memcmp(first, c->y, sizeof *first * (size_t)c->rows) == 0;
    }
    free(first);
    return NULL;
}

static void shared_plan(void)
{
    spx_matrix *A = spx_test_varied_matrix(2000, 2000, 61.0, 17);
    vecs w;
    if (!A) return;
    vecs_make(A, &w, SPX_F64, 9);
    for (int f = 0; f < 5; f++) {
        spx_plan_opts o = spx_plan_opts_default();
        spx_plan *P = NULL;
        o.format = formats[f];
        o.params = "x=live";
        o.threads = 2;
        if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) continue;
        double *y1 = malloc(sizeof *y1 * (size_t)(w.rows + 1)),
               *y2 = malloc(sizeof *y2 * (size_t)(w.rows + 1));
        shared_call c1 = {P, w.x1, y1, w.rows, 0}, c2 = {P, w.x2, y2, w.rows, 0};
        pthread_t t1, t2;
        pthread_create(&t1, NULL, call_many, &c1);
        pthread_create(&t2, NULL, call_many, &c2);
        pthread_join(t1, NULL);
        pthread_join(t2, NULL);
        CHECK(c1.same && c2.same);
        memcpy(w.yt, y2, sizeof *y2 * (size_t)w.rows);
        check_result(A, &w, SPX_F64, 1.0, w.x2, 0.0, 16.0 * log2(64.0), formats[f]);
        free(y1), free(y2);
        spx_plan_destroy(P);
    }
    vecs_free(&w);
    spx_matrix_destroy(A);
}

/* The tuner picks a plan that is still correct. */
static void tuned(void)
{
    spx_matrix *A = spx_test_varied_matrix(3000, 3000, 61.0, 13);
    vecs w;
    if (!A) return;
    vecs_make(A, &w, SPX_F64, 5);
    for (int f = 0; f < 5; f++) {
        spx_plan_opts o = spx_plan_opts_default();
        spx_plan *P = NULL;
        o.format = formats[f];
        o.tune = 1;
        o.threads = 2;
        if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) continue;
        fill_y(&w, SPX_F64, NAN, NULL);
        CHECK_STATUS(spx_spmv(P, 1.0, w.xt1, 0.0, w.yt), SPX_OK);
        check_result(A, &w, SPX_F64, 1.0, w.x1, 0.0, 16.0 * log2(64.0), formats[f]);
        printf("tuned: %s\n", spx_plan_describe(P));
        spx_plan_destroy(P);
    }
    vecs_free(&w);
    spx_matrix_destroy(A);
}

int main(void)
{
    printf("ISA: hardware %s, active %s\n", spx__isa_name(spx__isa_hardware()),
           spx__isa_name(spx__isa_active()));
    if (spx_test_part("shared")) shared_cases();
    if (spx_test_part(NULL)) {
        errors();
        isa_fallback();
        hand_cases();
        long_row();
        random_cases();
        shared_plan();
        tuned();
    }
    return spx_test_finish();
}
