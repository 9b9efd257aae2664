/* ref: y = alpha*A*x + beta*y, sequential, accumulating each row in long
 * double. The truth every other format is tested against. Reads A in place,
 * 32-bit row offsets included. */
#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "plan/format.h"

typedef struct ref_state {
    const spx_matrix *A;
    spx_type precision; /* x and y are double for F64, float for F32 */
} ref_state;

static spx_status ref_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    ref_state *s = NULL;
    spx_status st = spx__params_none(o->params, "ref");
    if (st != SPX_OK) return st;
    st = spx__alloc((void **)&s, 1, sizeof *s, "ref plan");
    if (st != SPX_OK) return st;
    s->A = A;
    s->precision = o->precision;
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
            sum += (long double)spx__val(A, k) * xj;
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

static size_t ref_bytes(const void *state)
{
    (void)state;
    return sizeof(ref_state);
}

static void ref_destroy(void *state) { spx__free(state); }

const spx_format_ops spx__format_ref = {
    .name = "ref",
    .devices = SPX_DEV_CPU,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),
    .analyze = ref_analyze,
    .spmv = ref_spmv,
    .bytes = ref_bytes,
    .destroy = ref_destroy,
    .borrows_matrix = 1,
};
