/* The bench driver: for each precision asked, one x and one reference; for
 * each device asked, the vectors on that device and one case per format (csr
 * always, as the baseline of breakeven) and per peer that has a kernel for
 * the device and precision; then each case's breakeven against csr. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "peers.h"

static const spx_type precisions[] = {SPX_F64, SPX_F32, SPX_F16};
static const spx_device devices[] = {SPX_DEV_CPU, SPX_DEV_CUDA};

double spx_bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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

static int selected(const spx_bench_opts *o, const char *name)
{
    if (!o->formats) return 1;
    for (const char *const *f = o->formats; *f; f++)
        if (strcmp(*f, name) == 0) return 1;
    return 0;
}

static int peer_count(void)
{
    int n = 0;
    while (spx_bench_peers[n])
        n++;
    return n;
}

/* Registered formats plus their bench variants: the rows one group can have. */
static int format_rows(void)
{
    int n = 0;
    for (int i = 0; spx__formats[i]; i++) {
        n++;
        for (const char *const *v = spx__formats[i]->bench_variants; v && *v; v++)
            n++;
    }
    return n;
}

/* Registered formats to run on g's device and precision, then the peers. */
static int run_group(const spx__bench_group *g, const spx_bench_opts *o, spx_bench_record *r)
{
    int n = 0;
    unsigned tbit = 1u << (unsigned)g->precision;
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_info f;
        if (spx_format_get(i, &f) != SPX_OK || !(f.operations & (1u << SPX_OP_SPMV))) continue;
        if (!(f.devices & (unsigned)g->device) || !(f.precisions & tbit)) continue;
        const char *name = f.name;
        if (!selected(o, name) && strcmp(name, "csr") != 0) continue;
        spx__bench_case(g, o, name, NULL, NULL, &r[n++]);
        for (const char *const *v = f.variants; v && *v && !o->params; v++)
            if (selected(o, name)) spx__bench_case(g, o, name, *v, NULL, &r[n++]);
    }
    if (o->formats ? selected(o, "auto") : !o->params)
        spx__bench_case(g, o, "auto", NULL, NULL, &r[n++]);
    for (int i = 0; o->peers && spx_bench_peers[i]; i++) {
        const spx_format_ops *p = spx_bench_peers[i];
        if ((p->devices & (unsigned)g->device) && (p->precisions & tbit) && selected(o, p->name))
            spx__bench_case(g, o, NULL, NULL, p, &r[n++]);
    }
    return n;
}

static int is_peer(const spx_bench_record *r) { return strncmp(r->format, "peer-", 5) == 0; }

/* Calls after which r's extra preparation is paid by its faster calls against
 * base: INFINITY when r is not faster. */
static double calls_to_pay(const spx_bench_record *r, const spx_bench_record *base)
{
    double gain = base->median_ms - r->median_ms;
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
        if (is_peer(&r[i]) && (!peer || r[i].median_ms < peer->median_ms)) peer = &r[i];
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
    spx__bench_group g;
    double *x_ref = NULL, *y_ref = NULL;
    spx_status st;
    memset(&g, 0, sizeof g);
    SPX_TRY(spx__bench_reference(A, t, &x_ref, &y_ref, &g.scale));
    g.A = A;
    g.precision = t;
    g.rows = A->rows;
    g.cols = A->cols;
    g.nnz = A->nnz;
    g.x_ref = x_ref;
    g.y_ref = y_ref;
    for (size_t k = 0; k < sizeof devices / sizeof devices[0]; k++) {
        if (!(o->devices & (unsigned)devices[k])) continue;
        g.device = devices[k];
        SPX_TRY(spx__bench_group_init(&g));
        int n = run_group(&g, o, r + *count);
        breakeven(r + *count, n);
        *count += n;
        spx__bench_group_free(&g);
    }
cleanup:
    spx__free(x_ref);
    spx__free(y_ref);
    return st;
}

spx_status spx_bench_run(const spx_matrix *A, const spx_bench_opts *o, spx_bench_record **records,
                         int *count)
{
    size_t most = (size_t)(format_rows() + 1 + peer_count()) * 2 * 3; /* + auto */
    spx_status st = spx__check_matrix(A);
    *records = NULL;
    *count = 0;
    if (st != SPX_OK) return st;
    SPX_TRY(spx__calloc((void **)records, most, sizeof **records, "bench records"));
    for (size_t k = 0; k < sizeof precisions / sizeof precisions[0]; k++)
        if (o->precisions & (1u << (unsigned)precisions[k]))
            SPX_TRY(run_precision(A, precisions[k], o, *records, count));
    if (o->progress && o->progress_tty) fprintf(o->progress, "\r%60s\r", "");
cleanup:
    return st;
}
