#!/usr/bin/env bash
# Device run CI (1 GPU): racecheck of test_gpu_spgemm_device's rows part alone
# (SPX_TEST_PART=rows, quick): gpu-rows with device operands, the declines, device C's frees.
O=$OUT/ci; mkdir -p $O
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target test_gpu_spgemm_device; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ci.tar.gz ci; exit 1; }
echo "built at ${SECONDS}s"
SPX_TEST_PART=rows SPX_TEST_QUICK=1 timeout 520 compute-sanitizer --tool racecheck --error-exitcode 9 b/tests/test_gpu_spgemm_device > $O/racecheck-rows.log 2>&1; echo "racecheck rows rc=$? at ${SECONDS}s"; tail -3 $O/racecheck-rows.log
echo "end at ${SECONDS}s"
cd $OUT && tar czf ci.tar.gz ci && rm -rf ci
