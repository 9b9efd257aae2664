/* AXC / AXT kernels for AVX2: one YMM per slab vector (THW a multiple of 4
 * for fp64, 8 for fp32), masked gathers by column >= 0, head masks as vector
 * lane masks. The segmented scan is the AVX-512 one with lane permutes: at
 * distance d a lane adds lane i-d unless a head lies in between (or i < d). */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/axt.h"

/* ---- fp64: 4 lanes; head masks are 64-bit lane masks */
static inline __m256d v64_gather(const double *x, const int32_t *idx)
{
    __m128i i = _mm_loadu_si128((const __m128i *)idx);
    __m256d m = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpgt_epi32(i, _mm_set1_epi32(-1))));
    return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), x, i, m, 8);
}

static inline __m256d v64_head(const uint32_t *h)
{
    __m128i z = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)h), _mm_setzero_si128());
    return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_xor_si128(z, _mm_set1_epi32(-1))));
}

static inline double v64_reduce(__m256d v)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

static inline __m256d v64_segscan(__m256d v, __m256d f)
{
    const __m256d lo1 = _mm256_castsi256_pd(_mm256_setr_epi64x(-1, 0, 0, 0));
    const __m256d lo2 = _mm256_castsi256_pd(_mm256_setr_epi64x(-1, -1, 0, 0));
    __m256d up = _mm256_permute4x64_pd(v, _MM_SHUFFLE(2, 1, 0, 0));
    v = _mm256_blendv_pd(_mm256_add_pd(v, up), v, _mm256_or_pd(f, lo1));
    f = _mm256_or_pd(f, _mm256_permute4x64_pd(f, _MM_SHUFFLE(2, 1, 0, 0)));
    up = _mm256_permute4x64_pd(v, _MM_SHUFFLE(1, 0, 0, 0));
    return _mm256_blendv_pd(_mm256_add_pd(v, up), v, _mm256_or_pd(f, lo2));
}

#define VL 4
#define MT __m256d
#define SPX_VAL double
#define VT __m256d
#define SPX_SFX(n) n##_f64_avx2
#define v_zero() _mm256_setzero_pd()
#define v_load(p) _mm256_loadu_pd(p)
#define v_store(p, v) _mm256_storeu_pd((p), (v))
#define v_mul(a, b) _mm256_mul_pd((a), (b))
#define v_fma(a, b, c) _mm256_fmadd_pd((a), (b), (c))
#define v_reduce(v) v64_reduce(v)
#define v_gather(x, idx) v64_gather((x), (idx))
#define v_head(h) v64_head(h)
#define v_headbits(m) ((unsigned)_mm256_movemask_pd(m))
#define v_segscan(p, m) v64_segscan((p), (m))
#define v_last(v) _mm256_cvtsd_f64(_mm256_permute4x64_pd((v), 3))
#define v_restart(m, acc, p) _mm256_blendv_pd(_mm256_add_pd((acc), (p)), (p), (m))
#include "cpu/axt_body.h"

/* ---- fp32: 8 lanes */
static inline __m256 v32_gather(const float *x, const int32_t *idx)
{
    __m256i i = _mm256_loadu_si256((const __m256i *)idx);
    __m256 m = _mm256_castsi256_ps(_mm256_cmpgt_epi32(i, _mm256_set1_epi32(-1)));
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), x, i, m, 4);
}

static inline __m256 v32_head(const uint32_t *h)
{
    __m256i z = _mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)h), _mm256_setzero_si256());
    return _mm256_castsi256_ps(_mm256_xor_si256(z, _mm256_set1_epi32(-1)));
}

static inline double v32_reduce(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return (double)_mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}

/* Lanes i-d (clamped at 0) and the mask of lanes below d. */
#define V32_UP(v, d)                                                                               \
    _mm256_permutevar8x32_ps(                                                                      \
        (v), _mm256_max_epi32(_mm256_sub_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),          \
                                               _mm256_set1_epi32(d)),                              \
                              _mm256_setzero_si256()))
#define V32_LO(d)                                                                                  \
    _mm256_castsi256_ps(                                                                           \
        _mm256_cmpgt_epi32(_mm256_set1_epi32(d), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)))

static inline __m256 v32_segscan(__m256 v, __m256 f)
{
    v = _mm256_blendv_ps(_mm256_add_ps(v, V32_UP(v, 1)), v, _mm256_or_ps(f, V32_LO(1)));
    f = _mm256_or_ps(f, V32_UP(f, 1));
    v = _mm256_blendv_ps(_mm256_add_ps(v, V32_UP(v, 2)), v, _mm256_or_ps(f, V32_LO(2)));
    f = _mm256_or_ps(f, V32_UP(f, 2));
    return _mm256_blendv_ps(_mm256_add_ps(v, V32_UP(v, 4)), v, _mm256_or_ps(f, V32_LO(4)));
}

#define VL 8
#define MT __m256
#define SPX_VAL float
#define VT __m256
#define SPX_SFX(n) n##_f32_avx2
#define v_zero() _mm256_setzero_ps()
#define v_load(p) _mm256_loadu_ps(p)
#define v_store(p, v) _mm256_storeu_ps((p), (v))
#define v_mul(a, b) _mm256_mul_ps((a), (b))
#define v_fma(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define v_reduce(v) v32_reduce(v)
#define v_gather(x, idx) v32_gather((x), (idx))
#define v_head(h) v32_head(h)
#define v_headbits(m) ((unsigned)_mm256_movemask_ps(m))
#define v_segscan(p, m) v32_segscan((p), (m))
#define v_last(v) _mm256_cvtss_f32(_mm256_permutevar8x32_ps((v), _mm256_set1_epi32(7)))
#define v_restart(m, acc, p) _mm256_blendv_ps(_mm256_add_ps((acc), (p)), (p), (m))
#include "cpu/axt_body.h"

void spx__axt_kernels_avx2(spx__axt_kernels *k)
{
    fill_f64_avx2(k, 0, SPX__ISA_AVX2);
    fill_f32_avx2(k, 1, SPX__ISA_AVX2);
}
