/* coo: SpMV over row-sorted coordinate triplets, split evenly by nonzeros
 * (a row may be split between threads; see coo_kernel.h). */
#include <omp.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "core/memcopy.h"
#include "core/threads.h"
#include "plan/format.h"

typedef struct coo_carry {
    int64_t row; /* -1: none */
    double sum;
} coo_carry;

typedef struct coo_state {
    int64_t rows, nnz;
    int64_t *row;
    const int32_t *col;
    const void *values;
    void *owned_values;
    spx_type precision;
    int threads;
} coo_state;

#define SPX_FN coo_f64
#define SPX_VAL double
#include "cpu/coo_kernel.h"
#undef SPX_FN
#undef SPX_VAL
#define SPX_FN coo_f32
#define SPX_VAL float
#include "cpu/coo_kernel.h"
#undef SPX_FN
#undef SPX_VAL

static void coo_destroy(void *state)
{
    coo_state *s = state;
    if (!s) return;
    spx__free(s->row);
    spx__free(s->owned_values);
    spx__free(s);
}

static spx_status coo_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    coo_state *s = NULL;
    spx_status st;
    SPX_TRY(spx__params_none(o->params, "coo"));
    if (A->col_bits != 32)
        return spx__error(SPX_ERR_UNSUPPORTED, "coo handles 32-bit column indices only");
    SPX_TRY(spx__calloc((void **)&s, 1, sizeof *s, "coo plan"));
    s->rows = A->rows;
    s->nnz = A->nnz;
    s->col = A->col32;
    s->precision = o->precision;
    s->threads = o->threads > 0 ? o->threads : spx__threads_for(A->nnz, SPX__SPMV_GRAIN);
    SPX_TRY(spx__values_as(A, o->precision, &s->values, &s->owned_values));
    SPX_TRY(spx__alloc((void **)&s->row, (size_t)A->nnz, sizeof(int64_t), "coo row indices"));
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t k = spx__row_off(A, i); k < spx__row_off(A, i + 1); k++)
            s->row[k] = i;
    *state = s;
    return SPX_OK;
cleanup:
    coo_destroy(s);
    return st;
}

/* New values (host memory, the plan's vector type) into an array of the
 * plan's own, leaving A's, which it may have read in place, alone. */
static spx_status coo_update_values(void *state, const void *values, int on_device)
{
    coo_state *s = state;
    const size_t es = s->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    (void)on_device;
    if (!s->owned_values) {
        spx_status st = spx__alloc(&s->owned_values, (size_t)(s->nnz > 0 ? s->nnz : 1), es,
                                   "coo: the plan's own values");
        if (st != SPX_OK) return st;
    }
    spx__parallel_memcpy(s->owned_values, values, (size_t)s->nnz * es);
    s->values = s->owned_values;
    return SPX_OK;
}

/* The carries live in a per-call buffer: one plan serves concurrent calls. */
static spx_status coo_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    const coo_state *s = state;
    coo_carry *carry = NULL;
    spx_status st =
        spx__alloc((void **)&carry, 2 * (size_t)s->threads, sizeof *carry, "coo carries");
    if (st != SPX_OK) return st;
    if (s->precision == SPX_F64)
        coo_f64(s, alpha, x, beta, y, carry);
    else
        coo_f32(s, alpha, x, beta, y, carry);
    spx__free(carry);
    return SPX_OK;
}

static size_t coo_bytes(const void *state)
{
    const coo_state *s = state;
    size_t vs = s->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    return sizeof *s + (size_t)s->nnz * (sizeof(int64_t) + sizeof(int32_t) + vs);
}

const spx_format_ops spx__format_coo = {
    .name = "coo",
    .devices = SPX_DEV_CPU,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),
    .analyze = coo_analyze,
    .spmv = coo_spmv,
    .bytes = coo_bytes,
    .destroy = coo_destroy,
    .update_values = coo_update_values,
    .borrows_matrix = 1,
};
