/* GMRES's classical Gram-Schmidt pass (vec_gs.h) on the host, on a CUDA
 * device (cuda/blas1/gs.h), or composed of a multi-device space's
 * operations. */
#include "solve/vec_gs.h"

#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/threads.h"
#include "solve/host_dot.h"
#include "cuda/blas1/gs.h"
#include "cuda/multi/multi_cuda.h" /* pinned host memory */

/* Entries of a host block: a dot is the block sums added in block order. */
#define GS_BLOCK 4096

int spx__v_gs_on_gpu(const spx__vspace *s)
{
    return s->cuda || (s->multi && spx__multi_v_gpu(s->multi));
}

spx_status spx__gs_buf_alloc(const spx__vspace *s, size_t count, spx__gs_buf *b)
{
    const size_t scratch = SPX__CUDA_GS_SCRATCH * sizeof(double);
    spx_status st;
    memset(b, 0, sizeof *b);
    b->count = count;
    if (!s->cuda) {
        st = spx__calloc((void **)&b->c, count, sizeof(double), "gram-schmidt sums");
        if (st == SPX_OK && s->reduce)
            st = spx__calloc((void **)&b->pack, count + 1, sizeof(double), "gram-schmidt sums");
        if (st == SPX_OK && s->multi && spx__multi_v_gpu(s->multi))
            st = spx__multi_gs_alloc(s->multi, count, &b->parts);
        if (st != SPX_OK) spx__gs_buf_free(s, b);
        return st;
    }
    st = spx__cuda_alloc((void **)&b->c, count * sizeof(double), "gram-schmidt sums");
    if (st == SPX_OK) st = spx__cuda_memset(b->c, 0, count * sizeof(double), s->stream);
    if (st == SPX_OK) st = spx__cuda_alloc((void **)&b->scratch, scratch, "gram-schmidt scratch");
    if (st == SPX_OK) st = spx__cuda_memset(b->scratch, 0, scratch, s->stream);
    if (st == SPX_OK)
        st = spx__cuda_host_alloc((void **)&b->pinned, count * sizeof(double),
                                  "gram-schmidt sums (host copy)");
    if (st == SPX_OK && s->reduce)
        st = spx__calloc((void **)&b->pack, count + 1, sizeof(double), "gram-schmidt sums");
    if (st != SPX_OK) spx__gs_buf_free(s, b);
    return st;
}

void spx__gs_buf_free(const spx__vspace *s, spx__gs_buf *b)
{
    if (s->cuda) {
        spx__cuda_free(b->c);
        spx__cuda_free(b->scratch);
        spx__cuda_host_free(b->pinned);
        spx__free(b->pack);
    } else {
        spx__free(b->c);
        spx__free(b->pack);
        if (b->parts) spx__multi_gs_free(s->multi, b->parts);
    }
    memset(b, 0, sizeof *b);
}

/* Each loop's pragma on a line of its own, which clang-format would join to the loop. */
/* clang-format off */
/* Block j of the host pass: its entries of w updated (tmp holds them in
 * double while the vectors are subtracted one after another, which is the
 * device's order for each entry), then its sums of V[d] . w and w . w into
 * sums[d * blocks + j] (d = k for the norm). */
#define HOST_GS_BLOCK(T)                                                                      \
    static void host_gs_block_##T(int64_t lo, int64_t hi, int64_t k, const void *const *V,   \
                                  T *w, const double *sub, int dots, int nrm, double *sums,  \
                                  int64_t j, int64_t blocks)                                  \
    {                                                                                         \
        double tmp[GS_BLOCK];                                                                 \
        const int64_t len = hi - lo;                                                          \
        if (sub) {                                                                            \
            for (int64_t e = 0; e < len; e++)                                                 \
                tmp[e] = (double)w[lo + e];                                                   \
            for (int64_t q = 0; q < k; q++) {                                                 \
                const T *v = (const T *)V[q] + lo;                                            \
                _Pragma("omp simd")                                                           \
                for (int64_t e = 0; e < len; e++)                                             \
                    tmp[e] -= sub[q] * (double)v[e];                                          \
            }                                                                                 \
            for (int64_t e = 0; e < len; e++)                                                 \
                w[lo + e] = (T)tmp[e];                                                        \
        }                                                                                     \
        for (int64_t d = 0; dots && d < k; d++)                                               \
            sums[d * blocks + j] = spx__block_dot_##T((const T *)V[d] + lo, w + lo, len);     \
        if (nrm) sums[k * blocks + j] = spx__block_dot_##T(w + lo, w + lo, len);              \
    }                                                                                         \
    static void host_gs_##T(int64_t n, int64_t k, const void *const *V, T *w,                \
                            const double *sub, int dots, int nrm, double *sums)               \
    {                                                                                         \
        const int64_t blocks = (n + GS_BLOCK - 1) / GS_BLOCK;                                 \
        int nt = spx__threads_for(n * (k + 1), SPX__VECTOR_GRAIN);                            \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                          \
        for (int64_t j = 0; j < blocks; j++) {                                                \
            const int64_t hi = (j + 1) * GS_BLOCK < n ? (j + 1) * GS_BLOCK : n;               \
            host_gs_block_##T(j * GS_BLOCK, hi, k, V, w, sub, dots, nrm, sums, j, blocks);    \
        }                                                                                     \
    }
/* clang-format on */
HOST_GS_BLOCK(double)
HOST_GS_BLOCK(float)

/* sums[d * blocks + j] added over j in order into out[d], d < count. */
static void add_blocks(const double *sums, int64_t blocks, int64_t count, double *out)
{
    for (int64_t d = 0; d < count; d++) {
        double total = 0.0;
        for (int64_t j = 0; j < blocks; j++)
            total += sums[d * blocks + j];
        out[d] = total;
    }
}

/* A space shared by processes: the pass's dots and norm (computed where
 * local is SPX_OK) summed over them, packed into b->pack for one allsum,
 * which every process joins even after a local failure. */
static spx_status reduce_sums(const spx__vspace *s, spx__gs_buf *b, int64_t k, int64_t dots,
                              int64_t nrm, spx_status local)
{
    const int count = (int)((dots >= 0 ? k : 0) + (nrm >= 0));
    double *v = b->pack;
    for (int i = 0; i < count; i++)
        v[i] = 0.0;
    for (int64_t i = 0; local == SPX_OK && dots >= 0 && i < k; i++)
        v[i] = b->c[dots + i];
    if (local == SPX_OK && nrm >= 0) v[count - 1] = b->c[nrm];
    spx_status st = count > 0 ? s->reduce->allsum(s->reduce->ctx, v, count, local) : local;
    for (int64_t i = 0; st == SPX_OK && dots >= 0 && i < k; i++)
        b->c[dots + i] = v[i];
    if (st == SPX_OK && nrm >= 0) b->c[nrm] = v[count - 1];
    return st;
}

/* A shared CUDA space: the pass's sums brought to the host (c whole, through
 * the pinned copy), reduced as on the host, and put back before the passes
 * queued after. */
static spx_status reduce_device_sums(const spx__vspace *s, spx__gs_buf *b, int64_t k, int64_t dots,
                                     int64_t nrm, spx_status local)
{
    const size_t bytes = b->count * sizeof(double);
    double *device_c = b->c;
    spx_status st = local;
    if (st == SPX_OK) st = spx__cuda_copy_async(b->pinned, device_c, bytes, 0, s->stream);
    if (st == SPX_OK) st = spx__cuda_sync(s->stream);
    b->c = b->pinned; /* reduce_sums works on host sums */
    st = reduce_sums(s, b, k, dots, nrm, st);
    b->c = device_c;
    if (st == SPX_OK) st = spx__cuda_copy(device_c, b->pinned, bytes, 1);
    return st;
}

static spx_status host_gs(const spx__vspace *s, spx__gs_buf *b, int64_t k, const void *const *V,
                          void *w, int64_t sub, int64_t dots, int64_t nrm)
{
    const int64_t blocks = (s->n + GS_BLOCK - 1) / GS_BLOCK;
    const double *coef = sub >= 0 ? b->c + sub : NULL;
    double *sums = NULL;
    spx_status st = SPX_OK;
    if (dots >= 0 || nrm >= 0)
        st = spx__alloc((void **)&sums, (size_t)((k + 1) * blocks + 1), sizeof *sums,
                        "gram-schmidt block sums");
    if (st == SPX_OK) {
        if (s->t == SPX_F64)
            host_gs_double(s->n, k, V, w, coef, dots >= 0, nrm >= 0, sums);
        else
            host_gs_float(s->n, k, V, w, coef, dots >= 0, nrm >= 0, sums);
        if (dots >= 0) add_blocks(sums, blocks, k, b->c + dots);
        if (nrm >= 0) add_blocks(sums + k * blocks, blocks, 1, b->c + nrm);
    }
    spx__free(sums);
    return s->reduce ? reduce_sums(s, b, k, dots, nrm, st) : st;
}

/* The pass of a multi-device space: an axpby per subtracted vector, then
 * the dots four at a time (c is host memory). */
static spx_status composed_gs(const spx__vspace *s, spx__gs_buf *b, int64_t k, const void *const *V,
                              void *w, int64_t sub, int64_t dots, int64_t nrm)
{
    spx_status st = SPX_OK;
    const void *ws[SPX__V_MAX_DOTS] = {w, w, w, w};
    for (int64_t q = 0; sub >= 0 && q < k && st == SPX_OK; q++)
        st = spx__v_axpby(s, -b->c[sub + q], V[q], 1.0, w);
    for (int64_t q = 0; dots >= 0 && q < k && st == SPX_OK; q += SPX__V_MAX_DOTS) {
        const int g = (int)(k - q < SPX__V_MAX_DOTS ? k - q : SPX__V_MAX_DOTS);
        st = spx__v_dots(s, g, V + q, ws, b->c + dots + q);
    }
    if (nrm >= 0 && st == SPX_OK) st = spx__v_dot(s, w, w, b->c + nrm);
    return st;
}

static spx_status check_offset(const spx__gs_buf *b, int64_t off, int64_t len)
{
    if (off < 0 || (off + len <= (int64_t)b->count)) return SPX_OK;
    return spx__error(SPX_ERR_INVALID_ARG, "gram-schmidt sums %lld..%lld past %zu", (long long)off,
                      (long long)(off + len), b->count);
}

spx_status spx__v_gs(const spx__vspace *s, spx__gs_buf *b, int64_t k, const void *const *V, void *w,
                     int64_t sub, int64_t dots, int64_t nrm)
{
    spx_status st = check_offset(b, sub, k);
    if (st == SPX_OK) st = check_offset(b, dots, k);
    if (st == SPX_OK) st = check_offset(b, nrm, 1);
    if (st != SPX_OK) return st;
    if (b->parts) return spx__multi_v_gs(s->multi, b->parts, b->c, k, V, w, sub, dots, nrm);
    if (s->multi) return composed_gs(s, b, k, V, w, sub, dots, nrm);
    if (!s->cuda) return host_gs(s, b, k, V, w, sub, dots, nrm);
    st = spx__cuda_vgs(s->n, s->t, k, V, w, sub >= 0 ? b->c + sub : NULL,
                       dots >= 0 ? b->c + dots : NULL, nrm >= 0 ? b->c + nrm : NULL, b->scratch,
                       s->stream);
    return s->reduce && (dots >= 0 || nrm >= 0) ? reduce_device_sums(s, b, k, dots, nrm, st) : st;
}

spx_status spx__v_gs_put(const spx__vspace *s, spx__gs_buf *b, int64_t off, const double *in,
                         int64_t count)
{
    spx_status st = check_offset(b, off, count);
    if (st != SPX_OK || count <= 0) return st;
    if (!s->cuda) {
        memcpy(b->c + off, in, (size_t)count * sizeof *in);
        return SPX_OK;
    }
    /* after the work queued so far (a pass may still read c), then a plain copy */
    if ((st = spx__cuda_sync(s->stream)) != SPX_OK) return st;
    return spx__cuda_copy(b->c + off, in, (size_t)count * sizeof *in, 1);
}

spx_status spx__v_gs_take(const spx__vspace *s, const spx__gs_buf *b, double *out)
{
    spx_status st;
    const size_t bytes = b->count * sizeof(double);
    if (!s->cuda) {
        memcpy(out, b->c, bytes);
        return SPX_OK;
    }
    st = spx__cuda_copy_async(b->pinned, b->c, bytes, 0, s->stream);
    if (st == SPX_OK) st = spx__cuda_sync(s->stream);
    if (st == SPX_OK) memcpy(out, b->pinned, bytes);
    return st;
}
