#!/usr/bin/env bash
# Device run CA (1 GPU): spx_spgemm_numeric (repeated products with one pattern). Build; the
# SpGEMM device test (numeric cases included) full; memcheck (leaks) of it quick; then
# spgemm-device/run.sh NUMERIC=1 SET=small: gpu-rows and AUTO, resident and numeric rows, against
# cuSPARSE's whole product and cusparseSpGEMMreuse_compute, f64, 13 products.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/ca; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm_device test_gpu_spgemm; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ca.tar.gz ca; exit 1; }
echo "built at ${SECONDS}s"
timeout 150 b/tests/test_gpu_spgemm_device > $O/test_gpu_spgemm_device.log 2>&1; echo "test_gpu_spgemm_device rc=$? at ${SECONDS}s"; tail -2 $O/test_gpu_spgemm_device.log
grep -E "numeric|again|refused|DIFFERENT|FAIL|failed" $O/test_gpu_spgemm_device.log | head -40
SPX_TEST_QUICK=1 timeout 150 compute-sanitizer --leak-check full --error-exitcode 9 b/tests/test_gpu_spgemm_device > $O/memcheck.log 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -4 $O/memcheck.log
left=$((580 - SECONDS))
SPX=b/spx OUT=$O/dev NUMERIC=1 SET=small BUDGET_S=$((left - 30)) PER_S=80 bash bench/experiments/spgemm-device/run.sh > $O/dev.log 2>&1
echo "spgemm-device at ${SECONDS}s"; cat $O/dev/summary.md; cat $O/dev/skipped.txt 2>/dev/null
echo "end at ${SECONDS}s"
cd $OUT && tar czf ca.tar.gz ca && rm -rf ca
