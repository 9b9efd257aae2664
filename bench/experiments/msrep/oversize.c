/* A matrix larger than one GPU's memory, multiplied by several (issue 16:
 * "a matrix that does not fit one GPU's memory runs on several").
 *
 *   1. build M (a gen: spec sized by oversize.sh to about 1.2x one GPU);
 *   2. one GPU: a plain CUDA plan of M (format csr) must fail cleanly with
 *      SPX_ERR_OOM and its message, nothing else (no crash, no leak of
 *      device memory: free memory is read before and after);
 *   3. G GPUs: a pcsr multi plan, one part a GPU (format csr), resident
 *      vectors: x set once, calls timed (median [min-max] of K batches of N
 *      calls), then host vectors for a few calls (x in and y out through the
 *      host each call: the paper's setting);
 *   4. y checked on the host against a CSR loop over M in long double:
 *      |y - y_ref| <= 16 eps sum_k |a_ik x_k| on every row.
 *
 * Usage: msrep_oversize SPEC (a spx_generate spec: lap3d7:N) [--gpus G] [--calls N] [--batches K]
 * Built and run by oversize.sh. Prints one report; exit 0 when the one-GPU
 * plan failed with SPX_ERR_OOM and the G-GPU product passed the check. */
#include <cuda_runtime_api.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spx.h"

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

static void print_free(const char *when, int gpus)
{
    printf("device memory %s:", when);
    for (int d = 0; d < gpus; d++) {
        size_t fr = 0, tot = 0;
        cudaSetDevice(d);
        cudaMemGetInfo(&fr, &tot);
        printf(" GPU %d %.1f of %.1f GB free;", d, 1e-9 * (double)fr, 1e-9 * (double)tot);
    }
    printf("\n");
    cudaSetDevice(0);
}

/* Step 2: the whole matrix as one plan on GPU 0. */
static int one_gpu(const spx_matrix *A, int gpus)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.format = "csr";
    spx_plan *P = NULL;
    print_free("before the one-GPU plan", gpus);
    double t0 = now_ms();
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    printf("one GPU (plain plan, csr): %s after %.0f ms%s%s\n", spx_status_name(st),
           now_ms() - t0, st == SPX_OK ? "" : ": ", st == SPX_OK ? "" : spx_last_error());
    spx_plan_destroy(P);
    print_free("after it", gpus);
    return st == SPX_ERR_OOM;
}

typedef struct timed {
    double med, lo, hi;
} timed;

/* K batches of N resident calls (after N warm-up calls), ms a call. */
static spx_status time_resident(spx_multi_plan *P, spx_multi_vector *vx, spx_multi_vector *vy,
                                int calls, int batches, timed *r, spx_multi_timing *t)
{
    double ms[64];
    spx_status st = SPX_OK;
    for (int i = 0; st == SPX_OK && i < calls; i++) st = spx_multi_spmv_resident(P, 1.0, vx, 0.0, vy);
    for (int b = 0; st == SPX_OK && b < batches; b++) {
        double t0 = now_ms();
        for (int i = 0; st == SPX_OK && i < calls; i++)
            st = spx_multi_spmv_resident(P, 1.0, vx, 0.0, vy);
        ms[b] = (now_ms() - t0) / calls;
    }
    if (st != SPX_OK) return st;
    qsort(ms, (size_t)batches, sizeof *ms, cmp_double);
    *r = (timed){ms[batches / 2], ms[0], ms[batches - 1]};
    return spx_multi_times(P, t);
}

/* Step 4: every row within 16 eps of sum |a||x| of the long-double sum. */
static int check(const spx_matrix *A, const double *x, const double *y)
{
    const int64_t *rp;
    const void *ci;
    const void *va;
    int bits;
    spx_type vt;
    int64_t m, n, nnz, bad = 0;
    spx_matrix_dims(A, &m, &n, &nnz);
    if (spx_matrix_csr(A, &rp, &ci, &bits, &va, &vt) != SPX_OK || vt != SPX_F64) return 0;
    const double *v = va;
    double worst = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : bad) reduction(max : worst)
    for (int64_t i = 0; i < m; i++) {
        long double s = 0.0L, mag = 0.0L;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int64_t j = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
            s += (long double)v[k] * x[j];
            mag += fabsl((long double)v[k] * x[j]);
        }
        double err = (double)fabsl((long double)y[i] - s);
        double bound = 16.0 * DBL_EPSILON * (double)mag;
        if (!(err <= bound)) bad++;
        double rel = mag > 0 ? err / (double)mag : err;
        worst = rel > worst ? rel : worst;
    }
    printf("check against the long-double CSR sum: %lld of %lld rows outside 16 eps sum|a||x|; "
           "worst error / sum|a||x| = %.2e\n", (long long)bad, (long long)m, worst);
    return bad == 0;
}

/* Step 3: G parts pcsr, one a GPU, resident then host vectors. */
static int several_gpus(const spx_matrix *A, int gpus, int calls, int batches)
{
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    int devices[SPX_MULTI_MAX_PARTS];
    for (int d = 0; d < gpus; d++) devices[d] = d;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.format = "csr";
    spx_multi_opts mo = spx_multi_opts_default();
    mo.partition = SPX_PART_PCSR;
    mo.parts = gpus;
    mo.devices = devices;
    spx_multi_plan *P = NULL;
    spx_multi_vector *vx = NULL, *vy = NULL;
    double *x = malloc(sizeof *x * (size_t)n), *y = malloc(sizeof *y * (size_t)m);
    int ok = 0;
    timed r;
    spx_multi_timing t;
    double t0 = now_ms();
    spx_status st = x && y ? spx_multi_plan_create(A, &o, &mo, &P) : SPX_ERR_OOM;
    printf("%d GPUs (pcsr, csr a part): plan %s in %.0f ms\n", gpus, spx_status_name(st),
           now_ms() - t0);
    if (st != SPX_OK) goto done;
    for (int i = 0; i < gpus; i++) {
        spx_multi_part_info in;
        spx_multi_plan_part(P, i, &in);
        printf("  part %d: GPU %d, %s, rows %lld.., %lld nonzeros, plan %.1f GB\n", i, in.device,
               in.format, (long long)in.first, (long long)in.nnz, 1e-9 * (double)in.bytes);
    }
    spx_multi_times(P, &t);
    printf("  partition %.0f ms, prepare (formats and upload) %.0f ms\n",
           t.convert_ms + t.partition_ms, t.prepare_ms);
    for (int64_t j = 0; j < n; j++) x[j] = 1.0 + (double)(j % 7) / 8.0;
    st = spx_multi_vector_create(P, &vx);
    if (st == SPX_OK) st = spx_multi_vector_create(P, &vy);
    print_free("with the plan and two resident vectors", gpus);
    if (st == SPX_OK) st = spx_multi_vector_set(vx, x);
    if (st == SPX_OK) st = time_resident(P, vx, vy, calls, batches, &r, &t);
    if (st == SPX_OK) {
        printf("  resident vectors: %.3f ms a call [%.3f-%.3f] (%d batches of %d), halo %.3f ms, "
               "SpMV %.3f ms, merge %.3f ms; %.1f GFLOP/s\n", r.med, r.lo, r.hi, batches, calls,
               t.distribute_ms, t.spmv_ms, t.merge_ms, 2e-6 * (double)nnz / r.med);
        st = spx_multi_vector_get(vy, y);
    }
    if (st == SPX_OK) ok = check(A, x, y);
    for (int i = 0; st == SPX_OK && i < 3; i++) {
        double t1 = now_ms();
        st = spx_multi_spmv(P, 1.0, x, 0.0, y);
        spx_multi_times(P, &t);
        printf("  host vectors, call %d: %.1f ms (distribute %.1f, SpMV %.3f, merge %.1f)\n", i,
               now_ms() - t1, t.distribute_ms, t.spmv_ms, t.merge_ms);
    }
    if (st == SPX_OK) ok = ok && check(A, x, y);
done:
    if (st != SPX_OK) {
        printf("  failed: %s: %s\n", spx_status_name(st), spx_last_error());
        ok = 0;
    }
    spx_multi_vector_destroy(vx);
    spx_multi_vector_destroy(vy);
    spx_multi_plan_destroy(P);
    free(x);
    free(y);
    return ok;
}

int main(int argc, char **argv)
{
    int gpus = 2, calls = 10, batches = 5;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--gpus")) gpus = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--calls")) calls = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--batches")) batches = atoi(argv[i + 1]);
    }
    int have = 0;
    cudaGetDeviceCount(&have);
    if (argc < 2 || gpus < 2 || gpus > have || calls < 1 || batches < 1 || batches > 64) {
        fprintf(stderr, "usage: %s SPEC [--gpus G (2..%d)] [--calls N] [--batches K]\n", argv[0],
                have);
        return 2;
    }
    spx_matrix *A = NULL;
    double t0 = now_ms();
    spx_status st = spx_generate(argv[1], &A);
    if (st != SPX_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], spx_last_error());
        return 1;
    }
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    printf("%s: %lld x %lld, %lld nonzeros (%.1f GB as fp64 CSR), built in %.0f ms\n", argv[1],
           (long long)m, (long long)n, (long long)nnz,
           1e-9 * (12.0 * (double)nnz + 8.0 * (double)(m + 1)), now_ms() - t0);
    int oom = one_gpu(A, gpus);
    int ok = several_gpus(A, gpus, calls, batches);
    printf("result: one GPU %s; %d GPUs %s\n", oom ? "refused it (SPX_ERR_OOM)" : "DID NOT refuse it",
           gpus, ok ? "multiplied it correctly" : "FAILED");
    spx_matrix_destroy(A);
    return oom && ok ? 0 : 1;
}
