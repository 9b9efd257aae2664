#!/usr/bin/env bash
# Device run CL (H100 named): gpu-rows' row products a warp a row. The SpGEMM GPU tests; then
# R-MAT 20 (ef 1) squared and three small products device to device against cusparseSpGEMM.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/cl; mkdir -p $O/dev
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm_device test_gpu_spgemm; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cl.tar.gz cl; exit 1; }
echo "built at ${SECONDS}s"
timeout 60 b/tests/test_gpu_spgemm_device > $O/test_gpu_spgemm_device.log 2>&1; echo "test_gpu_spgemm_device rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_spgemm_device.log
SPX_TEST_QUICK=1 timeout 90 b/tests/test_gpu_spgemm > $O/test_gpu_spgemm.log 2>&1; echo "test_gpu_spgemm quick rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_spgemm.log
n=0
for src in gen:rmat:scale=20,ef=1,sym=1 $SPX_MATRICES/bfly.mtx $SPX_MATRICES/cage11.mtx $SPX_MATRICES/NotreDame_www.mtx; do
  n=$((n + 1)); echo "$src" > $O/dev/r$n.label
  timeout 150 b/spx bench $src --op spgemm --device cuda --precision f64 --peers --format gpu-rows,auto,peer-cusparse-spgemm --resident-only --batches 5 --json $O/dev/r$n.json > $O/dev/r$n.txt 2>&1
  echo "$src rc=$? at ${SECONDS}s"; grep -E "resident|peer" $O/dev/r$n.txt | grep -v "^bench:" | cut -c1-100
done
python3 bench/experiments/spgemm-device/summary.py $O/dev > $O/dev/summary.md
echo "end at ${SECONDS}s"
cd $OUT && tar czf cl.tar.gz cl && rm -rf cl
