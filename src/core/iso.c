/* Iso-valued matrices (iso.h): spx_matrix_iso and the values= choice of the
 * formats that have an iso path.
 *
 * A is iso when it stores at least one value and every stored value has the
 * bits of the first, which is finite. Bits, not ==: +0 and -0 differ, and a
 * plan that folds v into alpha must give what the stored values give. Finite:
 * an empty row's sum is 0, and Inf * 0 would turn it into NaN. fp32 values are
 * compared as their (exact) fp64 conversions, which keeps their bits apart.
 *
 * The scan is O(nnz): the first block serially (a matrix that is not iso
 * almost always shows it there), the other blocks in parallel, each to its
 * first differing value. A matrix that owns its values keeps the answer
 * (matrix.h: iso_state, iso_value); a wrapped one (spx_matrix_wrap_csr,
 * spx_matrix_wrap, views) is scanned on every call, since its caller may
 * change the values between plans. */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/iso.h"
#include "core/matrix.h"
#include "plan/format.h"

#define ISO_BLOCK 65536

static uint64_t bits_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* First k in [b, e) whose value's bits differ from bits, or e. */
static int64_t first_other_in(const spx_matrix *A, int64_t b, int64_t e, uint64_t bits)
{
    for (int64_t k = b; k < e; k++)
        if (bits_of(spx__val(A, k)) != bits) return k;
    return e;
}

/* First entry whose value's bits differ from entry 0's, or nnz. */
static int64_t first_other(const spx_matrix *A)
{
    const int64_t n = A->nnz, blocks = (n + ISO_BLOCK - 1) / ISO_BLOCK;
    const uint64_t bits = bits_of(spx__val(A, 0));
    const int64_t first_end = n < ISO_BLOCK ? n : ISO_BLOCK;
    int64_t found = first_other_in(A, 0, first_end, bits);
    if (found < first_end || blocks <= 1) return found < first_end ? found : n;
    found = n;
#pragma omp parallel for schedule(dynamic, 1) reduction(min : found)
    for (int64_t b = 1; b < blocks; b++) {
        const int64_t e = (b + 1) * ISO_BLOCK < n ? (b + 1) * ISO_BLOCK : n;
        const int64_t k = first_other_in(A, b * ISO_BLOCK, e, bits);
        if (k < e && k < found) found = k;
    }
    return found;
}

/* The scan (see the top of the file): 1 and *value when A is iso. */
static int scan_iso(const spx_matrix *A, double *value)
{
    *value = 0.0;
    if (A->nnz == 0 || !isfinite(spx__val(A, 0))) return 0;
    if (first_other(A) < A->nnz) return 0;
    *value = spx__val(A, 0);
    return 1;
}

int spx_matrix_iso(const spx_matrix *A, double *value)
{
    double v = 0.0;
    int iso;
    if (value) *value = 0.0;
    if (spx__check_matrix(A, "spx_matrix_iso") != SPX_OK) return 0;
    /* The answer is a cache, not part of the matrix: kept through a const
     * handle, written once with release order, read with acquire. */
    spx_matrix *M = (spx_matrix *)A;
    const int state = __atomic_load_n(&M->iso_state, __ATOMIC_ACQUIRE);
    if (state != SPX__ISO_UNKNOWN && A->owns_arrays) {
        iso = state == SPX__ISO_YES;
        if (iso) __atomic_load(&M->iso_value, &v, __ATOMIC_RELAXED);
    } else {
        iso = scan_iso(A, &v);
        if (A->owns_arrays) {
            __atomic_store(&M->iso_value, &v, __ATOMIC_RELAXED);
            __atomic_store_n(&M->iso_state, iso ? SPX__ISO_YES : SPX__ISO_NO, __ATOMIC_RELEASE);
        }
    }
    if (value) *value = v;
    return iso;
}

spx_status spx__param_values(const char *who, const char *value, spx__values_mode *mode)
{
    if (strcmp(value, "auto") == 0)
        *mode = SPX__VALUES_AUTO;
    else if (strcmp(value, "stored") == 0)
        *mode = SPX__VALUES_STORED;
    else if (strcmp(value, "iso") == 0)
        *mode = SPX__VALUES_ISO;
    else
        return spx__error(SPX_ERR_BAD_PARAM, "%s: values=%s is not auto, stored or iso", who,
                          value);
    return SPX_OK;
}

/* SPX_ERR_BAD_PARAM saying why A is not iso. */
static spx_status not_iso(const spx_matrix *A, const char *who)
{
    if (A->nnz == 0)
        return spx__error(SPX_ERR_BAD_PARAM, "%s: values=iso, but the matrix stores no values",
                          who);
    const double v0 = spx__val(A, 0);
    if (!isfinite(v0))
        return spx__error(SPX_ERR_BAD_PARAM, "%s: values=iso, but the value %g is not finite",
                          who, v0);
    const int64_t k = first_other(A);
    return spx__error(SPX_ERR_BAD_PARAM,
                      "%s: values=iso, but the matrix is not iso-valued (entry 0 is %.17g, "
                      "entry %lld is %.17g)",
                      who, v0, (long long)k, spx__val(A, k));
}

spx_status spx__values_choose(const spx_matrix *A, spx__values_mode mode, spx_type t,
                              const char *who, int *iso, double *v)
{
    double value = 0.0;
    *iso = 0;
    *v = 0.0;
    if (mode == SPX__VALUES_STORED) return SPX_OK;
    if (!spx_matrix_iso(A, &value))
        return mode == SPX__VALUES_ISO ? not_iso(A, who) : SPX_OK;
    const double held = t == SPX_F64 ? value : (double)(float)value;
    if (!isfinite(held))
        return mode == SPX__VALUES_ISO
                   ? spx__error(SPX_ERR_BAD_PARAM,
                                "%s: values=iso, but the value %g overflows the plan's float", who,
                                value)
                   : SPX_OK;
    *iso = 1;
    *v = held;
    return SPX_OK;
}

void spx__values_iso_array(const void *values, int64_t n, spx_type t, int *iso, double *v)
{
    const size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    const unsigned char *b = values;
    double first;
    *iso = 0;
    *v = 0.0;
    if (n <= 0) return;
    first = t == SPX_F64 ? ((const double *)values)[0] : (double)((const float *)values)[0];
    if (!isfinite(first)) return;
    for (int64_t k = 1; k < n; k++)
        if (memcmp(b + (size_t)k * es, b, es) != 0) return;
    *iso = 1;
    *v = first;
}
