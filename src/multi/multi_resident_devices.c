/* A resident call across several GPUs queued from the calling thread
 * (multi.h), so that it can be recorded as one CUDA graph and replayed
 * (multi_graph.c).
 *
 * Queued by a thread per device and merged by the calling thread after a
 * host wait (multi_resident.c), such a call spends host time the GPUs wait
 * for: the threads' fork and join, a host round trip between the products
 * and the merge, and the merge's copies and adds launched one after another.
 * On 4 H200 (lap3d7:250, 109M nonzeros; bench/results/msrep-4gpu-2026-11-26.md)
 * the parts' SpMV took 0.114 ms of a 0.187 ms pcsr call (halo 0.028, merge
 * of three ghost lines 0.031) and of a 0.215 ms pcsc call (merge 0.076).
 *
 * Here every dependency is an event between streams instead: part 0's
 * stream starts (ev[0]) and every group's first stream waits for it; that
 * stream copies its group's halo (ev[1] after), which its other parts wait
 * for; each part's product ends with its ev[2]; each group's first stream
 * waits for every part's ev[2] (a merge reads parts of any group), merges
 * what its group owns (multi_resident_merge.c) and records its ev[3]; part
 * 0's stream waits for every group's ev[3]. Recorded once, a call is one
 * graph launch and one host wait. */
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

/* Group g: after part 0's start, its halo on its first stream, then its
 * parts' products, each after the halo. */
static spx_status queue_group(const spx_multi_plan *P, int g, double alpha,
                              const spx_multi_vector *x, double beta, spx_multi_vector *y)
{
    const spx__multi_group *G = &P->group[g];
    const spx__multi_part *lead = &P->part[G->lead];
    spx_status st;
    SPX_TRY(spx__cuda_set_device(G->device));
    if (G->lead != 0) SPX_TRY(spx__cuda_stream_wait(lead->stream, P->part[0].ev[0]));
    SPX_TRY(spx__multi_group_halo(P, g, x, lead->stream));
    SPX_TRY(spx__cuda_event_record(lead->ev[1], lead->stream));
    for (int i = G->lead; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        if (p->group != g) continue;
        if (i != G->lead) SPX_TRY(spx__cuda_stream_wait(p->stream, lead->ev[1]));
        SPX_TRY(spx__multi_product(P, i, alpha, x, beta, y));
        SPX_TRY(spx__cuda_event_record(p->ev[2], p->stream));
    }
cleanup:
    return st;
}

/* Every group's first stream waits for every other part's product. */
static spx_status wait_products(const spx_multi_plan *P)
{
    spx_status st = SPX_OK;
    for (int g = 0; g < P->groups; g++) {
        const spx__multi_part *lead = &P->part[P->group[g].lead];
        SPX_TRY(spx__cuda_set_device(P->group[g].device));
        for (int i = 0; i < P->parts; i++)
            if (i != P->group[g].lead) SPX_TRY(spx__cuda_stream_wait(lead->stream, P->part[i].ev[2]));
    }
cleanup:
    return st;
}

/* Each group's first stream ends with its ev[3]; part 0's waits for them. */
static spx_status join_groups(const spx_multi_plan *P)
{
    const spx__multi_part *first = &P->part[0];
    spx_status st = SPX_OK;
    for (int g = 0; g < P->groups; g++) {
        const spx__multi_part *lead = &P->part[P->group[g].lead];
        SPX_TRY(spx__cuda_set_device(P->group[g].device));
        SPX_TRY(spx__cuda_event_record(lead->ev[3], lead->stream));
    }
    SPX_TRY(spx__cuda_set_device(first->device));
    for (int g = 0; g < P->groups; g++)
        if (P->group[g].lead != 0)
            SPX_TRY(spx__cuda_stream_wait(first->stream, P->part[P->group[g].lead].ev[3]));
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
        SPX_TRY(queue_group(P, g, alpha, x, beta, y));
    SPX_TRY(wait_products(P));
    SPX_TRY(spx__multi_merge_queue(P, beta, y));
    SPX_TRY(join_groups(P));
cleanup:
    return st;
}
