/* A device matrix (spx_matrix_wrap_device, a GPU SpGEMM's C) as the CUDA
 * SpGEMM kernels read it: 64-bit row offsets, 32-bit columns, fp64 values
 * (device_view.c). */
#ifndef SPX_CUDA_SPGEMM_DEVICE_VIEW_H
#define SPX_CUDA_SPGEMM_DEVICE_VIEW_H

#include "core/matrix.h"
#include "cuda/gateway.h"

/* *view = M's arrays, M's own in place where they are so, else 32-bit
 * offsets widened and fp32 values converted into held's arrays (free with
 * spx__cuda_csr_free; held's sizes are M's, NULL arrays where none is
 * made). `who` names the caller in errors. */
spx_status spx__cuda_device_view(const spx_matrix *M, const char *who, spx__cuda_csr *view,
                                 spx__cuda_csr *held);

#endif
