/* The CUDA gateway in a build without CUDA: every function of every method's
 * list (cuda/gateway.h) stamped out as a stub. S entries fail with
 * SPX_ERR_NOT_COMPILED naming the function, Q entries return their value, V
 * entries do nothing. A new method adds its list here, one line. */
#include "core/error.h"
#include "cuda/axt/axt_cuda.h"
#include "cuda/blas1/blas1.h"
#include "cuda/blas1/combine.h"
#include "cuda/blas1/gs.h"
#include "cuda/blas1/many.h"
#include "cuda/csr/csr_kernels.h"
#include "cuda/dasp/dasp.h"
#include "cuda/gateway.h"
#include "cuda/hbp/hbp_kernels.h"
#include "cuda/multi/multi_cuda.h"
#include "cuda/sell/sell_kernels.h"
#include "cuda/spgemm/numeric.h"
#include "cuda/spgemm/rows.h"
#include "cuda/spgemm/tsparse.h"
#include "cuda/values/values.h"

/* A stub names its parameters (C11) and uses none of them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

static spx_status not_compiled(const char *fn)
{
    return spx__error(SPX_ERR_NOT_COMPILED, "%s: SpX was built without CUDA (SPX_CUDA=OFF)", fn);
}

#define STUB_S(name, params)                                                                       \
    spx_status name params                                                                         \
    {                                                                                              \
        return not_compiled(#name);                                                                \
    }
#define STUB_Q(type, name, params, value)                                                          \
    type name params                                                                               \
    {                                                                                              \
        return value;                                                                              \
    }
#define STUB_V(name, params)                                                                       \
    void name params {}
#define STUBS(list) list(STUB_S, STUB_Q, STUB_V)

STUBS(SPX__CUDA_RUNTIME_API)
STUBS(SPX__CUDA_CSR_API)
STUBS(SPX__CUDA_SELL_API)
STUBS(SPX__CUDA_DASP_API)
STUBS(SPX__CUDA_HBP_API)
STUBS(SPX__CUDA_AXT_API)
STUBS(SPX__CUDA_BLAS1_API)
STUBS(SPX__CUDA_MANY_API)
STUBS(SPX__CUDA_GS_API)
STUBS(SPX__CUDA_COMBINE_API)
STUBS(SPX__CUDA_MULTI_API)
STUBS(SPX__CUDA_TSPARSE_API)
STUBS(SPX__CUDA_ROWS_API)
STUBS(SPX__CUDA_SPGEMM_NUMERIC_API)
STUBS(SPX__CUDA_VALUES_API)
