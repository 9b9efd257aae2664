/* spx_bicgstab: BiCGSTAB (van der Vorst) with right preconditioning,
 * M the Jacobi diagonal or the identity:
 *   r = b - A x, rhat = r, rho = alpha = omega = 1, v = p = 0
 *   repeat: rho' = rhat'r; beta = (rho'/rho)(alpha/omega);
 *           p = r + beta (p - omega v); phat = M^-1 p; v = A phat;
 *           alpha = rho' / rhat'v; s = r - alpha v;
 *           if ||s|| <= rtol ||b||: x += alpha phat, stop;
 *           shat = M^-1 s; t = A shat; omega = t's / t't;
 *           x += alpha phat + omega shat; r = s - omega t; stop when small.
 * rho' = 0, rhat'v = 0, t't = 0 or omega = 0 is a breakdown. Dots taken
 * together (one wait for the device each pair): t's with t't, and r'r with
 * the next iteration's rhat'r. Each update is one pass (p = r + beta p -
 * beta omega v; s = r - alpha v; x += alpha phat + omega shat; r = s -
 * omega t), and without a preconditioner phat is p and shat is s. */
#include <math.h>

#include "core/error.h"
#include "solve/solve.h"

enum { R, RHAT, PV, V, PHAT, SV, SHAT, T, NVEC };

/* *d0 = a0'b0, *d1 = a1'b1, with one wait. */
static spx_status dot_pair(spx__solve *S, const void *a0, const void *b0, const void *a1,
                           const void *b1, double *d0, double *d1)
{
    const void *a[2] = {a0, a1}, *b[2] = {b0, b1};
    double d[2] = {0.0, 0.0};
    spx_status st = spx__v_dots(&S->s, 2, a, b, d);
    *d0 = d[0];
    *d1 = d[1];
    return st;
}

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

/* p = r + beta (p - omega v); phat = M^-1 p; v = A phat; alpha = rho / rhat'v. */
static spx_status direction(spx__solve *S, void **v, double beta, double omega, double rho,
                            int64_t it, double *alpha, void **phat)
{
    double rv;
    spx_status st = SPX_OK;
    SPX_TRY(spx__v_axpbypcz(&S->s, 1.0, v[R], beta, v[PV], -beta * omega, v[V]));
    *phat = precond(S, v[PV], v[PHAT], &st);
    SPX_TRY(st);
    SPX_TRY(spx__solve_spmv(S, 1.0, *phat, 0.0, v[V]));
    SPX_TRY(spx__v_dot(&S->s, v[RHAT], v[V], &rv));
    if (rv == 0.0 || isnan(rv)) return breakdown("rhat'v = 0", it);
    *alpha = rho / rv;
cleanup:
    return st;
}

static spx_status bicgstab_loop(spx__solve *S, const void *b, void *x, void **v)
{
    double rr, rho = 1.0, alpha = 1.0, omega = 1.0, rho_new, ss, ts, tt;
    spx_status st = SPX_OK;
    SPX_TRY(spx__solve_residual(S, b, x, v[R]));
    SPX_TRY(spx__v_axpby(&S->s, 1.0, v[R], 0.0, v[RHAT]));
    SPX_TRY(dot_pair(S, v[R], v[R], v[RHAT], v[R], &rr, &rho_new));
    if (spx__solve_record(S, 0, sqrt(rr))) return SPX_OK;
    for (int64_t it = 1; it <= S->o.max_iters; it++) {
        if (rho_new == 0.0 || isnan(rho_new)) return breakdown("rho = 0", it);
        void *phat, *shat;
        SPX_TRY(
            direction(S, v, (rho_new / rho) * (alpha / omega), omega, rho_new, it, &alpha, &phat));
        rho = rho_new;
        SPX_TRY(spx__v_axpbypcz(&S->s, 1.0, v[R], 0.0, v[SV], -alpha, v[V]));
        SPX_TRY(spx__v_dot(&S->s, v[SV], v[SV], &ss));
        if (sqrt(ss) <= S->o.rtol * S->bnorm) {
            SPX_TRY(spx__v_axpby(&S->s, alpha, phat, 1.0, x));
            spx__solve_record(S, it, sqrt(ss));
            return SPX_OK;
        }
        shat = precond(S, v[SV], v[SHAT], &st);
        SPX_TRY(st);
        SPX_TRY(spx__solve_spmv(S, 1.0, shat, 0.0, v[T]));
        SPX_TRY(dot_pair(S, v[T], v[SV], v[T], v[T], &ts, &tt));
        if (tt == 0.0 || isnan(tt)) return breakdown("t't = 0", it);
        omega = ts / tt;
        SPX_TRY(spx__v_axpbypcz(&S->s, alpha, phat, 1.0, x, omega, shat));
        SPX_TRY(spx__v_axpbypcz(&S->s, 1.0, v[SV], 0.0, v[R], -omega, v[T]));
        SPX_TRY(dot_pair(S, v[R], v[R], v[RHAT], v[R], &rr, &rho_new));
        if (isnan(rr)) return breakdown("NaN", it);
        if (spx__solve_record(S, it, sqrt(rr))) return SPX_OK;
        if (omega == 0.0) return breakdown("omega = 0", it);
    }
cleanup:
    return st;
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
