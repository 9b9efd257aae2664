/* Helpers shared by the libFuzzer harnesses (one harness per file, fuzz_*.c).
 *
 * Every harness treats a failure of the library to honour its contract as a
 * crash (spx_fuzz_require aborts with a message): a failing call must return
 * a negative status with a message and leave its output NULL; a successful
 * read or generation must give a valid matrix; the threaded paths must give
 * what one thread gives. ASan, UBSan and LeakSanitizer catch the rest. */
#ifndef SPX_TESTS_FUZZ_H
#define SPX_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "spx.h"

/* libFuzzer's entry points: fuzz.c defines the first, each harness the second. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Threads the harnesses run the library with (the parallel paths need 2+). */
#define SPX_FUZZ_THREADS 3

/* fuzz.c's LLVMFuzzerInitialize sets passive OpenMP waits (the machine is
 * shared), SPX_FUZZ_THREADS threads and a private temporary folder, then
 * calls this; a harness that needs more at start defines it. */
void spx_fuzz_setup(void);

/* Abort with a message when cond is 0 (libFuzzer reports it as a crash). */
void spx_fuzz_require(int cond, const char *what);

/* Write data to `name` in the temporary folder; returns its path (static). */
const char *spx_fuzz_file(const char *name, const uint8_t *data, size_t size);

/* data up to its first NUL as a NUL-terminated string; free() it. */
char *spx_fuzz_string(const uint8_t *data, size_t size);

/* A failed call's contract: negative status, a message, no output. */
void spx_fuzz_failed(spx_status st, const void *out);

/* A and B hold the same CSR arrays, bit for bit (both may be NULL). */
int spx_fuzz_same_matrix(const spx_matrix *A, const spx_matrix *B);

/* Matrix Market harnesses: read path with SPX_FUZZ_THREADS threads and with
 * one; the status, the message and the matrix must be the same. */
void spx_fuzz_read_mtx(const char *path);

#endif
