#!/usr/bin/env bash
# Device run BA (1 GPU), HEAD b78096e+: tsparse with device operands. Build; the SpGEMM and
# device-matrix GPU tests; memcheck (leaks) of test_gpu_spgemm_device quick; then
# spgemm-device/run.sh SET=small: gpu-rows, tsparse, AUTO resident f64 and tsparse f16 against
# cuSPARSE f64/f32 on the 13 products.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/ba; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm_device test_gpu_spgemm test_gpu_device_matrix; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
for t in test_gpu_spgemm_device test_gpu_device_matrix; do
  timeout 120 b/tests/$t > $O/$t.log 2>&1; echo "$t rc=$? at ${SECONDS}s"; tail -2 $O/$t.log
done
grep -E "tsparse|DIFFERENT|FAIL" $O/test_gpu_spgemm_device.log | head -30
SPX_TEST_QUICK=1 timeout 100 b/tests/test_gpu_spgemm > $O/test_gpu_spgemm.log 2>&1; echo "test_gpu_spgemm quick rc=$? at ${SECONDS}s"; tail -2 $O/test_gpu_spgemm.log
SPX_TEST_QUICK=1 timeout 120 compute-sanitizer --leak-check full --error-exitcode 9 b/tests/test_gpu_spgemm_device > $O/memcheck.log 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -4 $O/memcheck.log
left=$((575 - SECONDS))
SPX=b/spx OUT=$O/dev SET=small BUDGET_S=$((left - 40)) PER_S=90 bash bench/experiments/spgemm-device/run.sh > $O/dev.log 2>&1
echo "spgemm-device at ${SECONDS}s"; cat $O/dev/summary.md; cat $O/dev/skipped.txt 2>/dev/null
echo "end at ${SECONDS}s"
cd $OUT && tar czf ba.tar.gz ba && rm -rf ba
