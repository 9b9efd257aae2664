#!/usr/bin/env bash
# Run SG (H100): test_gpu_spmm at k = 264 too (two tiles, five long-row passes), with
# memcheck and racecheck, and the conformance suite's cuda part, at the session's last
# kernel commit.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF &&
  cmake --build build-gpu -j16 --target test_gpu_spmm test_conformance example_spmm; } > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at ${SECONDS}s"
cd build-gpu/tests
timeout 150 ./test_gpu_spmm > $OUT/tests.txt 2>&1; echo "test_gpu_spmm rc=$? at ${SECONDS}s"; tail -2 $OUT/tests.txt
SPX_TEST_PART=cuda timeout 240 ./test_conformance > /tmp/c.txt 2>&1; echo "conformance cuda rc=$? at ${SECONDS}s"; grep -E "spmm|passed|FAIL" /tmp/c.txt | head; cat /tmp/c.txt >> $OUT/tests.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./test_gpu_spmm > /tmp/s.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -2 /tmp/s.txt; cat /tmp/s.txt >> $OUT/tests.txt
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 ./test_gpu_spmm > /tmp/s.txt 2>&1; echo "racecheck rc=$? at ${SECONDS}s"; tail -2 /tmp/s.txt; cat /tmp/s.txt >> $OUT/tests.txt
