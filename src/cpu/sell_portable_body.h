/* Portable SELL-C-sigma kernel bodies, stamped out by sell_portable.c twice
 * per value type: for stored values, then with SELL_ISO defined for iso plans
 * (core/iso.h: no values read, the term is x[col] and the caller has folded
 * the one value into alpha). Define SELL_VAL (double or float), SELL_FN and
 * SELL_LONG_FN (the functions' names) before including; the names are
 * undefined after each pass, SELL_VAL and SELL_ISO after the iso pass.
 * Accumulation is in double for both types. Layout: see sell.h. For each
 * chunk, columns j < lo (the chunk's shortest row) are full; columns lo <= j <
 * hi skip lanes whose row has ended.
 */
#ifdef SELL_ISO
#define SELL_TERM(v, k, xk) (xk)
#else
#define SELL_TERM(v, k, xk) ((double)(v)[k] * (xk))
#endif

static void SELL_FN(const spx__sell *S, int64_t c0, int64_t c1, double alpha, const void *xv,
                    double beta, void *yv)
{
#ifndef SELL_ISO
    const SELL_VAL *val = (const SELL_VAL *)S->val;
#endif
    const SELL_VAL *x = (const SELL_VAL *)xv;
    SELL_VAL *y = (SELL_VAL *)yv;
    const int64_t C = S->C;
    double acc[SPX__SELL_CMAX];
    for (int64_t c = c0; c < c1; c++) {
        const int64_t p0 = c * C, lanes = S->rows - p0 < C ? S->rows - p0 : C;
        const int32_t *len = S->rowlen + p0;
        const int32_t *col = S->col + S->chunk_ptr[c];
#ifndef SELL_ISO
        const SELL_VAL *v = val + S->chunk_ptr[c];
#endif
        int64_t lo = len[0], hi = len[0];
        for (int64_t l = 0; l < C; l++) {
            acc[l] = 0.0;
            lo = len[l] < lo ? len[l] : lo;
            hi = len[l] > hi ? len[l] : hi;
        }
        for (int64_t j = 0; j < lo; j++)
            for (int64_t l = 0; l < C; l++)
                acc[l] += SELL_TERM(v, j * C + l, (double)x[col[j * C + l]]);
        for (int64_t j = lo; j < hi; j++)
            for (int64_t l = 0; l < C; l++)
                if (j < len[l]) acc[l] += SELL_TERM(v, j * C + l, (double)x[col[j * C + l]]);
        for (int64_t l = 0; l < lanes; l++) {
            const int64_t r = S->perm ? S->perm[p0 + l] : p0 + l;
            const double t = alpha * acc[l];
            y[r] = (SELL_VAL)(beta == 0.0 ? t : t + beta * (double)y[r]);
        }
    }
}

/* The long rows' pass (sell.h): rows of the slice e0..e1, four partial sums
 * per row to hide the add latency, a prefetch per 8 elements (one line of
 * fp64 values). */
#define SELL_LONG_TERM(e) SELL_TERM(val, e, (double)x[col[e]])
static void SELL_LONG_FN(const spx__sell *S, int64_t e0, int64_t e1, double alpha, const void *xv,
                         void *yv, spx__sell_carry carry[2])
{
#ifndef SELL_ISO
    const SELL_VAL *val = (const SELL_VAL *)S->long_val;
#endif
    const SELL_VAL *x = (const SELL_VAL *)xv;
    SELL_VAL *y = (SELL_VAL *)yv;
    const int32_t *col = S->long_col;
    int64_t k = 0, hi = S->nlong; /* first long row ending after e0 */
    while (k < hi) {
        const int64_t mid = k + (hi - k) / 2;
        if (S->long_ptr[mid + 1] <= e0)
            k = mid + 1;
        else
            hi = mid;
    }
    for (; k < S->nlong && S->long_ptr[k] < e1; k++) {
        const int64_t a = S->long_ptr[k] > e0 ? S->long_ptr[k] : e0;
        const int64_t b = S->long_ptr[k + 1] < e1 ? S->long_ptr[k + 1] : e1;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        int64_t e = a;
        for (; e + 8 <= b; e += 8) {
#ifndef SELL_ISO
            SPX__SELL_PREFETCH(val + e + SPX__SELL_PF_AHEAD);
#endif
            SPX__SELL_PREFETCH(col + e + SPX__SELL_PF_AHEAD);
            if (S->xpf)
                for (int l = 0; l < 8; l++)
                    SPX__SELL_PREFETCH(x + col[e + SPX__SELL_XPF_AHEAD + l]);
            s0 += SELL_LONG_TERM(e) + SELL_LONG_TERM(e + 4);
            s1 += SELL_LONG_TERM(e + 1) + SELL_LONG_TERM(e + 5);
            s2 += SELL_LONG_TERM(e + 2) + SELL_LONG_TERM(e + 6);
            s3 += SELL_LONG_TERM(e + 3) + SELL_LONG_TERM(e + 7);
        }
        for (; e < b; e++)
            s0 += SELL_LONG_TERM(e);
        const double add = alpha * ((s0 + s1) + (s2 + s3));
        const int cut_left = S->long_ptr[k] < e0, cut_right = S->long_ptr[k + 1] > e1;
        if (cut_left || cut_right)
            carry[cut_left ? 0 : 1] = (spx__sell_carry){S->long_row[k], add};
        else
            y[S->long_row[k]] += (SELL_VAL)add;
    }
}

#undef SELL_FN
#undef SELL_LONG_FN
#undef SELL_TERM
#undef SELL_LONG_TERM
#ifdef SELL_ISO
#undef SELL_ISO
#undef SELL_VAL
#endif
