/* SDDMM entry kernels (sddmm.h, body sddmm_body.h) compiled for portable C (the compiler's baseline
 * vectors). */
#include "cpu/isa.h"
#include "cpu/sddmm.h"

#define SDDMM_FN sddmm_portable_f64_i32
#define SDDMM_VAL double
#define SDDMM_IDX int32_t
#include "cpu/sddmm_body.h"
#define SDDMM_FN sddmm_portable_f64_i64
#define SDDMM_VAL double
#define SDDMM_IDX int64_t
#include "cpu/sddmm_body.h"
#define SDDMM_FN sddmm_portable_f32_i32
#define SDDMM_VAL float
#define SDDMM_IDX int32_t
#include "cpu/sddmm_body.h"
#define SDDMM_FN sddmm_portable_f32_i64
#define SDDMM_VAL float
#define SDDMM_IDX int64_t
#include "cpu/sddmm_body.h"

const spx__sddmm_kernel spx__sddmm_portable[2][2] = {
    {sddmm_portable_f64_i32, sddmm_portable_f64_i64},
    {sddmm_portable_f32_i32, sddmm_portable_f32_i64},
};

const spx__sddmm_kernel (*spx__sddmm_kernels(void))[2]
{
    spx__isa isa = spx__isa_active();
    return isa == SPX__ISA_AVX512 ? spx__sddmm_avx512
           : isa == SPX__ISA_AVX2 ? spx__sddmm_avx2
                                  : spx__sddmm_portable;
}
