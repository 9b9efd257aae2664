/* CSR SpMV body, included by csr.c once per (value type, column index type):
 * SPX_VAL (double or float), SPX_IDX (int32_t or int64_t), SPX_FN (the name).
 *
 * y[i] = alpha * sum_k val[k] * x[col[k]] + beta * y[i], rows rowptr[i]..rowptr[i+1].
 * Thread t writes the rows it owns, [part[t], part[t+1]), except long rows,
 * which every thread sums a slice of (partial[l*T + t]) and one thread
 * combines in thread order: the result depends on T but not on scheduling. */
static void SPX_FN(const csr_state *s, double alpha, const SPX_VAL *restrict x, double beta,
                   SPX_VAL *restrict y)
{
    const int64_t *restrict rp = s->rowptr;
    const SPX_IDX *restrict col = s->colidx;
    const SPX_VAL *restrict val = s->values;
    const int T = s->threads;
#pragma omp parallel num_threads(T)
    {
        int nt = omp_get_num_threads();
        for (int t = omp_get_thread_num(); t < T; t += nt) {
            for (int64_t i = s->part[t]; i < s->part[t + 1]; i++) {
                if (rp[i + 1] - rp[i] > s->long_len) continue;
                SPX_VAL sum = 0;
#pragma omp simd reduction(+ : sum)
                for (int64_t k = rp[i]; k < rp[i + 1]; k++) sum += val[k] * x[col[k]];
                y[i] = beta == 0.0 ? (SPX_VAL)(alpha * sum) : (SPX_VAL)(alpha * sum + beta * y[i]);
            }
            for (int64_t l = 0; l < s->nlong; l++) {
                int64_t i = s->long_rows[l], len = rp[i + 1] - rp[i];
                int64_t b = rp[i] + len * t / T, e = rp[i] + len * (t + 1) / T;
                SPX_VAL sum = 0;
#pragma omp simd reduction(+ : sum)
                for (int64_t k = b; k < e; k++) sum += val[k] * x[col[k]];
                s->partial[l * T + t] = sum;
            }
        }
#pragma omp barrier
#pragma omp for
        for (int64_t l = 0; l < s->nlong; l++) {
            int64_t i = s->long_rows[l];
            double sum = 0.0;
            for (int t = 0; t < T; t++) sum += s->partial[l * T + t];
            y[i] = beta == 0.0 ? (SPX_VAL)(alpha * sum) : (SPX_VAL)(alpha * sum + beta * y[i]);
        }
    }
}
