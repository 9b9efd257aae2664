/* One SpMV case of the bench: prepare a format (or peer) on a device and
 * precision, time its first product alone and check it against the
 * reference, then time batches of calls (bench_timing.c): the median per call
 * and the spread of the batches are the result.
 * A plan with vectors=permuted takes x and y in its order: it gets x[perm]
 * (spx_plan_permutation), and its y[k] is checked against y_ref[perm[k]].
 * A plan with xtype=half gets the float x rounded to half once, before the
 * check and the timing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "bench_internal.h"

/* The thing measured: an SpX plan or a peer's prepared state, and its vectors. */
typedef struct bench_target {
    spx_plan *plan;
    const spx_bench_peer *peer;
    void *state;
    spx_device device;
    int64_t *perm; /* vectors=permuted plans: the plan's order, else NULL */
    void *x_perm;  /* g->x in that order (host), else NULL */
    void *x_half;  /* plans reading x in half (xtype=half): g->x in half (device), else NULL */
    const void *x; /* what the calls read: g->x or one of the above */
    void *y;
} bench_target;

/* One product y = A*x (bench_call_fn). */
static spx_status target_spmv(void *ctx)
{
    const bench_target *t = ctx;
    if (t->plan) return bench_lib(spx_spmv(t->plan, 1.0, t->x, 0.0, t->y));
    return t->peer->spmv(t->state, 1.0, t->x, 0.0, t->y);
}

void bench_progress(const spx_bench_opts *o, const char *label, spx_type t, spx_device d,
                    const char *stage)
{
    if (!o->progress) return;
    if (o->progress_tty) {
        fprintf(o->progress, "\rbench: %s %s %s: %-12s", label, spx_bench_precision_name(t),
                spx_bench_device_name(d), stage);
    } else if (strcmp(stage, "prepare") == 0) {
        fprintf(o->progress, "bench: %s %s %s ...\n", label, spx_bench_precision_name(t),
                spx_bench_device_name(d));
    }
    fflush(o->progress);
}

static void progress(const spx_bench_opts *o, const spx_bench_record *r, const char *stage)
{
    char label[96];
    spx_bench_label(r->format, r->params, r->chosen, label, sizeof label);
    bench_progress(o, label, r->precision, r->device, stage);
}

static spx_status prepare(const bench_group *g, const spx_bench_opts *o, const char *format,
                          const char *variant, bench_target *t, spx_bench_record *r)
{
    t->device = g->device;
    if (!t->peer) {
        spx_plan_opts po = spx_plan_opts_default();
        po.format = format;
        po.device = g->device;
        po.precision = g->precision;
        po.threads = o->threads;
        po.tune = o->tune;
        po.params = variant ? variant : o->params;
        spx_status st = bench_lib(spx_plan_create(g->A, SPX_OP_SPMV, &po, &t->plan));
        if (st != SPX_OK) return st;
        r->prep_ms = spx_plan_prep_ms(t->plan);
        r->bytes = spx_plan_bytes(t->plan);
        if (strcmp(format, "auto") == 0) r->chosen = spx_plan_format(t->plan);
        return SPX_OK;
    }
    spx_bench_peer_opts po = {g->precision, o->threads};
    double t0 = spx_bench_now();
    spx_status st = t->peer->prepare(g->A, NULL, &po, &t->state);
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
static spx_status permuted_inputs(const bench_group *g, bench_target *t)
{
    const size_t es = element_bytes(g->precision);
    spx_status st;
    if (!t->plan || !strstr(spx_plan_describe(t->plan), "vectors=permuted")) return SPX_OK;
    BENCH_TRY(bench_alloc((void **)&t->perm, (size_t)g->rows, sizeof *t->perm, "permutation"));
    BENCH_TRY(bench_alloc(&t->x_perm, (size_t)g->cols, es, "permuted x"));
    BENCH_TRY(bench_lib(spx_plan_permutation(t->plan, t->perm)));
    for (int64_t k = 0; k < g->cols; k++)
        memcpy((char *)t->x_perm + (size_t)k * es, (const char *)g->x + (size_t)t->perm[k] * es,
               es);
    t->x = t->x_perm;
cleanup:
    return st;
}

/* For a CUDA plan reading x in half (spx_plan_x_type SPX_F16, xtype=half):
 * t->x_half = g's float x rounded to half, once, outside the timing, as the
 * cuSPARSE half-x peer rounds it once per x. */
static spx_status half_inputs(const bench_group *g, bench_target *t)
{
    uint16_t *h = NULL;
    spx_status st = SPX_OK;
    if (!t->plan || spx_plan_x_type(t->plan) != SPX_F16) return SPX_OK;
    if (g->device != SPX_DEV_CUDA || !g->x_conv)
        return bench_fail(SPX_ERR_UNSUPPORTED, "bench: x in half for a host plan");
    BENCH_TRY(bench_alloc((void **)&h, (size_t)g->cols, sizeof *h, "x in half"));
    spx_float_to_half(g->x_conv, h, g->cols);
    BENCH_TRY(bench_cuda_upload(&t->x_half, h, (size_t)g->cols * sizeof *h, "x in half"));
    t->x = t->x_half;
cleanup:
    free(h);
    return st;
}

/* The first product, timed alone, on NaN-filled y (beta = 0 must not read
 * it), compared with y_ref. */
static spx_status first_call(bench_target *t, const bench_group *g, double *first_s, double *err)
{
    size_t yb = (size_t)g->rows * element_bytes(g->precision);
    int sync = g->device == SPX_DEV_CUDA;
    double worst = 0.0;
    spx_status st;
    for (int64_t i = 0; i < g->rows; i++) {
        if (g->precision == SPX_F64)
            ((double *)g->y_host)[i] = NAN;
        else
            ((float *)g->y_host)[i] = NAN;
    }
    if (g->y != g->y_host) BENCH_TRY(bench_cuda_copy(g->y, g->y_host, yb, 1));
    BENCH_TRY(bench_time_once(target_spmv, t, sync, first_s));
    if (g->y != g->y_host) BENCH_TRY(bench_cuda_copy(g->y_host, g->y, yb, 0));
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

static void record_failure(spx_bench_record *r, spx_status st)
{
    r->status = st;
    r->ok = 0;
    snprintf(r->error, sizeof r->error, "%s", spx_bench_last_error());
}

static void clear_record(spx_bench_record *r)
{
    memset(r, 0, sizeof *r);
    r->t.median_ms = r->t.min_ms = r->t.max_ms = r->t.q1_ms = r->t.q3_ms = NAN;
    r->first_ms = r->gflops = r->gbs = r->max_rel_err = r->breakeven = NAN;
    r->breakeven_peer = NAN;
}

void bench_case(const bench_group *g, const spx_bench_opts *o, const char *format,
                const char *variant, const spx_bench_peer *peer, spx_bench_record *r)
{
    bench_target t = {NULL, peer, NULL, g->device, NULL, NULL, NULL, g->x, g->y};
    bench_stats s;
    double first_s = NAN;
    spx_status st;
    clear_record(r);
    r->format = peer ? peer->name : format;
    r->params = variant;
    r->device = g->device;
    r->precision = g->precision;
    r->nnz = g->nnz;
    progress(o, r, "prepare");
    BENCH_TRY(prepare(g, o, format, variant, &t, r));
    BENCH_TRY(permuted_inputs(g, &t));
    BENCH_TRY(half_inputs(g, &t));
    progress(o, r, "check");
    BENCH_TRY(first_call(&t, g, &first_s, &r->max_rel_err));
    r->first_ms = 1e3 * first_s;
    r->ok = r->max_rel_err <= spx_bench_tolerance(g->precision);
    progress(o, r, "time");
    BENCH_TRY(bench_time_calls(target_spmv, &t, g->device == SPX_DEV_CUDA, o->calls, o->batches,
                               &s));
    r->load1 = bench_load1();
    bench_stats_to_ms(&s, &r->t);
    r->gflops = 2.0 * (double)g->nnz / s.median * 1e-9;
    r->gbs = spx_bench_model_bytes(g->rows, g->cols, g->nnz, g->precision) / s.median * 1e-9;
cleanup:
    if (st != SPX_OK) record_failure(r, st);
    spx_plan_destroy(t.plan);
    if (t.state) peer->destroy(t.state);
    free(t.perm);
    free(t.x_perm);
    bench_cuda_free(t.x_half);
}
