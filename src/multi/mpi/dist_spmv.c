/* A distributed product (dist.h): post the halo exchange, multiply the
 * blocks of the rank's own columns meanwhile, wait, multiply the halo
 * blocks, send the partial sums of rows owned elsewhere and add those
 * received, in rank order. With resident vectors (spx_dist_spmv_device)
 * the blocks read and write the caller's device vectors, and only the
 * exchanged entries move: device to device from peers on the same host
 * (dist_ipc.c), else through the host and MPI. A rank whose step fails
 * still takes part in every exchange (so no peer waits forever) and the
 * call ends with an agreement on every rank's outcome. */
#include <string.h>

#include "core/error.h"
#include "cuda/blas1/blas1.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/mpi/dist.h"

enum { TAG_X = 7301, TAG_PARTIAL = 7302 };

static void *at(const void *v, int64_t k, size_t es) { return v ? (char *)v + (size_t)k * es : NULL; }

/* Post receives on route in into buf and sends on route out from sbuf;
 * a peer reached through IPC (in_src[k] set, out_ipc[k] set; NULL: none)
 * exchanges an empty ready message instead of its entries. */
static spx_status post(const spx_dist_plan *P, const spx__dist_route *in, void *buf,
                       const void *const *in_src, const spx__dist_route *out, const void *sbuf,
                       const char *out_ipc, int tag)
{
    spx_status st = SPX_OK;
    MPI_Comm comm = P->D->comm;
    for (int k = 0; k < in->n + out->n; k++) P->req[k] = MPI_REQUEST_NULL;
    for (int k = 0; k < in->n; k++) {
        int n = in_src && in_src[k] ? 0 : (int)(in->off[k + 1] - in->off[k]);
        SPX__MPI_TRY(MPI_Irecv(at(buf, in->off[k], P->es), n, P->mpi_type, in->peer[k], tag, comm,
                               &P->req[k]));
    }
    for (int k = 0; k < out->n; k++) {
        int n = out_ipc && out_ipc[k] ? 0 : (int)(out->off[k + 1] - out->off[k]);
        SPX__MPI_TRY(MPI_Isend(at(sbuf, out->off[k], P->es), n, P->mpi_type, out->peer[k], tag,
                               comm, &P->req[in->n + k]));
    }
cleanup:
    return st;
}

/* The mapped peers' entries of route in, read into dbuf by this GPU's
 * threads: SPX__CUDA_PULL_RANGES peers a launch. */
static spx_status pull_in(const spx_dist_plan *P, const spx__dist_route *in, const void *const *src,
                          void *dbuf)
{
    spx__cuda_pull_table t = {.n = 0, .es = (int)P->es, .blocks = SPX__CUDA_PULL_BLOCKS};
    for (int k = 0; k < in->n; k++) {
        if (src[k] && in->off[k + 1] > in->off[k])
            t.r[t.n++] = (spx__cuda_pull_range){at(dbuf, in->off[k], P->es), src[k],
                                                in->off[k + 1] - in->off[k]};
        if (t.n == SPX__CUDA_PULL_RANGES || (k == in->n - 1 && t.n > 0)) {
            spx_status st = spx__cuda_pull(&t, P->stream);
            if (st != SPX_OK) return st;
            t.n = 0;
        }
    }
    return SPX_OK;
}

/* Route in's entries into dbuf on the GPU: from a same-host peer's GPU where
 * src[k] is set (src NULL: none; copies, or P->ipc_pull: pull_in), else from
 * hbuf, where MPI put them. */
static spx_status bring_in(const spx_dist_plan *P, const spx__dist_route *in,
                           const void *const *src, const void *hbuf, void *dbuf)
{
    spx_status st = SPX_OK;
    size_t es = P->es;
    if (!src) return spx__cuda_copy_async(dbuf, hbuf, (size_t)in->off[in->n] * es, 1, P->stream);
    if (P->ipc_pull) SPX_TRY(pull_in(P, in, src, dbuf));
    for (int k = 0; k < in->n; k++) {
        size_t bytes = (size_t)(in->off[k + 1] - in->off[k]) * es;
        void *d = at(dbuf, in->off[k], es);
        if (src[k] && !P->ipc_pull)
            SPX_TRY(spx__cuda_copy_peer(d, P->device, src[k], -1, bytes, P->stream));
        else if (!src[k])
            SPX_TRY(spx__cuda_copy_async(d, at(hbuf, in->off[k], es), bytes, 1, P->stream));
    }
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

/* Resident x: the entries other ranks need, gathered on the GPU and brought
 * to the host buffer the sends read. */
static spx_status pack_x_device(const spx_dist_plan *P, const void *x)
{
    spx_status st = SPX_OK;
    int64_t n = P->halo_out.off[P->halo_out.n];
    if (n == 0) return SPX_OK;
    SPX_TRY(spx__cuda_vgather(n, P->es, P->dsend_map, x, P->dx_send, P->stream));
    if (!P->ipc || P->halo_out_host)
        SPX_TRY(spx__cuda_copy_async(P->x_send, P->dx_send, (size_t)n * P->es, 0, P->stream));
    SPX_TRY(spx__cuda_sync(P->stream));
cleanup:
    return st;
}

static void add_partials(const spx_dist_plan *P, void *y)
{
    int64_t n = P->part_in.off[P->part_in.n];
    if (P->vtype == SPX_F64)
        for (int64_t k = 0; k < n; k++) ((double *)y)[P->recv_idx[k]] += ((const double *)P->f_recv)[k];
    else
        for (int64_t k = 0; k < n; k++) ((float *)y)[P->recv_idx[k]] += ((const float *)P->f_recv)[k];
}

/* Resident y: the same adds on the GPU, one launch per sender in rank
 * order (a sender's rows are distinct; two senders may share a row), so
 * every row gets its partial sums in the host loop's order. */
static spx_status add_partials_device(const spx_dist_plan *P, void *y)
{
    spx_status st = SPX_OK;
    const spx__dist_route *r = &P->part_in;
    int64_t n = r->off[r->n];
    if (n == 0) return SPX_OK;
    SPX_TRY(bring_in(P, r, P->ipc ? P->part_src : NULL, P->f_recv, P->df_recv));
    for (int k = 0; k < r->n; k++)
        SPX_TRY(spx__cuda_vscatter_add(r->off[k + 1] - r->off[k], P->vtype,
                                       P->drecv_map + r->off[k], at(P->df_recv, r->off[k], P->es),
                                       y, P->stream));
    SPX_TRY(spx__cuda_sync(P->stream));
cleanup:
    return st;
}

/* y (or f) = alpha * block * x + beta * y, a block without a plan adding nothing. */
static spx_status block(const spx_dist_plan *P, int b, double alpha, const void *x, double beta,
                        void *y)
{
    if (P->plan[b]) return spx_spmv(P->plan[b], alpha, x, beta, y);
    return SPX_OK;
}

/* Where a call's blocks read x and write y and f: the caller's host
 * vectors (CPU ranks), the plan's device copies of them (GPU ranks, host
 * vectors), or the caller's device vectors (resident). */
typedef struct vectors {
    int gpu, resident, ipc; /* ipc: resident, with same-host peers mapped (dist_ipc.c) */
    const void *x;
    void *y, *f;
} vectors;

static vectors vectors_of(const spx_dist_plan *P, const void *x, void *y, int resident)
{
    vectors v = {P->device >= 0, resident, resident && P->ipc, x, y, P->f};
    if (v.gpu) {
        v.x = resident && P->own_cols > 0 ? x : P->dx;
        v.y = resident && P->own_rows > 0 ? y : P->dy;
        v.f = P->df;
    }
    return v;
}

/* The blocks of own columns, on the host or queued on the rank's GPU. */
static spx_status local_blocks(spx_dist_plan *P, double alpha, const void *x, double beta, void *y,
                               const vectors *v)
{
    spx_status st = SPX_OK;
    size_t es = P->es;
    if (v->gpu) SPX_TRY(spx__cuda_set_device(P->device)); /* the caller may have moved */
    if (v->gpu && !v->resident) {
        SPX_TRY(spx__cuda_copy_async(P->dx, x, (size_t)P->own_cols * es, 1, P->stream));
        if (beta != 0.0)
            SPX_TRY(spx__cuda_copy_async(P->dy, y, (size_t)P->own_rows * es, 1, P->stream));
    }
    SPX_TRY(block(P, SPX__DIST_OO, alpha, v->x, beta, v->y));
    if (P->plan[SPX__DIST_FO])
        SPX_TRY(block(P, SPX__DIST_FO, alpha, v->x, 0.0, v->f));
    else if (v->gpu)
        SPX_TRY(spx__cuda_memset(P->df, 0, (size_t)P->foreign * es, P->stream));
    else
        memset(P->f, 0, (size_t)P->foreign * es);
cleanup:
    return st;
}

/* The halo blocks, then (GPU) f and, for host vectors, y back to the host. */
static spx_status halo_blocks(spx_dist_plan *P, double alpha, void *y, const vectors *v)
{
    spx_status st = SPX_OK;
    size_t es = P->es;
    const void *xh = v->gpu ? P->dx_halo : P->x_halo;
    if (v->gpu)
        SPX_TRY(bring_in(P, &P->halo_in, v->ipc ? P->halo_src : NULL, P->x_halo, P->dx_halo));
    SPX_TRY(block(P, SPX__DIST_OH, alpha, xh, 1.0, v->y));
    SPX_TRY(block(P, SPX__DIST_FH, alpha, xh, 1.0, v->f));
    if (v->gpu) {
        if (!v->resident)
            SPX_TRY(spx__cuda_copy_async(y, P->dy, (size_t)P->own_rows * es, 0, P->stream));
        if (!v->ipc || P->part_out_host)
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

/* A resident call's vectors: device memory of the plan's GPU. */
static spx_status check_resident(const spx_dist_plan *P, const void *x, const void *y)
{
    spx_status st = SPX_OK;
    int64_t sent = P->halo_out.off[P->halo_out.n], received = P->part_in.off[P->part_in.n];
    if (P->device < 0)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "rank %d: resident vectors need a plan on a GPU (device cuda)",
                          P->D->rank);
    if ((sent > 0 && !P->dsend_map) || (received > 0 && !P->drecv_map))
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "rank %d: an exchanged index passes 2^31-1; use host vectors",
                          P->D->rank);
    SPX_TRY(spx__cuda_set_device(P->device));
    if (P->own_cols > 0) SPX_TRY(spx__cuda_device_array(x, "x"));
    if (P->own_rows > 0) SPX_TRY(spx__cuda_device_array(y, "y"));
cleanup:
    if (st != SPX_OK)
        st = spx__error(st, "rank %d, GPU %d: %s", P->D->rank, P->device, spx_last_error());
    return st;
}

/* Keep the first failure; later steps are skipped, exchanges are not. */
#define KEEP(call)                                                                                 \
    do {                                                                                           \
        spx_status s_ = (call);                                                                    \
        if (st == SPX_OK) st = s_;                                                                 \
    } while (0)

/* Both calls: see the file's comment. */
static spx_status dist_call(spx_dist_plan *P, double alpha, const void *x, int64_t x_len,
                            double beta, void *y, int64_t y_len, int resident)
{
    if (!P || P->magic != SPX__DIST_PLAN_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "distributed plan handle is NULL, freed or wrong");
    spx_dist_info *in = &P->info;
    spx_status st = check_call(P, x, x_len, y, y_len);
    if (st == SPX_OK && resident) st = check_resident(P, x, y);
    st = spx__dist_agree_same(P->D->comm, st, resident,
                              "some called spx_dist_spmv, others spx_dist_spmv_device");
    if (st != SPX_OK) return st;
    int nx = P->halo_in.n + P->halo_out.n, np = P->part_in.n + P->part_out.n;
    vectors v = vectors_of(P, x, y, resident);
    double t0 = spx__dist_now_ms();
    if (resident)
        KEEP(pack_x_device(P, x));
    else
        pack_x(P, x);
    const void *const *hsrc = v.ipc ? P->halo_src : NULL, *const *psrc = v.ipc ? P->part_src : NULL;
    KEEP(post(P, &P->halo_in, P->x_halo, hsrc, &P->halo_out, P->x_send,
              v.ipc ? P->halo_out_ipc : NULL, TAG_X));
    if (st == SPX_OK) KEEP(local_blocks(P, alpha, x, beta, y, &v));
    double t1 = spx__dist_now_ms();
    KEEP(wait_all(P, nx));
    double t2 = spx__dist_now_ms();
    if (st == SPX_OK) KEEP(halo_blocks(P, alpha, y, &v));
    double t3 = spx__dist_now_ms();
    KEEP(post(P, &P->part_in, P->f_recv, psrc, &P->part_out, P->f, v.ipc ? P->part_out_ipc : NULL,
              TAG_PARTIAL));
    KEEP(wait_all(P, np));
    if (st == SPX_OK) {
        if (resident)
            KEEP(add_partials_device(P, y));
        else
            add_partials(P, y);
    }
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

spx_status spx_dist_spmv(spx_dist_plan *P, double alpha, const void *x, int64_t x_len, double beta,
                         void *y, int64_t y_len)
{
    return dist_call(P, alpha, x, x_len, beta, y, y_len, 0);
}

spx_status spx_dist_spmv_device(spx_dist_plan *P, double alpha, const void *x, int64_t x_len,
                                double beta, void *y, int64_t y_len)
{
    return dist_call(P, alpha, x, x_len, beta, y, y_len, 1);
}
