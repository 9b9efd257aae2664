/* AUTO on CUDA: dasp or csr, from the row-length statistics.
 *
 * Measured on an H100 (bench/results/gpu-h100-80gb-hbm3-2026-11-22.txt, fp64,
 * one run of scripts/gpu-check.sh, ratio of each format to cuSPARSE CSR in the
 * same process), dasp beat SpX's csr on TSOPF_RS_b39_c30 (1.51x vs 1.24x; mean
 * row 18), xenon1 (1.29 vs 1.14; 24), lap3d27:96 (1.01 vs 0.93; 26), the R-MAT
 * scale-20 graph (1.02 vs 0.76; 30, rows up to thousands) and c-62 (1.08 vs
 * 0.68; 13.4, rows up to 5060); csr won everywhere else: short rows (lap3d7
 * 0.99 vs 0.86, the circuit matrix 0.96 vs 0.74, NotreDame_www, bfly,
 * delaunay_n16), rows near 14 without long rows (cage11 1.50 vs 1.35), long
 * regular rows (sinc18, mean 58: 1.40 vs 1.18) and matrices under 500k
 * nonzeros, where both run from L2 and csr's lighter launch wins.
 * The rule: dasp when nnz >= 500k and the mean row length is 16..32, or 12..32
 * with rows longer than 256 (dasp's long-row path); csr otherwise. dasp's
 * preparation costs more (5 to 40 ms against 1 to 3 on those matrices, 200+
 * ms at 20M+ nonzeros), so with expected_calls given and below 10,000: csr.
 * A format lacking the precision falls back to csr in the plan layer. */
#include "core/matrix.h"
#include "plan/format.h"

#define DASP_MIN_NNZ 500000
#define DASP_LONG_ROW 256

const char *spx__auto_cuda(const spx_matrix *A, const spx_plan_opts *o)
{
    if (A->rows == 0 || A->nnz < DASP_MIN_NNZ) return "csr";
    if (o->expected_calls > 0 && o->expected_calls < 10000) return "csr";
    double rave = (double)A->nnz / (double)A->rows;
    if (rave > 32.0 || rave < 12.0) return "csr";
    if (rave >= 16.0) return "dasp";
    for (int64_t i = 0; i < A->rows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > DASP_LONG_ROW) return "dasp";
    return "csr";
}
