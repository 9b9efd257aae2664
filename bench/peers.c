/* The peers compiled into this build (bench/CMakeLists.txt defines
 * SPX_PEER_<NAME> for each library it found), in the order the bench lists them,
 * and, first, `auto`: not another library but SpX's own AUTO rule through the
 * public API (spx_plan_create with format "auto"). The registry has no `auto`
 * entry (it is a rule that picks a format), so this row is how `spx bench
 * --peers --format csr,dasp,auto` times AUTO's pick beside the formats it picks
 * from, in the same process. CUDA only (the GPU check's need). Its bytes are
 * the chosen plan's; the bench gives peers no --param, so it runs defaults. */
#include "peers.h"

#ifdef SPX_PEER_RSB
extern const spx_format_ops spx_peer_rsb;
#endif
#ifdef SPX_PEER_GRAPHBLAS
extern const spx_format_ops spx_peer_graphblas;
#endif
#ifdef SPX_PEER_EIGEN
extern const spx_format_ops spx_peer_eigen;
#endif
#ifdef SPX_PEER_CUSPARSE
extern const spx_format_ops spx_peer_cusparse_csr;
extern const spx_format_ops spx_peer_cusparse_csr2;
extern const spx_format_ops spx_peer_cusparse_bsr;
extern const spx_format_ops spx_peer_cusparse_csr_h;
#endif

static spx_status auto_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    spx_plan_opts po = *o;
    po.format = "auto";
    return spx_plan_create(A, &po, (spx_plan **)state);
}

static spx_status auto_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    return spx_spmv((const spx_plan *)state, alpha, x, beta, y);
}

static size_t auto_bytes(const void *state)
{
    return spx_plan_bytes((const spx_plan *)state);
}

static void auto_destroy(void *state)
{
    spx_plan_destroy((spx_plan *)state);
}

static const spx_format_ops bench_auto = {
    .name = "auto",
    .devices = SPX_DEV_CUDA,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32) | SPX__TYPE_BIT(SPX_F16),
    .analyze = auto_analyze,
    .spmv = auto_spmv,
    .bytes = auto_bytes,
    .destroy = auto_destroy,
};

const spx_format_ops *const spx_bench_peers[] = {
    &bench_auto,
#ifdef SPX_PEER_RSB
    &spx_peer_rsb,
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
    NULL,
};
