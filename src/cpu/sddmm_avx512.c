/* SDDMM entry kernels (sddmm.h, body sddmm_body.h) compiled for AVX-512; called only after run-time
 * detection (sddmm_portable.c's spx__sddmm_kernels). */
#include "cpu/sddmm.h"

#define SDDMM_FN sddmm_avx512_f64_i32
#define SDDMM_VAL double
#define SDDMM_IDX int32_t
#include "cpu/sddmm_body.h"
#define SDDMM_FN sddmm_avx512_f64_i64
#define SDDMM_VAL double
#define SDDMM_IDX int64_t
#include "cpu/sddmm_body.h"
#define SDDMM_FN sddmm_avx512_f32_i32
#define SDDMM_VAL float
#define SDDMM_IDX int32_t
#include "cpu/sddmm_body.h"
#define SDDMM_FN sddmm_avx512_f32_i64
#define SDDMM_VAL float
#define SDDMM_IDX int64_t
#include "cpu/sddmm_body.h"

const spx__sddmm_kernel spx__sddmm_avx512[2][2] = {
    {sddmm_avx512_f64_i32, sddmm_avx512_f64_i64},
    {sddmm_avx512_f32_i32, sddmm_avx512_f32_i64},
};
