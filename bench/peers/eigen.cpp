/* peer-eigen: Eigen 3 sparse * dense vector, fp64, CPU.
 *
 *   prepare: A's CSR copied into an Eigen::SparseMatrix<double, RowMajor, int>
 *            (eigen_peer_fill).
 *   spmv:    y = beta*y (set to 0 when beta == 0, never read), then
 *            y += alpha*A*x with Eigen's product on Maps of x and y. With
 *            OpenMP, Eigen runs a row-major sparse * vector product in parallel
 *            over rows when the matrix has more than 20000 nonzeros
 *            (SparseDenseProduct.h), on Eigen::nbThreads() threads: that count
 *            is process-global, so it is set to the peer's before each product.
 *
 * Also the helpers of eigen_peer.h, shared with peer-eigen-spgemm.
 */
#include <climits>
#include <cstdio>
#include <new>
#include <omp.h>

#include "eigen_peer.h"

spx_status eigen_peer_fits(const bench_csr &A, const char *who)
{
    if (A.col_bits == 32 && A.nnz <= INT_MAX && A.rows < INT_MAX && A.cols <= INT_MAX)
        return SPX_OK;
    return bench_fail(SPX_ERR_UNSUPPORTED,
                      "%s: %lld x %lld with %lld nonzeros exceeds its 32-bit indices", who,
                      (long long)A.rows, (long long)A.cols, (long long)A.nnz);
}

void eigen_peer_fill(const bench_csr &A, EigenCsr &M)
{
    M.resize((Eigen::Index)A.rows, (Eigen::Index)A.cols);
    M.resizeNonZeros((Eigen::Index)A.nnz);
    int *outer = M.outerIndexPtr(), *inner = M.innerIndexPtr();
    double *val = M.valuePtr();
    for (int64_t i = 0; i <= A.rows; i++)
        outer[i] = (int)A.rowptr[i];
    for (int64_t k = 0; k < A.nnz; k++) {
        inner[k] = (int)bench_col(&A, k);
        val[k] = bench_val(&A, k);
    }
}

namespace
{

struct EigenState {
    EigenCsr A;
    int threads;
};

spx_status eigen_prepare(const spx_matrix *A, const spx_matrix *, const spx_bench_peer_opts *o,
                         void **state)
{
    bench_csr v;
    spx_status st = bench_csr_view(A, &v);
    if (st == SPX_OK) st = eigen_peer_fits(v, "peer-eigen");
    if (st != SPX_OK) return st;
    EigenState *s = nullptr;
    try {
        s = new EigenState;
        s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
        eigen_peer_fill(v, s->A);
    } catch (const std::bad_alloc &) {
        delete s;
        return bench_fail(SPX_ERR_OOM, "peer-eigen: out of memory copying %lld nonzeros",
                          (long long)v.nnz);
    } catch (const std::exception &e) {
        delete s;
        return bench_fail(SPX_ERR_UNSUPPORTED, "peer-eigen: prepare threw %s", e.what());
    }
    *state = s;
    return SPX_OK;
}

spx_status eigen_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    EigenState *s = static_cast<EigenState *>(state);
    Eigen::Map<const Eigen::VectorXd> xv(static_cast<const double *>(x), s->A.cols());
    Eigen::Map<Eigen::VectorXd> yv(static_cast<double *>(y), s->A.rows());
    try {
        Eigen::setNbThreads(s->threads);
        if (beta == 0.0)
            yv.setZero();
        else if (beta != 1.0)
            yv *= beta;
        if (alpha == 1.0)
            yv.noalias() += s->A * xv;
        else
            yv.noalias() += alpha * (s->A * xv);
    } catch (const std::exception &e) {
        return bench_fail(SPX_ERR_UNSUPPORTED, "peer-eigen: product threw %s", e.what());
    }
    return SPX_OK;
}

size_t eigen_bytes(const void *state)
{
    const EigenState *s = static_cast<const EigenState *>(state);
    return sizeof *s + (size_t)(s->A.rows() + 1) * sizeof(int) +
           (size_t)s->A.nonZeros() * (sizeof(int) + sizeof(double));
}

void eigen_destroy(void *state)
{
    delete static_cast<EigenState *>(state);
}

void eigen_describe(const void *state, char *buf, size_t len)
{
    const EigenState *s = static_cast<const EigenState *>(state);
    std::snprintf(buf, len, "threads=%d eigen=%d.%d.%d", s->threads, EIGEN_WORLD_VERSION,
                  EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION);
}

} // namespace

extern "C" const spx_bench_peer spx_peer_eigen = {
    "peer-eigen",  SPX_OP_SPMV,   SPX_DEV_CPU,    BENCH_TYPE_BIT(SPX_F64),
    eigen_prepare, eigen_spmv,    nullptr,        nullptr,
    eigen_bytes,   eigen_destroy, eigen_describe, nullptr, /* no SpMM: peer-eigen-spmm */
    nullptr,       nullptr,                                /* Eigen has no SDDMM */
};
