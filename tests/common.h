/* Test helpers: checks that count, skips, a closing "N passed, N failed" line,
 * the parts of a split test program, the shared matrices' folder, deterministic
 * random numbers and test matrices, and the comparison of a computed y with
 * the long-double reference under a stated tolerance.
 *
 * Exit codes (spx_test_finish): 1 when a check failed; 77 (ctest's SKIPPED,
 * SKIP_RETURN_CODE in tests/CMakeLists.txt) when something was skipped and no
 * check ran; 0 otherwise. A process that neither checked nor skipped
 * anything fails: a test never passes for work it did not do. */
#ifndef SPX_TESTS_COMMON_H
#define SPX_TESTS_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "spx.h"

#if defined(__GNUC__)
#define SPX_TEST_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SPX_TEST_PRINTF(f, a)
#endif

extern long spx_test_passed, spx_test_failed, spx_test_skipped;

/* Count one check; print the failure with its location. */
#define CHECK(cond)                                                                      \
    spx_test_check((cond) != 0, #cond, __FILE__, __LINE__)
/* A call that must return status want. */
#define CHECK_STATUS(call, want)                                                         \
    spx_test_check_status((call), (want), #call, __FILE__, __LINE__)

int spx_test_check(int ok, const char *what, const char *file, int line);
int spx_test_check_status(spx_status got, spx_status want, const char *what,
                          const char *file, int line);

/* Print "SKIP: why" and record that something was not run. */
void spx_test_skip(const char *why);

/* Print "N passed, N failed" and return the process exit code (see above). */
int spx_test_finish(void);

/* 1 when this process runs the part named (NULL: the default part). A test
 * program whose checks need what a machine may lack is split: env
 * SPX_TEST_PART=shared runs only its shared-matrix checks, =cuda its CUDA
 * ones, =all every part, unset the rest. tests/CMakeLists.txt adds a ctest
 * entry NAME_PART for every spx_test_part("PART") it finds in NAME.c. */
int spx_test_part(const char *part);

/* 1 when a CUDA device is here; else records the skip "no CUDA device ...: what". */
int spx_test_require_cuda(const char *what);

/* Registered format i when it computes operation op: its name, devices and
 * precisions (bit (1u << spx_type)); 0 for a format of other operations. */
int spx_test_format(int i, spx_operation op, const char **name, unsigned *devices,
                    unsigned *precisions);
/* spx_test_format for SpMV. */
int spx_test_spmv_format(int i, const char **name, unsigned *devices, unsigned *precisions);

/* Folder of the shared matrices (env SPX_MATRICES, else SPX_TEST_MATRICES as
 * configured, else ../../shared/matrices), or NULL after recording the skip
 * when it is absent. */
const char *spx_test_matrices_dir(void);
/* dir/name read (a failed read is a failed check), or NULL. */
spx_matrix *spx_test_read_matrix(const char *dir, const char *name);
/* Folder of tests/ (data files), from SPX_TEST_DATA or ".". */
const char *spx_test_data_dir(void);

/* Deterministic uniform double in [-1, 1) from a 64-bit state (splitmix64). */
double spx_test_rand(uint64_t *state);

/* ---- test matrices: values uniform in [-1, 1) unless said; every
 * construction is a check, and a failed one gives NULL. */

/* rows x cols from triplets (duplicates summed; v NULL: ones). */
spx_matrix *spx_test_coo_matrix(int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                                const int64_t *ci, const double *v);
/* nnz triplets at uniform random positions (duplicates summed, so fewer may remain). */
spx_matrix *spx_test_random_matrix(int64_t rows, int64_t cols, int64_t nnz, uint64_t seed);
/* Row i holds exactly min(len[i], cols) entries at sorted distinct columns
 * spread over the row: entry k in [k s, (k + 1) s), s = cols / len[i]. */
spx_matrix *spx_test_rows_matrix(int64_t rows, int64_t cols, const int64_t *len, uint64_t seed);
/* Row lengths pat[i % np]. */
spx_matrix *spx_test_pattern_matrix(int64_t rows, int64_t cols, const int64_t *pat, int np,
                                    uint64_t seed);
/* Row lengths uniform in 0..maxlen. */
spx_matrix *spx_test_uniform_rows_matrix(int64_t rows, int64_t cols, int64_t maxlen, uint64_t seed);
/* Row lengths floor(maxlen^u) - 1, u uniform in [0, 1): many short and empty
 * rows, a tail of long ones up to maxlen - 1. */
spx_matrix *spx_test_varied_matrix(int64_t rows, int64_t cols, double maxlen, uint64_t seed);
/* Symmetric n x n: row i gets up to per_row entries in columns [i - band, i)
 * and their mirrors (none on rows i % 7 == 0), and a diagonal entry unless
 * i % 3 == 0; values random (spx_test_rand, the diagonal 3-5). */
spx_matrix *spx_test_symmetric_matrix(int64_t n, int64_t per_row, int64_t band, uint64_t seed);
/* Row `dense` holds every column; any other row i holds i % (short_max + 1). */
spx_matrix *spx_test_dense_row_matrix(int64_t rows, int64_t cols, int64_t dense, int64_t short_max,
                                      uint64_t seed);

/* A's arrays wrapped (spx_matrix_wrap) with 32-bit row offsets: *rp32, a
 * new array of A's rows+1 offsets (free it after destroying the result);
 * columns and values borrowed from A, which must outlive the result. The
 * wrap is a check; NULL (and *rp32 NULL) when it fails. */
spx_matrix *spx_test_wrap32(const spx_matrix *A, int32_t **rp32);

/* Longest row of op(A) (of A^T: the most entries in a column). */
int64_t spx_test_longest_row(const spx_matrix *A, spx_op op);

/* ---- results against references */

/* Reference y = alpha*op(A)*x + beta*y0 in long double, and the scale
 * (|alpha| |op(A)| |x| + |beta| |y0|) for each row, both of length out_len. */
void spx_test_reference(const spx_matrix *A, spx_op op, double alpha, const double *x,
                        double beta, const double *y0, double *y, double *scale);

/* max_i |y_i - ref_i| / (max_i scale_i), NaN if any y is NaN. */
double spx_test_rel_err(const double *y, const double *ref, const double *scale, int64_t n);

/* One check: spx_test_rel_err(y, ref, scale, n) <= tol (a test states tol as a
 * small multiple of its precision's unit roundoff). A failure prints
 * "  WHAT: error E > tol", WHAT formatted from fmt. Returns 1 when it holds. */
int spx_test_close(const double *y, const double *ref, const double *scale, int64_t n, double tol,
                   const char *fmt, ...) SPX_TEST_PRINTF(6, 7);

/* C = A*B checked against the naive dense product: C's shape, fp64 values,
 * sorted and valid; its pattern exactly the structural product (entries that
 * cancel kept); each value within tol * sum_k |a_ik b_kj|. Not a check itself. */
int spx_test_spgemm_matches(const spx_matrix *A, const spx_matrix *B, const spx_matrix *C,
                            double tol);

/* -div(grad u) + c du/dx on an m x m grid, central differences: a
 * nonsymmetric matrix for BiCGSTAB (NULL and a failed check on error). */
spx_matrix *spx_test_convection_diffusion(int64_t m, double c);

#endif
