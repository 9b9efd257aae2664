/* CSR SpMV body, included by csr_kernels.h once per (value type, column
 * index type, values): SPX_VAL (double or float), SPX_IDX (int32_t or
 * int64_t), SPX_FN (the name), and SPX_ISO defined for the iso body; all are
 * undefined at the end, ready for the next one. SPX_OFF, the row offsets'
 * type (int64_t, or int32_t for a caller's 32-bit offsets read in place), is
 * left to csr_kernels.h.
 *
 * y[i] = alpha * sum_k val[k] * x[col[k]] + beta * y[i], rows rowptr[i]..rowptr[i+1].
 * The iso body (core/iso.h) reads no values: y[i] = alpha * sum_k x[col[k]] +
 * beta * y[i], the caller having folded the matrix's one value into alpha; its
 * sums run in the stored body's order, so with a value of 1 (or a power of
 * two) both give the same bits.
 * Thread t writes the rows it owns, [part[t], part[t+1]), except long rows,
 * which every thread sums a slice of (partial[l*T + t], the caller's buffer) and one thread
 * combines in thread order: the result depends on T but not on scheduling.
 *
 * Software prefetch: val and col are read CSR_PF_AHEAD elements ahead of the
 * sum, one prefetch per cache line: a thread's rows of up to CSR_PF_BLOCK
 * elements share one running prefetch position (on rows of 4 elements a
 * prefetch loop per row cost 1.35x on a matrix whose x misses the cache),
 * longer rows and slices prefetch block by block. The hardware prefetchers
 * stop at each 4 KiB page, which cost 10-35% on matrices larger than the cache
 * (bench/results/cpu-large-2026-11-22.md). */
#define CSR_CAT2(a, b) a##b
#define CSR_CAT(a, b) CSR_CAT2(a, b)
#define CSR_DOT CSR_CAT(SPX_FN, _dot)
/* Elements per prefetch: one line of the wider of the arrays read; the term
 * of element k, and the prefetch of element p. */
#ifdef SPX_ISO
#define CSR_PF_STEP (CSR_LINE / (int64_t)sizeof(SPX_IDX))
#define CSR_TERM(k) x[col[k]]
#define CSR_PF(p) CSR_PREFETCH(col + (p))
#else
#define CSR_PF_STEP                                                                                \
    (CSR_LINE / (int64_t)(sizeof(SPX_VAL) > sizeof(SPX_IDX) ? sizeof(SPX_VAL) : sizeof(SPX_IDX)))
#define CSR_TERM(k) val[k] * x[col[k]]
#define CSR_PF(p) (CSR_PREFETCH(val + (p)), CSR_PREFETCH(col + (p)))
#endif

/* sum of the terms for k in [b, e); nnz bounds the prefetches. */
static inline SPX_VAL CSR_DOT(const SPX_VAL *restrict val, const SPX_IDX *restrict col,
                              const SPX_VAL *restrict x, int64_t b, int64_t e, int64_t nnz)
{
    SPX_VAL sum = 0;
    (void)val; /* not read by the iso body */
    for (int64_t k0 = b; k0 < e; k0 += CSR_PF_BLOCK) {
        const int64_t k1 = e - k0 > CSR_PF_BLOCK ? k0 + CSR_PF_BLOCK : e;
        const int64_t p1 = k1 + CSR_PF_AHEAD < nnz ? k1 + CSR_PF_AHEAD : nnz;
        for (int64_t p = k0 + CSR_PF_AHEAD; p < p1; p += CSR_PF_STEP)
            CSR_PF(p);
#pragma omp simd reduction(+ : sum)
        for (int64_t k = k0; k < k1; k++)
            sum += CSR_TERM(k);
    }
    return sum;
}

static void SPX_FN(const csr_state *s, double alpha, const void *xv, double beta, void *yv,
                   double *restrict partial)
{
    const SPX_VAL *restrict x = xv;
    SPX_VAL *restrict y = yv;
    const SPX_OFF *restrict rp = s->rowptr;
    const SPX_IDX *restrict col = s->colidx;
    const SPX_VAL *restrict val = s->values;
    const int T = s->threads;
    const int64_t nnz = rp[s->rows];
#pragma omp parallel num_threads(T)
    {
        int nt = omp_get_num_threads();
        for (int t = omp_get_thread_num(); t < T; t += nt) {
            int64_t pf = 0; /* next element to prefetch for the short rows */
            for (int64_t i = s->part[t]; i < s->part[t + 1]; i++) {
                const int64_t b = rp[i], e = rp[i + 1];
                if (e - b > s->long_len) continue;
                SPX_VAL sum = 0;
                if (e - b > CSR_PF_BLOCK) {
                    sum = CSR_DOT(val, col, x, b, e, nnz);
                } else {
                    const int64_t pe = e + CSR_PF_AHEAD < nnz ? e + CSR_PF_AHEAD : nnz;
                    for (pf = pf > b + CSR_PF_AHEAD ? pf : b + CSR_PF_AHEAD; pf < pe;
                         pf += CSR_PF_STEP)
                        CSR_PF(pf);
#pragma omp simd reduction(+ : sum)
                    for (int64_t k = b; k < e; k++)
                        sum += CSR_TERM(k);
                }
                y[i] = beta == 0.0 ? (SPX_VAL)(alpha * sum) : (SPX_VAL)(alpha * sum + beta * y[i]);
            }
            for (int64_t l = 0; l < s->nlong; l++) {
                int64_t i = s->long_rows[l], len = (int64_t)rp[i + 1] - rp[i];
                int64_t b = rp[i] + len * t / T, e = rp[i] + len * (t + 1) / T;
                partial[l * T + t] = CSR_DOT(val, col, x, b, e, nnz);
            }
        }
#pragma omp barrier
#pragma omp for
        for (int64_t l = 0; l < s->nlong; l++) {
            int64_t i = s->long_rows[l];
            double sum = 0.0;
            for (int t = 0; t < T; t++)
                sum += partial[l * T + t];
            y[i] = beta == 0.0 ? (SPX_VAL)(alpha * sum) : (SPX_VAL)(alpha * sum + beta * y[i]);
        }
    }
}
#undef CSR_DOT
#undef CSR_PF_STEP
#undef CSR_TERM
#undef CSR_PF
#undef CSR_CAT
#undef CSR_CAT2
#undef SPX_FN
#undef SPX_VAL
#undef SPX_IDX
#undef SPX_ISO
