/* peer-eigen: Eigen 3 sparse * dense vector, fp64, CPU.
 *
 *   analyze: A's CSR copied into an Eigen::SparseMatrix<double, RowMajor, int>
 *            (compressed; 32-bit offsets and columns).
 *   spmv:    y = beta*y (set to 0 when beta == 0, never read), then
 *            y += alpha*A*x with Eigen's product on Maps of x and y. With
 *            OpenMP, Eigen runs a row-major sparse * vector product in parallel
 *            over rows when the matrix has more than 20000 nonzeros
 *            (SparseDenseProduct.h), on Eigen::nbThreads() threads: that count
 *            is process-global, so it is set to the plan's before each product.
 *
 * C++ exceptions (std::bad_alloc) are caught at the C boundary and become
 * spx__error messages.
 */
#include <Eigen/Sparse>
#include <climits>
#include <cstdio>
#include <new>
#include <omp.h>

extern "C" {
#include "core/error.h"
#include "core/matrix.h"
#include "peers.h"
}

namespace
{

typedef Eigen::SparseMatrix<double, Eigen::RowMajor, int> EigenCsr;

struct EigenState {
    EigenCsr A;
    int threads;
};

void eigen_fill(const spx_matrix *A, EigenCsr &M)
{
    M.resize((Eigen::Index)A->rows, (Eigen::Index)A->cols);
    M.resizeNonZeros((Eigen::Index)A->nnz);
    int *outer = M.outerIndexPtr(), *inner = M.innerIndexPtr();
    double *val = M.valuePtr();
    for (int64_t i = 0; i <= A->rows; i++)
        outer[i] = (int)A->rowptr[i];
    for (int64_t k = 0; k < A->nnz; k++) {
        inner[k] = A->col32[k];
        val[k] = spx__val(A, k);
    }
}

spx_status eigen_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    if (A->col_bits != 32 || A->nnz > INT_MAX || A->rows > INT_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "peer-eigen: %lld x %lld with %lld nonzeros exceeds its 32-bit indices",
                          (long long)A->rows, (long long)A->cols, (long long)A->nnz);
    EigenState *s = nullptr;
    try {
        s = new EigenState;
        s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
        eigen_fill(A, s->A);
    } catch (const std::bad_alloc &) {
        delete s;
        return spx__error(SPX_ERR_OOM, "peer-eigen: out of memory copying %lld nonzeros",
                          (long long)A->nnz);
    } catch (const std::exception &e) {
        delete s;
        return spx__error(SPX_ERR_UNSUPPORTED, "peer-eigen: analyze threw %s", e.what());
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
        return spx__error(SPX_ERR_UNSUPPORTED, "peer-eigen: product threw %s", e.what());
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

extern "C" const spx_format_ops spx_peer_eigen = {
    "peer-eigen",  SPX_DEV_CPU,    SPX__TYPE_BIT(SPX_F64),
    eigen_analyze, eigen_spmv,     eigen_bytes,
    eigen_destroy, eigen_describe, 0,
    nullptr,       nullptr,       nullptr,
    nullptr,       nullptr,
};
