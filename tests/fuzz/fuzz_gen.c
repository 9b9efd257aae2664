/* libFuzzer harness: spx_generate on the input as a spec (up to its first
 * NUL). "$M" in the spec stands for a small Matrix Market file written at
 * start, so that scale:file=$M,... reaches the scale-up generator.
 *
 * The generators' test limit (spx__gen_set_max_nnz) keeps each run small: a
 * larger spec must be refused with SPX_ERR_OOM before any work. A matrix made
 * must be valid and the same on one thread as on several (README promise). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gen/gen.h"

#define MAX_NNZ 200000

static const char *base_path;

void spx_fuzz_setup(void)
{
    static const char base[] = "%%MatrixMarket matrix coordinate real general\n"
                               "4 3 6\n1 1 2.5\n1 3 -1\n2 2 4\n3 1 -1\n4 2 1e-3\n4 3 7\n";
    spx__gen_set_max_nnz(MAX_NNZ);
    base_path = spx_fuzz_file("base.mtx", (const uint8_t *)base, sizeof base - 1);
}

/* spec with every "$M" replaced by the base matrix's path; free() it. */
static char *expand(const char *spec)
{
    size_t n = 0, plen = strlen(base_path);
    for (const char *p = spec; (p = strstr(p, "$M")); p += 2)
        n++;
    char *out = malloc(strlen(spec) + n * plen + 1), *w = out;
    spx_fuzz_require(out != NULL, "out of memory in the harness");
    for (const char *p = spec; *p;) {
        if (p[0] == '$' && p[1] == 'M') {
            memcpy(w, base_path, plen);
            w += plen;
            p += 2;
        } else {
            *w++ = *p++;
        }
    }
    *w = '\0';
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *raw = spx_fuzz_string(data, size), *spec = expand(raw);
    spx_matrix *A = (spx_matrix *)&A, *B = NULL;
    spx_status st = spx_generate(spec, &A);
    if (st != SPX_OK) {
        spx_fuzz_failed(st, A);
    } else {
        int64_t nnz;
        spx_fuzz_require(spx_matrix_validate(A) == SPX_OK, "a generated matrix is not valid");
        spx_fuzz_require(spx_matrix_dims(A, NULL, NULL, &nnz) == SPX_OK && nnz <= MAX_NNZ,
                         "a matrix over the test limit was made");
        omp_set_num_threads(1);
        spx_fuzz_require(spx_generate(spec, &B) == SPX_OK, "one thread fails where several do not");
        omp_set_num_threads(SPX_FUZZ_THREADS);
        spx_fuzz_require(spx_fuzz_same_matrix(A, B), "the thread count changes the matrix");
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    free(spec);
    free(raw);
    return 0;
}
