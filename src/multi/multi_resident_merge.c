/* The merge of a resident call across devices (multi.h), queued per owning
 * group on its first part's stream once every part's product is there:
 * row kinds add each ghost to its owner's line, in part order; pcsc's
 * owners sum the partial vectors over their lines. Values on another GPU
 * are read in place by the add where this GPU reaches that one's memory
 * (peer access, multi_groups.c), else first copied into the owner's scratch
 * (a copy and an add instead of one add: on 4 H200s each costs a few
 * microseconds of latency, as much as the data moved). */
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

/* y(dst, n entries on owner o's device) += src (n entries on part p's
 * device), on stream s: read in place where o's device reaches p's, else
 * through land (on o's device). */
static spx_status add_from(const spx_multi_plan *P, const spx__multi_part *o, void *dst,
                           const spx__multi_part *p, const void *src, void *land, int64_t n,
                           void *s)
{
    spx_status st = SPX_OK;
    if (!spx__cuda_peer_on(o->device, p->device)) {
        SPX_TRY(spx__multi_move(P, land, o->device, src, p->device, n, s));
        src = land;
    }
    SPX_TRY(spx__multi_add(P, dst, src, n, s));
cleanup:
    return st;
}

/* Row kinds, the ghosts whose owners are in group g: each (a split part's
 * slot, else the shared first line in its group's buffer) added to its
 * owner's line in part order. */
static spx_status merge_ghosts(const spx_multi_plan *P, int g, spx_multi_vector *y)
{
    spx_status st = SPX_OK;
    for (int i = 0; st == SPX_OK && i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        if (!p->part.shared_first) continue;
        int64_t k = p->part.line_begin;
        int q = owner(P, k);
        const spx__multi_part *o = &P->part[q];
        if (o->group != g) continue;
        const void *src = p->split ? p->slot : spx__multi_vector_at(y, i, k);
        SPX_TRY(spx__cuda_set_device(o->device));
        SPX_TRY(add_from(P, o, spx__multi_vector_at(y, q, k), p, src, o->scratch, 1,
                         merge_stream(P, q)));
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
        void *land = (char *)o->scratch + (size_t)(lo - b) * P->es;
        SPX_TRY(add_from(P, o, spx__multi_vector_at(y, q, lo), p,
                         spx__multi_partial_at(P, i, y, beta, lo), land, hi - lo, s));
    }
cleanup:
    return st;
}

spx_status spx__multi_merge_queue(const spx_multi_plan *P, int g, double beta,
                                  spx_multi_vector *y)
{
    if (P->kind != SPX_PART_PCSC) return merge_ghosts(P, g, y);
    spx_status st = SPX_OK;
    for (int q = 0; q < P->parts; q++)
        if (P->part[q].group == g) SPX_TRY(reduce_into(P, q, beta, y));
cleanup:
    return st;
}
