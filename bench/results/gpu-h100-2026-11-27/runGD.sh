#!/usr/bin/env bash
# Device run GD (H100 named), issue 14's "no regression of AUTO on the rest of the benchmark set":
# scripts/gpu-check.sh's bench step (the shared matrices of 100k+ nonzeros in fp64 and fp16, the
# generated stencils, R-MAT 20 and the circuit generator, then the x-in-half and 3M-12M sets) with
# AUTO and cuSPARSE CSR only, at HEAD (csr kernel=warp, aligned segments, dasp's hot-column
# condition). Its report gives AUTO's geometric mean over cuSPARSE CSR.
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli; } > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at ${SECONDS}s"
SPX_GPU_STEPS="bench" SPX_GPU_BUILD=build-gpu SPX_GPU_FORMATS="auto,peer-cusparse-csr,peer-cusparse-csr-h" \
  SPX_GPU_DEADLINE=$((300 - SECONDS)) bash scripts/gpu-check.sh > $OUT/gpu-check-console.txt 2>&1
echo "gpu-check rc=$? at ${SECONDS}s"
grep -A12 "geometric mean" $OUT/*.txt | head -40
