/* The last-level cache's size as the OS reports it (Linux sysfs, cpu0's
 * highest cache level), in bytes; 0 where it does not say. A VM may report
 * its host's cache, of which it gets a share: the environment variable
 * SPX_LLC_BYTES=N (bytes) overrides the report. */
#ifndef SPX_CORE_LLC_H
#define SPX_CORE_LLC_H

#include <stddef.h>

size_t spx__llc_bytes(void);

#endif
