/* Iso-valued matrices: every stored value is one number v (pattern files,
 * graphs). Such a matrix is multiplied from its structure alone,
 *     y = alpha * A * x + beta * y = (alpha * v) * (pattern(A) * x) + beta * y,
 * with v folded into alpha once per call and no value array stored or read.
 * spx_matrix_iso (spx.h, iso.c) says whether A is iso; formats that have an
 * iso path (csr and sell, CPU and CUDA) take the parameter
 * values=auto|stored|iso and decide with spx__values_choose. */
#ifndef SPX_CORE_ISO_H
#define SPX_CORE_ISO_H

#include "spx.h"

typedef enum spx__values_mode {
    SPX__VALUES_AUTO = 0, /* iso when A is iso (the default) */
    SPX__VALUES_STORED,   /* read the stored values whatever they are */
    SPX__VALUES_ISO       /* iso; SPX_ERR_BAD_PARAM when A is not */
} spx__values_mode;

/* Parse the value of values= into *mode; SPX_ERR_BAD_PARAM naming who. */
spx_status spx__param_values(const char *who, const char *value, spx__values_mode *mode);

/* Whether a plan of A with value type t takes the iso path under mode: *iso
 * is 1 for auto when A is iso and for iso, 0 for stored and for auto when A
 * is not iso. *v is then A's value as the plan holds it: double for SPX_F64,
 * rounded to float for SPX_F32 and SPX_F16 (kept in float: the value is never
 * stored in half, so it need not fit half). A value that overflows float is
 * not taken by auto. mode iso on a matrix that is not iso (or whose value
 * overflows the plan's type) is SPX_ERR_BAD_PARAM with the reason, naming
 * who. The scan behind it (spx_matrix_iso) runs inside plan creation, so it
 * is timed as preprocessing. */
spx_status spx__values_choose(const spx_matrix *A, spx__values_mode mode, spx_type t,
                              const char *who, int *iso, double *v);

/* The choice of spx__values_choose for the n new values of an update
 * (spx_plan_update_values), on the host, of the plan's vector type t
 * (double for SPX_F64, else float): *iso is 1 when n > 0, the first value is
 * finite and every value has its bits (then *v is it, as a double); 0
 * otherwise. Values of a float plan are float already: nothing overflows. */
void spx__values_iso_array(const void *values, int64_t n, spx_type t, int *iso, double *v);

#endif
