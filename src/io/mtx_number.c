/* The slow path of the decimal parser (mtx_number.h): strtod on a copy of the
 * field, for more than 19 significant digits, exponents beyond the exact fast
 * path, and the rare long double midpoint. strtod follows LC_NUMERIC; SpX
 * expects the "C" locale's '.' there, as every Matrix Market file has. */
#include "io/mtx_number.h"

#include <math.h>
#include <stdlib.h>

/* Fields longer than this are refused as bad numbers (no real number needs it). */
#define SPX__MTX_FIELD_MAX 800

int spx__mtx_real_slow(const char *s, const char *e, double *out)
{
    char tmp[SPX__MTX_FIELD_MAX + 1], *end;
    size_t n = (size_t)(e - s);
    if (n > SPX__MTX_FIELD_MAX) return SPX__NUM_BAD;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    *out = strtod(tmp, &end);
    if (end != tmp + n) return SPX__NUM_BAD;
    if (isinf(*out)) return SPX__NUM_RANGE;
    return SPX__NUM_OK;
}
