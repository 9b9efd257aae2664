/* Where the per-call floor of a small SpMV goes (gpu-pdl-2026-11-22.md): in
 * one process, per call, the host time to enqueue (the loop without a sync)
 * and the total (the loop plus one sync), for
 *  - an empty kernel, <<<1, 32>>> and cudaLaunchKernelEx with the
 *    programmatic-serialization attribute (the launch rate alone), the
 *    latter also on a created non-blocking stream and through the driver's
 *    cuLaunchKernelEx (link with -lcuda);
 *  - spx_spmv of csr on gen:lap2d5:20 (1,920 nonzeros) and of the file given,
 *    with pdl=on and pdl=off;
 *  - the solver case: spx_spmv followed by a foreign kernel (an axpy on y,
 *    launched plainly) in each iteration, pdl=on and off, and the axpy alone.
 * Medians of 7 batches of 20,000 calls. Not part of the build; compiled by
 * hand on the GPU machine against libspx.a (and -lcuda). Usage: gpu-pdl-floor [file.mtx]. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>

extern "C" {
#include "spx.h"
}

static const int CALLS = 20000, BATCHES = 7;

__global__ void empty_kernel() {}

__global__ void axpy_kernel(int64_t n, const double *x, double *y)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0.5 * y[i] + 1e-3 * x[i];
}

static double now_us()
{
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct result {
    double enqueue_us, total_us; /* per call */
};

/* Median over batches of the per-call enqueue and total times of body(). */
template <typename F> static result measure(F body)
{
    double enq[BATCHES], tot[BATCHES];
    for (int b = -1; b < BATCHES; b++) { /* b = -1: warm-up */
        cudaDeviceSynchronize();
        double t0 = now_us();
        for (int k = 0; k < CALLS; k++)
            body();
        double t1 = now_us();
        cudaDeviceSynchronize();
        double t2 = now_us();
        if (b >= 0) {
            enq[b] = (t1 - t0) / CALLS;
            tot[b] = (t2 - t0) / CALLS;
        }
    }
    std::sort(enq, enq + BATCHES);
    std::sort(tot, tot + BATCHES);
    return {enq[BATCHES / 2], tot[BATCHES / 2]};
}

static void report(const char *what, result r)
{
    std::printf("%-48s enqueue %6.2f us/call   total %6.2f us/call\n", what, r.enqueue_us,
                r.total_us);
}

static spx_plan *plan_of(const spx_matrix *A, const char *params)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.format = "csr";
    o.params = params;
    spx_plan *P = NULL;
    if (spx_plan_create(A, SPX_OP_SPMV, &o, &P) != SPX_OK) {
        std::fprintf(stderr, "plan: %s\n", spx_last_error());
        std::exit(1);
    }
    return P;
}

static void matrix_cases(const char *name, const spx_matrix *A)
{
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    double *x, *y;
    cudaMalloc(&x, (size_t)n * sizeof *x);
    cudaMalloc(&y, (size_t)m * sizeof *y);
    cudaMemset(x, 0, (size_t)n * sizeof *x);
    cudaMemset(y, 0, (size_t)m * sizeof *y);
    const unsigned axpy_grid = (unsigned)((m + 255) / 256);
    char what[160];
    for (int pdl = 1; pdl >= 0; pdl--) {
        spx_plan *P = plan_of(A, pdl ? "pdl=on" : "pdl=off");
        std::snprintf(what, sizeof what, "%s spx_spmv pdl=%s", name, pdl ? "on" : "off");
        report(what, measure([&] { spx_spmv(P, 1.0, x, 0.0, y); }));
        std::snprintf(what, sizeof what, "%s spx_spmv + axpy pdl=%s", name, pdl ? "on" : "off");
        report(what, measure([&] {
                   spx_spmv(P, 1.0, x, 0.0, y);
                   axpy_kernel<<<axpy_grid, 256>>>(m < n ? m : n, y, x);
               }));
        spx_plan_destroy(P);
    }
    std::snprintf(what, sizeof what, "%s axpy alone", name);
    report(what, measure([&] { axpy_kernel<<<axpy_grid, 256>>>(m < n ? m : n, y, x); }));
    cudaFree(x);
    cudaFree(y);
}

int main(int argc, char **argv)
{
    report("empty kernel <<<1, 32>>>", measure([] { empty_kernel<<<1, 32>>>(); }));
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(32);
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    report("empty kernel cudaLaunchKernelEx + pdl attribute",
           measure([&] { cudaLaunchKernelEx(&cfg, empty_kernel); }));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaLaunchConfig_t cfg_s = cfg;
    cfg_s.stream = s;
    report("empty kernel cudaLaunchKernelEx, non-blocking stream",
           measure([&] { cudaLaunchKernelEx(&cfg_s, empty_kernel); }));
    cudaFunction_t fn_rt;
    cudaGetFuncBySymbol(&fn_rt, (const void *)empty_kernel);
    CUfunction fn = (CUfunction)fn_rt;
    CUlaunchAttribute dattr[1];
    dattr[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    dattr[0].value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig dcfg = {};
    dcfg.gridDimX = dcfg.gridDimY = dcfg.gridDimZ = 1;
    dcfg.blockDimX = 32;
    dcfg.blockDimY = dcfg.blockDimZ = 1;
    dcfg.attrs = dattr;
    dcfg.numAttrs = 1;
    report("empty kernel cuLaunchKernelEx (driver) + attribute",
           measure([&] { cuLaunchKernelEx(&dcfg, fn, NULL, NULL); }));
    cudaStreamDestroy(s);
    spx_matrix *A = NULL;
    if (spx_generate("lap2d5:20", &A) == SPX_OK) matrix_cases("lap2d5:20", A);
    spx_matrix_destroy(A);
    if (argc > 1 && spx_matrix_read(argv[1], &A) == SPX_OK) {
        const char *base = std::strrchr(argv[1], '/');
        matrix_cases(base ? base + 1 : argv[1], A);
        spx_matrix_destroy(A);
    }
    return 0;
}
