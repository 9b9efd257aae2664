/* Helpers shared by the libFuzzer harnesses (contract in fuzz.h). */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "fuzz.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FILES 8

static char folder[256];
static char files[MAX_FILES][320];
static int nfiles;

static void remove_files(void)
{
    for (int i = 0; i < nfiles; i++)
        unlink(files[i]);
    if (folder[0]) rmdir(folder);
}

void spx_fuzz_require(int cond, const char *what)
{
    if (cond) return;
    fprintf(stderr, "spx fuzz: contract broken: %s (last error: \"%s\")\n", what,
            spx_last_error());
    abort();
}

/* The harnesses without a setup of their own. */
__attribute__((weak)) void spx_fuzz_setup(void)
{
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *tmp = getenv("TMPDIR");
    (void)argc;
    (void)argv;
    /* Set before the first parallel region: idle threads sleep instead of spinning. */
    setenv("OMP_WAIT_POLICY", "passive", 0);
    omp_set_num_threads(SPX_FUZZ_THREADS);
    if (access("/dev/shm", W_OK) == 0) tmp = "/dev/shm";
    snprintf(folder, sizeof folder, "%s/spx-fuzz-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    spx_fuzz_require(mkdtemp(folder) != NULL, "cannot create a temporary folder");
    atexit(remove_files);
    spx_fuzz_setup();
    return 0;
}

const char *spx_fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    char path[sizeof files[0]];
    int known = -1;
    snprintf(path, sizeof path, "%s/%s", folder, name);
    for (int i = 0; i < nfiles; i++)
        if (strcmp(files[i], path) == 0) known = i;
    if (known < 0) {
        spx_fuzz_require(nfiles < MAX_FILES, "too many temporary file names");
        known = nfiles++;
        memcpy(files[known], path, sizeof path);
    }
    FILE *f = fopen(files[known], "wb");
    spx_fuzz_require(f != NULL, "cannot create a temporary file");
    spx_fuzz_require(fwrite(data, 1, size, f) == size, "cannot write a temporary file");
    spx_fuzz_require(fclose(f) == 0, "cannot close a temporary file");
    return files[known];
}

char *spx_fuzz_string(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t n = nul ? (size_t)(nul - data) : size;
    char *s = malloc(n + 1);
    spx_fuzz_require(s != NULL, "out of memory in the harness");
    memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

void spx_fuzz_failed(spx_status st, const void *out)
{
    spx_fuzz_require(st < 0, "a failure with a status that is not negative");
    spx_fuzz_require(out == NULL, "a failed call left an output");
    spx_fuzz_require(spx_last_error()[0] != '\0', "a failure without a message");
}

int spx_fuzz_same_matrix(const spx_matrix *A, const spx_matrix *B)
{
    int64_t r[2], c[2], nz[2];
    const int64_t *rp[2];
    const void *ci[2], *v[2];
    int bits[2];
    spx_type t[2];
    const spx_matrix *M[2] = {A, B};
    if (!A || !B) return A == B;
    for (int i = 0; i < 2; i++) {
        spx_fuzz_require(spx_matrix_dims(M[i], &r[i], &c[i], &nz[i]) == SPX_OK, "dims");
        spx_fuzz_require(spx_matrix_csr(M[i], &rp[i], &ci[i], &bits[i], &v[i], &t[i]) == SPX_OK,
                         "csr view");
    }
    if (r[0] != r[1] || c[0] != c[1] || nz[0] != nz[1] || bits[0] != bits[1] || t[0] != t[1])
        return 0;
    size_t n = (size_t)nz[0], vsize = t[0] == SPX_F32 ? sizeof(float) : sizeof(double);
    return memcmp(rp[0], rp[1], ((size_t)r[0] + 1) * sizeof(int64_t)) == 0 &&
           memcmp(ci[0], ci[1], n * (size_t)(bits[0] / 8)) == 0 &&
           memcmp(v[0], v[1], n * vsize) == 0;
}

void spx_fuzz_read_mtx(const char *path)
{
    spx_matrix *A = NULL, *B = NULL;
    char msg[1024];
    spx_status st = spx_matrix_read_mtx(path, &A);
    snprintf(msg, sizeof msg, "%s", spx_last_error());
    omp_set_num_threads(1);
    spx_status one = spx_matrix_read_mtx(path, &B);
    omp_set_num_threads(SPX_FUZZ_THREADS);
    spx_fuzz_require(st == one, "the thread count changes the status");
    spx_fuzz_require(strncmp(msg, spx_last_error(), sizeof msg - 1) == 0,
                     "the thread count changes the message");
    if (st == SPX_OK)
        spx_fuzz_require(spx_matrix_validate(A) == SPX_OK, "a matrix read is not valid");
    else
        spx_fuzz_failed(st, A);
    spx_fuzz_require(spx_fuzz_same_matrix(A, B), "the thread count changes the matrix");
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}
