/* The values of a CUDA kernel, stored or iso (core/iso.h), for bodies
 * stamped out once for both: a kernel template instantiated with value type
 * V = spx__iso_val reads no value array (its pointer may be NULL) and each
 * term is the x element alone, the matrix's one value having been folded
 * into alpha by the launcher. T(v) * x with v == 1 is x exactly, so an iso
 * kernel gives the stored kernel's bits for a matrix of ones. Used by csr
 * (csr_spmv.cu) and sell (sell/sell_spmv.cu). */
#ifndef SPX_CUDA_CSR_ISO_CUH
#define SPX_CUDA_CSR_ISO_CUH

#include <stdint.h>

struct spx__iso_val {};

/* Value k of val: a streaming load (__ldcs: read once per call), or nothing. */
template <typename V> static __device__ __forceinline__ V spx__load_val(const V *val, int64_t k)
{
    return __ldcs(val + k);
}
static __device__ __forceinline__ spx__iso_val spx__load_val(const spx__iso_val *, int64_t)
{
    return spx__iso_val{};
}

/* The term of a value and its x element, in the sum's type T. */
template <typename T, typename V> static __device__ __forceinline__ T spx__times(V v, T x)
{
    return T(v) * x;
}
template <typename T> static __device__ __forceinline__ T spx__times(spx__iso_val, T x)
{
    return x;
}

#endif
