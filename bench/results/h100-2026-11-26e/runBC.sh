#!/usr/bin/env bash
# Device run BC (1 GPU), final HEAD: every CUDA ctest entry (quick), racecheck of the tsparse
# device products (test_gpu_spgemm_device quick).
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/bc; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
( cd b && SPX_TEST_QUICK=1 timeout 300 ctest -j4 --output-on-failure -R 'test_gpu|conformance_cuda$|test_spgemm|test_iso|test_dasp|cli_.*cuda|example' ) > $O/ctest.log 2>&1; echo "ctest rc=$? at ${SECONDS}s"; grep -E "tests passed|\*\*\*|Failed|Not Run|Timeout" $O/ctest.log | head -20
SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 b/tests/test_gpu_spgemm_device > $O/racecheck.log 2>&1; echo "racecheck rc=$? at ${SECONDS}s"; tail -3 $O/racecheck.log
echo "end at ${SECONDS}s"
cd $OUT && tar czf bc.tar.gz bc && rm -rf bc
