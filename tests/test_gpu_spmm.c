/* The SpMM tests of tests/test_spmm.c on CUDA plans: csr in fp64, fp32 and
 * fp16 against CPU ref, bits across k and calls, iso, device and host X and
 * Y. Exits with 77 (SKIPPED) without a GPU. */
#define SPMM_TEST_CUDA 1
#include "test_spmm.c"
