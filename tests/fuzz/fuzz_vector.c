/* libFuzzer harness: the CLI's vector text reader (cli_read_vector in
 * tools/vecio.c). The first byte of the input, modulo 8, is the number of
 * values wanted; the rest is the file. The vector has exactly that many
 * entries, so that ASan sees any write past them. */
#include <stdlib.h>

#include "cli.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    int64_t n = data[0] % 8;
    double *v = malloc((size_t)n * sizeof *v);
    spx_fuzz_require(v != NULL || n == 0, "out of memory in the harness");
    const char *path = spx_fuzz_file("x.txt", data + 1, size - 1);
    int rc = cli_read_vector("fuzz", path, n, "the wanted count", v);
    spx_fuzz_require(rc == CLI_OK || rc == CLI_RUNTIME, "an exit code other than 0 or 1");
    free(v);
    return 0;
}
