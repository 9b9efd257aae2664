/* AVX-512 SELL-C-sigma kernels: fp64 with 8 lanes per vector, fp32 with 16;
 * x is read by (masked) gathers. Compiled with AVX-512 flags and only called
 * after run-time detection (sell.c). Body: sell_simd_body.h, stamped for
 * stored values and for iso plans (no values). */
#include <immintrin.h>

#include "cpu/sell.h"

#define SELL_FN sell_avx512_f64
#define SELL_VAL double
#define SELL_W 8
#define SELL_VEC __m512d
#define SELL_IDX __m256i
#define SELL_MASK __mmask8
#define SELL_ZERO() _mm512_setzero_pd()
#define SELL_LOAD(p) _mm512_loadu_pd(p)
#define SELL_STORE(p, v) _mm512_storeu_pd(p, v)
#define SELL_LOAD_IDX(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define SELL_GT(len, j) _mm256_cmpgt_epi32_mask(len, _mm256_set1_epi32(j))
#define SELL_GATHER_MASK(m, i, x) _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, i, x, 8)
#define SELL_FMA(a, b, acc) _mm512_fmadd_pd(a, b, acc)
#define SELL_ADD(a, b) _mm512_add_pd(a, b)
#include "cpu/sell_simd_body.h"
#define SELL_FN sell_avx512_f64_iso
#define SELL_ISO
#include "cpu/sell_simd_body.h"

#define SELL_FN sell_avx512_f32
#define SELL_VAL float
#define SELL_W 16
#define SELL_VEC __m512
#define SELL_IDX __m512i
#define SELL_MASK __mmask16
#define SELL_ZERO() _mm512_setzero_ps()
#define SELL_LOAD(p) _mm512_loadu_ps(p)
#define SELL_STORE(p, v) _mm512_storeu_ps(p, v)
#define SELL_LOAD_IDX(p) _mm512_loadu_si512((const void *)(p))
#define SELL_GT(len, j) _mm512_cmpgt_epi32_mask(len, _mm512_set1_epi32(j))
#define SELL_GATHER_MASK(m, i, x) _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, i, x, 4)
#define SELL_FMA(a, b, acc) _mm512_fmadd_ps(a, b, acc)
#define SELL_ADD(a, b) _mm512_add_ps(a, b)
#include "cpu/sell_simd_body.h"
#define SELL_FN sell_avx512_f32_iso
#define SELL_ISO
#include "cpu/sell_simd_body.h"

spx__sell_kernel spx__sell_kernel_avx512(spx_type t, int64_t C, int iso)
{
    if (t == SPX_F64 && C % 8 == 0) return iso ? sell_avx512_f64_iso : sell_avx512_f64;
    if (t == SPX_F32 && C % 16 == 0) return iso ? sell_avx512_f32_iso : sell_avx512_f32;
    return NULL;
}
