/* Errors: every failure records a message for spx_last_error() and returns a status. */
#ifndef SPX_CORE_ERROR_H
#define SPX_CORE_ERROR_H

#include "spx.h"

#if defined(__GNUC__)
#define SPX__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SPX__PRINTF(a, b)
#endif

/* Record a printf-style message for this thread and return s. */
spx_status spx__error(spx_status s, const char *fmt, ...) SPX__PRINTF(2, 3);

/* Clear the thread's message (called by public entry points that succeed). */
void spx__clear_error(void);

/* Evaluate a call; on failure jump to the function's one cleanup label. */
#define SPX_TRY(call)                                                                    \
    do {                                                                                 \
        st = (call);                                                                     \
        if (st != SPX_OK) goto cleanup;                                                  \
    } while (0)

#endif
