/* spx_cg_many's block operations on the device (many.h). A thread of a
 * column kernel has a column j of its chunk (blockIdx.y: columns c0 ..
 * c0 + kc) and a row lane r of rpb = THREADS / kc; it visits rows i = bx*rpb
 * + r + m*G*rpb, entry (i, j) at i*k + j, so a warp reads consecutive
 * entries of a row and the rows after it. The dots of a launch end in
 * finish_cols: the block's sums of column j folded over its row lanes,
 * stored as partial[(q*G + bx)*k + j], then the chunk's last block to take
 * a ticket adds the G block sums, each row lane a fixed stride of them
 * into 4 sums (added pairwise), and folds those (not one thread a column adding all G: its loads
 * would go one after another). */
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/blas1/kernels.cuh" /* spx__blas1_launch_status */
#include "cuda/blas1/many.h"
#include "solve/many_cols.h"

#define THREADS SPX__CUDA_MANY_THREADS
/* Blocks of a column launch, over every chunk; as SPX__CUDA_DOT_BLOCKS
 * (blas1.h) for one vector, where 1024 kept the loads in flight. */
#define MANY_BLOCKS 1024
#define FLAT_BLOCKS 4096

struct place {
    int64_t c0; /* the chunk's first column */
    int kc, rpb, r, lane;
    bool on; /* r < rpb: a thread past the last row lane idles */
};

static __device__ place place_of(int64_t k)
{
    place m;
    m.c0 = (int64_t)blockIdx.y * THREADS;
    m.kc = (int)min((int64_t)THREADS, k - m.c0);
    m.rpb = THREADS / m.kc;
    m.r = (int)threadIdx.x / m.kc;
    m.lane = (int)threadIdx.x % m.kc;
    m.on = m.r < m.rpb;
    return m;
}

/* Rows a thread visits: i = first, first + step, ... < n. */
#define FOR_ROWS(i, m, n)                                                                          \
    for (int64_t i = (int64_t)blockIdx.x * (m).rpb + (m).r; (m).on && i < (n);                     \
         i += (int64_t)gridDim.x * (m).rpb)

/* G blocks of the first chunk's rpb row lanes: about ROW_STEPS rows a
 * thread, at least MIN_BLOCKS (or one a row step) and at most MANY_BLOCKS
 * over every chunk; set by n and k only. The last block adds kc * G block
 * sums, so G is kept no larger than the rows need. */
#define ROW_STEPS 32
#define MIN_BLOCKS 256
static dim3 grid_of(int64_t n, int64_t k)
{
    int64_t chunks = (k + THREADS - 1) / THREADS, rpb = THREADS / (k < THREADS ? k : THREADS);
    int64_t steps = (n + rpb - 1) / rpb, most = MANY_BLOCKS / chunks;
    int64_t g = (steps + ROW_STEPS - 1) / ROW_STEPS;
    if (g < MIN_BLOCKS) g = steps < MIN_BLOCKS ? steps : MIN_BLOCKS;
    if (g > most) g = most;
    return dim3((unsigned)(g < 1 ? 1 : g), (unsigned)chunks);
}

struct fields {
    int f[2];
};

/* s[r*kc + lane] over the row lanes r < rpb into s[lane], by a tree (a
 * pairwise fold, the upper half onto the lower, the same for every launch
 * of this k); every thread of the block takes part. */
static __device__ void fold_lanes(double *s, const place &m)
{
    for (int len = m.rpb; len > 1;) {
        const int half = (len + 1) / 2;
        __syncthreads();
        if (m.on && m.r + half < len) s[m.r * m.kc + m.lane] += s[(m.r + half) * m.kc + m.lane];
        len = half;
    }
    __syncthreads();
}

/* Every thread of the block with its sums acc[0..Q); true in the chunk's
 * last block, which has then written col[f[q]*k + j]. A block's sum of
 * column j: its row lanes' folded; the total: row lane r adds the block
 * sums b = r, r + rpb, ... in order, then the lanes' are folded. */
template <int Q>
static __device__ bool finish_cols(const double *acc, const place &m, int64_t k, double *scratch,
                                   double *col, fields f)
{
    __shared__ double s[Q][THREADS];
    __shared__ bool last;
    const size_t g = gridDim.x;
    unsigned *tickets = (unsigned *)(scratch + 2 * g * (size_t)k);
    const int64_t j = m.c0 + m.lane;
    for (int q = 0; q < Q; q++) {
        s[q][threadIdx.x] = m.on ? acc[q] : 0.0;
        fold_lanes(s[q], m);
    }
    if ((int)threadIdx.x < m.kc) {
        for (int q = 0; q < Q; q++)
            scratch[(q * g + blockIdx.x) * (size_t)k + m.c0 + threadIdx.x] = s[q][threadIdx.x];
        __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&tickets[blockIdx.y], 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return false;
    for (int q = 0; q < Q; q++) {
        double sum[4] = {0.0, 0.0, 0.0, 0.0}; /* 4 loads in flight: the u-th block sum
                                                 of this lane goes to sum[u % 4] */
        for (size_t b = m.r; m.on && b < g; b += 4 * (size_t)m.rpb)
            for (int u = 0; u < 4; u++)
                if (b + u * (size_t)m.rpb < g)
                    sum[u] += __ldcg(&scratch[(q * g + b + u * (size_t)m.rpb) * (size_t)k + j]);
        s[q][threadIdx.x] = (sum[0] + sum[1]) + (sum[2] + sum[3]);
        fold_lanes(s[q], m);
        if ((int)threadIdx.x < m.kc) col[f.f[q] * k + m.c0 + threadIdx.x] = s[q][threadIdx.x];
    }
    if (threadIdx.x == 0) tickets[blockIdx.y] = 0;
    return true;
}

template <typename T> struct pairs {
    const T *a[2], *b[2];
};

template <typename T, int Q>
__global__ void __launch_bounds__(THREADS)
    bdots(int64_t n, int64_t k, pairs<T> v, fields f, double *col, double *scratch)
{
    const place m = place_of(k);
    const int64_t j = m.c0 + m.lane;
    double acc[Q] = {};
    FOR_ROWS(i, m, n)
    for (int q = 0; q < Q; q++)
        acc[q] += (double)v.a[q][i * k + j] * (double)v.b[q][i * k + j];
    finish_cols<Q>(acc, m, k, scratch, col, f);
}

/* x += alpha p, r -= alpha q (lincomb's arithmetic, cg_step.cu) where the
 * column moves; z = d .* r; the dots of the live columns, then the turn. */
template <typename T, bool JACOBI>
__global__ void __launch_bounds__(THREADS)
    bcg_step(int64_t n, int64_t k, double *col, int64_t it, double rtol, T *x, int64_t ldx,
             const T *p, T *r, const T *q, const T *d, T *z, double *scratch)
{
    const place m = place_of(k);
    const int64_t j = m.c0 + m.lane;
    double alpha = 0.0, acc[2] = {0.0, 0.0};
    const bool live = col[SPX__CM_LIVE * k + j] != 0.0;
    const bool moves = spx__cm_moves(col, k, j, &alpha);
    const double minus_alpha = -1.0 * alpha;
    FOR_ROWS(i, m, live ? n : 0)
    {
        const int64_t e = i * k + j;
        T ri = r[e];
        if (moves) {
            T *xi = &x[i * ldx + j];
            *xi = (T)(alpha * (double)p[e] + 1.0 * (double)*xi);
            ri = (T)(minus_alpha * (double)q[e] + 1.0 * (double)ri);
            r[e] = ri;
        }
        acc[0] += (double)ri * (double)ri;
        if (JACOBI) {
            const T zi = d[i] * ri;
            z[e] = zi;
            acc[1] += (double)ri * (double)zi;
        }
    }
    const fields f = {{SPX__CM_RR_NEW, SPX__CM_RZ_NEW}};
    if (finish_cols < JACOBI ? 2 : 1 > (acc, m, k, scratch, col, f) && (int)threadIdx.x < m.kc)
        spx__cm_apply(col, k, m.c0 + threadIdx.x, SPX__CM_TURN, it, rtol, JACOBI);
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    bdirection(int64_t n, int64_t k, const double *col, const T *z, T *p)
{
    const place m = place_of(k);
    const int64_t j = m.c0 + m.lane;
    if (col[SPX__CM_LIVE * k + j] == 0.0) return;
    const double beta = 1.0 * col[SPX__CM_BETA * k + j];
    FOR_ROWS(i, m, n)
    p[i * k + j] = (T)(1.0 * (double)z[i * k + j] + beta * (double)p[i * k + j]);
}

/* Entry-wise kernels: t = i*k + j over the n x k entries. */
template <typename T>
__global__ void bcopy(int64_t n, int64_t k, const T *src, int64_t lds, T *dst, int64_t ldd)
{
    const int64_t total = n * k, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const int64_t i = t / k, j = t - i * k;
        dst[i * ldd + j] = src[i * lds + j];
    }
}

template <typename T> __global__ void bdiag(int64_t n, int64_t k, const T *d, const T *src, T *dst)
{
    const int64_t total = n * k, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride)
        dst[t] = d[t / k] * src[t];
}

__global__ void bcols(int64_t k, double *col, int step, int64_t it, double rtol, int jacobi)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < k) spx__cm_apply(col, k, j, step, it, rtol, jacobi);
}

static unsigned flat_blocks(int64_t n, int64_t k)
{
    int64_t b = (n * k + THREADS - 1) / THREADS;
    return (unsigned)(b < 1 ? 1 : b > FLAT_BLOCKS ? FLAT_BLOCKS : b);
}

extern "C" size_t spx__cuda_many_scratch_doubles(int64_t n, int64_t k)
{
    const dim3 g = grid_of(n, k);
    return 2 * (size_t)g.x * (size_t)k + g.y;
}

extern "C" spx_status spx__cuda_bcopy(int64_t n, int64_t k, spx_type t, const void *src,
                                      int64_t lds, void *dst, int64_t ldd, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (t == SPX_F64)
        bcopy<<<flat_blocks(n, k), THREADS, 0, st>>>(n, k, (const double *)src, lds, (double *)dst,
                                                     ldd);
    else
        bcopy<<<flat_blocks(n, k), THREADS, 0, st>>>(n, k, (const float *)src, lds, (float *)dst,
                                                     ldd);
    return spx__blas1_launch_status("block copy kernel");
}

extern "C" spx_status spx__cuda_bdiag(int64_t n, int64_t k, spx_type t, const void *d,
                                      const void *src, void *dst, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (t == SPX_F64)
        bdiag<<<flat_blocks(n, k), THREADS, 0, st>>>(n, k, (const double *)d, (const double *)src,
                                                     (double *)dst);
    else
        bdiag<<<flat_blocks(n, k), THREADS, 0, st>>>(n, k, (const float *)d, (const float *)src,
                                                     (float *)dst);
    return spx__blas1_launch_status("block Jacobi kernel");
}

template <typename T>
static void launch_dots(int64_t n, int64_t k, int npairs, const void *const *a,
                        const void *const *b, fields f, double *col, double *scratch,
                        cudaStream_t st)
{
    pairs<T> v = {};
    for (int q = 0; q < npairs; q++) {
        v.a[q] = (const T *)a[q];
        v.b[q] = (const T *)b[q];
    }
    if (npairs == 2)
        bdots<T, 2><<<grid_of(n, k), THREADS, 0, st>>>(n, k, v, f, col, scratch);
    else
        bdots<T, 1><<<grid_of(n, k), THREADS, 0, st>>>(n, k, v, f, col, scratch);
}

extern "C" spx_status spx__cuda_bdots(int64_t n, int64_t k, spx_type t, int npairs,
                                      const void *const *a, const void *const *b, const int *field,
                                      double *col, double *scratch, void *stream)
{
    if (npairs < 1 || npairs > 2)
        return spx__error(SPX_ERR_INVALID_ARG, "%d column dots at once, not 1 or 2", npairs);
    fields f = {{field[0], npairs == 2 ? field[1] : field[0]}};
    if (t == SPX_F64)
        launch_dots<double>(n, k, npairs, a, b, f, col, scratch, (cudaStream_t)stream);
    else
        launch_dots<float>(n, k, npairs, a, b, f, col, scratch, (cudaStream_t)stream);
    return spx__blas1_launch_status("column dot kernel");
}

extern "C" spx_status spx__cuda_bcols(int64_t k, double *col, int step, int64_t it, double rtol,
                                      int jacobi, void *stream)
{
    unsigned blocks = (unsigned)((k + THREADS - 1) / THREADS);
    bcols<<<blocks, THREADS, 0, (cudaStream_t)stream>>>(k, col, step, it, rtol, jacobi);
    return spx__blas1_launch_status("column scalar kernel");
}

template <typename T>
static void launch_step(int64_t n, int64_t k, double *col, int64_t it, double rtol, void *x,
                        int64_t ldx, const void *p, void *r, const void *q, const void *d, void *z,
                        double *scratch, cudaStream_t st)
{
    if (d)
        bcg_step<T, true><<<grid_of(n, k), THREADS, 0, st>>>(n, k, col, it, rtol, (T *)x, ldx,
                                                             (const T *)p, (T *)r, (const T *)q,
                                                             (const T *)d, (T *)z, scratch);
    else
        bcg_step<T, false><<<grid_of(n, k), THREADS, 0, st>>>(n, k, col, it, rtol, (T *)x, ldx,
                                                              (const T *)p, (T *)r, (const T *)q,
                                                              NULL, NULL, scratch);
}

extern "C" spx_status spx__cuda_bcg_step(int64_t n, int64_t k, spx_type t, double *col, int64_t it,
                                         double rtol, void *x, int64_t ldx, const void *p, void *r,
                                         const void *q, const void *d, void *z, double *scratch,
                                         void *stream)
{
    if (t == SPX_F64)
        launch_step<double>(n, k, col, it, rtol, x, ldx, p, r, q, d, z, scratch,
                            (cudaStream_t)stream);
    else
        launch_step<float>(n, k, col, it, rtol, x, ldx, p, r, q, d, z, scratch,
                           (cudaStream_t)stream);
    return spx__blas1_launch_status("block CG step kernel");
}

extern "C" spx_status spx__cuda_bdirection(int64_t n, int64_t k, spx_type t, const double *col,
                                           const void *z, void *p, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (t == SPX_F64)
        bdirection<<<grid_of(n, k), THREADS, 0, st>>>(n, k, col, (const double *)z, (double *)p);
    else
        bdirection<<<grid_of(n, k), THREADS, 0, st>>>(n, k, col, (const float *)z, (float *)p);
    return spx__blas1_launch_status("block direction kernel");
}
