/* Portable SELL-C-sigma kernels, fp64 and fp32, for any C, and the long rows
 * pass (sell.h has the layout); the bodies are sell_portable_body.h, stamped
 * out per type for stored values and for iso plans (no values). */
#include "cpu/sell.h"

#define SELL_VAL double
#define SELL_FN sell_portable_f64
#define SELL_LONG_FN sell_long_f64
#include "cpu/sell_portable_body.h"
#define SELL_FN sell_portable_f64_iso
#define SELL_LONG_FN sell_long_f64_iso
#define SELL_ISO
#include "cpu/sell_portable_body.h"

#define SELL_VAL float
#define SELL_FN sell_portable_f32
#define SELL_LONG_FN sell_long_f32
#include "cpu/sell_portable_body.h"
#define SELL_FN sell_portable_f32_iso
#define SELL_LONG_FN sell_long_f32_iso
#define SELL_ISO
#include "cpu/sell_portable_body.h"

spx__sell_kernel spx__sell_kernel_portable(spx_type t, int64_t C, int iso)
{
    if (C < 1 || C > SPX__SELL_CMAX) return NULL;
    if (t == SPX_F64) return iso ? sell_portable_f64_iso : sell_portable_f64;
    return t == SPX_F32 ? (iso ? sell_portable_f32_iso : sell_portable_f32) : NULL;
}

spx__sell_long_kernel spx__sell_long_portable(spx_type t, int iso)
{
    if (t == SPX_F64) return iso ? sell_long_f64_iso : sell_long_f64;
    return t == SPX_F32 ? (iso ? sell_long_f32_iso : sell_long_f32) : NULL;
}
