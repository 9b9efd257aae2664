/* Portable SELL-C-sigma kernels, fp64 and fp32, for any C, and the long rows
 * pass (sell.h has the layout); the bodies are sell_portable_body.h, stamped
 * out once per type. */
#include "cpu/sell.h"

#define SELL_VAL double
#define SELL_FN sell_portable_f64
#define SELL_LONG_FN sell_long_f64
#include "cpu/sell_portable_body.h"

#define SELL_VAL float
#define SELL_FN sell_portable_f32
#define SELL_LONG_FN sell_long_f32
#include "cpu/sell_portable_body.h"

spx__sell_kernel spx__sell_kernel_portable(spx_type t, int64_t C)
{
    if (C < 1 || C > SPX__SELL_CMAX) return NULL;
    return t == SPX_F64 ? sell_portable_f64 : t == SPX_F32 ? sell_portable_f32 : NULL;
}

spx__sell_long_kernel spx__sell_long_portable(spx_type t)
{
    return t == SPX_F64 ? sell_long_f64 : t == SPX_F32 ? sell_long_f32 : NULL;
}
