/* A multi-device call with resident vectors (multi.h): every part in its own
 * thread gathers its halo of x and runs its plan; then the calling thread
 * merges what crosses parts (row kinds: the ghosts of shared lines; pcsc:
 * the partial vectors over each owner's lines), on the owners' streams. */
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"
#include "multi/numa.h"

static int row_kind(const spx_multi_plan *P) { return P->kind != SPX_PART_PCSC; }

/* The entries of x part i reads, [*lo, *hi). */
static void reads(const spx_multi_plan *P, int i, int64_t *lo, int64_t *hi)
{
    const spx__multi_part *p = &P->part[i];
    *lo = row_kind(P) ? p->span_lo : p->x_begin;
    *hi = row_kind(P) ? p->span_hi : p->x_begin + p->x_len;
}

/* Part i's halo: what it reads of every other part's own lines. */
static spx_status gather_halo(const spx_multi_plan *P, int i, const spx_multi_vector *x)
{
    spx__multi_part *p = &P->part[i];
    spx_status st = SPX_OK;
    int64_t lo, hi;
    reads(P, i, &lo, &hi);
    for (int q = 0; st == SPX_OK && q < P->parts; q++) {
        int64_t b, e;
        spx__multi_own(P, q, &b, &e);
        if (q == i) continue;
        b = b > lo ? b : lo;
        e = e < hi ? e : hi;
        if (e > b)
            st = spx__multi_move(P, spx__multi_vector_at(x, i, b), p->device,
                                 spx__multi_vector_at(x, q, b), P->part[q].device, e - b, p->stream);
    }
    return st;
}

/* Where pcsc part i's partial y is: y's own buffer when beta == 0 (its own
 * lines are then already the start of the sum), else its output buffer (y's
 * own lines still hold what beta scales). */
static void *pcsc_partial(const spx__multi_part *p, spx_multi_vector *y, int i, double beta)
{
    return beta == 0.0 ? spx__multi_vector_at(y, i, 0) : p->out;
}

/* Part i's product: row kinds into y's buffer at its lines, a shared first
 * line (a ghost, owned by a part before) starting from 0; pcsc into its
 * partial y (pcsc_partial), the owners applying beta in the merge. */
static spx_status product(const spx_multi_plan *P, int i, double alpha, const spx_multi_vector *x,
                          double beta, spx_multi_vector *y)
{
    spx__multi_part *p = &P->part[i];
    spx_status st = SPX_OK;
    if (!row_kind(P))
        return spx_spmv(p->plan, alpha, spx__multi_vector_at(x, i, p->x_begin), 0.0,
                        pcsc_partial(p, y, i, beta));
    void *out = spx__multi_vector_at(y, i, p->y_begin);
    if (p->part.shared_first && beta != 0.0) SPX_TRY(spx__multi_scale(P, out, 0.0, 1, p->stream));
    SPX_TRY(spx_spmv(p->plan, alpha, spx__multi_vector_at(x, i, 0), beta, out));
cleanup:
    return st;
}

static float elapsed(void *from, void *to)
{
    float ms = 0.0f;
    return spx__cuda_event_elapsed(from, to, &ms) == SPX_OK ? ms : 0.0f;
}

/* Part i in its thread: halo, then product; finished when it returns. */
static spx_status run_part(spx_multi_plan *P, int i, double alpha, const spx_multi_vector *x,
                           double beta, spx_multi_vector *y)
{
    spx__multi_part *p = &P->part[i];
    spx_status st = SPX_OK;
    if (p->device < 0) {
        spx__numa_saved numa; /* a CPU part runs where its arrays are */
        spx__numa_enter(p->numa_node, &numa);
        double t0 = spx__multi_now_ms();
        st = gather_halo(P, i, x);
        double t1 = spx__multi_now_ms();
        if (st == SPX_OK) st = product(P, i, alpha, x, beta, y);
        p->distribute_ms = t1 - t0;
        p->spmv_ms = spx__multi_now_ms() - t1;
        spx__numa_leave(&numa);
        return st;
    }
    SPX_TRY(spx__cuda_set_device(p->device));
    SPX_TRY(spx__cuda_event_record(p->ev[0], p->stream));
    SPX_TRY(gather_halo(P, i, x));
    SPX_TRY(spx__cuda_event_record(p->ev[1], p->stream));
    SPX_TRY(product(P, i, alpha, x, beta, y));
    SPX_TRY(spx__cuda_event_record(p->ev[2], p->stream));
    SPX_TRY(spx__cuda_sync(p->stream));
    p->distribute_ms = elapsed(p->ev[0], p->ev[1]);
    p->spmv_ms = elapsed(p->ev[1], p->ev[2]);
cleanup:
    return st;
}

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

/* Row kinds: each ghost (a part's shared first line) lands in its owner's
 * scratch and is added to the owner's line, in part order on the owner's
 * stream. */
static spx_status merge_ghosts(const spx_multi_plan *P, spx_multi_vector *y)
{
    spx_status st = SPX_OK;
    for (int i = 0; st == SPX_OK && i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        if (!p->part.shared_first) continue;
        int64_t k = p->part.line_begin;
        const spx__multi_part *o = &P->part[owner(P, k)];
        if (o->device >= 0) SPX_TRY(spx__cuda_set_device(o->device));
        SPX_TRY(spx__multi_move(P, o->scratch, o->device, spx__multi_vector_at(y, i, k), p->device, 1,
                                o->stream));
        SPX_TRY(spx__multi_add(P, spx__multi_vector_at(y, owner(P, k), k), o->scratch, 1, o->stream));
    }
cleanup:
    return st;
}

/* pcsc, owner q: y(own) = beta*y(own) + out_0 + out_1 + ... over own(q),
 * each part's only where its rows reach; another GPU's through q's scratch.
 * beta == 0: y(own) is q's own partial already, the others are added in
 * part order. */
static spx_status reduce_into(const spx_multi_plan *P, int q, double beta, spx_multi_vector *y)
{
    const spx__multi_part *o = &P->part[q];
    spx_status st = SPX_OK;
    int64_t b, e;
    spx__multi_own(P, q, &b, &e);
    if (e <= b) return SPX_OK;
    if (o->device >= 0) SPX_TRY(spx__cuda_set_device(o->device));
    if (beta != 0.0) SPX_TRY(spx__multi_scale(P, spx__multi_vector_at(y, q, b), beta, e - b, o->stream));
    for (int i = 0; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        int64_t lo = p->span_lo > b ? p->span_lo : b, hi = p->span_hi < e ? p->span_hi : e;
        if (hi <= lo || (i == q && beta == 0.0)) continue;
        const void *src = (const char *)pcsc_partial(p, y, i, beta) + (size_t)lo * P->es;
        if (p->device != o->device) {
            void *land = (char *)o->scratch + (size_t)(lo - b) * P->es;
            SPX_TRY(spx__multi_move(P, land, o->device, src, p->device, hi - lo, o->stream));
            src = land;
        }
        SPX_TRY(spx__multi_add(P, spx__multi_vector_at(y, q, lo), src, hi - lo, o->stream));
    }
cleanup:
    return st;
}

static spx_status merge(const spx_multi_plan *P, double beta, spx_multi_vector *y)
{
    spx_status st = SPX_OK;
    if (row_kind(P)) {
        SPX_TRY(merge_ghosts(P, y));
    } else {
        for (int q = 0; q < P->parts; q++) SPX_TRY(reduce_into(P, q, beta, y));
    }
    for (int q = 0; spx__multi_on_gpu(P) && q < P->parts; q++) {
        SPX_TRY(spx__cuda_set_device(P->part[q].device));
        SPX_TRY(spx__cuda_sync(P->part[q].stream));
    }
cleanup:
    return st;
}

static spx_status check_call(const spx_multi_plan *P, const spx_multi_vector *x,
                             const spx_multi_vector *y)
{
    if (!P) return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is NULL");
    if (P->magic != SPX__MULTI_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is freed or not a multi plan");
    spx_status st = spx__multi_vector_check(P, x);
    if (st == SPX_OK) st = spx__multi_vector_check(P, y);
    if (st == SPX_OK && x == y)
        return spx__error(SPX_ERR_INVALID_ARG, "x and y are the same resident vector");
    return st;
}

spx_status spx_multi_spmv_resident(spx_multi_plan *P, double alpha, spx_multi_vector *x,
                                   double beta, spx_multi_vector *y)
{
    spx_status st = check_call(P, x, y);
    if (st != SPX_OK || P->rows == 0) return st;
    int caller = spx__multi_device_save(P);
    double t0 = spx__multi_now_ms();
#pragma omp parallel for schedule(static, 1) num_threads(P->parts)
    for (int i = 0; i < P->parts; i++)
        spx__multi_note(&P->part[i], run_part(P, i, alpha, x, beta, y));
    st = spx__multi_failure(P, "resident SpMV");
    double t1 = spx__multi_now_ms();
    if (st == SPX_OK) st = merge(P, beta, y);
    spx__multi_device_restore(caller);
    double t2 = spx__multi_now_ms();
    if (st != SPX_OK) return st;
    spx_multi_timing *t = &P->times;
    t->distribute_ms = t->spmv_ms = 0.0;
    for (int i = 0; i < P->parts; i++) {
        if (P->part[i].distribute_ms > t->distribute_ms) t->distribute_ms = P->part[i].distribute_ms;
        if (P->part[i].spmv_ms > t->spmv_ms) t->spmv_ms = P->part[i].spmv_ms;
    }
    t->merge_ms = t2 - t1;
    t->call_ms = t2 - t0;
    spx__clear_error();
    return SPX_OK;
}
