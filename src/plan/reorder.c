/* reorder=rcm|degree|none for CPU and CUDA plans (contract in reorder.h):
 *
 *   A' = P M P^T             perm[k] = the index in M of row k of A'
 *   x'[k] = x[perm[k]]       y'[k] = y[perm[k]] (only when beta != 0)
 *   y' = alpha A' x' + beta y'     the format's kernel
 *   y[i] = y'[inv[i]]        inv[perm[k]] = k
 *
 * M is A for op N and A^T for op T: P A^T P^T = (P A P^T)^T, and both orderings
 * depend only on what A and A^T share (rcm: the pattern of A + A^T; degree:
 * row plus column counts), so op T uses the same P as op N.
 * Gather and scatter are OpenMP loops with a static schedule on the plan's
 * threads, inside the timed call. Both read at random and write in order (y
 * through inv, not y[perm[k]] = y'[k]: a random write also reads its line).
 * x' and y' belong to the plan and are first touched by those threads; a
 * call that finds them taken (atomic try-lock) uses a pair allocated for
 * itself, so concurrent calls on one plan stay correct and give the same bits.
 * CUDA plans keep perm, inv, x' and y' on the device and gather with a
 * kernel on the plan's stream (spx__cuda_vgather), in stream order with the
 * format's kernels; as every CUDA plan, one call at a time. The ordering and
 * A' are computed on the host (timed as preprocessing), then the format
 * uploads A' as it would upload A.
 *
 * vectors=permuted (with rcm or degree): the caller passes x' and y' already
 * in the plan's order (spx_plan_permutation hands out perm), so a product is
 * the format's call on A' alone; no x', y' or inv are kept. Without an
 * ordering (no reorder= or reorder=none) it is SPX_ERR_BAD_PARAM: a caller
 * asking for permuted vectors of an unordered plan has made a mistake.
 */
#include "plan/reorder.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "core/order.h"
#include "cuda/blas1/blas1.h"
#include "plan/auto_order.h"

/* Below this many entries a vector is gathered by the calling thread alone. */
#define REORDER_PARALLEL_MIN 32768

struct spx__reorder {
    spx__order_mode mode;
    char *params; /* the plan's params without reorder=, vectors= ("" when none is left) */
    size_t params_len;
    int seen;             /* the key was given */
    int seen_vectors;     /* vectors= was given */
    int permuted_vectors; /* vectors=permuted: the caller's x and y are x' and y' */
    int by_auto;          /* AUTO's own ordering (auto_order.c), no reorder= given */
    spx_matrix *permuted; /* A'; dropped after analyze unless the format borrows it */
    int32_t *perm;        /* n entries; NULL for reorder=none */
    int32_t *inv;         /* n entries, inv[perm[k]] = k */
    int64_t n;
    size_t elem; /* bytes per vector entry: 8 (f64) or 4 (f32, f16: float) */
    int threads;
    spx_device device;     /* where x, y, x', y' live */
    void *stream;          /* CUDA plans: the plan's stream */
    int32_t *dperm, *dinv; /* CUDA plans: perm and inv on the device */
    /* CUDA plans of at most INT32_MAX entries: where each entry of M went in
     * A' (spx__order_permute_mapped), for spx_plan_update_values once M is gone */
    int32_t *entry_map;
    int64_t nnz;
    void *xbuf, *ybuf;     /* the plan's x' and y' (device memory for CUDA plans) */
    atomic_flag busy;      /* set while one call uses xbuf and ybuf */
};

/* vectors=original|permuted. */
static spx_status parse_vectors(spx__reorder *R, const char *value)
{
    if (R->seen_vectors) return spx__error(SPX_ERR_BAD_PARAM, "parameter vectors is given twice");
    R->seen_vectors = 1;
    if (strcmp(value, "original") == 0 || strcmp(value, "permuted") == 0) {
        R->permuted_vectors = value[0] == 'p';
        return SPX_OK;
    }
    return spx__error(SPX_ERR_BAD_PARAM, "vectors=%s: expected original or permuted", value);
}

/* spx__params_each callback: keeps every pair but reorder= and vectors= in
 * R->params. */
static spx_status split_param(void *ctx, const char *key, const char *value)
{
    spx__reorder *R = ctx;
    if (strcmp(key, "vectors") == 0) return parse_vectors(R, value);
    if (strcmp(key, "reorder") != 0) {
        size_t used = strlen(R->params); /* the buffer can hold the whole input */
        snprintf(R->params + used, R->params_len - used, "%s%s=%s", used ? "," : "", key, value);
        return SPX_OK;
    }
    if (R->seen) return spx__error(SPX_ERR_BAD_PARAM, "parameter reorder is given twice");
    R->seen = 1;
    return spx__order_parse(value, &R->mode);
}

static int reorder_threads(const spx__reorder *R)
{
    return R->threads > 0 ? R->threads : omp_get_max_threads();
}

/* dst[k] = src[map[k]], k < n, for doubles or floats (the type test is
 * loop-invariant: the compiler unswitches the loop). */
static void gather(const spx__reorder *R, const int32_t *map, void *dst, const void *src)
{
    const int64_t n = R->n;
    const int f64 = R->elem == sizeof(double);
#pragma omp parallel for schedule(static)                                                          \
    num_threads(reorder_threads(R)) if (n >= REORDER_PARALLEL_MIN)
    for (int64_t k = 0; k < n; k++) {
        if (f64)
            ((double *)dst)[k] = ((const double *)src)[map[k]];
        else
            ((float *)dst)[k] = ((const float *)src)[map[k]];
    }
}

/* The plan's x' and y', zeroed by the threads that will use them. */
static spx_status alloc_vectors(spx__reorder *R)
{
    spx_status st;
    SPX_TRY(spx__alloc(&R->xbuf, (size_t)R->n, R->elem, "reorder: x'"));
    SPX_TRY(spx__alloc(&R->ybuf, (size_t)R->n, R->elem, "reorder: y'"));
    char *xb = R->xbuf, *yb = R->ybuf;
    const int64_t n = R->n;
    const size_t e = R->elem;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(reorder_threads(R)) if (n >= REORDER_PARALLEL_MIN)
    for (int64_t k = 0; k < n; k++) {
        memset(xb + (size_t)k * e, 0, e);
        memset(yb + (size_t)k * e, 0, e);
    }
cleanup:
    return st;
}

/* A CUDA plan's perm and inv on the device, and its x' and y' there (x' of
 * elem bytes an entry holds any x type: half is narrower). */
static spx_status to_device(spx__reorder *R)
{
    const size_t map_bytes = (size_t)R->n * sizeof(int32_t);
    spx_status st;
    if (R->permuted_vectors) return SPX_OK; /* the caller permutes */
    SPX_TRY(spx__cuda_upload((void **)&R->dperm, R->perm, map_bytes, "reorder: permutation"));
    SPX_TRY(spx__cuda_upload((void **)&R->dinv, R->inv, map_bytes, "reorder: inverse"));
    SPX_TRY(spx__cuda_alloc(&R->xbuf, (size_t)R->n * R->elem, "reorder: x'"));
    SPX_TRY(spx__cuda_alloc(&R->ybuf, (size_t)R->n * R->elem, "reorder: y'"));
    spx__free(R->inv); /* the host copy served the upload only */
    R->inv = NULL;
cleanup:
    return st;
}

/* P, A' = P M P^T and the vectors, for rcm or degree. */
static spx_status build(spx__reorder *R, const spx_matrix *M, const spx_plan_opts *o)
{
    const char *name = spx__order_name(R->mode);
    int64_t *perm = NULL;
    spx_status st = spx__check_matrix(M, "spx_plan_create with reorder=");
    if (st != SPX_OK) return st;
    R->device = o->device;
    R->stream = o->stream;
    if (M->rows != M->cols)
        return spx__error(SPX_ERR_BAD_PARAM, "reorder=%s needs a square matrix, not %lld x %lld",
                          name, (long long)M->rows, (long long)M->cols);
    R->n = M->rows;
    R->elem = o->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    R->threads = o->threads;
    SPX_TRY(spx__alloc((void **)&perm, (size_t)R->n, sizeof *perm, "reorder: permutation"));
    SPX_TRY(spx__order_compute(M, R->mode, o->threads, perm));
    R->nnz = M->nnz;
    if (o->device == SPX_DEV_CUDA && M->nnz <= INT32_MAX)
        SPX_TRY(spx__alloc((void **)&R->entry_map, (size_t)(M->nnz > 0 ? M->nnz : 1),
                           sizeof *R->entry_map, "reorder: entry map"));
    SPX_TRY(spx__order_permute_mapped(M, perm, o->threads, &R->permuted, R->entry_map));
    SPX_TRY(spx__alloc((void **)&R->perm, (size_t)R->n, sizeof *R->perm, "reorder: permutation"));
    for (int64_t k = 0; k < R->n; k++)
        R->perm[k] = (int32_t)perm[k];
    if (!R->permuted_vectors) {
        SPX_TRY(spx__alloc((void **)&R->inv, (size_t)R->n, sizeof *R->inv, "reorder: inverse"));
        for (int64_t k = 0; k < R->n; k++)
            R->inv[perm[k]] = (int32_t)k;
        if (R->device == SPX_DEV_CPU) SPX_TRY(alloc_vectors(R));
    }
    if (R->device == SPX_DEV_CUDA) SPX_TRY(to_device(R));
cleanup:
    spx__free(perm);
    return st;
}

/* AUTO's own ordering (auto_order.c): reorder=degree when the rule says it
 * pays, o->params kept as given. */
static spx_status auto_order(const spx_matrix *M, spx_plan_opts *o, spx__reorder **out)
{
    spx__reorder *R = NULL;
    spx_status st;
    if (!spx__auto_orders(M, o)) return SPX_OK;
    SPX_TRY(spx__calloc((void **)&R, 1, sizeof *R, "reorder plan"));
    atomic_flag_clear(&R->busy);
    R->mode = SPX__ORDER_DEGREE;
    R->by_auto = 1;
    SPX_TRY(build(R, M, o));
    *out = R;
    return SPX_OK;
cleanup:
    spx__reorder_destroy(R);
    return st;
}

spx_status spx__reorder_create(const spx_matrix *M, spx_plan_opts *o, spx__reorder **out)
{
    spx__reorder *R = NULL;
    spx_status st;
    *out = NULL;
    if (!o->params || (!strstr(o->params, "reorder") && !strstr(o->params, "vectors")))
        return auto_order(M, o, out);
    SPX_TRY(spx__calloc((void **)&R, 1, sizeof *R, "reorder plan"));
    atomic_flag_clear(&R->busy);
    R->params_len = strlen(o->params) + 1;
    SPX_TRY(spx__calloc((void **)&R->params, R->params_len, 1, "reorder: parameters"));
    SPX_TRY(spx__params_each(o->params, split_param, R));
    if (R->permuted_vectors && R->mode == SPX__ORDER_NONE)
        SPX_TRY(spx__error(SPX_ERR_BAD_PARAM,
                           "vectors=permuted needs reorder=rcm or degree, not %s",
                           R->seen ? "reorder=none" : "no reorder="));
    if (!R->seen && !R->seen_vectors) { /* the words were part of another key or value */
        spx__reorder_destroy(R);
        return auto_order(M, o, out);
    }
    o->params = R->params[0] ? R->params : NULL;
    if (R->mode != SPX__ORDER_NONE) SPX_TRY(build(R, M, o));
    *out = R;
    return SPX_OK;
cleanup:
    spx__reorder_destroy(R);
    return st;
}

const spx_matrix *spx__reorder_matrix(const spx__reorder *R)
{
    return R ? R->permuted : NULL;
}

void spx__reorder_prepared(spx__reorder *R, int format_borrows)
{
    if (!R || format_borrows) return;
    spx_matrix_destroy(R->permuted);
    R->permuted = NULL;
}

/* The CUDA product: x' = P x, y' = P y (beta != 0), the format on the plan's
 * vectors, y = P^T y', four launches in stream order. */
static spx_status spmv_cuda(spx__reorder *R, const spx_format_ops *ops, void *state, double alpha,
                            const void *x, size_t x_elem, double beta, void *y)
{
    spx_status st;
    SPX_TRY(spx__cuda_vgather(R->n, x_elem, R->dperm, x, R->xbuf, R->stream));
    if (beta != 0.0) SPX_TRY(spx__cuda_vgather(R->n, R->elem, R->dperm, y, R->ybuf, R->stream));
    SPX_TRY(ops->spmv(state, alpha, R->xbuf, beta, R->ybuf));
    SPX_TRY(spx__cuda_vgather(R->n, R->elem, R->dinv, R->ybuf, y, R->stream));
cleanup:
    return st;
}

spx_status spx__reorder_spmv(spx__reorder *R, const spx_format_ops *ops, void *state, double alpha,
                             const void *x, spx_type xtype, double beta, void *y)
{
    if (!R || !R->perm || R->permuted_vectors) return ops->spmv(state, alpha, x, beta, y);
    if (R->device == SPX_DEV_CUDA) {
        size_t x_elem = xtype == SPX_F64 ? 8 : xtype == SPX_F32 ? 4 : 2;
        return spmv_cuda(R, ops, state, alpha, x, x_elem, beta, y);
    }
    void *xp = R->xbuf, *yp = R->ybuf, *own_x = NULL, *own_y = NULL;
    const int mine = !atomic_flag_test_and_set_explicit(&R->busy, memory_order_acquire);
    spx_status st;
    if (!mine) {
        SPX_TRY(spx__alloc(&own_x, (size_t)R->n, R->elem, "reorder: x' of a concurrent call"));
        SPX_TRY(spx__alloc(&own_y, (size_t)R->n, R->elem, "reorder: y' of a concurrent call"));
        xp = own_x;
        yp = own_y;
    }
    gather(R, R->perm, xp, x);
    if (beta != 0.0) gather(R, R->perm, yp, y);
    SPX_TRY(ops->spmv(state, alpha, xp, beta, yp));
    gather(R, R->inv, y, yp);
cleanup:
    if (mine) atomic_flag_clear_explicit(&R->busy, memory_order_release);
    spx__free(own_x);
    spx__free(own_y);
    return st;
}

void spx__reorder_permutation(const spx__reorder *R, int64_t n, int64_t *perm)
{
    for (int64_t k = 0; k < n; k++)
        perm[k] = R && R->perm ? R->perm[k] : k;
}

size_t spx__reorder_bytes(const spx__reorder *R)
{
    if (!R) return 0;
    size_t held = R->params_len + (R->perm ? (size_t)R->n * sizeof *R->perm : 0);
    if (R->dperm) held += (size_t)R->n * sizeof(int32_t); /* device copies */
    if (R->inv || R->dinv) held += (size_t)R->n * (sizeof(int32_t) + 2 * R->elem);
    if (R->entry_map) held += (size_t)R->nnz * sizeof *R->entry_map;
    const spx_matrix *B = R->permuted;
    if (B)
        held += (size_t)(B->rows + 1) * sizeof(int64_t) +
                (size_t)B->nnz * (sizeof(int32_t) + (B->vtype == SPX_F64 ? 8u : 4u));
    return held;
}

void spx__reorder_describe(const spx__reorder *R, char *buf, size_t len)
{
    size_t used = strlen(buf);
    if (!R || used + 1 >= len) return;
    snprintf(buf + used, len - used, "%sreorder=%s%s%s", used ? " " : "", spx__order_name(R->mode),
             R->by_auto ? " (auto: hot columns, gathers not local)" : "",
             R->permuted_vectors ? " vectors=permuted" : "");
}

void spx__reorder_destroy(spx__reorder *R)
{
    if (!R) return;
    spx__free(R->params);
    spx_matrix_destroy(R->permuted);
    spx__free(R->perm);
    spx__free(R->inv);
    spx__free(R->entry_map);
    if (R->device == SPX_DEV_CUDA) {
        spx__cuda_free(R->dperm);
        spx__cuda_free(R->dinv);
        spx__cuda_free(R->xbuf);
        spx__cuda_free(R->ybuf);
    } else {
        spx__free(R->xbuf);
        spx__free(R->ybuf);
    }
    spx__free(R);
}

int spx__reorder_has_order(const spx__reorder *R)
{
    return R && R->perm;
}

spx_status spx__reorder_entry_map(const spx__reorder *R, const spx_matrix *M, int threads,
                                  int32_t *map)
{
    int64_t *perm = NULL;
    spx_matrix *B = NULL;
    spx_status st;
    if (!spx__reorder_has_order(R) || M->rows != R->n || M->nnz > INT32_MAX)
        return spx__error(SPX_ERR_INVALID_ARG, "spx__reorder_entry_map: no ordering of this size");
    if (R->entry_map) { /* recorded when A' was made */
        memcpy(map, R->entry_map, (size_t)M->nnz * sizeof *map);
        return SPX_OK;
    }
    SPX_TRY(spx__alloc((void **)&perm, (size_t)(R->n > 0 ? R->n : 1), sizeof *perm,
                       "reorder: permutation"));
    for (int64_t k = 0; k < R->n; k++)
        perm[k] = R->perm[k];
    SPX_TRY(spx__order_permute_mapped(M, perm, threads, &B, map));
cleanup:
    spx__free(perm);
    spx_matrix_destroy(B);
    return st;
}

int32_t *spx__reorder_take_entry_map(spx__reorder *R)
{
    int32_t *map = R ? R->entry_map : NULL;
    if (R) R->entry_map = NULL;
    return map;
}
