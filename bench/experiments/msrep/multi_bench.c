/* MSREP on one host: for each partition kind (pcsr, pcsc, pcoo, and the
 * equal-rows baseline) and part count, the multi-device plan's phases
 * (partition, prepare, and per call distribute, SpMV, merge) and its call
 * time against one plan of the same options on one device, host vectors
 * both (the single plan: x copied over, spx_spmv, y copied back, as the
 * multi path does per part). GPU parts are all on GPU 0 (a stream each), the
 * setting of a one-GPU machine; CPU parts one thread each.
 *
 * Usage: msrep_multi_bench M [--device cpu|cuda] [--parts 1,2,3,4]
 *                            [--calls N] [--batches K] [--format F]
 * M: a matrix file or gen:SPEC. Times: median over K batches of N calls
 * (after N warm-up calls), milliseconds a call, with the batches' min-max
 * spread; overhead = multi call / single call - 1. Phase times are the last
 * call's (the slowest part's). A stand-alone harness (it uses SpX's CUDA
 * gateway for the single plan's copies); built by run.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/gateway.h"
#include "spx.h"

typedef struct args {
    const char *matrix, *format;
    spx_device device;
    int parts[16], nparts, calls, batches;
} args;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct spread {
    double median, min, max;
} spread;

/* K batches of N calls of fn after N warm-up calls: ms a call. */
static spread time_calls(int (*fn)(void *), void *ctx, int calls, int batches)
{
    double t[64];
    spread s = {0, 0, 0};
    if (batches > 64) batches = 64;
    for (int i = 0; i < calls; i++)
        if (fn(ctx)) return s;
    for (int b = 0; b < batches; b++) {
        double t0 = now_ms();
        for (int i = 0; i < calls; i++) fn(ctx);
        t[b] = (now_ms() - t0) / calls;
    }
    qsort(t, (size_t)batches, sizeof *t, cmp_double);
    s.median = t[batches / 2];
    s.min = t[0];
    s.max = t[batches - 1];
    return s;
}

typedef struct single {
    spx_plan *P;
    int64_t m, n;
    double *x, *y;
    void *dx, *dy;
} single;

/* One plan, host vectors: on the GPU copy x over, multiply, copy y back. */
static int single_call(void *c)
{
    single *s = c;
    if (spx_plan_device(s->P) == SPX_DEV_CPU) return spx_spmv(s->P, 1.0, s->x, 0.0, s->y) != SPX_OK;
    if (spx__cuda_copy_async(s->dx, s->x, (size_t)s->n * sizeof(double), 1, NULL) != SPX_OK) return 1;
    if (spx_spmv(s->P, 1.0, s->dx, 0.0, s->dy) != SPX_OK) return 1;
    if (spx__cuda_copy_async(s->y, s->dy, (size_t)s->m * sizeof(double), 0, NULL) != SPX_OK) return 1;
    return spx__cuda_sync(NULL) != SPX_OK;
}

/* The kernel alone on device vectors (GPU) or the call (CPU). */
static int single_kernel(void *c)
{
    single *s = c;
    if (spx_plan_device(s->P) == SPX_DEV_CPU) return spx_spmv(s->P, 1.0, s->x, 0.0, s->y) != SPX_OK;
    if (spx_spmv(s->P, 1.0, s->dx, 0.0, s->dy) != SPX_OK) return 1;
    return spx__cuda_sync(NULL) != SPX_OK;
}

typedef struct multi {
    spx_multi_plan *P;
    double *x, *y;
} multi;

static int multi_call(void *c)
{
    multi *m = c;
    return spx_multi_spmv(m->P, 1.0, m->x, 0.0, m->y) != SPX_OK;
}

static spx_plan_opts plan_opts(const args *a)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = a->device;
    o.format = a->format;
    return o;
}

static int run_single(const args *a, const spx_matrix *A, single *s, spread *call, spread *kernel)
{
    spx_plan_opts o = plan_opts(a);
    spx_matrix_dims(A, &s->m, &s->n, NULL);
    if (spx_plan_create(A, SPX_OP_SPMV, &o, &s->P) != SPX_OK) {
        fprintf(stderr, "single plan: %s\n", spx_last_error());
        return 1;
    }
    if (a->device == SPX_DEV_CUDA &&
        (spx__cuda_alloc(&s->dx, (size_t)s->n * sizeof(double), "x") != SPX_OK ||
         spx__cuda_alloc(&s->dy, (size_t)s->m * sizeof(double), "y") != SPX_OK)) {
        fprintf(stderr, "device vectors: %s\n", spx_last_error());
        return 1;
    }
    *call = time_calls(single_call, s, a->calls, a->batches);
    *kernel = time_calls(single_kernel, s, a->calls, a->batches);
    return 0;
}

static void run_multi(const args *a, const spx_matrix *A, spx_partition kind, int np,
                      const single *s, spread base)
{
    int devices[64];
    for (int i = 0; i < np; i++) devices[i] = a->device == SPX_DEV_CUDA ? 0 : SPX_MULTI_CPU;
    spx_plan_opts o = plan_opts(a);
    spx_multi_opts mo = spx_multi_opts_default();
    mo.partition = kind;
    mo.parts = np;
    mo.devices = devices;
    multi m = {NULL, s->x, s->y};
    if (spx_multi_plan_create(A, &o, &mo, &m.P) != SPX_OK) {
        printf("%-5s %2d  plan failed: %s\n", spx_partition_name(kind), np, spx_last_error());
        return;
    }
    spread c = time_calls(multi_call, &m, a->calls, a->batches);
    spx_multi_timing t;
    spx_multi_times(m.P, &t);
    spx_multi_part_info in;
    spx_multi_plan_part(m.P, 0, &in);
    printf("%-5s %2d  %-6s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f  %9.3f [%.3f-%.3f]  %+6.1f%%\n",
           spx_partition_name(kind), np, in.format, t.convert_ms, t.partition_ms, t.prepare_ms,
           t.distribute_ms, t.spmv_ms, t.merge_ms, c.median, c.min, c.max,
           100.0 * (c.median / base.median - 1.0));
    spx_multi_plan_destroy(m.P);
}

static int parse(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->format = "auto";
    a->device = SPX_DEV_CPU;
    a->calls = 20;
    a->batches = 7;
    a->nparts = 4;
    for (int i = 0; i < 4; i++) a->parts[i] = i + 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            a->device = !strcmp(argv[++i], "cuda") ? SPX_DEV_CUDA : SPX_DEV_CPU;
        else if (!strcmp(argv[i], "--format") && i + 1 < argc)
            a->format = argv[++i];
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
            a->calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            a->batches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--parts") && i + 1 < argc) {
            a->nparts = 0;
            for (char *p = strtok(argv[++i], ","); p && a->nparts < 16; p = strtok(NULL, ","))
                a->parts[a->nparts++] = atoi(p);
        } else if (argv[i][0] != '-' && !a->matrix)
            a->matrix = argv[i];
        else
            return 1;
    }
    return !a->matrix || a->calls < 1 || a->batches < 1;
}

int main(int argc, char **argv)
{
    args a;
    spx_matrix *A = NULL;
    if (parse(argc, argv, &a)) {
        fprintf(stderr, "usage: %s M [--device cpu|cuda] [--parts 1,2,3,4] [--calls N] "
                        "[--batches K] [--format F]\n", argv[0]);
        return 2;
    }
    spx_status st = strncmp(a.matrix, "gen:", 4) == 0 ? spx_generate(a.matrix + 4, &A)
                                                      : spx_matrix_read(a.matrix, &A);
    if (st != SPX_OK) {
        fprintf(stderr, "%s: %s\n", a.matrix, spx_last_error());
        return 1;
    }
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    single s;
    memset(&s, 0, sizeof s);
    s.x = malloc(sizeof(double) * (size_t)(n + 1));
    s.y = malloc(sizeof(double) * (size_t)(m + 1));
    for (int64_t j = 0; j < n; j++) s.x[j] = 1.0 + (double)(j % 7) / 8.0;
    spread call, kernel;
    if (run_single(&a, A, &s, &call, &kernel)) return 1;
    printf("%s: %lld x %lld, %lld nonzeros, %s, single plan %s: call %.3f ms [%.3f-%.3f], "
           "SpMV alone %.3f ms [%.3f-%.3f]\n",
           a.matrix, (long long)m, (long long)n, (long long)nnz,
           a.device == SPX_DEV_CUDA ? "cuda (parts on GPU 0)" : "cpu (a thread a part)",
           spx_plan_format(s.P), call.median, call.min, call.max, kernel.median, kernel.min,
           kernel.max);
    printf("kind parts format  convert  partition  prepare distribute    spmv     merge   "
           "call ms [min-max]   vs single\n");
    static const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO, SPX_PART_ROWS};
    for (size_t k = 0; k < 4; k++)
        for (int i = 0; i < a.nparts; i++) run_multi(&a, A, kinds[k], a.parts[i], &s, call);
    spx_plan_destroy(s.P);
    spx__cuda_free(s.dx);
    spx__cuda_free(s.dy);
    free(s.x);
    free(s.y);
    spx_matrix_destroy(A);
    return 0;
}
