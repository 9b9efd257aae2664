/* GPU ranks on one host reach each other's exchange buffers directly
 * (dist.h): at plan time each rank sends every same-host peer that receives
 * from it (x entries: from dx_send; partial sums: from df) a CUDA IPC
 * handle of that buffer and where the peer's entries start in it; the peer
 * maps it. A resident call then sends only a ready message to such a peer,
 * after its stream finished writing the buffer, and the peer's threads read
 * the entries device to device (NVLink or PCIe; all its peers in one
 * spx__cuda_pull launch, or one copy a peer where its kernels may not read a
 * mapping or SPX_DIST_PULL=0 is set) instead of through two pinned host
 * copies and MPI. The buffer is not written again before the call's
 * closing agreement, which every rank reaches after its copies finished.
 * The setup is all or nothing: when any rank cannot map (no IPC in a
 * container, for one) or asks not to (SPX_DIST_IPC=0 in its environment,
 * for measurements), every rank keeps the host path. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/mpi/dist.h"

enum { TAG_IPC = 7303 };

/* What a sender tells a same-host receiver about one of its buffers. */
typedef struct ipc_offer {
    unsigned char handle[SPX__CUDA_IPC_BYTES];
    int64_t first; /* the receiver's entries start here, in entries */
    int32_t ok;    /* 0: the sender could not name its buffer */
    int32_t pad;
} ipc_offer;

/* same[q]: rank q of D's communicator runs on this host. */
static spx_status same_host(const spx_dist_matrix *D, char *same)
{
    MPI_Comm node;
    MPI_Group world, local;
    int n = 0, *mine = NULL, *theirs = NULL;
    spx_status st = spx__dist_mpi(
        MPI_Comm_split_type(D->comm, MPI_COMM_TYPE_SHARED, D->rank, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
    if (st != SPX_OK) return st;
    MPI_Comm_size(node, &n);
    MPI_Comm_group(node, &local);
    MPI_Comm_group(D->comm, &world);
    st = spx__alloc((void **)&mine, 2 * (size_t)n, sizeof *mine, "same-host ranks");
    if (st == SPX_OK) {
        theirs = mine + n;
        for (int k = 0; k < n; k++)
            mine[k] = k;
        st = spx__dist_mpi(MPI_Group_translate_ranks(local, n, mine, world, theirs),
                           "MPI_Group_translate_ranks");
    }
    memset(same, 0, (size_t)D->size);
    for (int k = 0; st == SPX_OK && k < n; k++)
        if (theirs[k] >= 0 && theirs[k] < D->size) same[theirs[k]] = 1;
    spx__free(mine);
    MPI_Group_free(&local);
    MPI_Group_free(&world);
    MPI_Comm_free(&node);
    return st;
}

/* An MPI post that failed is remembered, not waited for. */
static int posted(int rc, int *failed)
{
    if (rc != MPI_SUCCESS) *failed = rc;
    return rc == MPI_SUCCESS;
}

/* One route's offers: out-peers on this host get buf's handle, in-peers on
 * this host send theirs (offers_in[k]); out_ipc[k] marks the former. */
static spx_status trade_offers(spx_dist_plan *P, const spx__dist_route *in,
                               const spx__dist_route *out, const void *buf, const char *same,
                               ipc_offer *offers_in, ipc_offer *offers_out, char *out_ipc)
{
    MPI_Comm comm = P->D->comm;
    int nreq = 0, failed = MPI_SUCCESS;
    unsigned char handle[SPX__CUDA_IPC_BYTES];
    int have = spx__cuda_ipc_handle(buf, handle) == SPX_OK;
    for (int k = 0; k < in->n; k++)
        if (same[in->peer[k]] && posted(MPI_Irecv(&offers_in[k], (int)sizeof *offers_in, MPI_BYTE,
                                                  in->peer[k], TAG_IPC, comm, &P->req[nreq]),
                                        &failed))
            nreq++;
    for (int k = 0; k < out->n; k++) {
        out_ipc[k] = same[out->peer[k]];
        if (!out_ipc[k]) continue;
        memset(&offers_out[k], 0, sizeof offers_out[k]);
        memcpy(offers_out[k].handle, handle, sizeof handle);
        offers_out[k].first = out->off[k];
        offers_out[k].ok = have;
        if (posted(MPI_Isend(&offers_out[k], (int)sizeof offers_out[k], MPI_BYTE, out->peer[k],
                             TAG_IPC, comm, &P->req[nreq]),
                   &failed))
            nreq++;
    }
    int rc = MPI_Waitall(nreq, P->req, MPI_STATUSES_IGNORE);
    return spx__dist_mpi(failed != MPI_SUCCESS ? failed : rc, "an IPC offer");
}

/* Map every same-host in-peer's offer: src[k] = its buffer at our entries. */
static spx_status map_offers(spx_dist_plan *P, const spx__dist_route *in, const char *same,
                             const ipc_offer *offers, const void **src)
{
    for (int k = 0; k < in->n; k++) {
        void *base = NULL;
        if (!same[in->peer[k]]) continue;
        if (!offers[k].ok)
            return spx__error(SPX_ERR_DEVICE, "rank %d could not share its buffer", in->peer[k]);
        spx_status st = spx__cuda_ipc_open(offers[k].handle, &base);
        if (st != SPX_OK) return st;
        P->ipc_maps[P->ipc_nmaps++] = base;
        src[k] = (const char *)base + (size_t)offers[k].first * P->es;
    }
    return SPX_OK;
}

static int any_zero(const char *v, int n)
{
    for (int k = 0; k < n; k++)
        if (!v[k]) return 1;
    return 0;
}

static spx_status ipc_alloc(spx_dist_plan *P, char **same, ipc_offer **offers)
{
    spx_status st;
    int nin = P->halo_in.n + P->part_in.n, nout = P->halo_out.n + P->part_out.n;
    SPX_TRY(spx__calloc((void **)same, (size_t)P->D->size + 1, 1, "same-host ranks"));
    SPX_TRY(spx__calloc((void **)offers, (size_t)(nin + nout) + 1, sizeof **offers, "IPC offers"));
    SPX_TRY(spx__calloc((void **)&P->halo_src, (size_t)P->halo_in.n + 1, sizeof *P->halo_src,
                        "IPC sources"));
    SPX_TRY(spx__calloc((void **)&P->part_src, (size_t)P->part_in.n + 1, sizeof *P->part_src,
                        "IPC sources"));
    SPX_TRY(spx__calloc((void **)&P->ipc_maps, (size_t)nin + 1, sizeof *P->ipc_maps, "IPC maps"));
    SPX_TRY(spx__calloc((void **)&P->halo_out_ipc, (size_t)nout + 1, 1, "IPC peers"));
    P->part_out_ipc = P->halo_out_ipc + P->halo_out.n;
cleanup:
    return st;
}

/* Whether this GPU's threads may read every peer buffer mapped in src (n
 * entries, NULL where that peer is not mapped). */
static int kernels_read(const spx_dist_plan *P, const void *const *src, int n)
{
    for (int k = 0; k < n; k++)
        if (src[k] && !spx__cuda_ipc_readable(src[k], P->device)) return 0;
    return 1;
}

/* Both routes' offers traded and mapped; SPX_OK everywhere or nowhere. */
static spx_status ipc_trade_and_map(spx_dist_plan *P, char *same, ipc_offer *offers)
{
    const spx_dist_matrix *D = P->D;
    ipc_offer *halo_in = offers, *halo_out = halo_in + P->halo_in.n;
    ipc_offer *part_in = halo_out + P->halo_out.n, *part_out = part_in + P->part_in.n;
    spx_status st;
    SPX_TRY(spx__dist_agree(D->comm, same_host(D, same)));
    st = trade_offers(P, &P->halo_in, &P->halo_out, P->dx_send, same, halo_in, halo_out,
                      P->halo_out_ipc);
    if (st == SPX_OK)
        st = trade_offers(P, &P->part_in, &P->part_out, P->df, same, part_in, part_out,
                          P->part_out_ipc);
    SPX_TRY(spx__dist_agree(D->comm, st));
    st = map_offers(P, &P->halo_in, same, halo_in, P->halo_src);
    if (st == SPX_OK) st = map_offers(P, &P->part_in, same, part_in, P->part_src);
    st = spx__dist_agree(D->comm, st);
cleanup:
    return st;
}

spx_status spx__dist_ipc_setup(spx_dist_plan *P)
{
    const spx_dist_matrix *D = P->D;
    char *same = NULL;
    ipc_offer *offers = NULL;
    const char *env = getenv("SPX_DIST_IPC");
    int want = !(env && strcmp(env, "0") == 0) && P->device >= 0, all = 0;
    spx_status st =
        spx__dist_mpi(MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, D->comm), "MPI_Allreduce");
    if (st != SPX_OK || !all) return st;
    st = spx__cuda_set_device(P->device); /* handles name, and mappings land on, this GPU */
    if (st == SPX_OK) st = ipc_alloc(P, &same, &offers);
    st = spx__dist_agree(D->comm, st);
    if (st == SPX_OK) st = ipc_trade_and_map(P, same, offers);
    if (st == SPX_OK) {
        const char *pull = getenv("SPX_DIST_PULL");
        P->ipc = 1;
        P->ipc_pull = !(pull && strcmp(pull, "0") == 0) &&
                      kernels_read(P, P->halo_src, P->halo_in.n) &&
                      kernels_read(P, P->part_src, P->part_in.n);
        P->halo_out_host = any_zero(P->halo_out_ipc, P->halo_out.n);
        P->part_out_host = any_zero(P->part_out_ipc, P->part_out.n);
    } else {
        spx__dist_ipc_free(P); /* the host path, on every rank */
        spx__clear_error();
        st = SPX_OK;
    }
    spx__free(same);
    spx__free(offers);
    return st;
}

void spx__dist_ipc_free(spx_dist_plan *P)
{
    for (int k = 0; k < P->ipc_nmaps; k++)
        spx__cuda_ipc_close(P->ipc_maps[k]);
    spx__free(P->ipc_maps);
    spx__free((void *)P->halo_src);
    spx__free((void *)P->part_src);
    spx__free(P->halo_out_ipc);
    P->ipc_maps = NULL;
    P->halo_src = P->part_src = NULL;
    P->halo_out_ipc = P->part_out_ipc = NULL;
    P->ipc = P->ipc_nmaps = 0;
}
