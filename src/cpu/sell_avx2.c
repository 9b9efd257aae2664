/* AVX2 SELL-C-sigma kernels: fp64 with 4 lanes per vector, fp32 with 8; x is
 * read by (masked) gathers. Compiled with AVX2 and FMA flags and only called
 * after run-time detection (sell.c). Body: sell_simd_body.h, stamped for
 * stored values and for iso plans (no values). */
#include <immintrin.h>

#include "cpu/sell.h"

#define SELL_FN sell_avx2_f64
#define SELL_VAL double
#define SELL_W 4
#define SELL_VEC __m256d
#define SELL_IDX __m128i
#define SELL_MASK __m256d
#define SELL_ZERO() _mm256_setzero_pd()
#define SELL_LOAD(p) _mm256_loadu_pd(p)
#define SELL_STORE(p, v) _mm256_storeu_pd(p, v)
#define SELL_LOAD_IDX(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define SELL_GT(len, j)                                                                            \
    _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpgt_epi32(len, _mm_set1_epi32(j))))
#define SELL_GATHER_MASK(m, i, x) _mm256_mask_i32gather_pd(_mm256_setzero_pd(), x, i, m, 8)
#define SELL_FMA(a, b, acc) _mm256_fmadd_pd(a, b, acc)
#define SELL_ADD(a, b) _mm256_add_pd(a, b)
#include "cpu/sell_simd_body.h"
#define SELL_FN sell_avx2_f64_iso
#define SELL_ISO
#include "cpu/sell_simd_body.h"

#define SELL_FN sell_avx2_f32
#define SELL_VAL float
#define SELL_W 8
#define SELL_VEC __m256
#define SELL_IDX __m256i
#define SELL_MASK __m256
#define SELL_ZERO() _mm256_setzero_ps()
#define SELL_LOAD(p) _mm256_loadu_ps(p)
#define SELL_STORE(p, v) _mm256_storeu_ps(p, v)
#define SELL_LOAD_IDX(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define SELL_GT(len, j) _mm256_castsi256_ps(_mm256_cmpgt_epi32(len, _mm256_set1_epi32(j)))
#define SELL_GATHER_MASK(m, i, x) _mm256_mask_i32gather_ps(_mm256_setzero_ps(), x, i, m, 4)
#define SELL_FMA(a, b, acc) _mm256_fmadd_ps(a, b, acc)
#define SELL_ADD(a, b) _mm256_add_ps(a, b)
#include "cpu/sell_simd_body.h"
#define SELL_FN sell_avx2_f32_iso
#define SELL_ISO
#include "cpu/sell_simd_body.h"

spx__sell_kernel spx__sell_kernel_avx2(spx_type t, int64_t C, int iso)
{
    if (t == SPX_F64 && C % 4 == 0) return iso ? sell_avx2_f64_iso : sell_avx2_f64;
    if (t == SPX_F32 && C % 8 == 0) return iso ? sell_avx2_f32_iso : sell_avx2_f32;
    return NULL;
}
