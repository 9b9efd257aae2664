/* sym's answer to AUTO (sym.h). */
#include "core/llc.h"
#include "core/matrix.h"
#include "core/threads.h"
#include "cpu/sym.h"

/* AUTO (bench/results/sym-2026-11-28.md): sym when all of
 *   fp64                        (in fp32 sell's vector kernel was as fast or
 *                                faster on most matrices measured),
 *   csr's bytes (12 a nonzero) past the last-level cache and SYM_BYTES_MIN
 *                               (where memory is the bound: with the matrix
 *                                in the 300 MB cache of the 16-core host,
 *                                sell's vector kernel was 1.0-1.5x sym's
 *                                scalar one; past it sym was 1.4-1.9x sell
 *                                there on 8 and 16 threads, and 1.5x on the
 *                                2-core VM),
 *   mean row >= SYM_ROW_MIN,
 *   mirror terms near the diagonal: the threads' buffers under nnz / 16
 *                                numbers (zeroed, added to and read: 24 bytes
 *                                each against the 6 a nonzero sym saves) and
 *                                the mean distance of a row's first entry to
 *                                the diagonal under SYM_REACH_MAX rows (on a
 *                                random graph, y's scattered updates and the
 *                                buffers made sym 0.5-0.7x sell; on c-62,
 *                                whose rows reach far, 0.13-0.25x),
 *   expected calls unknown or at least SYM_REPAY_CALLS,
 *   A's values not all one number (iso plans of csr and sell read 4 bytes a
 *                                nonzero, sym 6), and
 *   A symmetric (checked last: a whole pass over A),
 * answering SYM_EXPECTED_GAIN, above sell's 1.5. */
#define SYM_BYTES_MIN (64.0 * 1048576.0)
#define SYM_ROW_MIN 6.0
#define SYM_REACH_MAX 65536.0
#define SYM_REPAY_CALLS 30
#define SYM_EXPECTED_GAIN 1.6

/* The buffers and mean reach analyze would give with T threads, from A's
 * row offsets and first columns alone (rows split by A's entries). */
static void estimate_reach(const spx_matrix *A, int T, double *buffers, double *mean_reach)
{
    double total = 0.0, reach = 0.0;
    for (int t = 0; t < T; t++) {
        const int64_t r0 = A->rows * t / T, r1 = A->rows * (t + 1) / T;
        int64_t lo = r0;
        for (int64_t i = r0; i < r1; i++) {
            if (spx__row_off(A, i) == spx__row_off(A, i + 1)) continue;
            const int64_t j = spx__col(A, spx__row_off(A, i));
            if (j < lo) lo = j;
            reach += (double)(j < i ? i - j : 0);
        }
        total += (double)(r0 - lo);
    }
    *buffers = total;
    *mean_reach = A->rows ? reach / (double)A->rows : 0.0;
}

double spx__sym_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    double buffers, reach;
    if (f->o->precision != SPX_F64 || A->rows != A->cols || A->rows >= INT32_MAX) return 0.0;
    const double bytes = 12.0 * (double)A->nnz;
    if (f->rave < SYM_ROW_MIN || bytes < SYM_BYTES_MIN || bytes < (double)spx__llc_bytes())
        return 0.0;
    if (f->o->expected_calls > 0 && f->o->expected_calls < SYM_REPAY_CALLS) return 0.0;
    const int T = f->o->threads > 0 ? f->o->threads
                                    : spx__threads_for(A->nnz / 2 + A->rows, SPX__SPMV_GRAIN / 2);
    estimate_reach(A, T, &buffers, &reach);
    if (buffers > (double)A->nnz / 16.0 || reach > SYM_REACH_MAX) return 0.0;
    if (spx_matrix_iso(A, NULL)) return 0.0; /* csr and sell read no values then */
    return spx__matrix_symmetric(A) ? SYM_EXPECTED_GAIN : 0.0;
}
