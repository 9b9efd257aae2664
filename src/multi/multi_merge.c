/* Merging a multi-device call's partial results into y (multi.h), on the
 * calling thread once every part is done, always in part order:
 *   row kinds: y[line] = sum over the parts sharing a line of their values
 *              (the first of them carries beta's share), in double, rounded
 *              once to the vectors' type;
 *   pcsc:      y = ((out_0 + out_1) + out_2) + ..., elementwise in the
 *              vectors' type, on part 0's GPU when every part is on a GPU,
 *              else on the host (rows split among threads, each row summed
 *              whole, so the thread count does not change the bits). */
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

static double load(spx_type t, const void *v)
{
    return t == SPX_F64 ? *(const double *)v : (double)*(const float *)v;
}

static void store(spx_type t, void *y, int64_t r, double v)
{
    if (t == SPX_F64)
        ((double *)y)[r] = v;
    else
        ((float *)y)[r] = (float)v;
}

static void sum_shared_lines(const spx_multi_plan *P, void *y)
{
    double pending = 0.0;
    for (int i = 0; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        const spx__part *q = &p->part;
        if (q->shared_first) {
            pending += load(P->vtype, p->edge[0]);
            if (q->line_end - q->line_begin == 1 && q->shared_last) continue;
            store(P->vtype, y, q->line_begin, pending);
        }
        if (q->shared_last) pending = load(P->vtype, p->edge[1]);
    }
}

#define SPX__SUM_PARTIALS(T)                                                                       \
    static void sum_partials_##T(const void *const *src, int n, int64_t rows, T *y)             \
    {                                                                                              \
        _Pragma("omp parallel for schedule(static)") for (int64_t r = 0; r < rows; r++)          \
        {                                                                                          \
            T acc = ((const T *)src[0])[r];                                                        \
            for (int k = 1; k < n; k++) acc += ((const T *)src[k])[r];                             \
            y[r] = acc;                                                                            \
        }                                                                                          \
    }
SPX__SUM_PARTIALS(double)
SPX__SUM_PARTIALS(float)

/* pcsc on the host: part k's partial y is in y (a CPU part 0 wrote there),
 * its buffer (CPU) or its copy back (GPU). */
static void sum_on_host(const spx_multi_plan *P, void *y)
{
    const void *src[SPX_MULTI_MAX_PARTS];
    for (int k = 0; k < P->parts; k++) {
        const spx__multi_part *p = &P->part[k];
        src[k] = p->device >= 0 ? p->host_out : p->out ? p->out : y;
    }
    if (P->parts == 1 && src[0] == y) return; /* a lone CPU part wrote y itself */
    if (P->vtype == SPX_F64)
        sum_partials_double(src, P->parts, P->rows, y);
    else
        sum_partials_float(src, P->parts, P->rows, y);
}

/* pcsc on part 0's GPU: add each part's partial y to part 0's in order
 * (another GPU's through a peer copy), then one copy back. */
static spx_status sum_on_gpu(spx_multi_plan *P, void *y)
{
    spx__multi_part *p0 = &P->part[0];
    size_t bytes = (size_t)P->rows * P->es;
    spx_status st;
    SPX_TRY(spx__cuda_set_device(p0->device));
    for (int k = 1; k < P->parts; k++) {
        const spx__multi_part *p = &P->part[k];
        const void *src = p->out;
        if (p->device != p0->device) {
            SPX_TRY(spx__cuda_copy_peer(P->reduce_buf, p0->device, p->out, p->device, bytes,
                                        p0->stream));
            src = P->reduce_buf;
        }
        SPX_TRY(spx__cuda_vector_add(p0->out, src, P->rows, P->vtype, p0->stream));
    }
    SPX_TRY(spx__cuda_copy_async(y, p0->out, bytes, 0, p0->stream));
    SPX_TRY(spx__cuda_sync(p0->stream));
cleanup:
    return st;
}

spx_status spx__multi_merge(spx_multi_plan *P, void *y)
{
    if (P->kind != SPX_PART_PCSC) {
        sum_shared_lines(P, y);
        return SPX_OK;
    }
    if (P->gpu_reduce) return sum_on_gpu(P, y);
    sum_on_host(P, y);
    return SPX_OK;
}
