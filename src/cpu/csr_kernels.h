/* The eight CSR kernels (csr_kernel.h) of one row offset type and their
 * table, included by csr.c once per type: SPX_OFF (int64_t, or int32_t for
 * a caller's 32-bit offsets read in place) and CSR_OFF_NAME (o64 or o32, the
 * names' suffix); both are undefined at the end. Defines
 * csr_kernels_<CSR_OFF_NAME>[iso][precision F32][64-bit columns]. */
#define CSR_PASTE(a, b) a##_##b
#define CSR_NAME2(a, b) CSR_PASTE(a, b)
#define CSR_NAME(a) CSR_NAME2(a, CSR_OFF_NAME)

#define SPX_FN CSR_NAME(csr_f64_i32)
#define SPX_VAL double
#define SPX_IDX int32_t
#include "cpu/csr_kernel.h"
#define SPX_FN CSR_NAME(csr_f64_i64)
#define SPX_VAL double
#define SPX_IDX int64_t
#include "cpu/csr_kernel.h"
#define SPX_FN CSR_NAME(csr_f32_i32)
#define SPX_VAL float
#define SPX_IDX int32_t
#include "cpu/csr_kernel.h"
#define SPX_FN CSR_NAME(csr_f32_i64)
#define SPX_VAL float
#define SPX_IDX int64_t
#include "cpu/csr_kernel.h"
#define SPX_FN CSR_NAME(csr_f64_i32_iso)
#define SPX_VAL double
#define SPX_IDX int32_t
#define SPX_ISO
#include "cpu/csr_kernel.h"
#define SPX_FN CSR_NAME(csr_f64_i64_iso)
#define SPX_VAL double
#define SPX_IDX int64_t
#define SPX_ISO
#include "cpu/csr_kernel.h"
#define SPX_FN CSR_NAME(csr_f32_i32_iso)
#define SPX_VAL float
#define SPX_IDX int32_t
#define SPX_ISO
#include "cpu/csr_kernel.h"
#define SPX_FN CSR_NAME(csr_f32_i64_iso)
#define SPX_VAL float
#define SPX_IDX int64_t
#define SPX_ISO
#include "cpu/csr_kernel.h"

static const csr_kernel CSR_NAME(csr_kernels)[2][2][2] = {
    {{CSR_NAME(csr_f64_i32), CSR_NAME(csr_f64_i64)},
     {CSR_NAME(csr_f32_i32), CSR_NAME(csr_f32_i64)}},
    {{CSR_NAME(csr_f64_i32_iso), CSR_NAME(csr_f64_i64_iso)},
     {CSR_NAME(csr_f32_i32_iso), CSR_NAME(csr_f32_i64_iso)}},
};

#undef CSR_NAME
#undef CSR_NAME2
#undef CSR_PASTE
#undef CSR_OFF_NAME
#undef SPX_OFF
