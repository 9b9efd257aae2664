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

static int reaches(const spx__multi_part *p, int64_t r)
{
    return p->span_lo <= r && r < p->span_hi;
}

/* Whether owner q's line r needs a sum: every line but those already final
 * in y, where q's partial was made in place (in_place) and no other part
 * reaches. */
static int needs_sum(const spx_multi_plan *P, int q, int in_place, int64_t r)
{
    if (!in_place || !reaches(&P->part[q], r)) return 1;
    for (int i = 0; i < P->parts; i++)
        if (i != q && reaches(&P->part[i], r)) return 1;
    return 0;
}

/* s's runs: the lines of [b, e) that need a sum, between the cuts where
 * s's spans begin or end (inside a cut, every part reaches all lines or
 * none); 0 when there are more than SPX__CUDA_OWNER_RUNS. */
static int owner_runs(const spx_multi_plan *P, int q, int in_place, int64_t b, int64_t e,
                      spx__cuda_owner_table *s)
{
    int64_t cut[2 * SPX__CUDA_OWNER_PARTS + 2];
    int n = 0;
    cut[n++] = b;
    cut[n++] = e;
    for (int k = 0; k < s->n; k++) {
        cut[n++] = s->t[k].span_lo > b ? s->t[k].span_lo : b;
        cut[n++] = s->t[k].span_hi < e ? s->t[k].span_hi : e;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && cut[j] < cut[j - 1]; j--) {
            int64_t t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    s->runs = 0;
    for (int k = 0; k + 1 < n; k++) {
        if (cut[k] == cut[k + 1] || !needs_sum(P, q, in_place, cut[k])) continue;
        if (s->runs > 0 && s->hi[s->runs - 1] == cut[k]) {
            s->hi[s->runs - 1] = cut[k + 1];
            continue;
        }
        if (s->runs == SPX__CUDA_OWNER_RUNS) return 0;
        s->lo[s->runs] = cut[k];
        s->hi[s->runs++] = cut[k + 1];
    }
    return 1;
}

/* Owner q's table for one owner_sum launch over own(q) = [b, e): every part
 * whose span reaches it, in part order, read in place, and the runs of lines
 * to sum; 0 when a part's GPU is not reachable from q's, or there are too
 * many parts or runs. */
static int owner_table(const spx_multi_plan *P, int q, double beta, const spx_multi_vector *y,
                       int64_t b, int64_t e, spx__cuda_owner_table *s)
{
    s->n = 0;
    s->own = -1;
    for (int i = 0; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        if ((p->span_lo > b ? p->span_lo : b) >= (p->span_hi < e ? p->span_hi : e)) continue;
        if (s->n == SPX__CUDA_OWNER_PARTS || !spx__cuda_peer_on(P->part[q].device, p->device))
            return 0;
        if (i == q) s->own = s->n;
        s->t[s->n].v = spx__multi_partial_at(P, i, y, beta, p->span_lo);
        s->t[s->n].base = s->t[s->n].span_lo = p->span_lo;
        s->t[s->n++].span_hi = p->span_hi;
    }
    return owner_runs(P, q, beta == 0.0 && spx__multi_partial_in_y(P, q, beta), b, e, s);
}

/* pcsc, owner q: y(own) = beta*y(own) + out_0 + out_1 + ... over own(q),
 * each part's only where its rows reach. beta == 0: y(own) starts as q's
 * own partial where it reaches (there already when made in y's buffer), 0
 * elsewhere; the others are added in part order. One owner_sum launch
 * reading every partial in place where q's GPU reaches them all, else a
 * scale, a copy and an add per part (another GPU's through q's scratch).
 * On 4 H200s (bench/results/msrep-merge-2026-11-27.md, run GB) the merge
 * took 0.010 against 0.014 ms on lap3d7:250 (8.8% of the SpMV against
 * 12.2%) and 0.125 against 0.147 on R-MAT 22, whose parts reach every line;
 * a first version summing all of own(q), lines of q's partial alone
 * included, took 0.027 ms on lap3d7:250 (run GA), hence the runs. */
static spx_status reduce_into(const spx_multi_plan *P, int q, double beta, spx_multi_vector *y)
{
    const spx__multi_part *o = &P->part[q];
    void *s = merge_stream(P, q);
    spx_status st = SPX_OK;
    spx__cuda_owner_table table;
    int64_t b, e;
    spx__multi_own(P, q, &b, &e);
    if (e <= b) return SPX_OK;
    SPX_TRY(spx__cuda_set_device(o->device));
    if (owner_table(P, q, beta, y, b, e, &table))
        return spx__cuda_owner_sum(spx__multi_vector_at(y, q, 0), beta, &table, P->vtype, s);
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
