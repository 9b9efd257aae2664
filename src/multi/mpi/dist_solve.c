/* CG, BiCGSTAB and GMRES on a distributed plan (spx_mpi.h): the solvers of
 * solve/ on this rank's entries of b and x, their products by
 * spx_dist_spmv, and each dot's local sums added over the ranks: every
 * rank gathers every rank's sums (MPI_Allgather) and adds them in rank
 * order, so all ranks hold the same bits, take the same decisions, and a
 * solve is the same bits from run to run for a fixed rank count (an
 * MPI_Allreduce may add in any order). The gathered buffer carries each
 * rank's status too, so a local failure is every rank's. The _device
 * solvers keep the vectors on the rank's GPU (products by
 * spx_dist_spmv_device, vector operations in the plan's stream); each dot
 * then waits for the GPU, as its sums must cross the ranks. spx_dist_eigsh
 * (and _device) runs spx_eigsh's Lanczos the same way. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/mpi/dist.h"
#include "solve/solve.h"

typedef struct dist_solve {
    spx_dist_plan *P;
    spx__vreduce reduce;
} dist_solve;

static spx_status allsum(void *ctx, double *v, int count, spx_status local)
{
    const dist_solve *c = ctx;
    const spx_dist_matrix *D = c->P->D;
    const int width = count + 1, size = D->size;
    double mine[SPX__V_MAX_DOTS + 2], *send = mine, *all = NULL;
    spx_status st = SPX_OK;
    if (width > (int)(sizeof mine / sizeof *mine))
        st = spx__alloc((void **)&send, (size_t)width, sizeof *send, "dot sums");
    if (st == SPX_OK)
        st = spx__alloc((void **)&all, (size_t)width * (size_t)size, sizeof *all, "dot sums");
    if (st != SPX_OK) { /* still the same call as the others: agree on the failure */
        if (send != mine) spx__free(send);
        return spx__dist_agree(D->comm, st);
    }
    for (int i = 0; i < count; i++)
        send[i] = v[i];
    send[count] = (double)local;
    st = spx__dist_mpi(MPI_Allgather(send, width, MPI_DOUBLE, all, width, MPI_DOUBLE, D->comm),
                       "MPI_Allgather");
    int failed = 0;
    for (int r = 0; st == SPX_OK && r < size; r++)
        failed |= all[(size_t)r * width + count] != 0.0;
    if (st == SPX_OK && failed) st = spx__dist_agree(D->comm, local);
    for (int i = 0; st == SPX_OK && i < count; i++) {
        double total = 0.0;
        for (int r = 0; r < size; r++)
            total += all[(size_t)r * width + i];
        v[i] = total;
    }
    if (send != mine) spx__free(send);
    spx__free(all);
    return st;
}

static spx_status product(void *ctx, double alpha, const void *x, double beta, void *y)
{
    spx_dist_plan *P = ((dist_solve *)ctx)->P;
    return spx_dist_spmv(P, alpha, x, P->own_cols, beta, y, P->own_rows);
}

static spx_status product_device(void *ctx, double alpha, const void *x, double beta, void *y)
{
    spx_dist_plan *P = ((dist_solve *)ctx)->P;
    return spx_dist_spmv_device(P, alpha, x, P->own_cols, beta, y, P->own_rows);
}

/* Resident vectors: a plan on a GPU, b and x its device memory; the GPU made current. */
static spx_status check_device(const spx_dist_plan *P, const void *b, const void *x)
{
    spx_status st = SPX_OK;
    if (P->device < 0)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "rank %d: vectors on the GPU need a plan on a GPU (device cuda)",
                          P->D->rank);
    SPX_TRY(spx__cuda_set_device(P->device));
    if (P->own_rows > 0) SPX_TRY(spx__cuda_device_array(b, "b"));
    if (P->own_rows > 0) SPX_TRY(spx__cuda_device_array(x, "x"));
cleanup:
    if (st != SPX_OK)
        st = spx__error(st, "rank %d, GPU %d: %s", P->D->rank, P->device, spx_last_error());
    return st;
}

/* What every rank checks before a solve, agreed. */
static spx_status check(spx_dist_plan *P, const void *b, int64_t b_len, const void *x,
                        int64_t x_len, int resident)
{
    if (!P || P->magic != SPX__DIST_PLAN_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "distributed plan handle is NULL, freed or wrong");
    const spx_dist_matrix *D = P->D;
    spx_status st = SPX_OK;
    if (D->rows != D->cols)
        st = spx__error(SPX_ERR_DIM_MISMATCH, "a solver needs a square matrix, not %lld x %lld",
                        (long long)D->rows, (long long)D->cols);
    else if (b_len != P->own_rows || x_len != P->own_cols)
        st = spx__error(SPX_ERR_DIM_MISMATCH,
                        "rank %d owns %lld entries of b and x, not %lld and %lld", D->rank,
                        (long long)P->own_rows, (long long)b_len, (long long)x_len);
    else if (b_len > 0 && (!b || !x))
        st = spx__error(SPX_ERR_INVALID_ARG, "b or x is NULL");
    else if (resident)
        st = check_device(P, b, x);
    return spx__dist_agree(D->comm, st);
}

/* The operator of c's plan: this rank's rows, products by spx_dist_spmv
 * (resident: spx_dist_spmv_device, vectors in the plan's stream). */
static spx__solve_op op_of(dist_solve *c, int resident, const double *diag)
{
    spx_dist_plan *P = c->P;
    return (spx__solve_op){P->own_rows,
                           P->vtype,
                           resident,
                           resident ? P->stream : NULL,
                           resident ? product_device : product,
                           c,
                           &c->reduce,
                           diag};
}

typedef spx_status (*solver)(const spx__solve_op *op, const void *b, void *x,
                             const spx_solve_opts *o, spx_solve_info *info);

static spx_status dist_solve_run(spx_dist_plan *P, const void *b, int64_t b_len, void *x,
                                 int64_t x_len, const spx_solve_opts *o, spx_solve_info *info,
                                 solver run, int resident)
{
    double *diag = NULL;
    spx_status st = check(P, b, b_len, x, x_len, resident);
    if (st != SPX_OK) return st;
    dist_solve c = {P, {allsum, NULL, P->D->rows}};
    c.reduce.ctx = &c;
    if (o && o->jacobi && (st = spx__dist_diagonal(P->D, &diag)) != SPX_OK) return st;
    const spx__solve_op op = op_of(&c, resident, diag);
    st = run(&op, b, x, o, info);
    spx__free(diag);
    return st;
}

spx_status spx_dist_cg(spx_dist_plan *P, const void *b, int64_t b_len, void *x, int64_t x_len,
                       const spx_solve_opts *o, spx_solve_info *info)
{
    return dist_solve_run(P, b, b_len, x, x_len, o, info, spx__cg_op, 0);
}

spx_status spx_dist_bicgstab(spx_dist_plan *P, const void *b, int64_t b_len, void *x, int64_t x_len,
                             const spx_solve_opts *o, spx_solve_info *info)
{
    return dist_solve_run(P, b, b_len, x, x_len, o, info, spx__bicgstab_op, 0);
}

spx_status spx_dist_gmres(spx_dist_plan *P, const void *b, int64_t b_len, void *x, int64_t x_len,
                          const spx_solve_opts *o, spx_solve_info *info)
{
    return dist_solve_run(P, b, b_len, x, x_len, o, info, spx__gmres_op, 0);
}

spx_status spx_dist_cg_device(spx_dist_plan *P, const void *b, int64_t b_len, void *x,
                              int64_t x_len, const spx_solve_opts *o, spx_solve_info *info)
{
    return dist_solve_run(P, b, b_len, x, x_len, o, info, spx__cg_op, 1);
}

spx_status spx_dist_bicgstab_device(spx_dist_plan *P, const void *b, int64_t b_len, void *x,
                                    int64_t x_len, const spx_solve_opts *o, spx_solve_info *info)
{
    return dist_solve_run(P, b, b_len, x, x_len, o, info, spx__bicgstab_op, 1);
}

spx_status spx_dist_gmres_device(spx_dist_plan *P, const void *b, int64_t b_len, void *x,
                                 int64_t x_len, const spx_solve_opts *o, spx_solve_info *info)
{
    return dist_solve_run(P, b, b_len, x, x_len, o, info, spx__gmres_op, 1);
}

/* What every rank checks before eigsh, agreed. */
static spx_status check_eigsh(spx_dist_plan *P, const double *values, const void *vectors,
                              int resident)
{
    if (!P || P->magic != SPX__DIST_PLAN_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "distributed plan handle is NULL, freed or wrong");
    const spx_dist_matrix *D = P->D;
    spx_status st = SPX_OK;
    if (D->rows != D->cols)
        st = spx__error(SPX_ERR_DIM_MISMATCH, "eigsh needs a square matrix, not %lld x %lld",
                        (long long)D->rows, (long long)D->cols);
    else if (!values)
        st = spx__error(SPX_ERR_INVALID_ARG, "eigsh: values is NULL");
    else if (resident && P->device < 0)
        st = spx__error(SPX_ERR_UNSUPPORTED,
                        "rank %d: eigsh on the GPU needs a plan on a GPU (device cuda)", D->rank);
    else if (resident && (st = spx__cuda_set_device(P->device)) == SPX_OK && vectors &&
             P->own_rows > 0)
        st = spx__cuda_device_array(vectors, "the eigenvectors");
    return spx__dist_agree(D->comm, st);
}

/* eigsh on a distributed plan, host or resident vectors. */
static spx_status dist_eigsh_run(spx_dist_plan *P, const spx_eig_opts *o, double *values,
                                 void *vectors, spx_eig_info *info, int resident)
{
    spx_status st = check_eigsh(P, values, vectors, resident);
    if (st != SPX_OK) return st;
    dist_solve c = {P, {allsum, NULL, P->D->rows}};
    c.reduce.ctx = &c;
    const spx__solve_op op = op_of(&c, resident, NULL);
    return spx__eigsh_op(&op, P->D->row_start[P->D->rank], o, values, vectors, info);
}

spx_status spx_dist_eigsh(spx_dist_plan *P, const spx_eig_opts *o, double *values, void *vectors,
                          spx_eig_info *info)
{
    return dist_eigsh_run(P, o, values, vectors, info, 0);
}

spx_status spx_dist_eigsh_device(spx_dist_plan *P, const spx_eig_opts *o, double *values,
                                 void *vectors, spx_eig_info *info)
{
    return dist_eigsh_run(P, o, values, vectors, info, 1);
}
