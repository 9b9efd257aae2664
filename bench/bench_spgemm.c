/* The SpGEMM bench, C = A*B: every registered format computing SPX_OP_SPGEMM
 * (and its bench variants, and `auto` when some format serves the device and
 * precision) and, with --peers, every SpGEMM peer, on every device and
 * precision asked, in one process on the same A and B. Per case:
 *   prep_ms   plan creation (peers: A and B into their own form)
 *   first_ms  the first product on that plan, alone; its C is checked
 *             against the long-double reference (bench_spgemm_ref.c)
 *   run       batches of products on the prepared plan, each C freed in
 *             the batch (spx_spgemm_run + spx_matrix_destroy)
 *   whole     batches of whole products as a user calls one: plan, product,
 *             and the frees (spx_plan_create, spx_spgemm_run, destroys; peers:
 *             prepare, product, destroy)
 *   gflops    2 * intermediate products / median run time (gflops_whole:
 *             over the whole product)
 * Batches as in SpMV (bench_timing.c): >= 50 ms each, 10 of them.
 * SpX's C is a host matrix (spx_spgemm_run): for a CUDA format, B's upload
 * and C's download are in its times. The cuSPARSE peer's operands and C stay
 * on the device (peers/cusparse_spgemm.cu): its times have no transfers.
 * With opts.resident (spx bench --resident), CUDA f64 and f16 also run rows
 * `F[resident]` for auto and each format that takes device matrices: A and
 * B uploaded and wrapped (spx_matrix_wrap_device) before any timing, as the
 * peer holds them, so the plan is made from the device A and each product
 * leaves C on the device (a device matrix SpX owns), freed in the timed call
 * (spx_matrix_destroy: cudaFree) as the peer frees its last C in each
 * product; the first C is copied back for the check, outside the timing.
 * With opts.numeric (--numeric), each such row has a twin `F[numeric]`: the
 * plan and one spx_spgemm_run make C in prep_ms, first_ms is the first
 * spx_spgemm_numeric (the check of C's pattern), run times
 * spx_spgemm_numeric into that C, whole is plan, product, numeric and frees;
 * its peer is peer-cusparse-spgemm-reuse (cusparseSpGEMMreuse_compute).
 * On the CPU, --numeric adds the same row `F[numeric]` beside each format's
 * row, host operands (no peer has a numeric phase of its own). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_spgemm.h"

static const spx_type precisions[] = {SPX_F64, SPX_F32, SPX_F16};
static const spx_device devices[] = {SPX_DEV_CPU, SPX_DEV_CUDA};

/* What one case's calls need: an SpX format's options or a peer. */
typedef struct spgemm_case {
    const spx_matrix *A, *B;
    spx_plan_opts po;            /* SpX formats */
    spx_plan *plan;              /* the prepared plan of the run timing */
    const spx_bench_peer *peer;  /* or the peer */
    spx_bench_peer_opts peer_o;
    void *state;                 /* its prepared state */
    int resident;                /* A and B device matrices: C a device matrix */
    int numeric;                 /* resident, and each call spx_spgemm_numeric into C */
    spx_matrix *C;               /* numeric: the C made in prepare */
} spgemm_case;

/* C = A*B on the prepared plan or state, C freed (bench_call_fn). */
static spx_status run_call(void *ctx)
{
    spgemm_case *c = ctx;
    spx_matrix *C = NULL;
    if (c->peer) return c->peer->spgemm(c->state);
    if (c->numeric) return bench_lib(spx_spgemm_numeric(c->plan, c->B, c->C));
    spx_status st = bench_lib(spx_spgemm_run(c->plan, c->B, &C));
    spx_matrix_destroy(C);
    return st;
}

/* Plan, product and frees, as a user calls one product (bench_call_fn). */
static spx_status whole_call(void *ctx)
{
    spgemm_case *c = ctx;
    spx_status st;
    if (c->peer) {
        void *state = NULL;
        st = c->peer->prepare(c->A, c->B, &c->peer_o, &state);
        if (st == SPX_OK) st = c->peer->spgemm(state);
        if (state) c->peer->destroy(state);
        return st;
    }
    spx_plan *P = NULL;
    spx_matrix *C = NULL;
    st = spx_plan_create(c->A, SPX_OP_SPGEMM, &c->po, &P);
    if (st == SPX_OK) st = spx_spgemm_run(P, c->B, &C);
    if (st == SPX_OK && c->numeric) st = spx_spgemm_numeric(P, c->B, C);
    spx_matrix_destroy(C);
    spx_plan_destroy(P);
    return bench_lib(st);
}

static spx_status prepare(spgemm_case *c, spx_bench_spgemm_record *r)
{
    double t0 = spx_bench_now();
    spx_status st;
    if (c->peer) {
        st = c->peer->prepare(c->A, c->B, &c->peer_o, &c->state);
        r->prep_ms = 1e3 * (spx_bench_now() - t0);
        if (st == SPX_OK) r->bytes = c->peer->bytes(c->state);
        return st;
    }
    st = bench_lib(spx_plan_create(c->A, SPX_OP_SPGEMM, &c->po, &c->plan));
    if (st != SPX_OK) return st;
    if (c->numeric && (st = bench_lib(spx_spgemm_run(c->plan, c->B, &c->C))) != SPX_OK) return st;
    r->prep_ms = c->numeric ? 1e3 * (spx_bench_now() - t0) : spx_plan_prep_ms(c->plan);
    r->bytes = spx_plan_bytes(c->plan);
    if (strcmp(c->po.format, "auto") == 0) r->chosen = spx_plan_format(c->plan);
    return SPX_OK;
}

/* The first product, timed alone, then checked. */
static spx_status first_product(spgemm_case *c, const bench_spgemm_ref *ref,
                                spx_bench_spgemm_record *r)
{
    spx_matrix *C = NULL;
    spx_status st;
    double t0 = spx_bench_now();
    if (c->peer) {
        BENCH_TRY(c->peer->spgemm(c->state));
        r->first_ms = 1e3 * (spx_bench_now() - t0);
        BENCH_TRY(c->peer->result(c->state, &C));
        if (c->peer->describe) c->peer->describe(c->state, r->detail, sizeof r->detail);
    } else if (c->numeric) { /* the first call checks C's pattern */
        BENCH_TRY(bench_lib(spx_spgemm_numeric(c->plan, c->B, c->C)));
        r->first_ms = 1e3 * (spx_bench_now() - t0);
        if (c->resident)
            BENCH_TRY(bench_resident_to_host(c->C, &C));
        else
            BENCH_TRY(bench_lib(spx_matrix_copy(c->C, SPX_F64, &C))); /* c->C stays */
    } else {
        BENCH_TRY(bench_lib(spx_spgemm_run(c->plan, c->B, &C)));
        r->first_ms = 1e3 * (spx_bench_now() - t0);
        if (c->resident) { /* the check reads C on the host */
            spx_matrix *D = C;
            C = NULL;
            st = bench_resident_to_host(D, &C);
            spx_matrix_destroy(D);
            BENCH_TRY(st);
        }
    }
    BENCH_TRY(bench_spgemm_check(C, ref, &r->max_rel_err, &r->dropped, &r->nnz_c));
cleanup:
    spx_matrix_destroy(C);
    return st;
}

static void clear_record(spx_bench_spgemm_record *r, const bench_spgemm_ref *ref)
{
    spx_bench_spread none = {NAN, NAN, NAN, NAN, NAN, 0, 0};
    memset(r, 0, sizeof *r);
    r->run = r->whole = none;
    r->nnz_c = -1;
    r->products = ref->products;
    r->prep_ms = r->first_ms = r->gflops = r->gflops_whole = r->max_rel_err = NAN;
}

static void timed(spgemm_case *c, const spx_bench_opts *o, const bench_spgemm_ref *ref,
                  spx_bench_spgemm_record *r)
{
    bench_stats run, whole;
    char label[96];
    spx_status st;
    spx_bench_label(r->format, r->params, r->chosen, label, sizeof label);
    bench_progress(o, label, r->precision, r->device, "prepare");
    BENCH_TRY(prepare(c, r));
    bench_progress(o, label, r->precision, r->device, "check");
    BENCH_TRY(first_product(c, ref, r));
    r->ok = r->max_rel_err <= spx_bench_tolerance(r->precision);
    bench_progress(o, label, r->precision, r->device, "time");
    BENCH_TRY(bench_time_calls(run_call, c, 0, o->calls, o->batches, &run));
    BENCH_TRY(bench_time_calls(whole_call, c, 0, o->calls, o->batches, &whole));
    bench_stats_to_ms(&run, &r->run);
    bench_stats_to_ms(&whole, &r->whole);
    r->gflops = 2.0 * (double)ref->products / run.median * 1e-9;
    r->gflops_whole = 2.0 * (double)ref->products / whole.median * 1e-9;
    r->load1 = bench_load1();
cleanup:
    if (st != SPX_OK) {
        r->status = st;
        r->ok = 0;
        snprintf(r->error, sizeof r->error, "%s", spx_bench_last_error());
    }
    spx_matrix_destroy(c->C);
    spx_plan_destroy(c->plan);
    if (c->state) c->peer->destroy(c->state);
    c->C = NULL;
    c->plan = NULL;
    c->state = NULL;
}

/* How a case calls SpX: a host product, device operands (the run's
 * parameters; row label F[resident], or F[PARAMS,resident] with a set), or
 * spx_spgemm_numeric into one C (F[numeric]) with device or host operands. */
enum { CASE_HOST, CASE_RESIDENT, CASE_RESIDENT_NUMERIC, CASE_HOST_NUMERIC };

/* One case: the SpX format `format` (variant: its bench parameters, else the
 * run's), or the peer, called as `mode` says. */
static void spgemm_case_run(const spx_matrix *A, const spx_matrix *B, spx_device d, spx_type t,
                            const spx_bench_opts *o, const char *format, const char *variant,
                            const spx_bench_peer *peer, int mode, const bench_spgemm_ref *ref,
                            spx_bench_spgemm_record *r)
{
    spgemm_case c;
    memset(&c, 0, sizeof c);
    c.A = A;
    c.B = B;
    c.po = spx_plan_opts_default();
    c.po.format = format;
    c.po.device = d;
    c.po.precision = t;
    c.po.threads = o->threads;
    c.po.tune = o->tune;
    c.po.params = variant ? variant : o->params;
    c.peer = peer;
    c.peer_o.precision = t;
    c.peer_o.threads = o->threads;
    c.resident = mode == CASE_RESIDENT || mode == CASE_RESIDENT_NUMERIC;
    c.numeric = mode == CASE_RESIDENT_NUMERIC || mode == CASE_HOST_NUMERIC;
    clear_record(r, ref);
    r->format = peer ? peer->name : format;
    r->params = c.numeric ? "numeric" : c.resident ? "resident" : variant;
    if (mode != CASE_HOST && o->params && *o->params) {
        snprintf(r->label, sizeof r->label, "%s,%s", o->params, r->params);
        r->params = r->label;
    }
    r->device = d;
    r->precision = t;
    spx_matrix_dims(A, NULL, NULL, &r->nnz_a);
    spx_matrix_dims(B, NULL, NULL, &r->nnz_b);
    timed(&c, o, ref, r);
}

static int spgemm_format(const spx_format_info *f, spx_device d, spx_type t)
{
    return (f->operations & (1u << SPX_OP_SPGEMM)) && (f->devices & (unsigned)d) &&
           (f->precisions & BENCH_TYPE_BIT(t));
}

/* 1 when the CUDA f64 format takes the device matrix A (its plan is made). */
static int takes_device(const spx_matrix *A, const char *format, spx_type t,
                        const spx_bench_opts *o)
{
    spx_plan_opts po = spx_plan_opts_default();
    spx_plan *P = NULL;
    po.format = format;
    po.device = SPX_DEV_CUDA;
    po.precision = t;
    po.params = o->params;
    const int ok = spx_plan_create(A, SPX_OP_SPGEMM, &po, &P) == SPX_OK;
    spx_plan_destroy(P);
    return ok;
}

/* --resident: A and B on the device, then auto and every selected CUDA
 * format of precision t (f64, f16) that takes them (an upload that fails:
 * one row saying so). */
static int run_resident(const spx_matrix *A, const spx_matrix *B, spx_type t,
                        const spx_bench_opts *o, const bench_spgemm_ref *ref,
                        spx_bench_spgemm_record *r)
{
    bench_resident a = {0}, b = {0};
    int n = 0;
    spx_status st = bench_resident_upload(A, &a);
    if (st == SPX_OK && B != A) st = bench_resident_upload(B, &b);
    if (st != SPX_OK) {
        clear_record(r, ref);
        r->format = "auto";
        r->params = "resident";
        r->device = SPX_DEV_CUDA;
        r->precision = t;
        r->status = st;
        snprintf(r->error, sizeof r->error, "%s", spx_bench_last_error());
        n = 1;
    }
    const spx_matrix *dB = B != A ? b.M : a.M;
    for (int i = 0; st == SPX_OK && i < spx_format_count(); i++) {
        spx_format_info f;
        if (spx_format_get(i, &f) != SPX_OK || !spgemm_format(&f, SPX_DEV_CUDA, t) ||
            !bench_selected(o, f.name) || !takes_device(a.M, f.name, t, o))
            continue;
        for (int mode = CASE_RESIDENT; mode <= (o->numeric ? CASE_RESIDENT_NUMERIC : CASE_RESIDENT);
             mode++)
            spgemm_case_run(a.M, dB, SPX_DEV_CUDA, t, o, f.name, NULL, NULL, mode, ref, &r[n++]);
    }
    for (int mode = CASE_RESIDENT; mode <= (o->numeric ? CASE_RESIDENT_NUMERIC : CASE_RESIDENT);
         mode++)
        if (st == SPX_OK && (o->formats ? bench_selected(o, "auto") : !o->params))
            spgemm_case_run(a.M, dB, SPX_DEV_CUDA, t, o, "auto", NULL, NULL, mode, ref, &r[n++]);
    bench_resident_free(&a);
    bench_resident_free(&b);
    return n;
}

/* Every SpGEMM format, auto and peer for device d and precision t. */
static int run_group(const spx_matrix *A, const spx_matrix *B, spx_device d, spx_type t,
                     const spx_bench_opts *o, const bench_spgemm_ref *ref,
                     spx_bench_spgemm_record *r)
{
    int n = 0, served = 0;
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_info f;
        if (spx_format_get(i, &f) != SPX_OK || !spgemm_format(&f, d, t)) continue;
        served = 1;
        if (!bench_selected(o, f.name) || o->resident == 2) continue;
        spgemm_case_run(A, B, d, t, o, f.name, NULL, NULL, CASE_HOST, ref, &r[n++]);
        if (o->numeric && d == SPX_DEV_CPU)
            spgemm_case_run(A, B, d, t, o, f.name, NULL, NULL, CASE_HOST_NUMERIC, ref, &r[n++]);
        for (const char *const *v = f.variants; v && *v && !o->params; v++)
            spgemm_case_run(A, B, d, t, o, f.name, *v, NULL, CASE_HOST, ref, &r[n++]);
    }
    if (served && o->resident != 2 && (o->formats ? bench_selected(o, "auto") : !o->params))
        spgemm_case_run(A, B, d, t, o, "auto", NULL, NULL, CASE_HOST, ref, &r[n++]);
    if (served && o->resident && d == SPX_DEV_CUDA && (t == SPX_F64 || t == SPX_F16))
        n += run_resident(A, B, t, o, ref, r + n);
    for (int i = 0; o->peers && spx_bench_peers[i]; i++) {
        const spx_bench_peer *p = spx_bench_peers[i];
        if (p->operation == SPX_OP_SPGEMM && (p->devices & (unsigned)d) &&
            (p->precisions & BENCH_TYPE_BIT(t)) && bench_selected(o, p->name))
            spgemm_case_run(A, B, d, t, o, NULL, NULL, p, CASE_HOST, ref, &r[n++]);
    }
    return n;
}

spx_status spx_bench_spgemm_run(const spx_matrix *A, const spx_matrix *B, const spx_bench_opts *o,
                                spx_bench_spgemm_record **records, int *count)
{
    bench_spgemm_ref ref;
    spx_status st;
    *records = NULL;
    *count = 0;
    memset(&ref, 0, sizeof ref);
    if (!B) B = A;
    if (o->progress) fprintf(o->progress, "bench: reference product ...\n");
    BENCH_TRY(bench_spgemm_reference(A, B, &ref));
    /* resident: f64 and f16, twice with numeric rows; numeric rows on the CPU */
    size_t most = bench_record_capacity() + 7 * ((size_t)spx_format_count() + 1);
    BENCH_TRY(bench_calloc((void **)records, most, sizeof **records, "bench records"));
    for (size_t k = 0; k < sizeof precisions / sizeof precisions[0]; k++)
        for (size_t j = 0; j < sizeof devices / sizeof devices[0]; j++)
            if ((o->precisions & BENCH_TYPE_BIT(precisions[k])) &&
                (o->devices & (unsigned)devices[j]))
                *count += run_group(A, B, devices[j], precisions[k], o, &ref, *records + *count);
    if (o->progress && o->progress_tty) fprintf(o->progress, "\r%60s\r", "");
cleanup:
    bench_spgemm_ref_free(&ref);
    return st;
}
