/* The Krylov solvers' vectors on a multi-device plan (src/solve/vec.h):
 * resident vectors (spx_multi_vector) of a square plan, each operation done
 * by every part on the lines it owns, on its device and its stream
 * (multi_solve.c). vec.c hands its operations here when its space is one of
 * these. */
#ifndef SPX_MULTI_SOLVE_H
#define SPX_MULTI_SOLVE_H

#include <stdint.h>

#include "cuda/blas1/blas1.h" /* spx__bicgstab_step, solve/scalars.h */
#include "spx.h"

typedef struct spx__multi_space spx__multi_space;

/* The space of P's resident vectors: *n entries (P's rows) of type *t;
 * SPX_ERR_DIM_MISMATCH for a plan that is not square. Free with
 * spx__multi_space_free (NULL: a no-op). */
spx_status spx__multi_space_init(spx_multi_plan *P, spx__multi_space **out, int64_t *n,
                                 spx_type *t);
void spx__multi_space_free(spx__multi_space *m);
/* A vector of the space is an spx_multi_vector *: made zero by alloc. */
spx_status spx__multi_v_check(const spx__multi_space *m, const void *v);
spx_status spx__multi_v_zero(const spx__multi_space *m, void *v);
spx_status spx__multi_v_alloc(const spx__multi_space *m, void **v, const char *what);
void spx__multi_v_free(const spx__multi_space *m, void *v);
/* out[j] = a[j] . b[j], j < k, 1 <= k <= SPX__V_MAX_DOTS (vec.h's spx__v_dots) */
spx_status spx__multi_v_dots(const spx__multi_space *m, int k, const void *const *a,
                             const void *const *b, double *out);
spx_status spx__multi_v_axpbypcz(const spx__multi_space *m, double alpha, const void *x,
                                 double beta, void *y, double gamma, const void *z);
spx_status spx__multi_v_mul(const spx__multi_space *m, const void *d, const void *x, void *y);
spx_status spx__multi_v_from_host(const spx__multi_space *m, const double *host, void **v,
                                  const char *what);
/* y = alpha*A*x + beta*y (spx_multi_spmv_resident), after the work queued
 * on every part's stream. */
spx_status spx__multi_v_spmv(const spx__multi_space *m, double alpha, const void *x, double beta,
                             void *y);

/* 1 when every part is on a GPU. */
int spx__multi_v_gpu(const spx__multi_space *m);
/* GMRES's Gram-Schmidt pass (solve/vec_gs.h) where every part is on a GPU
 * (multi_solve_gs.c): parts[i] part i's buffer on its device (gs_alloc;
 * NULL where it owns no lines), c the host's sums of count doubles. The
 * pass runs on each part's own lines; coefficients go from c to every part
 * before a pass that subtracts; dots and norm are the parts' sums added in
 * part order into c, after one wait for the devices. */
struct spx__gs_buf;
spx_status spx__multi_gs_alloc(const spx__multi_space *m, size_t count, struct spx__gs_buf **parts);
void spx__multi_gs_free(const spx__multi_space *m, struct spx__gs_buf *parts);
spx_status spx__multi_v_gs(const spx__multi_space *m, struct spx__gs_buf *parts, double *c,
                           int64_t k, const void *const *V, void *w, int64_t sub, int64_t dots,
                           int64_t nrm);

/* Registers on the GPUs (multi_solve_ahead.c): where every part is on a
 * GPU reaching the others, the solver's registers (solve/scalars.h) live
 * there and these do what vec.h's functions of the same names do, queued
 * without waiting for the devices; else ahead is 0 and the registers are
 * vec.c's host array. */
int spx__multi_v_ahead(const spx__multi_space *m);
spx_status spx__multi_v_scalars(const spx__multi_space *m, const spx__sprog *p);
spx_status spx__multi_v_dots_regs(const spx__multi_space *m, int k, const void *const *a,
                                  const void *const *b, const int *dst, const spx__sprog *p,
                                  int64_t slot);
spx_status spx__multi_v_snapshot(const spx__multi_space *m, int64_t slot, double *regs);
spx_status spx__multi_v_lincomb(const spx__multi_space *m, const spx__coef *c, const void *x,
                                void *y, const void *z);
spx_status spx__multi_v_lincomb_dot(const spx__multi_space *m, const spx__coef *c, const void *x,
                                    void *y, const void *z, int dst, const spx__sprog *p,
                                    int64_t slot);
spx_status spx__multi_v_cg_step(const spx__multi_space *m, int a, void *x, const void *p, void *r,
                                const void *q, const void *d, void *z, const int *dst,
                                const spx__sprog *prog, int64_t slot);
spx_status spx__multi_v_bicgstab_step(const spx__multi_space *m, const spx__bicgstab_step *b,
                                      const int *dst, const spx__sprog *p, int64_t slot);

/* A solver's iteration recorded as one CUDA graph and replayed
 * (multi_solve_graph.c), where the registers are on the GPUs (can_record):
 * record_begin, the iteration queued with no slot, record_end (keep 0: the
 * queueing failed; the capture is ended and nothing kept); replay runs it
 * and publishes the registers as slot's copy. A failed recording runs
 * nothing. */
int spx__multi_v_can_record(const spx__multi_space *m);
spx_status spx__multi_v_record_begin(spx__multi_space *m);
spx_status spx__multi_v_record_end(spx__multi_space *m, int keep);
spx_status spx__multi_v_replay(const spx__multi_space *m, int64_t slot);

#endif
