/* The vectors of a solve: n entries of type t (SPX_F64 double, else float)
 * in host memory for a CPU plan or device memory for a CUDA plan, or, for a
 * multi-device plan, its resident vectors (spx_multi_vector *; each
 * operation handed to multi/multi_solve.h). Each operation runs where the
 * vectors are; dot sums in double in a fixed order (CPU: fixed blocks summed
 * in block order; CUDA: cuda/blas1/blas1.h; multi: the parts' sums in part
 * order), so results do not depend on scheduling. */
#ifndef SPX_SOLVE_VEC_H
#define SPX_SOLVE_VEC_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/blas1/blas1.h" /* spx__bicgstab_step */
#include "multi/multi_solve.h"
#include "solve/scalars.h"
#include "spx.h"

#define SPX__V_RING 4 /* published register files in flight */

/* A host space whose vectors are one process's share of longer vectors
 * (the MPI solvers, spx_mpi.h): n_global entries in all. Every dot's local
 * sums go through allsum, which every process calls in the same order: v's
 * count doubles become their sums over the processes (added in process
 * order: the same bits everywhere), and the status returned is SPX_OK
 * only where every process passed SPX_OK as local (else, everywhere, a
 * failing process's), so no process is left waiting on another's error. */
typedef struct spx__vreduce {
    spx_status (*allsum)(void *ctx, double *v, int count, spx_status local);
    void *ctx;
    int64_t n_global;
} spx__vreduce;

typedef struct spx__vspace {
    int64_t n;
    spx_type t;      /* SPX_F64 or SPX_F32 */
    int cuda;        /* vectors in device memory */
    void *stream;    /* CUDA stream of the plan */
    double *scratch; /* CUDA: partial sums of dot (device, SPX__CUDA_DOT_SCRATCH) */
    double *dots;    /* CUDA: dot results, written by the device (pinned host, SPX__V_MAX_DOTS) */
    spx__multi_space *multi;    /* a multi-device plan's resident vectors, or NULL */
    const spx__vreduce *reduce; /* a host space shared by processes, or NULL */
    double *regs; /* the solve's scalar registers (scalars.h): device memory for CUDA, else host */
    double *partial; /* a part of a multi solve with device registers (multi_solve.c): where
                        its dots go (device memory), regs its device's file; both borrowed */
    double *ring;    /* SPX__V_RING published copies of them (pinned host memory for CUDA) */
    void *ring_ev[SPX__V_RING]; /* CUDA: recorded behind each copy's writer */
} spx__vspace;

/* The space of P's vectors; SPX_ERR_UNSUPPORTED for a non-square plan or x
 * in half. Free with spx__vspace_free. */
spx_status spx__vspace_init(const spx_plan *P, spx__vspace *s);
/* A space of n entries of type t (SPX_F64 or SPX_F32), this process's share
 * of vectors reduced by r (borrowed; NULL: not shared): host memory, or with
 * cuda set device memory of the current device, worked on in stream. A
 * shared CUDA space keeps its registers on the host: each dot waits for the
 * device, its sums are reduced, and the program runs on the host. */
spx_status spx__vspace_init_op(int64_t n, spx_type t, int cuda, void *stream, const spx__vreduce *r,
                               spx__vspace *s);
/* Whether s's registers are device memory: a CUDA space not shared by processes. */
static inline int spx__v_regs_on_device(const spx__vspace *s)
{
    return s->cuda && !s->reduce;
}
/* The entries of the whole vectors: r's n_global, else n. */
int64_t spx__v_global_n(const spx__vspace *s);
/* The space of a multi-device plan's resident vectors (square plans). */
spx_status spx__vspace_init_multi(spx_multi_plan *P, spx__vspace *s);
void spx__vspace_free(spx__vspace *s);
/* A CUDA space's dot buffers, on the current device (s->cuda set, freed
 * by spx__vspace_free). */
spx_status spx__vspace_dot_buffers(spx__vspace *s);

size_t spx__v_entry_bytes(const spx__vspace *s);
spx_status spx__v_alloc(const spx__vspace *s, void **v, const char *what); /* zeroed */
void spx__v_free(const spx__vspace *s, void *v);
spx_status spx__v_zero(const spx__vspace *s, void *v); /* v = 0, queued on a device */
/* *out = a . b */
spx_status spx__v_dot(const spx__vspace *s, const void *a, const void *b, double *out);
/* out[j] = a[j] . b[j] for j < k <= SPX__V_MAX_DOTS, with one launch and
 * one wait for the device: the same bits as k calls of spx__v_dot. It is
 * dots_queue (starts the device's sums; their results land in s->dots) and
 * dots_take (waits for them; on the host, sums); queue and take the same k
 * pairs, no other dots in between on s's stream. */
#define SPX__V_MAX_DOTS 4
spx_status spx__v_dots(const spx__vspace *s, int k, const void *const *a, const void *const *b,
                       double *out);
spx_status spx__v_dots_queue(const spx__vspace *s, int k, const void *const *a,
                             const void *const *b);
spx_status spx__v_dots_take(const spx__vspace *s, int k, const void *const *a, const void *const *b,
                            double *out);
/* y = alpha*x + beta*y; beta == 0 never reads y */
spx_status spx__v_axpby(const spx__vspace *s, double alpha, const void *x, double beta, void *y);
/* y = alpha*x + beta*y + gamma*z, in double in that order (one pass where
 * two axpby would make two); beta == 0 never reads y, gamma == 0 never z */
spx_status spx__v_axpbypcz(const spx__vspace *s, double alpha, const void *x, double beta, void *y,
                           double gamma, const void *z);
/* The solve's registers (scalars.h; vec_regs.c), queued behind the work before them
 * (nothing waits for a CUDA device):
 * - scalars: the program p on the registers;
 * - dots_regs: regs[dst[j]] = a[j] . b[j] for j < k <= SPX__V_MAX_DOTS (the
 *   bits of spx__v_dots), then p; with slot >= 0 the registers are then
 *   published as slot's copy, which snapshot waits for and reads (a slot's
 *   copy is overwritten SPX__V_RING slots later);
 * - lincomb: y = a*x + b*y + c*z as spx__v_axpbypcz with the coefficients'
 *   values (spx__coef_value): nothing once the register SPX__S_STOP is set. */
spx_status spx__v_scalars(const spx__vspace *s, const spx__sprog *p);
spx_status spx__v_dots_regs(const spx__vspace *s, int k, const void *const *a, const void *const *b,
                            const int *dst, const spx__sprog *p, int64_t slot);
spx_status spx__v_snapshot(const spx__vspace *s, int64_t slot, double *regs);
spx_status spx__v_lincomb(const spx__vspace *s, spx__coef a, const void *x, spx__coef b, void *y,
                          spx__coef c, const void *z);
/* y = a*x + b*y + c*z as lincomb, then as dots_regs regs[dst] = y'y (y as
 * it is, updated or not), p and slot's copy. One pass on a CUDA space. */
spx_status spx__v_lincomb_dot(const spx__vspace *s, spx__coef a, const void *x, spx__coef b,
                              void *y, spx__coef c, const void *z, int dst, const spx__sprog *p,
                              int64_t slot);
/* BiCGSTAB's closing step (cuda/blas1/blas1.h's vbicgstab_step), then as
 * dots_regs regs[dst[0]] = r'r, regs[dst[1]] = rhat'r, p and slot's copy. */
spx_status spx__v_bicgstab_step(const spx__vspace *s, const spx__bicgstab_step *b, const int *dst,
                                const spx__sprog *p, int64_t slot);
/* CG's step after its product: x += alpha p, r -= alpha q (alpha the
 * register a; nothing once stopped), z = d .* r (d non-NULL), then as
 * dots_regs regs[dst[0]] = r'r and regs[dst[1]] = r'z (d non-NULL), p and
 * slot's copy. One pass over the vectors on a CUDA space. */
spx_status spx__v_cg_step(const spx__vspace *s, int a, void *x, const void *p, void *r,
                          const void *q, const void *d, void *z, const int *dst,
                          const spx__sprog *prog, int64_t slot);
/* A solver's iteration recorded once as a CUDA graph and replayed
 * (vec_regs.c), on a space that can_record: a multi-device one with its
 * registers on the GPUs (multi_solve.h). record_begin; the iteration
 * queued with no slot (its registers not published); record_end, whatever
 * record_begin returned (keep 0: queueing it failed): a failed recording
 * ran nothing and leaves no graph.
 * replay: the recorded iteration queued, then the registers published as
 * slot's copy (a solver's last operation of an iteration publishes its
 * registers' final values, so this is the copy the queued iteration would
 * make). A one-GPU CUDA space does not record: on one H200 its replays were
 * 1-12% slower than its iterations queued ahead (solve-graph-2026-11-27). */
int spx__v_can_record(const spx__vspace *s);
spx_status spx__v_record_begin(spx__vspace *s);
spx_status spx__v_record_end(spx__vspace *s, int keep);
spx_status spx__v_replay(const spx__vspace *s, int64_t slot);
/* y = d .* x */
spx_status spx__v_mul(const spx__vspace *s, const void *d, const void *x, void *y);
/* *v = a new vector holding n host doubles, converted to the space's type */
spx_status spx__v_from_host(const spx__vspace *s, const double *host, void **v, const char *what);

#endif
