/* What CG and BiCGSTAB share: the vector space, the product, the Jacobi
 * preconditioner, the residual, the record of each iteration (history,
 * callback) and the final report with the residual recomputed from x. The
 * operator is a plan, or a multi-device plan on its resident vectors. */
#ifndef SPX_SOLVE_SOLVE_H
#define SPX_SOLVE_SOLVE_H

#include "solve/vec.h"

/* An operator given by its product, on vectors that are one process's share
 * of the whole (the MPI solvers): n entries of type t here, products
 * by spmv (collective: every process calls it, in the same order), dots
 * summed by reduce, and for Jacobi this process's diagonal entries A(i,i)
 * (n host doubles, or NULL). */
typedef struct spx__solve_op {
    int64_t n;
    spx_type t;
    int cuda;     /* b, x and the work vectors in device memory of the current device */
    void *stream; /* CUDA: the stream the vector operations run in */
    spx_status (*spmv)(void *ctx, double alpha, const void *x, double beta, void *y);
    void *ctx;
    const spx__vreduce *reduce;
    const double *diag;
} spx__solve_op;

typedef struct spx__solve {
    const spx_plan *P;       /* the operator, or NULL and: */
    spx_multi_plan *M;       /* a multi-device plan (vectors: its resident vectors), or NULL and: */
    const spx__solve_op *op; /* an operator given by its product */
    spx__vspace s;
    spx_solve_opts o; /* the caller's, defaults filled in */
    void *dinv;       /* Jacobi: 1 / diag(A) in the plan's order, or NULL */
    double bnorm;     /* ||b||_2 */
    double t0;        /* start, ms */
    int64_t iters;
    int stop;                     /* the callback asked to stop */
    int converged;                /* the updated residual met rtol */
    struct spx__keep *slot;       /* the plan's slot for the workspace (core/keep.h) */
    struct spx__solve_kept *kept; /* the workspace taken from it, or NULL */
    int space_ready;              /* s is set up (kept or made) */
    int replay;                   /* iterations are replayed from one recorded graph (solve.c) */
    int recorded;                 /* and it is recorded */
    int64_t replayed;             /* iterations replayed */
} spx__solve;

/* Check the arguments and set S up for P or M (one of them NULL; the Jacobi
 * diagonal from A when asked). */
spx_status spx__solve_begin(spx__solve *S, const spx_plan *P, spx_multi_plan *M,
                            const spx__solve_op *op, const spx_matrix *A, const void *b,
                            const void *x, const spx_solve_opts *o);
/* *d = n host doubles, d[k] = 1 / A(i,i) for i = perm[k] (perm NULL: i =
 * k), A n x n (solve.c's Jacobi); SPX_ERR_UNSUPPORTED naming a zero or
 * missing diagonal entry. Free *d with spx__free. */
spx_status spx__jacobi_diagonal(const spx_matrix *A, int64_t n, const int64_t *perm, double **d);
/* A monotonic clock, ms. */
double spx__solve_now_ms(void);
/* y = alpha*A*x + beta*y by the solve's operator. */
spx_status spx__solve_spmv(const spx__solve *S, double alpha, const void *x, double beta, void *y);
/* r = b - A x */
spx_status spx__solve_residual(const spx__solve *S, const void *b, const void *x, void *r);
/* z = M^-1 r (z = r without a preconditioner) */
spx_status spx__solve_precond(const spx__solve *S, const void *r, void *z);
/* Record iteration `iter` with residual norm rnorm: history, callback.
 * Returns 1 when the solve is over (converged, or the callback said stop). */
int spx__solve_record(spx__solve *S, int64_t iter, double rnorm);
/* Finish: recompute the residual of x into info (r: a work vector, its
 * scratch); returns st, or SPX_ERR_NOT_CONVERGED when st is SPX_OK but the
 * solve neither converged (by the residual the iteration updates) nor was
 * stopped. */
spx_status spx__solve_end(spx__solve *S, const void *b, const void *x, void *r, spx_status st,
                          spx_solve_info *info, const char *who);

/* The iterations of a solver whose scalars live in S's registers
 * (scalars.h): queue(it) for it = 1, 2, ... max_iters, each publishing its
 * registers as slot it, and take(it) for each in order, which reads them
 * and returns 1 when the solve is over (*st: how). On a CUDA plan without
 * a callback iteration it + SPX__SOLVE_AHEAD is queued before iteration it
 * is taken, so the device never waits for the host; what an iteration
 * queued behind a stop does is undone by the stop (scalars.h). Otherwise
 * each is taken as soon as queued (a callback may stop any iteration). */
#define SPX__SOLVE_AHEAD 1
/* Where the space can record one (vec.h's spx__v_can_record), the first
 * iteration is recorded as a CUDA graph (queue called with it = -1: its
 * registers not published) and every iteration is a replay of it. */
#define SPX__SOLVE_RECORD_MIN 16
typedef spx_status (*spx__solve_queue)(spx__solve *S, void *x, void **v, int64_t it);
typedef int (*spx__solve_take)(spx__solve *S, int64_t it, spx_status *st);
spx_status spx__solve_iterate(spx__solve *S, void *x, void **v, spx__solve_queue queue,
                              spx__solve_take take);

/* A solver's iterations on S from x, with work vectors v[0..nvec). */
typedef spx_status (*spx__solve_loop)(spx__solve *S, const void *b, void *x, void **v);
#define SPX__SOLVE_MAX_VECTORS 8
/* A whole solve by P or M (one of them NULL): begin, nvec (at most
 * SPX__SOLVE_MAX_VECTORS) work vectors named after who, loop, end. */
spx_status spx__solve_run(const spx_plan *P, spx_multi_plan *M, const spx_matrix *A, const void *b,
                          void *x, const spx_solve_opts *o, spx_solve_info *info, const char *who,
                          int nvec, spx__solve_loop loop);
/* The same by an operator given by its product: no workspace is kept. */
spx_status spx__solve_run_op(const spx__solve_op *op, const void *b, void *x,
                             const spx_solve_opts *o, spx_solve_info *info, const char *who,
                             int nvec, spx__solve_loop loop);
/* CG, BiCGSTAB and GMRES by such an operator (cg.c, bicgstab.c, gmres.c). */
spx_status spx__cg_op(const spx__solve_op *op, const void *b, void *x, const spx_solve_opts *o,
                      spx_solve_info *info);
spx_status spx__bicgstab_op(const spx__solve_op *op, const void *b, void *x,
                            const spx_solve_opts *o, spx_solve_info *info);
spx_status spx__gmres_op(const spx__solve_op *op, const void *b, void *x, const spx_solve_opts *o,
                         spx_solve_info *info);
/* spx_eigsh by such an operator (lanczos.c): this process's entries start at
 * global index offset (the start vectors are the same however the entries
 * are shared), vectors holds its entries of the k eigenvectors (op->n each,
 * one after another), or NULL. */
spx_status spx__eigsh_op(const spx__solve_op *op, int64_t offset, const spx_eig_opts *o,
                         double *values, void *vectors, spx_eig_info *info);

#endif
