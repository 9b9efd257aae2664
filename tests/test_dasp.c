/* DASP (src/cuda/dasp): the packing checked everywhere through a host
 * emulation of its layout (every row written once, y against the reference),
 * and, where a GPU is seen, the `dasp` plans in F64 and F16 against the
 * long-double reference (tests/common.h) on hand cases hitting each class and
 * each piecing case, rows of 1, 2, 3, 4, 5..256, exactly 256, 257, 10,000 and
 * 100,000 entries, empty rows, rectangular and tiny shapes, random matrices
 * with varied rows, and (part "shared", tests/common.h) the shared matrices.
 * The two fills (prep=host: values and columns scattered on the host and
 * uploaded; prep=gpu: scattered on the device from A's CSR) must give the
 * same device arrays bit for bit, in F64 and F16, and the same y bit for bit;
 * also with 64-bit column indices, fp32 values, half rounding ties and
 * values beyond half's range (both decline). The device's walk of the row
 * lists (spx__dasp_walk_row in dasp.h: the placement of the GPU fill and of
 * new values) is run on the host packing and must find every entry where the
 * host scatter put it; on the GPU, new values (spx__dasp_update, plans'
 * spx_plan_update_values, both preps, an iso packing too) must give the
 * arrays and y of a new packing of them, and a value beyond half's range
 * must be refused with the plan unchanged. Failed host and device
 * allocations (spx__alloc_fail_at, spx__dasp_dev_fail_at) must come back as
 * SPX_ERR_OOM. SPX_TEST_QUICK=1 (for compute-sanitizer) skips the larger
 * cases and all but three shared matrices.
 *
 * Tolerances, |y - ref|_inf <= c * (|alpha||A||x| + |beta||y0|)_inf:
 *   F64 (DMMA, fp64 sums): c = 32 * 2^-53 (a row's sum is split over 8
 *       accumulator lanes and the task partials, so errors grow far slower
 *       than with the row length; 32 leaves room over what is seen);
 *   F16 (values rounded to half, products with x exact in fp32 up to 2^-22,
 *       fp32 sums): c = 2^-11 + 128 * 2^-24, plus 2^-25 * sum |x_j| over the
 *       entries below half's normal range (2^-14), which lose relative accuracy;
 *   emulation (fp64 sums in the layout's order): c = 32 * 2^-53. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/alloc.h"
#include "core/matrix.h"
#include "cuda/dasp/dasp.h"

#define C_F64 (32.0 * 0x1p-53)
#define C_F16 (0x1p-11 + 128.0 * 0x1p-24)

static int have_gpu, quick;

/* ------------------------------------------------------------ matrices */

/* Rows of the given lengths (tests/common.h), values in [-1, 1) times scale. */
static spx_matrix *rows_of(int64_t rows, int64_t cols, const int64_t *len, double scale,
                           uint64_t seed)
{
    spx_matrix *A = spx_test_rows_matrix(rows, cols, len, seed);
    for (int64_t k = 0; A && k < A->nnz; k++)
        ((double *)A->values)[k] *= scale;
    return A;
}

/* ------------------------------------------------------------- helpers */

static void dims(const spx_matrix *A, int64_t *m, int64_t *n)
{
    spx_matrix_dims(A, m, n, NULL);
}

/* Largest sum of 2^-25 |x_j| over a row's entries below half's normal range. */
static double subnormal_term(const spx_matrix *A, const double *x, double alpha)
{
    const int64_t *rp;
    const void *ci, *vv;
    int bits;
    spx_type vt;
    int64_t m, n;
    double worst = 0.0;
    dims(A, &m, &n);
    spx_matrix_csr(A, &rp, &ci, &bits, &vv, &vt);
    for (int64_t i = 0; i < m; i++) {
        double s = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            double a = vt == SPX_F64 ? ((const double *)vv)[k] : ((const float *)vv)[k];
            int64_t j = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
            if (a != 0.0 && fabs(a) < 0x1p-14) s += 0x1p-25 * fabs(x[j]);
        }
        if (s > worst) worst = s;
    }
    return fabs(alpha) * worst;
}

/* The packed layout run on the host in fp64: y = alpha*A*x + beta*y, and
 * hits[i] = how many times row i was written; returns the count of broken
 * layout invariants (padding slots holding a value, heavy tasks not tiling
 * their row-blocks, irregular parts over SPX__DASP_IRR_MAX). */
static int64_t emulate(const spx__dasp_host *h, double alpha, const double *x, double beta,
                       double *y, int *hits)
{
    double *acc = calloc((size_t)h->rows + 1, sizeof *acc);
    int64_t bad = 0; /* layout invariants broken */
#define TERM(e) (h->col[e] >= 0 ? h->val[e] * x[h->col[e]] : 0.0)
    for (int64_t r = 0; r < h->n_long; r++) {
        int32_t row = h->long_row[r];
        hits[row]++;
        for (int64_t t = h->long_task_ptr[r]; t < h->long_task_ptr[r + 1]; t++)
            for (int64_t e = h->task_chunk[t] * 32; e < h->task_chunk[t + 1] * 32; e++)
                acc[row] += TERM(e);
    }
    for (int64_t b = 0; b < h->n_heavy; b++) { /* tasks tile the heavy blocks' chunks */
        int64_t t0 = h->n_tasks + h->hv_task_ptr[b], t1 = h->n_tasks + h->hv_task_ptr[b + 1];
        bad += h->task_chunk[t0] != h->med_chunk0 + h->rb_ptr[b];
        bad += h->task_chunk[t1] != h->med_chunk0 + h->rb_ptr[b + 1];
        for (int64_t t = t0; t < t1; t++)
            bad += h->hv_block[t - h->n_tasks] != b ||
                   h->task_chunk[t + 1] - h->task_chunk[t] > SPX__DASP_TASK_CHUNKS;
    }
    for (int64_t b = 0; b < h->n_rowblocks; b++) {
        bad += (h->rb_ptr[b + 1] - h->rb_ptr[b] > SPX__DASP_HEAVY_CHUNKS) != (b < h->n_heavy);
        for (int i = 0; i < 8; i++)
            bad += h->irr_ptr[8 * b + i + 1] - h->irr_ptr[8 * b + i] > SPX__DASP_IRR_MAX;
    }
    for (int64_t b = 0; b < h->n_rowblocks; b++)
        for (int i = 0; i < 8; i++) {
            int32_t row = h->med_row[8 * b + i];
            double s = 0.0;
            for (int64_t c = h->med_chunk0 + h->rb_ptr[b]; c < h->med_chunk0 + h->rb_ptr[b + 1]; c++)
                for (int k = 0; k < 4; k++) s += TERM(c * 32 + i * 4 + k);
            for (int64_t e = h->irr0 + h->irr_ptr[8 * b + i]; e < h->irr0 + h->irr_ptr[8 * b + i + 1]; e++)
                s += TERM(e);
            if (row >= 0) hits[row]++, acc[row] = s;
            else bad += s != 0.0;
        }
    struct { const int32_t *rows; int64_t chunk0, n_blk; int first; } pieced[2] = {
        {h->row13, h->chunk13, h->n_blk13, 1}, {h->row22, h->chunk22, h->n_blk22, 2}};
    for (int q = 0; q < 2; q++)
        for (int64_t p = 0; p < 8 * pieced[q].n_blk; p++)
            for (int part = 0; part < 2; part++) {
                int32_t row = pieced[q].rows[2 * p + part];
                int k0 = part ? pieced[q].first : 0, k1 = part ? 4 : pieced[q].first;
                double s = 0.0;
                for (int k = k0; k < k1; k++) s += TERM((pieced[q].chunk0 + p / 8) * 32 + (p % 8) * 4 + k);
                if (row >= 0) hits[row]++, acc[row] = s;
                else bad += s != 0.0;
            }
    for (int64_t p = 0; p < 8 * h->n_blk4; p++) {
        double s = 0.0;
        for (int k = 0; k < 4; k++) s += TERM((h->chunk4 + p / 8) * 32 + (p % 8) * 4 + k);
        if (h->row4[p] >= 0) hits[h->row4[p]]++, acc[h->row4[p]] = s;
        else bad += s != 0.0;
    }
    for (int64_t s = 0; s < h->n_single; s++)
        hits[h->single_row[s]]++, acc[h->single_row[s]] = TERM(h->single0 + s);
    for (int64_t s = 0; s < h->n_empty; s++) hits[h->empty_row[s]]++;
#undef TERM
    for (int64_t i = 0; i < h->rows; i++) y[i] = alpha * acc[i] + (beta == 0.0 ? 0.0 : beta * y[i]);
    free(acc);
    return bad;
}

/* Vectors of a case: x, y0 and the reference. */
typedef struct vecs {
    double *x, *y0, *ref, *scale, *y;
} vecs;

static vecs make_vecs(const spx_matrix *A, double alpha, double beta, int as_float,
                      uint64_t seed)
{
    int64_t m, n;
    dims(A, &m, &n);
    vecs v;
    v.x = malloc(sizeof(double) * (size_t)(n + 1));
    v.y0 = malloc(sizeof(double) * (size_t)(m + 1));
    v.ref = malloc(sizeof(double) * (size_t)(m + 1));
    v.scale = malloc(sizeof(double) * (size_t)(m + 1));
    v.y = malloc(sizeof(double) * (size_t)(m + 1));
    for (int64_t j = 0; j < n; j++) {
        v.x[j] = spx_test_rand(&seed);
        if (as_float) v.x[j] = (float)v.x[j];
    }
    for (int64_t i = 0; i < m; i++) {
        v.y0[i] = beta == 0.0 ? NAN : spx_test_rand(&seed);
        if (as_float && beta != 0.0) v.y0[i] = (float)v.y0[i];
    }
    spx_test_reference(A, SPX_OP_N, alpha, v.x, beta, v.y0, v.ref, v.scale);
    return v;
}

static void free_vecs(vecs *v)
{
    free(v->x), free(v->y0), free(v->ref), free(v->scale), free(v->y);
}

/* ------------------------------------------------------------- checks */

/* The walk (dasp.h) over the host packing's arrays. */
static spx__dasp_walk host_walk(const spx__dasp_host *h, const int64_t *rowptr)
{
    return (spx__dasp_walk){.rowptr = rowptr,
                            .long_row = h->long_row,
                            .med_row = h->med_row,
                            .row13 = h->row13,
                            .row22 = h->row22,
                            .row4 = h->row4,
                            .single_row = h->single_row,
                            .long_task_ptr = h->long_task_ptr,
                            .task_chunk = h->task_chunk,
                            .rb_ptr = h->rb_ptr,
                            .irr_base = h->irr_words,
                            .irr_len8 = (const uint64_t *)(h->irr_words + h->n_rowblocks),
                            .n_long = h->n_long,
                            .n_rowblocks = h->n_rowblocks,
                            .n_blk13 = h->n_blk13,
                            .n_blk22 = h->n_blk22,
                            .n_blk4 = h->n_blk4,
                            .n_single = h->n_single,
                            .med_chunk0 = h->med_chunk0,
                            .irr0 = h->irr0,
                            .chunk13 = h->chunk13,
                            .chunk22 = h->chunk22,
                            .chunk4 = h->chunk4,
                            .single0 = h->single0};
}

/* Row r's entries placed at (slot, rest, reg): entry[e] = its CSR index,
 * seen[k] counted; returns the entries landing outside the slots or on a
 * slot already taken. */
static int64_t walk_place(const int64_t *rowptr, int64_t r, int64_t slot, int64_t rest, int64_t reg,
                          int64_t n, int64_t *entry, int *seen)
{
    int64_t bad = 0;
    for (int64_t s = 0; s < rowptr[r + 1] - rowptr[r]; s++) {
        int64_t e = spx__dasp_slot(slot, rest, reg, s), k = rowptr[r] + s;
        seen[k]++;
        if (e < 0 || e >= n || entry[e] >= 0)
            bad++;
        else
            entry[e] = k;
    }
    return bad;
}

/* The device's placement (the fill's and the update's walk) run on the host
 * packing h of A: every stored slot holds A's value and column of the entry
 * the walk puts there, every other slot is padding (column -1, value +0),
 * and every entry of A lands in exactly one slot. */
static void check_walk(const char *name, const spx_matrix *A, const spx__dasp_host *h)
{
    const int64_t *rowptr = NULL;
    int64_t n = h->n_entries, bad = 0, wrong = 0, missed = 0;
    int64_t *entry = malloc(sizeof *entry * (size_t)(n + 1));
    int *seen = calloc((size_t)A->nnz + 1, sizeof *seen);
    if (!CHECK_STATUS(spx__matrix_rowptr(A, &rowptr), SPX_OK)) {
        free(entry);
        free(seen);
        return;
    }
    for (int64_t e = 0; e < n; e++)
        entry[e] = -1;
    spx__dasp_walk w = host_walk(h, rowptr);
    for (int64_t q = 0; q < spx__dasp_walk_len(&w); q++) {
        int64_t slot, rest, reg;
        int32_t r = spx__dasp_walk_row(&w, q, &slot, &rest, &reg);
        if (r >= 0) bad += walk_place(rowptr, r, slot, rest, reg, n, entry, seen);
    }
    for (int64_t r = 0; r < w.n_long; r++)
        bad += walk_place(rowptr, w.long_row[r], 0, spx__dasp_walk_long(&w, r), 0, n, entry, seen);
    for (int64_t e = 0; e < n; e++) {
        int64_t k = entry[e];
        double v = k >= 0 ? spx__val(A, k) : 0.0;
        wrong += h->col[e] != (k >= 0 ? (int32_t)spx__col(A, k) : -1) ||
                 memcmp(&h->val[e], &v, sizeof v) != 0;
    }
    for (int64_t k = 0; k < A->nnz; k++)
        missed += seen[k] != 1;
    if (!CHECK(bad == 0 && wrong == 0 && missed == 0))
        fprintf(stderr,
                "  walk of %s: %lld entries off their slots, %lld slots unlike the host "
                "scatter, %lld entries not placed once\n",
                name, (long long)bad, (long long)wrong, (long long)missed);
    free(entry);
    free(seen);
}

static void check_packing(const char *name, const spx_matrix *A, int thr, int loop)
{
    spx__dasp_host *h = NULL;
    int64_t m, n;
    dims(A, &m, &n);
    if (!CHECK_STATUS(spx__dasp_pack(A, thr, loop, &h), SPX_OK)) return;
    check_walk(name, A, h);
    vecs v = make_vecs(A, 1.5, -0.5, 0, 7);
    int *hits = calloc((size_t)m + 1, sizeof *hits);
    memcpy(v.y, v.y0, sizeof(double) * (size_t)m);
    int64_t broken = emulate(h, 1.5, v.x, -0.5, v.y, hits), bad = 0;
    for (int64_t i = 0; i < m; i++) bad += hits[i] != 1;
    if (!CHECK(bad == 0 && broken == 0))
        fprintf(stderr,
                "  packing of %s (thr=%d loop=%d): %lld rows not written once, %lld broken "
                "invariants\n",
                name, thr, loop, (long long)bad, (long long)broken);
    spx_test_close(v.y, v.ref, v.scale, m, C_F64, "packing of %s (thr=%d loop=%d)", name, thr,
                   loop);
    free(hits);
    free_vecs(&v);
    spx__dasp_host_free(h);
}

/* One dasp plan on the GPU against the reference. */
static void check_gpu(const char *name, const spx_matrix *A, spx_type prec, const char *params,
                      double alpha, double beta)
{
    int64_t m, n;
    dims(A, &m, &n);
    int f = prec == SPX_F16;
    vecs v = make_vecs(A, alpha, beta, f, 11 + (uint64_t)m);
    size_t es = f ? sizeof(float) : sizeof(double);
    void *xv = malloc(es * (size_t)(n + 1)), *yv = malloc(es * (size_t)(m + 1));
    for (int64_t j = 0; j < n; j++)
        if (f) ((float *)xv)[j] = (float)v.x[j];
        else ((double *)xv)[j] = v.x[j];
    for (int64_t i = 0; i < m; i++)
        if (f) ((float *)yv)[i] = (float)v.y0[i];
        else ((double *)yv)[i] = v.y0[i];
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "dasp";
    o.device = SPX_DEV_CUDA;
    o.precision = prec;
    o.params = params;
    spx_plan *P = NULL;
    if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) {
        fprintf(stderr, "  plan on %s\n", name);
        goto done;
    }
    CHECK(strstr(spx_plan_describe(P), "long=") != NULL);
    CHECK(spx_plan_bytes(P) > 0);
    if (!CHECK_STATUS(spx_spmv_host(P, alpha, xv, beta, yv), SPX_OK)) goto done;
    if (beta == 0.0) { /* a second call gives the same bits (task counters reset) */
        void *y2 = malloc(es * (size_t)(m + 1));
        CHECK_STATUS(spx_spmv_host(P, alpha, xv, beta, y2), SPX_OK);
        CHECK(memcmp(y2, yv, es * (size_t)m) == 0);
        free(y2);
    }
    for (int64_t i = 0; i < m; i++) v.y[i] = f ? ((float *)yv)[i] : ((double *)yv)[i];
    double c = f ? C_F16 : C_F64;
    double smax = 0.0;
    for (int64_t i = 0; i < m; i++) smax = v.scale[i] > smax ? v.scale[i] : smax;
    if (f && smax > 0.0) c += subnormal_term(A, v.x, alpha) / smax;
    spx_test_close(v.y, v.ref, v.scale, m, c, "dasp %s %s alpha=%g beta=%g on %s (%s)",
                   f ? "f16" : "f64", params ? params : "", alpha, beta, name,
                   spx_plan_describe(P));
done:
    spx_plan_destroy(P);
    free(xv);
    free(yv);
    free_vecs(&v);
}

/* ------------------------------------------------- host fill = gpu fill */

/* A's dasp arrays on the device, filled on the host (gpu == 0) or on the
 * device, downloaded into *val (malloc, 8 or 2 bytes per entry) and *col. */
static spx_status device_arrays(const spx_matrix *A, spx_type t, int gpu, void **val,
                                int32_t **col, int64_t *n)
{
    spx__dasp_host *h = NULL;
    spx__dasp_dev *d = NULL;
    *val = NULL;
    *col = NULL;
    *n = 0;
    spx_status st = (gpu ? spx__dasp_pack_layout : spx__dasp_pack)(A, 75, 0, &h);
    if (st == SPX_OK) st = spx__dasp_upload(h, t, NULL, &d);
    if (st == SPX_OK) st = spx__dasp_download(d, NULL, NULL, n);
    if (st == SPX_OK) {
        *val = malloc(sizeof(double) * (size_t)(*n + 1));
        *col = malloc(sizeof(int32_t) * (size_t)(*n + 1));
        st = spx__dasp_download(d, *val, *col, n);
    }
    spx__dasp_free(d);
    spx__dasp_host_free(h);
    return st;
}

/* First slot where the two fills differ in value bits or column, or -1. */
static int64_t first_difference(const void *a, const void *b, const int32_t *ca,
                                const int32_t *cb, int64_t n, size_t vb)
{
    for (int64_t e = 0; e < n; e++)
        if (ca[e] != cb[e] ||
            memcmp((const char *)a + e * vb, (const char *)b + e * vb, vb) != 0)
            return e;
    return -1;
}

/* prep=host and prep=gpu: the same status, and the same device arrays. */
static void check_same_fill(const char *name, const spx_matrix *A, spx_type t)
{
    void *hv, *gv;
    int32_t *hc, *gc;
    int64_t hn, gn, diff = -1;
    size_t vb = t == SPX_F16 ? 2 : sizeof(double);
    spx_status hs = device_arrays(A, t, 0, &hv, &hc, &hn);
    spx_status gs = device_arrays(A, t, 1, &gv, &gc, &gn);
    if (hs == SPX_OK && gs == SPX_OK && hn == gn) diff = first_difference(hv, gv, hc, gc, hn, vb);
    if (!CHECK(hs == gs && hn == gn && diff < 0))
        fprintf(stderr,
                "  %s %s: host fill %s (%lld slots), gpu fill %s (%lld slots), first "
                "difference at slot %lld\n",
                name, t == SPX_F16 ? "f16" : "f64", spx_status_name(hs), (long long)hn,
                spx_status_name(gs), (long long)gn, (long long)diff);
    free(hv), free(gv), free(hc), free(gc);
}

static spx_plan_opts dasp_opts(spx_type t, const char *params)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "dasp";
    o.device = SPX_DEV_CUDA;
    o.precision = t;
    o.params = params;
    return o;
}

/* y of a dasp plan with params, or the plan's status. */
static spx_status plan_y(const spx_matrix *A, spx_type t, const char *params, const void *x,
                         void *y)
{
    spx_plan_opts o = dasp_opts(t, params);
    spx_plan *P = NULL;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_OK)
        CHECK(strstr(spx_plan_describe(P), strstr(params, "host") ? "prep=host" : "prep=gpu"));
    if (st == SPX_OK) st = spx_spmv_host(P, 1.5, x, -0.5, y);
    spx_plan_destroy(P);
    return st;
}

/* x (n) and two copies of y0 (m) of a plan of precision t, random. */
static void random_xy(spx_type t, int64_t n, int64_t m, void *x, void *ya, void *yb)
{
    uint64_t seed = 99;
    for (int64_t j = 0; j < n; j++) {
        double v = spx_test_rand(&seed);
        if (t == SPX_F16)
            ((float *)x)[j] = (float)v;
        else
            ((double *)x)[j] = v;
    }
    for (int64_t i = 0; i < m; i++) {
        double v = spx_test_rand(&seed);
        if (t == SPX_F16)
            ((float *)ya)[i] = ((float *)yb)[i] = (float)v;
        else
            ((double *)ya)[i] = ((double *)yb)[i] = v;
    }
}

/* prep=host and prep=gpu plans: the same status and the same bits of y. */
static void check_same_spmv(const char *name, const spx_matrix *A, spx_type t)
{
    int64_t m, n;
    dims(A, &m, &n);
    size_t es = t == SPX_F16 ? sizeof(float) : sizeof(double);
    char *x = malloc(es * (size_t)(n + 1)), *yh = malloc(es * (size_t)(m + 1));
    char *yg = malloc(es * (size_t)(m + 1));
    random_xy(t, n, m, x, yh, yg);
    spx_status hs = plan_y(A, t, "prep=host", x, yh), gs = plan_y(A, t, "prep=gpu", x, yg);
    if (!CHECK(hs == gs && (hs != SPX_OK || memcmp(yh, yg, es * (size_t)m) == 0)))
        fprintf(stderr, "  %s %s: y of prep=host (%s) and prep=gpu (%s) differ\n", name,
                t == SPX_F16 ? "f16" : "f64", spx_status_name(hs), spx_status_name(gs));
    free(x), free(yh), free(yg);
}

static void check_same(const char *name, const spx_matrix *A)
{
    check_same_fill(name, A, SPX_F64);
    check_same_fill(name, A, SPX_F16);
    check_same_spmv(name, A, SPX_F64);
    check_same_spmv(name, A, SPX_F16);
}

/* ---------------------------------------------------------- new values */

/* A copy of A (fp64) with new values, each a float (an F16 plan's update
 * takes floats: the two give the same halves); big: entry k = 65520 too
 * (beyond half's range), when k < nnz. */
static spx_matrix *new_values(const spx_matrix *A, int64_t big)
{
    spx_matrix *B = NULL;
    uint64_t seed = 1234;
    if (!CHECK_STATUS(spx_matrix_copy(A, SPX_F64, &B), SPX_OK)) return NULL;
    for (int64_t k = 0; k < B->nnz; k++)
        ((double *)B->values)[k] = (float)(4.0 * spx_test_rand(&seed));
    if (big < B->nnz) ((double *)B->values)[big] = 65520.0;
    return B;
}

/* B's values as a plan of precision t takes them (double for F64, float for
 * F16; malloc). */
static void *values_for(const spx_matrix *B, spx_type t)
{
    size_t es = t == SPX_F16 ? sizeof(float) : sizeof(double);
    void *v = malloc(es * (size_t)(B->nnz + 1));
    for (int64_t k = 0; k < B->nnz; k++)
        if (t == SPX_F16)
            ((float *)v)[k] = (float)((const double *)B->values)[k];
        else
            ((double *)v)[k] = ((const double *)B->values)[k];
    return v;
}

/* spx__dasp_update of d with B's values, from host or device memory. */
static spx_status update_with(spx__dasp_dev *d, const spx_matrix *B, spx_type t, int on_device)
{
    size_t bytes = (t == SPX_F16 ? sizeof(float) : sizeof(double)) * (size_t)B->nnz;
    void *v = values_for(B, t), *dv = NULL;
    spx_status st = SPX_OK;
    if (on_device) {
        st = spx__cuda_alloc(&dv, bytes + 1, "dasp test values");
        if (st == SPX_OK && bytes) st = spx__cuda_copy(dv, v, bytes, 1);
    }
    if (st == SPX_OK) st = spx__dasp_update(d, on_device ? dv : v, on_device);
    spx__cuda_free(dv);
    free(v);
    return st;
}

/* Like device_arrays: A packed (iso: without values) and uploaded, then
 * given B's values (*ust: the update's status); bytes: the device plan's
 * before and after the update. */
static spx_status updated_arrays(const spx_matrix *A, const spx_matrix *B, spx_type t, int gpu,
                                 int iso, int on_device, spx_status *ust, void **val, int32_t **col,
                                 int64_t *n, size_t bytes[2])
{
    spx__dasp_host *h = NULL;
    spx__dasp_dev *d = NULL;
    *val = NULL;
    *col = NULL;
    *n = 0;
    *ust = SPX_ERR_INVALID_ARG;
    spx_status st = (gpu ? spx__dasp_pack_layout : spx__dasp_pack)(A, 75, 0, &h);
    if (st == SPX_OK) {
        h->iso = iso;
        st = spx__dasp_upload(h, t, NULL, &d);
    }
    if (st == SPX_OK) {
        bytes[0] = spx__dasp_bytes(d);
        *ust = update_with(d, B, t, on_device);
        bytes[1] = spx__dasp_bytes(d);
        st = spx__dasp_download(d, NULL, NULL, n);
    }
    if (st == SPX_OK) {
        *val = calloc((size_t)*n + 1, sizeof(double));
        *col = malloc(sizeof(int32_t) * (size_t)(*n + 1));
        st = spx__dasp_download(d, *val, *col, n);
    }
    spx__dasp_free(d);
    spx__dasp_host_free(h);
    return st;
}

/* A packing of A given B's values has the arrays of a packing of B, for
 * either fill, an iso packing of A included (it stores them from then on),
 * values from host and device memory. */
static void check_update_arrays(const char *name, const spx_matrix *A, const spx_matrix *B,
                                spx_type t)
{
    size_t vb = t == SPX_F16 ? 2 : sizeof(double), bytes[2];
    for (int gpu = 0; gpu < 2; gpu++)
        for (int iso = 0; iso < 2; iso++) {
            void *uv = NULL, *fv = NULL;
            int32_t *uc = NULL, *fc = NULL;
            int64_t un = 0, fn = 0, diff = -1;
            spx_status ust,
                us = updated_arrays(A, B, t, gpu, iso, gpu ^ iso, &ust, &uv, &uc, &un, bytes);
            spx_status fs = device_arrays(B, t, gpu, &fv, &fc, &fn);
            if (us == SPX_OK && fs == SPX_OK && un == fn)
                diff = first_difference(uv, fv, uc, fc, un, vb);
            if (!CHECK(us == SPX_OK && ust == SPX_OK && fs == SPX_OK && un == fn && diff < 0 &&
                       bytes[1] == bytes[0] + (iso ? (size_t)un * vb : 0)))
                fprintf(stderr,
                        "  %s %s prep=%s%s: update %s, new packing %s, first difference at "
                        "slot %lld\n",
                        name, t == SPX_F16 ? "f16" : "f64", gpu ? "gpu" : "host", iso ? " iso" : "",
                        spx_status_name(ust), spx_status_name(fs), (long long)diff);
            free(uv), free(fv), free(uc), free(fc);
        }
}

/* y of a plan of A with params given B's values (host memory), or a status. */
static spx_status updated_plan_y(const spx_matrix *A, const spx_matrix *B, spx_type t,
                                 const char *params, const void *x, void *y)
{
    spx_plan_opts o = dasp_opts(t, params);
    spx_plan *P = NULL;
    void *v = values_for(B, t);
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_OK) st = spx_plan_update_values_host(P, v);
    if (st == SPX_OK) st = spx_spmv_host(P, 1.5, x, -0.5, y);
    spx_plan_destroy(P);
    free(v);
    return st;
}

/* Plans of A given B's values: the y bits of plans made from B, with params
 * beside the defaults test_update_values runs. */
static void check_update_plans(const char *name, const spx_matrix *A, const spx_matrix *B,
                               spx_type t)
{
    static const char *const params[] = {"prep=host", "prep=gpu,pass2=1", "prep=host,pass2=0"};
    int64_t m, n;
    dims(A, &m, &n);
    size_t es = t == SPX_F16 ? sizeof(float) : sizeof(double);
    char *x = malloc(es * (size_t)(n + 1)), *yu = malloc(es * (size_t)(m + 1));
    char *yf = malloc(es * (size_t)(m + 1));
    for (int p = 0; p < 3; p++) {
        random_xy(t, n, m, x, yu, yf);
        spx_status us = updated_plan_y(A, B, t, params[p], x, yu);
        spx_status fs = plan_y(B, t, params[p], x, yf);
        if (!CHECK(us == SPX_OK && fs == SPX_OK && memcmp(yu, yf, es * (size_t)m) == 0))
            fprintf(stderr, "  %s %s %s: y of the updated plan (%s) and a new one (%s) differ\n",
                    name, t == SPX_F16 ? "f16" : "f64", params[p], spx_status_name(us),
                    spx_status_name(fs));
    }
    free(x), free(yu), free(yf);
}

static void check_update(const char *name, const spx_matrix *A)
{
    spx_matrix *B = new_values(A, INT64_MAX);
    if (!B) return;
    check_update_arrays(name, A, B, SPX_F64);
    check_update_arrays(name, A, B, SPX_F16);
    check_update_plans(name, A, B, SPX_F64);
    check_update_plans(name, A, B, SPX_F16);
    spx_matrix_destroy(B);
}

/* New fp16 values with one beyond half's range: refused, naming it, and the
 * packing (stored or iso) as it was, for either fill and values from host or
 * device memory. */
static void check_update_range(void)
{
    static const int64_t lens[] = {600, 7, 2, 130};
    spx_matrix *A = rows_of(4, 2000, lens, 1.0, 43), *B = new_values(A, 650);
    size_t bytes[2];
    for (int gpu = 0; B && gpu < 2; gpu++)
        for (int iso = 0; iso < 2; iso++) {
            void *uv = NULL, *av = NULL;
            int32_t *uc = NULL, *ac = NULL;
            int64_t un = 0, an = 0;
            spx_status ust,
                us = updated_arrays(A, B, SPX_F16, gpu, iso, gpu ^ iso, &ust, &uv, &uc, &un, bytes);
            CHECK_STATUS(ust, SPX_ERR_UNSUPPORTED);
            CHECK(strstr(spx_last_error(), "65520") != NULL);
            CHECK(bytes[1] == bytes[0]);
            if (!iso && CHECK_STATUS(us, SPX_OK) &&
                CHECK_STATUS(device_arrays(A, SPX_F16, gpu, &av, &ac, &an), SPX_OK))
                CHECK(un == an && first_difference(uv, av, uc, ac, un, 2) < 0);
            free(uv), free(av), free(uc), free(ac);
        }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* A's arrays with 64-bit column indices (the matrix object allows them at
 * any width; SpX makes them only past INT32_MAX columns): a header borrowing
 * A's offsets and values and cols64. */
static spx_matrix wide_columns(const spx_matrix *A, int64_t *cols64)
{
    spx_matrix W = *A;
    for (int64_t k = 0; k < A->nnz; k++) cols64[k] = A->col32[k];
    W.col32 = NULL;
    W.col64 = cols64;
    W.col_bits = 64;
    W.owns_arrays = 0;
    return W;
}

/* The fills agree on A's column and value widths: 64-bit columns and fp32
 * values give the same arrays and y as A. */
static void check_widths(const char *name, const spx_matrix *A)
{
    int64_t *c64 = malloc(sizeof *c64 * (size_t)(A->nnz + 1));
    spx_matrix W = wide_columns(A, c64);
    char wname[256];
    snprintf(wname, sizeof wname, "%s, 64-bit columns", name);
    check_same(wname, &W);
    void *av, *wv;
    int32_t *ac, *wc;
    int64_t an, wn;
    spx_status as = device_arrays(A, SPX_F64, 1, &av, &ac, &an);
    spx_status ws = device_arrays(&W, SPX_F64, 1, &wv, &wc, &wn);
    CHECK(as == SPX_OK && ws == SPX_OK && an == wn &&
          first_difference(av, wv, ac, wc, an, sizeof(double)) < 0);
    free(av), free(wv), free(ac), free(wc), free(c64);
    spx_matrix *F = NULL;
    if (CHECK_STATUS(spx_matrix_copy(A, SPX_F32, &F), SPX_OK)) {
        snprintf(wname, sizeof wname, "%s, fp32 values", name);
        check_same(wname, F);
    }
    spx_matrix_destroy(F);
}

/* The comparison sees a one-ulp change of one value (so it can fail). */
static void check_sensitivity(void)
{
    static const int64_t len[] = {5, 40, 1, 300};
    spx_matrix *A = rows_of(4, 400, len, 1.0, 31);
    double *v = (double *)A->values;
    void *av, *bv;
    int32_t *ac, *bc;
    int64_t an, bn;
    spx_status as = device_arrays(A, SPX_F64, 1, &av, &ac, &an);
    v[17] = nextafter(v[17], 2.0);
    spx_status bs = device_arrays(A, SPX_F64, 1, &bv, &bc, &bn);
    CHECK(as == SPX_OK && bs == SPX_OK && an == bn &&
          first_difference(av, bv, ac, bc, an, sizeof(double)) >= 0);
    free(av), free(bv), free(ac), free(bc);
    spx_matrix_destroy(A);
}

/* Values where converting to half is delicate: ties (to even), just past a
 * tie (a double -> float -> half path would round twice), half's subnormals
 * and their tie 2^-25, -0, the top of the range (65504; 65519.99 rounds down
 * to it), infinities and NaN (kept as such, not declined); then 65520, which
 * rounds to infinity: both fills decline it. */
static void half_cases(void)
{
    static const double delicate[] = {
        1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11, 1.0 + 0x1p-11 + 0x1p-40, -(2.0 + 0x1p-10 + 0x1p-45),
        0x1p-25, 0x1p-25 + 0x1p-60, 3 * 0x1p-26, 0x1p-24, 1e-7, -0.0, 0.0, 5e-324,
        65504.0, 65519.99, -65519.99, 1.0 / 3.0, INFINITY, -INFINITY, NAN, -NAN, 1e-300};
    enum { N = sizeof delicate / sizeof *delicate };
    /* row 0: all of them (a medium row), then one per row (short rows) */
    int64_t rp[N + 2];
    int32_t ci[2 * N];
    double v[2 * N];
    rp[0] = 0;
    for (int i = 0; i < N; i++) ci[i] = i, v[i] = delicate[i];
    for (int i = 0; i <= N; i++) rp[i + 1] = N + i;
    for (int i = 0; i < N; i++) ci[N + i] = i, v[N + i] = delicate[i];
    spx_matrix *A = NULL;
    if (CHECK_STATUS(spx_matrix_create_csr(N + 1, N, rp, ci, v, &A), SPX_OK)) {
        check_same_fill("delicate half values", A, SPX_F16);
        check_same_spmv("delicate half values", A, SPX_F16);
        check_same_fill("delicate half values", A, SPX_F64);
    }
    spx_matrix_destroy(A);
    static const int64_t lens[] = {600, 7, 2, 130};
    A = rows_of(4, 2000, lens, 100.0, 42);
    ((double *)A->values)[300] = 65520.0;
    check_same_fill("65520 in a long row", A, SPX_F16);
    check_same_spmv("65520 in a long row", A, SPX_F16);
    spx__dasp_host *h = NULL;
    spx__dasp_dev *d = NULL;
    if (CHECK_STATUS(spx__dasp_pack_layout(A, 75, 0, &h), SPX_OK)) {
        CHECK_STATUS(spx__dasp_upload(h, SPX_F16, NULL, &d), SPX_ERR_UNSUPPORTED);
        CHECK(strstr(spx_last_error(), "65520") != NULL);
    }
    spx__dasp_host_free(h);
    spx_matrix_destroy(A);
}

/* Plans with the n-th host allocation, then the n-th dasp device allocation,
 * failing, n = 1, 2, ... until one runs untouched: each failure is SPX_ERR_OOM. */
static void check_oom(const char *params, spx_type t)
{
    static const int64_t mix[] = {0, 1, 3, 2, 2, 4, 9, 300, 70, 1};
    spx_matrix *A = spx_test_pattern_matrix(200, 400, mix, 10, 51);
    float x[400 + 1];
    float y[200 + 1];
    double xd[400 + 1], yd[200 + 1];
    for (int j = 0; j <= 400; j++) x[j] = 1.0f, xd[j] = 1.0;
    for (int dev = 0; dev < 2; dev++) {
        long n, bad = 0;
        for (n = 1; n < 10000; n++) {
            if (dev) spx__dasp_dev_fail_at(n);
            else spx__alloc_fail_at(n);
            spx_plan_opts o = dasp_opts(t, params);
            spx_plan *P = NULL;
            spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
            if (st == SPX_OK)
                st = spx_spmv_host(P, 1.0, t == SPX_F16 ? (void *)x : (void *)xd, 0.0,
                                   t == SPX_F16 ? (void *)y : (void *)yd);
            spx_plan_destroy(P);
            long made = dev ? spx__dasp_dev_fail_at(0) : spx__alloc_fail_at(0);
            if (st == SPX_OK && made < n) break;
            bad += st != SPX_OK && st != SPX_ERR_OOM;
        }
        if (!CHECK(bad == 0 && n > 1))
            fprintf(stderr, "  dasp %s %s: %ld failed %s allocations gave another status\n",
                    params, t == SPX_F16 ? "f16" : "f64", bad, dev ? "device" : "host");
    }
    spx_matrix_destroy(A);
}

static void check_all(const char *name, spx_matrix *A)
{
    if (!A) return;
    check_packing(name, A, 75, 0);
    if (have_gpu) {
        check_same(name, A);
        check_update(name, A);
        check_gpu(name, A, SPX_F64, "prep=host", 1.5, -0.5);
        check_gpu(name, A, SPX_F64, NULL, 1.5, -0.5);
        check_gpu(name, A, SPX_F64, NULL, 1.0, 0.0); /* y holds NaN: must not leak */
        check_gpu(name, A, SPX_F16, NULL, 1.5, -0.5);
        check_gpu(name, A, SPX_F16, NULL, -1.0, 0.0);
    }
    spx_matrix_destroy(A);
}

/* check_all, after the fills' checks with 64-bit columns and fp32 values. */
static void check_all_widths(const char *name, spx_matrix *A)
{
    if (have_gpu && A) check_widths(name, A);
    check_all(name, A);
}

/* ---------------------------------------------------------------- cases */

static void hand_cases(void)
{
    static const int64_t mix[] = {0, 1, 1, 1, 2, 2, 3, 3, 3, 3, 4, 5, 7, 16, 31,
                                  100, 255, 256, 257, 300, 1000, 6, 2, 1};
    check_all_widths("mixed classes", spx_test_pattern_matrix(1000, 4096, mix, 24, 1));
    /* piecing: 1s and 3s in both surpluses, odd 2s, partial blocks of 4 */
    static const int64_t p13[] = {1, 3, 3, 3}, p31[] = {1, 1, 1, 3}, p2[] = {2}, p4[] = {4};
    check_all("1&3, more 3s", spx_test_pattern_matrix(37, 50, p13, 4, 2));
    check_all("1&3, more 1s", spx_test_pattern_matrix(37, 50, p31, 4, 3));
    check_all("2&2, odd count", spx_test_pattern_matrix(17, 50, p2, 1, 4));
    check_all("rows of 4, partial block", spx_test_pattern_matrix(9, 50, p4, 1, 5));
    static const int64_t one[] = {1}, three[] = {3};
    check_all("one singleton", spx_test_pattern_matrix(1, 1, one, 1, 6));
    check_all("singletons", spx_test_pattern_matrix(70, 90, one, 1, 7));
    check_all("rows of 3 alone", spx_test_pattern_matrix(11, 40, three, 1, 8));
    static const int64_t medium[] = {5, 6, 7, 8, 9, 12, 17, 33, 64, 65, 127, 128, 200, 255, 256};
    check_all_widths("medium lengths", spx_test_pattern_matrix(333, 1000, medium, 15, 9));
    static const int64_t exact[] = {256}, just[] = {257};
    check_all("rows of 256", spx_test_pattern_matrix(20, 600, exact, 1, 10));
    check_all("rows of 257", spx_test_pattern_matrix(20, 600, just, 1, 11));
    static const int64_t longs[] = {100000, 10000, 257, 1, 0, 4, 513, 2};
    check_all_widths("rows of 100000 and 10000", spx_test_pattern_matrix(8, 200000, longs, 8, 12));
    static const int64_t empty_mix[] = {0, 0, 0, 5, 0, 1};
    check_all("empty rows", spx_test_pattern_matrix(100, 30, empty_mix, 6, 13));
    static const int64_t none[] = {0};
    check_all("all empty", spx_test_pattern_matrix(50, 20, none, 1, 14));
    check_all("m x 0", spx_test_pattern_matrix(7, 0, none, 1, 15));
    check_all("0 x 0", spx_test_pattern_matrix(0, 0, none, 1, 16));
    check_all("0 x 5", spx_test_pattern_matrix(0, 5, none, 1, 16));
    check_all("1 x 1", spx_test_pattern_matrix(1, 1, one, 1, 17));
    static const int64_t wide[] = {3000, 40, 7, 2999};
    check_all_widths("rectangular 50 x 3000", spx_test_pattern_matrix(50, 3000, wide, 4, 18));
    static const int64_t tall[] = {50, 1, 9, 4, 0, 2, 3};
    check_all("rectangular 3000 x 50", spx_test_pattern_matrix(3000, 50, tall, 7, 19));
    if (!quick) check_all("varied 20000 x 30000", spx_test_varied_matrix(20000, 30000, 2000.0, 20));
}

/* Parameters and their limits, on one varied matrix. */
static void param_cases(void)
{
    spx_matrix *A = spx_test_varied_matrix(5000, 8000, 700.0, 21);
    static const int thr[] = {0, 50, 75, 100}, loop[] = {1, 2, 4};
    for (int t = 0; t < 4; t++)
        for (int l = 0; l < 3; l++) check_packing("varied, params", A, thr[t], loop[l]);
    spx__dasp_host *h = NULL;
    CHECK_STATUS(spx__dasp_pack(A, 101, 0, &h), SPX_ERR_BAD_PARAM);
    CHECK_STATUS(spx__dasp_pack(A, 75, 3, &h), SPX_ERR_BAD_PARAM);
    if (have_gpu) {
        check_gpu("varied, thr=0 loop=4", A, SPX_F64, "thr=0,loop=4", 2.0, 0.5);
        check_gpu("varied, thr=100 loop=2", A, SPX_F64, "thr=100,loop=2", 2.0, 0.5);
        check_gpu("varied, thr=50 loop=1", A, SPX_F16, "thr=50,loop=1", 2.0, 0.5);
        check_gpu("varied, pass2=1", A, SPX_F64, "pass2=1", 1.0, 0.0);
        check_gpu("varied, pass2=1", A, SPX_F16, "pass2=1", -0.5, 2.0);
        spx_plan_opts o = spx_plan_opts_default();
        spx_plan *P = NULL;
        o.format = "dasp";
        o.device = SPX_DEV_CUDA;
        o.params = "loop=3";
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        o.params = "depth=2";
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        o.params = "prep=cpu";
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        o.params = NULL;
        o.precision = SPX_F32;
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_NO_FORMAT);
        spx_matrix_destroy(A);
        static const int64_t big[] = {3};
        A = rows_of(1, 10, big, 1e6, 22); /* beyond half's range */
        o.precision = SPX_F16;
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    }
    spx_matrix_destroy(A);
}

/* The shared matrices (with SPX_TEST_QUICK, those of them present); for F16
 * the values are scaled to at most 1 in size. */
static void shared_cases(void)
{
    static const char *names[] = {
        "1138_bus", "NotreDame_www", "TSOPF_RS_b39_c30", "bcsstk13", "bcsstk21",
        "bcsstk28", "bfly", "blckhole", "c-62", "cage11", "can_1072", "cavity19",
        "cryg2500", "delaunay_n16", "dwt_2680", "gemat12", "lund_a", "olm1000",
        "pores_1", "rajat01", "sherman3", "sinc18", "watt_2", "west0067", "xenon1", "zenios"};
    const char *dir = spx_test_matrices_dir();
    for (size_t k = 0; dir && k < sizeof names / sizeof *names; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.mtx", dir, names[k]);
        FILE *f = quick ? fopen(path, "r") : NULL;
        if (quick && !f) continue;
        if (f) fclose(f);
        spx_matrix *A = spx_test_read_matrix(dir, names[k]);
        if (!A) continue;
        check_packing(names[k], A, 75, 0);
        if (have_gpu) {
            check_same(names[k], A);
            check_gpu(names[k], A, SPX_F64, NULL, 1.5, -0.5);
            check_gpu(names[k], A, SPX_F64, NULL, 1.0, 0.0);
            const int64_t *rp;
            const void *ci, *vv;
            int bits;
            spx_type vt;
            int64_t m, n, nnz;
            spx_matrix_dims(A, &m, &n, &nnz);
            spx_matrix_csr(A, &rp, &ci, &bits, &vv, &vt);
            double *v = malloc(sizeof *v * (size_t)(nnz + 1)), big = 0.0;
            for (int64_t e = 0; e < nnz; e++) {
                v[e] = vt == SPX_F64 ? ((const double *)vv)[e] : ((const float *)vv)[e];
                big = fabs(v[e]) > big ? fabs(v[e]) : big;
            }
            for (int64_t e = 0; e < nnz; e++) v[e] /= big > 0.0 ? big : 1.0;
            spx_matrix *S = NULL;
            if (bits == 32 &&
                CHECK_STATUS(spx_matrix_create_csr(m, n, rp, ci, v, &S), SPX_OK))
                check_gpu(names[k], S, SPX_F16, NULL, 1.5, -0.5);
            spx_matrix_destroy(S);
            free(v);
        }
        spx_matrix_destroy(A);
    }
}

int main(void)
{
    have_gpu = spx_test_require_cuda("dasp checked through its packing's host emulation only");
    const char *q = getenv("SPX_TEST_QUICK");
    quick = q && strcmp(q, "0") != 0;
    if (spx_test_part("shared")) shared_cases();
    if (spx_test_part(NULL)) {
        hand_cases();
        if (!quick) param_cases();
        if (have_gpu) {
            half_cases();
            check_update_range();
            check_sensitivity();
            check_oom("prep=gpu", SPX_F64);
            if (!quick) {
                check_oom("prep=gpu", SPX_F16);
                check_oom("prep=host", SPX_F64);
            }
        }
    }
    return spx_test_finish();
}
