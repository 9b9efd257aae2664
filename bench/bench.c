/* The SpMV bench driver: for each precision asked, one x and one reference;
 * for each device asked, the vectors on that device and one case per format
 * (csr always, as the baseline of breakeven) and per SpMV peer that has a
 * kernel for the device and precision; then each case's breakeven against
 * csr. Also the names the bench prints for precisions, devices and records. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"

static const spx_type precisions[] = {SPX_F64, SPX_F32, SPX_F16};
static const spx_device devices[] = {SPX_DEV_CPU, SPX_DEV_CUDA};

const char *spx_bench_precision_name(spx_type t)
{
    return t == SPX_F64 ? "f64" : t == SPX_F32 ? "f32" : "f16";
}

const char *spx_bench_device_name(spx_device d)
{
    return d == SPX_DEV_CUDA ? "cuda" : "cpu";
}

double spx_bench_tolerance(spx_type t)
{
    return t == SPX_F64 ? 1e-12 : t == SPX_F32 ? 1e-5 : 1e-2;
}

double spx_bench_model_bytes(int64_t m, int64_t n, int64_t nnz, spx_type t)
{
    double value = t == SPX_F64 ? 8.0 : t == SPX_F32 ? 4.0 : 2.0;
    double vector = t == SPX_F64 ? 8.0 : 4.0;
    return (value + 4.0) * (double)nnz + 4.0 * (double)(m + 1) + vector * (double)(n + m);
}

int bench_selected(const spx_bench_opts *o, const char *name)
{
    if (!o->formats) return 1;
    for (const char *const *f = o->formats; *f; f++)
        if (strcmp(*f, name) == 0) return 1;
    return 0;
}

size_t bench_record_capacity(void)
{
    size_t n = 1 + (size_t)spx_bench_peer_count(); /* auto, peers */
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_info f;
        if (spx_format_get(i, &f) != SPX_OK) continue;
        n++;
        for (const char *const *v = f.variants; v && *v; v++)
            n++;
    }
    return n * 2 * 3; /* devices, precisions */
}

static int runs_spmv(const spx_bench_peer *p, spx_device d, unsigned tbit)
{
    return p->operation == SPX_OP_SPMV && (p->devices & (unsigned)d) && (p->precisions & tbit);
}

/* Registered formats to run on g's device and precision, then the peers. */
static int run_group(const bench_group *g, const spx_bench_opts *o, spx_bench_record *r)
{
    int n = 0;
    unsigned tbit = BENCH_TYPE_BIT(g->precision);
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_info f;
        if (spx_format_get(i, &f) != SPX_OK || !(f.operations & (1u << SPX_OP_SPMV))) continue;
        if (!(f.devices & (unsigned)g->device) || !(f.precisions & tbit)) continue;
        if (!bench_selected(o, f.name) && strcmp(f.name, "csr") != 0) continue;
        bench_case(g, o, f.name, NULL, NULL, &r[n++]);
        for (const char *const *v = f.variants; v && *v && !o->params; v++)
            if (bench_selected(o, f.name)) bench_case(g, o, f.name, *v, NULL, &r[n++]);
    }
    if (o->formats ? bench_selected(o, "auto") : !o->params)
        bench_case(g, o, "auto", NULL, NULL, &r[n++]);
    for (int i = 0; o->peers && spx_bench_peers[i]; i++) {
        const spx_bench_peer *p = spx_bench_peers[i];
        if (runs_spmv(p, g->device, tbit) && bench_selected(o, p->name))
            bench_case(g, o, NULL, NULL, p, &r[n++]);
    }
    return n;
}

static int is_peer(const spx_bench_record *r)
{
    return strncmp(r->format, "peer-", 5) == 0;
}

/* Calls after which r's extra preparation is paid by its faster calls against
 * base: INFINITY when r is not faster. */
static double calls_to_pay(const spx_bench_record *r, const spx_bench_record *base)
{
    double gain = base->t.median_ms - r->t.median_ms;
    double extra = r->prep_ms - base->prep_ms;
    return gain <= 0.0 ? INFINITY : extra <= 0.0 ? 0.0 : ceil(extra / gain);
}

/* Each SpX record's break-even against the csr record of the same group and
 * against the group's fastest peer (what the user would otherwise call). */
static void breakeven(spx_bench_record *r, int n)
{
    const spx_bench_record *csr = NULL, *peer = NULL;
    for (int i = 0; i < n; i++) {
        if (r[i].status != SPX_OK) continue;
        if (strcmp(r[i].format, "csr") == 0 && !r[i].params) csr = &r[i];
        if (is_peer(&r[i]) && (!peer || r[i].t.median_ms < peer->t.median_ms)) peer = &r[i];
    }
    for (int i = 0; i < n; i++) {
        r[i].breakeven_peer = NAN;
        r[i].fastest_peer = NULL;
        if (r[i].status != SPX_OK) continue;
        if (csr && &r[i] != csr) r[i].breakeven = calls_to_pay(&r[i], csr);
        if (peer && !is_peer(&r[i])) {
            r[i].breakeven_peer = calls_to_pay(&r[i], peer);
            r[i].fastest_peer = peer->format;
        }
    }
}

/* Every device of one precision: x and the reference are shared. */
static spx_status run_precision(const spx_matrix *A, spx_type t, const spx_bench_opts *o,
                                spx_bench_record *r, int *count)
{
    bench_group g;
    double *x_ref = NULL, *y_ref = NULL;
    spx_status st;
    memset(&g, 0, sizeof g);
    BENCH_TRY(bench_reference(A, t, &x_ref, &y_ref, &g.scale));
    BENCH_TRY(bench_lib(spx_matrix_dims(A, &g.rows, &g.cols, &g.nnz)));
    g.A = A;
    g.precision = t;
    g.x_ref = x_ref;
    g.y_ref = y_ref;
    for (size_t k = 0; k < sizeof devices / sizeof devices[0]; k++) {
        if (!(o->devices & (unsigned)devices[k])) continue;
        g.device = devices[k];
        BENCH_TRY(bench_group_init(&g));
        int n = run_group(&g, o, r + *count);
        breakeven(r + *count, n);
        *count += n;
        bench_group_free(&g);
    }
cleanup:
    free(x_ref);
    free(y_ref);
    return st;
}

spx_status spx_bench_run(const spx_matrix *A, const spx_bench_opts *o, spx_bench_record **records,
                         int *count)
{
    size_t most = bench_record_capacity();
    spx_status st = bench_lib(spx_matrix_dims(A, NULL, NULL, NULL));
    *records = NULL;
    *count = 0;
    if (st != SPX_OK) return st;
    BENCH_TRY(bench_calloc((void **)records, most, sizeof **records, "bench records"));
    for (size_t k = 0; k < sizeof precisions / sizeof precisions[0]; k++)
        if (o->precisions & (1u << (unsigned)precisions[k]))
            BENCH_TRY(run_precision(A, precisions[k], o, *records, count));
    if (o->progress && o->progress_tty) fprintf(o->progress, "\r%60s\r", "");
cleanup:
    return st;
}
