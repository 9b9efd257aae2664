/* DASP against cuSPARSE CSR SpMV (CUSPARSE_SPMV_ALG_DEFAULT), same process,
 * same matrix, same x (values of A as stored, x uniform in [-1, 1)).
 *   dasp_vs_cusparse [-p f64|f16] [-n calls] [-o dasp-params] MATRIX...
 * MATRIX is a file (.mtx, .mtx.gz, .spx) or a generator spec ("lap3d27:96").
 * With -p f16 the values are first scaled to at most 1 in size (half's range);
 * DASP takes x and y in float, cuSPARSE in half (the only fp16-valued SpMV it
 * offers), both summing in fp32.
 * For each: DASP's preprocessing time, then CALLS calls of each after 100 of
 * warm-up, in 11 alternating batches timed with CUDA events; the median batch
 * gives the time per call. Prints per matrix the two times, GFLOP/s, the ratio
 * cuSPARSE/DASP, the largest difference of the two y relative to
 * (|A||x|)_inf, the bytes model's GB/s for DASP, and the plan's description;
 * last the geometric mean of the ratios. Not built by CMake (it needs
 * cuSPARSE, which the library does not): build with
 *   g++ -O2 -std=c++17 -Iinclude -I$CUDA/include dasp_vs_cusparse.cpp \
 *       build/libspx.a -L$CUDA/lib64 -lcusparse -lcudart -lgomp -lz -lm */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "spx.h"

#define CU(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                \
                    cudaGetErrorString(e_));                                             \
            exit(2);                                                                     \
        }                                                                                \
    } while (0)
#define SP(call)                                                                         \
    do {                                                                                 \
        cusparseStatus_t s_ = (call);                                                    \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                \
                    cusparseGetErrorString(s_));                                         \
            exit(2);                                                                     \
        }                                                                                \
    } while (0)

static const int BATCHES = 11;

struct csr_dev {
    cusparseHandle_t h;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y;
    void *rp, *ci, *val, *buf;
};

template <class T> static T *upload(const std::vector<T> &v)
{
    T *d = nullptr;
    CU(cudaMalloc(&d, v.size() * sizeof(T) + 1));
    CU(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

/* cuSPARSE CSR of A (int32 indices) with values of type vt, x and y of ct. */
static csr_dev cusparse_setup(const spx_matrix *A, bool f16, void *dx, void *dy)
{
    int64_t m, n, nnz;
    const int64_t *rp;
    const void *ci, *vv;
    int bits;
    spx_type vt;
    spx_matrix_dims(A, &m, &n, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, &vv, &vt);
    std::vector<int32_t> r32(m + 1), c32(nnz);
    for (int64_t i = 0; i <= m; i++) r32[i] = (int32_t)rp[i];
    for (int64_t k = 0; k < nnz; k++) c32[k] = ((const int32_t *)ci)[k];
    csr_dev c;
    c.rp = upload(r32);
    c.ci = upload(c32);
    if (f16) {
        std::vector<__half> v(nnz);
        for (int64_t k = 0; k < nnz; k++) v[k] = __double2half(((const double *)vv)[k]);
        c.val = upload(v);
    } else {
        std::vector<double> v((const double *)vv, (const double *)vv + nnz);
        c.val = upload(v);
    }
    cudaDataType at = f16 ? CUDA_R_16F : CUDA_R_64F, xt = f16 ? CUDA_R_16F : CUDA_R_64F;
    cudaDataType ct = f16 ? CUDA_R_32F : CUDA_R_64F;
    SP(cusparseCreate(&c.h));
    SP(cusparseCreateCsr(&c.A, m, n, nnz, c.rp, c.ci, c.val, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, at));
    SP(cusparseCreateDnVec(&c.x, n, dx, xt));
    SP(cusparseCreateDnVec(&c.y, m, dy, xt));
    size_t bytes = 0;
    double one = 1.0, zero = 0.0;
    float onef = 1.f, zerof = 0.f;
    const void *al = f16 ? (const void *)&onef : (const void *)&one;
    const void *be = f16 ? (const void *)&zerof : (const void *)&zero;
    SP(cusparseSpMV_bufferSize(c.h, CUSPARSE_OPERATION_NON_TRANSPOSE, al, c.A, c.x, be, c.y, ct,
                               CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    CU(cudaMalloc(&c.buf, bytes + 1));
    SP(cusparseSpMV_preprocess(c.h, CUSPARSE_OPERATION_NON_TRANSPOSE, al, c.A, c.x, be, c.y, ct,
                               CUSPARSE_SPMV_ALG_DEFAULT, c.buf));
    return c;
}

static void cusparse_run(const csr_dev &c, bool f16)
{
    double one = 1.0, zero = 0.0;
    float onef = 1.f, zerof = 0.f;
    const void *al = f16 ? (const void *)&onef : (const void *)&one;
    const void *be = f16 ? (const void *)&zerof : (const void *)&zero;
    SP(cusparseSpMV(c.h, CUSPARSE_OPERATION_NON_TRANSPOSE, al, c.A, c.x, be, c.y,
                    f16 ? CUDA_R_32F : CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, c.buf));
}

static void cusparse_free(csr_dev &c)
{
    cusparseDestroySpMat(c.A);
    cusparseDestroyDnVec(c.x);
    cusparseDestroyDnVec(c.y);
    cusparseDestroy(c.h);
    cudaFree(c.rp), cudaFree(c.ci), cudaFree(c.val), cudaFree(c.buf);
}

/* Median over batches of the time per call (ms) of a and b, batches alternating. */
template <class FA, class FB>
static void time_pair(FA a, FB b, int calls, double *ta, double *tb)
{
    cudaEvent_t e0, e1;
    CU(cudaEventCreate(&e0));
    CU(cudaEventCreate(&e1));
    for (int k = 0; k < 100; k++) a(), b();
    std::vector<double> va, vb;
    for (int r = 0; r < BATCHES; r++) {
        for (int which = 0; which < 2; which++) {
            CU(cudaEventRecord(e0));
            for (int k = 0; k < calls; k++) which ? b() : a();
            CU(cudaEventRecord(e1));
            CU(cudaEventSynchronize(e1));
            float ms;
            CU(cudaEventElapsedTime(&ms, e0, e1));
            (which ? vb : va).push_back(ms / calls);
        }
    }
    std::sort(va.begin(), va.end());
    std::sort(vb.begin(), vb.end());
    *ta = va[BATCHES / 2];
    *tb = vb[BATCHES / 2];
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

static spx_status load(const char *what, spx_matrix **A)
{
    return strchr(what, ':') && !strchr(what, '/') ? spx_generate(what, A)
                                                   : spx_matrix_read(what, A);
}

/* max |y1 - y2| / (|A||x|)_inf. */
static double compare(const spx_matrix *A, const std::vector<double> &x,
                      const std::vector<double> &y1, const std::vector<double> &y2)
{
    int64_t m, n, nnz;
    const int64_t *rp;
    const void *ci, *vv;
    int bits;
    spx_type vt;
    spx_matrix_dims(A, &m, &n, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, &vv, &vt);
    double scale = 0.0, err = 0.0;
    for (int64_t i = 0; i < m; i++) {
        double s = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            s += std::fabs(((const double *)vv)[k] * x[((const int32_t *)ci)[k]]);
        scale = std::max(scale, s);
        err = std::max(err, std::fabs(y1[i] - y2[i]));
    }
    return scale > 0.0 ? err / scale : err;
}

/* A copy of A with values scaled to at most 1 in size (for fp16). */
static spx_matrix *scaled(spx_matrix *A)
{
    int64_t m, n, nnz;
    const int64_t *rp;
    const void *ci, *vv;
    int bits;
    spx_type vt;
    spx_matrix_dims(A, &m, &n, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, &vv, &vt);
    std::vector<double> v((const double *)vv, (const double *)vv + nnz);
    double big = 0.0;
    for (double a : v) big = std::max(big, std::fabs(a));
    for (double &a : v) a /= big > 0.0 ? big : 1.0;
    spx_matrix *S = nullptr;
    if (spx_matrix_create_csr(m, n, rp, (const int32_t *)ci, v.data(), &S) != SPX_OK) exit(2);
    spx_matrix_destroy(A);
    return S;
}

static int bench_one(const char *what, bool f16, const char *params, int calls, double *ratio)
{
    spx_matrix *A = nullptr;
    spx_plan *P = nullptr;
    if (load(what, &A) != SPX_OK) {
        fprintf(stderr, "%s: %s\n", what, spx_last_error());
        return 1;
    }
    if (f16) A = scaled(A);
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "dasp";
    o.device = SPX_DEV_CUDA;
    o.precision = f16 ? SPX_F16 : SPX_F64;
    o.params = params;
    if (spx_plan_create(A, SPX_OP_SPMV, &o, &P) != SPX_OK) {
        fprintf(stderr, "%s: plan: %s\n", what, spx_last_error());
        spx_matrix_destroy(A);
        return 1;
    }
    size_t es = f16 ? sizeof(float) : sizeof(double);
    std::vector<double> x(n), yd(m), yc(m);
    uint64_t s = 12345;
    for (auto &v : x) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v = (double)(s >> 11) * 0x1p-52 - 1.0;
        if (f16) v = (float)v;
    }
    std::vector<char> xb(n * es + 1), yb(m * es + 1);
    for (int64_t j = 0; j < n; j++)
        if (f16) ((float *)xb.data())[j] = (float)x[j];
        else ((double *)xb.data())[j] = x[j];
    void *dx, *dyd, *dyc, *dxc = nullptr;
    CU(cudaMalloc(&dx, n * es + 1));
    CU(cudaMalloc(&dyd, m * es + 1));
    CU(cudaMalloc(&dyc, m * es + 1));
    CU(cudaMemcpy(dx, xb.data(), n * es, cudaMemcpyHostToDevice));
    if (f16) { /* cuSPARSE's x and y in half */
        std::vector<__half> xh(n + 1);
        for (int64_t j = 0; j < n; j++) xh[j] = __double2half(x[j]);
        CU(cudaMalloc(&dxc, (n + 1) * sizeof(__half)));
        CU(cudaMemcpy(dxc, xh.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
    }
    csr_dev c = cusparse_setup(A, f16, f16 ? dxc : dx, dyc);
    auto run_dasp = [&] {
        if (spx_spmv(P, 1.0, dx, 0.0, dyd) != SPX_OK) {
            fprintf(stderr, "%s: spmv: %s\n", what, spx_last_error());
            exit(2);
        }
    };
    auto run_cusp = [&] { cusparse_run(c, f16); };
    run_dasp();
    run_cusp();
    CU(cudaDeviceSynchronize());
    for (int pass = 0; pass < 2; pass++) {
        CU(cudaMemcpy(yb.data(), pass ? dyc : dyd, m * es, cudaMemcpyDeviceToHost));
        std::vector<double> &y = pass ? yc : yd;
        for (int64_t i = 0; i < m; i++)
            y[i] = !f16 ? ((double *)yb.data())[i]
                 : pass ? (double)__half2float(((__half *)yb.data())[i])
                        : ((float *)yb.data())[i];
    }
    double diff = compare(A, x, yd, yc);
    double td, tc;
    time_pair(run_dasp, run_cusp, calls, &td, &tc);
    CU(cudaGetLastError());
    double vb = f16 ? 2.0 : 8.0, xb_ = f16 ? 4.0 : 8.0;
    double bytes = (vb + 4.0) * nnz + 8.0 * (m + 1) + xb_ * n + xb_ * m;
    *ratio = tc / td;
    printf("%-34s %9lld %10lld %8.1f %9.2f %9.2f %7.1f %7.1f %6.2f %8.1e %7.0f  %s\n", what,
           (long long)m, (long long)nnz, spx_plan_prep_ms(P), td * 1e3, tc * 1e3,
           2.0 * nnz / td * 1e-6, 2.0 * nnz / tc * 1e-6, *ratio, diff, bytes / td * 1e-6,
           spx_plan_describe(P));
    fflush(stdout);
    cusparse_free(c);
    cudaFree(dx), cudaFree(dyd), cudaFree(dyc), cudaFree(dxc);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    return 0;
}

int main(int argc, char **argv)
{
    bool f16 = false;
    const char *params = nullptr;
    int calls = 200, first = 1;
    for (; first < argc && argv[first][0] == '-'; first += 2) {
        if (first + 1 >= argc) break;
        if (!strcmp(argv[first], "-p")) f16 = !strcmp(argv[first + 1], "f16");
        else if (!strcmp(argv[first], "-n")) calls = atoi(argv[first + 1]);
        else if (!strcmp(argv[first], "-o")) params = argv[first + 1];
    }
    printf("%-34s %9s %10s %8s %9s %9s %7s %7s %6s %8s %7s  %s\n", "matrix", "rows", "nnz",
           "prep_ms", "dasp_us", "cusp_us", "GF_dasp", "GF_cusp", "ratio", "y_diff", "GB/s",
           f16 ? "describe (f16)" : "describe (f64)");
    double logsum = 0.0;
    int count = 0, fails = 0;
    for (int k = first; k < argc; k++) {
        double r;
        if (bench_one(argv[k], f16, params, calls, &r) == 0) logsum += std::log(r), count++;
        else fails++;
    }
    if (count) printf("geometric mean of cusparse/dasp over %d matrices: %.3f\n", count,
                      std::exp(logsum / count));
    return fails != 0;
}
