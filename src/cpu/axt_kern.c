/* AXC / AXT portable kernels: the body of axt_body.h with one lane per
 * "vector", so any THW works; the table every ISA starts from. */
#include <stdint.h>

#include "cpu/axt.h"

#define VL 1
#define MT int
#define SPX_VAL double
#define VT double
#define SPX_SFX(n) n##_f64
#define v_zero() 0.0
#define v_load(p) (*(p))
#define v_store(p, v) (*(p) = (v))
#define v_mul(a, b) ((a) * (b))
#define v_fma(a, b, c) ((a) * (b) + (c))
#define v_reduce(v) ((double)(v))
#define v_gather(x, idx) ((idx)[0] >= 0 ? (x)[(idx)[0]] : 0.0)
#define v_head(h) ((h)[0] != 0)
#define v_headbits(m) ((unsigned)(m))
#define v_restart(m, acc, p) ((m) ? (p) : (acc) + (p))
#define v_segscan(p, m) (p)
#define v_last(v) (v)
#include "cpu/axt_body.h"

#define VL 1
#define MT int
#define SPX_VAL float
#define VT float
#define SPX_SFX(n) n##_f32
#define v_zero() 0.0f
#define v_load(p) (*(p))
#define v_store(p, v) (*(p) = (v))
#define v_mul(a, b) ((a) * (b))
#define v_fma(a, b, c) ((a) * (b) + (c))
#define v_reduce(v) ((double)(v))
#define v_gather(x, idx) ((idx)[0] >= 0 ? (x)[(idx)[0]] : 0.0f)
#define v_head(h) ((h)[0] != 0)
#define v_headbits(m) ((unsigned)(m))
#define v_restart(m, acc, p) ((m) ? (p) : (acc) + (p))
#define v_segscan(p, m) (p)
#define v_last(v) (v)
#include "cpu/axt_body.h"

void spx__axt_kernels_portable(spx__axt_kernels *k)
{
    fill_f64(k, 0, SPX__ISA_SCALAR);
    fill_f32(k, 1, SPX__ISA_SCALAR);
}
