/* The staging threshold of spx__cuda_copy_staged (cuda/gateway.h): a variable,
 * not a gateway function, so it is defined once for builds with and without
 * CUDA. */
#include "cuda/gateway.h"

size_t spx__cuda_stage_min = (size_t)32 << 20;
