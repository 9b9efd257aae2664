/* AXC / AXT kernels for AVX-512: one ZMM per slab vector (THW a multiple of 8
 * for fp64, 16 for fp32). Gathers are masked by column >= 0; the in-register
 * segmented scan is Hillis-Steele over log2(VL) lane shifts with the head
 * mask carried along (a lane stops adding once a head lies between). */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/axt.h"

/* ---- fp64: 8 lanes */
static inline __m512d v64_gather(const double *x, const int32_t *idx)
{
    __m256i i = _mm256_loadu_si256((const __m256i *)idx);
    __mmask8 m = _mm256_cmpge_epi32_mask(i, _mm256_setzero_si256());
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, i, x, 8);
}

static inline __mmask8 v64_head(const uint32_t *h)
{
    return _mm256_test_epi32_mask(_mm256_loadu_si256((const __m256i *)h), _mm256_set1_epi32(-1));
}

static inline double v64_last(__m512d v)
{
    __m128d hi = _mm512_extractf64x2_pd(v, 3);
    return _mm_cvtsd_f64(_mm_unpackhi_pd(hi, hi));
}

/* Shift lanes up by d (lane i gets lane i-d, low lanes 0). */
#define V64_UP(v, d)                                                                               \
    _mm512_castsi512_pd(                                                                           \
        _mm512_alignr_epi64(_mm512_castpd_si512(v), _mm512_setzero_si512(), 8 - (d)))

static inline __m512d v64_segscan(__m512d v, __mmask8 h)
{
    unsigned f = h;
    v = _mm512_mask_add_pd(v, (__mmask8)(~f & 0xFEu), v, V64_UP(v, 1));
    f |= f << 1;
    v = _mm512_mask_add_pd(v, (__mmask8)(~f & 0xFCu), v, V64_UP(v, 2));
    f |= f << 2;
    v = _mm512_mask_add_pd(v, (__mmask8)(~f & 0xF0u), v, V64_UP(v, 4));
    return v;
}

#define VL 8
#define MT __mmask8
#define SPX_VAL double
#define VT __m512d
#define SPX_SFX(n) n##_f64_avx512
#define v_zero() _mm512_setzero_pd()
#define v_load(p) _mm512_loadu_pd(p)
#define v_store(p, v) _mm512_storeu_pd((p), (v))
#define v_mul(a, b) _mm512_mul_pd((a), (b))
#define v_fma(a, b, c) _mm512_fmadd_pd((a), (b), (c))
#define v_reduce(v) _mm512_reduce_add_pd(v)
#define v_gather(x, idx) v64_gather((x), (idx))
#define v_head(h) v64_head(h)
#define v_headbits(m) ((unsigned)(m))
#define v_restart(m, acc, p) _mm512_mask_blend_pd((m), _mm512_add_pd((acc), (p)), (p))
#define v_segscan(p, m) v64_segscan((p), (m))
#define v_last(v) v64_last(v)
#include "cpu/axt_body.h"

/* ---- fp32: 16 lanes */
static inline __m512 v32_gather(const float *x, const int32_t *idx)
{
    __m512i i = _mm512_loadu_si512((const void *)idx);
    __mmask16 m = _mm512_cmpge_epi32_mask(i, _mm512_setzero_si512());
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, i, x, 4);
}

static inline __mmask16 v32_head(const uint32_t *h)
{
    return _mm512_test_epi32_mask(_mm512_loadu_si512((const void *)h), _mm512_set1_epi32(-1));
}

static inline float v32_last(__m512 v)
{
    __m128 hi = _mm512_extractf32x4_ps(v, 3);
    return _mm_cvtss_f32(_mm_shuffle_ps(hi, hi, 3));
}

#define V32_UP(v, d)                                                                               \
    _mm512_castsi512_ps(                                                                           \
        _mm512_alignr_epi32(_mm512_castps_si512(v), _mm512_setzero_si512(), 16 - (d)))

static inline __m512 v32_segscan(__m512 v, __mmask16 h)
{
    unsigned f = h;
    v = _mm512_mask_add_ps(v, (__mmask16)(~f & 0xFFFEu), v, V32_UP(v, 1));
    f |= f << 1;
    v = _mm512_mask_add_ps(v, (__mmask16)(~f & 0xFFFCu), v, V32_UP(v, 2));
    f |= f << 2;
    v = _mm512_mask_add_ps(v, (__mmask16)(~f & 0xFFF0u), v, V32_UP(v, 4));
    f |= f << 4;
    v = _mm512_mask_add_ps(v, (__mmask16)(~f & 0xFF00u), v, V32_UP(v, 8));
    return v;
}

#define VL 16
#define MT __mmask16
#define SPX_VAL float
#define VT __m512
#define SPX_SFX(n) n##_f32_avx512
#define v_zero() _mm512_setzero_ps()
#define v_load(p) _mm512_loadu_ps(p)
#define v_store(p, v) _mm512_storeu_ps((p), (v))
#define v_mul(a, b) _mm512_mul_ps((a), (b))
#define v_fma(a, b, c) _mm512_fmadd_ps((a), (b), (c))
#define v_reduce(v) ((double)_mm512_reduce_add_ps(v))
#define v_gather(x, idx) v32_gather((x), (idx))
#define v_head(h) v32_head(h)
#define v_headbits(m) ((unsigned)(m))
#define v_restart(m, acc, p) _mm512_mask_blend_ps((m), _mm512_add_ps((acc), (p)), (p))
#define v_segscan(p, m) v32_segscan((p), (m))
#define v_last(v) v32_last(v)
#include "cpu/axt_body.h"

void spx__axt_kernels_avx512(spx__axt_kernels *k)
{
    fill_f64_avx512(k, 0, SPX__ISA_AVX512);
    fill_f32_avx512(k, 1, SPX__ISA_AVX512);
}
