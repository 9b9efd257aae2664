/* BiCGSTAB's closing step and the dots that follow it, one pass over the
 * vectors (src/solve/bicgstab.c), for every entry i:
 *   x_i += alpha phat_i + omega shat_i, r_i = s_i - omega t_i
 * (alpha, omega from their registers) while the solve goes on; where it
 * stopped with code half (s small enough: x takes its half step and the
 * solve ends) x_i += alpha phat_i alone, r unchanged; nothing under any
 * other code. Then r'r and rhat'r into registers as vdots_regs does. Each
 * entry is computed as lincomb computes it and the dots sum in dots's
 * order (kernels.cuh). It reads x, phat, shat, s, t and rhat and writes x
 * and r: 8 passes over n entries (7 without a preconditioner, shat being s)
 * where two updates and a dot kernel took 9, and one launch for 3. */
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/blas1/blas1.h"
#include "cuda/blas1/kernels.cuh"

template <typename T>
__global__ void __launch_bounds__(SPX__BLAS1_THREADS)
    bicgstab_step(int64_t n, const double *regs, spx__bicgstab_step b, double *partial,
                  unsigned *ticket, dot_tail tail)
{
    const double state = regs[SPX__S_STOP];
    const bool full = state == 0.0, half = state == b.half;
    const double alpha = regs[b.alpha], omega = full ? regs[b.omega] : 0.0,
                 minus_omega = -1.0 * omega; /* lincomb's k * r[reg] */
    T *x = (T *)b.x, *r = (T *)b.r;
    const T *phat = (const T *)b.phat, *shat = (const T *)b.shat, *s = (const T *)b.s,
            *t = (const T *)b.t, *rhat = (const T *)b.rhat;
    double acc[2] = {0.0, 0.0};
    const int64_t stride = (int64_t)gridDim.x * SPX__BLAS1_THREADS;
    for (int64_t i = (int64_t)blockIdx.x * SPX__BLAS1_THREADS + threadIdx.x; i < n; i += stride) {
        if (full || half) x[i] = (T)lincomb_entry(alpha, phat[i], 1.0, &x[i], omega, shat + i);
        T ri;
        if (full) {
            ri = (T)lincomb_entry(1.0, s[i], 0.0, (const T *)NULL, minus_omega, t + i);
            r[i] = ri;
        } else {
            ri = r[i];
        }
        acc[0] += (double)ri * (double)ri;
        acc[1] += (double)rhat[i] * (double)ri;
    }
    finish_dots<2>(acc, partial, ticket, tail);
}

extern "C" spx_status spx__cuda_vbicgstab_step(int64_t n, spx_type t, double *regs,
                                               const spx__bicgstab_step *b, double *scratch,
                                               double *partial, const int *dst,
                                               const spx__sprog *p, double *publish, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    const dot_tail tail = dot_tail_of(regs, partial, dst, 2, p, publish);
    if (t == SPX_F64)
        bicgstab_step<double><<<SPX__CUDA_DOT_BLOCKS, SPX__BLAS1_THREADS, 0, st>>>(
            n, regs, *b, scratch, dot_ticket(scratch), tail);
    else
        bicgstab_step<float><<<SPX__CUDA_DOT_BLOCKS, SPX__BLAS1_THREADS, 0, st>>>(
            n, regs, *b, scratch, dot_ticket(scratch), tail);
    return spx__blas1_launch_status("BiCGSTAB step kernel");
}
