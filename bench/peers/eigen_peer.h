/* What the Eigen peers (eigen.cpp: SpMV, eigen_spgemm.cpp: SpGEMM) share: an
 * Eigen::SparseMatrix<double, RowMajor, int> (compressed, 32-bit offsets and
 * columns) from a CSR view. C++ exceptions never cross into the bench: each
 * peer catches them and returns a bench_fail status. */
#ifndef SPX_BENCH_PEERS_EIGEN_PEER_H
#define SPX_BENCH_PEERS_EIGEN_PEER_H

#include <Eigen/Sparse>

extern "C" {
#include "bench_internal.h"
#include "peers.h"
}

typedef Eigen::SparseMatrix<double, Eigen::RowMajor, int> EigenCsr;

/* SPX_ERR_UNSUPPORTED when A's sizes pass Eigen's 32-bit indices. */
spx_status eigen_peer_fits(const bench_csr &A, const char *who);
/* M = A (may throw std::bad_alloc). */
void eigen_peer_fill(const bench_csr &A, EigenCsr &M);

#endif
