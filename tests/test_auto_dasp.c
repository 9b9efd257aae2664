/* AUTO's choice of dasp for CUDA SpMV (dasp_suits in
 * src/cuda/dasp/dasp_format.c), evaluated on the host: the rule reads the
 * matrix only, so no GPU is needed, only a build with the CUDA formats.
 * R-MAT (hot columns) goes to dasp; the power-law generator, with rows as
 * long and as spread but uniform columns, does not; nor does R-MAT when the
 * caller expects too few calls to repay dasp's preparation. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "core/matrix.h"
#include "core/order.h"
#include "plan/format.h"

static const char *auto_pick(const spx_matrix *A, spx_type t, long expected_calls)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.precision = t;
    o.expected_calls = expected_calls;
    const spx_format_ops *f = spx__auto_format(A, SPX_OP_SPMV, &o);
    return f ? f->name : "(none)";
}

static void check_pick(const char *spec, const char *want_f64, const char *want_f16)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate(spec, &A), SPX_OK)) return;
    const char *f64 = auto_pick(A, SPX_F64, 0), *f16 = auto_pick(A, SPX_F16, 0);
    if (!CHECK(strcmp(f64, want_f64) == 0) || !CHECK(strcmp(f16, want_f16) == 0))
        fprintf(stderr, "  %s: AUTO picked %s (f64), %s (f16); hot share %.3f (sampled %.3f)\n",
                spec, f64, f16, spx__hot_share(A, 0), spx__hot_share_sampled(A, 1 << 20));
    spx_matrix_destroy(A);
}

static void check_few_calls(void)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate("rmat:scale=17,ef=16,sym=1", &A), SPX_OK)) return;
    CHECK(strcmp(auto_pick(A, SPX_F64, 100), "dasp") != 0);
    spx_matrix_destroy(A);
}

/* The share exact and sampled (as dasp_suits samples: 4 entries a column at
 * least): R-MAT's hot columns either way, the power-law generator's chance
 * share kept low, every entry counted when the samples cover them all. */
static void check_hot_share(void)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate("rmat:scale=17,ef=16,sym=1", &A), SPX_OK)) return;
    const double rmat = spx__hot_share(A, 0), rmat_sampled = spx__hot_share_sampled(A, 1 << 20);
    CHECK(rmat > 0.3 && rmat < 0.6);
    CHECK(rmat_sampled > rmat - 0.02 && rmat_sampled < rmat + 0.02);
    CHECK(spx__hot_share_sampled(A, A->nnz) == rmat);
    spx_matrix_destroy(A);
    if (!CHECK_STATUS(spx_generate("powerlaw:n=500000,avg=16,alpha=2.1", &A), SPX_OK)) return;
    const double even = spx__hot_share(A, 0), even_sampled = spx__hot_share_sampled(A, 4 * A->cols);
    CHECK(even > 0.0 && even < 0.03);
    CHECK(even_sampled > 0.0 && even_sampled < 0.05);
    spx_matrix_destroy(A);
    if (!CHECK_STATUS(spx_generate("lap3d7:20", &A), SPX_OK)) return;
    const double stencil = spx__hot_share(A, 0); /* 80 of 8000 columns, 7 entries or fewer each */
    CHECK(stencil > 0.0 && stencil <= 7.0 * 80 / (double)A->nnz + 1e-12);
    spx_matrix_destroy(A);
}

int main(void)
{
    check_hot_share();
    if (!spx__format_find("dasp", SPX_OP_SPMV, SPX_DEV_CUDA, SPX_F64)) {
        spx_test_skip("dasp is not built (no CUDA formats)");
        return spx_test_finish();
    }
    check_pick("rmat:scale=17,ef=16,sym=1,values=random", "dasp", "dasp");
    check_pick("powerlaw:n=500000,avg=16,alpha=2.1", "csr", "csr");
    check_few_calls();
    return spx_test_finish();
}
