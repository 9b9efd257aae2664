/* The SDDMM tests of tests/test_sddmm.c on CUDA plans: csr in fp64, fp32 and
 * fp16 against CPU ref, device and host arrays, both load paths, a device
 * matrix. Exits with 77 (SKIPPED) without a GPU. */
#define SDDMM_TEST_CUDA 1
#include "test_sddmm.c"
