/* sym's row kernel (sym.c), included once per value type: SYM_FN (the name)
 * and SYM_VAL (double or float); both are undefined at the end.
 *
 * Rows [r0, r1) of L, for each row i:
 *   y_i = alpha * (sum_{j<i} l_ij x_j + d_i x_i) + beta * y_i    (beta 0: y not read)
 * and each mirror term l_ij * (alpha x_i) added to y_j when j >= r0 (row j,
 * the thread's own, was written earlier in the pass: rows go up) and to
 * buf[j - lo] when j < r0 (the thread's buffer over [lo, r0)). A row's sum
 * takes its entries in order, then the diagonal's term.
 *
 * Software prefetch (a->prefetch entries of L ahead, 0: none, the default):
 * one per cache line of values (and of columns, twice as dense), from a
 * running position, as csr's kernel does.
 *
 * Scalar on purpose: an AVX-512 kernel (x and y gathered, y scattered, the
 * last vector masked) ran 1.2-1.7x slower than this one on the 2-core
 * AVX-512 VM, and 1.1-1.5x slower with the gathers alone (the 27- and
 * 7-point Laplacians of 64^3 and 100^3: rows of L of 13 and 3 entries). */
static void SYM_FN(const sym_args *a, int64_t r0, int64_t r1, void *bufv, int64_t lo)
{
    const int64_t ahead = a->prefetch, last = a->rowptr[r1];
    int64_t pf = a->rowptr[r0] + ahead; /* next entry of L to prefetch */
    const int64_t *restrict rp = a->rowptr;
    const int32_t *restrict col = a->col;
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
            SYM_PREFETCH(col + pf);
        }
        for (; k < e && col[k] < r0; k++) { /* mirror terms below the thread's rows */
            sum += val[k] * x[col[k]];
            buf[col[k] - lo] += val[k] * axi;
        }
        for (; k < e; k++) {
            sum += val[k] * x[col[k]];
            y[col[k]] += val[k] * axi;
        }
        sum += diag[i] * xi;
        y[i] = beta == 0 ? alpha * sum : alpha * sum + beta * y[i];
    }
}

#undef SYM_FN
#undef SYM_VAL
