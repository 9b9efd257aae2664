#!/usr/bin/env bash
# Device run BD (1 GPU): racecheck of test_gpu_spgemm_device (quick) given up to 520 s.
O=$OUT/bd; mkdir -p $O
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target test_gpu_spgemm_device; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
SPX_TEST_QUICK=1 timeout 520 compute-sanitizer --tool racecheck --error-exitcode 9 b/tests/test_gpu_spgemm_device > $O/racecheck.log 2>&1; echo "racecheck rc=$? at ${SECONDS}s"; grep -E "passed|RACECHECK SUMMARY|hazard" $O/racecheck.log | tail -5
cd $OUT && tar czf bd.tar.gz bd && rm -rf bd
