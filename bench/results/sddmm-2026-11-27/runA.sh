#!/usr/bin/env bash
# First SDDMM correctness run on the GPU: build, test_gpu_sddmm, the CUDA part
# of the conformance suite, memcheck and racecheck of test_gpu_sddmm.
set -u
B=/tmp/b; L=$OUT
( cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_MPI=OFF &&
  cmake --build $B -j16 --target test_gpu_sddmm test_conformance test_sddmm ) > $L/build.log 2>&1 || { tail -30 $L/build.log; exit 1; }
nvidia-smi --query-gpu=name --format=csv,noheader
cd tests
$B/tests/test_gpu_sddmm > $L/test_gpu_sddmm.txt 2>&1; echo "test_gpu_sddmm rc=$?"; tail -3 $L/test_gpu_sddmm.txt
SPX_TEST_PART=cuda $B/tests/test_conformance > $L/conf_cuda.txt 2>&1; echo "conformance cuda rc=$?"; grep -i "sddmm\|passed" $L/conf_cuda.txt | tail -8
compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_sddmm > $L/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -3 $L/memcheck.txt
compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/test_gpu_sddmm > $L/racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -3 $L/racecheck.txt
