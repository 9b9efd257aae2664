#!/usr/bin/env bash
# Device run AO (1 GPU): gpu-rows numeric rows sort their filled slots (sort=filled, new default)
# against the whole table (sort=table) in one process, device to device, with cuSPARSE; tests +
# memcheck; then ncu SpeedOfLight of R-MAT 20 SpMV (csr, dasp, cuSPARSE) for issues 14/20.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/ao; mkdir -p $O/small
for m in west0067 pores_1 rajat01; do cp $SPX_MATRICES/$m.mtx $O/small/; done
nvidia-smi --query-gpu=name --format=csv,noheader
git log --oneline -1
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm_device test_gpu_spgemm; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
( cd b/tests && SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./test_gpu_spgemm > $O/memcheck-spgemm.log 2>&1; echo "memcheck spgemm rc=$?" >> $O/san.txt ) &
( cd b && SPX_MATRICES=$O/small timeout 240 ctest --output-on-failure -R '^(test_gpu_spgemm_device|test_gpu_spgemm)$' ) > $O/ctest.log 2>&1; echo "ctest rc=$? at ${SECONDS}s"; grep -E "tests passed|\*\*\*|Failed|passed, " $O/ctest.log | head
wait; cat $O/san.txt; tail -n 2 $O/memcheck-spgemm.log; echo "sanitizer done at ${SECONDS}s"
for m in delaunay_n16 cage11 bfly TSOPF_RS_b39_c30 bcsstk28 cavity19 NotreDame_www c-62 sinc18 xenon1 gen:lap3d27:40 gen:banded:n=100000,bw=25; do
  ((SECONDS > 400)) && { echo "skipped $m"; continue; }
  f=$m; [[ $m == gen:* ]] || f=$SPX_MATRICES/$m.mtx
  n=$(echo $m | tr -c 'a-zA-Z0-9_\n-' '_')
  timeout 50 b/spx bench $f --op spgemm --device cuda --precision f64 --peers --format gpu-rows,auto,peer-cusparse-spgemm --param "sort=filled;sort=table" --resident --batches 5 > $O/resident-$n.txt 2>&1; echo "$n rc=$? at ${SECONDS}s"
  grep -E "resident|^peer" $O/resident-$n.txt | awk '{print $1, $7, $NF}'
done
R=gen:rmat:scale=20,ef=16,sym=1
timeout 120 ncu --section SpeedOfLight -c 60 b/spx bench $R --device cuda --precision f64 --peers --format csr,dasp,peer-cusparse-csr --batches 1 --calls 2 > $O/ncu-rmat20.txt 2>&1; echo "ncu rc=$? at ${SECONDS}s"
grep -E "^  [a-zA-Z_].*\(|Duration|L1/TEX Cache|L2 Cache Throughput|DRAM Throughput" $O/ncu-rmat20.txt | head -80
echo "end at ${SECONDS}s"
rm -rf $O/small; cd $OUT && tar czf ao.tar.gz ao && rm -rf ao
