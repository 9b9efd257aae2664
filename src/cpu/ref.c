/* ref: y = alpha*A*x + beta*y (and SpMM, Y = alpha*A*X + beta*Y, and SDDMM,
 * Z[e] = alpha * X(i, :) . Y(j, :) + beta*Z[e]), sequential, accumulating
 * each row (each dot) in long double. The truth every other format is
 * tested against. Reads A in place, 32-bit row offsets included. */
#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "plan/format.h"

typedef struct ref_state {
    const spx_matrix *A;
    spx_type precision; /* x and y are double for F64, float for F32 */
    double *values;     /* spx_plan_update_values' values, read instead of A's; or NULL */
} ref_state;

/* Value of entry k: the plan's own after an update, else A's. */
static double ref_val(const ref_state *s, int64_t k)
{
    return s->values ? s->values[k] : spx__val(s->A, k);
}

static spx_status ref_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    ref_state *s = NULL;
    spx_status st = spx__params_none(o->params, "ref");
    if (st != SPX_OK) return st;
    st = spx__alloc((void **)&s, 1, sizeof *s, "ref plan");
    if (st != SPX_OK) return st;
    s->A = A;
    s->precision = o->precision;
    s->values = NULL;
    *state = s;
    return SPX_OK;
}

static spx_status ref_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    const ref_state *s = state;
    const spx_matrix *A = s->A;
    int f64 = s->precision == SPX_F64;
    for (int64_t i = 0; i < A->rows; i++) {
        long double sum = 0.0L;
        for (int64_t k = spx__row_off(A, i), e = spx__row_off(A, i + 1); k < e; k++) {
            int64_t j = spx__col(A, k);
            double xj = f64 ? ((const double *)x)[j] : (double)((const float *)x)[j];
            sum += (long double)ref_val(s, k) * xj;
        }
        long double r = (long double)alpha * sum;
        if (beta != 0.0) r += (long double)beta * (f64 ? ((double *)y)[i] : ((float *)y)[i]);
        if (f64)
            ((double *)y)[i] = (double)r;
        else
            ((float *)y)[i] = (float)r;
    }
    return SPX_OK;
}

/* Entry e of a row-major array of doubles (f64) or floats. */
static double entry(const void *a, int f64, int64_t e)
{
    return f64 ? ((const double *)a)[e] : (double)((const float *)a)[e];
}

/* Row i of Y: acc[j] = sum over row i of a_ik X(k, j), then alpha*acc + beta*Y. */
static void ref_spmm_row(const ref_state *s, int64_t i, int64_t k, double alpha, const void *X,
                         int64_t ldx, double beta, void *Y, int64_t ldy, long double *acc)
{
    const spx_matrix *A = s->A;
    const int f64 = s->precision == SPX_F64;
    for (int64_t j = 0; j < k; j++)
        acc[j] = 0.0L;
    for (int64_t e = spx__row_off(A, i), end = spx__row_off(A, i + 1); e < end; e++) {
        const long double a = (long double)ref_val(s, e);
        const int64_t row = spx__col(A, e) * ldx;
        for (int64_t j = 0; j < k; j++)
            acc[j] += a * entry(X, f64, row + j);
    }
    for (int64_t j = 0; j < k; j++) {
        long double r = (long double)alpha * acc[j];
        if (beta != 0.0) r += (long double)beta * entry(Y, f64, i * ldy + j);
        if (f64)
            ((double *)Y)[i * ldy + j] = (double)r;
        else
            ((float *)Y)[i * ldy + j] = (float)r;
    }
}

static spx_status ref_spmm(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                           double beta, void *Y, int64_t ldy)
{
    const ref_state *s = state;
    long double *acc = NULL;
    spx_status st = spx__alloc((void **)&acc, (size_t)k, sizeof *acc, "ref spmm row");
    if (st != SPX_OK) return st;
    for (int64_t i = 0; i < s->A->rows; i++)
        ref_spmm_row(s, i, k, alpha, X, ldx, beta, Y, ldy, acc);
    spx__free(acc);
    return SPX_OK;
}

/* Z[e] for each entry e = (i, j) of A, in A's order. */
static spx_status ref_sddmm(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                            const void *Y, int64_t ldy, double beta, void *Z)
{
    const ref_state *s = state;
    const spx_matrix *A = s->A;
    const int f64 = s->precision == SPX_F64;
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t e = spx__row_off(A, i), end = spx__row_off(A, i + 1); e < end; e++) {
            const int64_t j = spx__col(A, e);
            long double dot = 0.0L;
            for (int64_t c = 0; c < k; c++)
                dot += (long double)entry(X, f64, i * ldx + c) * entry(Y, f64, j * ldy + c);
            long double r = (long double)alpha * dot;
            if (beta != 0.0) r += (long double)beta * entry(Z, f64, e);
            if (f64)
                ((double *)Z)[e] = (double)r;
            else
                ((float *)Z)[e] = (float)r;
        }
    return SPX_OK;
}

static size_t ref_bytes(const void *state)
{
    const ref_state *s = state;
    return sizeof *s + (s->values ? (size_t)s->A->nnz * sizeof(double) : 0);
}

static void ref_destroy(void *state)
{
    ref_state *s = state;
    if (s) spx__free(s->values);
    spx__free(s);
}

/* New values (host memory, the plan's vector type) into a double array of
 * the plan's own, read from then on instead of A's (left alone). */
static spx_status ref_update_values(void *state, const void *values, int on_device)
{
    ref_state *s = state;
    const int64_t nnz = s->A->nnz;
    (void)on_device;
    if (!s->values) {
        spx_status st = spx__alloc((void **)&s->values, (size_t)(nnz > 0 ? nnz : 1), sizeof(double),
                                   "ref: the plan's own values");
        if (st != SPX_OK) return st;
    }
    for (int64_t k = 0; k < nnz; k++)
        s->values[k] = s->precision == SPX_F64 ? ((const double *)values)[k]
                                               : (double)((const float *)values)[k];
    return SPX_OK;
}

const spx_format_ops spx__format_ref = {
    .name = "ref",
    .devices = SPX_DEV_CPU,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),
    .analyze = ref_analyze,
    .spmv = ref_spmv,
    .spmm = ref_spmm,
    .sddmm = ref_sddmm,
    .bytes = ref_bytes,
    .destroy = ref_destroy,
    .update_values = ref_update_values,
    .borrows_matrix = 1,
};
