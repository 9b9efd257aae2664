#!/usr/bin/env bash
# Device run AT (2 GPUs): test_gpu_multi across two GPUs after the two-pass part creation and the
# pcsc runs (a69b228): the multi-GPU paths keep their merges (alone rows are one-device only).
O=$OUT/at; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j32 --target test_gpu_multi; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
( cd b/tests && timeout 150 ./test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$?" ); tail -3 $O/test_gpu_multi.txt; grep -ci "devices\|GPU 1" $O/test_gpu_multi.txt
echo "end at ${SECONDS}s"
cd $OUT && tar czf at.tar.gz at && rm -rf at
