/* Merging a multi-device call's partial results into y (multi.h), on the
 * calling thread once every part is done, always in part order:
 *   row kinds: y[line] = sum over the parts sharing a line of their values
 *              (the first of them carries beta's share), in double, rounded
 *              once to the vectors' type;
 *   pcsc:      y = ((out_0 + out_1) + out_2) + ..., elementwise in the
 *              vectors' type, part i > 0's only over its span (its output:
 *              the rows its columns touch; out_0 is all of y, part 0 having
 *              applied beta outside its span), on part 0's GPU when every
 *              part is on a GPU, else on the host (blocks of rows split
 *              among threads, each row's sum in part order whatever the
 *              thread, so the thread count does not change the bits).
 * Against full-length partials the pcsc sum reads n + the parts' spans
 * entries, not n a part, and skips only additions of 0 (the bits stay but
 * for the sign of a zero). */
#include <string.h>

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

#define SPX__SUM_BLOCK 4096 /* rows a task of the host sum */

/* y = src[0], then += part i's output over its span, i in part order, by
 * blocks of rows. */
#define SPX__SUM_PARTIALS(T)                                                                       \
    static void sum_partials_##T(const spx_multi_plan *P, const void *const *src, T *y)            \
    {                                                                                              \
        int64_t blocks = (P->rows + SPX__SUM_BLOCK - 1) / SPX__SUM_BLOCK;                          \
        _Pragma("omp parallel for schedule(static)") for (int64_t k = 0; k < blocks; k++)          \
        {                                                                                          \
            int64_t b = k * SPX__SUM_BLOCK,                                                        \
                    e = b + SPX__SUM_BLOCK < P->rows ? b + SPX__SUM_BLOCK : P->rows;               \
            if (src[0] != y) memcpy(y + b, (const T *)src[0] + b, (size_t)(e - b) * sizeof(T));    \
            for (int i = 1; i < P->parts; i++) {                                                   \
                const spx__multi_part *p = &P->part[i];                                            \
                const T *v = src[i];                                                               \
                int64_t lo = p->span_lo > b ? p->span_lo : b,                                      \
                        hi = p->span_hi < e ? p->span_hi : e;                                      \
                for (int64_t r = lo; r < hi; r++)                                                  \
                    y[r] += v[r - p->y_begin];                                                     \
            }                                                                                      \
        }                                                                                          \
    }
SPX__SUM_PARTIALS(double)
SPX__SUM_PARTIALS(float)

/* pcsc on the host: part k's output is in y (a CPU part 0 wrote there), its
 * buffer (CPU) or its copy back (GPU). */
static void sum_on_host(const spx_multi_plan *P, void *y)
{
    const void *src[SPX_MULTI_MAX_PARTS];
    for (int k = 0; k < P->parts; k++) {
        const spx__multi_part *p = &P->part[k];
        src[k] = p->device >= 0 ? p->host_out : p->out ? p->out : y;
    }
    if (P->parts == 1 && src[0] == y) return; /* a lone CPU part wrote y itself */
    if (P->vtype == SPX_F64)
        sum_partials_double(P, src, y);
    else
        sum_partials_float(P, src, y);
}

/* pcsc on part 0's GPU: add each part's output to part 0's (all of y) over
 * its span, in order (another GPU's through a peer copy), then one copy back. */
static spx_status sum_on_gpu(spx_multi_plan *P, void *y)
{
    spx__multi_part *p0 = &P->part[0];
    spx_status st;
    SPX_TRY(spx__cuda_set_device(p0->device));
    for (int k = 1; k < P->parts; k++) {
        const spx__multi_part *p = &P->part[k];
        const void *src = p->out;
        if (p->y_len == 0) continue;
        if (p->device != p0->device) {
            SPX_TRY(spx__cuda_copy_peer(P->reduce_buf, p0->device, p->out, p->device,
                                        (size_t)p->y_len * P->es, p0->stream));
            src = P->reduce_buf;
        }
        SPX_TRY(spx__cuda_vector_add((char *)p0->out + (size_t)p->y_begin * P->es, src, p->y_len,
                                     P->vtype, p0->stream));
    }
    SPX_TRY(spx__cuda_copy_async(y, p0->out, (size_t)P->rows * P->es, 0, p0->stream));
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
