/* The merge of a resident call across devices (multi.h), on the calling
 * thread once every group has finished, on each owner's group's first stream
 * (with one part a GPU: the owner's own stream). Row kinds: each ghost is
 * added to its owner's line, in part order; pcsc: each owner sums the
 * partial vectors over its lines. Values of another GPU come by a peer copy
 * into the owner's scratch. */
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

/* The part that owns line k (the owned lines tile 0..n-1). */
static int owner(const spx_multi_plan *P, int64_t k)
{
    for (int q = 0; q < P->parts; q++) {
        int64_t b, e;
        spx__multi_own(P, q, &b, &e);
        if (b <= k && k < e) return q;
    }
    return 0;
}

/* The stream owner q's merges run on: its group's first part's. */
static void *merge_stream(const spx_multi_plan *P, int q)
{
    return P->part[P->group[P->part[q].group].lead].stream;
}

/* Row kinds: each ghost (a split part's slot, else the shared first line in
 * its group's buffer), through the owner's scratch when on another device,
 * added to the owner's line in part order. */
static spx_status merge_ghosts(const spx_multi_plan *P, spx_multi_vector *y)
{
    spx_status st = SPX_OK;
    for (int i = 0; st == SPX_OK && i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        if (!p->part.shared_first) continue;
        int64_t k = p->part.line_begin;
        int q = owner(P, k);
        const spx__multi_part *o = &P->part[q];
        const void *src = p->split ? p->slot : spx__multi_vector_at(y, i, k);
        SPX_TRY(spx__cuda_set_device(o->device));
        if (p->device != o->device) {
            SPX_TRY(
                spx__multi_move(P, o->scratch, o->device, src, p->device, 1, merge_stream(P, q)));
            src = o->scratch;
        }
        SPX_TRY(spx__multi_add(P, spx__multi_vector_at(y, q, k), src, 1, merge_stream(P, q)));
    }
cleanup:
    return st;
}

/* pcsc, owner q: y(own) = beta*y(own) + out_0 + out_1 + ... over own(q),
 * each part's only where its rows reach; another GPU's through q's scratch.
 * beta == 0: y(own) starts as q's own partial where it reaches (there
 * already when made in y's buffer), 0 elsewhere; the others are added in
 * part order. */
static spx_status reduce_into(const spx_multi_plan *P, int q, double beta, spx_multi_vector *y)
{
    const spx__multi_part *o = &P->part[q];
    void *s = merge_stream(P, q);
    spx_status st = SPX_OK;
    int64_t b, e;
    spx__multi_own(P, q, &b, &e);
    if (e <= b) return SPX_OK;
    SPX_TRY(spx__cuda_set_device(o->device));
    if (beta != 0.0) SPX_TRY(spx__multi_scale(P, spx__multi_vector_at(y, q, b), beta, e - b, s));
    if (beta == 0.0) {
        int64_t lo = o->span_lo > b ? o->span_lo : b, hi = o->span_hi < e ? o->span_hi : e;
        SPX_TRY(spx__multi_scale_outside(P, spx__multi_vector_at(y, q, 0), b, e, lo, hi, 0.0, s));
        if (hi > lo && !spx__multi_partial_in_y(P, q, beta))
            SPX_TRY(spx__multi_move(P, spx__multi_vector_at(y, q, lo), o->device,
                                    spx__multi_partial_at(P, q, y, beta, lo), o->device, hi - lo,
                                    s));
    }
    for (int i = 0; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        int64_t lo = p->span_lo > b ? p->span_lo : b, hi = p->span_hi < e ? p->span_hi : e;
        if (hi <= lo || (i == q && beta == 0.0)) continue;
        const void *src = spx__multi_partial_at(P, i, y, beta, lo);
        if (p->device != o->device) {
            void *land = (char *)o->scratch + (size_t)(lo - b) * P->es;
            SPX_TRY(spx__multi_move(P, land, o->device, src, p->device, hi - lo, s));
            src = land;
        }
        SPX_TRY(spx__multi_add(P, spx__multi_vector_at(y, q, lo), src, hi - lo, s));
    }
cleanup:
    return st;
}

spx_status spx__multi_merge_queue(const spx_multi_plan *P, double beta, spx_multi_vector *y)
{
    if (P->kind != SPX_PART_PCSC) return merge_ghosts(P, y);
    spx_status st = SPX_OK;
    for (int q = 0; q < P->parts; q++)
        SPX_TRY(reduce_into(P, q, beta, y));
cleanup:
    return st;
}

spx_status spx__multi_merge_devices(const spx_multi_plan *P, double beta, spx_multi_vector *y)
{
    spx_status st = SPX_OK;
    SPX_TRY(spx__multi_merge_queue(P, beta, y));
    for (int g = 0; g < P->groups; g++) {
        SPX_TRY(spx__cuda_set_device(P->group[g].device));
        SPX_TRY(spx__cuda_sync(P->part[P->group[g].lead].stream));
    }
cleanup:
    return st;
}
