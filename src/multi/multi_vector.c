/* Resident vectors of a multi-device plan (multi.h): a full-length buffer
 * per device group (the parts of one device share it), its parts' own lines
 * holding the vector; filled from and read back to the host by owned lines.
 * Also the three steps a resident call is made of (move, add, scale) for
 * GPU parts and CPU parts. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/blas1/blas1.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

void spx__multi_own(const spx_multi_plan *P, int i, int64_t *begin, int64_t *end)
{
    const spx__part *q = &P->part[i].part;
    *end = q->line_end;
    *begin = q->line_begin + q->shared_first;
    if (*begin > *end) *begin = *end;
}

static void *at(const spx_multi_plan *P, void *v, int64_t k) { return (char *)v + (size_t)k * P->es; }
static const void *at_c(const spx_multi_plan *P, const void *v, int64_t k)
{
    return (const char *)v + (size_t)k * P->es;
}

spx_status spx__multi_move(const spx_multi_plan *P, void *dst, int dst_device, const void *src,
                           int src_device, int64_t n, void *stream)
{
    size_t bytes = (size_t)n * P->es;
    if (n <= 0) return SPX_OK;
    if (dst_device < 0) {
        memcpy(dst, src, bytes);
        return SPX_OK;
    }
    return spx__cuda_copy_peer(dst, dst_device, src, src_device, bytes, stream);
}

spx_status spx__multi_add(const spx_multi_plan *P, void *y, const void *x, int64_t n, void *stream)
{
    if (n <= 0) return SPX_OK;
    if (spx__multi_on_gpu(P)) return spx__cuda_vector_add(y, x, n, P->vtype, stream);
    for (int64_t k = 0; k < n; k++)
        if (P->vtype == SPX_F64)
            ((double *)y)[k] += ((const double *)x)[k];
        else
            ((float *)y)[k] += ((const float *)x)[k];
    return SPX_OK;
}

/* y = beta*y; beta == 0 sets 0 without reading y (NaN there included). */
spx_status spx__multi_scale(const spx_multi_plan *P, void *y, double beta, int64_t n, void *stream)
{
    if (n <= 0 || beta == 1.0) return SPX_OK;
    if (spx__multi_on_gpu(P)) {
        if (beta == 0.0) return spx__cuda_memset(y, 0, (size_t)n * P->es, stream);
        return spx__cuda_vaxpby(n, P->vtype, beta, y, 0.0, y, stream);
    }
    for (int64_t k = 0; k < n; k++)
        if (P->vtype == SPX_F64)
            ((double *)y)[k] = beta == 0.0 ? 0.0 : beta * ((double *)y)[k];
        else
            ((float *)y)[k] = beta == 0.0 ? 0.0f : (float)(beta * ((float *)y)[k]);
    return SPX_OK;
}

spx_status spx__multi_scale_outside(const spx_multi_plan *P, void *y, int64_t b, int64_t e,
                                    int64_t lo, int64_t hi, double beta, void *stream)
{
    int64_t head_end = lo < e ? lo : e, tail = hi < b ? b : hi > e ? e : hi;
    if (hi <= lo) head_end = tail = b;
    spx_status st = spx__multi_scale(P, at(P, y, b), beta, head_end - b, stream);
    if (st == SPX_OK) st = spx__multi_scale(P, at(P, y, tail), beta, e - tail, stream);
    return st;
}

static spx_status check_plan(const spx_multi_plan *P)
{
    if (!P) return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is NULL");
    if (P->magic != SPX__MULTI_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is freed or not a multi plan");
    if (P->rows != P->cols)
        return spx__error(SPX_ERR_UNSUPPORTED, "resident vectors need a square op(A) (x and y "
                          "share the parts' lines); this one is %lld x %lld",
                          (long long)P->rows, (long long)P->cols);
    for (int i = 1; i < P->parts; i++)
        if ((P->part[i].device >= 0) != spx__multi_on_gpu(P))
            return spx__error(SPX_ERR_UNSUPPORTED, "resident vectors need every part on a GPU "
                              "or every part on the CPU; part 0 and part %d differ", i);
    return SPX_OK;
}

spx_status spx__multi_vector_check(const spx_multi_plan *P, const spx_multi_vector *v)
{
    if (!v) return spx__error(SPX_ERR_BAD_HANDLE, "multi vector handle is NULL");
    if (v->magic != SPX__MULTI_VECTOR_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "multi vector handle is freed or not a multi vector");
    if (P && v->plan != P)
        return spx__error(SPX_ERR_INVALID_ARG, "the multi vector belongs to another plan");
    return SPX_OK;
}

void spx_multi_vector_destroy(spx_multi_vector *v)
{
    if (!v || v->magic != SPX__MULTI_VECTOR_MAGIC) return;
    int caller = -1, any_gpu = 0;
    for (int g = 0; v->device && g < v->groups; g++) any_gpu |= v->device[g] >= 0;
    if (any_gpu) spx__cuda_get_device(&caller);
    for (int g = 0; v->buf && g < v->groups; g++) {
        if (v->device[g] < 0) {
            spx__free(v->buf[g]);
        } else {
            spx__cuda_set_device(v->device[g]);
            spx__cuda_free(v->buf[g]);
        }
    }
    spx__multi_device_restore(caller);
    spx__free(v->buf);
    spx__free(v->device);
    v->magic = 0;
    spx__free(v);
}

spx_status spx_multi_vector_create(spx_multi_plan *P, spx_multi_vector **out)
{
    spx_multi_vector *v = NULL;
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (!out) return spx__error(SPX_ERR_INVALID_ARG, "output vector pointer is NULL");
    *out = NULL;
    int caller = spx__multi_device_save(P);
    SPX_TRY(spx__multi_resident_prepare(P));
    SPX_TRY(spx__calloc((void **)&v, 1, sizeof *v, "multi vector"));
    v->magic = SPX__MULTI_VECTOR_MAGIC;
    v->plan = P;
    v->groups = P->groups;
    SPX_TRY(spx__calloc((void **)&v->device, (size_t)P->groups, sizeof *v->device,
                        "multi vector groups"));
    for (int g = 0; g < P->groups; g++) v->device[g] = P->group[g].device;
    SPX_TRY(spx__calloc((void **)&v->buf, (size_t)P->groups, sizeof *v->buf,
                        "multi vector groups"));
    for (int g = 0; g < P->groups; g++)
        SPX_TRY(spx__multi_alloc_on(P, P->group[g].lead, P->rows > 0 ? P->rows : 1, &v->buf[g],
                                    "a resident vector's buffer"));
    spx__multi_device_restore(caller);
    *out = v;
    spx__clear_error();
    return SPX_OK;
cleanup:
    spx__multi_device_restore(caller);
    spx_multi_vector_destroy(v);
    return st;
}

/* Owned lines [b, e) of group g: from the host vector `in` into its buffer,
 * or (in NULL) from its buffer into `out`. */
static spx_status copy_own(const spx_multi_vector *v, int g, const void *in, void *out, int64_t b,
                           int64_t e)
{
    const spx_multi_plan *P = v->plan;
    void *dst = in ? at(P, v->buf[g], b) : at(P, out, b);
    const void *src = in ? at_c(P, in, b) : at_c(P, v->buf[g], b);
    size_t bytes = (size_t)(e - b) * P->es;
    if (v->device[g] < 0) {
        memcpy(dst, src, bytes);
        return SPX_OK;
    }
    spx_status st = spx__cuda_set_device(v->device[g]);
    return st == SPX_OK ? spx__cuda_copy(dst, src, bytes, in != NULL) : st;
}

/* Every group's owned lines, host <-> buffers (copy_own): consecutive parts
 * of one group own consecutive lines, so each run of them is one copy (one
 * in all when every part is on one device). */
static spx_status transfer(const spx_multi_vector *v, const void *in, void *out)
{
    const spx_multi_plan *P = v->plan;
    spx_status st = SPX_OK;
    int caller = spx__multi_device_save(P);
    for (int i = 0; st == SPX_OK && i < P->parts;) {
        int g = P->part[i].group, j = i;
        int64_t b, e, skip;
        spx__multi_own(P, i, &b, &e);
        while (j + 1 < P->parts && P->part[j + 1].group == g) spx__multi_own(P, ++j, &skip, &e);
        if (e > b) st = copy_own(v, g, in, out, b, e);
        i = j + 1;
    }
    spx__multi_device_restore(caller);
    return st;
}

static spx_status check_transfer(const spx_multi_vector *v, const void *host)
{
    spx_status st = spx__multi_vector_check(NULL, v);
    if (st != SPX_OK) return st;
    if (!host && v->plan->rows > 0) return spx__error(SPX_ERR_INVALID_ARG, "host vector is NULL");
    return SPX_OK;
}

spx_status spx_multi_vector_set(spx_multi_vector *v, const void *host)
{
    spx_status st = check_transfer(v, host);
    return st == SPX_OK ? transfer(v, host, NULL) : st;
}

spx_status spx_multi_vector_get(const spx_multi_vector *v, void *host)
{
    spx_status st = check_transfer(v, host);
    return st == SPX_OK ? transfer(v, NULL, host) : st;
}

void *spx__multi_vector_at(const spx_multi_vector *v, int i, int64_t k)
{
    return at(v->plan, v->buf[v->plan->part[i].group], k);
}
