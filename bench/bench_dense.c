/* The cases of the SpMM and SDDMM benches (bench_dense.h): one SpX plan or
 * peer of the group's operation, prepared, checked and timed into a record. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "bench_dense.h"

static const spx_type precisions[] = {SPX_F64, SPX_F32, SPX_F16};
static const spx_device devices[] = {SPX_DEV_CPU, SPX_DEV_CUDA};

/* The thing measured: an SpX plan or a peer's state, on the group's operands. */
typedef struct dense_case {
    spx_operation op;
    spx_plan *plan;
    const spx_bench_peer *peer;
    void *state;
    int64_t k;
    const void *X, *Y; /* SDDMM's Y; NULL for SpMM */
    void *out;         /* SpMM's Y, SDDMM's Z */
    void *half;        /* SDDMM with X and Y in half (xtype=half): their copy, or NULL */
} dense_case;

static size_t element_bytes(spx_type t)
{
    return t == SPX_F64 ? sizeof(double) : sizeof(float);
}

/* One product, alpha 1, beta 0 (bench_call_fn). */
static spx_status dense_call(void *ctx)
{
    const dense_case *c = ctx;
    const int64_t k = c->k;
    if (c->op == SPX_OP_SDDMM)
        return c->plan ? bench_lib(spx_sddmm(c->plan, k, 1.0, c->X, k, c->Y, k, 0.0, c->out))
                       : c->peer->sddmm(c->state, k, 1.0, c->X, k, c->Y, k, 0.0, c->out);
    return c->plan ? bench_lib(spx_spmm(c->plan, k, 1.0, c->X, k, 0.0, c->out, k))
                   : c->peer->spmm(c->state, k, 1.0, c->X, k, 0.0, c->out, k);
}

void bench_dense_fill(double *out, int64_t n, spx_type t, uint64_t seed)
{
    uint64_t s = seed;
    for (int64_t e = 0; e < n; e++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(s >> 11) * 0x1p-52 - 1.0;
        out[e] = t == SPX_F64 ? u : (double)(float)u;
    }
}

spx_status bench_dense_reference_plan(const spx_matrix *A, spx_operation op, spx_plan **P)
{
    spx_plan_opts po = spx_plan_opts_default();
    po.format = "ref";
    spx_status st = spx_plan_create(A, op, &po, P);
    if (st != SPX_OK)
        bench_fail(st, "bench: no reference for %s (format ref, cpu, f64): %s",
                   op == SPX_OP_SDDMM ? "SDDMM" : "SpMM", spx_last_error());
    return st;
}

/* SDDMM plans reading X and Y in half (fp16 with xtype=half): the group's
 * operands (g->v.x_ref, X then Y) rounded to half where the device reads
 * them, in c->half; the check stays against the reference of the float
 * operands, within fp16's tolerance. */
static spx_status half_operands(const bench_dense_group *g, dense_case *c)
{
    const int64_t n = g->v.cols;
    float *f = NULL;
    uint16_t *h = NULL;
    spx_status st;
    BENCH_TRY(bench_alloc((void **)&f, (size_t)n, sizeof *f, "bench X and Y as float"));
    BENCH_TRY(bench_alloc((void **)&h, (size_t)n, sizeof *h, "bench X and Y in half"));
    for (int64_t e = 0; e < n; e++)
        f[e] = (float)g->v.x_ref[e];
    spx_float_to_half(f, h, n);
    if (g->v.device == SPX_DEV_CUDA) {
        BENCH_TRY(bench_cuda_alloc(&c->half, (size_t)n * sizeof *h, "bench X and Y in half"));
        BENCH_TRY(bench_cuda_copy(c->half, h, (size_t)n * sizeof *h, 1));
    } else {
        c->half = h;
        h = NULL;
    }
    c->X = c->half;
    c->Y = (const uint16_t *)c->half + g->y_offset;
cleanup:
    free(f);
    free(h);
    return st;
}

static spx_status prepare(const bench_dense_group *g, const spx_bench_opts *o, const char *format,
                          dense_case *c, spx_bench_record *r)
{
    const bench_group *v = &g->v;
    spx_status st;
    if (c->peer) {
        spx_bench_spmm_peer_opts po = {{v->precision, o->threads}, g->k, g->k, g->k};
        double t0 = spx_bench_now();
        st = c->peer->prepare(v->A, NULL, &po.base, &c->state);
        r->prep_ms = 1e3 * (spx_bench_now() - t0);
        if (st == SPX_OK) r->bytes = c->peer->bytes(c->state);
        return st;
    }
    spx_plan_opts po = spx_plan_opts_default();
    po.format = format;
    po.device = v->device;
    po.precision = v->precision;
    po.threads = o->threads;
    po.tune = o->tune;
    po.params = o->params;
    if ((st = bench_lib(spx_plan_create(v->A, g->op, &po, &c->plan))) != SPX_OK) return st;
    if (g->op == SPX_OP_SDDMM && spx_plan_x_type(c->plan) == SPX_F16)
        BENCH_TRY(half_operands(g, c));
    r->prep_ms = spx_plan_prep_ms(c->plan);
    r->bytes = spx_plan_bytes(c->plan);
    if (strcmp(format, "auto") == 0) r->chosen = spx_plan_format(c->plan);
cleanup:
    return st;
}

/* A peer's choice ("alg=..."), on a progress line of its own that stays. */
static void describe_peer(const spx_bench_opts *o, const dense_case *c, const spx_bench_record *r)
{
    char what[160];
    if (!o->progress || !c->peer->describe) return;
    c->peer->describe(c->state, what, sizeof what);
    if (o->progress_tty) fprintf(o->progress, "\r%60s\r", "");
    fprintf(o->progress, "bench: %s %s %s: %s\n", r->format, spx_bench_precision_name(r->precision),
            spx_bench_device_name(r->device), what);
}

/* The first product, timed alone on a NaN-filled output, and its error; a
 * peer that keeps its result in its own form hands it over after the clock. */
static spx_status first_product(const bench_group *v, dense_case *c, spx_bench_record *r)
{
    const size_t n = (size_t)v->rows, bytes = n * element_bytes(v->precision);
    const int on_device = v->device == SPX_DEV_CUDA;
    double seconds, worst = 0.0;
    spx_status st;
    for (size_t e = 0; e < n; e++) {
        if (v->precision == SPX_F64)
            ((double *)v->y_host)[e] = NAN;
        else
            ((float *)v->y_host)[e] = NAN;
    }
    if (on_device) BENCH_TRY(bench_cuda_copy(v->y, v->y_host, bytes, 1));
    BENCH_TRY(bench_time_once(dense_call, c, on_device, &seconds));
    if (on_device) BENCH_TRY(bench_cuda_copy(v->y_host, v->y, bytes, 0));
    if (c->peer && c->peer->sddmm_values) BENCH_TRY(c->peer->sddmm_values(c->state, v->y_host));
    for (size_t e = 0; e < n && !isnan(worst); e++) {
        double y = v->precision == SPX_F64 ? ((const double *)v->y_host)[e]
                                           : (double)((const float *)v->y_host)[e];
        double d = fabs(y - v->y_ref[e]);
        worst = isnan(d) || d > worst ? d : worst;
    }
    r->first_ms = 1e3 * seconds;
    r->max_rel_err = v->scale > 0.0 ? worst / v->scale : worst > 0.0 ? INFINITY : worst;
cleanup:
    return st;
}

/* One case into r: the SpX format `format`, or the peer. */
static void case_run(const bench_dense_group *g, const spx_bench_opts *o, const char *format,
                     const spx_bench_peer *peer, spx_bench_record *r)
{
    const size_t e = element_bytes(g->v.precision);
    dense_case c = {g->op, NULL, peer, NULL, g->k, g->v.x, NULL, g->v.y, NULL};
    bench_stats s;
    spx_status st;
    if (g->op == SPX_OP_SDDMM) c.Y = (const char *)g->v.x + (size_t)g->y_offset * e;
    memset(r, 0, sizeof *r);
    r->t.median_ms = r->t.min_ms = r->t.max_ms = r->t.q1_ms = r->t.q3_ms = NAN;
    r->first_ms = r->gflops = r->gbs = r->max_rel_err = r->breakeven = r->breakeven_peer = NAN;
    r->format = peer ? peer->name : format;
    r->device = g->v.device;
    r->precision = g->v.precision;
    r->nnz = g->v.nnz;
    bench_progress(o, r->format, r->precision, r->device, "prepare");
    BENCH_TRY(prepare(g, o, format, &c, r));
    if (peer) describe_peer(o, &c, r);
    bench_progress(o, r->format, r->precision, r->device, "check");
    BENCH_TRY(first_product(&g->v, &c, r));
    r->ok = r->max_rel_err <= spx_bench_tolerance(r->precision);
    bench_progress(o, r->format, r->precision, r->device, "time");
    BENCH_TRY(
        bench_time_calls(dense_call, &c, r->device == SPX_DEV_CUDA, o->calls, o->batches, &s));
    r->load1 = bench_load1();
    bench_stats_to_ms(&s, &r->t);
    r->gflops = 2.0 * (double)r->nnz * (double)g->k / s.median * 1e-9;
    if (g->model_bytes > 0.0) r->gbs = g->model_bytes / s.median * 1e-9;
cleanup:
    if (st != SPX_OK) {
        r->status = st;
        r->ok = 0;
        snprintf(r->error, sizeof r->error, "%s", spx_bench_last_error());
    }
    spx_plan_destroy(c.plan);
    if (c.state) peer->destroy(c.state);
    if (g->v.device == SPX_DEV_CUDA)
        bench_cuda_free(c.half);
    else
        free(c.half);
}

/* Every format, auto and peer of g's operation, device and precision. */
static int run_group(const bench_dense_group *g, const spx_bench_opts *o, spx_bench_record *r)
{
    const unsigned d = (unsigned)g->v.device, tbit = BENCH_TYPE_BIT(g->v.precision);
    const unsigned obit = 1u << (unsigned)g->op;
    int n = 0, served = 0;
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_info f;
        if (spx_format_get(i, &f) != SPX_OK || !(f.operations & obit) || !(f.devices & d) ||
            !(f.precisions & tbit))
            continue;
        served = 1;
        if (bench_selected(o, f.name)) case_run(g, o, f.name, NULL, &r[n++]);
    }
    if (served && (o->formats ? bench_selected(o, "auto") : !o->params))
        case_run(g, o, "auto", NULL, &r[n++]);
    for (int i = 0; o->peers && spx_bench_peers[i]; i++) {
        const spx_bench_peer *p = spx_bench_peers[i];
        if (p->operation == g->op && (p->devices & d) && (p->precisions & tbit) &&
            bench_selected(o, p->name))
            case_run(g, o, NULL, p, &r[n++]);
    }
    return n;
}

spx_status bench_dense_run_devices(bench_dense_group *g, const spx_bench_opts *o,
                                   spx_bench_record *r, int *count)
{
    spx_status st = SPX_OK;
    for (size_t j = 0; j < sizeof devices / sizeof devices[0]; j++) {
        if (!(o->devices & (unsigned)devices[j])) continue;
        g->v.device = devices[j];
        BENCH_TRY(bench_group_init(&g->v));
        *count += run_group(g, o, r + *count);
        bench_group_free(&g->v);
    }
cleanup:
    return st;
}

spx_status bench_dense_run(const spx_matrix *A, int64_t k, const char *what,
                           bench_dense_precision_fn run, const spx_bench_opts *o,
                           spx_bench_record **records, int *count)
{
    spx_status st = SPX_OK;
    *records = NULL;
    *count = 0;
    if (k < 1)
        return bench_fail(SPX_ERR_INVALID_ARG, "bench: %s needs k >= 1, not %lld", what,
                          (long long)k);
    BENCH_TRY(
        bench_calloc((void **)records, bench_record_capacity(), sizeof **records, "bench records"));
    for (size_t j = 0; j < sizeof precisions / sizeof precisions[0]; j++)
        if (o->precisions & BENCH_TYPE_BIT(precisions[j]))
            BENCH_TRY(run(A, k, precisions[j], o, *records, count));
    if (o->progress && o->progress_tty) fprintf(o->progress, "\r%60s\r", "");
cleanup:
    return st;
}
