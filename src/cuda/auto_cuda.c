/* AUTO on CUDA: dasp or csr, from the row-length statistics.
 *
 * Measured on an H100 (bench/results/gpu-round2-notes.md: one run of
 * scripts/gpu-check.sh after the csr kernel's single-round-trip row blocks and
 * fused long-row chunks; ratio of each format to cuSPARSE CSR in the same
 * process):
 *  - rows longer than 256 with a mean row of 12..32: dasp (its long-row path)
 *    beat csr on c-62 (fp64 1.11x vs 0.86x; mean 13.4, rows up to 5060) and
 *    the R-MAT scale-20 graph (fp64 1.02 vs 0.77, fp16 1.04 vs 0.81; mean 30);
 *  - mean 16..32 without long rows, fp64, up to 4M nonzeros: dasp beat csr on
 *    TSOPF_RS_b39_c30 (1.71 vs 1.35; mean 18) and xenon1 (1.28 vs 1.18; 24),
 *    both from L2; on lap3d27:96 (23.4M nonzeros, HBM) csr now wins (1.09 vs
 *    1.01, 91% of copy bandwidth), so the bound sits between the two (no matrix
 *    measured from 1.2M to 13M nonzeros; 4M is where fp64 CSR outgrows the
 *    50 MB L2). In fp16 csr won those (TSOPF 3.35 vs 3.11, lap3d27 1.07 vs 0.67);
 *  - csr everywhere else: short rows (lap3d7 1.20 vs 0.86, the circuit matrix
 *    1.00 vs 0.75, NotreDame_www, bfly), rows near 14 without long rows (cage11
 *    1.42 vs 1.33), long regular rows (sinc18, mean 58: 1.40 vs 1.18 in the
 *    first round) and matrices under 500k nonzeros, where csr's lighter launch
 *    wins.
 * dasp's preparation costs more (5 to 40 ms against 1 to 4 on those matrices,
 * 150+ ms at 10M+ nonzeros), so with expected_calls given and below 10,000:
 * csr. A format lacking the precision falls back to csr in the plan layer. */
#include "core/matrix.h"
#include "plan/format.h"

#define DASP_MIN_NNZ 500000
#define DASP_MAX_NNZ_REGULAR 4000000 /* fp64, no long rows: dasp only from L2 */
#define DASP_LONG_ROW 256

static int has_long_row(const spx_matrix *A)
{
    for (int64_t i = 0; i < A->rows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > DASP_LONG_ROW) return 1;
    return 0;
}

const char *spx__auto_cuda(const spx_matrix *A, const spx_plan_opts *o)
{
    if (A->rows == 0 || A->nnz < DASP_MIN_NNZ) return "csr";
    if (o->expected_calls > 0 && o->expected_calls < 10000) return "csr";
    double rave = (double)A->nnz / (double)A->rows;
    if (rave > 32.0 || rave < 12.0) return "csr";
    if (has_long_row(A)) return "dasp";
    if (o->precision == SPX_F64 && rave >= 16.0 && A->nnz <= DASP_MAX_NNZ_REGULAR) return "dasp";
    return "csr";
}
