/* peer-eigen-spmm: Eigen 3 sparse * dense matrix, Y = alpha*A*X + beta*Y,
 * fp64 and fp32 (values, X, Y and sums in the precision), CPU.
 *
 *   prepare: A's CSR copied into an Eigen::SparseMatrix<double, RowMajor, int>
 *            (eigen_peer_fill), cast to float for fp32. Nothing depends on k.
 *   spmm:    X and Y as Maps of row-major dense matrices with their leading
 *            dimensions (OuterStride); Y = beta*Y (set to 0 when beta == 0,
 *            never read), then Y += alpha*A*X. Eigen multiplies a row-major
 *            sparse matrix by a row-major dense one row by row, each row of Y
 *            a sum of rows of X (vectorized over k), in parallel over rows
 *            with OpenMP when nnz*k > 20000 (SparseDenseProduct.h), on
 *            Eigen::nbThreads() threads: process-global, so set to the
 *            peer's before each product.
 */
#include <cstdio>
#include <new>
#include <omp.h>

#include "eigen_peer.h"

namespace
{

template <typename T> using SparseRows = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;
template <typename T>
using DenseRows = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct EigenSpmm {
    SparseRows<double> A64; /* fp64 */
    SparseRows<float> A32;  /* fp32 */
    spx_type precision;
    int threads;
};

template <typename T>
void product(const SparseRows<T> &A, int64_t k, T alpha, const void *X, int64_t ldx, T beta,
             void *Y, int64_t ldy)
{
    Eigen::Map<const DenseRows<T>, 0, Eigen::OuterStride<>> x(static_cast<const T *>(X), A.cols(),
                                                              k, Eigen::OuterStride<>(ldx));
    Eigen::Map<DenseRows<T>, 0, Eigen::OuterStride<>> y(static_cast<T *>(Y), A.rows(), k,
                                                        Eigen::OuterStride<>(ldy));
    if (beta == T(0))
        y.setZero();
    else if (beta != T(1))
        y *= beta;
    if (alpha == T(1))
        y.noalias() += A * x;
    else
        y.noalias() += alpha * (A * x);
}

spx_status eigen_spmm_prepare(const spx_matrix *A, const spx_matrix *, const spx_bench_peer_opts *o,
                              void **state)
{
    bench_csr v;
    spx_status st = bench_csr_view(A, &v);
    if (st == SPX_OK) st = eigen_peer_fits(v, "peer-eigen-spmm");
    if (st != SPX_OK) return st;
    EigenSpmm *s = nullptr;
    try {
        s = new EigenSpmm;
        s->precision = o->precision;
        s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
        eigen_peer_fill(v, s->A64);
        if (o->precision == SPX_F32) {
            s->A32 = s->A64.cast<float>();
            s->A64 = SparseRows<double>();
        }
    } catch (const std::bad_alloc &) {
        delete s;
        return bench_fail(SPX_ERR_OOM, "peer-eigen-spmm: out of memory copying %lld nonzeros",
                          (long long)v.nnz);
    }
    *state = s;
    return SPX_OK;
}

spx_status eigen_spmm_op(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                         double beta, void *Y, int64_t ldy)
{
    EigenSpmm *s = static_cast<EigenSpmm *>(state);
    try {
        Eigen::setNbThreads(s->threads);
        if (s->precision == SPX_F64)
            product<double>(s->A64, k, alpha, X, ldx, beta, Y, ldy);
        else
            product<float>(s->A32, k, (float)alpha, X, ldx, (float)beta, Y, ldy);
    } catch (const std::exception &e) {
        return bench_fail(SPX_ERR_UNSUPPORTED, "peer-eigen-spmm: product threw %s", e.what());
    }
    return SPX_OK;
}

size_t eigen_spmm_bytes(const void *state)
{
    const EigenSpmm *s = static_cast<const EigenSpmm *>(state);
    const bool f64 = s->precision == SPX_F64;
    size_t rows = (size_t)(f64 ? s->A64.rows() : s->A32.rows());
    size_t nnz = (size_t)(f64 ? s->A64.nonZeros() : s->A32.nonZeros());
    return sizeof *s + (rows + 1) * sizeof(int) +
           nnz * (sizeof(int) + (f64 ? sizeof(double) : sizeof(float)));
}

void eigen_spmm_destroy(void *state)
{
    delete static_cast<EigenSpmm *>(state);
}

void eigen_spmm_describe(const void *state, char *buf, size_t len)
{
    const EigenSpmm *s = static_cast<const EigenSpmm *>(state);
    std::snprintf(buf, len, "threads=%d, row-major sparse * row-major dense", s->threads);
}

} // namespace

extern "C" const spx_bench_peer spx_peer_eigen_spmm = {
    "peer-eigen-spmm",
    SPX_OP_SPMM,
    SPX_DEV_CPU,
    BENCH_TYPE_BIT(SPX_F64) | BENCH_TYPE_BIT(SPX_F32),
    eigen_spmm_prepare,
    nullptr,
    nullptr,
    nullptr,
    eigen_spmm_bytes,
    eigen_spmm_destroy,
    eigen_spmm_describe,
    eigen_spmm_op,
    nullptr,
    nullptr, /* Eigen has no SDDMM */
};
