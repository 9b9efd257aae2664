/* A multi-device call (multi.h): leaders send x, every part runs in its own
 * thread, then the calling thread merges. A CPU part reads x in place and
 * writes y in place or into its buffer; a GPU part's steps are bracketed by
 * events on its stream, which give the call's phase times without extra
 * waits. */
#include <string.h>

#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"
#include "multi/numa.h"

/* Entry k of a vector of es-byte entries (NULL stays NULL: empty vectors). */
static void *entry(const void *v, int64_t k, size_t es)
{
    return v ? (char *)v + (size_t)k * es : NULL;
}

static int row_kind(const spx_multi_plan *P) { return P->kind != SPX_PART_PCSC; }

spx_status spx__multi_distribute_x(spx_multi_plan *P, int i, const void *x)
{
    spx__multi_part *p = &P->part[i];
    spx_status st = SPX_OK;
    if (p->device < 0 || p->leader != i) return SPX_OK;
    SPX_TRY(spx__cuda_set_device(p->device));
    SPX_TRY(spx__cuda_event_record(p->ev_x[0], p->stream));
    SPX_TRY(spx__cuda_copy_async(p->x_dev, entry(x, p->x_lo, P->es),
                                 (size_t)(p->x_hi - p->x_lo) * P->es, 1, p->stream));
    SPX_TRY(spx__cuda_event_record(p->ev_x[1], p->stream));
cleanup:
    return st;
}

/* Row kinds: a part's output starts from y's entries, but a shared first
 * line, whose beta share belongs to the part before, starts from 0. */
static void start_from_y_host(const spx_multi_plan *P, spx__multi_part *p, const void *y)
{
    memcpy(p->out, entry(y, p->y_begin, P->es), (size_t)p->y_len * P->es);
    if (row_kind(P) && p->part.shared_first) memset(p->out, 0, P->es);
}

/* Row kinds: lines owned alone go to y; shared end lines to p->edge. */
static void copy_back_host(const spx_multi_plan *P, spx__multi_part *p, void *y)
{
    int64_t n = p->y_len, a = p->part.shared_first, b = n - p->part.shared_last;
    if (b > a) memcpy(entry(y, p->y_begin + a, P->es), entry(p->out, a, P->es), (size_t)(b - a) * P->es);
    if (p->part.shared_first) memcpy(p->edge[0], p->out, P->es);
    if (p->part.shared_last) memcpy(p->edge[1], entry(p->out, n - 1, P->es), P->es);
}

/* pcsc part p into its output buffer buf (row y_begin first): its span by
 * its plan; part 0, whose buffer is all of y, scales the rest by beta. */
static spx_status pcsc_product(const spx_multi_plan *P, const spx__multi_part *p, double alpha,
                               const void *x, double b, void *buf)
{
    spx_status st = spx__multi_pcsc_spmv(P, p, alpha, x, b,
                                         entry(buf, p->span_lo - p->y_begin, P->es), NULL, 0.0);
    if (st != SPX_OK || !p->beta_share) return st;
    return spx__multi_scale_outside(P, buf, 0, P->rows, p->span_lo, p->span_hi, b, p->stream);
}

static spx_status run_cpu(spx_multi_plan *P, spx__multi_part *p, double alpha, const void *x,
                          double beta, void *y)
{
    double b = p->beta_share ? beta : 0.0;
    void *dst = p->out ? p->out : entry(y, p->y_begin, P->es);
    const void *xp = entry(x, p->x_begin, P->es);
    double t0 = spx__multi_now_ms();
    if (p->out && b != 0.0) start_from_y_host(P, p, y);
    double t1 = spx__multi_now_ms();
    spx_status st = row_kind(P) ? spx__multi_part_spmv(P, p, SPX__MULTI_WHOLE, alpha, xp, b, dst,
                                                       entry(dst, 1, P->es))
                                : pcsc_product(P, p, alpha, xp, b, dst);
    double t2 = spx__multi_now_ms();
    if (st == SPX_OK && p->out && row_kind(P)) copy_back_host(P, p, y);
    p->distribute_ms = t1 - t0;
    p->spmv_ms = t2 - t1;
    p->merge_ms = spx__multi_now_ms() - t2;
    return st;
}

/* GPU part: wait for its leader's x, start its output, run, copy back. */
static spx_status run_cuda_steps(spx_multi_plan *P, spx__multi_part *p, int i, double alpha,
                                 double beta, void *y)
{
    spx_status st;
    const spx__multi_part *l = &P->part[p->leader];
    double b = p->beta_share ? beta : 0.0;
    size_t es = P->es;
    int64_t n = p->y_len, a = p->part.shared_first, e = n - p->part.shared_last;
    if (p->leader != i) SPX_TRY(spx__cuda_stream_wait(p->stream, l->ev_x[1]));
    SPX_TRY(spx__cuda_event_record(p->ev[0], p->stream));
    if (b != 0.0) {
        SPX_TRY(spx__cuda_copy_async(p->out, entry(y, p->y_begin, es), (size_t)n * es, 1, p->stream));
        if (row_kind(P) && a) SPX_TRY(spx__cuda_memset(p->out, 0, es, p->stream));
    }
    SPX_TRY(spx__cuda_event_record(p->ev[1], p->stream));
    const void *xp = entry(l->x_dev, p->x_begin - l->x_lo, es);
    if (row_kind(P))
        SPX_TRY(spx__multi_part_spmv(P, p, SPX__MULTI_WHOLE, alpha, xp, b, p->out,
                                     entry(p->out, 1, es)));
    else
        SPX_TRY(pcsc_product(P, p, alpha, xp, b, p->out));
    SPX_TRY(spx__cuda_event_record(p->ev[2], p->stream));
    if (row_kind(P)) {
        if (e > a)
            SPX_TRY(spx__cuda_copy_async(entry(y, p->y_begin + a, es), entry(p->out, a, es),
                                         (size_t)(e - a) * es, 0, p->stream));
        if (a) SPX_TRY(spx__cuda_copy_async(p->edge[0], p->out, es, 0, p->stream));
        if (p->part.shared_last)
            SPX_TRY(spx__cuda_copy_async(p->edge[1], entry(p->out, n - 1, es), es, 0, p->stream));
    } else if (p->host_out) {
        SPX_TRY(spx__cuda_copy_async(p->host_out, p->out, (size_t)n * es, 0, p->stream));
    }
    SPX_TRY(spx__cuda_event_record(p->ev[3], p->stream));
    SPX_TRY(spx__cuda_sync(p->stream));
cleanup:
    return st;
}

static float elapsed(void *from, void *to)
{
    float ms = 0.0f;
    return spx__cuda_event_elapsed(from, to, &ms) == SPX_OK ? ms : 0.0f;
}

static spx_status run_cuda(spx_multi_plan *P, spx__multi_part *p, int i, double alpha,
                           double beta, void *y)
{
    spx_status st = spx__cuda_set_device(p->device);
    if (st == SPX_OK) st = run_cuda_steps(P, p, i, alpha, beta, y);
    if (st != SPX_OK) return st;
    const spx__multi_part *l = &P->part[p->leader];
    p->distribute_ms = elapsed(l->ev_x[0], l->ev_x[1]) + elapsed(p->ev[0], p->ev[1]);
    p->spmv_ms = elapsed(p->ev[1], p->ev[2]);
    p->merge_ms = elapsed(p->ev[2], p->ev[3]);
    return SPX_OK;
}

spx_status spx__multi_run_part(spx_multi_plan *P, int i, double alpha, const void *x,
                               double beta, void *y)
{
    spx__multi_part *p = &P->part[i];
    if (p->device >= 0) return run_cuda(P, p, i, alpha, beta, y);
    spx__numa_saved numa; /* a CPU part runs where its arrays are */
    spx__numa_enter(p->numa_node, &numa);
    spx_status st = run_cpu(P, p, alpha, x, beta, y);
    spx__numa_leave(&numa);
    return st;
}

static spx_status check_call(const spx_multi_plan *P, const void *x, const void *y)
{
    if (!P) return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is NULL");
    if (P->magic != SPX__MULTI_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is freed or not a multi plan");
    if ((P->cols > 0 && !x) || (P->rows > 0 && !y))
        return spx__error(SPX_ERR_INVALID_ARG, "x or y is NULL");
    return SPX_OK;
}

/* The call's phases: the slowest part's, plus the calling thread's merge. */
static void note_times(spx_multi_plan *P, double merge_ms, double call_ms)
{
    spx_multi_timing *t = &P->times;
    t->distribute_ms = t->spmv_ms = t->merge_ms = 0.0;
    for (int i = 0; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        if (p->distribute_ms > t->distribute_ms) t->distribute_ms = p->distribute_ms;
        if (p->spmv_ms > t->spmv_ms) t->spmv_ms = p->spmv_ms;
        if (p->merge_ms > t->merge_ms) t->merge_ms = p->merge_ms;
    }
    t->merge_ms += merge_ms;
    t->call_ms = call_ms;
}

spx_status spx_multi_spmv(spx_multi_plan *P, double alpha, const void *x, double beta, void *y)
{
    spx_status st = check_call(P, x, y);
    if (st != SPX_OK || P->rows == 0) return st;
    int caller = spx__multi_device_save(P);
    double t0 = spx__multi_now_ms();
    if (P->any_cuda) {
#pragma omp parallel for schedule(static, 1) num_threads(P->parts)
        for (int i = 0; i < P->parts; i++)
            spx__multi_note(&P->part[i], spx__multi_distribute_x(P, i, x));
        st = spx__multi_failure(P, "x distribution");
    }
    if (st == SPX_OK) {
#pragma omp parallel for schedule(static, 1) num_threads(P->parts)
        for (int i = 0; i < P->parts; i++)
            spx__multi_note(&P->part[i], spx__multi_run_part(P, i, alpha, x, beta, y));
        st = spx__multi_failure(P, "SpMV");
    }
    double t1 = spx__multi_now_ms();
    if (st == SPX_OK) st = spx__multi_merge(P, y);
    spx__multi_device_restore(caller);
    double t2 = spx__multi_now_ms();
    if (st != SPX_OK) return st;
    note_times(P, t2 - t1, t2 - t0);
    P->times_on_gpu = 0;
    spx__clear_error();
    return SPX_OK;
}
