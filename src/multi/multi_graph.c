/* A resident call on GPUs, replayed as a CUDA graph: every part on one GPU
 * (queue_one_gpu, multi_resident.c) or on several (multi_resident_devices.c).
 *
 * Queued part by part, such a call costs the host a launch or more per part
 * (its plan's kernels, events, waits between streams), a few microseconds
 * each, and the last part's kernel starts that much after the first: 4 parts
 * of lap3d7:128 cost 12-15% over one part on an H200 whose one-part call
 * takes 0.068 ms (bench/results/msrep-2026-11-26.md). Recorded once as a
 * graph (the parts' streams forked from part 0's and joined back into it,
 * so the graph keeps their concurrency and their order at shared lines), a
 * call is one launch.
 *
 * A graph holds its kernels' arguments: it is replayed only for the device
 * buffers of x and y, alpha and beta it was recorded with, and recorded
 * again when one of them changes (an iterative solver calls with the same
 * ones every iteration). Plans whose calls cannot be recorded (an
 * allocation or a host wait inside a call) fail the recording, which runs
 * nothing; the call then queues its parts, and so do later calls.
 *
 * Times: events recorded inside a graph only order it, so a replay is timed
 * as a whole by two events of its own around the launch; spx_multi_times
 * then gives that as the SpMV time, the merge (ghost adds, pcsc's sum)
 * included, and no separate merge time (multi_info.c). */
#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

static int same_call(const spx_multi_plan *P, const spx_multi_vector *x, const spx_multi_vector *y,
                     double alpha, double beta)
{
    const spx__multi_graph *g = &P->graph;
    if (!g->exec || g->alpha != alpha || g->beta != beta) return 0;
    for (int k = 0; k < P->groups; k++)
        if (g->x[k] != x->buf[k] || g->y[k] != y->buf[k]) return 0;
    return 1;
}

/* Queue the call directly and wait for every part's stream. */
static spx_status run_queued(spx_multi_plan *P, double alpha, const spx_multi_vector *x,
                             double beta, spx_multi_vector *y, spx__multi_queue_fn queue)
{
    spx_status st = queue(P, alpha, x, beta, y);
    for (int i = 0; i < P->parts; i++) {
        spx_status s = spx__cuda_sync(P->part[i].stream);
        if (st == SPX_OK) st = s;
    }
    return st;
}

/* Record the call into g; SPX_OK and g->exec set, or g->off set. */
static void record(spx_multi_plan *P, double alpha, const spx_multi_vector *x, double beta,
                   spx_multi_vector *y, spx__multi_queue_fn queue)
{
    spx__multi_graph *g = &P->graph;
    void *lead = P->part[0].stream;
    spx__multi_graph_free(P);
    if (spx__cuda_capture_begin(lead) != SPX_OK) {
        g->off = 1;
        return;
    }
    spx_status queued = queue(P, alpha, x, beta, y);
    spx_status ended = spx__cuda_capture_end(lead, &g->exec);
    if (queued != SPX_OK || ended != SPX_OK) {
        spx__multi_graph_free(P);
        g->off = 1;
        return;
    }
    if ((!g->x &&
         spx__calloc((void **)&g->x, (size_t)P->groups, sizeof *g->x, "graph") != SPX_OK) ||
        (!g->y &&
         spx__calloc((void **)&g->y, (size_t)P->groups, sizeof *g->y, "graph") != SPX_OK)) {
        spx__multi_graph_free(P);
        g->off = 1;
        return;
    }
    for (int k = 0; k < P->groups; k++) {
        g->x[k] = x->buf[k];
        g->y[k] = y->buf[k];
    }
    g->alpha = alpha;
    g->beta = beta;
}

spx_status spx__multi_graph_run(spx_multi_plan *P, double alpha, const spx_multi_vector *x,
                                double beta, spx_multi_vector *y, spx__multi_queue_fn queue)
{
    spx__multi_graph *g = &P->graph;
    if (g->capturing) return queue(P, alpha, x, beta, y);
    if (!g->off && !same_call(P, x, y, alpha, beta)) record(P, alpha, x, beta, y, queue);
    if (g->off) {
        spx__clear_error(); /* a failed recording is not the call's failure */
        g->replayed = 0;
        return run_queued(P, alpha, x, beta, y, queue);
    }
    void *lead = P->part[0].stream;
    spx_status st = SPX_OK;
    if (!g->start) SPX_TRY(spx__cuda_event_create(&g->start));
    if (!g->end) SPX_TRY(spx__cuda_event_create(&g->end));
    SPX_TRY(spx__cuda_event_record(g->start, lead));
    SPX_TRY(spx__cuda_graph_launch(g->exec, lead));
    SPX_TRY(spx__cuda_event_record(g->end, lead));
cleanup:
    g->replayed = st == SPX_OK;
    if (st == SPX_OK && g->no_wait) return SPX_OK;
    spx_status s = spx__cuda_sync(lead);
    return st == SPX_OK ? s : st;
}

spx_status spx_multi_set_graph(spx_multi_plan *P, int replay)
{
    if (!P || P->magic != SPX__MULTI_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "spx_multi_set_graph: not a live multi plan");
    spx__multi_graph_free(P);
    P->graph.off = !replay;
    return SPX_OK;
}

void spx__multi_graph_free(spx_multi_plan *P)
{
    spx__cuda_graph_destroy(P->graph.exec);
    P->graph.exec = NULL;
    P->graph.replayed = 0;
}

void spx__multi_graph_destroy(spx_multi_plan *P)
{
    spx__multi_graph_free(P);
    spx__cuda_event_destroy(P->graph.start);
    spx__cuda_event_destroy(P->graph.end);
    P->graph.start = P->graph.end = NULL;
    spx__free(P->graph.x);
    spx__free(P->graph.y);
    P->graph.x = P->graph.y = NULL;
}
