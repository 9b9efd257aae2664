/* Linear combinations of basis vectors (vec_combine.h): on the host a row
 * block at a time (the block of every V[i] stays in the cache while the l
 * outputs take it), on a CUDA device by cuda/blas1/combine.h, on a
 * multi-device space as l Gram-Schmidt subtractions from zero. */
#include "solve/vec_combine.h"

#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/threads.h"
#include "cuda/blas1/combine.h"

/* Entries of a host block: 37 basis vectors of 1024 doubles fill 296 KB. */
#define COMBINE_BLOCK 1024

spx_status spx__combine_buf_alloc(const spx__vspace *s, size_t count, spx__combine_buf *b)
{
    memset(b, 0, sizeof *b);
    b->count = count;
    if (s->cuda)
        return spx__cuda_alloc((void **)&b->coef, count * sizeof(double), "combine coefficients");
    return SPX_OK; /* the host reads the caller's coefficients in place */
}

void spx__combine_buf_free(const spx__vspace *s, spx__combine_buf *b)
{
    if (s->cuda) spx__cuda_free(b->coef);
    memset(b, 0, sizeof *b);
}

/* clang-format off */
/* Block [lo, lo + len) of output t: acc = sum_i coef[t*k + i] V[i]. */
#define HOST_COMBINE(T)                                                                      \
    static void combine_block_##T(int64_t lo, int64_t len, int64_t k, const void *const *V, \
                                  const double *coef, double *restrict acc)                  \
    {                                                                                        \
        for (int64_t e = 0; e < len; e++)                                                    \
            acc[e] = 0.0;                                                                    \
        for (int64_t i = 0; i < k; i++) {                                                    \
            const T *restrict v = (const T *)V[i] + lo;                                      \
            const double c = coef[i];                                                        \
            _Pragma("omp simd")                                                              \
            for (int64_t e = 0; e < len; e++)                                                \
                acc[e] += c * (double)v[e];                                                  \
        }                                                                                    \
    }                                                                                        \
    static void host_combine_##T(int64_t n, int64_t k, const void *const *V, int64_t l,     \
                                 void *const *U, const double *coef)                         \
    {                                                                                        \
        const int64_t blocks = (n + COMBINE_BLOCK - 1) / COMBINE_BLOCK;                      \
        int nt = spx__threads_for(n * (k + l), SPX__VECTOR_GRAIN);                           \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                         \
        for (int64_t j = 0; j < blocks; j++) {                                               \
            const int64_t lo = j * COMBINE_BLOCK;                                            \
            const int64_t len = lo + COMBINE_BLOCK < n ? COMBINE_BLOCK : n - lo;             \
            double acc[COMBINE_BLOCK];                                                       \
            for (int64_t t = 0; t < l; t++) {                                                \
                combine_block_##T(lo, len, k, V, coef + t * k, acc);                         \
                T *restrict u = (T *)U[t] + lo;                                              \
                for (int64_t e = 0; e < len; e++)                                            \
                    u[e] = (T)acc[e];                                                        \
            }                                                                                \
        }                                                                                    \
    }
/* clang-format on */
HOST_COMBINE(double)
HOST_COMBINE(float)

/* A multi-device space: U[t] = 0 - V (-coef_t), one pass each. */
static spx_status composed(const spx__vspace *s, spx__gs_buf *gs, int64_t k, const void *const *V,
                           int64_t l, void *const *U, const double *coef)
{
    spx_status st = SPX_OK;
    double *neg = NULL;
    if ((st = spx__alloc((void **)&neg, (size_t)k, sizeof *neg, "combine coefficients")) != SPX_OK)
        return st;
    for (int64_t t = 0; t < l && st == SPX_OK; t++) {
        for (int64_t i = 0; i < k; i++)
            neg[i] = -coef[t * k + i];
        if ((st = spx__v_gs_put(s, gs, 0, neg, k)) == SPX_OK &&
            (st = spx__v_zero(s, U[t])) == SPX_OK)
            st = spx__v_gs(s, gs, k, V, U[t], 0, -1, -1);
    }
    spx__free(neg);
    return st;
}

spx_status spx__v_combine(const spx__vspace *s, spx__combine_buf *cb, spx__gs_buf *gs, int64_t k,
                          const void *const *V, int64_t l, void *const *U, const double *coef)
{
    spx_status st;
    if (l <= 0 || k <= 0) return SPX_OK;
    if ((size_t)(l * k) > cb->count)
        return spx__error(SPX_ERR_INVALID_ARG, "combine: %lld coefficients past %zu",
                          (long long)(l * k), cb->count);
    if (s->multi) return composed(s, gs, k, V, l, U, coef);
    if (!s->cuda) {
        if (s->t == SPX_F64)
            host_combine_double(s->n, k, V, l, U, coef);
        else
            host_combine_float(s->n, k, V, l, U, coef);
        return SPX_OK;
    }
    /* after the work queued so far (a launch may still read the coefficients) */
    if ((st = spx__cuda_sync(s->stream)) != SPX_OK ||
        (st = spx__cuda_copy(cb->coef, coef, (size_t)(l * k) * sizeof *coef, 1)) != SPX_OK)
        return st;
    return spx__cuda_vlinear_combine(s->n, s->t, k, V, l, U, cb->coef, s->stream);
}
