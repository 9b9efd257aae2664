/* The CUDA AXC / AXT layouts on the host (axt_host.h): the CPU formats'
 * builder (spx__axt_layout) with THW = 32 lanes (16 for axt-uh1), then
 *   empty[]      the rows without entries (not axc), which only the second
 *                pass (ordered) or the scaling (atomic) writes;
 *   per_worker   units of one producer: ceil(units / target_warps) for the
 *                warp variants (rounded up to even for uh1, whose warps take
 *                two slabs a step), so that about target_warps warps, one
 *                wave on the device, share the units; 1 for ch1 (a block of
 *                BS entries per thread block) and axc (a row per warp);
 *   workers      ceil(units / per_worker) producers (axc: rows). */
#include <omp.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/axt/axt_host.h"

_Static_assert((int)SPX__CUDA_AXC == (int)SPX__AXC && (int)SPX__CUDA_AXT_UH1 == (int)SPX__AXT_UH1 &&
                   (int)SPX__CUDA_AXT_UH == (int)SPX__AXT_UH &&
                   (int)SPX__CUDA_AXT_CH1 == (int)SPX__AXT_CH1 &&
                   (int)SPX__CUDA_AXT_CH == (int)SPX__AXT_CH,
               "the CUDA variants are the CPU layout's");

int spx__cuda_axt_thw(int variant)
{
    return variant == SPX__CUDA_AXT_UH1 ? SPX__CUDA_AXT_UH1_THW : SPX__CUDA_AXT_WARP;
}

static spx_status find_empty(const spx_matrix *A, spx__cuda_axt_host *h)
{
    int64_t n = 0;
    for (int64_t r = 0; r < A->rows; r++)
        n += spx__row_off(A, r + 1) == spx__row_off(A, r);
    h->n_empty = n;
    spx_status st =
        spx__alloc((void **)&h->empty, (size_t)n, sizeof(int32_t), "cuda axt empty rows");
    if (st != SPX_OK) return st;
    n = 0;
    for (int64_t r = 0; r < A->rows; r++)
        if (spx__row_off(A, r + 1) == spx__row_off(A, r)) h->empty[n++] = (int32_t)r;
    return SPX_OK;
}

static void split_units(const spx__cuda_axt_shape *s, spx__cuda_axt_host *h)
{
    const int64_t units = h->L.nunits;
    int64_t per = 1;
    if (s->variant == SPX__CUDA_AXC) {
        h->per_worker = 1;
        h->workers = h->L.rows;
        return;
    }
    if (s->variant != SPX__CUDA_AXT_CH1) {
        const int64_t target = s->target_warps > 0 ? s->target_warps : 1;
        per = (units + target - 1) / target;
        if (per < 1) per = 1;
        if (s->variant == SPX__CUDA_AXT_UH1) per += per & 1;
    }
    h->per_worker = per;
    h->workers = (units + per - 1) / per;
}

void spx__cuda_axt_host_free(spx__cuda_axt_host *h)
{
    if (!h) return;
    spx__axt_free_arrays(&h->L);
    spx__free(h->empty);
    memset(h, 0, sizeof *h);
}

spx_status spx__cuda_axt_build(const spx_matrix *A, const spx__cuda_axt_shape *s,
                               spx__cuda_axt_host *h)
{
    spx_status st;
    memset(h, 0, sizeof *h);
    if (A->col_bits == 64)
        return spx__error(SPX_ERR_UNSUPPORTED, "axt (cuda): 64-bit column indices (%lld columns)",
                          (long long)A->cols);
    if (A->rows > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED, "axt (cuda): %lld rows exceed 2^31 - 1",
                          (long long)A->rows);
    spx__axt *L = &h->L;
    L->variant = s->variant;
    L->type = s->type;
    L->vsize = s->type == SPX_F64 ? sizeof(double) : sizeof(float);
    L->live = s->live;
    L->thw = spx__cuda_axt_thw(s->variant);
    L->th = s->variant == SPX__CUDA_AXT_UH || s->variant == SPX__CUDA_AXT_CH ? s->th : 1;
    L->bs = s->variant == SPX__CUDA_AXT_CH1 ? s->bs : 0;
    L->nthreads = s->threads > 0 ? s->threads : omp_get_max_threads();
    SPX_TRY(spx__axt_layout(A, L));
    if (s->variant != SPX__CUDA_AXC) SPX_TRY(find_empty(A, h));
    split_units(s, h);
    return SPX_OK;
cleanup:
    spx__cuda_axt_host_free(h);
    return st;
}
