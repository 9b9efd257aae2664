/* Error reporting: one message buffer per thread, like errno. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char spx__message[1024];

spx_status spx__error(spx_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(spx__message, sizeof spx__message, fmt, ap);
    va_end(ap);
    return s;
}

void spx__clear_error(void) { spx__message[0] = '\0'; }

const char *spx_last_error(void) { return spx__message; }

const char *spx_status_name(spx_status s)
{
    switch (s) {
    case SPX_OK: return "SPX_OK";
    case SPX_ERR_INVALID_ARG: return "SPX_ERR_INVALID_ARG";
    case SPX_ERR_OOM: return "SPX_ERR_OOM";
    case SPX_ERR_IO: return "SPX_ERR_IO";
    case SPX_ERR_UNSUPPORTED: return "SPX_ERR_UNSUPPORTED";
    case SPX_ERR_OVERFLOW: return "SPX_ERR_OVERFLOW";
    case SPX_ERR_NOT_COMPILED: return "SPX_ERR_NOT_COMPILED";
    case SPX_ERR_DEVICE: return "SPX_ERR_DEVICE";
    case SPX_ERR_BAD_HANDLE: return "SPX_ERR_BAD_HANDLE";
    case SPX_ERR_DIM_MISMATCH: return "SPX_ERR_DIM_MISMATCH";
    case SPX_ERR_INDEX_RANGE: return "SPX_ERR_INDEX_RANGE";
    case SPX_ERR_UNSORTED: return "SPX_ERR_UNSORTED";
    case SPX_ERR_DUPLICATE: return "SPX_ERR_DUPLICATE";
    case SPX_ERR_BAD_ROWPTR: return "SPX_ERR_BAD_ROWPTR";
    case SPX_ERR_NO_FORMAT: return "SPX_ERR_NO_FORMAT";
    case SPX_ERR_BAD_PARAM: return "SPX_ERR_BAD_PARAM";
    case SPX_ERR_NO_DEVICE: return "SPX_ERR_NO_DEVICE";
    case SPX_ERR_NOT_CONVERGED: return "SPX_ERR_NOT_CONVERGED";
    case SPX_ERR_BREAKDOWN: return "SPX_ERR_BREAKDOWN";
    case SPX_ERR_MTX_BANNER: return "SPX_ERR_MTX_BANNER";
    case SPX_ERR_MTX_SIZE: return "SPX_ERR_MTX_SIZE";
    case SPX_ERR_MTX_ENTRY: return "SPX_ERR_MTX_ENTRY";
    case SPX_ERR_MTX_NUMBER: return "SPX_ERR_MTX_NUMBER";
    case SPX_ERR_MTX_TOO_FEW: return "SPX_ERR_MTX_TOO_FEW";
    case SPX_ERR_MTX_TOO_MANY: return "SPX_ERR_MTX_TOO_MANY";
    case SPX_ERR_MTX_TRUNCATED: return "SPX_ERR_MTX_TRUNCATED";
    case SPX_ERR_BIN_FORMAT: return "SPX_ERR_BIN_FORMAT";
    case SPX_ERR_MTX_SYMMETRY: return "SPX_ERR_MTX_SYMMETRY";
    }
    return "SPX_ERR_UNKNOWN";
}
