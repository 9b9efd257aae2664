/* SIMD SELL-C-sigma kernel body, stamped out per ISA and value type by
 * sell_avx2.c and sell_avx512.c, twice per type: for stored values, then with
 * SELL_ISO defined for iso plans (core/iso.h: no values read, acc += x[col],
 * the one value folded into alpha by the caller; fma(1, g, acc) and acc + g
 * round alike, so a value of 1 gives the stored kernel's bits). The includer
 * defines:
 *   SELL_FN          the function's name (undefined after each pass)
 *   SELL_ISO         for the second pass
 *   SELL_VAL         double or float (accumulation is in SELL_VAL)
 *   SELL_W           lanes per vector; C is a multiple of it
 *   SELL_VEC, SELL_IDX, SELL_MASK          vector, W x int32, lane mask types
 *   SELL_ZERO()                            all-zero vector
 *   SELL_LOAD(p), SELL_STORE(p, v)         W values (unaligned)
 *   SELL_LOAD_IDX(p)                       W int32
 *   SELL_GT(len, j)                        lanes with len > j
 *   SELL_GATHER_MASK(m, i, x)              x[i] in lanes of m, 0 elsewhere
 *   SELL_FMA(a, b, acc)                    a*b + acc
 *   SELL_ADD(a, b)                         a + b
 * The iso pass undefines them all at its end, ready for the next type.
 * Layout: see sell.h. A chunk is C/W vector groups; each group runs the
 * chunk's columns with a mask of the lanes whose row is still going, so that
 * no padding entry loads x (a masked gather costs what a full one does).
 * Each column step prefetches val and col SPX__SELL_PF_AHEAD elements ahead
 * (one line of fp64 values at C = 8; sell.h).
 */
static void SELL_FN(const spx__sell *S, int64_t c0, int64_t c1, double alpha, const void *xv,
                    double beta, void *yv)
{
#ifndef SELL_ISO
    const SELL_VAL *val = (const SELL_VAL *)S->val;
#endif
    const SELL_VAL *x = (const SELL_VAL *)xv;
    SELL_VAL *y = (SELL_VAL *)yv;
    const int64_t C = S->C;
    const int xpf = S->xpf;
    SELL_VAL out[SELL_W];
    for (int64_t c = c0; c < c1; c++) {
        for (int64_t g = 0; g < C; g += SELL_W) {
            const int64_t p0 = c * C + g;
            const int64_t lanes = S->rows - p0 < SELL_W ? S->rows - p0 : SELL_W;
            if (lanes <= 0) break;
            const int32_t *len = S->rowlen + p0;
            const int32_t w = (int32_t)((S->chunk_ptr[c + 1] - S->chunk_ptr[c]) / C);
            const int32_t *col = S->col + S->chunk_ptr[c] + g;
#ifndef SELL_ISO
            const SELL_VAL *v = val + S->chunk_ptr[c] + g;
#endif
            const SELL_IDX lenv = SELL_LOAD_IDX(len);
            SELL_VEC acc = SELL_ZERO();
            for (int32_t j = 0; j < w; j++) {
#ifndef SELL_ISO
                SPX__SELL_PREFETCH(v + j * C + SPX__SELL_PF_AHEAD);
#endif
                SPX__SELL_PREFETCH(col + j * C + SPX__SELL_PF_AHEAD);
                if (xpf)
                    for (int l = 0; l < SELL_W; l++)
                        SPX__SELL_PREFETCH(x + col[j * C + SPX__SELL_XPF_AHEAD + l]);
                const SELL_MASK m = SELL_GT(lenv, j);
                const SELL_VEC xg = SELL_GATHER_MASK(m, SELL_LOAD_IDX(col + j * C), x);
#ifdef SELL_ISO
                acc = SELL_ADD(acc, xg);
#else
                acc = SELL_FMA(SELL_LOAD(v + j * C), xg, acc);
#endif
            }
            SELL_STORE(out, acc);
            for (int64_t l = 0; l < lanes; l++) {
                const int64_t r = S->perm ? S->perm[p0 + l] : p0 + l;
                const double t = alpha * (double)out[l];
                y[r] = (SELL_VAL)(beta == 0.0 ? t : t + beta * (double)y[r]);
            }
        }
    }
}

#undef SELL_FN
#ifdef SELL_ISO
#undef SELL_ISO
#undef SELL_VAL
#undef SELL_W
#undef SELL_VEC
#undef SELL_IDX
#undef SELL_MASK
#undef SELL_ZERO
#undef SELL_LOAD
#undef SELL_STORE
#undef SELL_LOAD_IDX
#undef SELL_GT
#undef SELL_GATHER_MASK
#undef SELL_FMA
#undef SELL_ADD
#endif
