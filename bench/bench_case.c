/* One case of the bench: prepare a format (or peer) on a device and precision,
 * check one product against the reference, then time batches of calls.
 * Timing: calibration batches double the call count (or jump to the estimate)
 * until one batch lasts >= 50 ms, which also warms caches, clocks and the GPU;
 * then 10 batches of that count; the median batch time per call is the result.
 * A CUDA batch ends with a device sync, so its time covers all its kernels.
 * A plan with vectors=permuted takes x and y in its order: it gets x[perm]
 * (spx_plan_permutation), and its y[k] is checked against y_ref[perm[k]].
 * A plan with xtype=half gets the float x rounded to half once, before the
 * check and the timing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"

#define BATCH_MIN_SECONDS 0.05
#define BATCHES 10

/* The thing measured: an SpX plan or a peer's prepared state. */
typedef struct bench_target {
    spx_plan *plan;
    const spx_format_ops *peer;
    void *state;
    spx_device device;
    int64_t *perm; /* vectors=permuted plans: the plan's order, else NULL */
    void *x_perm;  /* g->x in that order (host), else NULL */
    void *x_half;  /* plans reading x in half (xtype=half): g->x in half (device), else NULL */
} bench_target;

static spx_status target_spmv(const bench_target *t, const void *x, void *y)
{
    if (t->x_perm) x = t->x_perm;
    if (t->x_half) x = t->x_half;
    return t->plan ? spx_spmv(t->plan, 1.0, x, 0.0, y) : t->peer->spmv(t->state, 1.0, x, 0.0, y);
}

static spx_status target_sync(const bench_target *t)
{
    return t->device == SPX_DEV_CUDA ? spx__cuda_sync(NULL) : SPX_OK;
}

static void progress(const spx_bench_opts *o, const spx_bench_record *r, const char *stage)
{
    char label[96];
    if (!o->progress) return;
    spx_bench_label(r, label, sizeof label);
    if (o->progress_tty) {
        fprintf(o->progress, "\rbench: %s %s %s: %-12s", label,
                spx_bench_precision_name(r->precision), spx_bench_device_name(r->device), stage);
    } else if (strcmp(stage, "prepare") == 0) {
        fprintf(o->progress, "bench: %s %s %s ...\n", label,
                spx_bench_precision_name(r->precision), spx_bench_device_name(r->device));
    }
    fflush(o->progress);
}

static spx_status prepare(const spx__bench_group *g, const spx_bench_opts *o, const char *format,
                          const char *variant, bench_target *t, spx_bench_record *r)
{
    spx_plan_opts po = spx_plan_opts_default();
    po.format = format;
    po.device = g->device;
    po.precision = g->precision;
    po.threads = o->threads;
    po.tune = o->tune;
    t->device = g->device;
    if (!t->peer) {
        po.params = variant ? variant : o->params;
        spx_status st = spx_plan_create(g->A, SPX_OP_SPMV, &po, &t->plan);
        if (st != SPX_OK) return st; /* its message stays spx_last_error's */
        r->prep_ms = spx_plan_prep_ms(t->plan);
        r->bytes = spx_plan_bytes(t->plan);
        if (strcmp(format, "auto") == 0) r->chosen = spx_plan_format(t->plan);
        return SPX_OK;
    }
    double t0 = spx_bench_now();
    spx_status st = t->peer->analyze(g->A, &po, &t->state);
    r->prep_ms = 1e3 * (spx_bench_now() - t0);
    r->bytes = st == SPX_OK ? t->peer->bytes(t->state) : 0;
    return st;
}

static size_t element_bytes(spx_type t)
{
    return t == SPX_F64 ? sizeof(double) : sizeof(float);
}

/* For a plan with vectors=permuted (a CPU plan): t->perm and x_perm[k] =
 * x[perm[k]]. */
static spx_status permuted_inputs(const spx__bench_group *g, bench_target *t)
{
    const size_t es = element_bytes(g->precision);
    spx_status st;
    if (!t->plan || !strstr(spx_plan_describe(t->plan), "vectors=permuted")) return SPX_OK;
    SPX_TRY(spx__alloc((void **)&t->perm, (size_t)g->rows, sizeof *t->perm, "bench: permutation"));
    SPX_TRY(spx__alloc(&t->x_perm, (size_t)g->cols, es, "bench: permuted x"));
    SPX_TRY(spx_plan_permutation(t->plan, t->perm));
    for (int64_t k = 0; k < g->cols; k++)
        memcpy((char *)t->x_perm + (size_t)k * es, (const char *)g->x + (size_t)t->perm[k] * es,
               es);
cleanup:
    return st;
}

/* For a CUDA plan reading x in half (spx_plan_x_type SPX_F16, xtype=half):
 * t->x_half = g's float x rounded to half, once, outside the timing, as the
 * cuSPARSE half-x peer rounds it once per x. */
static spx_status half_inputs(const spx__bench_group *g, bench_target *t)
{
    uint16_t *h = NULL;
    spx_status st = SPX_OK;
    if (!t->plan || spx_plan_x_type(t->plan) != SPX_F16) return SPX_OK;
    if (g->device != SPX_DEV_CUDA || !g->x_conv)
        return spx__error(SPX_ERR_UNSUPPORTED, "bench: x in half for a host plan");
    SPX_TRY(spx__alloc((void **)&h, (size_t)g->cols, sizeof *h, "bench x in half"));
    spx_float_to_half(g->x_conv, h, g->cols);
    SPX_TRY(spx__cuda_upload(&t->x_half, h, (size_t)g->cols * sizeof *h, "bench x in half"));
cleanup:
    spx__free(h);
    return st;
}

/* One product on NaN-filled y (beta = 0 must not read it), compared with y_ref. */
static spx_status check(const bench_target *t, const spx__bench_group *g, double *err)
{
    size_t yb = (size_t)g->rows * element_bytes(g->precision);
    double worst = 0.0;
    spx_status st;
    for (int64_t i = 0; i < g->rows; i++) {
        if (g->precision == SPX_F64)
            ((double *)g->y_host)[i] = NAN;
        else
            ((float *)g->y_host)[i] = NAN;
    }
    if (g->y != g->y_host) SPX_TRY(spx__cuda_copy(g->y, g->y_host, yb, 1));
    SPX_TRY(target_spmv(t, g->x, g->y));
    SPX_TRY(target_sync(t));
    if (g->y != g->y_host) SPX_TRY(spx__cuda_copy(g->y_host, g->y, yb, 0));
    for (int64_t i = 0; i < g->rows && !isnan(worst); i++) {
        double y = g->precision == SPX_F64 ? ((const double *)g->y_host)[i]
                                           : (double)((const float *)g->y_host)[i];
        double d = fabs(y - g->y_ref[t->perm ? t->perm[i] : i]);
        worst = isnan(d) || d > worst ? d : worst;
    }
    *err = g->scale > 0.0 ? worst / g->scale : worst > 0.0 ? INFINITY : worst;
cleanup:
    return st;
}

static spx_status timed_batch(const bench_target *t, const spx__bench_group *g, int64_t calls,
                              double *seconds)
{
    double t0 = spx_bench_now();
    for (int64_t k = 0; k < calls; k++) {
        spx_status st = target_spmv(t, g->x, g->y);
        if (st != SPX_OK) return st;
    }
    spx_status st = target_sync(t);
    *seconds = spx_bench_now() - t0;
    return st;
}

/* Grow the batch until it lasts BATCH_MIN_SECONDS (or run the fixed count once). */
static spx_status calibrate(const bench_target *t, const spx__bench_group *g, int64_t fixed,
                            int64_t *calls)
{
    double s;
    *calls = fixed > 0 ? fixed : 1;
    for (;;) {
        spx_status st = timed_batch(t, g, *calls, &s);
        if (st != SPX_OK || fixed > 0 || s >= BATCH_MIN_SECONDS) return st;
        double grow = s > 0.0 ? 1.25 * BATCH_MIN_SECONDS / s : 100.0;
        grow = grow < 2.0 ? 2.0 : grow > 100.0 ? 100.0 : grow;
        *calls = (int64_t)ceil((double)*calls * grow);
    }
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static spx_status time_calls(const bench_target *t, const spx__bench_group *g, int64_t fixed,
                             double *median_s)
{
    double per_call[BATCHES];
    int64_t calls;
    spx_status st = calibrate(t, g, fixed, &calls);
    for (int b = 0; b < BATCHES && st == SPX_OK; b++) {
        st = timed_batch(t, g, calls, &per_call[b]);
        per_call[b] /= (double)calls;
    }
    if (st != SPX_OK) return st;
    qsort(per_call, BATCHES, sizeof per_call[0], compare_doubles);
    *median_s = 0.5 * (per_call[BATCHES / 2 - 1] + per_call[BATCHES / 2]);
    return SPX_OK;
}

static void record_failure(spx_bench_record *r, spx_status st)
{
    r->status = st;
    r->ok = 0;
    snprintf(r->error, sizeof r->error, "%s", spx_last_error());
}

void spx__bench_case(const spx__bench_group *g, const spx_bench_opts *o, const char *format,
                     const char *variant, const spx_format_ops *peer, spx_bench_record *r)
{
    bench_target t = {NULL, peer, NULL, g->device, NULL, NULL, NULL};
    double median_s = NAN;
    spx_status st;
    memset(r, 0, sizeof *r);
    r->format = peer ? peer->name : format;
    r->params = variant;
    r->device = g->device;
    r->precision = g->precision;
    r->nnz = g->nnz;
    r->median_ms = r->gflops = r->gbs = r->max_rel_err = r->breakeven = NAN;
    progress(o, r, "prepare");
    SPX_TRY(prepare(g, o, format, variant, &t, r));
    SPX_TRY(permuted_inputs(g, &t));
    SPX_TRY(half_inputs(g, &t));
    progress(o, r, "check");
    SPX_TRY(check(&t, g, &r->max_rel_err));
    r->ok = r->max_rel_err <= spx_bench_tolerance(g->precision);
    progress(o, r, "time");
    SPX_TRY(time_calls(&t, g, o->calls, &median_s));
    r->median_ms = 1e3 * median_s;
    r->gflops = 2.0 * (double)g->nnz / median_s * 1e-9;
    r->gbs = spx_bench_model_bytes(g->rows, g->cols, g->nnz, g->precision) / median_s * 1e-9;
cleanup:
    if (st != SPX_OK) record_failure(r, st);
    spx_plan_destroy(t.plan);
    if (t.state) peer->destroy(t.state);
    spx__free(t.perm);
    spx__free(t.x_perm);
    spx__cuda_free(t.x_half);
}
