/* spx_cg: preconditioned conjugate gradients for symmetric positive
 * definite A, with M the Jacobi diagonal or the identity:
 *   r = b - A x, z = M^-1 r, p = z, rz = r'z
 *   repeat: q = A p; alpha = rz / p'q; x += alpha p; r -= alpha q;
 *           z = M^-1 r; stop when ||r|| <= rtol ||b||;
 *           beta = r'z / rz; rz = r'z; p = z + beta p.
 * p'q <= 0 (A not positive definite) or NaN is a breakdown. r'r and r'z
 * are taken together (one wait for the device an iteration less; z is
 * made once more than needed, at the last iteration); without a
 * preconditioner z is r. */
#include <math.h>

#include "core/error.h"
#include "solve/solve.h"

enum { R, Z, P, Q, NVEC };

/* z = M^-1 r; *rr = r'r, *rz = r'z. Without a preconditioner z is r
 * itself (v[Z] unused): no copy, one dot. */
static spx_status precondition(spx__solve *S, void **v, double *rr, double *rz)
{
    const void *a[2] = {v[R], v[R]}, *b[2] = {v[R], v[Z]};
    double d[2] = {0.0, 0.0};
    spx_status st = S->dinv ? spx__solve_precond(S, v[R], v[Z]) : SPX_OK;
    if (st == SPX_OK) st = spx__v_dots(&S->s, S->dinv ? 2 : 1, a, b, d);
    *rr = d[0];
    *rz = S->dinv ? d[1] : d[0];
    return st;
}

/* z: M^-1 r, or r itself without a preconditioner. */
static const void *z_of(const spx__solve *S, void **v)
{
    return S->dinv ? v[Z] : v[R];
}

static spx_status cg_loop(spx__solve *S, const void *b, void *x, void **v)
{
    double rr, rz, pq, rz_new;
    spx_status st;
    SPX_TRY(spx__solve_residual(S, b, x, v[R]));
    SPX_TRY(precondition(S, v, &rr, &rz));
    if (spx__solve_record(S, 0, sqrt(rr))) return SPX_OK;
    SPX_TRY(spx__v_axpby(&S->s, 1.0, z_of(S, v), 0.0, v[P]));
    for (int64_t it = 1; it <= S->o.max_iters; it++) {
        SPX_TRY(spx__solve_spmv(S, 1.0, v[P], 0.0, v[Q]));
        SPX_TRY(spx__v_dot(&S->s, v[P], v[Q], &pq));
        if (!(pq > 0.0))
            return spx__error(SPX_ERR_BREAKDOWN,
                              "cg: p'Ap = %g at iteration %lld (A not positive definite?)", pq,
                              (long long)it);
        double alpha = rz / pq;
        SPX_TRY(spx__v_axpby(&S->s, alpha, v[P], 1.0, x));
        SPX_TRY(spx__v_axpby(&S->s, -alpha, v[Q], 1.0, v[R]));
        SPX_TRY(precondition(S, v, &rr, &rz_new));
        if (isnan(rr)) return spx__error(SPX_ERR_BREAKDOWN, "cg: NaN at iteration %lld", (long long)it);
        if (spx__solve_record(S, it, sqrt(rr))) return SPX_OK;
        SPX_TRY(spx__v_axpby(&S->s, 1.0, z_of(S, v), rz_new / rz, v[P]));
        rz = rz_new;
    }
cleanup:
    return st;
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
