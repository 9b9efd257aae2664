/* CG's update and the dots that follow it, one pass over the vectors
 * (src/solve/cg.c), for every entry i:
 *   x_i += alpha p_i, r_i -= alpha q_i    alpha = regs[a]; nothing once regs[SPX__S_STOP] is set
 *   z_i  = d_i r_i                        with d (Jacobi)
 * then r'r and, with d, r'z over the new r and z into registers as
 * vdots_regs does. Each entry is computed as lincomb and mul compute it, and
 * the dots sum the entries in dots's order (kernels.cuh). It reads x, p, r,
 * q (and d) and writes x and r (and z): 6 passes over n entries (8 with d)
 * where two updates, the product and a dot kernel took 7 (11), and one
 * launch where they took 3 (4). */
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/blas1/blas1.h"
#include "cuda/blas1/kernels.cuh"

template <typename T, bool JACOBI>
__global__ void __launch_bounds__(SPX__BLAS1_THREADS)
    cg_step(int64_t n, const double *regs, int a, T *x, const T *p, T *r, const T *q, const T *d,
            T *z, double *partial, unsigned *ticket, dot_tail tail)
{
    const bool live = regs[SPX__S_STOP] == 0.0;
    const double alpha = regs[a], minus_alpha = -1.0 * alpha; /* lincomb's k * r[reg] */
    double acc[2] = {0.0, 0.0};
    const int64_t stride = (int64_t)gridDim.x * SPX__BLAS1_THREADS;
    for (int64_t i = (int64_t)blockIdx.x * SPX__BLAS1_THREADS + threadIdx.x; i < n; i += stride) {
        T ri = r[i];
        if (live) {
            x[i] = (T)lincomb_entry(alpha, p[i], 1.0, &x[i], 0.0, (const T *)NULL);
            ri = (T)lincomb_entry(minus_alpha, q[i], 1.0, &ri, 0.0, (const T *)NULL);
            r[i] = ri;
        }
        acc[0] += (double)ri * (double)ri;
        if (JACOBI) {
            const T zi = d[i] * ri;
            z[i] = zi;
            acc[1] += (double)ri * (double)zi;
        }
    }
    finish_dots<JACOBI ? 2 : 1>(acc, partial, ticket, tail);
}

template <typename T>
static void launch(int64_t n, const double *regs, int a, void *x, const void *p, void *r,
                   const void *q, const void *d, void *z, double *scratch, const dot_tail &tail,
                   cudaStream_t st)
{
    if (d)
        cg_step<T, true><<<SPX__CUDA_DOT_BLOCKS, SPX__BLAS1_THREADS, 0, st>>>(
            n, regs, a, (T *)x, (const T *)p, (T *)r, (const T *)q, (const T *)d, (T *)z, scratch,
            dot_ticket(scratch), tail);
    else
        cg_step<T, false><<<SPX__CUDA_DOT_BLOCKS, SPX__BLAS1_THREADS, 0, st>>>(
            n, regs, a, (T *)x, (const T *)p, (T *)r, (const T *)q, NULL, NULL, scratch,
            dot_ticket(scratch), tail);
}

extern "C" spx_status spx__cuda_vcg_step(int64_t n, spx_type t, double *regs, int a, void *x,
                                         const void *p, void *r, const void *q, const void *d,
                                         void *z, double *scratch, double *partial,
                                         const int *dst, const spx__sprog *prog, double *publish,
                                         void *stream)
{
    const dot_tail tail = dot_tail_of(regs, partial, dst, d ? 2 : 1, prog, publish);
    if (t == SPX_F64)
        launch<double>(n, regs, a, x, p, r, q, d, z, scratch, tail, (cudaStream_t)stream);
    else
        launch<float>(n, regs, a, x, p, r, q, d, z, scratch, tail, (cudaStream_t)stream);
    return spx__blas1_launch_status("CG step kernel");
}
