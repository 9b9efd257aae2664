/* Vector operations on the device for the Krylov solvers (src/solve/), the
 * reorder= layer of CUDA plans (src/plan/reorder.c) and the MPI executor's
 * resident vectors (src/multi/mpi/dist_spmv.c): n-vectors of type t
 * (SPX_F64: double, SPX_F32: float), on a stream.
 *
 * dots sums in double in a fixed order whatever the call: each of
 * SPX__CUDA_DOT_BLOCKS thread blocks sums a fixed stride of the entries
 * (a grid-stride loop, then a tree in shared memory) into scratch, and the
 * last block to finish sums those block sums, in block order, by the same
 * tree, so a result is the same bits from call to call and run to run. */
#ifndef SPX_CUDA_BLAS1_H
#define SPX_CUDA_BLAS1_H

#include <stdint.h>

#include "cuda/gateway.h"
#include "solve/scalars.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of every kernel that ends in dots. 1024 on an H200 (runs LB, LC,
 * 2026-11-27): CG on lap3d7:200 took 0.491-0.495 ms an iteration with 256
 * blocks for its one-pass step (too few loads in flight), 0.440-0.441 with
 * 1024 (512 and 2048 within 2%), and 0.421-0.432 with the dots at 1024 too;
 * the same on 2M-row vectors. The dots alone at 1024 (run KD) had gained
 * 2-5% on 8M rows and lost 1-4% on 2M. */
#ifndef SPX__CUDA_DOT_BLOCKS
#define SPX__CUDA_DOT_BLOCKS 1024
#endif
#define SPX__CUDA_DOTS_MAX 4
/* doubles: the block sums of a launch's dots, then a ticket */
#define SPX__CUDA_DOT_PARTIALS (SPX__CUDA_DOT_BLOCKS * SPX__CUDA_DOTS_MAX)
#define SPX__CUDA_DOT_SCRATCH (SPX__CUDA_DOT_PARTIALS + 1)

/* BiCGSTAB's closing step: its vectors, the registers of alpha and omega,
 * and the stop code of a solve whose s was small enough (x += alpha phat
 * alone). */
typedef struct spx__bicgstab_step {
    void *x, *r;
    const void *phat, *shat, *s, *t, *rhat;
    int alpha, omega;
    double half;
} spx__bicgstab_step;

/* The blas1 gateway (cuda/gateway.h; src/cuda/blas1/blas1.cu):
 * - vdots: out[d] = a[d] . b[d] for d < k <= SPX__CUDA_DOTS_MAX, in one
 *   launch, written by the device once the stream gets there (out in device
 *   memory, or pinned host memory, read after a wait for the stream);
 *   scratch is a device array of SPX__CUDA_DOT_SCRATCH doubles, zero before
 *   its first use, used by one stream at a time;
 * - vdots_regs: the same dots into registers of a solve's file regs
 *   (solve/scalars.h; device memory), regs[dst[d]] = a[d] . b[d], then the
 *   program p run on them by one thread, then, with publish non-NULL, the
 *   whole file copied there (pinned host memory, read after a wait);
 * - vscalars: p alone on regs, then published as vdots_regs does;
 * - vcombine: several devices' dots into one register file (regs on this
 *   device): regs[dst[j]] = sum over i < parts, in order, of
 *   partials[i][j] (j < k; partials a device array of pointers to each
 *   part's sums, on this device or a peer it reaches), then p and publish
 *   as vdots_regs: the multi solvers' dots summed where their registers are;
 * - partial (vlincomb_dot, vbicgstab_step, vcg_step): non-NULL, the dots go
 *   there (device memory) instead, dst, p and publish unused: one part of a
 *   multi solve, combined by vcombine;
 * - vlincomb: y = c[0]*x + c[1]*y + c[2]*z with the coefficients read from
 *   regs (spx__coef_value), nothing where regs[SPX__S_STOP] is set; as
 *   vaxpbypcz (a coefficient 0 does not read its vector);
 * - vlincomb_dot: vlincomb, then regs[dst] = y'y (of y as it is, updated
 *   or not), p and publish as vdots_regs;
 * - vbicgstab_step: BiCGSTAB's closing step in one pass (bicgstab_step.cu,
 *   the vectors and registers in *b): x += alpha phat + omega shat and r = s
 *   - omega t; where regs[SPX__S_STOP] is b->half, x += alpha phat alone;
 *   nothing where it is another code; then regs[dst[0]] = r'r and
 *   regs[dst[1]] = rhat'r, p and publish as vdots_regs;
 * - vcg_step: CG's update and its dots in one pass (cg_step.cu): x +=
 *   alpha p, r -= alpha q (alpha = regs[a], nothing once stopped), z = d .*
 *   r (d non-NULL), then regs[dst[0]] = r'r and regs[dst[1]] = r'z (d
 *   non-NULL), p and publish as vdots_regs;
 * - vaxpby: y = alpha*x + beta*y (beta == 0: y is not read);
 * - vaxpbypcz: y = alpha*x + beta*y + gamma*z, summed in double in that
 *   order (beta == 0: y is not read; gamma == 0: z is not read);
 * - vmul: y = d .* x, entry by entry (y may be x);
 * - vgather: dst[k] = src[map[k]] for k < n, entries of elem bytes (2, 4 or
 *   8: half, float, double); map is a device array of n indices into src,
 *   dst and src do not overlap;
 * - vscatter_add: y[map[k]] += x[k] for k < n, entries of type t; the n
 *   indices of map (a device array) are distinct. */
#define SPX__CUDA_BLAS1_API(S, Q, V)                                                               \
    S(spx__cuda_vdots, (int64_t n, spx_type t, int k, const void *const *a, const void *const *b,  \
                        double *scratch, double *out, void *stream))                               \
    S(spx__cuda_vdots_regs,                                                                        \
      (int64_t n, spx_type t, int k, const void *const *a, const void *const *b, double *scratch,  \
       double *regs, const int *dst, const spx__sprog *p, double *publish, void *stream))          \
    S(spx__cuda_vscalars, (double *regs, const spx__sprog *p, double *publish, void *stream))      \
    S(spx__cuda_vcombine, (double *regs, const double *const *partials, int parts, int k,          \
                           const int *dst, const spx__sprog *p, double *publish, void *stream))    \
    S(spx__cuda_vlincomb, (int64_t n, spx_type t, const spx__coef *c, const double *regs,          \
                           const void *x, void *y, const void *z, void *stream))                   \
    S(spx__cuda_vlincomb_dot,                                                                      \
      (int64_t n, spx_type t, const spx__coef *c, double *regs, const void *x, void *y,            \
       const void *z, double *scratch, double *partial, int dst, const spx__sprog *p,              \
       double *publish, void *stream))                                                             \
    S(spx__cuda_vbicgstab_step,                                                                    \
      (int64_t n, spx_type t, double *regs, const spx__bicgstab_step *b, double *scratch,          \
       double *partial, const int *dst, const spx__sprog *p, double *publish, void *stream))       \
    S(spx__cuda_vcg_step,                                                                          \
      (int64_t n, spx_type t, double *regs, int a, void *x, const void *p, void *r, const void *q, \
       const void *d, void *z, double *scratch, double *partial, const int *dst,                   \
       const spx__sprog *prog, double *publish, void *stream))                                     \
    S(spx__cuda_vaxpby,                                                                            \
      (int64_t n, spx_type t, double alpha, const void *x, double beta, void *y, void *stream))    \
    S(spx__cuda_vaxpbypcz, (int64_t n, spx_type t, double alpha, const void *x, double beta,       \
                            void *y, double gamma, const void *z, void *stream))                   \
    S(spx__cuda_vmul,                                                                              \
      (int64_t n, spx_type t, const void *d, const void *x, void *y, void *stream))                \
    S(spx__cuda_vgather,                                                                           \
      (int64_t n, size_t elem, const int32_t *map, const void *src, void *dst, void *stream))      \
    S(spx__cuda_vscatter_add,                                                                      \
      (int64_t n, spx_type t, const int32_t *map, const void *x, void *y, void *stream))

SPX__CUDA_DECLARE(SPX__CUDA_BLAS1_API)

#ifdef __cplusplus
}
#endif
#endif
