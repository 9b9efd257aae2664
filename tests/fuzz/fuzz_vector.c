/* libFuzzer harness: the CLI's vector text reader (cli_read_vector in
 * tools/vecio.c). The first byte of the input, modulo 8, is the number of
 * values wanted; the rest is the file. The vector has exactly that many
 * entries, so that ASan sees any write past them.
 *
 * A file that reads holds no NUL byte (a line with one is refused, not cut
 * short), and an infinite or NaN value only where the file spells inf or
 * nan (a finite number beyond double, 1e999, is refused). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"

/* Whether text[0..n) holds word (lower case), ignoring case. */
static int spells(const uint8_t *text, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++) {
        size_t k = 0;
        while (k < w && tolower(text[i + k]) == word[k])
            k++;
        if (k == w) return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    int64_t n = data[0] % 8;
    double *v = malloc((size_t)n * sizeof *v);
    spx_fuzz_require(v != NULL || n == 0, "out of memory in the harness");
    const char *path = spx_fuzz_file("x.txt", data + 1, size - 1);
    int rc = cli_read_vector("fuzz", path, n, "the wanted count", v);
    spx_fuzz_require(rc == CLI_OK || rc == CLI_RUNTIME, "an exit code other than 0 or 1");
    if (rc == CLI_OK) {
        spx_fuzz_require(memchr(data + 1, 0, size - 1) == NULL, "a file with a NUL byte reads");
        for (int64_t i = 0; i < n; i++) {
            const char *word = isnan(v[i]) ? "nan" : "inf";
            spx_fuzz_require(isfinite(v[i]) || spells(data + 1, size - 1, word),
                             "a value out of range reads as infinity");
        }
    }
    free(v);
    return 0;
}
