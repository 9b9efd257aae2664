/* AUTO's degree ordering rule (src/plan/auto_order.c), evaluated on the
 * host (no GPU needed: the rule reads the matrix only): R-MAT past the size
 * floor is ordered; not for another format than auto, a CPU plan, a caller
 * expecting few calls, a matrix under the floor, a matrix without hot
 * columns (the circuit generator), or one whose gathers are local already
 * (a 27-point stencil; NotreDame_www x11 in the shared part). */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "plan/auto_order.h"

static spx_matrix *generated(const char *spec)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate(spec, &A), SPX_OK)) return NULL;
    return A;
}

static spx_plan_opts cuda_auto(void)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.format = "auto";
    return o;
}

static void check_rmat(void)
{
    spx_matrix *A = generated("rmat:scale=19,ef=16,sym=1");
    if (!A) return;
    spx_plan_opts o = cuda_auto();
    CHECK(spx__auto_orders(A, &o) == 1);
    o.format = NULL; /* auto too */
    CHECK(spx__auto_orders(A, &o) == 1);
    o.expected_calls = 20000;
    CHECK(spx__auto_orders(A, &o) == 1);
    o.expected_calls = 100; /* the ordering would not repay its plan time */
    CHECK(spx__auto_orders(A, &o) == 0);
    o = cuda_auto();
    o.format = "dasp";
    CHECK(spx__auto_orders(A, &o) == 0);
    o = cuda_auto();
    o.device = SPX_DEV_CPU;
    CHECK(spx__auto_orders(A, &o) == 0);
    spx_matrix_destroy(A);
}

static void check_not_ordered(void)
{
    static const char *const specs[] = {
        "rmat:scale=16,ef=16,sym=1",                      /* under the size floor */
        "circuit:n=2000000,avg=5,long=20,longlen=200000", /* no hot columns */
        "lap3d27:80",                                     /* gathers local already */
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        spx_matrix *A = generated(specs[i]);
        spx_plan_opts o = cuda_auto();
        if (A && !CHECK(spx__auto_orders(A, &o) == 0)) fprintf(stderr, "  %s ordered\n", specs[i]);
        spx_matrix_destroy(A);
    }
}

static void check_shared(void)
{
    const char *dir = spx_test_matrices_dir();
    char spec[4200];
    if (!dir) return;
    snprintf(spec, sizeof spec, "scale:file=%s/NotreDame_www.mtx,copies=11", dir);
    spx_matrix *A = generated(spec);
    spx_plan_opts o = cuda_auto();
    if (A) CHECK(spx__auto_orders(A, &o) == 0); /* power-law, but local already */
    spx_matrix_destroy(A);
}

int main(void)
{
    if (spx_test_part(NULL)) {
        check_rmat();
        check_not_ordered();
    }
    if (spx_test_part("shared")) check_shared();
    return spx_test_finish();
}
