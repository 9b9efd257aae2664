/* The peers compiled into this build (bench/CMakeLists.txt defines
 * SPX_PEER_<NAME> for each library it found), in the order the bench lists
 * them: SpMV peers, then SpGEMM peers, then SpMM peers (the first of a
 * device is the one the SpMM table compares with: Eigen on the CPU), then
 * SDDMM peers. Also the SpMM and SDDMM peers' check of a call's shape. */
#include <stddef.h>

#include "bench.h"
#include "bench_internal.h"
#include "peers.h"

#ifdef SPX_PEER_RSB
extern const spx_bench_peer spx_peer_rsb, spx_peer_rsb_sym, spx_peer_rsb_spgemm, spx_peer_rsb_spmm;
#endif
#ifdef SPX_PEER_GRAPHBLAS
extern const spx_bench_peer spx_peer_graphblas, spx_peer_graphblas_spgemm, spx_peer_graphblas_spmm,
    spx_peer_graphblas_sddmm;
#endif
#ifdef SPX_PEER_EIGEN
extern const spx_bench_peer spx_peer_eigen, spx_peer_eigen_spgemm, spx_peer_eigen_spmm;
#endif
#ifdef SPX_PEER_CUSPARSE
extern const spx_bench_peer spx_peer_cusparse_csr, spx_peer_cusparse_csr2, spx_peer_cusparse_bsr,
    spx_peer_cusparse_csr_h, spx_peer_cusparse_spgemm, spx_peer_cusparse_spgemm_host,
    spx_peer_cusparse_spgemm_reuse, spx_peer_cusparse_spmm, spx_peer_cusparse_sddmm;
#endif

const spx_bench_peer *const spx_bench_peers[] = {
#ifdef SPX_PEER_RSB
    &spx_peer_rsb,
    &spx_peer_rsb_sym,
#endif
#ifdef SPX_PEER_GRAPHBLAS
    &spx_peer_graphblas,
#endif
#ifdef SPX_PEER_EIGEN
    &spx_peer_eigen,
#endif
#ifdef SPX_PEER_CUSPARSE
    &spx_peer_cusparse_csr,
    &spx_peer_cusparse_csr2,
    &spx_peer_cusparse_bsr,
    &spx_peer_cusparse_csr_h,
#endif
#ifdef SPX_PEER_CUSPARSE
    &spx_peer_cusparse_spgemm,
    &spx_peer_cusparse_spgemm_host,
    &spx_peer_cusparse_spgemm_reuse,
#endif
#ifdef SPX_PEER_RSB
    &spx_peer_rsb_spgemm,
#endif
#ifdef SPX_PEER_GRAPHBLAS
    &spx_peer_graphblas_spgemm,
#endif
#ifdef SPX_PEER_EIGEN
    &spx_peer_eigen_spgemm,
#endif
#ifdef SPX_PEER_EIGEN
    &spx_peer_eigen_spmm,
#endif
#ifdef SPX_PEER_RSB
    &spx_peer_rsb_spmm,
#endif
#ifdef SPX_PEER_GRAPHBLAS
    &spx_peer_graphblas_spmm,
#endif
#ifdef SPX_PEER_CUSPARSE
    &spx_peer_cusparse_spmm,
#endif
#ifdef SPX_PEER_GRAPHBLAS
    &spx_peer_graphblas_sddmm,
#endif
#ifdef SPX_PEER_CUSPARSE
    &spx_peer_cusparse_sddmm,
#endif
    NULL,
};

int spx_bench_peer_count(void)
{
    int n = 0;
    while (spx_bench_peers[n])
        n++;
    return n;
}

const char *spx_bench_peer_name(int i, spx_operation *op, unsigned *devices, unsigned *precisions)
{
    if (i < 0 || i >= spx_bench_peer_count()) return NULL;
    const spx_bench_peer *p = spx_bench_peers[i];
    if (op) *op = p->operation;
    if (devices) *devices = p->devices;
    if (precisions) *precisions = p->precisions;
    return p->name;
}

spx_status bench_spmm_peer_shape(const char *peer, const spx_bench_spmm_peer_opts *prepared,
                                 int64_t k, int64_t ldx, int64_t ldy)
{
    if (k == prepared->k && ldx == prepared->ldx && ldy == prepared->ldy) return SPX_OK;
    return bench_fail(SPX_ERR_INVALID_ARG,
                      "%s: called with k %lld, ldx %lld, ldy %lld; prepared for %lld, %lld, %lld",
                      peer, (long long)k, (long long)ldx, (long long)ldy, (long long)prepared->k,
                      (long long)prepared->ldx, (long long)prepared->ldy);
}
