/* AUTO on CUDA: csr, or dasp for matrices of regular medium rows.
 *
 * Measured on an H100 (bench/results/gpu-h100-80gb-hbm3-2026-11-22.txt, fp64,
 * each format over cuSPARSE CSR in the same process): dasp won on
 * TSOPF_RS_b39_c30 (1.53x against csr's 1.25x; rave 18, rsd/rave 0.78) and
 * xenon1 (1.31x against 1.14x; rave 24, rsd/rave 0.17), tied on the 27-point
 * Laplacian (0.94x, 0.93x; rave 26), and lost elsewhere, often by a wide
 * margin (sinc18 0.82x against 1.41x, cavity19 1.29x against 1.84x at 131k
 * nonzeros, lap3d7 0.77x against 0.99x, the circuit matrix 0.73x against 0.97x).
 * The rule keeps dasp to that shape: a mean row length of 16 to 32, a
 * standard deviation at most 0.8 of it, and at least 500,000 nonzeros (below
 * that both run from L2 and csr's single launch wins). dasp's preparation
 * costs more (9 to 14 ms against 2.5 there), paid back after about 6,000 to
 * 7,500 calls: with expected_calls given and below 10,000, csr. Formats
 * lacking the precision fall back to csr in the plan layer (dasp has no fp32). */
#include <math.h>

#include "core/matrix.h"
#include "plan/format.h"

const char *spx__auto_cuda(const spx_matrix *A, const spx_plan_opts *o)
{
    if (A->rows == 0 || A->nnz < 500000) return "csr";
    if (o->expected_calls > 0 && o->expected_calls < 10000) return "csr";
    double rave = (double)A->nnz / (double)A->rows, var = 0.0;
    if (rave < 16.0 || rave > 32.0) return "csr";
    for (int64_t i = 0; i < A->rows; i++) {
        double d = (double)(A->rowptr[i + 1] - A->rowptr[i]) - rave;
        var += d * d;
    }
    return sqrt(var / (double)A->rows) <= 0.8 * rave ? "dasp" : "csr";
}
