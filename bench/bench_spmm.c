/* The SpMM bench driver (bench_spmm.h): for each precision asked, one X
 * (cols x k, row-major, leading dimension k) and its reference Y_ref = A*X
 * by `ref` on the CPU in fp64; for each device asked, X and Y where the
 * device reads them, then one case per SpMM format, `auto` and SpMM peer.
 * X and Y ride in the SpMV bench's group (bench_group) as vectors of cols*k
 * and rows*k entries: the same conversion to float and the same device
 * buffers. X(j, c) is uniform in [-1, 1) from a 64-bit LCG with a fixed
 * seed (its top 53 bits), rounded to the precision's element type, so every
 * format, peer and the reference multiply the same numbers. Formats' bench
 * variants are SpMV parameter sets and do not run here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cuda.h"
#include "bench_internal.h"
#include "bench_spmm.h"

#define SPMM_SEED 0x5350582d73706d6dull

static const spx_type precisions[] = {SPX_F64, SPX_F32, SPX_F16};
static const spx_device devices[] = {SPX_DEV_CPU, SPX_DEV_CUDA};

/* One device and precision: v holds X and Y as vectors (v.rows = rows*k,
 * v.cols = cols*k), the reference and its scale. */
typedef struct spmm_group {
    bench_group v;
    int64_t k;
} spmm_group;

/* The thing measured: an SpX plan or a peer's state, on the group's X and Y. */
typedef struct spmm_case {
    spx_plan *plan;
    const spx_bench_peer *peer;
    void *state;
    int64_t k;
    const void *X;
    void *Y;
} spmm_case;

/* Y = A*X, alpha 1, beta 0 (bench_call_fn). */
static spx_status spmm_call(void *ctx)
{
    const spmm_case *c = ctx;
    if (c->plan) return bench_lib(spx_spmm(c->plan, c->k, 1.0, c->X, c->k, 0.0, c->Y, c->k));
    return c->peer->spmm(c->state, c->k, 1.0, c->X, c->k, 0.0, c->Y, c->k);
}

/* X: n = cols*k entries (see the header); free with free(). */
static spx_status make_x(int64_t n, spx_type t, double **X)
{
    uint64_t s = SPMM_SEED;
    spx_status st = bench_alloc((void **)X, (size_t)n, sizeof **X, "bench X");
    for (int64_t e = 0; st == SPX_OK && e < n; e++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(s >> 11) * 0x1p-52 - 1.0;
        (*X)[e] = t == SPX_F64 ? u : (double)(float)u;
    }
    return st;
}

/* Y_ref = A*X by `ref` (cpu, f64); its absence (SPX_ERR_NO_FORMAT) is said
 * as such, since nothing can be checked without it. */
static spx_status reference(const spx_matrix *A, int64_t k, const double *X, double *Y)
{
    spx_plan_opts po = spx_plan_opts_default();
    spx_plan *P = NULL;
    po.format = "ref";
    spx_status st = spx_plan_create(A, SPX_OP_SPMM, &po, &P);
    if (st == SPX_OK) st = spx_spmm(P, k, 1.0, X, k, 0.0, Y, k);
    spx_plan_destroy(P);
    if (st != SPX_OK)
        bench_fail(st, "bench: no reference for SpMM (format ref, cpu, f64): %s", spx_last_error());
    return st;
}

/* max over i and c of sum_j |a_ij| |X(j, c)|, the denominator of max_rel_err. */
static spx_status abs_product_max(const spx_matrix *A, int64_t k, const double *X, double *scale)
{
    bench_csr v;
    double *row = NULL;
    spx_status st;
    *scale = 0.0;
    BENCH_TRY(bench_csr_view(A, &v));
    BENCH_TRY(bench_alloc((void **)&row, (size_t)k, sizeof *row, "bench |A||X| row"));
    for (int64_t i = 0; i < v.rows; i++) {
        memset(row, 0, (size_t)k * sizeof *row);
        for (int64_t e = v.rowptr[i]; e < v.rowptr[i + 1]; e++) {
            const double a = fabs(bench_val(&v, e));
            const double *x = X + bench_col(&v, e) * k;
            for (int64_t c = 0; c < k; c++)
                row[c] += a * fabs(x[c]);
        }
        for (int64_t c = 0; c < k; c++)
            *scale = row[c] > *scale ? row[c] : *scale;
    }
cleanup:
    free(row);
    return st;
}

static size_t element_bytes(spx_type t)
{
    return t == SPX_F64 ? sizeof(double) : sizeof(float);
}

static spx_status prepare(const spmm_group *g, const spx_bench_opts *o, const char *format,
                          spmm_case *c, spx_bench_record *r)
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
    if ((st = bench_lib(spx_plan_create(v->A, SPX_OP_SPMM, &po, &c->plan))) != SPX_OK) return st;
    r->prep_ms = spx_plan_prep_ms(c->plan);
    r->bytes = spx_plan_bytes(c->plan);
    if (strcmp(format, "auto") == 0) r->chosen = spx_plan_format(c->plan);
    return SPX_OK;
}

/* A peer's choice ("alg=..."), on a progress line of its own that stays. */
static void describe_peer(const spx_bench_opts *o, const spmm_case *c, const spx_bench_record *r)
{
    char what[160];
    if (!o->progress || !c->peer->describe) return;
    c->peer->describe(c->state, what, sizeof what);
    if (o->progress_tty) fprintf(o->progress, "\r%60s\r", "");
    fprintf(o->progress, "bench: %s %s %s: %s\n", r->format, spx_bench_precision_name(r->precision),
            spx_bench_device_name(r->device), what);
}

/* The first product, timed alone on NaN-filled Y, and its error. */
static spx_status first_product(const spmm_group *g, spmm_case *c, spx_bench_record *r)
{
    const bench_group *v = &g->v;
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
    BENCH_TRY(bench_time_once(spmm_call, c, on_device, &seconds));
    if (on_device) BENCH_TRY(bench_cuda_copy(v->y_host, v->y, bytes, 0));
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
static void spmm_case_run(const spmm_group *g, const spx_bench_opts *o, const char *format,
                          const spx_bench_peer *peer, spx_bench_record *r)
{
    spmm_case c = {NULL, peer, NULL, g->k, g->v.x, g->v.y};
    bench_stats s;
    spx_status st;
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
    BENCH_TRY(first_product(g, &c, r));
    r->ok = r->max_rel_err <= spx_bench_tolerance(r->precision);
    bench_progress(o, r->format, r->precision, r->device, "time");
    BENCH_TRY(bench_time_calls(spmm_call, &c, r->device == SPX_DEV_CUDA, o->calls, o->batches, &s));
    r->load1 = bench_load1();
    bench_stats_to_ms(&s, &r->t);
    r->gflops = 2.0 * (double)r->nnz * (double)g->k / s.median * 1e-9;
cleanup:
    if (st != SPX_OK) {
        r->status = st;
        r->ok = 0;
        snprintf(r->error, sizeof r->error, "%s", spx_bench_last_error());
    }
    spx_plan_destroy(c.plan);
    if (c.state) peer->destroy(c.state);
}

/* Every SpMM format, auto and peer of g's device and precision. */
static int run_group(const spmm_group *g, const spx_bench_opts *o, spx_bench_record *r)
{
    const unsigned d = (unsigned)g->v.device, tbit = BENCH_TYPE_BIT(g->v.precision);
    int n = 0, served = 0;
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_info f;
        if (spx_format_get(i, &f) != SPX_OK || !(f.operations & (1u << SPX_OP_SPMM)) ||
            !(f.devices & d) || !(f.precisions & tbit))
            continue;
        served = 1;
        if (bench_selected(o, f.name)) spmm_case_run(g, o, f.name, NULL, &r[n++]);
    }
    if (served && (o->formats ? bench_selected(o, "auto") : !o->params))
        spmm_case_run(g, o, "auto", NULL, &r[n++]);
    for (int i = 0; o->peers && spx_bench_peers[i]; i++) {
        const spx_bench_peer *p = spx_bench_peers[i];
        if (p->operation == SPX_OP_SPMM && (p->devices & d) && (p->precisions & tbit) &&
            bench_selected(o, p->name))
            spmm_case_run(g, o, NULL, p, &r[n++]);
    }
    return n;
}

/* Every device of precision t: X and the reference are shared. */
static spx_status run_precision(const spx_matrix *A, int64_t k, spx_type t, const spx_bench_opts *o,
                                spx_bench_record *r, int *count)
{
    spmm_group g;
    int64_t rows, cols;
    double *X = NULL, *Y = NULL;
    spx_status st;
    memset(&g, 0, sizeof g);
    BENCH_TRY(bench_lib(spx_matrix_dims(A, &rows, &cols, &g.v.nnz)));
    if (rows > INT64_MAX / k || cols > INT64_MAX / k)
        BENCH_TRY(bench_fail(SPX_ERR_OVERFLOW, "bench: X or Y of %lld x %lld entries overflows",
                             (long long)(rows > cols ? rows : cols), (long long)k));
    if (o->progress)
        fprintf(o->progress, "bench: SpMM reference (ref, k = %lld) ...\n", (long long)k);
    BENCH_TRY(make_x(cols * k, t, &X));
    BENCH_TRY(bench_alloc((void **)&Y, (size_t)(rows * k), sizeof *Y, "bench reference Y"));
    BENCH_TRY(reference(A, k, X, Y));
    BENCH_TRY(abs_product_max(A, k, X, &g.v.scale));
    g.k = k;
    g.v.A = A;
    g.v.precision = t;
    g.v.rows = rows * k;
    g.v.cols = cols * k;
    g.v.x_ref = X;
    g.v.y_ref = Y;
    for (size_t j = 0; j < sizeof devices / sizeof devices[0]; j++) {
        if (!(o->devices & (unsigned)devices[j])) continue;
        g.v.device = devices[j];
        BENCH_TRY(bench_group_init(&g.v));
        *count += run_group(&g, o, r + *count);
        bench_group_free(&g.v);
    }
cleanup:
    free(X);
    free(Y);
    return st;
}

spx_status spx_bench_spmm_run(const spx_matrix *A, int64_t k, const spx_bench_opts *o,
                              spx_bench_record **records, int *count)
{
    spx_status st = SPX_OK;
    *records = NULL;
    *count = 0;
    if (k < 1)
        return bench_fail(SPX_ERR_INVALID_ARG, "bench: SpMM needs k >= 1, not %lld", (long long)k);
    BENCH_TRY(
        bench_calloc((void **)records, bench_record_capacity(), sizeof **records, "bench records"));
    for (size_t j = 0; j < sizeof precisions / sizeof precisions[0]; j++)
        if (o->precisions & BENCH_TYPE_BIT(precisions[j]))
            BENCH_TRY(run_precision(A, k, precisions[j], o, *records, count));
    if (o->progress && o->progress_tty) fprintf(o->progress, "\r%60s\r", "");
cleanup:
    return st;
}
