/* spx_bicgstab: BiCGSTAB (van der Vorst) with right preconditioning,
 * M the Jacobi diagonal or the identity:
 *   r = b - A x, rhat = r, rho = alpha = omega = 1, v = p = 0
 *   repeat: rho' = rhat'r; beta = (rho'/rho)(alpha/omega);
 *           p = r + beta (p - omega v); phat = M^-1 p; v = A phat;
 *           alpha = rho' / rhat'v; s = r - alpha v;
 *           if ||s|| <= rtol ||b||: x += alpha phat, stop;
 *           shat = M^-1 s; t = A shat; omega = t's / t't;
 *           x += alpha phat + omega shat; r = s - omega t; stop when small.
 * rho' = 0, rhat'v = 0, t't = 0 or omega = 0 is a breakdown. Each update
 * is one pass (p = r + beta p - beta omega v; s = r - alpha v with s's
 * taken; x += alpha phat + omega shat and r = s - omega t with r'r and the
 * next rho' taken), and without a preconditioner phat is p and shat is s.
 * The scalars live in the solve's registers (scalars.h), as CG's: on a
 * CUDA plan an iteration is queued before the host waits for the one
 * before (spx__solve_iterate), and the tests that end the solve run where
 * the registers are. */
#include <math.h>

#include "core/error.h"
#include "solve/solve.h"

enum { R, RHAT, PV, V, PHAT, SV, SHAT, T, NVEC };
enum { RHO, RHO_NEW, ALPHA, OMEGA, BETA, BO, RV, SS, TS, TT, RR, T1, T2 }; /* registers */
/* stop codes past scalars.h's; HALF: s small, x takes its half step, then HALF_DONE */
enum { HALF = SPX__S_NAN + 1, HALF_DONE, RHO_ZERO, RV_ZERO, TT_ZERO, OMEGA_ZERO };

static spx_status breakdown(const char *what, int64_t it)
{
    return spx__error(SPX_ERR_BREAKDOWN, "bicgstab: %s at iteration %lld", what, (long long)it);
}

/* M^-1 u into the vector `into`; without a preconditioner u itself. */
static void *precond(spx__solve *S, void *u, void *into, spx_status *st)
{
    if (!S->dinv) return u;
    *st = spx__solve_precond(S, u, into);
    return into;
}

/* The next iteration's beta = (rho'/rho)(alpha/omega) and beta*omega. */
#define NEXT_BETA                                                                                  \
    {SPX__S_DIV, T1, RHO_NEW, RHO, 0.0}, {SPX__S_DIV, T2, ALPHA, OMEGA, 0.0},                      \
        {SPX__S_MUL, BETA, T1, T2, 0.0},                                                           \
    {                                                                                              \
        SPX__S_MUL, BO, BETA, OMEGA, 0.0                                                           \
    }

/* r = b - A x, rhat = r; rr and rho' = rhat'r; the registers set for
 * iteration 1 (rho = alpha = omega = 1, v = p = 0). */
static spx_status start(spx__solve *S, const void *b, void *x, void **v, double *rr,
                        double *rho_new)
{
    const void *a[2] = {v[R], v[RHAT]}, *c[2] = {v[R], v[R]};
    double d[2] = {0.0, 0.0};
    spx_status st;
    SPX_TRY(spx__solve_residual(S, b, x, v[R]));
    SPX_TRY(spx__v_axpby(&S->s, 1.0, v[R], 0.0, v[RHAT]));
    SPX_TRY(spx__v_dots(&S->s, 2, a, c, d));
    *rr = d[0];
    *rho_new = d[1];
    spx__sprog set = {11,
                      {{SPX__S_SET, RHO, 0, 0, 1.0},
                       {SPX__S_SET, ALPHA, 0, 0, 1.0},
                       {SPX__S_SET, OMEGA, 0, 0, 1.0},
                       {SPX__S_SET, RHO_NEW, 0, 0, d[1]},
                       {SPX__S_SET, SPX__S_STOP, 0, 0, 0.0},
                       {SPX__S_SET, SPX__S_BNORM, 0, 0, S->bnorm},
                       {SPX__S_SET, SPX__S_RTOL, 0, 0, S->o.rtol},
                       NEXT_BETA}};
    SPX_TRY(spx__v_scalars(&S->s, &set));
cleanup:
    return st;
}

/* Queue iteration it; its registers are published as slot it:
 *   p = r + beta p - beta omega v; phat = M^-1 p; v = A phat;
 *   alpha = rho' / rhat'v; rho = rho'; s = r - alpha v and s's (HALF when
 *   small); shat = M^-1 s; t = A shat; omega = t's / t't; the closing step
 *   (x, r, r'r and the next rho'), the next beta. */
static spx_status queue_iteration(spx__solve *S, void *x, void **v, int64_t it)
{
    static const spx__sprog after_rv = {3,
                                        {{SPX__S_STOP_IF_ZERO, 0, RV, 0, RV_ZERO},
                                         {SPX__S_DIV, ALPHA, RHO_NEW, RV, 0.0},
                                         {SPX__S_COPY, RHO, RHO_NEW, 0, 0.0}}};
    static const spx__sprog after_ss = {1, {{SPX__S_STOP_IF_SMALL, 0, SS, 0, HALF}}};
    static const spx__sprog after_tt = {
        2, {{SPX__S_STOP_IF_ZERO, 0, TT, 0, TT_ZERO}, {SPX__S_DIV, OMEGA, TS, TT, 0.0}}};
    static const spx__sprog closing = {8,
                                       {{SPX__S_STOP_IF_SMALL, 0, RR, 0, SPX__S_CONVERGED},
                                        {SPX__S_RECODE, 0, 0, HALF, HALF_DONE},
                                        {SPX__S_STOP_IF_ZERO, 0, OMEGA, 0, OMEGA_ZERO},
                                        {SPX__S_STOP_IF_ZERO, 0, RHO_NEW, 0, RHO_ZERO},
                                        NEXT_BETA}};
    const spx__coef one = {1.0, -1}, zero = {0.0, -1};
    const int rv_dst[1] = {RV}, t_dst[2] = {TS, TT}, r_dst[2] = {RR, RHO_NEW};
    spx_status st = SPX_OK;
    SPX_TRY(spx__v_lincomb(&S->s, one, v[R], (spx__coef){1.0, BETA}, v[PV], (spx__coef){-1.0, BO},
                           v[V]));
    void *phat = precond(S, v[PV], v[PHAT], &st);
    SPX_TRY(st);
    SPX_TRY(spx__solve_spmv(S, 1.0, phat, 0.0, v[V]));
    const void *rv_a[1] = {v[RHAT]}, *rv_b[1] = {v[V]};
    SPX_TRY(spx__v_dots_regs(&S->s, 1, rv_a, rv_b, rv_dst, &after_rv, -1));
    SPX_TRY(spx__v_lincomb_dot(&S->s, one, v[R], zero, v[SV], (spx__coef){-1.0, ALPHA}, v[V], SS,
                               &after_ss, -1));
    void *shat = precond(S, v[SV], v[SHAT], &st);
    SPX_TRY(st);
    SPX_TRY(spx__solve_spmv(S, 1.0, shat, 0.0, v[T]));
    const void *t_a[2] = {v[T], v[T]}, *t_b[2] = {v[SV], v[T]};
    SPX_TRY(spx__v_dots_regs(&S->s, 2, t_a, t_b, t_dst, &after_tt, -1));
    const spx__bicgstab_step step = {x, v[R], phat, shat, v[SV], v[T], v[RHAT], ALPHA, OMEGA, HALF};
    SPX_TRY(spx__v_bicgstab_step(&S->s, &step, r_dst, &closing, it));
cleanup:
    return st;
}

/* Iteration it's outcome from its published registers: 1 when the solve is
 * over (*st says how). The checks come in the order the iteration makes
 * them: rhat'v, s small (the half step ends it), t't, NaN, the residual
 * (history, callback), omega, and the next iteration's rho'. */
static int take(spx__solve *S, int64_t it, spx_status *st)
{
    double r[SPX__S_REGS];
    if ((*st = spx__v_snapshot(&S->s, it, r)) != SPX_OK) return 1;
    const double code = r[SPX__S_STOP];
    if (code == RV_ZERO) *st = breakdown("rhat'v = 0", it);
    if (code == TT_ZERO) *st = breakdown("t't = 0", it);
    if (code == SPX__S_NAN) *st = breakdown("NaN", it);
    if (*st != SPX_OK) return 1;
    if (code == HALF_DONE) {
        spx__solve_record(S, it, sqrt(r[SS]));
        return 1;
    }
    if (spx__solve_record(S, it, sqrt(r[RR]))) return 1;
    if (code == OMEGA_ZERO) *st = breakdown("omega = 0", it);
    if (code == RHO_ZERO && it < S->o.max_iters) *st = breakdown("rho = 0", it + 1);
    return *st != SPX_OK;
}

static spx_status bicgstab_loop(spx__solve *S, const void *b, void *x, void **v)
{
    double rr, rho_new;
    spx_status st = start(S, b, x, v, &rr, &rho_new);
    if (st != SPX_OK || spx__solve_record(S, 0, sqrt(rr))) return st;
    if (S->o.max_iters > 0 && (rho_new == 0.0 || isnan(rho_new))) return breakdown("rho = 0", 1);
    return spx__solve_iterate(S, x, v, queue_iteration, take);
}

spx_status spx_bicgstab(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                        const spx_solve_opts *o, spx_solve_info *info)
{
    _Static_assert(NVEC <= SPX__SOLVE_MAX_VECTORS, "bicgstab work vectors");
    return spx__solve_run(P, NULL, A, b, x, o, info, "bicgstab", NVEC, bicgstab_loop);
}

spx_status spx_multi_bicgstab(spx_multi_plan *P, const spx_matrix *A, const spx_multi_vector *b,
                              spx_multi_vector *x, const spx_solve_opts *o, spx_solve_info *info)
{
    return spx__solve_run(NULL, P, A, b, x, o, info, "bicgstab", NVEC, bicgstab_loop);
}

spx_status spx__bicgstab_op(const spx__solve_op *op, const void *b, void *x,
                            const spx_solve_opts *o, spx_solve_info *info)
{
    return spx__solve_run_op(op, b, x, o, info, "bicgstab", NVEC, bicgstab_loop);
}
