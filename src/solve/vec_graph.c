/* A solver's iteration recorded as one CUDA graph and replayed (vec.h).
 * A CUDA space's stream is captured as it is; a multi-device space's
 * recording forks and joins every part's stream (multi_solve_graph.c). */
#include "core/error.h"
#include "cuda/blas1/blas1.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "solve/vec.h"

int spx__v_can_record(const spx__vspace *s)
{
    if (s->multi) return spx__multi_v_can_record(s->multi);
    return s->cuda && s->stream != NULL;
}

spx_status spx__v_record_begin(spx__vspace *s)
{
    if (s->multi) return spx__multi_v_record_begin(s->multi);
    return spx__cuda_capture_begin(s->stream);
}

spx_status spx__v_record_end(spx__vspace *s, int keep)
{
    void *exec = NULL;
    if (s->multi) return spx__multi_v_record_end(s->multi, keep);
    spx_status st = spx__cuda_capture_end(s->stream, &exec);
    if (st == SPX_OK && !keep) st = spx__error(SPX_ERR_UNSUPPORTED, "iteration not recorded");
    if (st != SPX_OK) {
        spx__cuda_graph_destroy(exec);
        return st;
    }
    spx__cuda_graph_destroy(s->iteration);
    s->iteration = exec;
    return SPX_OK;
}

spx_status spx__v_replay(const spx__vspace *s, int64_t slot)
{
    static const spx__sprog none = {0, {{0}}};
    const int r = (int)(slot % SPX__V_RING);
    if (s->multi) return spx__multi_v_replay(s->multi, slot);
    spx_status st = spx__cuda_graph_launch(s->iteration, s->stream);
    if (st == SPX_OK) st = spx__cuda_vscalars(s->regs, &none, s->ring + r * SPX__S_REGS, s->stream);
    if (st == SPX_OK) st = spx__cuda_event_record(s->ring_ev[r], s->stream);
    return st;
}
