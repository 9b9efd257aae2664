/* The `csr` format on SPX_DEV_CUDA: A's CSR uploaded once at analyze, rows
 * split by length (csr_kernels.h). The group size is the power of two at or
 * above the mean row length, at most a warp, like a vector CSR kernel sized to
 * the matrix; rows longer than 32 groups' worth are cut into warp chunks so a
 * few long rows do not hold one group for the whole call.
 * Params: group=1..32 (power of two), long=N (rows longer than N are chunked). */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/csr/csr_kernels.h"
#include "plan/format.h"

typedef struct csr_params {
    long group; /* 0: from the mean row length */
    long long_len; /* -1: 32 * group */
} csr_params;

static spx_status parse_param(void *ctx, const char *key, const char *value)
{
    csr_params *p = ctx;
    if (strcmp(key, "group") == 0) {
        spx_status st = spx__param_int(key, value, 1, 32, &p->group);
        if (st == SPX_OK && (p->group & (p->group - 1)))
            return spx__error(SPX_ERR_BAD_PARAM, "csr (cuda): group=%ld is not a power of two",
                              p->group);
        return st;
    }
    if (strcmp(key, "long") == 0) return spx__param_int(key, value, 1, 1L << 40, &p->long_len);
    return spx__error(SPX_ERR_BAD_PARAM, "csr (cuda): unknown parameter '%s'", key);
}

static int group_for(double rave)
{
    int g = 1;
    while (g < 32 && g < rave) g *= 2;
    return g;
}

/* Long rows of A: their indices, their first chunks, and the chunks' bounds,
 * built on the host and uploaded. */
static spx_status build_long_rows(const spx_matrix *A, spx__cuda_csr_plan *p)
{
    const int64_t *rp = A->rowptr;
    int64_t *rows = NULL, *first = NULL, *beg = NULL, *end = NULL;
    spx_status st = SPX_OK;
    p->n_long = 0;
    p->n_chunks = 0;
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t len = rp[i + 1] - rp[i];
        if (len <= p->long_len) continue;
        p->n_long++;
        p->n_chunks += (len + SPX__CUDA_CSR_CHUNK - 1) / SPX__CUDA_CSR_CHUNK;
    }
    if (p->n_long == 0) return SPX_OK;
    SPX_TRY(spx__alloc((void **)&rows, (size_t)p->n_long, sizeof *rows, "cuda csr long rows"));
    SPX_TRY(spx__alloc((void **)&first, (size_t)p->n_long + 1, sizeof *first,
                       "cuda csr long row chunks"));
    SPX_TRY(spx__alloc((void **)&beg, (size_t)p->n_chunks, sizeof *beg, "cuda csr chunks"));
    SPX_TRY(spx__alloc((void **)&end, (size_t)p->n_chunks, sizeof *end, "cuda csr chunks"));
    int64_t r = 0, c = 0;
    for (int64_t i = 0; i < A->rows; i++) {
        if (rp[i + 1] - rp[i] <= p->long_len) continue;
        rows[r] = i;
        first[r++] = c;
        for (int64_t k = rp[i]; k < rp[i + 1]; k += SPX__CUDA_CSR_CHUNK, c++) {
            beg[c] = k;
            end[c] = k + SPX__CUDA_CSR_CHUNK < rp[i + 1] ? k + SPX__CUDA_CSR_CHUNK : rp[i + 1];
        }
    }
    first[r] = c;
    size_t acc = p->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    SPX_TRY(spx__cuda_upload((void **)&p->long_rows, rows, (size_t)p->n_long * sizeof *rows,
                             "cuda csr long rows"));
    SPX_TRY(spx__cuda_upload((void **)&p->long_first, first,
                             ((size_t)p->n_long + 1) * sizeof *first, "cuda csr long rows"));
    SPX_TRY(spx__cuda_upload((void **)&p->chunk_beg, beg, (size_t)p->n_chunks * sizeof *beg,
                             "cuda csr chunks"));
    SPX_TRY(spx__cuda_upload((void **)&p->chunk_end, end, (size_t)p->n_chunks * sizeof *end,
                             "cuda csr chunks"));
    SPX_TRY(spx__cuda_alloc(&p->partial, (size_t)p->n_chunks * acc, "cuda csr partial sums"));
cleanup:
    spx__free(rows);
    spx__free(first);
    spx__free(beg);
    spx__free(end);
    return st;
}

static void csr_destroy(void *state)
{
    spx__cuda_csr_plan *p = state;
    if (!p) return;
    spx__cuda_csr_free(&p->A);
    spx__cuda_free(p->long_rows);
    spx__cuda_free(p->long_first);
    spx__cuda_free(p->chunk_beg);
    spx__cuda_free(p->chunk_end);
    spx__cuda_free(p->partial);
    spx__free(p);
}

static spx_status csr_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    spx__cuda_csr_plan *p = NULL;
    csr_params prm = {0, -1};
    spx_status st;
    *state = NULL;
    SPX_TRY(spx__params_each(o->params, parse_param, &prm));
    SPX_TRY(spx__calloc((void **)&p, 1, sizeof *p, "cuda csr plan"));
    p->precision = o->precision;
    p->stream = o->stream;
    p->group = prm.group ? (int)prm.group
                         : group_for(A->rows ? (double)A->nnz / (double)A->rows : 0.0);
    p->long_len = prm.long_len > 0 ? prm.long_len : 32 * (int64_t)p->group;
    SPX_TRY(spx__cuda_csr_upload(A, o->precision, &p->A));
    SPX_TRY(build_long_rows(A, p));
    *state = p;
    return SPX_OK;
cleanup:
    csr_destroy(p);
    return st;
}

static spx_status csr_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    return spx__cuda_csr_spmv(state, alpha, x, beta, y);
}

static size_t csr_bytes(const void *state)
{
    const spx__cuda_csr_plan *p = state;
    size_t acc = p->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    return spx__cuda_csr_bytes(&p->A) + (size_t)p->n_long * 2 * sizeof(int64_t) +
           (size_t)p->n_chunks * (2 * sizeof(int64_t) + acc);
}

static void csr_describe(const void *state, char *buf, size_t len)
{
    const spx__cuda_csr_plan *p = state;
    snprintf(buf, len, "group=%d long=%lld long_rows=%lld chunks=%lld", p->group,
             (long long)p->long_len, (long long)p->n_long, (long long)p->n_chunks);
}

const spx_format_ops spx__format_cuda_csr = {
    .name = "csr",
    .devices = SPX_DEV_CUDA,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32) | SPX__TYPE_BIT(SPX_F16),
    .analyze = csr_analyze,
    .spmv = csr_spmv,
    .bytes = csr_bytes,
    .destroy = csr_destroy,
    .describe = csr_describe,
    .borrows_matrix = 0,
};
