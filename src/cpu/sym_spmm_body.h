/* sym's SpMM row kernel (sym.c), included once per value type: SYM_FN (the
 * name) and SYM_VAL (double or float); both are undefined at the end.
 *
 * Rows [r0, r1) of L for Y = alpha A X + beta Y, X and Y row-major (k
 * columns, leading dimensions ldx and ldy): for each row i,
 *   Y(i, :) = alpha * (sum_{j<i} l_ij X(j, :) + d_i X(i, :)) + beta * Y(i, :)
 *   (beta 0: Y(i, :) not read), and each mirror term l_ij * alpha X(i, :) added
 * to Y(j, :) when j >= r0 (a row the thread wrote earlier in the pass) or to
 * the buffer's row j - lo (k wide) when j < r0: sym_body.h's pass a column
 * at a time, the k columns side by side. acc and ax: the thread's two rows
 * of k sums and alpha X(i, :). */
static void SYM_FN(const sym_mm_args *a, int64_t r0, int64_t r1, void *bufv, int64_t lo,
                   SYM_VAL *restrict acc, SYM_VAL *restrict ax)
{
    const int64_t *restrict rp = a->rowptr;
    const int32_t *restrict col = a->col;
    const SYM_VAL *restrict val = a->val, *restrict diag = a->diag, *restrict X = a->X;
    SYM_VAL *restrict Y = a->Y, *restrict buf = bufv;
    const int64_t k = a->k, ldx = a->ldx, ldy = a->ldy;
    const SYM_VAL alpha = (SYM_VAL)a->alpha, beta = (SYM_VAL)a->beta;
    for (int64_t i = r0; i < r1; i++) {
        const SYM_VAL *restrict xi = X + i * ldx;
#pragma omp simd
        for (int64_t c = 0; c < k; c++) {
            acc[c] = 0;
            ax[c] = alpha * xi[c];
        }
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            const int64_t j = col[e];
            const SYM_VAL v = val[e], *restrict xj = X + j * ldx;
            SYM_VAL *restrict to = j >= r0 ? Y + j * ldy : buf + (j - lo) * k;
#pragma omp simd
            for (int64_t c = 0; c < k; c++) {
                acc[c] += v * xj[c];
                to[c] += v * ax[c];
            }
        }
        SYM_VAL *restrict yi = Y + i * ldy;
        const SYM_VAL d = diag[i];
        if (beta == 0) {
#pragma omp simd
            for (int64_t c = 0; c < k; c++)
                yi[c] = alpha * (acc[c] + d * xi[c]);
        } else {
#pragma omp simd
            for (int64_t c = 0; c < k; c++)
                yi[c] = alpha * (acc[c] + d * xi[c]) + beta * yi[c];
        }
    }
}

#undef SYM_FN
#undef SYM_VAL
