/* Gather throughput: x[col] from global memory (L2) against x held in the
 * distributed shared memory of a thread-block cluster (Hopper), issue 14.
 *
 * Every mode streams the same nnz (col, val) pairs (12 bytes each) and sums
 * val * x[col] per thread; they differ in where x lives:
 *   global   x in device memory, col uniform over `cols` (L2-bound gathers);
 *   cluster  x cut over the CS blocks of a cluster, each holding S doubles in
 *            its shared memory; col uniform over CS*S; rank = col / S.
 * One launch per mode; the best of 10 timed runs is printed. */
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));         \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

__global__ void gather_global(const uint32_t *col, const double *val, const double *x,
                              int64_t nnz, double *out)
{
    double s = 0;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nnz; i += stride)
        s += val[i] * __ldg(&x[col[i]]);
    out[(int64_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* Each cluster takes a contiguous share of the stream; col is relative to the
 * cluster's x range of CS*S entries; shift = log2(S). */
__global__ void gather_cluster(const uint32_t *col, const double *val, const double *x,
                               int64_t nnz, int shift, double *out)
{
    extern __shared__ double xs[];
    cg::cluster_group cl = cg::this_cluster();
    unsigned cs = cl.num_blocks();
    unsigned rank = cl.block_rank();
    int64_t S = (int64_t)1 << shift;
    for (int64_t j = threadIdx.x; j < S; j += blockDim.x) xs[j] = x[rank * S + j];
    cl.sync();
    int64_t clusters = gridDim.x / cs, cid = blockIdx.x / cs;
    int64_t per = (nnz + clusters - 1) / clusters;
    int64_t lo = cid * per, hi = lo + per < nnz ? lo + per : nnz;
    double s = 0;
    int64_t t = (int64_t)rank * blockDim.x + threadIdx.x, nt = (int64_t)cs * blockDim.x;
    for (int64_t i = lo + t; i < hi; i += nt) {
        uint32_t c = col[i];
        const double *p = cl.map_shared_rank(xs, (unsigned)(c >> shift));
        s += val[i] * p[c & (S - 1)];
    }
    out[(int64_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
    cl.sync();
}

static float time_best(void (*launch)(void *), void *arg)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    float best = 1e30f;
    for (int r = 0; r < 11; r++) {
        CK(cudaEventRecord(a));
        launch(arg);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0 && ms < best) best = ms;
    }
    return best;
}

struct run {
    const uint32_t *col;
    const double *val, *x;
    int64_t nnz;
    double *out;
    int cs, shift, threads, clusters;
};

static void launch_global(void *p)
{
    run *r = (run *)p;
    gather_global<<<132 * 8, 256>>>(r->col, r->val, r->x, r->nnz, r->out);
}

static void launch_cluster(void *p)
{
    run *r = (run *)p;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(r->clusters * r->cs);
    c.blockDim = dim3(r->threads);
    c.dynamicSmemBytes = sizeof(double) << r->shift;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = r->cs;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    c.attrs = at;
    c.numAttrs = 1;
    CK(cudaLaunchKernelEx(&c, gather_cluster, r->col, r->val, r->x, r->nnz, r->shift, r->out));
}

int main(int argc, char **argv)
{
    int64_t nnz = argc > 1 ? atoll(argv[1]) : 32 << 20;
    int64_t gcols = 2000000;
    std::vector<uint32_t> hc(nnz);
    std::vector<double> hv(nnz, 1.0);
    uint64_t z = 88172645463325252ull;
    for (int64_t i = 0; i < nnz; i++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        hc[i] = (uint32_t)(z >> 11);
    }
    uint32_t *col, *colg;
    double *val, *x, *out;
    CK(cudaMalloc(&col, nnz * 4));
    CK(cudaMalloc(&colg, nnz * 4));
    CK(cudaMalloc(&val, nnz * 8));
    CK(cudaMalloc(&x, gcols * 8));
    CK(cudaMalloc(&out, (size_t)132 * 8 * 1024 * 8));
    CK(cudaMemcpy(val, hv.data(), nnz * 8, cudaMemcpyHostToDevice));
    std::vector<double> hx(gcols, 0.5);
    CK(cudaMemcpy(x, hx.data(), gcols * 8, cudaMemcpyHostToDevice));
    std::vector<uint32_t> tmp(nnz);
    for (int64_t i = 0; i < nnz; i++) tmp[i] = hc[i] % gcols;
    CK(cudaMemcpy(colg, tmp.data(), nnz * 4, cudaMemcpyHostToDevice));
    run r = {colg, val, x, nnz, out, 0, 0, 0, 0};
    float ms = time_best(launch_global, &r);
    printf("global   cols=%lld: %.3f ms, %.1f G gathers/s\n", (long long)gcols, ms,
           nnz / ms / 1e6);
    CK(cudaFuncSetAttribute(gather_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(gather_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            200 * 1024));
    int shifts[] = {12, 13, 14};
    int css[] = {1, 2, 4, 8, 16};
    int ths[] = {512, 1024};
    for (int si = 0; si < 3; si++)
        for (int ci = 0; ci < 5; ci++)
            for (int ti = 0; ti < 2; ti++) {
                r.cs = css[ci], r.shift = shifts[si], r.threads = ths[ti];
                int64_t range = (int64_t)r.cs << r.shift;
                for (int64_t i = 0; i < nnz; i++) tmp[i] = (uint32_t)(hc[i] % range);
                CK(cudaMemcpy(col, tmp.data(), nnz * 4, cudaMemcpyHostToDevice));
                r.col = col;
                cudaLaunchConfig_t c = {};
                c.blockDim = dim3(r.threads);
                c.dynamicSmemBytes = sizeof(double) << r.shift;
                cudaLaunchAttribute at[1];
                at[0].id = cudaLaunchAttributeClusterDimension;
                at[0].val.clusterDim.x = r.cs;
                at[0].val.clusterDim.y = 1;
                at[0].val.clusterDim.z = 1;
                c.attrs = at;
                c.numAttrs = 1;
                c.gridDim = dim3(r.cs * 132);
                int mc = 0;
                CK(cudaOccupancyMaxActiveClusters(&mc, gather_cluster, &c));
                if (mc <= 0) {
                    printf("cluster  cs=%d S=%d threads=%d: no cluster fits\n", r.cs, 1 << r.shift,
                           r.threads);
                    continue;
                }
                r.clusters = mc;
                ms = time_best(launch_cluster, &r);
                printf("cluster  cs=%2d S=%5d (%4lld KB a block) threads=%4d clusters=%3d: "
                       "%.3f ms, %.1f G gathers/s\n",
                       r.cs, 1 << r.shift, (8LL << r.shift) >> 10, r.threads, mc, ms,
                       nnz / ms / 1e6);
            }
    return 0;
}
