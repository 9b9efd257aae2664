/* spx_cg: preconditioned conjugate gradients for symmetric positive
 * definite A, with M the Jacobi diagonal or the identity:
 *   r = b - A x, z = M^-1 r, p = z, rz = r'z
 *   repeat: q = A p; alpha = rz / p'q; x += alpha p; r -= alpha q;
 *           z = M^-1 r; stop when ||r|| <= rtol ||b||;
 *           beta = r'z / rz; rz = r'z; p = z + beta p.
 * p'q <= 0 (A not positive definite) or NaN is a breakdown. r'r and r'z
 * are taken together; without a preconditioner z is r.
 * The scalars live in the solve's registers (scalars.h), next to the
 * vectors, so on a CUDA plan an iteration is queued before the host waits
 * for the one before (spx__solve_iterate). The stopping test runs where the
 * registers are, and an iteration queued behind the one that stopped
 * changes nothing, so x, the iteration count and the history are those of
 * a solve that waits every iteration.
 * After the product an iteration is two passes over the vectors: p'q, then
 * x, r (and z) updated with r'r (and r'z) taken (spx__v_cg_step). */
#include <math.h>

#include "core/error.h"
#include "solve/solve.h"

enum { R, Z, P, Q, NVEC };
enum { RR, RZ, RZ_NEW, PQ, ALPHA, BETA }; /* registers */
enum { STOP_NOT_SPD = SPX__S_NAN + 1 };   /* stop codes past scalars.h's */

static const void *z_of(const spx__solve *S, void **v)
{
    return S->dinv ? v[Z] : v[R];
}

/* The register r'z lands in: RR itself without a preconditioner. */
static int rz_new_reg(const spx__solve *S)
{
    return S->dinv ? RZ_NEW : RR;
}

static spx__coef reg(double k, int r)
{
    return (spx__coef){k, r};
}
static spx__coef num(double k)
{
    return (spx__coef){k, -1};
}

/* r = b - A x; rr, rz; p = z; the registers set for iteration 1. */
static spx_status start(spx__solve *S, const void *b, void *x, void **v, double *rr)
{
    const void *a[2] = {v[R], v[R]}, *c[2] = {v[R], v[Z]};
    double d[2] = {0.0, 0.0};
    spx_status st;
    SPX_TRY(spx__solve_residual(S, b, x, v[R]));
    if (S->dinv) SPX_TRY(spx__solve_precond(S, v[R], v[Z]));
    SPX_TRY(spx__v_dots(&S->s, S->dinv ? 2 : 1, a, c, d));
    *rr = d[0];
    spx__sprog set = {4,
                      {{SPX__S_SET, RZ, 0, 0, S->dinv ? d[1] : d[0]},
                       {SPX__S_SET, SPX__S_STOP, 0, 0, 0.0},
                       {SPX__S_SET, SPX__S_BNORM, 0, 0, S->bnorm},
                       {SPX__S_SET, SPX__S_RTOL, 0, 0, S->o.rtol}}};
    SPX_TRY(spx__v_scalars(&S->s, &set));
    SPX_TRY(spx__v_axpby(&S->s, 1.0, z_of(S, v), 0.0, v[P]));
cleanup:
    return st;
}

/* Queue iteration it; its registers are published as slot it. */
static spx_status queue_iteration(spx__solve *S, void *x, void **v, int64_t it)
{
    const int rzn = rz_new_reg(S);
    const void *pa[1] = {v[P]}, *pb[1] = {v[Q]};
    const int pq_dst[1] = {PQ}, r_dst[2] = {RR, RZ_NEW};
    const spx__sprog step = {
        2, {{SPX__S_STOP_UNLESS_POS, 0, PQ, 0, STOP_NOT_SPD}, {SPX__S_DIV, ALPHA, RZ, PQ, 0.0}}};
    const spx__sprog turn = {3,
                             {{SPX__S_STOP_IF_SMALL, 0, RR, 0, SPX__S_CONVERGED},
                              {SPX__S_DIV, BETA, rzn, RZ, 0.0},
                              {SPX__S_COPY, RZ, rzn, 0, 0.0}}};
    spx_status st;
    SPX_TRY(spx__solve_spmv(S, 1.0, v[P], 0.0, v[Q]));
    SPX_TRY(spx__v_dots_regs(&S->s, 1, pa, pb, pq_dst, &step, -1));
    SPX_TRY(spx__v_cg_step(&S->s, ALPHA, x, v[P], v[R], v[Q], S->dinv, v[Z], r_dst, &turn, it));
    SPX_TRY(spx__v_lincomb(&S->s, num(1.0), z_of(S, v), reg(1.0, BETA), v[P], num(0.0), NULL));
cleanup:
    return st;
}

/* Iteration it's outcome from its published registers: 1 when the solve is
 * over (*st says how). */
static int take(spx__solve *S, int64_t it, spx_status *st)
{
    double r[SPX__S_REGS];
    if ((*st = spx__v_snapshot(&S->s, it, r)) != SPX_OK) return 1;
    if (r[SPX__S_STOP] == STOP_NOT_SPD) {
        *st = spx__error(SPX_ERR_BREAKDOWN,
                         "cg: p'Ap = %g at iteration %lld (A not positive definite?)", r[PQ],
                         (long long)it);
        return 1;
    }
    if (r[SPX__S_STOP] == SPX__S_NAN) {
        *st = spx__error(SPX_ERR_BREAKDOWN, "cg: NaN at iteration %lld", (long long)it);
        return 1;
    }
    return spx__solve_record(S, it, sqrt(r[RR]));
}

static spx_status cg_loop(spx__solve *S, const void *b, void *x, void **v)
{
    double rr;
    spx_status st = start(S, b, x, v, &rr);
    if (st != SPX_OK || spx__solve_record(S, 0, sqrt(rr))) return st;
    return spx__solve_iterate(S, x, v, queue_iteration, take);
}

spx_status spx_cg(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                  const spx_solve_opts *o, spx_solve_info *info)
{
    return spx__solve_run(P, NULL, A, b, x, o, info, "cg", NVEC, cg_loop);
}

spx_status spx_multi_cg(spx_multi_plan *P, const spx_matrix *A, const spx_multi_vector *b,
                        spx_multi_vector *x, const spx_solve_opts *o, spx_solve_info *info)
{
    return spx__solve_run(NULL, P, A, b, x, o, info, "cg", NVEC, cg_loop);
}

spx_status spx__cg_op(const spx__solve_op *op, const void *b, void *x, const spx_solve_opts *o,
                      spx_solve_info *info)
{
    return spx__solve_run_op(op, b, x, o, info, "cg", NVEC, cg_loop);
}
