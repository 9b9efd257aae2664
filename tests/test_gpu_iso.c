/* The iso tests of tests/test_iso.c on CUDA plans: every CUDA format, fp64,
 * fp32 and fp16, against the reference; csr and sell's iso path against
 * their stored path; fp16 iso values beyond half's range. Exits with 77
 * (SKIPPED) without a GPU. */
#define ISO_TEST_CUDA 1
#include "test_iso.c"
