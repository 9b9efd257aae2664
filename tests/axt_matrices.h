/* Test matrices of the CUDA AXC / AXT tests (test_cuda_axt_build.c, the
 * host side, and test_gpu_axt.c): rows of given lengths with random values
 * in [-1, 1) and columns spread over n, and random row lengths. */
#ifndef SPX_TESTS_AXT_MATRICES_H
#define SPX_TESTS_AXT_MATRICES_H

#include <stdlib.h>

#include "common.h"

/* m x n, row i of len[i] <= n entries, one in each of len[i] equal column bands. */
static spx_matrix *axt_rows_of(const int64_t *len, int64_t m, int64_t n, uint64_t seed)
{
    int64_t *rp = malloc(((size_t)m + 1) * sizeof *rp);
    rp[0] = 0;
    for (int64_t i = 0; i < m; i++)
        rp[i + 1] = rp[i] + len[i];
    int32_t *ci = malloc(((size_t)rp[m] + 1) * sizeof *ci);
    double *v = malloc(((size_t)rp[m] + 1) * sizeof *v);
    for (int64_t i = 0; i < m; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            const int64_t w = n / len[i];
            ci[k] = (int32_t)((k - rp[i]) * w +
                              (int64_t)((spx_test_rand(&seed) + 1.0) * 0.49 * (double)w));
            v[k] = spx_test_rand(&seed);
        }
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(m, n, rp, ci, v, &A), SPX_OK);
    free(rp), free(ci), free(v);
    return A;
}

/* m x n, rows of 0..max_len entries, every 7th (from row 3) empty. */
static spx_matrix *axt_random_rows(int64_t m, int64_t n, int64_t max_len, uint64_t seed)
{
    int64_t *len = malloc(((size_t)m + 1) * sizeof *len);
    for (int64_t i = 0; i < m; i++) {
        len[i] = i % 7 == 3 ? 0 : (int64_t)((spx_test_rand(&seed) + 1.0) * 0.5 * (double)max_len);
        if (len[i] > n) len[i] = n;
    }
    spx_matrix *A = axt_rows_of(len, m, n, seed);
    free(len);
    return A;
}

/* Edge case i (0, 1, ...; NULL past the last) and its name: a 4 x 5 hand
 * matrix (row 1 empty, row 3 dense), no entries (3 x 0, 0 x 3, 3 x 3), rows
 * of 0..100,000 entries, one dense row among short ones, rectangular. */
static spx_matrix *axt_edge_case(int i, const char **what)
{
    static const int64_t rp[] = {0, 2, 2, 3, 8}, rp0[] = {0, 0, 0, 0};
    static const int32_t ci[] = {0, 3, 4, 0, 1, 2, 3, 4};
    static const double v[] = {1, -2, 3.5, 0.25, 1, -1, 2, 0.5};
    static const int64_t lens[] = {0,   1,   2,    3,    31,   32,   33,   63, 64,     65,
                                   100, 255, 1000, 1023, 1024, 1025, 4097, 0,  100000, 3,
                                   0,   1,   5,    7,    2048, 17,   1,    0,  9,      2};
    static const int64_t dense[] = {3, 0, 5000, 2, 0};
    static const int64_t shapes[3][2] = {{3, 0}, {0, 3}, {3, 3}};
    spx_matrix *A = NULL;
    switch (i) {
    case 0:
        *what = "hand 4x5";
        CHECK_STATUS(spx_matrix_create_csr(4, 5, rp, ci, v, &A), SPX_OK);
        return A;
    case 1:
    case 2:
    case 3:
        *what = "no entries";
        CHECK_STATUS(spx_matrix_create_csr(shapes[i - 1][0], shapes[i - 1][1], rp0, ci, NULL, &A),
                     SPX_OK);
        return A;
    case 4: *what = "rows of 0..100000"; return axt_rows_of(lens, 30, 100001, 7);
    case 5: *what = "one dense row"; return axt_rows_of(dense, 5, 5000, 9);
    case 6: *what = "rectangular 300x7000"; return axt_random_rows(300, 7000, 400, 3);
    case 7: *what = "rectangular 7000x300"; return axt_random_rows(7000, 300, 12, 4);
    default: *what = NULL; return NULL;
    }
}

#endif
