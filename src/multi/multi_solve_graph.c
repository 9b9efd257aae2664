/* A multi solve's iteration recorded once as a CUDA graph and replayed
 * (multi_solve.h), where its registers are on the GPUs (multi_solve_ahead.c).
 *
 * Queued operation by operation, an iteration across GPUs costs the host
 * about 30 launches, event records and waits, one GPU after another, and
 * the GPUs wait for them: on 2 H200s CG on lap3d7:100 took 0.14 ms an
 * iteration against 0.08 on one (run LI). An iteration does the same work
 * on the same buffers every time (only the published slot changes), so it
 * is recorded once and each iteration is one launch: on 2 H200s replays
 * took 0.58-0.92x the time of the same iterations queued, CG and BiCGSTAB
 * on lap3d7:64 to lap3d7:200 (bench/results/solve-graph-2026-11-27.md).
 *
 * Recording: part 0's stream (the lead) is captured; every other part's
 * stream first waits for an event of the lead's and so joins the capture;
 * the iteration is queued with no slot; every other stream's last work is
 * joined back into the lead before the capture ends. The product inside is
 * queued, not replayed (a graph is not launched inside a capture), with no
 * host wait (spx__multi_graph's capturing). A call that cannot be recorded
 * (a host wait, an allocation) fails the capture and nothing of it runs.
 * The parts' dots alternate between two buffers (multi_solve_ahead.c), so
 * an iteration is kept only where it ends on the buffer it started on (an
 * even number of dots summed: CG 2, BiCGSTAB 4), as its replays then
 * continue the alternation.
 *
 * Ordering: a graph launched on the lead starts after the lead's earlier
 * work only, so before the first replay the lead waits for every other
 * stream; after each replay every other stream waits for the lead, so work
 * queued outside the graph (the final residual) comes after it. The slot's
 * copy of the registers is published after the replay, on the lead, from
 * part 0's register file: every GPU's file holds the same values, and the
 * registers a solver publishes are its iteration's last. */
#include "core/error.h"
#include "cuda/blas1/blas1.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi_solve_space.h"

/* Every stream of part i > 0 waits for ev recorded on the lead now. */
static spx_status others_wait_lead(const spx_multi_plan *P, void *ev)
{
    spx_status st = spx__cuda_set_device(P->part[0].device);
    if (st == SPX_OK) st = spx__cuda_event_record(ev, P->part[0].stream);
    for (int i = 1; st == SPX_OK && i < P->parts; i++)
        if ((st = spx__cuda_set_device(P->part[i].device)) == SPX_OK)
            st = spx__cuda_stream_wait(P->part[i].stream, ev);
    return st;
}

/* The lead waits for every other part's stream as it is now. */
static spx_status lead_waits_others(const spx__multi_space *m)
{
    const spx_multi_plan *P = m->P;
    spx_status st = SPX_OK;
    for (int i = 1; st == SPX_OK && i < P->parts; i++)
        if ((st = spx__cuda_set_device(P->part[i].device)) == SPX_OK)
            st = spx__cuda_event_record(m->ahead->dot_ev[i], P->part[i].stream);
    if (st == SPX_OK) st = spx__cuda_set_device(P->part[0].device);
    for (int i = 1; st == SPX_OK && i < P->parts; i++)
        st = spx__cuda_stream_wait(P->part[0].stream, m->ahead->dot_ev[i]);
    return st;
}

int spx__multi_v_can_record(const spx__multi_space *m)
{
    return m->ahead != NULL;
}

spx_status spx__multi_v_record_begin(spx__multi_space *m)
{
    spx_multi_plan *P = m->P;
    int caller = spx__multi_device_save(P);
    m->ahead->recorded_from = m->ahead->buffer;
    spx_status st = lead_waits_others(m);
    if (st == SPX_OK) st = spx__cuda_capture_begin(P->part[0].stream);
    if (st == SPX_OK) {
        P->graph.capturing = 1;
        st = others_wait_lead(P, m->ahead->done);
    }
    spx__multi_device_restore(caller);
    return st;
}

spx_status spx__multi_v_record_end(spx__multi_space *m, int keep)
{
    spx_multi_plan *P = m->P;
    int caller = spx__multi_device_save(P);
    void *exec = NULL;
    keep = keep && m->ahead->buffer == m->ahead->recorded_from;
    spx_status st = keep ? lead_waits_others(m) : SPX_OK;
    spx_status end = spx__cuda_set_device(P->part[0].device);
    if (end == SPX_OK) end = spx__cuda_capture_end(P->part[0].stream, &exec);
    P->graph.capturing = 0;
    spx__multi_device_restore(caller);
    if (st == SPX_OK) st = end;
    if (st == SPX_OK && !keep) st = spx__error(SPX_ERR_UNSUPPORTED, "iteration not recorded");
    if (st != SPX_OK) { /* nothing recorded ran: the dots go on from the buffer they were at */
        spx__multi_ahead_use_buffer(m, m->ahead->recorded_from);
        spx__cuda_graph_destroy(exec);
        return st;
    }
    spx__cuda_graph_destroy(m->ahead->iteration);
    m->ahead->iteration = exec;
    return SPX_OK;
}

spx_status spx__multi_v_replay(const spx__multi_space *m, int64_t slot)
{
    static const spx__sprog none = {0, {{0}}};
    const spx_multi_plan *P = m->P;
    spx__multi_ahead *a = m->ahead;
    const int r = (int)(slot % SPX__V_RING);
    int caller = spx__multi_device_save(P);
    void *lead = P->part[0].stream;
    spx_status st = spx__cuda_set_device(P->part[0].device);
    if (st == SPX_OK) st = spx__cuda_graph_launch(a->iteration, lead);
    if (st == SPX_OK)
        st = spx__cuda_vscalars(m->part[0].regs, &none, a->ring + r * SPX__S_REGS, lead);
    if (st == SPX_OK) st = spx__cuda_event_record(a->ring_ev[r], lead);
    if (st == SPX_OK) st = others_wait_lead(P, a->done);
    spx__multi_device_restore(caller);
    return st;
}
