/* SpMM row kernels (spmm.h), included once per (value type, column type) by
 * spmm_portable.c, spmm_avx2.c and spmm_avx512.c, which the build compiles
 * for their instruction set: SPMM_FN (name prefix), SPMM_VAL (double or
 * float), SPMM_IDX (int32_t or int64_t), SPMM_TILE (columns a tile), all
 * undefined at the end.
 *
 * A tile's sums live in a local array of SPMM_TILE; a full tile has a
 * constant trip count, so the compiler keeps it in vector registers, the
 * last partial tile takes the same loop with a variable count. */
#define SPMM_CAT2(a, b) a##b
#define SPMM_CAT(a, b) SPMM_CAT2(a, b)
#define SPMM_TILE_SUM SPMM_CAT(SPMM_FN, _tile)
#define SPMM_ROWS SPMM_CAT(SPMM_FN, _rows)
#define SPMM_SLICE SPMM_CAT(SPMM_FN, _slice)

/* sum[j] = sum over e in [b, e1) of a_e * X(col_e, j0 + j), j < n (n <= SPMM_TILE). */
static inline void SPMM_TILE_SUM(const spx__spmm_args *a, int64_t b, int64_t e1, int64_t j0,
                                 int64_t n, SPMM_VAL *restrict sum)
{
    const SPMM_IDX *restrict col = a->col;
    const SPMM_VAL *restrict val = a->val;
    const SPMM_VAL *restrict X = (const SPMM_VAL *)a->X + j0;
    for (int64_t j = 0; j < SPMM_TILE; j++)
        sum[j] = 0;
    if (n == SPMM_TILE) {
        for (int64_t e = b; e < e1; e++) {
            const SPMM_VAL v = val ? val[e] : (SPMM_VAL)1;
            const SPMM_VAL *restrict xr = X + (int64_t)col[e] * a->ldx;
#pragma omp simd
            for (int64_t j = 0; j < SPMM_TILE; j++)
                sum[j] += v * xr[j];
        }
    } else {
        for (int64_t e = b; e < e1; e++) {
            const SPMM_VAL v = val ? val[e] : (SPMM_VAL)1;
            const SPMM_VAL *restrict xr = X + (int64_t)col[e] * a->ldx;
#pragma omp simd
            for (int64_t j = 0; j < n; j++)
                sum[j] += v * xr[j];
        }
    }
}

static int64_t SPMM_CAT(SPMM_FN, _off)(const spx__spmm_args *a, int64_t i)
{
    return a->row_bits == 32 ? (int64_t)((const int32_t *)a->rowptr)[i]
                             : ((const int64_t *)a->rowptr)[i];
}

static void SPMM_ROWS(const spx__spmm_args *a, int64_t i0, int64_t i1)
{
    SPMM_VAL sum[SPMM_TILE];
    const SPMM_VAL alpha = (SPMM_VAL)a->alpha, beta = (SPMM_VAL)a->beta;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t b = SPMM_CAT(SPMM_FN, _off)(a, i), e = SPMM_CAT(SPMM_FN, _off)(a, i + 1);
        if (e - b > a->long_len) continue;
        SPMM_VAL *restrict y = (SPMM_VAL *)a->Y + i * a->ldy;
        for (int64_t j0 = 0; j0 < a->k; j0 += SPMM_TILE) {
            const int64_t n = a->k - j0 < SPMM_TILE ? a->k - j0 : SPMM_TILE;
            SPMM_TILE_SUM(a, b, e, j0, n, sum);
            if (a->beta == 0.0)
                for (int64_t j = 0; j < n; j++)
                    y[j0 + j] = alpha * sum[j];
            else
                for (int64_t j = 0; j < n; j++)
                    y[j0 + j] = alpha * sum[j] + beta * y[j0 + j];
        }
    }
}

static void SPMM_SLICE(const spx__spmm_args *a, int64_t b, int64_t e, double *out)
{
    SPMM_VAL sum[SPMM_TILE];
    for (int64_t j0 = 0; j0 < a->k; j0 += SPMM_TILE) {
        const int64_t n = a->k - j0 < SPMM_TILE ? a->k - j0 : SPMM_TILE;
        SPMM_TILE_SUM(a, b, e, j0, n, sum);
        for (int64_t j = 0; j < n; j++)
            out[j0 + j] = (double)sum[j];
    }
}

#undef SPMM_ROWS
#undef SPMM_SLICE
#undef SPMM_TILE_SUM
#undef SPMM_CAT
#undef SPMM_CAT2
#undef SPMM_FN
#undef SPMM_VAL
#undef SPMM_IDX
#undef SPMM_TILE
