/* The device pieces blas1's kernels share (blas1.cu, cg_step.cu).
 *
 * Kernels that end in dots: blocks of SPX__BLAS1_THREADS threads, each thread holding its running sums
 * acc[0..K). finish_dots sums each dot of a block by a tree into
 * partial[d*G + block] (G blocks, G*K <= SPX__CUDA_DOT_PARTIALS); the last block to finish (a ticket taken after a
 * fence, the reduction sample's pattern) sums partial[d*G + 0..G) by the
 * same tree, in block order whichever block it is, and its thread 0 hands the K
 * results to the tail and puts the ticket back to 0 for the next launch.
 * A kernel whose threads visit the entries in dots's order (i =
 * block*THREADS + thread + m*stride) sums them the same way.
 *
 * lincomb_entry: one entry of y = alpha*x + beta*y + gamma*z, in double, in
 * that order, a coefficient 0 not reading its vector. */
#ifndef SPX_CUDA_BLAS1_KERNELS_CUH
#define SPX_CUDA_BLAS1_KERNELS_CUH

#include "cuda/blas1/blas1.h"

#define SPX__BLAS1_THREADS 256

/* Where K dot results go: out[d] (device or pinned host memory), or
 * regs[dst[d]] followed by the program p and a copy of the registers to
 * publish (pinned host memory; NULL: none). */
struct dot_tail {
    double *out, *regs, *publish;
    int dst[SPX__CUDA_DOTS_MAX];
    spx__sprog p;
};

/* A CUDA error of the launch just made as SPX_ERR_DEVICE naming what. */
spx_status spx__blas1_launch_status(const char *what);

/* Tree sum of the block's SPX__BLAS1_THREADS values in s[]; the total lands in s[0]. */
static __device__ void block_sum(double *s)
{
    for (int half = SPX__BLAS1_THREADS / 2; half > 0; half /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    }
    __syncthreads();
}

/* p on regs, then regs published (one thread). */
static __device__ void run_program(double *regs, const spx__sprog &p, double *publish)
{
    spx__sprog_run(regs, &p);
    if (publish)
        for (int r = 0; r < SPX__S_REGS; r++)
            publish[r] = regs[r];
}

/* Every thread of the block, with its sums acc[0..K). */
template <int K>
static __device__ void finish_dots(const double *acc, double *partial, unsigned *ticket,
                                   const dot_tail &tail)
{
    __shared__ double s[SPX__BLAS1_THREADS];
    __shared__ bool last;
    for (int d = 0; d < K; d++) {
        s[threadIdx.x] = acc[d];
        block_sum(s);
        if (threadIdx.x == 0) partial[d * gridDim.x + blockIdx.x] = s[0];
    }
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    for (int d = 0; d < K; d++) {
        double sum = 0.0;
        for (unsigned j = threadIdx.x; j < gridDim.x; j += SPX__BLAS1_THREADS)
            sum += __ldcg(&partial[d * gridDim.x + j]);
        s[threadIdx.x] = sum;
        block_sum(s);
        if (threadIdx.x == 0) {
            if (tail.regs)
                tail.regs[tail.dst[d]] = s[0];
            else
                tail.out[d] = s[0];
        }
    }
    if (threadIdx.x != 0) return;
    *ticket = 0;
    if (tail.regs) run_program(tail.regs, tail.p, tail.publish);
}

template <typename T>
static __device__ double lincomb_entry(double alpha, T x, double beta, const T *y, double gamma,
                                       const T *z)
{
    double v = alpha * (double)x;
    if (beta != 0.0) v += beta * (double)*y;
    if (gamma != 0.0) v += gamma * (double)*z;
    return v;
}

/* The tail of a launch: its dots to partial (one part of a multi solve:
 * no program), else into regs[dst[d]] followed by p and publish. */
static inline dot_tail dot_tail_of(double *regs, double *partial, const int *dst, int k,
                                   const spx__sprog *p, double *publish)
{
    dot_tail tail = {};
    if (partial) {
        tail.out = partial;
        return tail;
    }
    tail.regs = regs;
    tail.publish = publish;
    tail.p = *p;
    for (int d = 0; d < k && d < SPX__CUDA_DOTS_MAX; d++)
        tail.dst[d] = dst[d];
    return tail;
}

/* The ticket after the block sums of scratch (SPX__CUDA_DOT_SCRATCH doubles). */
static inline unsigned *dot_ticket(double *scratch)
{
    return (unsigned *)(scratch + SPX__CUDA_DOT_PARTIALS);
}

#endif
