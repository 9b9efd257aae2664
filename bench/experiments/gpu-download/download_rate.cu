/* Where the time of a large device -> host copy goes (issue 13: SpGEMM's
 * "C to the host" runs at 17-19 GB/s on the H100 machine). One 512 MiB
 * device array is copied to the host in the ways below; each is timed
 * REPS times and the median printed in GB/s:
 *   pinned        one cudaMemcpy into cudaMallocHost memory (the link);
 *   staged-fresh  SpX's way (spgemm_dev.cu): chunks of STAGE bytes through
 *                 two pinned buffers, each copied out by all cores while the
 *                 next moves, into freshly malloc'd memory (first touch in
 *                 the copy);
 *   staged-warm   the same into memory already touched;
 *   staged-huge   into fresh memory aligned to 2 MiB with
 *                 madvise(MADV_HUGEPAGE);
 *   touch-fresh   only the parallel first touch (memset) of fresh memory;
 *   register      cudaHostRegister of fresh memory, then one cudaMemcpy
 *                 into it, then cudaHostUnregister (all timed).
 * Build and run (on the GPU machine):
 *   nvcc -O2 -arch=sm_90 -Xcompiler -fopenmp download_rate.cu -o download_rate
 *   ./download_rate [MiB] [stage MiB] */
#include <cuda_runtime.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <algorithm>
#include <vector>

#define REPS 5
#define CHECK(x)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (x);                                                           \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                    \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static double now() { return omp_get_wtime(); }

static void parallel_copy(char *dst, const char *src, size_t n)
{
#pragma omp parallel
    {
        size_t nt = omp_get_num_threads(), t = omp_get_thread_num();
        size_t piece = (n / nt + 4095) / 4096 * 4096, b = std::min(t * piece, n);
        size_t e = t + 1 == nt ? n : std::min(b + piece, n);
        if (e > b) memcpy(dst + b, src + b, e - b);
    }
}

static void parallel_touch(char *p, size_t n)
{
#pragma omp parallel for schedule(static)
    for (size_t off = 0; off < n; off += 4096) p[off] = 0;
}

static void staged(char *dst, const char *src, size_t bytes, size_t stage, char *buf[2],
                   cudaEvent_t done[2], cudaStream_t s)
{
    size_t prev = 0, prev_n = 0;
    int i = 0;
    for (size_t off = 0; off < bytes; off += stage, i ^= 1) {
        size_t n = std::min(stage, bytes - off);
        CHECK(cudaMemcpyAsync(buf[i], src + off, n, cudaMemcpyDeviceToHost, s));
        CHECK(cudaEventRecord(done[i], s));
        if (off > 0) {
            CHECK(cudaEventSynchronize(done[i ^ 1]));
            parallel_copy(dst + prev, buf[i ^ 1], prev_n);
        }
        prev = off;
        prev_n = n;
    }
    CHECK(cudaStreamSynchronize(s));
    parallel_copy(dst + prev, buf[i ^ 1], prev_n);
}

static void report(const char *what, std::vector<double> t, size_t bytes)
{
    std::sort(t.begin(), t.end());
    printf("%-14s %7.1f GB/s  (median %.2f ms, min %.2f, max %.2f)\n", what,
           bytes / t[t.size() / 2] / 1e9, t[t.size() / 2] * 1e3, t[0] * 1e3, t.back() * 1e3);
}

int main(int argc, char **argv)
{
    size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 512) << 20;
    size_t stage = (size_t)(argc > 2 ? atoi(argv[2]) : 16) << 20;
    char *dev, *pinned, *buf[2];
    cudaStream_t s;
    cudaEvent_t done[2];
    CHECK(cudaMalloc(&dev, bytes));
    CHECK(cudaMemset(dev, 1, bytes));
    CHECK(cudaMallocHost(&pinned, bytes));
    CHECK(cudaMallocHost(&buf[0], 2 * stage));
    buf[1] = buf[0] + stage;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done[0], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&done[1], cudaEventDisableTiming));
    printf("%zu MiB, stage %zu MiB, %d threads\n", bytes >> 20, stage >> 20, omp_get_max_threads());
    std::vector<double> t;
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        CHECK(cudaMemcpy(pinned, dev, bytes, cudaMemcpyDeviceToHost));
        t.push_back(now() - t0);
    }
    report("pinned", t, bytes);
    t.clear();
    for (int r = 0; r < REPS; r++) {
        char *h = (char *)malloc(bytes);
        double t0 = now();
        staged(h, dev, bytes, stage, buf, done, s);
        t.push_back(now() - t0);
        free(h);
    }
    report("staged-fresh", t, bytes);
    t.clear();
    char *warm = (char *)malloc(bytes);
    parallel_touch(warm, bytes);
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        staged(warm, dev, bytes, stage, buf, done, s);
        t.push_back(now() - t0);
    }
    free(warm);
    report("staged-warm", t, bytes);
    t.clear();
    for (int r = 0; r < REPS; r++) {
        void *h = NULL;
        if (posix_memalign(&h, (size_t)2 << 20, bytes)) return 1;
        madvise(h, bytes, MADV_HUGEPAGE);
        double t0 = now();
        staged((char *)h, dev, bytes, stage, buf, done, s);
        t.push_back(now() - t0);
        free(h);
    }
    report("staged-huge", t, bytes);
    t.clear();
    for (int r = 0; r < REPS; r++) {
        char *h = (char *)malloc(bytes);
        double t0 = now();
        parallel_touch(h, bytes);
        t.push_back(now() - t0);
        free(h);
    }
    report("touch-fresh", t, bytes);
    t.clear();
    for (int r = 0; r < REPS; r++) {
        char *h = (char *)malloc(bytes);
        double t0 = now();
        CHECK(cudaHostRegister(h, bytes, cudaHostRegisterDefault));
        CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost));
        CHECK(cudaHostUnregister(h));
        t.push_back(now() - t0);
        free(h);
    }
    report("register", t, bytes);
    return 0;
}
