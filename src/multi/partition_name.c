/* Names of the MSREP partition kinds, for the CLI and reports. */
#include <string.h>

#include "core/error.h"

static const char *const names[] = {"pcsr", "pcsc", "pcoo", "rows"};

const char *spx_partition_name(spx_partition k)
{
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

spx_status spx_partition_parse(const char *name, spx_partition *k)
{
    if (!name || !k) return spx__error(SPX_ERR_INVALID_ARG, "spx_partition_parse: NULL argument");
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0) {
            *k = (spx_partition)i;
            return SPX_OK;
        }
    return spx__error(SPX_ERR_INVALID_ARG, "unknown partition '%s' (pcsr, pcsc, pcoo or rows)",
                      name);
}
