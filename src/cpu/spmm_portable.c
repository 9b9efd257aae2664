/* SpMM row kernels (spmm.h, body spmm_body.h) compiled for portable C (the compiler's baseline
 * vectors). */
#include "cpu/isa.h"
#include "cpu/spmm.h"

#define SPMM_FN spmm_portable_f64_i32
#define SPMM_VAL double
#define SPMM_IDX int32_t
#define SPMM_TILE SPX__SPMM_TILE_F64
#include "cpu/spmm_body.h"
#define SPMM_FN spmm_portable_f64_i64
#define SPMM_VAL double
#define SPMM_IDX int64_t
#define SPMM_TILE SPX__SPMM_TILE_F64
#include "cpu/spmm_body.h"
#define SPMM_FN spmm_portable_f32_i32
#define SPMM_VAL float
#define SPMM_IDX int32_t
#define SPMM_TILE SPX__SPMM_TILE_F32
#include "cpu/spmm_body.h"
#define SPMM_FN spmm_portable_f32_i64
#define SPMM_VAL float
#define SPMM_IDX int64_t
#define SPMM_TILE SPX__SPMM_TILE_F32
#include "cpu/spmm_body.h"

const spx__spmm_kernel spx__spmm_portable[2][2] = {
    {{spmm_portable_f64_i32_rows, spmm_portable_f64_i32_slice},
     {spmm_portable_f64_i64_rows, spmm_portable_f64_i64_slice}},
    {{spmm_portable_f32_i32_rows, spmm_portable_f32_i32_slice},
     {spmm_portable_f32_i64_rows, spmm_portable_f32_i64_slice}},
};

const spx__spmm_kernel (*spx__spmm_kernels(void))[2]
{
    spx__isa isa = spx__isa_active();
    return isa == SPX__ISA_AVX512 ? spx__spmm_avx512
           : isa == SPX__ISA_AVX2 ? spx__spmm_avx2
                                  : spx__spmm_portable;
}
