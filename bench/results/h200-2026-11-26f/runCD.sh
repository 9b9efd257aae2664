#!/usr/bin/env bash
# Device run CD (1 GPU): spx_spgemm_numeric from gpu-rows' memo, a thread an entry again (run
# CC's lane groups reverted), each call two kernels and one copy: the pattern hash clears its own
# work words (no memset), the short and long entries' sums in one kernel. Build; the SpGEMM device test
# full; memcheck (leaks) of it quick; then spgemm-device/run.sh NUMERIC=1 SET=all (the 13
# products, R-MAT 18 ef 4 and cage11 x8) against cusparseSpGEMMreuse_compute.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/cd; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm_device; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cd.tar.gz cd; exit 1; }
echo "built at ${SECONDS}s"
timeout 150 b/tests/test_gpu_spgemm_device > $O/test_gpu_spgemm_device.log 2>&1; echo "test_gpu_spgemm_device rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_spgemm_device.log
grep -E "numeric|again|refused|DIFFERENT|FAIL|failed" $O/test_gpu_spgemm_device.log | head -50
SPX_TEST_QUICK=1 timeout 150 compute-sanitizer --leak-check full --error-exitcode 9 b/tests/test_gpu_spgemm_device > $O/memcheck.log 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -3 $O/memcheck.log
left=$((585 - SECONDS))
SPX=b/spx OUT=$O/dev NUMERIC=1 SET=all BUDGET_S=$((left - 20)) PER_S=150 bash bench/experiments/spgemm-device/run.sh > $O/dev.log 2>&1
echo "spgemm-device at ${SECONDS}s"; sed -n '/numeric phase alone/,$p' $O/dev/summary.md; cat $O/dev/skipped.txt 2>/dev/null
echo "end at ${SECONDS}s"
cd $OUT && tar czf cd.tar.gz cd && rm -rf cd
