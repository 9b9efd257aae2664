/* SpMM row kernels (spmm.h, body spmm_body.h) compiled for AVX2 and FMA; called
 * only after run-time detection (spmm_portable.c's spx__spmm_kernels). */
#include "cpu/spmm.h"

#define SPMM_FN spmm_avx2_f64_i32
#define SPMM_VAL double
#define SPMM_IDX int32_t
#define SPMM_TILE SPX__SPMM_TILE_F64
#include "cpu/spmm_body.h"
#define SPMM_FN spmm_avx2_f64_i64
#define SPMM_VAL double
#define SPMM_IDX int64_t
#define SPMM_TILE SPX__SPMM_TILE_F64
#include "cpu/spmm_body.h"
#define SPMM_FN spmm_avx2_f32_i32
#define SPMM_VAL float
#define SPMM_IDX int32_t
#define SPMM_TILE SPX__SPMM_TILE_F32
#include "cpu/spmm_body.h"
#define SPMM_FN spmm_avx2_f32_i64
#define SPMM_VAL float
#define SPMM_IDX int64_t
#define SPMM_TILE SPX__SPMM_TILE_F32
#include "cpu/spmm_body.h"

const spx__spmm_kernel spx__spmm_avx2[2][2] = {
    {{spmm_avx2_f64_i32_rows, spmm_avx2_f64_i32_slice},
     {spmm_avx2_f64_i64_rows, spmm_avx2_f64_i64_slice}},
    {{spmm_avx2_f32_i32_rows, spmm_avx2_f32_i32_slice},
     {spmm_avx2_f32_i64_rows, spmm_avx2_f32_i64_slice}},
};
