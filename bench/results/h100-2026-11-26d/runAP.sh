#!/usr/bin/env bash
# Device run AP (1 GPU): gpu-rows with SpX's pool (pool=keep, new default) against the default
# pool and cudaMalloc (pool=release), and sort=table,pool=release (the code before this session),
# device to device and host to host, one process per matrix, with cuSPARSE; tests, memcheck.
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/ap; mkdir -p $O/small
for m in west0067 pores_1 rajat01; do cp $SPX_MATRICES/$m.mtx $O/small/; done
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm_device test_gpu_spgemm; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
( cd b/tests && SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./test_gpu_spgemm > $O/memcheck-spgemm.log 2>&1; echo "memcheck spgemm rc=$?" >> $O/san.txt
  SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 ./test_gpu_spgemm_device > $O/memcheck-device.log 2>&1; echo "memcheck device rc=$?" >> $O/san.txt ) &
( cd b && SPX_MATRICES=$O/small timeout 240 ctest --output-on-failure -R '^(test_gpu_spgemm_device|test_gpu_spgemm)$' ) > $O/ctest.log 2>&1; echo "ctest rc=$? at ${SECONDS}s"; grep -E "tests passed|\*\*\*|Failed|passed, |device C of" $O/ctest.log | head
wait; cat $O/san.txt; tail -n 2 $O/memcheck-spgemm.log $O/memcheck-device.log; echo "sanitizer done at ${SECONDS}s"
for m in delaunay_n16 cage11 bfly TSOPF_RS_b39_c30 bcsstk28 cavity19 NotreDame_www c-62 sinc18 xenon1 gen:lap3d27:40 gen:banded:n=100000,bw=25; do
  ((SECONDS > 480)) && { echo "skipped $m"; continue; }
  f=$m; [[ $m == gen:* ]] || f=$SPX_MATRICES/$m.mtx
  n=$(echo $m | tr -c 'a-zA-Z0-9_\n-' '_')
  timeout 60 b/spx bench $f --op spgemm --device cuda --precision f64 --peers --format gpu-rows,peer-cusparse-spgemm,peer-cusparse-spgemm-host --param "pool=keep;pool=release;sort=table,pool=release" --resident --batches 5 > $O/b-$n.txt 2>&1; echo "$n rc=$? at ${SECONDS}s"
  awk '$2=="cuda"{print $1, $7, $10}' $O/b-$n.txt
done
echo "end at ${SECONDS}s"
rm -rf $O/small; cd $OUT && tar czf ap.tar.gz ap && rm -rf ap
