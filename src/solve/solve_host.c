/* spx_cg_host, spx_bicgstab_host, spx_gmres_host: a solve with host vectors whatever the
 * plan's device. A CPU plan solves in place; a CUDA plan gets device copies
 * of b and x (n entries of the plan's vector type), solves on them and
 * copies x back, also after a failed solve (the iterate it reached). */
#include "core/error.h"
#include "cuda/gateway.h"
#include "spx.h"

typedef spx_status (*solver)(const spx_plan *, const spx_matrix *, const void *, void *,
                             const spx_solve_opts *, spx_solve_info *);

static spx_status solve_host(solver solve, const spx_plan *P, const spx_matrix *A, const void *b,
                             void *x, const spx_solve_opts *o, spx_solve_info *info)
{
    int64_t rows, cols;
    void *db = NULL, *dx = NULL;
    spx_status st = spx_plan_dims(P, &rows, &cols), back;
    if (st != SPX_OK) return st;
    /* CPU plans solve in place; a plan that is not square or takes x in
     * half is refused by the solver before it reads b or x */
    if (spx_plan_device(P) != SPX_DEV_CUDA || rows == 0 || rows != cols ||
        spx_plan_x_type(P) == SPX_F16)
        return solve(P, A, b, x, o, info);
    if (!b || !x) return spx__error(SPX_ERR_INVALID_ARG, "b or x is NULL");
    size_t bytes = (size_t)rows * (spx_plan_x_type(P) == SPX_F64 ? sizeof(double) : sizeof(float));
    SPX_TRY(spx__cuda_upload(&db, b, bytes, "b on the device"));
    SPX_TRY(spx__cuda_upload(&dx, x, bytes, "x on the device"));
    st = solve(P, A, db, dx, o, info);
    back = spx__cuda_copy(x, dx, bytes, 0);
    if (st == SPX_OK) st = back;
cleanup:
    spx__cuda_free(db);
    spx__cuda_free(dx);
    return st;
}

spx_status spx_cg_host(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                       const spx_solve_opts *o, spx_solve_info *info)
{
    return solve_host(spx_cg, P, A, b, x, o, info);
}

spx_status spx_gmres_host(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                          const spx_solve_opts *o, spx_solve_info *info)
{
    return solve_host(spx_gmres, P, A, b, x, o, info);
}

spx_status spx_bicgstab_host(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                             const spx_solve_opts *o, spx_solve_info *info)
{
    return solve_host(spx_bicgstab, P, A, b, x, o, info);
}
