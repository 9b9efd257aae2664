/* peer-eigen-spgemm: Eigen 3 sparse * sparse product, C = A*B, fp64, CPU.
 *
 *   prepare: A and B copied into Eigen row-major sparse matrices
 *            (eigen_peer_fill).
 *   spgemm:  C = A * B, Eigen's default sparse product (conservative: the
 *            symbolic pattern, no pruning of zeros), one thread (Eigen does
 *            not parallelize it), into the state's C.
 *   result:  C's compressed rows (sorted) as a new SpX matrix.
 */
#include <new>
#include <vector>

#include "eigen_peer.h"

namespace
{

struct EigenSpgemm {
    EigenCsr A, B, C;
};

spx_status eigen_spgemm_prepare(const spx_matrix *A, const spx_matrix *B,
                                const spx_bench_peer_opts *, void **state)
{
    bench_csr a, b;
    spx_status st = bench_csr_view(A, &a);
    if (st == SPX_OK) st = bench_csr_view(B, &b);
    if (st == SPX_OK) st = eigen_peer_fits(a, "peer-eigen-spgemm");
    if (st == SPX_OK) st = eigen_peer_fits(b, "peer-eigen-spgemm");
    if (st != SPX_OK) return st;
    EigenSpgemm *s = nullptr;
    try {
        s = new EigenSpgemm;
        eigen_peer_fill(a, s->A);
        eigen_peer_fill(b, s->B);
    } catch (const std::bad_alloc &) {
        delete s;
        return bench_fail(SPX_ERR_OOM, "peer-eigen-spgemm: out of memory copying A and B");
    }
    *state = s;
    return SPX_OK;
}

spx_status eigen_spgemm_op(void *state)
{
    EigenSpgemm *s = static_cast<EigenSpgemm *>(state);
    try {
        s->C = s->A * s->B;
    } catch (const std::bad_alloc &) {
        return bench_fail(SPX_ERR_OOM, "peer-eigen-spgemm: out of memory in the product");
    }
    return SPX_OK;
}

spx_status eigen_spgemm_result(void *state, spx_matrix **C)
{
    EigenSpgemm *s = static_cast<EigenSpgemm *>(state);
    *C = nullptr;
    try {
        s->C.makeCompressed();
        const int *outer = s->C.outerIndexPtr();
        std::vector<int64_t> rp(outer, outer + s->C.rows() + 1);
        std::vector<int32_t> ci(s->C.innerIndexPtr(), s->C.innerIndexPtr() + s->C.nonZeros());
        return bench_lib(spx_matrix_create_csr(s->C.rows(), s->C.cols(), rp.data(), ci.data(),
                                               s->C.valuePtr(), C));
    } catch (const std::bad_alloc &) {
        return bench_fail(SPX_ERR_OOM, "peer-eigen-spgemm: out of memory exporting C");
    }
}

size_t eigen_spgemm_bytes(const void *state)
{
    const EigenSpgemm *s = static_cast<const EigenSpgemm *>(state);
    size_t nz = (size_t)(s->A.nonZeros() + s->B.nonZeros());
    return sizeof *s + (size_t)(s->A.rows() + s->B.rows() + 2) * sizeof(int) +
           nz * (sizeof(int) + sizeof(double));
}

void eigen_spgemm_destroy(void *state)
{
    delete static_cast<EigenSpgemm *>(state);
}

} // namespace

extern "C" const spx_bench_peer spx_peer_eigen_spgemm = {
    "peer-eigen-spgemm",
    SPX_OP_SPGEMM,
    SPX_DEV_CPU,
    BENCH_TYPE_BIT(SPX_F64),
    eigen_spgemm_prepare,
    nullptr,
    eigen_spgemm_op,
    eigen_spgemm_result,
    eigen_spgemm_bytes,
    eigen_spgemm_destroy,
    nullptr,
    nullptr, /* no SpMM: peer-eigen-spmm */
    nullptr,
    nullptr, /* Eigen has no SDDMM */
};
