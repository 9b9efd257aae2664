/* GMRES's Gram-Schmidt pass on a multi-device space whose parts are on
 * GPUs (multi_solve.h): each part runs the device pass (solve/vec_gs.h,
 * cuda/blas1/gs.h) on its own lines of w and V, with a buffer of its own
 * on its device. The dots of every part are queued before any is taken,
 * and the host adds the parts' sums in part order, so a pass that takes
 * dots waits for the devices once and gives the same bits for a fixed part
 * count. Modified Gram-Schmidt waited for them at each of its j + 2 dots. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "multi/multi_solve_space.h"
#include "solve/vec_gs.h"

spx_status spx__multi_gs_alloc(const spx__multi_space *m, size_t count, spx__gs_buf **parts)
{
    spx_status st = spx__calloc((void **)parts, (size_t)m->P->parts, sizeof **parts,
                                "gram-schmidt buffers of the parts");
    int caller = spx__multi_device_save(m->P);
    for (int i = 0; st == SPX_OK && i < m->P->parts; i++) {
        if (m->part[i].n == 0) continue;
        st = spx__cuda_set_device(m->P->part[i].device);
        if (st == SPX_OK) st = spx__gs_buf_alloc(&m->part[i], count, &(*parts)[i]);
    }
    spx__multi_device_restore(caller);
    if (st != SPX_OK) {
        spx__multi_gs_free(m, *parts);
        *parts = NULL;
    }
    return st;
}

void spx__multi_gs_free(const spx__multi_space *m, spx__gs_buf *parts)
{
    if (!parts) return;
    int caller = spx__multi_device_save(m->P);
    for (int i = 0; i < m->P->parts; i++)
        if (parts[i].count && spx__cuda_set_device(m->P->part[i].device) == SPX_OK)
            spx__gs_buf_free(&m->part[i], &parts[i]);
    spx__multi_device_restore(caller);
    spx__free(parts);
}

/* The pass queued on part i (its device current): its coefficients put
 * first where it subtracts. */
static spx_status queue_part(const spx__multi_space *m, spx__gs_buf *b, const double *c, int i,
                             int64_t k, const void *const *V, const void **Vi, void *w, int64_t sub,
                             int64_t dots, int64_t nrm)
{
    spx_status st = SPX_OK;
    for (int64_t q = 0; q < k; q++)
        Vi[q] = spx__multi_lines(m, V[q], i);
    if (sub >= 0) st = spx__v_gs_put(&m->part[i], b, sub, c + sub, k);
    if (st == SPX_OK)
        st = spx__v_gs(&m->part[i], b, k, Vi, spx__multi_lines(m, w, i), sub, dots, nrm);
    return st;
}

/* c[at..at + len) += part's sums there. */
static void add(double *c, const double *part, int64_t at, int64_t len)
{
    for (int64_t q = 0; at >= 0 && q < len; q++)
        c[at + q] += part[at + q];
}

spx_status spx__multi_v_gs(const spx__multi_space *m, spx__gs_buf *parts, double *c, int64_t k,
                           const void *const *V, void *w, int64_t sub, int64_t dots, int64_t nrm)
{
    const void **Vi = NULL;
    double *sums = NULL;
    spx_status st = spx__multi_settle(m);
    int caller = spx__multi_device_save(m->P);
    if (st == SPX_OK)
        st = spx__alloc((void **)&Vi, (size_t)k + 1, sizeof *Vi, "gram-schmidt vectors of a part");
    for (int i = 0; st == SPX_OK && i < m->P->parts; i++)
        if (parts[i].count && (st = spx__cuda_set_device(m->P->part[i].device)) == SPX_OK)
            st = queue_part(m, &parts[i], c, i, k, V, Vi, w, sub, dots, nrm);
    if (st == SPX_OK && (dots >= 0 || nrm >= 0)) {
        if (dots >= 0) memset(c + dots, 0, (size_t)k * sizeof *c);
        if (nrm >= 0) c[nrm] = 0.0;
        for (int i = 0; st == SPX_OK && i < m->P->parts; i++) {
            if (!parts[i].count) continue;
            if (!sums && (st = spx__alloc((void **)&sums, parts[i].count, sizeof *sums,
                                          "gram-schmidt sums of a part")) != SPX_OK)
                break;
            if ((st = spx__cuda_set_device(m->P->part[i].device)) == SPX_OK &&
                (st = spx__v_gs_take(&m->part[i], &parts[i], sums)) == SPX_OK) {
                add(c, sums, dots, k);
                add(c, sums, nrm, 1);
            }
        }
    }
    spx__multi_device_restore(caller);
    spx__free(Vi);
    spx__free(sums);
    return st;
}
