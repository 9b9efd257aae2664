/* The solve's registers (solve/scalars.h) and the operations that use
 * them (vec.h): on a CUDA space launches that read and write the device's
 * file, each dot's last block running the program and, for a slot,
 * publishing the file into the ring of pinned copies with an event behind
 * it; on a multi-device space with every part on a GPU the same on each
 * GPU's file (multi_solve_ahead.c), and an iteration recorded as a graph
 * (multi_solve_graph.c); on a host or other multi-device space the program
 * on the host file after the space's own dots. The host's compositions
 * compute each entry as the device's one-pass kernels do. */
#include <string.h>

#include "core/error.h"
#include "cuda/blas1/blas1.h"
#include "cuda/gateway.h"
#include "multi/multi_solve.h"
#include "solve/vec.h"

/* A multi-device space with its registers on the GPUs (multi_solve.h). */
static int multi_ahead(const spx__vspace *s)
{
    return s->multi && spx__multi_v_ahead(s->multi);
}

spx_status spx__v_scalars(const spx__vspace *s, const spx__sprog *p)
{
    if (multi_ahead(s)) return spx__multi_v_scalars(s->multi, p);
    if (spx__v_regs_on_device(s)) return spx__cuda_vscalars(s->regs, p, NULL, s->stream);
    spx__sprog_run(s->regs, p);
    return SPX_OK;
}

/* A published copy's place in the ring. */
static int ring_slot(int64_t slot)
{
    return (int)(slot % SPX__V_RING);
}

/* Where slot's copy goes (NULL: slot < 0, none). */
static double *copy_of(const spx__vspace *s, int64_t slot)
{
    return slot >= 0 ? s->ring + ring_slot(slot) * SPX__S_REGS : NULL;
}

/* CUDA: st of the launch that writes slot's copy, and its event behind it. */
static spx_status queued_copy(const spx__vspace *s, int64_t slot, spx_status st)
{
    if (st == SPX_OK && slot >= 0)
        st = spx__cuda_event_record(s->ring_ev[ring_slot(slot)], s->stream);
    return st;
}

spx_status spx__v_dots_regs(const spx__vspace *s, int k, const void *const *a, const void *const *b,
                            const int *dst, const spx__sprog *p, int64_t slot)
{
    double *copy = copy_of(s, slot);
    double d[SPX__V_MAX_DOTS];
    spx_status st;
    if (multi_ahead(s)) return spx__multi_v_dots_regs(s->multi, k, a, b, dst, p, slot);
    if (s->cuda && s->partial)
        return spx__cuda_vdots(s->n, s->t, k, a, b, s->scratch, s->partial, s->stream);
    if (spx__v_regs_on_device(s))
        return queued_copy(s, slot,
                           spx__cuda_vdots_regs(s->n, s->t, k, a, b, s->scratch, s->regs, dst, p,
                                                copy, s->stream));
    if ((st = spx__v_dots(s, k, a, b, d)) != SPX_OK) return st;
    for (int j = 0; j < k; j++)
        s->regs[dst[j]] = d[j];
    spx__sprog_run(s->regs, p);
    if (copy) memcpy(copy, s->regs, SPX__S_REGS * sizeof *copy);
    return SPX_OK;
}

spx_status spx__v_snapshot(const spx__vspace *s, int64_t slot, double *regs)
{
    if (multi_ahead(s)) return spx__multi_v_snapshot(s->multi, slot, regs);
    spx_status st =
        spx__v_regs_on_device(s) ? spx__cuda_event_sync(s->ring_ev[ring_slot(slot)]) : SPX_OK;
    if (st == SPX_OK)
        memcpy(regs, s->ring + ring_slot(slot) * SPX__S_REGS, SPX__S_REGS * sizeof *regs);
    return st;
}

spx_status spx__v_lincomb(const spx__vspace *s, spx__coef a, const void *x, spx__coef b, void *y,
                          spx__coef c, const void *z)
{
    const spx__coef k[3] = {a, b, c};
    if (multi_ahead(s)) return spx__multi_v_lincomb(s->multi, k, x, y, z);
    if (spx__v_regs_on_device(s))
        return spx__cuda_vlincomb(s->n, s->t, k, s->regs, x, y, z, s->stream);
    if (s->regs[SPX__S_STOP] != 0.0) return SPX_OK;
    return spx__v_axpbypcz(s, spx__coef_value(a, s->regs), x, spx__coef_value(b, s->regs), y,
                           spx__coef_value(c, s->regs), z);
}

spx_status spx__v_cg_step(const spx__vspace *s, int a, void *x, const void *p, void *r,
                          const void *q, const void *d, void *z, const int *dst,
                          const spx__sprog *prog, int64_t slot)
{
    const void *ra[2] = {r, r}, *rb[2] = {r, z};
    const spx__coef one = {1.0, -1}, none = {0.0, -1};
    spx_status st;
    if (multi_ahead(s)) return spx__multi_v_cg_step(s->multi, a, x, p, r, q, d, z, dst, prog, slot);
    if (spx__v_regs_on_device(s))
        return queued_copy(s, slot,
                           spx__cuda_vcg_step(s->n, s->t, s->regs, a, x, p, r, q, d, z, s->scratch,
                                              s->partial, dst, prog, copy_of(s, slot), s->stream));
    if ((st = spx__v_lincomb(s, (spx__coef){1.0, a}, p, one, x, none, NULL)) != SPX_OK ||
        (st = spx__v_lincomb(s, (spx__coef){-1.0, a}, q, one, r, none, NULL)) != SPX_OK ||
        (d && (st = spx__v_mul(s, d, r, z)) != SPX_OK))
        return st;
    return spx__v_dots_regs(s, d ? 2 : 1, ra, rb, dst, prog, slot);
}

spx_status spx__v_lincomb_dot(const spx__vspace *s, spx__coef a, const void *x, spx__coef b,
                              void *y, spx__coef c, const void *z, int dst, const spx__sprog *p,
                              int64_t slot)
{
    const spx__coef k[3] = {a, b, c};
    const void *yy[1] = {y};
    spx_status st;
    if (multi_ahead(s)) return spx__multi_v_lincomb_dot(s->multi, k, x, y, z, dst, p, slot);
    if (spx__v_regs_on_device(s))
        return queued_copy(s, slot,
                           spx__cuda_vlincomb_dot(s->n, s->t, k, s->regs, x, y, z, s->scratch,
                                                  s->partial, dst, p, copy_of(s, slot), s->stream));
    if ((st = spx__v_lincomb(s, a, x, b, y, c, z)) != SPX_OK) return st;
    return spx__v_dots_regs(s, 1, yy, yy, &dst, p, slot);
}

spx_status spx__v_bicgstab_step(const spx__vspace *s, const spx__bicgstab_step *b, const int *dst,
                                const spx__sprog *p, int64_t slot)
{
    const void *da[2] = {b->r, b->rhat}, *db[2] = {b->r, b->r};
    if (multi_ahead(s)) return spx__multi_v_bicgstab_step(s->multi, b, dst, p, slot);
    const double state = spx__v_regs_on_device(s) ? 0.0 : s->regs[SPX__S_STOP];
    spx_status st = SPX_OK;
    if (spx__v_regs_on_device(s))
        return queued_copy(s, slot,
                           spx__cuda_vbicgstab_step(s->n, s->t, s->regs, b, s->scratch, s->partial,
                                                    dst, p, copy_of(s, slot), s->stream));
    double alpha = s->regs[b->alpha], omega = s->regs[b->omega];
    if (state == 0.0) {
        st = spx__v_axpbypcz(s, alpha, b->phat, 1.0, b->x, omega, b->shat);
        if (st == SPX_OK) st = spx__v_axpbypcz(s, 1.0, b->s, 0.0, b->r, -omega, b->t);
    } else if (state == b->half) {
        st = spx__v_axpby(s, alpha, b->phat, 1.0, b->x);
    }
    return st == SPX_OK ? spx__v_dots_regs(s, 2, da, db, dst, p, slot) : st;
}

int spx__v_can_record(const spx__vspace *s)
{
    return s->multi && spx__multi_v_can_record(s->multi);
}

spx_status spx__v_record_begin(spx__vspace *s)
{
    return spx__multi_v_record_begin(s->multi);
}

spx_status spx__v_record_end(spx__vspace *s, int keep)
{
    return spx__multi_v_record_end(s->multi, keep);
}

spx_status spx__v_replay(const spx__vspace *s, int64_t slot)
{
    return spx__multi_v_replay(s->multi, slot);
}
