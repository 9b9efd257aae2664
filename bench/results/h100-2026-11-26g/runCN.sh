#!/usr/bin/env bash
# Device run CN (H100 named): gpu-rows' long rows summed in C through a bitmap's ranks
# (rows_rank.cu, rank=on) against the global row of sums (rank=off): the SpGEMM GPU tests, the
# trace of R-MAT 20 squared, R-MAT 19/20 against cusparseSpGEMM device to device (both rank
# modes and cuSPARSE in one process), memcheck of the quick test.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/cn; mkdir -p $O/dev
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm_device test_gpu_spgemm; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cn.tar.gz cn; exit 1; }
echo "built at ${SECONDS}s"
timeout 150 b/tests/test_gpu_spgemm > $O/test_gpu_spgemm.log 2>&1; echo "test_gpu_spgemm rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_spgemm.log; grep -E "FAIL|40000|1048576" $O/test_gpu_spgemm.log | head -20
timeout 60 b/tests/test_gpu_spgemm_device > $O/test_gpu_spgemm_device.log 2>&1; echo "test_gpu_spgemm_device rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_spgemm_device.log
G=gen:rmat:scale=20,ef=1,sym=1
SPX_SPGEMM_TRACE=1 timeout 100 b/spx bench $G --op spgemm --device cuda --precision f64 --format gpu-rows --resident-only --batches 1 --calls 2 > $O/trace.txt 2>&1; echo "trace rc=$? at ${SECONDS}s"
grep "spgemm trace" $O/trace.txt | tail -16
n=0
for src in $G gen:rmat:scale=19,ef=2,sym=1; do
  n=$((n + 1)); echo "$src" > $O/dev/r$n.label
  timeout 150 b/spx bench $src --op spgemm --device cuda --precision f64 --peers --format gpu-rows,peer-cusparse-spgemm --param "rank=on;rank=off" --resident-only --batches 5 --json $O/dev/r$n.json > $O/dev/r$n.txt 2>&1
  echo "$src rc=$? at ${SECONDS}s"; grep -E "resident|peer" $O/dev/r$n.txt | grep -v "^bench:" | cut -c1-120
done
SPX_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck b/tests/test_gpu_spgemm > $O/memcheck.log 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -3 $O/memcheck.log
echo "end at ${SECONDS}s"
cd $OUT && tar czf cn.tar.gz cn && rm -rf cn
