#!/usr/bin/env bash
# Device run NH (2 GPUs): test_gpu_multi after the late path syncs the parts' streams.
O=$OUT/nh; mkdir -p $O
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF"
{ cmake -S . -B build-nh $CF && cmake --build build-nh -j32 --target test_gpu_multi; } > $O/build.log 2>&1; echo "built at ${SECONDS}s: $(tail -1 $O/build.log | cut -c1-50)"
timeout 150 build-nh/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL|barrier|GPUs" $O/test_gpu_multi.txt | head -8
