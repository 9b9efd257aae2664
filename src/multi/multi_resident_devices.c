/* A resident call across several GPUs (multi.h): each group's halo and
 * products, then each group's merge, on the GPUs' streams with every
 * dependency an event, so that the call needs no host wait but its last.
 *
 * Events of group g's first part (its lead): ev[0] its start (part 0's is
 * the call's), ev[1] after its halo, queued on a stream of its own (the
 * group's halo_stream), which its parts wait for once they have multiplied
 * what needs no halo (an overlapping part's own columns: multi_overlap.c);
 * every part's ev[2] after its product; the lead's stream waits for every other
 * part's ev[2] (a merge reads parts of any group), records ev[4], merges
 * what its group owns (multi_resident_merge.c) and records ev[3]. The
 * phases are read from these pairs, each on one device (multi_info.c).
 *
 * Queued by a thread per GPU (multi_resident.c) or, to be recorded as one
 * CUDA graph (multi_graph.c), all from the calling thread, every lead's
 * stream forked from part 0's ev[0] and part 0's stream joined to every
 * lead's ev[3]; the merges wait for the products where the leads meet
 * (spx__multi_meet: by events, or from 3 GPUs on by a barrier of flags). A
 * solver's product, which is recorded with the solver's iteration, needs
 * neither fork nor join (spx__multi_queue_meeting). On 4 H200s with a thread per GPU and the merge
 * queued by the calling thread after a host wait (lap3d7:250, 109M nonzeros;
 * bench/results/msrep-4gpu-2026-11-26.md) the parts' SpMV took 0.114 ms of
 * a 0.187 ms pcsr call and of a 0.215 ms pcsc call; as one graph 0.186 and
 * 0.182 ms (run AI). */
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

/* Group g's halo read by its GPU's threads, SPX__CUDA_PULL_RANGES ranges a
 * launch. */
static spx_status pull_halo(const spx_multi_plan *P, int g, const spx_multi_vector *x, void *stream)
{
    const spx__multi_group *G = &P->group[g];
    spx_status st = SPX_OK;
    for (int h0 = 0; st == SPX_OK && h0 < G->halos; h0 += SPX__CUDA_PULL_RANGES) {
        spx__cuda_pull_table t = {.n = 0, .es = (int)P->es, .blocks = G->pull_blocks};
        for (int h = h0; h < G->halos && t.n < SPX__CUDA_PULL_RANGES; h++) {
            const spx__multi_halo *r = &G->halo[h];
            t.r[t.n++] =
                (spx__cuda_pull_range){spx__multi_vector_at(x, G->lead, r->lo),
                                       spx__multi_vector_at(x, r->src, r->lo), r->hi - r->lo};
        }
        st = spx__cuda_pull(&t, stream);
    }
    return st;
}

/* Group g's halo on stream: the x entries its parts read from other groups. */
static spx_status group_halo(const spx_multi_plan *P, int g, const spx_multi_vector *x,
                             void *stream)
{
    const spx__multi_group *G = &P->group[g];
    spx_status st = SPX_OK;
    if (G->pull) return pull_halo(P, g, x, stream);
    for (int h = 0; st == SPX_OK && h < G->halos; h++) {
        const spx__multi_halo *r = &G->halo[h];
        st = spx__multi_move(P, spx__multi_vector_at(x, G->lead, r->lo), G->device,
                             spx__multi_vector_at(x, r->src, r->lo), P->part[r->src].device,
                             r->hi - r->lo, stream);
    }
    return st;
}

spx_status spx__multi_queue_group(const spx_multi_plan *P, int g, int fork, double alpha,
                                  const spx_multi_vector *x, double beta, spx_multi_vector *y)
{
    const spx__multi_group *G = &P->group[g];
    const spx__multi_part *lead = &P->part[G->lead];
    spx_status st;
    SPX_TRY(spx__cuda_set_device(G->device));
    if (fork && G->lead != 0) SPX_TRY(spx__cuda_stream_wait(lead->stream, P->part[0].ev[0]));
    if (!fork || G->lead != 0) SPX_TRY(spx__cuda_event_record(lead->ev[0], lead->stream));
    SPX_TRY(spx__cuda_stream_wait(G->halo_stream, lead->ev[0]));
    SPX_TRY(group_halo(P, g, x, G->halo_stream));
    SPX_TRY(spx__cuda_event_record(lead->ev[1], G->halo_stream));
    for (int i = G->lead; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        if (p->group != g) continue;
        if (i != G->lead) SPX_TRY(spx__cuda_stream_wait(p->stream, lead->ev[0]));
        SPX_TRY(spx__multi_product(P, i, 0, alpha, x, beta, y));
        SPX_TRY(spx__cuda_stream_wait(p->stream, lead->ev[1]));
        SPX_TRY(spx__multi_product(P, i, 1, alpha, x, beta, y));
        SPX_TRY(spx__cuda_event_record(p->ev[2], p->stream));
    }
cleanup:
    return st;
}

/* Group g's merge, its lead after every part's product. */
static spx_status merge(const spx_multi_plan *P, int g, double beta, spx_multi_vector *y)
{
    const spx__multi_part *lead = &P->part[P->group[g].lead];
    spx_status st;
    SPX_TRY(spx__cuda_set_device(P->group[g].device));
    SPX_TRY(spx__cuda_event_record(lead->ev[4], lead->stream));
    SPX_TRY(spx__multi_merge_queue(P, g, beta, y));
    SPX_TRY(spx__cuda_set_device(P->group[g].device));
    SPX_TRY(spx__cuda_event_record(lead->ev[3], lead->stream));
cleanup:
    return st;
}

spx_status spx__multi_merge_group(const spx_multi_plan *P, int g, double beta, spx_multi_vector *y)
{
    const spx__multi_part *lead = &P->part[P->group[g].lead];
    spx_status st;
    SPX_TRY(spx__cuda_set_device(P->group[g].device));
    for (int i = 0; i < P->parts; i++)
        if (i != P->group[g].lead) SPX_TRY(spx__cuda_stream_wait(lead->stream, P->part[i].ev[2]));
    SPX_TRY(merge(P, g, beta, y));
cleanup:
    return st;
}

spx_status spx__multi_queue_meeting(const spx_multi_plan *P, double alpha,
                                    const spx_multi_vector *x, double beta, spx_multi_vector *y)
{
    spx_status st;
    SPX_TRY(spx__multi_meet(P));
    for (int g = 0; g < P->groups; g++)
        SPX_TRY(spx__multi_queue_group(P, g, 0, alpha, x, beta, y));
    SPX_TRY(spx__multi_meet(P));
    for (int g = 0; g < P->groups; g++)
        SPX_TRY(merge(P, g, beta, y));
    for (int i = 0; i < P->parts; i++) {
        const int lead = P->group[P->part[i].group].lead;
        if (i == lead) continue;
        SPX_TRY(spx__cuda_set_device(P->part[i].device));
        SPX_TRY(spx__cuda_stream_wait(P->part[i].stream, P->part[lead].ev[3]));
    }
cleanup:
    return st;
}

spx_status spx__multi_queue_devices(const spx_multi_plan *P, double alpha,
                                    const spx_multi_vector *x, double beta, spx_multi_vector *y)
{
    const spx__multi_part *first = &P->part[0];
    spx_status st;
    SPX_TRY(spx__cuda_set_device(first->device));
    SPX_TRY(spx__cuda_event_record(first->ev[0], first->stream));
    for (int g = 0; g < P->groups; g++)
        SPX_TRY(spx__multi_queue_group(P, g, 1, alpha, x, beta, y));
    SPX_TRY(spx__multi_meet(P));
    for (int g = 0; g < P->groups; g++)
        SPX_TRY(merge(P, g, beta, y));
    SPX_TRY(spx__cuda_set_device(first->device));
    for (int g = 0; g < P->groups; g++)
        if (P->group[g].lead != 0)
            SPX_TRY(spx__cuda_stream_wait(first->stream, P->part[P->group[g].lead].ev[3]));
cleanup:
    return st;
}
