/* spx bench M --multi N: the multi-device executor (spx_multi_*) in one
 * process, for pcsr, pcsc, pcoo and the equal-rows baseline.
 * Host vectors: against the whole matrix as one part on one device with the
 * same options (a 1-part plan: the same host-vector path). Per kind:
 * partition (with the kind's conversion) and prepare once, and the last
 * call's distribute, SpMV and merge; call time median [min-max] over
 * batches; speedup = 1-part call / N-part call.
 * Resident vectors (square matrices): the same N-part plans with x and y on
 * the parts' devices, against the same kind as one part on one device,
 * both plans alive and their batches timed in turn (so that a drift of the
 * clocks weighs on both alike): halo, SpMV and merge times (calls queued part by part, the
 * phases apart), the call as run (replayed as one CUDA graph on GPUs), SpMV
 * and call speedups, merge as a share of SpMV; each y is checked against the
 * host path's.
 * GPU parts all go to GPU 0 (a stream each; the one-GPU setting), or with
 * --spread round robin over every GPU (part i on GPU i mod count: strong
 * scaling on a host of several GPUs); CPU parts get a thread each.
 * --no-graph: resident calls on GPUs queue their parts every call instead
 * of replaying a CUDA graph (spx_multi_opts.no_graph).
 * --overlap on|off|auto: row parts on several GPUs multiply their own
 * columns while their halo arrives (spx_multi_opts.overlap: 1, -1, 0, the
 * default: where the halo is large); resident spmv_ms of an overlapped
 * part runs from the call's start, the halo inside, else it is the SpMV
 * alone.
 * --kind K: that partition kind only (pcsr, pcsc, pcoo or rows). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_mpi.h"

static const char cmd[] = "bench --multi";

typedef struct multi_args {
    const char *matrix, *format;
    spx_device device;
    long parts, calls, batches;
    int spread; /* GPU parts round robin over the GPUs, not all on GPU 0 */
    int no_graph;
    int overlap;
    int kind; /* -1: every kind, else the spx_partition asked */
} multi_args;

int cli_multi_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--multi") == 0) return 1;
    return 0;
}

static int parse(int argc, char **argv, multi_args *a)
{
    int rc = CLI_PARSED;
    a->matrix = NULL;
    a->format = "auto";
    a->device = SPX_DEV_CPU;
    a->parts = 0;
    a->calls = 20;
    a->batches = 7;
    a->spread = 0;
    a->no_graph = 0;
    a->overlap = 0;
    a->kind = -1;
    for (int i = 1; i < argc && rc == CLI_PARSED; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--spread") == 0) {
            a->spread = 1;
        } else if (strcmp(argv[i], "--no-graph") == 0) {
            a->no_graph = 1;
        } else if (argv[i][0] != '-') {
            if (a->matrix) return cli_usage_error(cmd, "one matrix only ('%s')", argv[i]);
            a->matrix = argv[i];
        } else if (!v) {
            return cli_usage_error(cmd, "%s needs a value", argv[i]);
        } else if (strcmp(argv[i], "--multi") == 0) {
            rc = cli_parse_int(cmd, "--multi", argv[++i], 1, SPX_MULTI_MAX_PARTS, &a->parts);
        } else if (strcmp(argv[i], "--calls") == 0) {
            rc = cli_parse_int(cmd, "--calls", argv[++i], 1, 1000000, &a->calls);
        } else if (strcmp(argv[i], "--batches") == 0) {
            rc = cli_parse_int(cmd, "--batches", argv[++i], 1, 64, &a->batches);
        } else if (strcmp(argv[i], "--device") == 0) {
            rc = cli_parse_device(cmd, argv[++i], &a->device);
        } else if (strcmp(argv[i], "--format") == 0) {
            a->format = argv[++i];
        } else if (strcmp(argv[i], "--overlap") == 0) {
            const char *w = argv[++i];
            a->overlap = strcmp(w, "on") == 0 ? 1 : strcmp(w, "off") == 0 ? -1 : 0;
            if (!a->overlap && strcmp(w, "auto") != 0)
                return cli_usage_error(cmd, "--overlap %s: on, off or auto", w);
        } else if (strcmp(argv[i], "--kind") == 0) {
            spx_partition k;
            if (spx_partition_parse(argv[++i], &k) != SPX_OK)
                return cli_usage_error(cmd, "--kind %s: pcsr, pcsc, pcoo or rows", argv[i]);
            a->kind = (int)k;
        } else {
            return cli_usage_error(
                cmd,
                "unknown option %s (usage: spx bench M --multi N "
                "[--device cpu|cuda] [--spread] [--no-graph] [--overlap on|off|auto] "
                "[--kind K] [--format F] "
                "[--calls C] [--batches K])",
                argv[i]);
        }
    }
    if (rc == CLI_PARSED && !a->matrix) rc = cli_usage_error(cmd, "no matrix given");
    return rc;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int by_value(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

typedef struct run {
    spx_multi_timing t;   /* the phases (resident vectors: of queued calls) */
    double med, lo, hi;   /* a call, as run (resident: replayed as a graph unless --no-graph) */
    double queued;        /* resident: the median call queued part by part */
    const char *format;
    int overlapped; /* parts that overlap their halo with their SpMV */
    int bad;        /* resident: y disagreed with the host path's */
} run;

/* y = A x, host vectors or (vx set) resident ones. */
static spx_status one_call(spx_multi_plan *P, const double *x, double *y, spx_multi_vector *vx,
                           spx_multi_vector *vy)
{
    return vx ? spx_multi_spmv_resident(P, 1.0, vx, 0.0, vy) : spx_multi_spmv(P, 1.0, x, 0.0, y);
}

/* The median [min-max] of a run's batch times t[0..n). */
static void note_batches(double *t, long n, run *r)
{
    qsort(t, (size_t)n, sizeof *t, by_value);
    r->med = t[n / 2];
    r->lo = t[0];
    r->hi = t[n - 1];
}

/* Phase times and part 0's format, after a run's calls. */
static void note_plan(spx_multi_plan *P, run *r)
{
    spx_multi_part_info in;
    spx_multi_times(P, &r->t);
    r->overlapped = 0;
    for (int i = spx_multi_plan_parts(P) - 1; i >= 0; i--)
        if (spx_multi_plan_part(P, i, &in) == SPX_OK) r->overlapped += in.overlapped;
    r->format = in.format;
}

/* One batch: the mean of `calls` calls, in ms. */
static spx_status time_batch(spx_multi_plan *P, const multi_args *a, const double *x, double *y,
                             spx_multi_vector *vx, spx_multi_vector *vy, double *ms)
{
    spx_status st = SPX_OK;
    double t0 = now_ms();
    for (long i = 0; st == SPX_OK && i < a->calls; i++)
        st = one_call(P, x, y, vx, vy);
    *ms = (now_ms() - t0) / (double)a->calls;
    return st;
}

/* Host vectors: warm-up, then per batch the mean of `calls` calls. */
static spx_status time_calls(spx_multi_plan *P, const multi_args *a, const double *x, double *y,
                             run *r)
{
    double t[64], warm;
    spx_status st = time_batch(P, a, x, y, NULL, NULL, &warm);
    for (long b = 0; st == SPX_OK && b < a->batches; b++)
        st = time_batch(P, a, x, y, NULL, NULL, &t[b]);
    if (st != SPX_OK) return st;
    note_batches(t, a->batches, r);
    note_plan(P, r);
    return SPX_OK;
}

/* The resident y against the host path's y (the same sums but a shared
 * row's, in the vectors' type): max |y_res - y_host| / max |y_host| <= 1e-12;
 * r->bad set otherwise. */
static spx_status check_resident(const spx_multi_vector *vy, int64_t n, const double *y_host,
                                 double *y, run *r, const char *how)
{
    spx_status st = spx_multi_vector_get(vy, y);
    double diff = 0.0, big = 0.0;
    for (int64_t i = 0; st == SPX_OK && i < n; i++) {
        double d = fabs(y[i] - y_host[i]);
        diff = d > diff || d != d ? d : diff;
        big = fabs(y_host[i]) > big ? fabs(y_host[i]) : big;
    }
    if (st == SPX_OK && !(diff <= 1e-12 * big)) {
        fprintf(stderr, "spx %s: resident y (%s) differs from the host path's by %g (max |y| %g)\n",
                cmd, how, diff, big);
        r->bad = 1;
    }
    return st;
}

/* A plan with resident x (set to x) and y. */
typedef struct resident {
    spx_multi_plan *P;
    spx_multi_vector *x, *y;
} resident;

static spx_status resident_open(spx_multi_plan *P, const double *x, resident *v)
{
    v->P = P;
    v->x = v->y = NULL;
    spx_status st = spx_multi_vector_create(P, &v->x);
    if (st == SPX_OK) st = spx_multi_vector_create(P, &v->y);
    return st == SPX_OK ? spx_multi_vector_set(v->x, x) : st;
}

static void resident_close(resident *v)
{
    spx_multi_vector_destroy(v->x);
    spx_multi_vector_destroy(v->y);
}

/* Resident calls of v[0] (N parts) and v[1] (one part), each warmed up,
 * then their batches in turn (N parts, one part, N parts, ...), so that a
 * drift of the clocks or the temperature during the run weighs on both
 * alike; y checked after. */
static spx_status time_pair(const multi_args *a, resident v[2], int64_t n, const double *y_host,
                            double *y, run r[2], const char *how)
{
    double t[2][64], warm;
    spx_status st = SPX_OK;
    for (int j = 0; j < 2 && st == SPX_OK; j++)
        st = time_batch(v[j].P, a, NULL, NULL, v[j].x, v[j].y, &warm);
    for (long b = 0; st == SPX_OK && b < a->batches; b++)
        for (int j = 0; j < 2 && st == SPX_OK; j++)
            st = time_batch(v[j].P, a, NULL, NULL, v[j].x, v[j].y, &t[j][b]);
    for (int j = 0; j < 2 && st == SPX_OK; j++) {
        note_batches(t[j], a->batches, &r[j]);
        note_plan(v[j].P, &r[j]);
        st = check_resident(v[j].y, n, y_host, y, &r[j], how);
    }
    return st;
}

/* Resident vectors on P (N parts) and P1 (the same kind, one part), timed
 * in turn: as run (replayed as a graph unless --no-graph), then queued part
 * by part for the phase times; r[0] is P's, r[1] P1's. */
static spx_status time_resident(spx_multi_plan *P, spx_multi_plan *P1, const multi_args *a,
                                int64_t n, const double *x, const double *y_host, run r[2])
{
    resident v[2] = {{NULL, NULL, NULL}, {NULL, NULL, NULL}};
    double *y = malloc(sizeof *y * (size_t)(n + 1));
    run q[2];
    r[0].bad = r[1].bad = q[0].bad = q[1].bad = 0;
    spx_status st = y ? resident_open(P, x, &v[0]) : SPX_ERR_OOM;
    if (st == SPX_OK) st = resident_open(P1, x, &v[1]);
    if (st == SPX_OK) st = time_pair(a, v, n, y_host, y, r, "as run");
    r[0].queued = r[0].med;
    r[1].queued = r[1].med;
    if (st == SPX_OK && !a->no_graph) {
        st = spx_multi_set_graph(P, 0);
        if (st == SPX_OK) st = spx_multi_set_graph(P1, 0);
        if (st == SPX_OK) st = time_pair(a, v, n, y_host, y, q, "queued");
        for (int j = 0; j < 2 && st == SPX_OK; j++) {
            r[j].t = q[j].t;
            r[j].queued = q[j].med;
            r[j].bad |= q[j].bad;
        }
    }
    resident_close(&v[0]);
    resident_close(&v[1]);
    free(y);
    return st;
}

/* A plan of `parts` parts of `kind`. */
static spx_status make_plan(const spx_matrix *A, const multi_args *a, spx_partition kind, int parts,
                            spx_multi_plan **P)
{
    int devices[SPX_MULTI_MAX_PARTS];
    spx_plan_opts o = spx_plan_opts_default();
    spx_multi_opts m = spx_multi_opts_default();
    for (int i = 0; i < parts; i++) devices[i] = a->device == SPX_DEV_CUDA ? 0 : SPX_MULTI_CPU;
    o.device = a->device;
    o.format = a->format;
    m.partition = kind;
    m.parts = parts;
    m.no_graph = a->no_graph;
    m.overlap = a->overlap;
    m.devices = a->spread && a->device == SPX_DEV_CUDA ? NULL : devices; /* NULL: round robin */
    return spx_multi_plan_create(A, &o, &m, P);
}

/* One plan of `parts` parts of `kind`: prepared once, timed with host
 * vectors (host, when asked) and, when res is asked (square matrices), with
 * resident ones beside a one-part plan of the same kind (res[0], res[1]). */
static spx_status time_plan(const spx_matrix *A, const multi_args *a, spx_partition kind, int parts,
                            const double *x, double *y, run *host, run *res)
{
    spx_multi_plan *P = NULL, *P1 = NULL;
    int64_t rows;
    spx_matrix_dims(A, &rows, NULL, NULL);
    spx_status st = make_plan(A, a, kind, parts, &P);
    if (st == SPX_OK && host) st = time_calls(P, a, x, y, host);
    if (st == SPX_OK && res && !host) st = one_call(P, x, y, NULL, NULL); /* y_host */
    if (st == SPX_OK && res) st = make_plan(A, a, kind, 1, &P1);
    if (st == SPX_OK && res) st = time_resident(P, P1, a, rows, x, y, res);
    spx_multi_plan_destroy(P1);
    spx_multi_plan_destroy(P);
    return st;
}

static void print_resident(spx_partition kind, const run *r, const run *one)
{
    char ov[64] = "";
    if (r->overlapped) /* its spmv_ms ran from the call's start, the halo inside */
        snprintf(ov, sizeof ov, "  (%d parts overlapped)", r->overlapped);
    printf("%-5s %8.3f %8.3f %9.3f %9.3f %9.3f [%.3f-%.3f] %9.3f %9.3f %8.2fx %8.2fx %7.1f%%  %s / "
           "%s%s\n",
           spx_partition_name(kind), r->t.distribute_ms, r->t.spmv_ms, r->t.merge_ms, r->queued,
           r->med, r->lo, r->hi, one->t.spmv_ms, one->med, one->t.spmv_ms / r->t.spmv_ms,
           one->med / r->med, 100.0 * r->t.merge_ms / r->t.spmv_ms, r->format, one->format, ov);
}

int cli_multi_bench(int argc, char **argv)
{
    multi_args a;
    spx_matrix *A = NULL;
    cli_load_info li;
    int rc = parse(argc, argv, &a);
    if (rc != CLI_PARSED) return rc;
    spx_status st = cli_load_matrix(a.matrix, &A, &li);
    if (st != SPX_OK) return cli_library_error(cmd, a.matrix, st);
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    double *x = malloc(sizeof *x * (size_t)(n + 1)), *y = malloc(sizeof *y * (size_t)(m + 1));
    for (int64_t j = 0; x && j < n; j++) x[j] = 1.0 + (double)(j % 7) / 8.0;
    static const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO, SPX_PART_ROWS};
    enum { NK = sizeof kinds / sizeof kinds[0] };
    run one, r[NK], res[NK][2];
    st = x && y ? time_plan(A, &a, SPX_PART_PCSR, 1, x, y, &one, NULL) : SPX_ERR_OOM;
    if (st == SPX_OK) {
        printf("%s: %lld x %lld, %lld nonzeros; %s, %ld parts (%s); one part: %s, %.3f ms a call "
               "[%.3f-%.3f]\n", a.matrix, (long long)m, (long long)n, (long long)nnz,
               a.device == SPX_DEV_CUDA ? "cuda" : "cpu", a.parts,
               a.device != SPX_DEV_CUDA ? "a thread each"
               : a.spread               ? "round robin over the GPUs"
                                        : "all on GPU 0, a stream each",
               one.format, one.med, one.lo, one.hi);
        printf("host vectors (x in and y out through the host every call)\n");
        printf("kind  partition_ms prepare_ms distribute_ms  spmv_ms  merge_ms   call_ms [min-max]"
               "      speedup\n");
    }
    int square = m == n, bad = 0;
    for (size_t k = 0; st == SPX_OK && k < NK; k++) {
        if (a.kind >= 0 && (int)kinds[k] != a.kind) continue;
        st = time_plan(A, &a, kinds[k], (int)a.parts, x, y, &r[k], square ? res[k] : NULL);
        if (st == SPX_OK)
            printf("%-5s %12.3f %10.3f %13.3f %8.3f %9.3f %9.3f [%.3f-%.3f] %8.2fx\n",
                   spx_partition_name(kinds[k]), r[k].t.convert_ms + r[k].t.partition_ms,
                   r[k].t.prepare_ms, r[k].t.distribute_ms, r[k].t.spmv_ms, r[k].t.merge_ms, r[k].med,
                   r[k].lo, r[k].hi, one.med / r[k].med);
    }
    if (st == SPX_OK && square) {
        printf("resident vectors (x and y stay on the parts' devices; halo = x entries from other "
               "parts); 1-part = the same kind as one part on %s\n",
               a.device == SPX_DEV_CUDA ? "GPU 0" : "the CPU");
        printf("halo, spmv, merge: calls queued part by part (queued_ms); call_ms: calls as run "
               "(%s)\n", a.no_graph || a.device != SPX_DEV_CUDA ? "queued"
                                                                 : "replayed as a CUDA graph");
        printf("kind   halo_ms  spmv_ms  merge_ms queued_ms   call_ms [min-max]     1-part spmv_ms"
               "   call_ms  spmv_x   call_x  merge/spmv  formats (part 0 / 1-part)\n");
        for (size_t k = 0; k < NK; k++)
            if (a.kind < 0 || (int)kinds[k] == a.kind) {
                print_resident(kinds[k], &res[k][0], &res[k][1]);
                bad |= res[k][0].bad || res[k][1].bad;
            }
    }
    free(x);
    free(y);
    spx_matrix_destroy(A);
    if (st != SPX_OK) return cli_library_error(cmd, "multi plan", st);
    return bad ? CLI_CHECK : CLI_OK;
}
