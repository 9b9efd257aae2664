/* COO SpMV body, included by coo.c per value type: SPX_VAL, SPX_FN.
 *
 * Entries sorted by row. y = beta*y first (beta == 0: y = 0, unread); then
 * thread t adds alpha * (sum of each run of equal rows) over its slice of
 * entries [nnz*t/T, nnz*(t+1)/T). A run cut by a slice boundary may be shared
 * with a neighbour, so each slice's first and last runs go to carry[] and are
 * added after the parallel loop in thread order: reproducible for fixed T. */
static void SPX_FN(const coo_state *s, double alpha, const SPX_VAL *restrict x, double beta,
                   SPX_VAL *restrict y, coo_carry *restrict carry)
{
    const int64_t *restrict row = s->row;
    const int32_t *restrict col = s->col;
    const SPX_VAL *restrict val = s->values;
    const int T = s->threads;
    const int64_t nnz = s->nnz;
#pragma omp parallel num_threads(T)
    {
#pragma omp for
        for (int64_t i = 0; i < s->rows; i++) y[i] = beta == 0.0 ? 0 : (SPX_VAL)(beta * y[i]);
        int nt = omp_get_num_threads();
        for (int t = omp_get_thread_num(); t < T; t += nt) {
            int64_t b = nnz / T * t + nnz % T * t / T;
            int64_t e = nnz / T * (t + 1) + nnz % T * (t + 1) / T;
            carry[2 * t].row = -1;
            carry[2 * t + 1].row = -1;
            int64_t k = b;
            while (k < e) {
                int64_t r = row[k], rb = k;
                SPX_VAL sum = 0;
                for (; k < e && row[k] == r; k++) sum += val[k] * x[col[k]];
                int shared_left = rb == b && b > 0 && row[b - 1] == r;
                int shared_right = k == e && e < nnz && row[e] == r;
                coo_carry *c = shared_left ? &carry[2 * t] : &carry[2 * t + 1];
                if (shared_left || shared_right) {
                    c->row = r;
                    c->sum = sum;
                } else {
                    y[r] += (SPX_VAL)(alpha * sum);
                }
            }
        }
    }
    for (int t = 0; t < 2 * T; t++)
        if (carry[t].row >= 0) y[carry[t].row] += (SPX_VAL)(alpha * carry[t].sum);
}
