/* Test helpers: checks that count, a closing "N passed, N failed" line, the
 * shared matrices' folder, deterministic random numbers, and comparison of a
 * computed y with the reference under the stated tolerance. */
#ifndef SPX_TESTS_COMMON_H
#define SPX_TESTS_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "spx.h"

extern long spx_test_passed, spx_test_failed;

/* Count one check; print the failure with its location. */
#define CHECK(cond)                                                                      \
    spx_test_check((cond) != 0, #cond, __FILE__, __LINE__)
/* A call that must return status want. */
#define CHECK_STATUS(call, want)                                                         \
    spx_test_check_status((call), (want), #call, __FILE__, __LINE__)

int spx_test_check(int ok, const char *what, const char *file, int line);
int spx_test_check_status(spx_status got, spx_status want, const char *what,
                          const char *file, int line);

/* Print "N passed, N failed" and return the process exit code. */
int spx_test_finish(void);

/* Registered format i when it computes SpMV: its name, devices and
 * precisions (bit (1u << spx_type)); 0 for a format of other operations. */
int spx_test_spmv_format(int i, const char **name, unsigned *devices, unsigned *precisions);

/* Folder of the shared matrices, or NULL (after printing a skip line) when absent. */
const char *spx_test_matrices_dir(void);
/* Folder of tests/ (data files), from SPX_TEST_DATA or ".". */
const char *spx_test_data_dir(void);

/* Deterministic uniform double in [-1, 1) from a 64-bit state (splitmix64). */
double spx_test_rand(uint64_t *state);

/* Reference y = alpha*op(A)*x + beta*y0 in long double, and the scale
 * (|alpha| |op(A)| |x| + |beta| |y0|) for each row, both of length out_len. */
void spx_test_reference(const spx_matrix *A, spx_op op, double alpha, const double *x,
                        double beta, const double *y0, double *y, double *scale);

/* max_i |y_i - ref_i| / (max_i scale_i), NaN if any y is NaN. */
double spx_test_rel_err(const double *y, const double *ref, const double *scale, int64_t n);

#endif
