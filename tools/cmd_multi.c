/* spx bench M --multi N: the multi-device executor (spx_multi_*) in one
 * process, for pcsr, pcsc, pcoo and the equal-rows baseline, against the
 * whole matrix as one part on one device with the same options (a 1-part
 * plan: the same host-vector path). Per kind: partition (with the kind's
 * conversion) and prepare once, and the last call's distribute, SpMV and
 * merge; call time median [min-max] over batches; speedup = 1-part call /
 * N-part call. GPU parts all go to GPU 0 (a stream each; the one-GPU
 * setting), or with --spread round robin over every GPU (part i on GPU
 * i mod count: strong scaling on a host of several GPUs); CPU parts get a
 * thread each. */
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
    for (int i = 1; i < argc && rc == CLI_PARSED; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--spread") == 0) {
            a->spread = 1;
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
        } else {
            return cli_usage_error(cmd, "unknown option %s (usage: spx bench M --multi N "
                                   "[--device cpu|cuda] [--spread] [--format F] [--calls C] [--batches K])",
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
    spx_multi_timing t;
    double med, lo, hi;
    const char *format;
} run;

/* One plan of `parts` parts of `kind`: prepared, warmed, timed. */
static spx_status time_plan(const spx_matrix *A, const multi_args *a, spx_partition kind, int parts,
                            const double *x, double *y, run *r)
{
    int devices[SPX_MULTI_MAX_PARTS];
    double t[64];
    spx_multi_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    spx_multi_opts m = spx_multi_opts_default();
    spx_multi_part_info in;
    for (int i = 0; i < parts; i++) devices[i] = a->device == SPX_DEV_CUDA ? 0 : SPX_MULTI_CPU;
    o.device = a->device;
    o.format = a->format;
    m.partition = kind;
    m.parts = parts;
    m.devices = a->spread && a->device == SPX_DEV_CUDA ? NULL : devices; /* NULL: round robin */
    spx_status st = spx_multi_plan_create(A, &o, &m, &P);
    for (long i = 0; st == SPX_OK && i < a->calls; i++) st = spx_multi_spmv(P, 1.0, x, 0.0, y);
    for (long b = 0; st == SPX_OK && b < a->batches; b++) {
        double t0 = now_ms();
        for (long i = 0; st == SPX_OK && i < a->calls; i++) st = spx_multi_spmv(P, 1.0, x, 0.0, y);
        t[b] = (now_ms() - t0) / (double)a->calls;
    }
    if (st == SPX_OK) {
        qsort(t, (size_t)a->batches, sizeof *t, by_value);
        r->med = t[a->batches / 2];
        r->lo = t[0];
        r->hi = t[a->batches - 1];
        spx_multi_times(P, &r->t);
        spx_multi_plan_part(P, 0, &in);
        r->format = in.format;
    }
    spx_multi_plan_destroy(P);
    return st;
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
    run one, r;
    st = x && y ? time_plan(A, &a, SPX_PART_PCSR, 1, x, y, &one) : SPX_ERR_OOM;
    if (st == SPX_OK) {
        printf("%s: %lld x %lld, %lld nonzeros; %s, %ld parts (%s); one part: %s, %.3f ms a call "
               "[%.3f-%.3f]\n", a.matrix, (long long)m, (long long)n, (long long)nnz,
               a.device == SPX_DEV_CUDA ? "cuda" : "cpu", a.parts,
               a.device != SPX_DEV_CUDA ? "a thread each"
               : a.spread               ? "round robin over the GPUs"
                                        : "all on GPU 0, a stream each",
               one.format, one.med, one.lo, one.hi);
        printf("kind  partition_ms prepare_ms distribute_ms  spmv_ms  merge_ms   call_ms [min-max]"
               "      speedup\n");
    }
    static const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO, SPX_PART_ROWS};
    for (size_t k = 0; st == SPX_OK && k < sizeof kinds / sizeof kinds[0]; k++) {
        st = time_plan(A, &a, kinds[k], (int)a.parts, x, y, &r);
        if (st == SPX_OK)
            printf("%-5s %12.3f %10.3f %13.3f %8.3f %9.3f %9.3f [%.3f-%.3f] %8.2fx\n",
                   spx_partition_name(kinds[k]), r.t.convert_ms + r.t.partition_ms, r.t.prepare_ms,
                   r.t.distribute_ms, r.t.spmv_ms, r.t.merge_ms, r.med, r.lo, r.hi, one.med / r.med);
    }
    free(x);
    free(y);
    spx_matrix_destroy(A);
    return st == SPX_OK ? CLI_OK : cli_library_error(cmd, "multi plan", st);
}
