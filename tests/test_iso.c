/* Iso-valued matrices (every stored value one finite number v; src/core/iso.h)
 * on every SpMV format of one device: the CPU here; CUDA when this file is
 * built as tests/test_gpu_iso.c (ISO_TEST_CUDA; exit 77 without a GPU).
 *
 *  - spx_matrix_iso and the stats fields (CPU build): a pattern .mtx file read
 *    from disk is iso with value 1; +0 with -0, Inf, no entries are not iso;
 *    an fp32 copy keeps it; a wrapped matrix is scanned again on each call.
 *  - Every format on the device, every precision it has, op N and T, beta = 0
 *    with NaN in y and beta != 0, against the long-double reference, on iso
 *    matrices: all ones, 3.7, -2, -0.3, 0, 0.5, one nonzero, empty rows, a
 *    row long enough for csr's and sell's long-row passes, and the pattern
 *    file. Tolerance as in test_conformance: (16 + sqrt(rmax)) u_p, plus
 *    2^-10 for f16 (stored values rounded to half).
 *  - csr and sell, and dasp and hbp on CUDA (the formats with an iso path): AUTO takes it (describe
 *    says values=iso, bytes drop by the values); values=iso gives the same
 *    bits as values=stored when v is a power of two (the iso sum runs in the
 *    stored sum's order and v scales exactly; for v < 0 but for the sign of
 *    a zero sum; other values round v * sum instead of sum v*x, and are held
 *    to the tolerance), and equal values (+0 and -0 alike) for v = 0; values=iso on a matrix that
 * is not iso, stores nothing or overflows the plan's type is SPX_ERR_BAD_PARAM.
 *  - Borrowed values (CPU build, csr, spx_matrix_wrap_csr): after the caller
 *    changes the values, a stored-value plan of the matrix's precision sees
 *    the change; an iso plan (value folded), an fp32 plan (converted copy)
 *    and an op T plan (transposed copy) do not (as csr.c and spx.h say).
 *  - CUDA build: fp16 iso plans keep v in float, so a value beyond half's
 *    range is multiplied (the stored path declines it).
 * Part "shared": the shared pattern matrices, iso against stored bit for bit
 * and against the reference. SPX_TEST_QUICK=1 (compute-sanitizer) keeps the
 * values 1 and -0.3 and the two smaller shapes. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#ifdef ISO_TEST_CUDA
#define ISO_DEVICE SPX_DEV_CUDA
#define ISO_DEVICE_NAME "cuda"
#else
#define ISO_DEVICE SPX_DEV_CPU
#define ISO_DEVICE_NAME "cpu"
#endif

#ifdef ISO_TEST_CUDA
static const char *const iso_formats[] = {"csr", "sell", "dasp", "hbp"}; /* with an iso path */
#else
static const char *const iso_formats[] = {"csr", "sell"};
#endif

/* ---- matrices */

/* S's structure with every value v. */
static spx_matrix *with_value(const spx_matrix *S, double v)
{
    const int64_t *rp;
    const void *ci;
    int bits;
    int64_t rows, cols, nnz;
    spx_matrix *A = NULL;
    if (!S) return NULL;
    spx_matrix_dims(S, &rows, &cols, &nnz);
    spx_matrix_csr(S, &rp, &ci, &bits, NULL, NULL);
    double *val = malloc((size_t)(nnz + 1) * sizeof *val);
    for (int64_t k = 0; k < nnz; k++)
        val[k] = v;
    CHECK(bits == 32);
    CHECK_STATUS(spx_matrix_create_csr(rows, cols, rp, ci, val, &A), SPX_OK);
    free(val);
    return A;
}

/* rows x cols holding one entry v at (i, j). */
static spx_matrix *one_entry(int64_t rows, int64_t cols, int64_t i, int64_t j, double v)
{
    return spx_test_coo_matrix(rows, cols, 1, &i, &j, &v);
}

/* A small pattern .mtx file (symmetric, with an empty row and column), written
 * to a temporary file and read back. */
static spx_matrix *read_pattern_file(void)
{
    char path[512];
    const char *t = getenv("TMPDIR");
    spx_matrix *A = NULL;
    snprintf(path, sizeof path, "%s/spx_test_iso_%ld.mtx", t && *t ? t : "/tmp", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL)) return NULL;
    /* 39 diagonal entries, 37 below it, (40, 1): row and column 17 empty */
    fputs("%%MatrixMarket matrix coordinate pattern symmetric\n% test_iso\n40 40 77\n", f);
    for (int i = 1; i <= 40; i++)
        if (i != 17) fprintf(f, "%d %d\n", i, i);
    for (int i = 2; i <= 40; i++)
        if (i != 17 && i - 1 != 17) fprintf(f, "%d %d\n", i, i - 1);
    fprintf(f, "40 1\n");
    fclose(f);
    CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK);
    remove(path);
    return A;
}

/* ---- products */

static double unit_roundoff(spx_type t)
{
    return t == SPX_F64 ? 0x1p-53 : 0x1p-24;
}

static double tolerance(const spx_matrix *A, spx_op op, spx_type t)
{
    const double c = (16.0 + sqrt((double)spx_test_longest_row(A, op))) * unit_roundoff(t);
    return t == SPX_F16 ? c + 0x1p-10 : c;
}

typedef struct product {
    spx_type t;
    spx_op op;
    double alpha, beta;
    const double *x, *y0; /* in: rounded to t's vector type */
    int64_t m, n;         /* rows and columns of op(A) */
} product;

/* x and y0 of lengths n and m for op(A) in precision t (float-exact for
 * fp32 and fp16 plans, whose vectors are float). */
static void fill_vectors(product *p, double *x, double *y0, uint64_t seed)
{
    for (int64_t j = 0; j < p->n; j++) {
        x[j] = spx_test_rand(&seed);
        if (p->t != SPX_F64) x[j] = (float)x[j];
    }
    for (int64_t i = 0; i < p->m; i++) {
        y0[i] = spx_test_rand(&seed);
        if (p->t != SPX_F64) y0[i] = (float)y0[i];
    }
    p->x = x;
    p->y0 = y0;
}

/* y = alpha op(A) x + beta y0 with plan P through host vectors (y starts as
 * NaN when beta = 0); y in double. */
static spx_status run_plan(const spx_plan *P, const product *p, double *y)
{
    spx_status st;
    if (p->t == SPX_F64) {
        for (int64_t i = 0; i < p->m; i++)
            y[i] = p->beta == 0.0 ? NAN : p->y0[i];
        return spx_spmv_host(P, p->alpha, p->x, p->beta, y);
    }
    float *xf = malloc((size_t)(p->n + 1) * sizeof *xf), *yf = malloc((size_t)(p->m + 1) * sizeof *yf);
    for (int64_t j = 0; j < p->n; j++)
        xf[j] = (float)p->x[j];
    for (int64_t i = 0; i < p->m; i++)
        yf[i] = p->beta == 0.0 ? NAN : (float)p->y0[i];
    st = spx_spmv_host(P, p->alpha, xf, p->beta, yf);
    for (int64_t i = 0; i < p->m; i++)
        y[i] = yf[i];
    free(xf);
    free(yf);
    return st;
}

static spx_plan_opts options(const char *format, const char *params, const product *p)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.format = format;
    o.params = params;
    o.device = ISO_DEVICE;
    o.precision = p->t;
    o.op = p->op;
    o.threads = ISO_DEVICE == SPX_DEV_CPU ? 2 : 0; /* csr's long rows split */
    return o;
}

/* Plan A (format, params) for p and compute y; SPX_ERR_UNSUPPORTED (a
 * decline) is returned without a failed check, other failures fail. */
static spx_status plan_product(const spx_matrix *A, const char *format, const char *params,
                               const product *p, double *y, spx_plan **keep)
{
    spx_plan_opts o = options(format, params, p);
    spx_plan *P = NULL;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_ERR_UNSUPPORTED) return st;
    if (!CHECK_STATUS(st, SPX_OK)) {
        fprintf(stderr, "  %s params=%s\n", format, params ? params : "");
        return st;
    }
    st = run_plan(P, p, y);
    CHECK_STATUS(st, SPX_OK);
    if (keep)
        *keep = P;
    else
        spx_plan_destroy(P);
    return st;
}

/* 1 when a format of that name ("auto": any format) runs SpMV on the
 * device in precision t. */
static int format_runs(const char *format, spx_type t)
{
    const char *name;
    unsigned devices, precisions;
    for (int i = 0; i < spx_format_count(); i++)
        if (spx_test_spmv_format(i, &name, &devices, &precisions) && (devices & ISO_DEVICE) &&
            (precisions & (1u << t)) && (strcmp(format, "auto") == 0 || strcmp(format, name) == 0))
            return 1;
    return 0;
}

static const char *type_name(spx_type t)
{
    return t == SPX_F64 ? "f64" : t == SPX_F32 ? "f32" : "f16";
}

/* ---- every format against the reference */

typedef struct iso_case {
    char name[64];
    spx_matrix *A;
    double v;
} iso_case;

#define MAX_CASES 64
static iso_case cases[MAX_CASES];
static int ncases;

static void add_case(const char *name, spx_matrix *A, double v)
{
    if (!A || ncases == MAX_CASES) {
        spx_matrix_destroy(A);
        return;
    }
    snprintf(cases[ncases].name, sizeof cases[ncases].name, "%s v=%g", name, v);
    cases[ncases].A = A;
    cases[ncases++].v = v;
}

static int quick(void)
{
    const char *q = getenv("SPX_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

static void build_cases(void)
{
    static const double values[] = {1.0, -0.3, 3.7, -2.0, 0.0, 0.5};
    const size_t nvalues = quick() ? 2 : sizeof values / sizeof values[0];
    spx_matrix *shapes[4] = {
        spx_test_varied_matrix(500, 500, 41.0, 1),          /* empty rows */
        spx_test_varied_matrix(300, 1700, 41.0, 5),         /* rectangular */
        spx_test_dense_row_matrix(6, 100000, 2, 3, 3),      /* csr's and sell's long rows */
        spx_test_dense_row_matrix(40, 3000, 17, 4, 2),      /* one dense row */
    };
    static const char *const names[4] = {"varied 500x500", "rectangular 300x1700",
                                         "row of 100000 6x100000", "one dense row 40x3000"};
    for (int s = 0; s < 4; s++) {
        for (size_t v = 0; v < nvalues && !(quick() && s >= 2); v++)
            add_case(names[s], with_value(shapes[s], values[v]), values[v]);
        spx_matrix_destroy(shapes[s]);
    }
    add_case("one nonzero 1x1", one_entry(1, 1, 0, 0, 2.5), 2.5);
    add_case("one nonzero 7x5", one_entry(7, 5, 3, 4, -1.0), -1.0);
    add_case("pattern file 40x40", read_pattern_file(), 1.0);
}

/* Every format on the device, and AUTO, against the reference for case c,
 * product p; a decline (SPX_ERR_UNSUPPORTED) is allowed but for csr and
 * AUTO, whose plan of a csr or sell format must take the iso path. */
static void check_all_formats(const iso_case *c, const product *p, double *y, double *ref,
                              double *scale)
{
    const double tol = tolerance(c->A, p->op, p->t);
    spx_test_reference(c->A, p->op, p->alpha, p->x, p->beta, p->y0, ref, scale);
    const char *name;
    unsigned devices, precisions;
    for (int i = 0; i <= spx_format_count(); i++) {
        const int is_auto = i == spx_format_count();
        if (is_auto)
            name = "auto";
        else if (!spx_test_spmv_format(i, &name, &devices, &precisions) ||
                 !(devices & ISO_DEVICE) || !(precisions & (1u << p->t)))
            continue;
        if (!format_runs(name, p->t)) continue;
        spx_plan *P = NULL;
        spx_status st = plan_product(c->A, name, NULL, p, y, &P);
        if (st == SPX_ERR_UNSUPPORTED && (is_auto || strcmp(name, "csr") == 0))
            CHECK_STATUS(st, SPX_OK);
        if (st != SPX_OK) continue;
        spx_test_close(y, ref, scale, p->m, tol, "%s %s %s op=%c alpha=%g beta=%g", c->name, name,
                       type_name(p->t), p->op == SPX_OP_T ? 'T' : 'N', p->alpha, p->beta);
        const char *chosen = spx_plan_format(P);
        if (is_auto && (strcmp(chosen, "csr") == 0 || strcmp(chosen, "sell") == 0 ||
                        strcmp(chosen, "dasp") == 0))
            CHECK(strstr(spx_plan_describe(P), "values=iso") != NULL);
        spx_plan_destroy(P);
    }
}

static int power_of_two(double v)
{
    int e;
    return v != 0.0 && fabs(frexp(v, &e)) == 0.5;
}

static int same_bits(const double *a, const double *b, int64_t n)
{
    return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* The same bits but for the sign of a zero: with v < 0 an empty or cancelling
 * row sums to +0 in the stored path (sum of v*x) and to v*(+0) = -0 in the
 * iso path. */
static int same_bits_but_zero_sign(const double *a, const double *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof *a) != 0 && !(a[i] == 0.0 && b[i] == 0.0)) return 0;
    return 1;
}

static int same_values(const double *a, const double *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!(a[i] == b[i])) return 0;
    return 1;
}

/* csr and sell: AUTO's plan takes the iso path; values=iso against
 * values=stored; bytes. */
static void check_iso_path(const iso_case *c, const product *p, double *y_iso, double *y_st)
{
    for (size_t f = 0; f < sizeof iso_formats / sizeof iso_formats[0]; f++) {
        const char *fmt = iso_formats[f];
        spx_plan *Pi = NULL, *Ps = NULL, *Pa = NULL;
        if (!format_runs(fmt, p->t)) continue;
        spx_status si = plan_product(c->A, fmt, "values=iso", p, y_iso, &Pi);
        spx_status ss = plan_product(c->A, fmt, "values=stored", p, y_st, &Ps);
        if (si == SPX_OK && ss == SPX_OK) {
            int ok = c->v > 0.0 && power_of_two(c->v) ? same_bits(y_iso, y_st, p->m)
                     : power_of_two(c->v) ? same_bits_but_zero_sign(y_iso, y_st, p->m)
                     : c->v == 0.0       ? same_values(y_iso, y_st, p->m)
                                         : 1; /* held to the tolerance above */
            if (!CHECK(ok))
                fprintf(stderr, "  %s %s %s op=%c beta=%g: iso and stored differ\n", c->name, fmt,
                        type_name(p->t), p->op == SPX_OP_T ? 'T' : 'N', p->beta);
            CHECK(strstr(spx_plan_describe(Pi), "values=iso") != NULL);
            CHECK(strstr(spx_plan_describe(Ps), "values=stored") != NULL);
            CHECK(spx_plan_bytes(Pi) < spx_plan_bytes(Ps));
        } else {
            CHECK(si == ss); /* a decline is the structure's, not the values' */
        }
        if (plan_product(c->A, fmt, NULL, p, y_iso, &Pa) == SPX_OK)
            CHECK(strstr(spx_plan_describe(Pa), "values=iso") != NULL);
        spx_plan_destroy(Pi);
        spx_plan_destroy(Ps);
        spx_plan_destroy(Pa);
    }
}

static void check_cases(void)
{
    static const double ab[2][2] = {{1.5, 0.0}, {-2.0, 0.75}};
    static const spx_type types[] = {SPX_F64, SPX_F32, SPX_F16};
    for (int k = 0; k < ncases; k++) {
        const iso_case *c = &cases[k];
        int64_t rows, cols, nnz;
        spx_matrix_dims(c->A, &rows, &cols, &nnz);
        const size_t len = (size_t)(rows > cols ? rows : cols) + 1;
        double *x = malloc(len * sizeof *x), *y0 = malloc(len * sizeof *y0);
        double *y = malloc(len * sizeof *y), *y2 = malloc(len * sizeof *y2);
        double *ref = malloc(len * sizeof *ref), *scale = malloc(len * sizeof *scale);
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (int op = 0; op < 2; op++)
                for (int a = 0; a < 2; a++) {
                    product p = {types[t], (spx_op)op, ab[a][0], ab[a][1], NULL, NULL,
                                 op ? cols : rows, op ? rows : cols};
                    fill_vectors(&p, x, y0, 7 + (uint64_t)k);
                    check_all_formats(c, &p, y, ref, scale);
                    check_iso_path(c, &p, y, y2);
                }
        free(x), free(y0), free(y), free(y2), free(ref), free(scale);
    }
}

/* ---- values= refused */

static void check_bad_param(void)
{
    product p = {SPX_F64, SPX_OP_N, 1.0, 0.0, NULL, NULL, 0, 0};
    spx_matrix *R = spx_test_random_matrix(50, 40, 300, 11); /* random values: not iso */
    spx_matrix *E = spx_test_coo_matrix(6, 4, 0, NULL, NULL, NULL);
    spx_matrix *I = with_value(R, INFINITY);
    spx_matrix *H = with_value(R, 1e300); /* overflows float */
    for (size_t f = 0; f < sizeof iso_formats / sizeof iso_formats[0]; f++) {
        const char *fmt = iso_formats[f];
        spx_plan *P = NULL;
        spx_plan_opts o = options(fmt, "values=iso", &p);
        if (!format_runs(fmt, SPX_F64)) continue;
        CHECK_STATUS(spx_plan_create(R, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        CHECK(strstr(spx_last_error(), "not iso-valued") != NULL);
        CHECK_STATUS(spx_plan_create(E, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        CHECK(strstr(spx_last_error(), "stores no values") != NULL);
        CHECK_STATUS(spx_plan_create(I, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        CHECK(strstr(spx_last_error(), "not finite") != NULL);
        if (format_runs(fmt, SPX_F32)) { /* dasp has no fp32 */
            o.precision = SPX_F32;
            CHECK_STATUS(spx_plan_create(H, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
            CHECK(strstr(spx_last_error(), "overflows") != NULL);
        }
        o.params = "values=sometimes";
        CHECK_STATUS(spx_plan_create(R, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        o.params = NULL; /* auto: the stored path for each of them */
        o.precision = SPX_F64;
        const spx_matrix *stored[3] = {R, E, I};
        for (int m = 0; m < 3; m++) {
            if (!CHECK_STATUS(spx_plan_create(stored[m], SPX_OP_SPMV, &o, &P), SPX_OK)) continue;
            CHECK(strstr(spx_plan_describe(P), "values=stored") != NULL);
            spx_plan_destroy(P);
            P = NULL;
        }
        CHECK(P == NULL);
    }
    spx_matrix_destroy(R), spx_matrix_destroy(E), spx_matrix_destroy(I), spx_matrix_destroy(H);
}

#ifndef ISO_TEST_CUDA
/* ---- spx_matrix_iso and the statistics */

static void check_matrix_iso(void)
{
    double v = -1.0;
    spx_stats s;
    spx_matrix *F = read_pattern_file();
    CHECK(spx_matrix_iso(F, &v) == 1 && v == 1.0);
    CHECK(spx_matrix_iso(F, NULL) == 1); /* the kept answer */
    if (CHECK_STATUS(spx_matrix_stats(F, &s), SPX_OK)) CHECK(s.iso == 1 && s.iso_value == 1.0);
    spx_matrix *R = spx_test_random_matrix(30, 30, 100, 3);
    CHECK(spx_matrix_iso(R, &v) == 0 && v == 0.0);
    if (CHECK_STATUS(spx_matrix_stats(R, &s), SPX_OK)) CHECK(s.iso == 0 && s.iso_value == 0.0);
    spx_matrix *E = spx_test_coo_matrix(3, 3, 0, NULL, NULL, NULL);
    CHECK(spx_matrix_iso(E, &v) == 0);
    CHECK(spx_matrix_iso(NULL, &v) == 0 && v == 0.0);
    spx_matrix *N = with_value(R, -0.3), *N32 = NULL;
    CHECK_STATUS(spx_matrix_copy(N, SPX_F32, &N32), SPX_OK);
    CHECK(spx_matrix_iso(N32, &v) == 1 && v == (double)(float)-0.3);
    /* +0 and -0: equal numbers, different bits */
    int64_t ri[2] = {0, 1}, ci[2] = {0, 1};
    double z[2] = {0.0, -0.0};
    spx_matrix *Z = spx_test_coo_matrix(2, 2, 2, ri, ci, z);
    CHECK(spx_matrix_iso(Z, &v) == 0);
    spx_matrix *I = with_value(R, INFINITY);
    CHECK(spx_matrix_iso(I, &v) == 0);
    /* 200001 entries: the scan's parallel blocks */
    spx_matrix *L = spx_test_dense_row_matrix(2, 200000, 0, 1, 5), *L1 = with_value(L, 2.0);
    CHECK(spx_matrix_iso(L1, &v) == 1 && v == 2.0);
    spx_matrix_destroy(F), spx_matrix_destroy(R), spx_matrix_destroy(E), spx_matrix_destroy(N);
    spx_matrix_destroy(N32), spx_matrix_destroy(Z), spx_matrix_destroy(I);
    spx_matrix_destroy(L), spx_matrix_destroy(L1);
}

/* Last of n entries changed: no longer iso, seen by the scan of a wrapped
 * matrix (it is not kept). */
static void check_wrapped_scan(void)
{
    enum { N = 300000, HALF = 150000 };
    int64_t rp[3] = {0, HALF, N};
    int32_t *ci = malloc(N * sizeof *ci);
    double *val = malloc(N * sizeof *val), v;
    for (int k = 0; k < N; k++) {
        ci[k] = k < HALF ? k : k - HALF;
        val[k] = 4.0;
    }
    spx_matrix *W = NULL;
    if (CHECK_STATUS(spx_matrix_wrap_csr(2, HALF, rp, ci, val, &W), SPX_OK)) {
        CHECK(spx_matrix_iso(W, &v) == 1 && v == 4.0);
        val[HALF + 3] = 5.0; /* in a middle block */
        CHECK(spx_matrix_iso(W, &v) == 0);
        for (int k = 0; k < N; k++)
            val[k] = -1.0;
        CHECK(spx_matrix_iso(W, &v) == 1 && v == -1.0);
    }
    spx_matrix_destroy(W);
    free(ci), free(val);
}

/* ---- borrowed values: csr plans of a wrapped matrix after the caller's change */

/* Plans of W (values all 1, val the caller's array) made, val changed, the
 * plans run again: which of them see the change (see csr.c). */
static void check_change_seen(spx_matrix *W, double *val)
{
    const struct {
        const char *params;
        spx_type t;
        spx_op op;
        int sees;
    } plans[4] = {{NULL, SPX_F64, SPX_OP_N, 0},             /* auto: iso, value folded */
                  {"values=stored", SPX_F64, SPX_OP_N, 1},  /* borrows A's values */
                  {"values=stored", SPX_F32, SPX_OP_N, 0},  /* a converted copy */
                  {"values=stored", SPX_F64, SPX_OP_T, 0}}; /* a transposed copy */
    int64_t rows, cols, nnz;
    spx_matrix_dims(W, &rows, &cols, &nnz);
    const size_t len = (size_t)(rows > cols ? rows : cols) + 1;
    double *x = malloc(len * sizeof *x), *y0 = malloc(len * sizeof *y0);
    double *before = malloc(4 * len * sizeof *before), *after = malloc(len * sizeof *after);
    double *ref = malloc(len * sizeof *ref), *scale = malloc(len * sizeof *scale);
    spx_plan *P[4] = {NULL, NULL, NULL, NULL};
    product p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = (product){plans[i].t, plans[i].op, 1.0, 0.0, NULL, NULL,
                         plans[i].op ? cols : rows, plans[i].op ? rows : cols};
        fill_vectors(&p[i], x, y0, 5);
        plan_product(W, "csr", plans[i].params, &p[i], before + (size_t)i * len, &P[i]);
    }
    CHECK(P[0] && strstr(spx_plan_describe(P[0]), "values=iso") != NULL);
    for (int64_t k = 0; k < nnz; k++) /* the caller's change: no longer iso */
        val[k] = k % 3 == 0 ? 3.0 : 1.0;
    for (int i = 0; i < 4; i++) {
        if (!P[i]) continue;
        fill_vectors(&p[i], x, y0, 5);
        CHECK_STATUS(run_plan(P[i], &p[i], after), SPX_OK);
        if (plans[i].sees) {
            spx_test_reference(W, p[i].op, 1.0, x, 0.0, y0, ref, scale);
            spx_test_close(after, ref, scale, p[i].m, tolerance(W, p[i].op, p[i].t),
                           "borrowed values seen by csr values=stored");
        } else if (!CHECK(same_bits(after, before + (size_t)i * len, p[i].m))) {
            fprintf(stderr, "  csr plan %d saw the caller's change\n", i);
        }
        spx_plan_destroy(P[i]);
    }
    free(x), free(y0), free(before), free(after), free(ref), free(scale);
}

static void check_borrowed(void)
{
    spx_matrix *S = spx_test_varied_matrix(200, 150, 20.0, 9), *W = NULL;
    const int64_t *rp;
    const void *ci;
    int64_t rows, cols, nnz;
    spx_matrix_dims(S, &rows, &cols, &nnz);
    spx_matrix_csr(S, &rp, &ci, NULL, NULL, NULL);
    double *val = malloc((size_t)nnz * sizeof *val);
    for (int64_t k = 0; k < nnz; k++)
        val[k] = 1.0;
    if (CHECK_STATUS(spx_matrix_wrap_csr(rows, cols, rp, ci, val, &W), SPX_OK))
        check_change_seen(W, val);
    spx_matrix_destroy(W);
    spx_matrix_destroy(S);
    free(val);
}
#else
/* fp16: v kept in float, so an iso plan takes a value beyond half's range
 * (the stored path declines it). */
static void check_half_range(void)
{
    spx_matrix *S = spx_test_varied_matrix(300, 300, 30.0, 4), *A = with_value(S, 1e5);
    int64_t rows, cols;
    spx_matrix_dims(A, &rows, &cols, NULL);
    double x[300], y0[300], y[300], ref[300], scale[300];
    product p = {SPX_F16, SPX_OP_N, 0.5, 0.0, NULL, NULL, rows, cols};
    fill_vectors(&p, x, y0, 3);
    spx_test_reference(A, SPX_OP_N, p.alpha, x, p.beta, y0, ref, scale);
    for (size_t f = 0; f < sizeof iso_formats / sizeof iso_formats[0]; f++) {
        if (plan_product(A, iso_formats[f], NULL, &p, y, NULL) == SPX_OK)
            spx_test_close(y, ref, scale, rows, tolerance(A, SPX_OP_N, SPX_F16),
                           "%s f16 iso v=1e5", iso_formats[f]);
        spx_plan_opts o = options(iso_formats[f], "values=stored", &p);
        spx_plan *P = NULL;
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    }
    spx_matrix_destroy(S);
    spx_matrix_destroy(A);
}
#endif

/* ---- the shared pattern matrices: iso against stored, bit for bit */

static void check_shared(void)
{
    static const char *const names[] = {"NotreDame_www", "delaunay_n16", "bfly", "rajat01"};
    const char *dir = spx_test_matrices_dir();
    if (!dir) return;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        spx_matrix *A = spx_test_read_matrix(dir, names[k]);
        if (!A) continue;
        CHECK(spx_matrix_iso(A, NULL) == 1);
        iso_case c = {"", A, 1.0};
        snprintf(c.name, sizeof c.name, "%s", names[k]);
        int64_t rows, cols;
        spx_matrix_dims(A, &rows, &cols, NULL);
        const size_t len = (size_t)(rows > cols ? rows : cols) + 1;
        double *x = malloc(len * sizeof *x), *y0 = malloc(len * sizeof *y0);
        double *y = malloc(len * sizeof *y), *y2 = malloc(len * sizeof *y2);
        double *ref = malloc(len * sizeof *ref), *scale = malloc(len * sizeof *scale);
        product p = {SPX_F64, SPX_OP_N, 1.0, 0.0, NULL, NULL, rows, cols};
        fill_vectors(&p, x, y0, 1);
        check_iso_path(&c, &p, y, y2);
        spx_test_reference(A, SPX_OP_N, 1.0, x, 0.0, y0, ref, scale);
        spx_test_close(y, ref, scale, rows, tolerance(A, SPX_OP_N, SPX_F64), "%s auto", names[k]);
        free(x), free(y0), free(y), free(y2), free(ref), free(scale);
        spx_matrix_destroy(A);
    }
}

int main(void)
{
#ifdef ISO_TEST_CUDA
    const int run = spx_test_require_cuda("test_gpu_iso");
#else
    const int run = 1;
#endif
    if (run && spx_test_part(NULL)) {
#ifndef ISO_TEST_CUDA
        check_matrix_iso();
        check_wrapped_scan();
        check_borrowed();
#else
        check_half_range();
#endif
        build_cases();
        check_cases();
        check_bad_param();
        for (int k = 0; k < ncases; k++)
            spx_matrix_destroy(cases[k].A);
    }
    if (run && spx_test_part("shared")) check_shared();
    printf("iso on %s\n", ISO_DEVICE_NAME);
    return spx_test_finish();
}
