/* The last-level cache size (llc.h), from /sys/devices/system/cpu/cpu0/cache,
 * or SPX_LLC_BYTES. */
#include <stdio.h>
#include <stdlib.h>

#include "core/llc.h"

size_t spx__llc_bytes(void)
{
    const char *env = getenv("SPX_LLC_BYTES");
    if (env && *env) return (size_t)strtoull(env, NULL, 10);
    size_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 16; i++) {
        char path[96], unit = 0;
        int level = 0;
        unsigned long size = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        int got = fscanf(f, "%d", &level);
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f) continue;
        got += fscanf(f, "%lu%c", &size, &unit);
        fclose(f);
        if (got < 2 || level < best_level) continue;
        best_level = level;
        best = (size_t)size * (unit == 'K' ? 1024u : unit == 'M' ? 1048576u : 1u);
    }
    return best;
}
