/* Distributed plans (dist.h): the four blocks, the two exchanges, a plan
 * per block on the rank's CPU or GPU; each step agreed on by every rank. */
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/mpi/dist.h"
#include "plan/auto_order.h"

static const char *const block_names[SPX__DIST_BLOCKS] = {"own rows x own columns",
                                                          "own rows x halo columns",
                                                          "other rows x own columns",
                                                          "other rows x halo columns"};

static spx_status check_request(const spx_dist_matrix *D, const spx_plan_opts *o, spx_dist_plan **out)
{
    if (!out) return spx__error(SPX_ERR_INVALID_ARG, "output plan pointer is NULL");
    if (o->op != SPX_OP_N)
        return spx__error(SPX_ERR_UNSUPPORTED, "distributed plans compute A*x (op N) only");
    if (o->device == SPX_DEV_CUDA && !spx_device_available(SPX_DEV_CUDA))
        return spx__error(spx__cuda_compiled() ? SPX_ERR_NO_DEVICE : SPX_ERR_NOT_COMPILED,
                          "rank %d: a CUDA plan without a usable GPU", D->rank);
    return SPX_OK;
}

/* The rank's GPU: its place among the ranks of its node, modulo the GPUs. */
static spx_status node_rank(const spx_dist_matrix *D, int *local)
{
    MPI_Comm node;
    spx_status st = spx__dist_mpi(
        MPI_Comm_split_type(D->comm, MPI_COMM_TYPE_SHARED, D->rank, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
    if (st != SPX_OK) return st;
    MPI_Comm_rank(node, local);
    MPI_Comm_free(&node);
    return SPX_OK;
}

/* idx[0..n) as a 32-bit map on the current device for resident calls; left
 * NULL when an index passes INT32_MAX (such a call then says so). */
static spx_status upload_map(const int64_t *idx, int64_t n, int32_t **dmap, const char *what)
{
    int32_t *m = NULL;
    for (int64_t k = 0; k < n; k++)
        if (idx[k] > INT32_MAX) return SPX_OK;
    if (n == 0) return SPX_OK;
    spx_status st = spx__alloc((void **)&m, (size_t)n, sizeof *m, what);
    if (st != SPX_OK) return st;
    for (int64_t k = 0; k < n; k++)
        m[k] = (int32_t)idx[k];
    st = spx__cuda_upload((void **)dmap, m, (size_t)n * sizeof *m, what);
    spx__free(m);
    return st;
}

/* The four exchange buffers of a GPU rank in pinned host memory, so that
 * its copies to and from the device run at full speed, in stream order;
 * on failure the plan keeps its pageable ones. */
static spx_status pin_buffers(spx_dist_plan *P)
{
    void **buf[4] = {&P->x_halo, &P->x_send, &P->f, &P->f_recv}, *pin[4] = {NULL};
    int64_t n[4] = {P->halo, P->halo_out.off[P->halo_out.n], P->foreign,
                    P->part_in.off[P->part_in.n]};
    spx_status st = SPX_OK;
    for (int k = 0; k < 4 && st == SPX_OK; k++)
        st = spx__cuda_host_alloc(&pin[k], (size_t)n[k] * P->es, "an MPI exchange buffer");
    for (int k = 0; k < 4; k++) {
        if (st == SPX_OK) {
            spx__free(*buf[k]);
            *buf[k] = pin[k];
        } else {
            spx__cuda_host_free(pin[k]);
        }
    }
    P->pinned = st == SPX_OK;
    return st;
}

static spx_status gpu_setup(spx_dist_plan *P, int local)
{
    spx_status st;
    size_t es = P->es;
    P->device = local % spx__cuda_device_count();
    SPX_TRY(spx__cuda_set_device(P->device));
    SPX_TRY(spx__cuda_stream_create(&P->stream));
    SPX_TRY(spx__cuda_alloc(&P->dx, (size_t)P->own_cols * es, "x on the GPU"));
    SPX_TRY(spx__cuda_alloc(&P->dx_halo, (size_t)P->halo * es, "x halo on the GPU"));
    SPX_TRY(spx__cuda_alloc(&P->dy, (size_t)P->own_rows * es, "y on the GPU"));
    SPX_TRY(spx__cuda_alloc(&P->df, (size_t)P->foreign * es, "partial sums on the GPU"));
    int64_t sent = P->halo_out.off[P->halo_out.n], received = P->part_in.off[P->part_in.n];
    SPX_TRY(spx__cuda_alloc(&P->dx_send, (size_t)sent * es, "x entries sent, on the GPU"));
    SPX_TRY(
        spx__cuda_alloc(&P->df_recv, (size_t)received * es, "partial sums received, on the GPU"));
    SPX_TRY(upload_map(P->send_idx, sent, &P->dsend_map, "indices of x entries sent"));
    SPX_TRY(upload_map(P->recv_idx, received, &P->drecv_map, "rows of partial sums received"));
    SPX_TRY(pin_buffers(P));
cleanup:
    return st;
}

/* A plan per block; a block without nonzeros has none, except own rows x
 * own columns, which also scales y by beta. AUTO's own degree ordering is
 * kept off (spx__params_unordered): every rank count multiplies A in the
 * same order. */
static spx_status block_plans(spx_dist_plan *P, const spx_plan_opts *o)
{
    char *unordered = NULL;
    spx_plan_opts po = *o;
    spx_status st;
    SPX_TRY(spx__params_unordered(o->params, &unordered));
    if (unordered) po.params = unordered;
    po.stream = P->stream;
    for (int b = 0; b < SPX__DIST_BLOCKS; b++) {
        P->info.formats[b] = "-";
        if (b != SPX__DIST_OO && P->block[b]->nnz == 0) continue;
        st = spx_plan_create(P->block[b], SPX_OP_SPMV, &po, &P->plan[b]);
        if (st != SPX_OK) {
            st = spx__error(st, "block %s: %s", block_names[b], spx_last_error());
            goto cleanup;
        }
        if (spx_plan_x_type(P->plan[b]) != P->vtype) {
            st = spx__error(SPX_ERR_UNSUPPORTED, "distributed plans take x of the vectors' type");
            goto cleanup;
        }
        P->info.formats[b] = spx_plan_format(P->plan[b]);
    }
cleanup:
    spx__free(unordered);
    return st;
}

static void fill_info(spx_dist_plan *P)
{
    spx_dist_info *in = &P->info;
    const spx_dist_matrix *D = P->D;
    in->halo_sources = P->halo_in.n;
    in->halo_targets = P->halo_out.n;
    in->halo_recv = P->halo;
    in->halo_send = P->halo_out.off[P->halo_out.n];
    in->partial_send = P->foreign;
    in->partial_recv = P->part_in.off[P->part_in.n];
    in->recv_bytes = (in->halo_recv + in->partial_recv) * (int64_t)P->es;
    in->allgather_bytes = (D->cols - P->own_cols) * (int64_t)P->es;
    in->exchange = !P->ipc ? "mpi" : P->ipc_pull ? "ipc threads" : "ipc copies";
}

spx_status spx_dist_plan_create(const spx_dist_matrix *D, const spx_plan_opts *opts,
                                spx_dist_plan **out)
{
    spx_plan_opts o = opts ? *opts : spx_plan_opts_default();
    spx_dist_plan *P = NULL;
    int64_t *halo_cols = NULL, *foreign_rows = NULL;
    int local = 0;
    if (!D || D->magic != SPX__DIST_MATRIX_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "distributed matrix handle is NULL, freed or wrong");
    double t0 = spx__dist_now_ms();
    spx_status st = check_request(D, &o, out);
    if (st == SPX_OK) *out = NULL;
    if (st == SPX_OK) st = spx__calloc((void **)&P, 1, sizeof *P, "distributed plan");
    if (st == SPX_OK) {
        P->magic = SPX__DIST_PLAN_MAGIC;
        P->D = D;
        P->vtype = o.precision == SPX_F64 ? SPX_F64 : SPX_F32;
        P->es = P->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
        P->mpi_type = spx__dist_type(P->vtype);
        P->device = -1;
        st = spx__dist_blocks(P, &halo_cols, &foreign_rows);
    }
    SPX_TRY(spx__dist_agree(D->comm, st));
    SPX_TRY(spx__dist_routes(P, halo_cols, foreign_rows));
    st = node_rank(D, &local);
    if (st == SPX_OK && o.device == SPX_DEV_CUDA) st = gpu_setup(P, local);
    if (st == SPX_OK) st = block_plans(P, &o);
    SPX_TRY(spx__dist_agree(D->comm, st));
    if (o.device == SPX_DEV_CUDA) SPX_TRY(spx__dist_ipc_setup(P));
    fill_info(P);
    P->info.prep_ms = spx__dist_now_ms() - t0;
    *out = P;
    P = NULL;
    spx__clear_error();
cleanup:
    spx__free(halo_cols);
    spx__free(foreign_rows);
    spx_dist_plan_destroy(P);
    return st;
}

void spx_dist_plan_destroy(spx_dist_plan *P)
{
    if (!P || P->magic != SPX__DIST_PLAN_MAGIC) return;
    if (P->device >= 0) spx__cuda_set_device(P->device);
    for (int b = 0; b < SPX__DIST_BLOCKS; b++) {
        spx_plan_destroy(P->plan[b]);
        spx_matrix_destroy(P->block[b]);
    }
    spx__dist_route_free(&P->halo_in);
    spx__dist_route_free(&P->halo_out);
    spx__dist_route_free(&P->part_in);
    spx__dist_route_free(&P->part_out);
    spx__free(P->send_idx);
    spx__free(P->recv_idx);
    void (*host_free)(void *) = P->pinned ? spx__cuda_host_free : spx__free;
    host_free(P->x_halo);
    host_free(P->x_send);
    host_free(P->f);
    host_free(P->f_recv);
    spx__free(P->req);
    if (P->device >= 0) {
        int mapped = P->ipc; /* the same on every rank (dist_ipc.c) */
        spx__dist_ipc_free(P);
        /* CUDA leaves freeing memory another process still maps undefined:
         * every rank closes its mappings before any frees its buffers */
        if (mapped) MPI_Barrier(P->D->comm);
        spx__cuda_free(P->dx);
        spx__cuda_free(P->dx_halo);
        spx__cuda_free(P->dy);
        spx__cuda_free(P->df);
        spx__cuda_free(P->dx_send);
        spx__cuda_free(P->df_recv);
        spx__cuda_free(P->dsend_map);
        spx__cuda_free(P->drecv_map);
        spx__cuda_stream_destroy(P->stream);
    }
    P->magic = 0;
    spx__free(P);
}

int spx_dist_plan_device(const spx_dist_plan *P)
{
    return P && P->magic == SPX__DIST_PLAN_MAGIC ? P->device : -1;
}

spx_status spx_dist_plan_info(const spx_dist_plan *P, spx_dist_info *info)
{
    if (!P || P->magic != SPX__DIST_PLAN_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "distributed plan handle is NULL, freed or wrong");
    if (!info) return spx__error(SPX_ERR_INVALID_ARG, "spx_dist_plan_info: NULL output");
    *info = P->info;
    return SPX_OK;
}
