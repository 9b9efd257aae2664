/* The multi-device executor with GPU parts: 1..4 parts on one GPU (a stream
 * each), every partition kind, against the long-double reference and the
 * same bits on every call (test_multi_check.h); fp64, fp32 and fp16; the
 * CUDA formats by name and AUTO; GPU and CPU parts mixed (pcsc then sums on
 * the host); parts round robin over every GPU when there are several
 * (pcsc summed on GPU 0 through peer copies), row parts there with and
 * without their halo overlapped; pcsc's spans (narrow, missing
 * both ends of y, 40 parts); resident calls replayed as CUDA graphs against
 * the same calls queued part by part; the call's times; spx_multi_cg and
 * spx_multi_bicgstab against one CPU part, their iterations replayed from a
 * recorded graph against the same solves queued, and one after another on
 * one plan (its kept workspace) against plans of their own; spx_multi_gmres
 * on 1..3 GPU parts against one CPU part; over several
 * GPUs, the leads meeting by a barrier of flags against events. Without a
 * GPU: a GPU part is refused, and the test is skipped (77). SPX_TEST_QUICK:
 * one matrix in fp64 and fp32, no per-format pass (for compute-sanitizer). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <time.h>

#include "test_multi_check.h"

static const int one_gpu[] = {0, 0, 0, 0};

/* SPX_TEST_QUICK (under compute-sanitizer): one matrix, fp64 and fp32. */
static int quick(void)
{
    const char *q = getenv("SPX_TEST_QUICK");
    return q && *q && *q != '0';
}
static const int mixed[] = {0, SPX_MULTI_CPU, 0, SPX_MULTI_CPU};

static spx_plan_opts cuda_opts(spx_type t, const char *format)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.precision = t;
    o.format = format;
    return o;
}

static void test_one_gpu(void)
{
    static const char *const specs[] = {"random:m=3000,n=3000,nnz=60000,seed=2", "lap3d7:24",
                                        "powerlaw:n=20000,avg=8,alpha=2.1,seed=4",
                                        "random:m=900,n=2500,nnz=30000,seed=3"};
    for (size_t s = 0; s < (quick() ? 1 : sizeof specs / sizeof specs[0]); s++) {
        spx_matrix *A = generate(specs[s]);
        if (!A) continue;
        check_all_kinds(A, cuda_opts(SPX_F64, "auto"), 4, one_gpu);
        check_all_kinds(A, cuda_opts(SPX_F32, "auto"), 4, one_gpu);
        if (!quick()) check_all_kinds(A, cuda_opts(SPX_F16, "auto"), 4, one_gpu);
        spx_plan_opts o = cuda_opts(SPX_F64, "auto");
        o.op = SPX_OP_T;
        check_all_kinds(A, o, 4, one_gpu);
        spx_matrix_destroy(A);
    }
}

/* pcsc spans on the GPU (test_multi_check.h): a banded matrix (narrow
 * spans), one with empty rows and columns at both ends, beta 0 over NaN,
 * 1..4 parts and 40 (round robin: all on GPU 0 with one GPU), fp64, fp32,
 * fp16 and op T; mixed GPU and CPU parts (summed on the host). */
static void test_pcsc_spans(void)
{
    check_pcsc_cases(cuda_opts(SPX_F64, "auto"), 20000, 4, 40, NULL);
    check_pcsc_cases(cuda_opts(SPX_F32, "auto"), 20000, 4, quick() ? 4 : 40, NULL);
    if (quick()) return;
    check_pcsc_cases(cuda_opts(SPX_F16, "auto"), 20000, 3, 4, NULL);
    check_pcsc_cases(cuda_opts(SPX_F64, "csr"), 4000, 4, 4, mixed);
}

/* Each CUDA SpMV format by name (a format may decline a part: skipped). */
static void test_formats(void)
{
    spx_matrix *A = generate("lap3d7:40");
    if (!A) return;
    for (int i = 0; i < spx_format_count(); i++) {
        const char *name;
        unsigned devices, precisions;
        if (!spx_test_spmv_format(i, &name, &devices, &precisions)) continue;
        if (!(devices & SPX_DEV_CUDA)) continue;
        spx_plan_opts o = cuda_opts(SPX_F64, name);
        spx_multi_opts m = spx_multi_opts_default();
        m.parts = 3;
        m.devices = one_gpu;
        spx_multi_plan *P = NULL;
        spx_status st = spx_multi_plan_create(A, &o, &m, &P);
        spx_multi_plan_destroy(P);
        if (st == SPX_ERR_UNSUPPORTED) {
            printf("  %s declines a part: %s\n", name, spx_last_error());
            continue;
        }
        check_all_kinds(A, o, 4, one_gpu);
    }
    spx_matrix_destroy(A);
}

/* The GPUs a plan can use (up to 8): those a one-part plan of A accepts. */
static int count_gpus(const spx_matrix *A)
{
    int gpus = 0;
    while (gpus < 8 && spx_device_available(SPX_DEV_CUDA)) {
        int devs[8];
        for (int i = 0; i < 8; i++)
            devs[i] = i;
        spx_multi_opts m = spx_multi_opts_default();
        m.parts = 1;
        m.devices = devs + gpus;
        spx_multi_plan *P = NULL;
        if (spx_multi_plan_create(A, NULL, &m, &P) != SPX_OK) break;
        spx_multi_plan_destroy(P);
        gpus++;
    }
    return gpus;
}

static void test_mixed_and_many(void)
{
    spx_matrix *A = generate("random:m=5000,n=5000,nnz=80000,seed=5");
    if (!A) return;
    check_all_kinds(A, cuda_opts(SPX_F64, "auto"), 4, mixed);
    int gpus = count_gpus(A);
    printf("  %d GPU%s\n", gpus, gpus == 1 ? "" : "s");
    if (gpus > 1) check_all_kinds(A, cuda_opts(SPX_F64, "auto"), gpus < 4 ? gpus * 2 : 8, NULL);
    if (gpus > 1) { /* pcsc owners reached by more parts than one merge launch takes: by adds */
        spx_multi_opts m = spx_multi_opts_default();
        m.partition = SPX_PART_PCSC;
        m.parts = 12;
        check_plan(A, cuda_opts(SPX_F64, "auto"), m);
    }
    spx_matrix_destroy(A);
}

/* Row parts on several GPUs, their own columns multiplied while the halo
 * arrives (spx_multi_opts.overlap) and not, on a stencil, whose rest is cut
 * in two pieces (its slab's two faces), and on a random matrix (one piece):
 * against the reference, resident against the host path's bits. */
static void test_overlap(void)
{
    static const char *const specs[] = {"lap3d7:24", "random:m=5000,n=5000,nnz=80000,seed=6"};
    static const spx_type types[] = {SPX_F64, SPX_F32, SPX_F16};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        spx_matrix *A = generate(specs[s]);
        int gpus = A ? count_gpus(A) : 0;
        for (int k = 0; gpus > 1 && k < 4; k++) {
            if (kinds[k] == SPX_PART_PCSC) continue;
            for (int off = 0; off < 2; off++)
                for (size_t t = 0; t < (quick() ? 1 : sizeof types / sizeof types[0]); t++) {
                    spx_multi_opts m = spx_multi_opts_default();
                    m.partition = kinds[k];
                    m.parts = gpus;
                    m.overlap = off ? -1 : 1;
                    check_plan(A, cuda_opts(types[t], "auto"), m);
                }
        }
        for (int off = 0; gpus > 1 && off < 2; off++) { /* the parts say so */
            spx_multi_opts m = spx_multi_opts_default();
            m.parts = gpus;
            m.overlap = off ? -1 : 1;
            spx_plan_opts o = cuda_opts(SPX_F64, "auto");
            spx_multi_plan *P = NULL;
            if (CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P), SPX_OK))
                for (int i = 0; i < gpus; i++) {
                    spx_multi_part_info in;
                    CHECK_STATUS(spx_multi_plan_part(P, i, &in), SPX_OK);
                    CHECK(in.overlapped == (!off && in.nnz > 0));
                }
            spx_multi_plan_destroy(P);
        }
        spx_matrix_destroy(A);
    }
}

/* One plan's resident call on vectors x, y (set from hx, hy), y back to out. */
static void resident_call(spx_multi_plan *P, spx_multi_vector *x, spx_multi_vector *y,
                          const double *hy, double alpha, double beta, double *out)
{
    CHECK_STATUS(spx_multi_vector_set(y, hy), SPX_OK);
    CHECK_STATUS(spx_multi_spmv_resident(P, alpha, x, beta, y), SPX_OK);
    CHECK_STATUS(spx_multi_vector_get(y, out), SPX_OK);
}

/* Resident calls replayed as a CUDA graph (the default) give the bits of
 * the same plan queueing its parts (no_graph), whatever the call sequence:
 * the same x, y, alpha and beta again (a replay), other alpha and beta
 * (recorded again), another x vector, and back. Every kind, 4 parts on one
 * GPU (devices one_gpu) or round robin over several (NULL); a replay is
 * timed as a whole (no halo, no merge time apart), a queued call not. */
static void check_graph(const spx_matrix *A, const int *devices)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    double *hx = malloc(sizeof *hx * (size_t)n), *hy = malloc(sizeof *hy * (size_t)n);
    double *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n);
    for (int64_t i = 0; hx && hy && i < n; i++) {
        hx[i] = 1.0 + (double)(i % 13) / 8.0;
        hy[i] = (double)(i % 5) - 2.0;
    }
    static const double ab[][2] = {{1.0, 0.0}, {1.0, 0.0}, {2.0, 0.5}, {2.0, 0.5}, {1.0, 0.0}};
    for (int k = 0; hx && hy && a && b && k < 4; k++) {
        spx_plan_opts o = cuda_opts(SPX_F64, "auto");
        spx_multi_plan *P[2] = {NULL, NULL};
        spx_multi_vector *x[2][2] = {{NULL, NULL}, {NULL, NULL}}, *y[2] = {NULL, NULL};
        for (int g = 0; g < 2; g++) {
            spx_multi_opts m = spx_multi_opts_default();
            m.partition = (spx_partition)k;
            m.parts = 4;
            m.devices = devices;
            m.no_graph = g;
            if (!CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P[g]), SPX_OK)) break;
            for (int v = 0; v < 2; v++) {
                CHECK_STATUS(spx_multi_vector_create(P[g], &x[g][v]), SPX_OK);
                CHECK_STATUS(spx_multi_vector_set(x[g][v], hx), SPX_OK);
            }
            CHECK_STATUS(spx_multi_vector_create(P[g], &y[g]), SPX_OK);
        }
        for (int c = 0; P[0] && P[1] && y[0] && y[1] && c < 7; c++) {
            int v = c == 5; /* the second x vector once, then the first again */
            double alpha = ab[c % 5][0], beta = ab[c % 5][1];
            resident_call(P[0], x[0][v], y[0], hy, alpha, beta, a);
            resident_call(P[1], x[1][v], y[1], hy, alpha, beta, b);
            CHECK(memcmp(a, b, sizeof *a * (size_t)n) == 0);
        }
        for (int g = 0; g < 2 && P[g]; g++) {
            spx_multi_timing t;
            CHECK_STATUS(spx_multi_times(P[g], &t), SPX_OK);
            CHECK(t.spmv_ms > 0 && t.call_ms >= t.spmv_ms);
            if (g == 0) CHECK(t.distribute_ms == 0 && t.merge_ms == 0);
        }
        if (P[0] && P[1] && y[0] && y[1]) { /* replay switched off: queued, the same bits */
            CHECK_STATUS(spx_multi_set_graph(P[0], 0), SPX_OK);
            resident_call(P[0], x[0][0], y[0], hy, 1.0, 0.0, a);
            resident_call(P[1], x[1][0], y[1], hy, 1.0, 0.0, b);
            CHECK(memcmp(a, b, sizeof *a * (size_t)n) == 0);
        }
        for (int g = 0; g < 2; g++) {
            spx_multi_vector_destroy(x[g][0]);
            spx_multi_vector_destroy(x[g][1]);
            spx_multi_vector_destroy(y[g]);
            spx_multi_plan_destroy(P[g]);
        }
    }
    free(hx);
    free(hy);
    free(a);
    free(b);
}

/* Over several GPUs: x's buffer on GPU 1 swapped with another vector's,
 * its buffer on GPU 0 kept (as a new vector can get the address of a freed
 * one on one GPU and not on another): the replay reads the new buffer, as
 * the call queued does. */
static void check_graph_buffers(const spx_matrix *A)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_plan_opts o = cuda_opts(SPX_F64, "auto");
    spx_multi_opts m = spx_multi_opts_default();
    spx_multi_plan *P = NULL;
    spx_multi_vector *x = NULL, *w = NULL, *y = NULL;
    double *hx = malloc(sizeof *hx * (size_t)n), *hw = malloc(sizeof *hw * (size_t)n);
    double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    for (int64_t i = 0; i < n; i++) {
        hx[i] = 1.0 + (double)(i % 7);
        hw[i] = -2.0 - (double)(i % 3);
    }
    m.parts = 2;
    if (CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P), SPX_OK) &&
        CHECK_STATUS(spx_multi_vector_create(P, &x), SPX_OK) &&
        CHECK_STATUS(spx_multi_vector_create(P, &w), SPX_OK) &&
        CHECK_STATUS(spx_multi_vector_create(P, &y), SPX_OK) && CHECK(x->groups == 2)) {
        CHECK_STATUS(spx_multi_vector_set(x, hx), SPX_OK);
        CHECK_STATUS(spx_multi_vector_set(w, hw), SPX_OK);
        resident_call(P, x, y, hx, 1.0, 0.0, a); /* recorded */
        void *swap = x->buf[1];
        x->buf[1] = w->buf[1];
        w->buf[1] = swap;
        resident_call(P, x, y, hx, 1.0, 0.0, a);
        CHECK_STATUS(spx_multi_set_graph(P, 0), SPX_OK);
        resident_call(P, x, y, hx, 1.0, 0.0, b);
        CHECK(memcmp(a, b, sizeof *a * (size_t)n) == 0);
        w->buf[1] = x->buf[1];
        x->buf[1] = swap;
    }
    spx_multi_vector_destroy(x);
    spx_multi_vector_destroy(w);
    spx_multi_vector_destroy(y);
    spx_multi_plan_destroy(P);
    free(hx);
    free(hw);
    free(a);
    free(b);
}

static void test_graph(void)
{
    spx_matrix *A = generate("lap3d7:24");
    if (!A) return;
    check_graph(A, one_gpu);
    int gpus = count_gpus(A);
    if (gpus > 1) {
        printf("  graphs over %d GPUs\n", gpus);
        check_graph(A, NULL);
        check_graph_buffers(A);
    }
    spx_matrix_destroy(A);
}

/* GPU parts report the phases of a call. */
static void test_times(void)
{
    spx_matrix *A = generate("lap3d7:48");
    if (!A) return;
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_plan_opts o = cuda_opts(SPX_F64, "auto");
    spx_multi_opts m = spx_multi_opts_default();
    m.parts = 4;
    m.devices = one_gpu;
    spx_multi_plan *P = NULL;
    double *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
    if (CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P), SPX_OK)) {
        CHECK_STATUS(spx_multi_spmv(P, 1.0, x, 0.0, y), SPX_OK);
        spx_multi_timing t;
        CHECK_STATUS(spx_multi_times(P, &t), SPX_OK);
        CHECK(t.prepare_ms > 0 && t.distribute_ms > 0 && t.spmv_ms > 0 && t.merge_ms > 0);
        CHECK(t.call_ms >= t.spmv_ms);
        for (int i = 0; i < 4; i++) {
            spx_multi_part_info in;
            CHECK_STATUS(spx_multi_plan_part(P, i, &in), SPX_OK);
            CHECK(in.device == 0);
        }
    }
    spx_multi_plan_destroy(P);
    free(x);
    free(y);
    spx_matrix_destroy(A);
}

/* A solve of b = ones from x = 0 by a multi plan of A on the parts' devices
 * (devices NULL: round robin over the GPUs): x back as doubles. */
static spx_status multi_solve(const spx_matrix *A, spx_partition kind, int parts,
                              const int *devices, int bicg, const spx_solve_opts *o, double *x,
                              spx_solve_info *info)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_plan_opts po = cuda_opts(SPX_F64, "auto");
    spx_multi_opts m = spx_multi_opts_default();
    spx_multi_plan *P = NULL;
    spx_multi_vector *b = NULL, *xv = NULL;
    m.partition = kind;
    m.parts = parts;
    m.devices = devices;
    double *ones = malloc((size_t)n * sizeof *ones);
    for (int64_t i = 0; i < n; i++)
        ones[i] = 1.0, x[i] = 0.0;
    spx_status st = spx_multi_plan_create(A, &po, &m, &P);
    if (st == SPX_OK) st = spx_multi_vector_create(P, &b);
    if (st == SPX_OK) st = spx_multi_vector_create(P, &xv);
    if (st == SPX_OK) st = spx_multi_vector_set(b, ones);
    if (st == SPX_OK) st = spx_multi_vector_set(xv, x);
    if (st == SPX_OK)
        st = bicg == 2 ? spx_multi_gmres(P, A, b, xv, o, info)
             : bicg    ? spx_multi_bicgstab(P, A, b, xv, o, info)
                       : spx_multi_cg(P, A, b, xv, o, info);
    if (st == SPX_OK) CHECK_STATUS(spx_multi_vector_get(xv, x), SPX_OK);
    spx_multi_vector_destroy(b);
    spx_multi_vector_destroy(xv);
    spx_multi_plan_destroy(P);
    free(ones);
    return st;
}

/* How far a solve's iteration count may stray from one plan's: CG's by 2;
 * BiCGSTAB's, which rounding moves further, by a fifth and 2 (on 4 H200s,
 * lap3d7:24, 2 GPU parts took 52 iterations where one CPU part took 47). */
static int64_t iteration_slack(int bicg, spx_solve_info one)
{
    return bicg ? one.iters / 5 + 2 : 2;
}

/* spx_multi_cg and spx_multi_bicgstab with GPU parts (on GPU 0, and round
 * robin over every GPU): every kind, 1..4 parts (SPX_TEST_QUICK: pcsr and
 * pcsc, 2 parts), Jacobi, each against the same solve by one CPU part:
 * converged, x within 1e-8, the iterations within iteration_slack, and the
 * same bits from a second solve. */
static void test_solvers(void)
{
    spx_matrix *A = generate("lap3d7:24");
    if (!A) return;
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    int gpus = count_gpus(A);
    double *x = malloc((size_t)n * sizeof *x), *again = malloc((size_t)n * sizeof *again);
    double *ref = malloc((size_t)n * sizeof *ref);
    static const int cpu[] = {SPX_MULTI_CPU};
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info, info2, one;
    o.rtol = 1e-10;
    o.jacobi = 1;
    for (int bicg = 0; bicg < 2; bicg++) {
        if (!CHECK_STATUS(multi_solve(A, SPX_PART_PCSR, 1, cpu, bicg, &o, ref, &one), SPX_OK))
            continue;
        for (int k = 0; k < (quick() ? 2 : 4); k++)
            for (int parts = quick() ? 2 : 1; parts <= (quick() ? 2 : 4); parts++)
                for (int spread = 0; spread < (gpus > 1 ? 2 : 1); spread++) {
                    const int *devices = spread ? NULL : one_gpu;
                    int ok = CHECK_STATUS(
                        multi_solve(A, kinds[k], parts, devices, bicg, &o, x, &info), SPX_OK);
                    if (ok) {
                        double d = 0.0;
                        for (int64_t i = 0; i < n; i++)
                            d = fmax(d, fabs(x[i] - ref[i]));
                        ok &= CHECK(info.rel_residual <= 2e-10);
                        ok &= CHECK(llabs(info.iters - one.iters) <= iteration_slack(bicg, one));
                        ok &= CHECK(d <= 1e-8);
                        ok &= CHECK_STATUS(
                            multi_solve(A, kinds[k], parts, devices, bicg, &o, again, &info2),
                            SPX_OK);
                        ok &= CHECK(memcmp(x, again, (size_t)n * sizeof *x) == 0);
                        /* on one GPU the iterations are replayed from a graph
                         * (across GPUs where they reach each other's memory):
                         * the bits of the solve queued operation by operation */
                        ok &= CHECK(spread || info.replayed > 0);
                        setenv("SPX_SOLVE_GRAPH", "0", 1);
                        ok &= CHECK_STATUS(
                            multi_solve(A, kinds[k], parts, devices, bicg, &o, again, &info2),
                            SPX_OK);
                        unsetenv("SPX_SOLVE_GRAPH");
                        ok &= CHECK(info2.replayed == 0 && info2.iters == info.iters);
                        ok &= CHECK(memcmp(x, again, (size_t)n * sizeof *x) == 0);
                    }
                    if (!ok)
                        printf("  %s %s, %d parts%s: %lld iterations (CPU part %lld), %lld "
                               "replayed\n",
                               bicg ? "bicgstab" : "cg", spx_partition_name(kinds[k]), parts,
                               spread ? " round robin" : " on GPU 0", (long long)info.iters,
                               (long long)one.iters, (long long)info.replayed);
                }
    }
    printf("  solvers over %d GPU%s\n", gpus, gpus == 1 ? "" : "s");
    free(x);
    free(again);
    free(ref);
    spx_matrix_destroy(A);
}

/* spx_multi_gmres (bicg = 2 in multi_solve) with GPU parts on GPU 0, pcsr
 * and pcsc, 1..3 parts (and 4..6 round robin over several GPUs), Jacobi,
 * restarts 10 and 20: converged, x within 1e-8 of one
 * CPU part's, the iterations within a fifth and 2, the same bits twice. */
static void test_gmres_parts(void)
{
    spx_matrix *A = generate("lap3d7:24");
    if (!A) return;
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    const int gpus = count_gpus(A);
    double *x = malloc((size_t)n * sizeof *x), *again = malloc((size_t)n * sizeof *again);
    double *ref = malloc((size_t)n * sizeof *ref);
    static const int cpu[] = {SPX_MULTI_CPU};
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info, info2, one;
    o.rtol = 1e-10;
    o.jacobi = 1;
    for (int r = 0; r < 2; r++) {
        o.restart = r ? 20 : 10; /* 20: the device passes past one launch's 16 vectors */
        if (!CHECK_STATUS(multi_solve(A, SPX_PART_PCSR, 1, cpu, 2, &o, ref, &one), SPX_OK))
            continue;
        for (int k = 0; k < 2; k++)
            for (int parts = 1; parts <= 3 * (gpus > 1 ? 2 : 1); parts++) {
                const int *devices = parts > 3 ? NULL : one_gpu; /* 4-6: round robin */
                int ok =
                    CHECK_STATUS(multi_solve(A, kinds[k], parts, devices, 2, &o, x, &info), SPX_OK);
                if (!ok) continue;
                double d = 0.0;
                for (int64_t i = 0; i < n; i++)
                    d = fmax(d, fabs(x[i] - ref[i]));
                ok &= CHECK(info.rel_residual <= 2e-10 && d <= 1e-8);
                ok &= CHECK(llabs(info.iters - one.iters) <= one.iters / 5 + 2);
                ok &= CHECK_STATUS(multi_solve(A, kinds[k], parts, devices, 2, &o, again, &info2),
                                   SPX_OK);
                ok &= CHECK(memcmp(x, again, (size_t)n * sizeof *x) == 0);
                if (!ok)
                    printf("  gmres(%lld) %s, %d parts: %lld iterations (CPU part %lld)\n",
                           (long long)o.restart, spx_partition_name(kinds[k]), parts,
                           (long long)info.iters, (long long)one.iters);
            }
    }
    free(x);
    free(again);
    free(ref);
    spx_matrix_destroy(A);
}

/* A solve of A x = rhs (host arrays, x from 0) on P's resident vectors. */
static spx_status solve_on(spx_multi_plan *P, const spx_matrix *A, int bicg, const double *rhs,
                           const spx_solve_opts *o, double *x, spx_solve_info *info)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_multi_vector *b = NULL, *xv = NULL;
    memset(x, 0, (size_t)n * sizeof *x);
    spx_status st = spx_multi_vector_create(P, &b);
    if (st == SPX_OK) st = spx_multi_vector_create(P, &xv);
    if (st == SPX_OK) st = spx_multi_vector_set(b, rhs);
    if (st == SPX_OK) st = spx_multi_vector_set(xv, x);
    if (st == SPX_OK)
        st = bicg ? spx_multi_bicgstab(P, A, b, xv, o, info) : spx_multi_cg(P, A, b, xv, o, info);
    if (spx_multi_vector_get(xv, x) != SPX_OK) st = SPX_ERR_DEVICE;
    spx_multi_vector_destroy(b);
    spx_multi_vector_destroy(xv);
    return st;
}

static spx_multi_plan *solver_plan(const spx_matrix *A)
{
    spx_plan_opts po = cuda_opts(SPX_F64, "auto");
    spx_multi_opts m = spx_multi_opts_default();
    spx_multi_plan *P = NULL;
    m.parts = 3; /* round robin: two on GPU 0 where there are two GPUs */
    CHECK_STATUS(spx_multi_plan_create(A, &po, &m, &P), SPX_OK);
    return P;
}

/* Solves one after another on one multi plan over the GPUs (CG, BiCGSTAB
 * with more vectors, one on a NaN, keep_workspace 0): the bits and
 * iterations of each on a plan of its own. */
static void test_kept_workspace(void)
{
    spx_matrix *A = generate("lap3d7:20");
    if (!A) return;
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_multi_plan *P = solver_plan(A);
    double *b = malloc((size_t)n * sizeof *b), *bad = malloc((size_t)n * sizeof *bad);
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    spx_solve_info info, fresh;
    for (int64_t i = 0; i < n; i++)
        b[i] = bad[i] = 1.0;
    bad[7] = NAN;
    static const int bicg[] = {0, 1, 0, 1, 1, 0, 0}, jacobi[] = {0, 0, 1, 0, 1, 0, 0};
    static const int keep[] = {1, 1, 1, 1, 1, 0, 1}, nan[] = {0, 0, 0, 1, 0, 0, 0};
    for (int k = 0; P && k < 7; k++) {
        spx_solve_opts o = spx_solve_opts_default();
        o.rtol = 1e-10;
        o.jacobi = jacobi[k];
        o.keep_workspace = keep[k];
        const double *rhs = nan[k] ? bad : b;
        spx_multi_plan *own = solver_plan(A);
        spx_status want = solve_on(own, A, bicg[k], rhs, &o, y, &fresh);
        spx_multi_plan_destroy(own);
        CHECK_STATUS(solve_on(P, A, bicg[k], rhs, &o, x, &info), want);
        if (!CHECK(info.iters == fresh.iters && memcmp(x, y, (size_t)n * sizeof *x) == 0))
            printf("  kept workspace, step %d: %lld iterations, fresh plan %lld\n", k,
                   (long long)info.iters, (long long)fresh.iters);
    }
    /* the plan outlives its solves' workspace: a caller's resident call still
     * returns finished */
    spx_multi_vector *xv = NULL, *yv = NULL;
    if (P && CHECK_STATUS(spx_multi_vector_create(P, &xv), SPX_OK) &&
        CHECK_STATUS(spx_multi_vector_create(P, &yv), SPX_OK) &&
        CHECK_STATUS(spx_multi_vector_set(xv, b), SPX_OK))
        for (int k = 0; k < 3; k++) {
            CHECK_STATUS(spx_multi_spmv_resident(P, 1.0, xv, 0.0, yv), SPX_OK);
            for (int i = 0; i < P->parts; i++)
                CHECK(spx__cuda_stream_idle(P->part[i].stream));
        }
    spx_multi_vector_destroy(xv);
    spx_multi_vector_destroy(yv);
    printf("  solves on one plan, its workspace kept\n");
    spx_multi_plan_destroy(P);
    free(b);
    free(bad);
    free(x);
    free(y);
    spx_matrix_destroy(A);
}

/* A solve on a new plan of `parts` parts round robin over the GPUs, the
 * leads meeting as `barrier` says (SPX_MULTI_BARRIER); *flags: whether
 * they met by flags. */
static spx_status solve_meeting(const spx_matrix *A, spx_partition kind, int parts, int bicg,
                                const char *barrier, double *x, spx_solve_info *info, int *flags)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_plan_opts po = cuda_opts(SPX_F64, "auto");
    spx_multi_opts m = spx_multi_opts_default();
    spx_solve_opts o = spx_solve_opts_default();
    spx_multi_plan *P = NULL;
    double *ones = malloc((size_t)n * sizeof *ones);
    for (int64_t i = 0; i < n; i++)
        ones[i] = 1.0;
    m.partition = kind;
    m.parts = parts;
    o.rtol = 1e-10;
    o.jacobi = bicg;
    setenv("SPX_MULTI_BARRIER", barrier, 1);
    spx_status st = spx_multi_plan_create(A, &po, &m, &P);
    if (st == SPX_OK) st = solve_on(P, A, bicg, ones, &o, x, info);
    *flags = P && spx__multi_flags_on(P);
    unsetenv("SPX_MULTI_BARRIER");
    spx_multi_plan_destroy(P);
    free(ones);
    return st;
}

/* A GPU that never comes to a barrier (spx__multi_barrier_test: group 1's
 * next barrier not launched, the others waiting 50 ms at most): the call
 * ends with SPX_ERR_DEVICE, soon, and the plan goes back to events: the
 * next calls give the bits of a plan that met by events from the start. */
static void check_missing_gpu(const spx_matrix *A, int gpus)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    double *hx = malloc((size_t)n * sizeof *hx), *want = malloc((size_t)n * sizeof *want);
    double *got = malloc((size_t)n * sizeof *got), *zero = calloc((size_t)n, sizeof *zero);
    spx_plan_opts o = cuda_opts(SPX_F64, "auto");
    spx_multi_opts m = spx_multi_opts_default();
    spx_multi_plan *P[2] = {NULL, NULL};
    spx_multi_vector *x[2] = {NULL, NULL}, *y[2] = {NULL, NULL};
    for (int64_t i = 0; i < n; i++)
        hx[i] = 1.0 + (double)(i % 7) / 4.0;
    m.parts = gpus;
    for (int k = 0; k < 2; k++) { /* 0: flags, the GPU missing; 1: events */
        setenv("SPX_MULTI_BARRIER", k ? "events" : "flags", 1);
        CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P[k]), SPX_OK);
        if (P[k] && CHECK_STATUS(spx_multi_vector_create(P[k], &x[k]), SPX_OK) &&
            CHECK_STATUS(spx_multi_vector_create(P[k], &y[k]), SPX_OK))
            CHECK_STATUS(spx_multi_vector_set(x[k], hx), SPX_OK);
    }
    unsetenv("SPX_MULTI_BARRIER");
    if (P[0] && P[1] && y[0] && y[1] && CHECK(spx__multi_flags_on(P[0]))) {
        spx__multi_barrier_test(P[0], 1, 50000000ull);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK_STATUS(spx_multi_spmv_resident(P[0], 1.0, x[0], 0.0, y[0]), SPX_ERR_DEVICE);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK((double)(t1.tv_sec - t0.tv_sec) < 10.0);
        CHECK(strstr(spx_last_error(), "barrier") != NULL);
        CHECK(!spx__multi_flags_on(P[0]));
        resident_call(P[1], x[1], y[1], zero, 1.0, 0.0, want);
        for (int c = 0; c < 2; c++) {
            resident_call(P[0], x[0], y[0], zero, 1.0, 0.0, got);
            CHECK(memcmp(got, want, (size_t)n * sizeof *got) == 0);
        }
    }
    for (int k = 0; k < 2; k++) {
        spx_multi_vector_destroy(x[k]);
        spx_multi_vector_destroy(y[k]);
        spx_multi_plan_destroy(P[k]);
    }
    free(hx);
    free(want);
    free(got);
    free(zero);
}

/* Over several GPUs, the leads meeting by a barrier of flags
 * (SPX_MULTI_BARRIER=flags, from 2 GPUs; by default from 3) against events:
 * resident calls of every kind replayed against the same calls queued by
 * events (check_graph) and against the reference (check_all_kinds, up to
 * twice as many parts as GPUs); CG and BiCGSTAB (Jacobi) replayed, the same
 * bits and iterations either way, the flags in use; a GPU missing at a
 * barrier (check_missing_gpu). */
static void test_barriers(void)
{
    spx_matrix *A = generate("lap3d7:24");
    if (!A) return;
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    int gpus = count_gpus(A);
    if (gpus < 2) {
        printf("  barriers of flags: one GPU, not run\n");
        spx_matrix_destroy(A);
        return;
    }
    setenv("SPX_MULTI_BARRIER", "flags", 1);
    check_graph(A, NULL);
    check_all_kinds(A, cuda_opts(SPX_F64, "auto"), quick() ? gpus : 2 * gpus, NULL);
    unsetenv("SPX_MULTI_BARRIER");
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    for (int bicg = 0; bicg < 2; bicg++)
        for (size_t k = 0; k < (quick() ? 2 : NKINDS); k++)
            for (int parts = gpus; parts <= 2 * gpus; parts += gpus) {
                spx_solve_info e, f;
                int by_flags = 0, by_events = 1;
                if (!CHECK_STATUS(
                        solve_meeting(A, kinds[k], parts, bicg, "events", y, &e, &by_events),
                        SPX_OK) ||
                    !CHECK_STATUS(
                        solve_meeting(A, kinds[k], parts, bicg, "flags", x, &f, &by_flags), SPX_OK))
                    continue;
                if (!CHECK(by_flags && !by_events && f.replayed > 0 && f.iters == e.iters &&
                           memcmp(x, y, (size_t)n * sizeof *x) == 0))
                    printf("  %s %s, %d parts: flags %d (%lld iterations, %lld replayed), "
                           "events %d (%lld)\n",
                           bicg ? "bicgstab" : "cg", spx_partition_name(kinds[k]), parts, by_flags,
                           (long long)f.iters, (long long)f.replayed, by_events,
                           (long long)e.iters);
            }
    check_missing_gpu(A, gpus);
    printf("  barriers of flags over %d GPUs\n", gpus);
    free(x);
    free(y);
    spx_matrix_destroy(A);
}

int main(void)
{
    if (!spx_device_available(SPX_DEV_CUDA)) {
        spx_matrix *A = generate("lap2d5:10");
        spx_multi_opts m = spx_multi_opts_default();
        m.devices = one_gpu;
        spx_multi_plan *P = NULL;
        spx_status st = spx_multi_plan_create(A, NULL, &m, &P);
        CHECK(st == SPX_ERR_NOT_COMPILED || st == SPX_ERR_NO_DEVICE);
        CHECK(P == NULL);
        spx_matrix_destroy(A);
        printf("SKIP: no CUDA device (none seen, or built without CUDA); GPU parts not run\n");
        return spx_test_failed ? spx_test_finish() : 77;
    }
    test_one_gpu();
    test_pcsc_spans();
    if (!quick()) test_formats();
    test_mixed_and_many();
    test_overlap();
    test_graph();
    test_times();
    test_solvers();
    test_gmres_parts();
    test_kept_workspace();
    test_barriers();
    return spx_test_finish();
}
