/* spx_plan_update_values: a plan made from A with values v1 and then given
 * values v2 multiplies as a plan made from A with v2 does, bit for bit, for
 * every SpMV and SpMM format on each device and precision it declares, op N
 * and T, reorder= included; and within the conformance tolerance of the
 * long-double reference. The transitions:
 *   varied -> varied, iso -> varied (a format's iso path must start storing
 *   values, or refuse naming values=stored), iso -> iso (another number),
 *   varied -> iso (a plan that stores values keeps storing them: compared with
 *   a new plan made with values=stored where the format takes that key);
 * and two updates in a row; A's own values untouched; values in device memory
 * for CUDA plans. Plus the errors: NULL values, a freed plan, SpGEMM plans;
 * and SDDMM plans, which read no values (an update changes nothing).
 *
 * A format that refuses a case says SPX_ERR_UNSUPPORTED with a reason; the
 * refusals are counted per format and printed, and a format that refuses
 * every case fails (a hook that never runs is a defect). The CPU formats run
 * here; part "cuda" runs the CUDA ones (SKIPPED without a GPU). One case is
 * symmetric, with symmetric v1 and v2, for the formats that take only such
 * matrices (sym). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/matrix.h"
#include "cuda/gateway.h"

/* One matrix pattern and its first values; A2 gets the second ones. */
typedef struct pattern_case {
    const char *name;
    spx_matrix *A;
    int iso_first;  /* v1 all one number (2.5) */
    int iso_second; /* v2 all one number (-0.75) */
    int square;     /* reorder= is tried */
    int64_t *key;   /* symmetric cases: entry e's values seeded by its unordered (i, j), so
                       a_ij == a_ji; NULL: by e */
} pattern_case;

/* Which product a target runs: SpMV op N, op T, op N with reorder=rcm, or SpMM. */
typedef enum product { SPMV_N, SPMV_T, SPMV_RCM, SPMM_N, N_PRODUCTS } product;
static const char *const product_names[] = {"spmv N", "spmv T", "spmv N reorder=rcm", "spmm N k=5"};

typedef struct target {
    const char *format;
    spx_device dev;
    spx_type prec;
    int cases, refused;
    const char *params; /* the format's parameters, or NULL */
} target;

static size_t vec_size(spx_type p)
{
    return p == SPX_F64 ? sizeof(double) : sizeof(float);
}

/* The value of entry e of a matrix of case c, first (second = 0) or second
 * values, rounded to what precision p holds (float for F32 and F16). */
static double value_of(const pattern_case *c, int second, int64_t e, spx_type p)
{
    const int64_t k = c->key ? c->key[e] : e;
    uint64_t seed = (uint64_t)k * 0x9E3779B97F4A7C15ull + (second ? 77u : 11u);
    double v =
        (second ? c->iso_second : c->iso_first) ? (second ? -0.75 : 2.5) : spx_test_rand(&seed);
    return p == SPX_F64 ? v : (double)(float)v;
}

/* A copy of c's pattern with its first or second values (fp64). */
static spx_matrix *with_values(const pattern_case *c, int second, spx_type p)
{
    spx_matrix *B = NULL;
    if (!CHECK_STATUS(spx_matrix_copy(c->A, SPX_F64, &B), SPX_OK)) return NULL;
    for (int64_t e = 0; e < B->nnz; e++)
        ((double *)B->values)[e] = value_of(c, second, e, p);
    return B;
}

/* The second values in the plan's vector type, in host memory (malloc). */
static void *second_values(const pattern_case *c, spx_type p)
{
    void *v = malloc(vec_size(p) * (size_t)(c->A->nnz + 1));
    for (int64_t e = 0; e < c->A->nnz; e++) {
        double d = value_of(c, 1, e, p);
        if (p == SPX_F64)
            ((double *)v)[e] = d;
        else
            ((float *)v)[e] = (float)d;
    }
    return v;
}

/* Plan options of a target for a product, its params in buf (len bytes):
 * the target's, reorder=rcm for SPMV_RCM, values=stored when stored. */
static spx_plan_opts opts_for(const target *t, product k, int stored, char *buf, size_t len)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.format = t->format;
    o.device = t->dev;
    o.precision = t->prec;
    o.op = k == SPMV_T ? SPX_OP_T : SPX_OP_N;
    snprintf(buf, len, "%s%s%s%s%s", t->params ? t->params : "",
             t->params && (k == SPMV_RCM || stored) ? "," : "", k == SPMV_RCM ? "reorder=rcm" : "",
             k == SPMV_RCM && stored ? "," : "", stored ? "values=stored" : "");
    o.params = buf[0] ? buf : NULL;
    return o;
}

/* The product of a plan with fixed x and y0 (host vectors, doubles or floats
 * of the precision), written to y; SPX_OK or the call's status. */
static spx_status run_product(const spx_plan *P, product k, const void *x, const void *y0, void *y,
                              size_t ybytes)
{
    memcpy(y, y0, ybytes);
    if (k == SPMM_N) return spx_spmm_host(P, 5, -1.25, x, 7, 0.5, y, 6);
    return spx_spmv_host(P, -1.25, x, 0.5, y);
}

/* Fixed x and y0 for a product of op(A) (out x in; SpMM: ldx 7, ldy 6). */
static void fill_operands(spx_type p, product k, int64_t in, int64_t out, void **x, void **y0,
                          size_t *xb, size_t *yb)
{
    int64_t xn = k == SPMM_N ? in * 7 : in, yn = k == SPMM_N ? out * 6 : out;
    uint64_t seed = 5;
    *xb = vec_size(p) * (size_t)(xn + 1);
    *yb = vec_size(p) * (size_t)(yn + 1);
    *x = malloc(*xb);
    *y0 = malloc(*yb);
    for (int64_t j = 0; j < xn; j++) {
        double d = spx_test_rand(&seed);
        if (p == SPX_F64)
            ((double *)*x)[j] = d;
        else
            ((float *)*x)[j] = (float)d;
    }
    for (int64_t i = 0; i < yn; i++) {
        double d = spx_test_rand(&seed);
        if (p == SPX_F64)
            ((double *)*y0)[i] = d;
        else
            ((float *)*y0)[i] = (float)d;
    }
}

/* The plan's products against the reference of A2 (op(A2) x, SpMM column 0
 * and column 4). */
static void check_reference(const target *t, const pattern_case *c, product k, const spx_matrix *A2,
                            const void *x, const void *y0, const void *y)
{
    spx_op op = k == SPMV_T ? SPX_OP_T : SPX_OP_N;
    int64_t in = op == SPX_OP_N ? A2->cols : A2->rows, out = op == SPX_OP_N ? A2->rows : A2->cols;
    int64_t ldx = k == SPMM_N ? 7 : 1, ldy = k == SPMM_N ? 6 : 1;
    double *xd = malloc(sizeof(double) * (size_t)(in + 1)),
           *y0d = malloc(sizeof(double) * (size_t)(out + 1)),
           *ref = malloc(sizeof(double) * (size_t)(out + 1)),
           *scale = malloc(sizeof(double) * (size_t)(out + 1)),
           *yd = malloc(sizeof(double) * (size_t)(out + 1));
    for (int col = 0; col < (k == SPMM_N ? 5 : 1); col += 4) {
        for (int64_t j = 0; j < in; j++)
            xd[j] = t->prec == SPX_F64 ? ((const double *)x)[j * ldx + col]
                                       : ((const float *)x)[j * ldx + col];
        for (int64_t i = 0; i < out; i++) {
            y0d[i] = t->prec == SPX_F64 ? ((const double *)y0)[i * ldy + col]
                                        : ((const float *)y0)[i * ldy + col];
            yd[i] = t->prec == SPX_F64 ? ((const double *)y)[i * ldy + col]
                                       : ((const float *)y)[i * ldy + col];
        }
        spx_test_reference(A2, op, -1.25, xd, 0.5, y0d, ref, scale);
        double u = t->prec == SPX_F64 ? 0x1p-53 : 0x1p-24;
        double tol = (16.0 + sqrt((double)spx_test_longest_row(A2, op))) * u +
                     (t->prec == SPX_F16 ? 0x1p-10 : 0.0);
        spx_test_close(yd, ref, scale, out, tol, "%s %s %s %s on %s, column %d, after update",
                       t->format, t->dev == SPX_DEV_CUDA ? "cuda" : "cpu",
                       t->prec == SPX_F64   ? "f64"
                       : t->prec == SPX_F32 ? "f32"
                                            : "f16",
                       product_names[k], c->name, col);
    }
    free(xd), free(y0d), free(ref), free(scale), free(yd);
}

/* The update itself: host values, or for CUDA plans (every other case)
 * device values through spx_plan_update_values. */
static spx_status update(spx_plan *P, const target *t, const void *v, int64_t nnz, int device)
{
    void *dv = NULL;
    size_t bytes = vec_size(t->prec) * (size_t)nnz;
    if (!device || t->dev != SPX_DEV_CUDA) return spx_plan_update_values_host(P, v);
    if (!CHECK_STATUS(spx__cuda_alloc(&dv, bytes ? bytes : 1, "test values"), SPX_OK))
        return SPX_ERR_OOM;
    if (bytes) CHECK_STATUS(spx__cuda_copy(dv, v, bytes, 1), SPX_OK);
    spx_status st = spx_plan_update_values(P, dv);
    spx__cuda_free(dv);
    return st;
}

/* A plan of A2 to compare with: values=stored first (the plan given varied
 * values stores them), then without params for formats that do not take
 * the key. */
static spx_status fresh_plan(const target *t, product k, const spx_matrix *A2, int stored,
                             spx_plan **F)
{
    spx_operation operation = k == SPMM_N ? SPX_OP_SPMM : SPX_OP_SPMV;
    char buf[160];
    spx_plan_opts o = opts_for(t, k, stored, buf, sizeof buf);
    spx_status st = spx_plan_create(A2, operation, &o, F);
    if (st == SPX_ERR_BAD_PARAM && stored) {
        o = opts_for(t, k, 0, buf, sizeof buf);
        st = spx_plan_create(A2, operation, &o, F);
    }
    return st;
}

/* One case of one target: 1 when refused (the plan, or the update). */
static int update_one(target *t, const pattern_case *c, product k, int device_values)
{
    spx_operation operation = k == SPMM_N ? SPX_OP_SPMM : SPX_OP_SPMV;
    spx_matrix *A1 = with_values(c, 0, t->prec), *A2 = with_values(c, 1, t->prec);
    spx_plan *P = NULL, *F = NULL;
    void *v2 = second_values(c, t->prec), *x = NULL, *y0 = NULL, *y = NULL, *yf = NULL;
    size_t xb = 0, yb = 0;
    int refused = 0;
    spx_op op = k == SPMV_T ? SPX_OP_T : SPX_OP_N;
    char buf[160];
    spx_plan_opts o = opts_for(t, k, 0, buf, sizeof buf);
    spx_status st = A1 && A2 ? spx_plan_create(A1, operation, &o, &P) : SPX_ERR_INVALID_ARG;
    if (st == SPX_ERR_UNSUPPORTED || st == SPX_ERR_BAD_PARAM) { /* the format declines A */
        refused = 1;
        goto done;
    }
    if (!CHECK_STATUS(st, SPX_OK)) goto done;
    fill_operands(t->prec, k, op == SPX_OP_N ? c->A->cols : c->A->rows,
                  op == SPX_OP_N ? c->A->rows : c->A->cols, &x, &y0, &xb, &yb);
    y = malloc(yb), yf = malloc(yb);
    st = update(P, t, v2, c->A->nnz, device_values);
    if (st == SPX_ERR_UNSUPPORTED) {
        refused = 1;
        if (!CHECK(strlen(spx_last_error()) > 0))
            fprintf(stderr, "  %s refused without a reason\n", t->format);
        /* refused: the plan keeps its first values */
        CHECK_STATUS(run_product(P, k, x, y0, y, yb), SPX_OK);
        goto done;
    }
    if (!CHECK_STATUS(st, SPX_OK)) {
        fprintf(stderr, "  update %s %s on %s: %s\n", t->format, product_names[k], c->name,
                spx_last_error());
        goto done;
    }
    /* varied -> iso: the updated plan stores values; iso -> anything: a new plan as made */
    int stored = c->iso_second && !c->iso_first;
    if (!CHECK_STATUS(fresh_plan(t, k, A2, stored, &F), SPX_OK)) goto done;
    if (CHECK_STATUS(run_product(P, k, x, y0, y, yb), SPX_OK) &&
        CHECK_STATUS(run_product(F, k, x, y0, yf, yb), SPX_OK)) {
        if (!CHECK(memcmp(y, yf, yb) == 0))
            fprintf(stderr, "  %s %s %s on %s: updated plan's bits differ from a new plan's\n",
                    t->format, t->dev == SPX_DEV_CUDA ? "cuda" : "cpu", product_names[k], c->name);
        check_reference(t, c, k, A2, x, y0, y);
    }
done:
    spx_plan_destroy(P);
    spx_plan_destroy(F);
    spx_matrix_destroy(A1);
    spx_matrix_destroy(A2);
    free(v2), free(x), free(y0), free(y), free(yf);
    return refused;
}

/* Twice in a row (v2, then v1 again) on a wrapped matrix: the plan gives the
 * bits of a new plan of v1, and the caller's arrays are untouched. */
static void update_twice(const target *t, const pattern_case *c)
{
    spx_matrix *A1 = with_values(c, 0, t->prec);
    int32_t *rp32 = NULL;
    spx_matrix *W = A1 ? spx_test_wrap32(A1, &rp32) : NULL;
    spx_plan *P = NULL, *F = NULL;
    void *v1 = malloc(vec_size(t->prec) * (size_t)(c->A->nnz + 1)), *v2 = second_values(c, t->prec);
    double *before = malloc(sizeof(double) * (size_t)(c->A->nnz + 1));
    void *x = NULL, *y0 = NULL, *y = NULL, *yf = NULL;
    size_t xb, yb;
    char buf[160];
    spx_plan_opts o = opts_for(t, SPMV_N, 0, buf, sizeof buf);
    if (!W || spx_plan_create(W, SPX_OP_SPMV, &o, &P) != SPX_OK) goto done;
    for (int64_t e = 0; e < c->A->nnz; e++) {
        before[e] = ((double *)A1->values)[e];
        if (t->prec == SPX_F64)
            ((double *)v1)[e] = before[e];
        else
            ((float *)v1)[e] = (float)before[e];
    }
    if (spx_plan_update_values_host(P, v2) != SPX_OK) goto done; /* refusals counted elsewhere */
    CHECK_STATUS(spx_plan_update_values_host(P, v1), SPX_OK);
    CHECK(memcmp(before, A1->values, sizeof(double) * (size_t)c->A->nnz) == 0);
    CHECK_STATUS(spx_plan_create(A1, SPX_OP_SPMV, &o, &F), SPX_OK);
    fill_operands(t->prec, SPMV_N, c->A->cols, c->A->rows, &x, &y0, &xb, &yb);
    y = malloc(yb), yf = malloc(yb);
    if (F && CHECK_STATUS(run_product(P, SPMV_N, x, y0, y, yb), SPX_OK) &&
        CHECK_STATUS(run_product(F, SPMV_N, x, y0, yf, yb), SPX_OK) &&
        !CHECK(memcmp(y, yf, yb) == 0))
        fprintf(stderr, "  %s: two updates back to v1 differ from a plan of v1 (%s)\n", t->format,
                c->name);
done:
    spx_plan_destroy(P);
    spx_plan_destroy(F);
    spx_matrix_destroy(W);
    spx_matrix_destroy(A1);
    free(rp32), free(v1), free(v2), free(before), free(x), free(y0), free(y), free(yf);
}

#define N_CASES 8
static pattern_case cases[N_CASES];

/* min(i, j) * n + max(i, j) for each entry of square A: one key per mirror pair. */
static int64_t *mirror_keys(const spx_matrix *A)
{
    int64_t *key = A ? malloc(sizeof *key * (size_t)(A->nnz + 1)) : NULL;
    for (int64_t i = 0; key && i < A->rows; i++)
        for (int64_t e = spx__row_off(A, i); e < spx__row_off(A, i + 1); e++) {
            const int64_t j = spx__col(A, e);
            key[e] = (i < j ? i : j) * A->rows + (i < j ? j : i);
        }
    return key;
}

static void build_cases(void)
{
    static const int64_t every[] = {0, 1, 2, 3, 4, 5, 8, 31, 64, 255, 256, 257, 1000, 4, 3, 1};
    cases[0] =
        (pattern_case){"varied 500x500", spx_test_varied_matrix(500, 500, 41.0, 1), 0, 0, 1, NULL};
    cases[1] = (pattern_case){
        "iso -> varied 2000x2000", spx_test_varied_matrix(2000, 2000, 41.0, 2), 1, 0, 1, NULL};
    cases[2] = (pattern_case){
        "iso -> iso 700x700", spx_test_varied_matrix(700, 700, 30.0, 3), 1, 1, 1, NULL};
    cases[3] = (pattern_case){
        "varied -> iso 600x600", spx_test_varied_matrix(600, 600, 30.0, 4), 0, 1, 1, NULL};
    cases[4] = (pattern_case){
        "one dense row 40x3000", spx_test_dense_row_matrix(40, 3000, 17, 4, 2), 0, 0, 0, NULL};
    cases[5] = (pattern_case){"every row class 1200x1200",
                              spx_test_pattern_matrix(1200, 1200, every, 16, 4),
                              0,
                              0,
                              1,
                              NULL};
    cases[6] = (pattern_case){
        "random 20000x20000", spx_test_varied_matrix(20000, 20000, 41.0, 7), 0, 0, 1, NULL};
    /* for the formats that take only symmetric matrices (sym) */
    cases[7] = (pattern_case){
        "symmetric 1500x1500", spx_test_symmetric_matrix(1500, 6, 1500, 8), 0, 0, 1, NULL};
    cases[7].key = mirror_keys(cases[7].A);
}

/* Every case and product of one target; its summary line. */
static void run_target(target *t, unsigned operations)
{
    long failed_before = spx_test_failed;
    for (int c = 0; c < N_CASES; c++) {
        if (!cases[c].A) continue;
        for (int k = 0; k < N_PRODUCTS; k++) {
            int spmm = k == SPMM_N;
            if (!(operations & (1u << (spmm ? SPX_OP_SPMM : SPX_OP_SPMV)))) continue;
            if (k == SPMV_RCM && !cases[c].square) continue;
            t->refused += update_one(t, &cases[c], (product)k, (c + k) % 2);
            t->cases++;
        }
    }
    if (operations & (1u << SPX_OP_SPMV)) update_twice(t, &cases[0]);
    if (!CHECK(t->refused < t->cases || t->cases == 0))
        fprintf(stderr, "  %s refused every case: its update never runs\n", t->format);
    printf("%-10s %-4s %-3s %-14s: %d cases, %d refused %s\n", t->format,
           t->dev == SPX_DEV_CUDA ? "cuda" : "cpu",
           t->prec == SPX_F64   ? "f64"
           : t->prec == SPX_F32 ? "f32"
                                : "f16",
           t->params ? t->params : "", t->cases, t->refused,
           spx_test_failed == failed_before ? "ok" : "FAILED");
}

/* Every SpMV and SpMM format of the device, every precision it declares. */
static void run_device(spx_device dev)
{
    static const spx_type precs[] = {SPX_F64, SPX_F32, SPX_F16};
    for (int f = 0; f < spx_format_count(); f++) {
        spx_format_info info;
        if (spx_format_get(f, &info) != SPX_OK || !(info.devices & dev)) continue;
        unsigned ops = info.operations & ((1u << SPX_OP_SPMV) | (1u << SPX_OP_SPMM));
        if (!ops) continue;
        for (int p = 0; p < 3; p++) {
            if (!(info.precisions & (1u << precs[p]))) continue;
            target t = {info.name, dev, precs[p], 0, 0, NULL};
            run_target(&t, ops);
        }
    }
}

/* CUDA layouts the default parameters do not reach, in every precision the
 * format has (a set a precision refuses counts as refused). */
static void run_cuda_variants(void)
{
    static const struct {
        const char *format, *params;
    } variants[] = {
        {"csr", "index=dict"},  {"csr", "kernel=warp"}, {"csr", "kernel=vector"},
        {"csr", "kernel=lean"}, {"sell", "index=u32"},  {"dasp", "prep=host"},
        {"hbp", "prep=host"},   {"hbp", "prep=sort"},
    };
    static const spx_type precs[] = {SPX_F64, SPX_F32, SPX_F16};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        for (int f = 0; f < spx_format_count(); f++) {
            spx_format_info info;
            if (spx_format_get(f, &info) != SPX_OK || !(info.devices & SPX_DEV_CUDA) ||
                strcmp(info.name, variants[v].format) != 0)
                continue;
            for (int p = 0; p < 3; p++) {
                if (!(info.precisions & (1u << precs[p]))) continue;
                target t = {info.name, SPX_DEV_CUDA, precs[p], 0, 0, variants[v].params};
                if (strcmp(variants[v].params, "kernel=lean") == 0 && precs[p] != SPX_F16)
                    continue; /* lean is fp16's */
                run_target(&t, info.operations & (1u << SPX_OP_SPMV));
            }
        }
    }
}

/* A's arrays copied to the device (64-bit offsets, values of prec) and
 * wrapped (spx_matrix_wrap_device); the three device arrays in dev[]. */
static spx_matrix *device_copy(const spx_matrix *A, spx_type prec, void *dev[3])
{
    const size_t es = vec_size(prec), nnz = (size_t)A->nnz, rows = (size_t)A->rows;
    const int64_t *rp;
    void *vals = malloc(es * (nnz + 1));
    spx_matrix *D = NULL;
    spx_matrix_csr(A, &rp, NULL, NULL, NULL, NULL);
    for (size_t e = 0; e < nnz; e++) {
        if (prec == SPX_F64)
            ((double *)vals)[e] = ((const double *)A->values)[e];
        else
            ((float *)vals)[e] = (float)((const double *)A->values)[e];
    }
    dev[0] = dev[1] = dev[2] = NULL;
    if (CHECK_STATUS(spx__cuda_alloc(&dev[0], 8 * (rows + 1), "rowptr"), SPX_OK) &&
        CHECK_STATUS(spx__cuda_alloc(&dev[1], 4 * nnz + 4, "col"), SPX_OK) &&
        CHECK_STATUS(spx__cuda_alloc(&dev[2], es * nnz + es, "values"), SPX_OK) &&
        CHECK_STATUS(spx__cuda_copy(dev[0], rp, 8 * (rows + 1), 1), SPX_OK) &&
        CHECK_STATUS(spx__cuda_copy(dev[1], A->col32, 4 * nnz, 1), SPX_OK) &&
        CHECK_STATUS(spx__cuda_copy(dev[2], vals, es * nnz, 1), SPX_OK))
        CHECK_STATUS(spx_matrix_wrap_device(A->rows, A->cols, dev[0], 64, dev[1], 32, dev[2],
                                            prec == SPX_F64 ? SPX_F64 : SPX_F32, &D),
                     SPX_OK);
    free(vals);
    return D;
}

/* A device matrix's plan (csr reads the caller's arrays in place) given new
 * values: a new plan's bits, and the caller's value array as it was. */
static void device_matrix_update(spx_type prec)
{
    const pattern_case *c = &cases[0];
    spx_matrix *A1 = with_values(c, 0, prec), *A2 = with_values(c, 1, prec), *D1 = NULL, *D2 = NULL;
    void *d1[3] = {NULL, NULL, NULL}, *d2[3] = {NULL, NULL, NULL}, *v2 = second_values(c, prec);
    void *x = NULL, *y0 = NULL, *y = NULL, *yf = NULL;
    const size_t es = vec_size(prec), vb = es * (size_t)c->A->nnz;
    void *before = malloc(vb + es), *after = malloc(vb + es);
    size_t xb, yb;
    spx_plan *P = NULL, *F = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.precision = prec;
    if (!A1 || !A2 || !(D1 = device_copy(A1, prec, d1)) || !(D2 = device_copy(A2, prec, d2)))
        goto done;
    spx__cuda_copy(before, d1[2], vb, 0);
    if (!CHECK_STATUS(spx_plan_create(D1, SPX_OP_SPMV, &o, &P), SPX_OK) ||
        !CHECK_STATUS(spx_plan_create(D2, SPX_OP_SPMV, &o, &F), SPX_OK) ||
        !CHECK_STATUS(
            update(P, &(target){"auto", SPX_DEV_CUDA, prec, 0, 0, NULL}, v2, c->A->nnz, 1), SPX_OK))
        goto done;
    spx__cuda_copy(after, d1[2], vb, 0);
    CHECK(memcmp(before, after, vb) == 0); /* the caller's values are not written */
    fill_operands(prec, SPMV_N, c->A->cols, c->A->rows, &x, &y0, &xb, &yb);
    y = malloc(yb), yf = malloc(yb);
    if (CHECK_STATUS(run_product(P, SPMV_N, x, y0, y, yb), SPX_OK) &&
        CHECK_STATUS(run_product(F, SPMV_N, x, y0, yf, yb), SPX_OK) &&
        !CHECK(memcmp(y, yf, yb) == 0))
        fprintf(stderr, "  a device matrix's plan after an update differs from a new plan\n");
    printf("device matrix %-3s: updated, %s\n", prec == SPX_F64 ? "f64" : "f32",
           spx_plan_describe(P));
done:
    spx_plan_destroy(P);
    spx_plan_destroy(F);
    spx_matrix_destroy(D1);
    spx_matrix_destroy(D2);
    spx_matrix_destroy(A1);
    spx_matrix_destroy(A2);
    for (int i = 0; i < 3; i++) {
        spx__cuda_free(d1[i]);
        spx__cuda_free(d2[i]);
    }
    free(v2), free(before), free(after), free(x), free(y0), free(y), free(yf);
}

/* fp16 CUDA plans refuse a new value beyond half's range (host and device
 * values) and keep multiplying with their old values. */
static void half_range_refused(void)
{
    static const char *const formats[] = {"csr", "sell", "dasp", "hbp"};
    const pattern_case *c = &cases[0];
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        target t = {formats[f], SPX_DEV_CUDA, SPX_F16, 0, 0, NULL};
        spx_matrix *A1 = with_values(c, 0, SPX_F16);
        float *v = second_values(c, SPX_F16);
        void *x = NULL, *y0 = NULL, *y = NULL, *yb4 = NULL;
        size_t xb, yb;
        spx_plan *P = NULL;
        char buf[160];
        spx_plan_opts o = opts_for(&t, SPMV_N, 0, buf, sizeof buf);
        v[c->A->nnz / 2] = 1e6f;
        if (A1 && CHECK_STATUS(spx_plan_create(A1, SPX_OP_SPMV, &o, &P), SPX_OK)) {
            fill_operands(SPX_F16, SPMV_N, c->A->cols, c->A->rows, &x, &y0, &xb, &yb);
            y = malloc(yb), yb4 = malloc(yb);
            CHECK_STATUS(run_product(P, SPMV_N, x, y0, yb4, yb), SPX_OK);
            for (int dev = 0; dev < 2; dev++) {
                CHECK_STATUS(update(P, &t, v, c->A->nnz, dev), SPX_ERR_UNSUPPORTED);
                if (!CHECK(strstr(spx_last_error(), "range") != NULL))
                    fprintf(stderr, "  %s: %s\n", formats[f], spx_last_error());
                CHECK_STATUS(run_product(P, SPMV_N, x, y0, y, yb), SPX_OK);
                CHECK(memcmp(y, yb4, yb) == 0);
            }
        }
        spx_plan_destroy(P);
        spx_matrix_destroy(A1);
        free(v), free(x), free(y0), free(y), free(yb4);
    }
}

/* The calls' errors, SpGEMM and SDDMM plans. */
static void check_errors(void)
{
    spx_matrix *A = spx_test_varied_matrix(50, 50, 10.0, 9);
    spx_plan *P = NULL, *G = NULL, *S = NULL;
    double v[4096] = {0};
    if (!A) return;
    CHECK_STATUS(spx_plan_update_values(NULL, v), SPX_ERR_BAD_HANDLE);
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, NULL, &P), SPX_OK)) {
        CHECK_STATUS(spx_plan_update_values(P, NULL), SPX_ERR_INVALID_ARG);
        CHECK_STATUS(spx_plan_update_values_host(P, NULL), SPX_ERR_INVALID_ARG);
    }
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPGEMM, NULL, &G), SPX_OK)) {
        CHECK_STATUS(spx_plan_update_values(G, v), SPX_ERR_UNSUPPORTED);
        CHECK(strstr(spx_last_error(), "new plan") != NULL);
    }
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SDDMM, NULL, &S), SPX_OK))
        CHECK_STATUS(spx_plan_update_values(S, v), SPX_OK);
    spx_plan_destroy(P);
    spx_plan_destroy(G);
    spx_plan_destroy(S);
    spx_matrix_destroy(A);
}

int main(void)
{
    int cpu = spx_test_part(NULL);
    int cuda = spx_test_part("cuda") && spx_test_require_cuda("CUDA plans' updates not run");
    if (cpu || cuda) build_cases();
    if (cpu) {
        check_errors();
        run_device(SPX_DEV_CPU);
    }
    if (cuda) {
        run_device(SPX_DEV_CUDA);
        run_cuda_variants();
        device_matrix_update(SPX_F64);
        device_matrix_update(SPX_F32);
        half_range_refused();
    }
    for (int c = 0; c < N_CASES; c++)
        spx_matrix_destroy(cases[c].A), free(cases[c].key);
    return spx_test_finish();
}
