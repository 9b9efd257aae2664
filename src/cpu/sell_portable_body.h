/* Portable SELL-C-sigma kernel body, stamped out once per value type by
 * sell_portable.c: define SELL_VAL (double or float) and SELL_FN (the
 * function's name) before including; both are undefined at the end. Accumulation is in double for both
 * types. Layout: see sell.h. For each chunk, columns j < lo (the chunk's
 * shortest row) are full; columns lo <= j < hi skip lanes whose row has ended.
 */
static void SELL_FN(const spx__sell *S, int64_t c0, int64_t c1, double alpha,
                    const void *xv, double beta, void *yv)
{
    const SELL_VAL *val = (const SELL_VAL *)S->val;
    const SELL_VAL *x = (const SELL_VAL *)xv;
    SELL_VAL *y = (SELL_VAL *)yv;
    const int64_t C = S->C;
    double acc[SPX__SELL_CMAX];
    for (int64_t c = c0; c < c1; c++) {
        const int64_t p0 = c * C, lanes = S->rows - p0 < C ? S->rows - p0 : C;
        const int32_t *len = S->rowlen + p0;
        const int32_t *col = S->col + S->chunk_ptr[c];
        const SELL_VAL *v = val + S->chunk_ptr[c];
        int64_t lo = len[0], hi = len[0];
        for (int64_t l = 0; l < C; l++) {
            acc[l] = 0.0;
            lo = len[l] < lo ? len[l] : lo;
            hi = len[l] > hi ? len[l] : hi;
        }
        for (int64_t j = 0; j < lo; j++)
            for (int64_t l = 0; l < C; l++)
                acc[l] += (double)v[j * C + l] * (double)x[col[j * C + l]];
        for (int64_t j = lo; j < hi; j++)
            for (int64_t l = 0; l < C; l++)
                if (j < len[l]) acc[l] += (double)v[j * C + l] * (double)x[col[j * C + l]];
        for (int64_t l = 0; l < lanes; l++) {
            const int64_t r = S->perm ? S->perm[p0 + l] : p0 + l;
            const double t = alpha * acc[l];
            y[r] = (SELL_VAL)(beta == 0.0 ? t : t + beta * (double)y[r]);
        }
    }
}

#undef SELL_VAL
#undef SELL_FN
