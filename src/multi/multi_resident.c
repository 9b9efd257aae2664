/* A multi-device call with resident vectors (multi.h), by where the parts are:
 *   CPU parts     one host buffer per vector; a thread per part runs its
 *                 product, then the calling thread combines (multi_combine.c);
 *   one GPU       the calling thread queues every part on its stream: its
 *                 product, then (split parts) its ghost added to the shared
 *                 line once the part before has written it (an event); pcsc
 *                 joins the streams into the first part's and sums there;
 *                 one host wait per stream at the end;
 *   several GPUs  each group (the parts of a GPU) queues its halo from the
 *                 other GPUs and its parts' products, then its merge
 *                 (multi_resident_merge.c), which waits for every part's
 *                 product by events, not by the host: by default all from
 *                 the calling thread and replayed as one CUDA graph, with
 *                 no_graph a thread per GPU (multi_resident_devices.c).
 *
 * One GPU against that earlier path (lap3d7:128, 14.6M nonzeros, on one
 * H100, bench/results/msrep-1gpu-parts-h100-2026-11-25.txt: one part 0.090
 * ms a call, 2 parts 0.098, 4 parts 0.140 with a 0.04 ms halo and a 0.034
 * ms merge). Saved: the halo (the parts read one x buffer), the merge's
 * host join and round trip (two launches a shared line and a wait a part;
 * now one tiny add a split part, on its own stream, off the others' path),
 * the thread fork and join, and per part two event records, a host wait and
 * two elapsed queries (about 1-2 us each on the host; times are read from
 * the events when asked). Expected: 4 parts about 0.05 ms less a call, 2
 * parts about 0.012 ms less, both within a few us of the one-part call; what
 * remains is the parts' concurrent SpMV against one kernel and a split
 * part's ghost launch and add. Measured on an H100 (2026-11-25, pcsr,
 * against the one-part call of the same run): 2 parts 0.082-0.086 ms
 * (+0-2%), 4 parts 0.089-0.090 ms (+5-6%); rows +0-1%; pcsc, whose parts
 * then each wrote a whole partial y, +35% and +70% (its parts now write
 * their spans only: multi.h). */
#include <omp.h>

#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"
#include "multi/numa.h"

int spx__multi_partial_in_y(const spx_multi_plan *P, int i, double beta)
{
    const spx__multi_group *G = &P->group[P->part[i].group];
    return beta == 0.0 && G->lead == i && (P->groups == 1 || G->parts == 1);
}

void *spx__multi_partial_at(const spx_multi_plan *P, int i, const spx_multi_vector *y, double beta,
                            int64_t r)
{
    const spx__multi_part *p = &P->part[i];
    if (spx__multi_partial_in_y(P, i, beta)) return spx__multi_vector_at(y, i, r);
    return (char *)p->out + (size_t)(r - p->y_begin) * P->es;
}

/* Row kinds write their lines into y's buffer (a split part its own lines,
 * its ghost into its slot; a shared first line starts from 0, its beta share
 * being its owner's); pcsc writes its partial y where spx__multi_partial_in_y
 * says (its span, rows span_lo..), the owners applying beta in the merge,
 * but its alone rows (one device group: multi_alone.c) into y's buffer with
 * beta, final. */
spx_status spx__multi_product(const spx_multi_plan *P, int i, int half, double alpha,
                              const spx_multi_vector *x, double beta, spx_multi_vector *y)
{
    const spx__multi_part *p = &P->part[i];
    spx_status st = SPX_OK;
    if (P->kind == SPX_PART_PCSC) {
        if (half == 0) return SPX_OK;
        void *alone = p->alone_hi > p->alone_lo ? spx__multi_vector_at(y, i, p->alone_lo) : NULL;
        return spx__multi_pcsc_spmv(P, p, alpha, spx__multi_vector_at(x, i, p->x_begin), 0.0,
                                    spx__multi_partial_at(P, i, y, beta, p->span_lo), alone, beta);
    }
    int64_t k = p->part.line_begin;
    void *first = p->split ? p->slot : spx__multi_vector_at(y, i, k);
    if (p->part.shared_first && beta != 0.0 && half != 1)
        SPX_TRY(spx__multi_scale(P, first, 0.0, 1, p->stream));
    SPX_TRY(spx__multi_part_spmv(P, p, half, alpha, spx__multi_vector_at(x, i, 0), beta, first,
                                 spx__multi_vector_at(y, i, k + 1)));
cleanup:
    return st;
}

/* The call's phases: the slowest part's; merge_ms as measured by the caller. */
static void note_times(spx_multi_plan *P, double merge_ms)
{
    spx_multi_timing *t = &P->times;
    t->distribute_ms = t->spmv_ms = 0.0;
    for (int i = 0; i < P->parts; i++) {
        if (P->part[i].distribute_ms > t->distribute_ms)
            t->distribute_ms = P->part[i].distribute_ms;
        if (P->part[i].spmv_ms > t->spmv_ms) t->spmv_ms = P->part[i].spmv_ms;
    }
    t->merge_ms = merge_ms;
}

/* CPU part i in its thread, on its NUMA node. */
static spx_status cpu_part(const spx_multi_plan *P, int i, double alpha, const spx_multi_vector *x,
                           double beta, spx_multi_vector *y)
{
    spx__multi_part *p = &P->part[i];
    spx__numa_saved numa;
    spx__numa_enter(p->numa_node, &numa);
    double t0 = spx__multi_now_ms();
    spx_status st = spx__multi_product(P, i, SPX__MULTI_WHOLE, alpha, x, beta, y);
    p->distribute_ms = 0.0;
    p->spmv_ms = spx__multi_now_ms() - t0;
    spx__numa_leave(&numa);
    return st;
}

static spx_status run_cpu(spx_multi_plan *P, double alpha, const spx_multi_vector *x, double beta,
                          spx_multi_vector *y)
{
#pragma omp parallel for schedule(static, 1) num_threads(P->parts)
    for (int i = 0; i < P->parts; i++)
        spx__multi_note(&P->part[i], cpu_part(P, i, alpha, x, beta, y));
    spx_status st = spx__multi_failure(P, "resident SpMV");
    double t1 = spx__multi_now_ms();
    if (st == SPX_OK) st = spx__multi_combine(P, beta, y);
    note_times(P, spx__multi_now_ms() - t1);
    return st;
}

/* The event a split part's ghost add waits for: the part before it has
 * written the shared line (its product; its own add when it is a ghost of
 * that line too), so that a line's pieces are summed in part order. */
static void *line_written(const spx_multi_plan *P, int i)
{
    const spx__multi_part *b = &P->part[i - 1];
    return b->split && b->part.line_begin == P->part[i].part.line_begin ? b->ev[1] : b->ev[2];
}

/* One GPU, part i on its stream: its product, ev[2]; a split part then adds
 * its ghost to its owner's line once written, ev[1]. No stream waits for
 * another but at a shared line. */
static spx_status queue_part(const spx_multi_plan *P, int i, double alpha,
                             const spx_multi_vector *x, double beta, spx_multi_vector *y)
{
    const spx__multi_part *p = &P->part[i];
    spx_status st;
    SPX_TRY(spx__multi_product(P, i, SPX__MULTI_WHOLE, alpha, x, beta, y));
    SPX_TRY(spx__cuda_event_record(p->ev[2], p->stream));
    if (!p->split) return SPX_OK;
    SPX_TRY(spx__cuda_stream_wait(p->stream, line_written(P, i)));
    SPX_TRY(
        spx__multi_add(P, spx__multi_vector_at(y, i, p->part.line_begin), p->slot, 1, p->stream));
    SPX_TRY(spx__cuda_event_record(p->ev[1], p->stream));
cleanup:
    return st;
}

/* pcsc on one GPU: the first part's stream waits for the others, then sums
 * the partials (ev[3] after). */
static spx_status join_and_sum(const spx_multi_plan *P, double beta, spx_multi_vector *y)
{
    const spx__multi_part *lead = &P->part[0];
    spx_status st = SPX_OK;
    for (int i = 1; i < P->parts; i++)
        SPX_TRY(spx__cuda_stream_wait(lead->stream, P->part[i].ev[2]));
    SPX_TRY(spx__multi_combine(P, beta, y));
    SPX_TRY(spx__cuda_event_record(lead->ev[3], lead->stream));
cleanup:
    return st;
}

/* Events: the first part's ev[0] (start), each part's ev[2] (product) and
 * ev[1] (split: ghost added), pcsc's ev[3] (summed); read when the times
 * are asked (multi_info.c). Parts are queued in order, the first first, so
 * that the GPU starts while the others are queued. Every part's stream
 * starts after ev[0] and the first part's waits for the others' last event
 * (pcsc: before its sum), so that the call can be recorded as one graph
 * (multi_graph.c). */
static spx_status queue_one_gpu(const spx_multi_plan *P, double alpha, const spx_multi_vector *x,
                                double beta, spx_multi_vector *y)
{
    const spx__multi_part *lead = &P->part[0];
    spx_status st;
    SPX_TRY(spx__cuda_event_record(lead->ev[0], lead->stream));
    for (int i = 1; i < P->parts; i++)
        SPX_TRY(spx__cuda_stream_wait(P->part[i].stream, lead->ev[0]));
    for (int i = 0; i < P->parts; i++)
        SPX_TRY(queue_part(P, i, alpha, x, beta, y));
    if (P->kind == SPX_PART_PCSC) return join_and_sum(P, beta, y);
    for (int i = 1; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        SPX_TRY(spx__cuda_stream_wait(lead->stream, p->split ? p->ev[1] : p->ev[2]));
    }
cleanup:
    return st;
}

/* Queued or replayed (multi_graph.c); the host then waits for every stream
 * (nothing queued stays running past a failed call either). */
static spx_status run_one_gpu(spx_multi_plan *P, double alpha, const spx_multi_vector *x,
                              double beta, spx_multi_vector *y)
{
    spx_status st = spx__cuda_set_device(P->part[0].device);
    return st == SPX_OK ? spx__multi_graph_run(P, alpha, x, beta, y, queue_one_gpu) : st;
}

/* Group g's step in its thread: st noted on its parts (a failure's message
 * is this thread's), unless an earlier step of the call failed. */
static spx_status group_step(spx_multi_plan *P, int g, spx_status st)
{
    for (int i = 0; i < P->parts; i++) {
        spx__multi_part *p = &P->part[i];
        if (p->group == g && p->status == SPX_OK) spx__multi_note(p, st);
    }
    return st;
}

/* Group g waits for its streams (every one, whatever failed). */
static spx_status sync_group(const spx_multi_plan *P, int g)
{
    spx_status st = SPX_OK;
    for (int i = 0; i < P->parts; i++) {
        if (P->part[i].group != g) continue;
        spx_status s = spx__cuda_sync(P->part[i].stream);
        if (st == SPX_OK) st = s;
    }
    return st;
}

/* Several GPUs queued by a thread per GPU (multi_resident_devices.c): its
 * halo and products; once every thread has queued them (the barrier: a
 * merge waits for this call's ev[2] of every part), its merge; then it
 * waits for its streams. The phases are read from the events when asked
 * (multi_info.c). With fewer threads than GPUs a thread takes several. */
static spx_status run_devices(spx_multi_plan *P, double alpha, const spx_multi_vector *x,
                              double beta, spx_multi_vector *y)
{
    for (int i = 0; i < P->parts; i++) spx__multi_note(&P->part[i], SPX_OK);
#pragma omp parallel num_threads(P->groups)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        for (int g = t; g < P->groups; g += n)
            group_step(P, g, spx__multi_queue_group(P, g, 0, alpha, x, beta, y));
#pragma omp barrier
        for (int g = t; g < P->groups; g += n) {
            if (P->part[P->group[g].lead].status == SPX_OK)
                group_step(P, g, spx__multi_merge_group(P, g, beta, y));
            group_step(P, g, sync_group(P, g));
        }
    }
    return spx__multi_failure(P, "resident SpMV");
}

/* Several GPUs replayed as one graph (multi_resident_devices.c); when the
 * call cannot be recorded it runs queued from this thread once, and later
 * calls take run_devices. */
static spx_status run_devices_replayed(spx_multi_plan *P, double alpha, const spx_multi_vector *x,
                                       double beta, spx_multi_vector *y)
{
    spx_status st = spx__cuda_set_device(P->part[0].device);
    return st == SPX_OK ? spx__multi_graph_run(P, alpha, x, beta, y, spx__multi_queue_devices) : st;
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

int spx__multi_call_forks(const spx_multi_plan *P)
{
    return spx__multi_on_gpu(P) && (P->groups == 1 || !P->graph.off);
}

spx_status spx_multi_spmv_resident(spx_multi_plan *P, double alpha, spx_multi_vector *x,
                                   double beta, spx_multi_vector *y)
{
    spx_status st = check_call(P, x, y);
    if (st != SPX_OK || P->rows == 0) return st;
    int caller = spx__multi_device_save(P), one_gpu = spx__multi_on_gpu(P) && P->groups == 1;
    double t0 = spx__multi_now_ms();
    if (!spx__multi_on_gpu(P))
        st = run_cpu(P, alpha, x, beta, y);
    else if (one_gpu)
        st = run_one_gpu(P, alpha, x, beta, y);
    else if (!P->graph.off)
        st = run_devices_replayed(P, alpha, x, beta, y);
    else
        st = run_devices(P, alpha, x, beta, y);
    if (st == SPX_OK) st = spx__multi_barrier_late(P);
    spx__multi_device_restore(caller);
    P->times_on_gpu = st == SPX_OK && spx__multi_on_gpu(P);
    if (st != SPX_OK) return st;
    P->times.call_ms = spx__multi_now_ms() - t0;
    spx__clear_error();
    return SPX_OK;
}
