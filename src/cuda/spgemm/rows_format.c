/* The `gpu-rows` format on SPX_DEV_CUDA: SpGEMM C = A*B row by row with
 * hash accumulators in shared memory, rows binned by their products (the
 * method: rows.h). The plan holds A's CSR on the device; each product
 * uploads B, counts, allocates C exactly, fills it and copies it back. C
 * keeps the symbolic pattern (explicit zeros where products cancel), fp64
 * values, sorted columns. Precisions fp64 and fp32 (values and sums in
 * float). Parameters long=auto|dense|hash (rows.h: how rows of more than
 * 2048 products or entries accumulate; default auto) and prefault=on|off
 * (C's host pages touched while the GPU computes, the default, or left to
 * the copy: for measuring it) and panel_nnz=N (at most N entries of C on the
 * device at once: row panels, as when C does not fit it). fp32 declines a product whose terms could pass
 * float's range (max|A| max|B| > FLT_MAX): on the H100 xenon1 squared (values
 * up to 3.2e28) came out as infinities in every entry. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/spgemm/rows.h"
#include "plan/format.h"

static void rows_destroy(void *state)
{
    spx__cuda_rows_plan *p = state;
    if (!p) return;
    spx__cuda_csr_free(&p->A);
    spx__free(p);
}

static double max_abs(const spx_matrix *M)
{
    double m = 0.0;
    for (int64_t k = 0; k < M->nnz; k++)
        if (fabs(spx__val(M, k)) > m) m = fabs(spx__val(M, k));
    return m;
}

typedef struct rows_params {
    int long_rows;     /* SPX__ROWS_LONG_* */
    int prefault;      /* prefault=on|off */
    long panel_nnz;    /* panel_nnz=N, 0: from the free memory */
} rows_params;

static spx_status parse_param(void *ctx, const char *key, const char *value)
{
    rows_params *prm = ctx;
    static const char *const modes[] = {"auto", "dense", "hash"};
    if (strcmp(key, "prefault") == 0) return spx__param_on_off(key, value, &prm->prefault);
    if (strcmp(key, "panel_nnz") == 0)
        return spx__param_int(key, value, 1, LONG_MAX, &prm->panel_nnz);
    if (strcmp(key, "long") != 0)
        return spx__error(SPX_ERR_BAD_PARAM,
                          "gpu-rows: unknown parameter '%s' (long, prefault, panel_nnz)", key);
    for (int k = 0; k < 3; k++)
        if (strcmp(value, modes[k]) == 0) {
            prm->long_rows = k;
            return SPX_OK;
        }
    return spx__error(SPX_ERR_BAD_PARAM, "gpu-rows: long=%s; auto, dense or hash", value);
}

static spx_status rows_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    spx__cuda_rows_plan *p = NULL;
    rows_params prm = {SPX__ROWS_LONG_AUTO, 1, 0};
    spx_status st;
    *state = NULL;
    SPX_TRY(spx__params_each(o->params, parse_param, &prm));
    if (A->rows >= INT32_MAX) {
        st = spx__error(SPX_ERR_UNSUPPORTED, "gpu-rows: %lld rows; at most 2^31 - 2",
                        (long long)A->rows);
        goto cleanup;
    }
    SPX_TRY(spx__calloc((void **)&p, 1, sizeof *p, "gpu-rows plan"));
    p->precision = o->precision;
    p->long_rows = prm.long_rows;
    p->prefault = prm.prefault;
    p->panel_nnz = prm.panel_nnz;
    p->stream = o->stream;
    p->max_abs_a = o->precision == SPX_F32 ? max_abs(A) : 0.0;
    SPX_TRY(spx__cuda_csr_upload(A, o->precision, &p->A));
    *state = p;
    return SPX_OK;
cleanup:
    rows_destroy(p);
    return st;
}

static spx_status rows_multiply(void *state, const spx_matrix *B, spx_matrix **C)
{
    const spx__cuda_rows_plan *p = state;
    if (p->precision == SPX_F32) {
        const double b = max_abs(B);
        if (p->max_abs_a * b > FLT_MAX)
            return spx__error(SPX_ERR_UNSUPPORTED,
                              "gpu-rows f32: products of up to %.3g x %.3g pass float's range; "
                              "use f64",
                              p->max_abs_a, b);
    }
    return spx__cuda_rows_multiply(state, B, C);
}

static size_t rows_bytes(const void *state)
{
    const spx__cuda_rows_plan *p = state;
    return spx__cuda_csr_bytes(&p->A);
}

static void rows_describe(const void *state, char *buf, size_t len)
{
    const spx__cuda_rows_plan *p = state;
    static const char *const modes[] = {"dense where B's columns allow", "dense", "hash"};
    const int panels = __atomic_load_n(&p->last_panels, __ATOMIC_RELAXED);
    snprintf(buf, len,
             "hash rows, %s sums, shared tables up to %d entries a row, longer rows %s; "
             "last product: %d row panel%s",
             p->precision == SPX_F32 ? "fp32" : "fp64", 2048, modes[p->long_rows], panels,
             panels == 1 ? "" : "s");
}

/* AUTO: the CUDA SpGEMM baseline; tsparse answers above it only for A of
 * dense 8x8 tiles (tsparse_format.c). */
#define ROWS_ANSWER 1.0

static double rows_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    (void)f;
    return A->rows < INT32_MAX && A->col_bits == 32 ? ROWS_ANSWER : 0.0;
}

const spx_format_ops spx__format_gpu_rows = {
    .name = "gpu-rows",
    .devices = SPX_DEV_CUDA,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),
    .spgemm_analyze = rows_analyze,
    .spgemm = rows_multiply,
    .bytes = rows_bytes,
    .destroy = rows_destroy,
    .describe = rows_describe,
    .borrows_matrix = 0,
    .suits = rows_suits,
};
