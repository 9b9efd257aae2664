/* The peers compiled into this build (bench/CMakeLists.txt defines
 * SPX_PEER_<NAME> for each library it found), in the order the bench lists them. */
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

const spx_format_ops *const spx_bench_peers[] = {
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
