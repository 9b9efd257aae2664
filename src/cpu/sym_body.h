/* sym's row kernel (sym.c), included once per value type and column form:
 * SYM_FN (the name), SYM_VAL (double or float), and SYM_IDX, the type of
 * a->cols: int32_t for columns, uint16_t for distances to the diagonal
 * (column j of row i stored as i - j, 1..65535); all are undefined at the
 * end.
 *
 * Rows [r0, r1) of L, for each row i:
 *   y_i = alpha * (sum_{j<i} l_ij x_j + d_i x_i) + beta * y_i    (beta 0: y not read)
 * and each mirror term l_ij * (alpha x_i) added to y_j when j >= r0 (row j,
 * the thread's own, was written earlier in the pass: rows go up) and to
 * buf[j - lo] when j < r0 (the thread's buffer over [lo, r0)). A row's sum
 * takes its entries in order, then the diagonal's term.
 *
 * Software prefetch (a->prefetch entries of L ahead, 0: none): one per cache
 * line of values (and of columns, twice as dense), from a running position,
 * as csr's kernel does, since the hardware prefetchers stop at each 4 KiB page.
 *
 * Scalar on purpose: an AVX-512 kernel (x and y gathered, y scattered, the
 * last vector masked) ran 1.2-1.7x slower than this one on the 2-core
 * AVX-512 VM, and 1.1-1.5x slower with the gathers alone (the 27- and
 * 7-point Laplacians of 64^3 and 100^3: rows of L of 13 and 3 entries). */
#define SYM_IS_DIST(t) _Generic((t)0, uint16_t : 1, default : 0)
/* Column of entry k of row i. */
#define SYM_COL(k) (SYM_IS_DIST(SYM_IDX) ? i - (int64_t)cols[k] : (int64_t)cols[k])

static void SYM_FN(const sym_args *a, int64_t r0, int64_t r1, void *bufv, int64_t lo)
{
    const int64_t ahead = a->prefetch, last = a->rowptr[r1];
    int64_t pf = a->rowptr[r0] + ahead; /* next entry of L to prefetch */
    const int64_t *restrict rp = a->rowptr;
    const SYM_IDX *restrict cols = a->cols;
    const SYM_VAL *restrict val = a->val, *restrict diag = a->diag, *restrict x = a->x;
    SYM_VAL *restrict y = a->y, *restrict buf = bufv;
    const SYM_VAL alpha = (SYM_VAL)a->alpha, beta = (SYM_VAL)a->beta;
    for (int64_t i = r0; i < r1; i++) {
        const SYM_VAL xi = x[i], axi = alpha * xi;
        SYM_VAL sum = 0;
        int64_t k = rp[i];
        const int64_t e = rp[i + 1];
        for (; ahead && pf < e + ahead && pf < last; pf += SYM_LINE / (int64_t)sizeof(SYM_VAL)) {
            SYM_PREFETCH(val + pf);
            SYM_PREFETCH(cols + pf);
        }
        for (; k < e && SYM_COL(k) < r0; k++) { /* mirror terms below the thread's rows */
            sum += val[k] * x[SYM_COL(k)];
            buf[SYM_COL(k) - lo] += val[k] * axi;
        }
        for (; k < e; k++) {
            sum += val[k] * x[SYM_COL(k)];
            y[SYM_COL(k)] += val[k] * axi;
        }
        sum += diag[i] * xi;
        y[i] = beta == 0 ? alpha * sum : alpha * sum + beta * y[i];
    }
}

#undef SYM_COL
#undef SYM_IS_DIST
#undef SYM_FN
#undef SYM_VAL
#undef SYM_IDX
