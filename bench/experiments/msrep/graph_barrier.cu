/* What a barrier across GPUs costs inside one CUDA graph: the question
 * behind the multi solvers' fixed cost an iteration (about 45-70 us on 4
 * H200s, bench/results/multi-solve-4gpu-2026-11-27.md).
 *
 * Every graph is K steps; a step is one small kernel (one block) on each
 * GPU's stream. The variants differ in what orders the steps:
 *   local   each GPU's kernels follow each other on its stream, no edge
 *           between GPUs (the floor: a kernel node after a kernel node);
 *   events  after every step each GPU's stream waits for an event of every
 *           other GPU's stream (captured: edges between devices in the
 *           graph), as the solvers' sums across GPUs do today;
 *   lead    each step's kernels wait for GPU 0's, and GPU 0's next for all
 *           of theirs (a fork and join through one GPU);
 *   ring    each GPU's stream waits for the next GPU's only;
 *   flags   no edge between GPUs: each kernel counts its own epoch, stores
 *           it into a flag of every peer's (system-scope release) and spins
 *           until every peer's flag for it has reached the epoch (acquire);
 *   one     the local chain on GPU 0 alone (one GPU's node cost).
 * events and flags also queued on the streams, not recorded.
 * Prints us a step (median of R replays of the K-step graph, GPU 0's
 * events around each launch; the graph waits for every GPU).
 * Usage: graph_barrier [K (100)] [R (20)]; every visible GPU. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { MAXG = 8 };
static int G;
static cudaStream_t stream[MAXG];
static cudaEvent_t ev[MAXG];
static double *work[MAXG];
/* flags[g][h]: the last epoch GPU h reached, in GPU g's memory; epoch[g]: GPU g's own count */
static unsigned long long *flags[MAXG], *epoch[MAXG];

__global__ void touch(double *w)
{
    w[threadIdx.x] += 1.0;
}

struct peers {
    unsigned long long *flag[MAXG]; /* flag[h] = &flags[h][me] */
};

/* Store my epoch into every peer's flag for me, then wait for every peer's. */
__global__ void flag_barrier(double *w, unsigned long long *my_epoch, unsigned long long *my_flags,
                             peers p, int me, int g)
{
    w[threadIdx.x] += 1.0;
    __syncthreads();
    if (threadIdx.x != 0) return;
    unsigned long long e = ++*my_epoch;
    __threadfence_system();
    for (int h = 0; h < g; h++)
        if (h != me) atomicExch(p.flag[h], e); /* a system-visible store */
    for (int h = 0; h < g; h++) {
        if (h == me) continue;
        volatile unsigned long long *f = my_flags + h;
        while (*f < e) {
        }
    }
    __threadfence_system();
}

static void all_wait_all(void)
{
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaEventRecord(ev[g], stream[g]));
    }
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        for (int h = 0; h < G; h++)
            if (h != g) CHECK(cudaStreamWaitEvent(stream[g], ev[h], 0));
    }
}

static void lead_fork_join(void)
{
    /* join: GPU 0 waits for all; fork: all wait for GPU 0 */
    for (int g = 1; g < G; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaEventRecord(ev[g], stream[g]));
    }
    CHECK(cudaSetDevice(0));
    for (int g = 1; g < G; g++)
        CHECK(cudaStreamWaitEvent(stream[0], ev[g], 0));
    CHECK(cudaEventRecord(ev[0], stream[0]));
    for (int g = 1; g < G; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaStreamWaitEvent(stream[g], ev[0], 0));
    }
}

/* each GPU waits for the next one only */
static void ring_wait(void)
{
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaEventRecord(ev[g], stream[g]));
    }
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaStreamWaitEvent(stream[g], ev[(g + 1) % G], 0));
    }
}

static void step(const char *kind, int gpus)
{
    for (int g = 0; g < gpus; g++) {
        CHECK(cudaSetDevice(g));
        if (strcmp(kind, "flags") == 0) {
            peers p;
            for (int h = 0; h < G; h++)
                p.flag[h] = flags[h] + g;
            flag_barrier<<<1, 32, 0, stream[g]>>>(work[g], epoch[g], flags[g], p, g, gpus);
        } else {
            touch<<<1, 32, 0, stream[g]>>>(work[g]);
        }
        CHECK(cudaGetLastError());
    }
    if (strcmp(kind, "events") == 0) all_wait_all();
    if (strcmp(kind, "lead") == 0) lead_fork_join();
    if (strcmp(kind, "ring") == 0) ring_wait();
}

static cudaGraphExec_t record(const char *kind, int k)
{
    int gpus = strcmp(kind, "one") == 0 ? 1 : G;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamBeginCapture(stream[0], cudaStreamCaptureModeThreadLocal));
    CHECK(cudaEventRecord(ev[0], stream[0]));
    for (int g = 1; g < gpus; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaStreamWaitEvent(stream[g], ev[0], 0));
    }
    for (int s = 0; s < k; s++)
        step(kind, gpus);
    for (int g = 1; g < gpus; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaEventRecord(ev[g], stream[g]));
        CHECK(cudaSetDevice(0));
        CHECK(cudaStreamWaitEvent(stream[0], ev[g], 0));
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamEndCapture(stream[0], &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
    return exec;
}

static int cmp(const void *a, const void *b);

/* The same steps queued on the streams, not recorded: us a step. */
static void measure_queued(const char *kind, int k, int r)
{
    cudaEvent_t t0, t1;
    float ms[256];
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    for (int i = 0; i <= r; i++) {
        CHECK(cudaSetDevice(0));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaEventRecord(t0, stream[0]));
        for (int g = 1; g < G; g++) {
            CHECK(cudaSetDevice(g));
            CHECK(cudaStreamWaitEvent(stream[g], t0, 0));
        }
        for (int s = 0; s < k; s++)
            step(kind, G);
        lead_fork_join();
        CHECK(cudaSetDevice(0));
        CHECK(cudaEventRecord(t1, stream[0]));
        CHECK(cudaEventSynchronize(t1));
        if (i > 0) CHECK(cudaEventElapsedTime(&ms[i - 1], t0, t1));
    }
    qsort(ms, (size_t)r, sizeof *ms, cmp);
    printf("%-7s %d GPUs  %7.2f us a step  [%.2f-%.2f]  queued, not recorded\n", kind, G,
           1000.0 * ms[r / 2] / k, 1000.0 * ms[0] / k, 1000.0 * ms[r - 1] / k);
}

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void measure(const char *kind, int k, int r)
{
    cudaGraphExec_t exec = record(kind, k);
    cudaEvent_t t0, t1;
    float ms[256];
    CHECK(cudaSetDevice(0));
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaGraphLaunch(exec, stream[0])); /* warm-up */
    CHECK(cudaStreamSynchronize(stream[0]));
    for (int i = 0; i < r; i++) {
        CHECK(cudaEventRecord(t0, stream[0]));
        CHECK(cudaGraphLaunch(exec, stream[0]));
        CHECK(cudaEventRecord(t1, stream[0]));
        CHECK(cudaEventSynchronize(t1));
        CHECK(cudaEventElapsedTime(&ms[i], t0, t1));
    }
    qsort(ms, (size_t)r, sizeof *ms, cmp);
    printf("%-7s %d GPUs  %7.2f us a step  [%.2f-%.2f]\n", kind, strcmp(kind, "one") ? G : 1,
           1000.0 * ms[r / 2] / k, 1000.0 * ms[0] / k, 1000.0 * ms[r - 1] / k);
    CHECK(cudaGraphExecDestroy(exec));
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 100, r = argc > 2 ? atoi(argv[2]) : 20;
    CHECK(cudaGetDeviceCount(&G));
    if (G > MAXG) G = MAXG;
    if (r > 256) r = 256;
    for (int g = 0; g < G; g++) {
        CHECK(cudaSetDevice(g));
        for (int h = 0; h < G; h++)
            if (h != g) {
                int ok = 0;
                CHECK(cudaDeviceCanAccessPeer(&ok, g, h));
                if (!ok) {
                    fprintf(stderr, "GPU %d cannot reach GPU %d\n", g, h);
                    return 1;
                }
                CHECK(cudaDeviceEnablePeerAccess(h, 0));
            }
        CHECK(cudaStreamCreateWithFlags(&stream[g], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&ev[g], cudaEventDisableTiming));
        CHECK(cudaMalloc(&work[g], 32 * sizeof(double)));
        CHECK(cudaMemset(work[g], 0, 32 * sizeof(double)));
        CHECK(cudaMalloc(&flags[g], MAXG * sizeof(unsigned long long)));
        CHECK(cudaMemset(flags[g], 0, MAXG * sizeof(unsigned long long)));
        CHECK(cudaMalloc(&epoch[g], sizeof(unsigned long long)));
        CHECK(cudaMemset(epoch[g], 0, sizeof(unsigned long long)));
        CHECK(cudaDeviceSynchronize());
    }
    printf("graph_barrier: %d GPUs, %d steps a graph, %d replays\n", G, k, r);
    const char *kinds[] = {"one", "local", "events", "lead", "ring", "flags"};
    for (int i = 0; i < 6; i++)
        measure(kinds[i], k, r);
    measure_queued("events", k, r);
    measure_queued("flags", k, r);
    return 0;
}
