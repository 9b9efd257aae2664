/* spx_matrix_wrap: caller's CSR arrays of every index width and value type,
 * values and 32-bit columns used in place (at the caller's addresses),
 * 32-bit row offsets widened and 64-bit columns of a narrow matrix narrowed
 * into copies; products right; bad arrays refused like every constructor. */
#include <string.h>

#include "common.h"

/* [1 0 2; 0 0 0; 3 4 0] */
static const int64_t rp64[] = {0, 2, 2, 4};
static const int32_t rp32[] = {0, 2, 2, 4};
static const int32_t ci32[] = {0, 2, 0, 1};
static const int64_t ci64[] = {0, 2, 0, 1};
static const double v64[] = {1, 2, 3, 4};
static const float v32[] = {1, 2, 3, 4};

static void check_product(const spx_matrix *A)
{
    spx_plan *P = NULL;
    double x[3] = {1, 10, 100}, y[3] = {-1, -1, -1};
    if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, NULL, &P), SPX_OK)) return;
    CHECK_STATUS(spx_spmv(P, 1.0, x, 0.0, y), SPX_OK);
    CHECK(y[0] == 201 && y[1] == 0 && y[2] == 43);
    spx_plan_destroy(P);
}

static void test_every_width(void)
{
    for (int rb = 32; rb <= 64; rb += 32)
        for (int cb = 32; cb <= 64; cb += 32)
            for (int t = 0; t < 2; t++) {
                spx_matrix *A = NULL;
                const void *rp = rb == 32 ? (const void *)rp32 : (const void *)rp64;
                const void *ci = cb == 32 ? (const void *)ci32 : (const void *)ci64;
                const void *v = t == 0 ? (const void *)v64 : (const void *)v32;
                if (!CHECK_STATUS(spx_matrix_wrap(3, 3, rp, rb, ci, cb, v, t == 0 ? SPX_F64 : SPX_F32,
                                                  &A),
                                  SPX_OK))
                    continue;
                const int64_t *arp;
                const void *aci, *av;
                int bits;
                spx_type vt;
                spx_matrix_csr(A, &arp, &aci, &bits, &av, &vt);
                CHECK(av == v && bits == 32); /* narrow: 64-bit columns narrowed */
                CHECK(cb == 32 ? aci == ci : aci != ci);
                CHECK(rb == 32 ? arp != rp64 && arp[3] == 4 : arp == rp64);
                CHECK(vt == (t == 0 ? SPX_F64 : SPX_F32));
                check_product(A);
                spx_matrix_destroy(A);
            }
}

static void test_refusals(void)
{
    spx_matrix *A = (spx_matrix *)&A;
    const int32_t unsorted[] = {2, 0, 0, 1}, dup[] = {0, 0, 0, 1}, far[] = {0, 3, 0, 1};
    const int32_t bad_rp[] = {0, 2, 1, 4}; /* row 1 ends before it starts */
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, unsorted, 32, v64, SPX_F64, &A), SPX_ERR_UNSORTED);
    CHECK(A == NULL);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, dup, 32, v64, SPX_F64, &A), SPX_ERR_DUPLICATE);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, far, 32, v64, SPX_F64, &A), SPX_ERR_INDEX_RANGE);
    CHECK_STATUS(spx_matrix_wrap(3, 3, bad_rp, 32, ci32, 32, v64, SPX_F64, &A), SPX_ERR_BAD_ROWPTR);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 16, ci32, 32, v64, SPX_F64, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, ci32, 32, v64, SPX_F16, &A), SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_matrix_wrap(3, 3, NULL, 32, ci32, 32, v64, SPX_F64, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, NULL, 32, v64, SPX_F64, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, ci32, 32, v64, SPX_F64, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap(1, (int64_t)1 << 33, rp32, 32, ci32, 32, v64, SPX_F64, &A),
                 SPX_ERR_UNSUPPORTED);
}

int main(void)
{
    test_every_width();
    test_refusals();
    return spx_test_finish();
}
