#!/usr/bin/env bash
# Device run CE (H100 named): the final code. Build everything; every CUDA ctest entry (quick);
# memcheck (leaks) of test_gpu_spgemm_device quick.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/ce; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ce.tar.gz ce; exit 1; }
echo "built at ${SECONDS}s"
( cd b && SPX_TEST_QUICK=1 timeout 330 ctest -j4 --output-on-failure -R 'test_gpu|conformance_cuda$|test_spgemm|test_iso|test_dasp|cli_.*cuda|example' ) > $O/ctest.log 2>&1; echo "ctest rc=$? at ${SECONDS}s"; grep -E "tests passed|\*\*\*|Failed|Not Run|Timeout" $O/ctest.log | head -20
SPX_TEST_QUICK=1 timeout 100 compute-sanitizer --leak-check full --error-exitcode 9 b/tests/test_gpu_spgemm_device > $O/memcheck.log 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -3 $O/memcheck.log
echo "end at ${SECONDS}s"
cd $OUT && tar czf ce.tar.gz ce && rm -rf ce
