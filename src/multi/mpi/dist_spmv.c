/* A distributed product (dist.h): post the halo exchange, multiply the
 * blocks of the rank's own columns meanwhile, wait, multiply the halo
 * blocks, send the partial sums of rows owned elsewhere and add those
 * received, in rank order. A rank whose step fails still takes part in
 * every exchange (so no peer waits forever) and the call ends with an
 * agreement on every rank's outcome. */
#include <string.h>

#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/mpi/dist.h"

enum { TAG_X = 7301, TAG_PARTIAL = 7302 };

static void *at(const void *v, int64_t k, size_t es) { return v ? (char *)v + (size_t)k * es : NULL; }

/* Post receives on route in into buf and sends on route out from sbuf. */
static spx_status post(const spx_dist_plan *P, const spx__dist_route *in, void *buf,
                       const spx__dist_route *out, const void *sbuf, int tag)
{
    spx_status st = SPX_OK;
    MPI_Comm comm = P->D->comm;
    for (int k = 0; k < in->n + out->n; k++) P->req[k] = MPI_REQUEST_NULL;
    for (int k = 0; k < in->n; k++)
        SPX__MPI_TRY(MPI_Irecv(at(buf, in->off[k], P->es), (int)(in->off[k + 1] - in->off[k]),
                               P->mpi_type, in->peer[k], tag, comm, &P->req[k]));
    for (int k = 0; k < out->n; k++)
        SPX__MPI_TRY(MPI_Isend(at(sbuf, out->off[k], P->es), (int)(out->off[k + 1] - out->off[k]),
                               P->mpi_type, out->peer[k], tag, comm, &P->req[in->n + k]));
cleanup:
    return st;
}

static spx_status wait_all(const spx_dist_plan *P, int n)
{
    return spx__dist_mpi(MPI_Waitall(n, P->req, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

static void pack_x(const spx_dist_plan *P, const void *x)
{
    int64_t n = P->halo_out.off[P->halo_out.n];
    if (P->vtype == SPX_F64)
        for (int64_t k = 0; k < n; k++) ((double *)P->x_send)[k] = ((const double *)x)[P->send_idx[k]];
    else
        for (int64_t k = 0; k < n; k++) ((float *)P->x_send)[k] = ((const float *)x)[P->send_idx[k]];
}

static void add_partials(const spx_dist_plan *P, void *y)
{
    int64_t n = P->part_in.off[P->part_in.n];
    if (P->vtype == SPX_F64)
        for (int64_t k = 0; k < n; k++) ((double *)y)[P->recv_idx[k]] += ((const double *)P->f_recv)[k];
    else
        for (int64_t k = 0; k < n; k++) ((float *)y)[P->recv_idx[k]] += ((const float *)P->f_recv)[k];
}

/* y (or f) = alpha * block * x + beta * y, a block without a plan adding nothing. */
static spx_status block(const spx_dist_plan *P, int b, double alpha, const void *x, double beta,
                        void *y)
{
    if (P->plan[b]) return spx_spmv(P->plan[b], alpha, x, beta, y);
    return SPX_OK;
}

/* The blocks of own columns, on the host or queued on the rank's GPU. */
static spx_status local_blocks(spx_dist_plan *P, double alpha, const void *x, double beta, void *y)
{
    spx_status st = SPX_OK;
    size_t es = P->es;
    int gpu = P->device >= 0;
    void *fx = gpu ? P->dx : (void *)x, *fy = gpu ? P->dy : y, *ff = gpu ? P->df : P->f;
    if (gpu) {
        SPX_TRY(spx__cuda_set_device(P->device));
        SPX_TRY(spx__cuda_copy_async(P->dx, x, (size_t)P->own_cols * es, 1, P->stream));
        if (beta != 0.0)
            SPX_TRY(spx__cuda_copy_async(P->dy, y, (size_t)P->own_rows * es, 1, P->stream));
    }
    SPX_TRY(block(P, SPX__DIST_OO, alpha, fx, beta, fy));
    if (P->plan[SPX__DIST_FO])
        SPX_TRY(block(P, SPX__DIST_FO, alpha, fx, 0.0, ff));
    else if (gpu)
        SPX_TRY(spx__cuda_memset(P->df, 0, (size_t)P->foreign * es, P->stream));
    else
        memset(P->f, 0, (size_t)P->foreign * es);
cleanup:
    return st;
}

/* The halo blocks, then (GPU) y and f back to the host. */
static spx_status halo_blocks(spx_dist_plan *P, double alpha, void *y)
{
    spx_status st = SPX_OK;
    size_t es = P->es;
    int gpu = P->device >= 0;
    if (gpu) SPX_TRY(spx__cuda_copy_async(P->dx_halo, P->x_halo, (size_t)P->halo * es, 1, P->stream));
    SPX_TRY(block(P, SPX__DIST_OH, alpha, gpu ? P->dx_halo : P->x_halo, 1.0, gpu ? P->dy : y));
    SPX_TRY(block(P, SPX__DIST_FH, alpha, gpu ? P->dx_halo : P->x_halo, 1.0, gpu ? P->df : P->f));
    if (gpu) {
        SPX_TRY(spx__cuda_copy_async(y, P->dy, (size_t)P->own_rows * es, 0, P->stream));
        SPX_TRY(spx__cuda_copy_async(P->f, P->df, (size_t)P->foreign * es, 0, P->stream));
        SPX_TRY(spx__cuda_sync(P->stream));
    }
cleanup:
    return st;
}

static spx_status check_call(const spx_dist_plan *P, const void *x, int64_t x_len, const void *y,
                             int64_t y_len)
{
    if (x_len != P->own_cols || y_len != P->own_rows)
        return spx__error(SPX_ERR_DIM_MISMATCH,
                          "rank %d owns %lld x and %lld y entries; the call passes %lld and %lld",
                          P->D->rank, (long long)P->own_cols, (long long)P->own_rows,
                          (long long)x_len, (long long)y_len);
    if ((x_len > 0 && !x) || (y_len > 0 && !y))
        return spx__error(SPX_ERR_INVALID_ARG, "rank %d: x or y is NULL", P->D->rank);
    return SPX_OK;
}

/* Keep the first failure; later steps are skipped, exchanges are not. */
#define KEEP(call)                                                                                 \
    do {                                                                                           \
        spx_status s_ = (call);                                                                    \
        if (st == SPX_OK) st = s_;                                                                 \
    } while (0)

spx_status spx_dist_spmv(spx_dist_plan *P, double alpha, const void *x, int64_t x_len, double beta,
                         void *y, int64_t y_len)
{
    if (!P || P->magic != SPX__DIST_PLAN_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "distributed plan handle is NULL, freed or wrong");
    spx_dist_info *in = &P->info;
    spx_status st = spx__dist_agree(P->D->comm, check_call(P, x, x_len, y, y_len));
    if (st != SPX_OK) return st;
    int nx = P->halo_in.n + P->halo_out.n, np = P->part_in.n + P->part_out.n;
    double t0 = spx__dist_now_ms();
    pack_x(P, x);
    KEEP(post(P, &P->halo_in, P->x_halo, &P->halo_out, P->x_send, TAG_X));
    if (st == SPX_OK) KEEP(local_blocks(P, alpha, x, beta, y));
    double t1 = spx__dist_now_ms();
    KEEP(wait_all(P, nx));
    double t2 = spx__dist_now_ms();
    if (st == SPX_OK) KEEP(halo_blocks(P, alpha, y));
    double t3 = spx__dist_now_ms();
    KEEP(post(P, &P->part_in, P->f_recv, &P->part_out, P->f, TAG_PARTIAL));
    KEEP(wait_all(P, np));
    if (st == SPX_OK) add_partials(P, y);
    double t4 = spx__dist_now_ms();
    in->local_ms = t1 - t0;
    in->halo_wait_ms = t2 - t1;
    in->remote_ms = t3 - t2;
    in->partial_ms = t4 - t3;
    in->call_ms = t4 - t0;
    st = spx__dist_agree(P->D->comm, st);
    if (st == SPX_OK) spx__clear_error();
    return st;
}
