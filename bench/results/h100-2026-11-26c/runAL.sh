#!/usr/bin/env bash
# Device run AL (1 GPU), HEAD: gpu-rows' wide numeric bins. SpGEMM tests + memcheck, then
# spx bench --op spgemm --resident with wide=on;wide=off in one process against cuSPARSE (13 products).
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/m/matrices
O=$OUT/al; mkdir -p $O/small
for m in west0067 pores_1 rajat01; do cp $SPX_MATRICES/$m.mtx $O/small/; done
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build b -j16 --target spx_cli test_gpu_spgemm_device test_gpu_spgemm; } > $O/build.log 2>&1 || { tail -30 $O/build.log; exit 1; }
echo "built at ${SECONDS}s"
( cd b/tests && SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./test_gpu_spgemm > $O/memcheck-spgemm.log 2>&1; echo "memcheck spgemm rc=$?" >> $O/san.txt ) &
( cd b && SPX_MATRICES=$O/small timeout 240 ctest --output-on-failure -R '^(test_gpu_spgemm_device|test_gpu_spgemm)$' ) > $O/ctest.log 2>&1; echo "ctest rc=$? at ${SECONDS}s"; grep -E "tests passed|\*\*\*|Failed|passed, " $O/ctest.log | head
wait; cat $O/san.txt; tail -n 2 $O/memcheck-spgemm.log; echo "sanitizer done at ${SECONDS}s"
for m in bcsstk28 delaunay_n16 bfly cage11 NotreDame_www TSOPF_RS_b39_c30 c-62 cavity19 sinc18 xenon1 gen:lap3d27:40 gen:banded:n=100000,bw=25 gen:rmat:scale=16; do
  ((SECONDS > 520)) && { echo "skipped $m"; continue; }
  f=$m; [[ $m == gen:* ]] || f=$SPX_MATRICES/$m.mtx
  n=$(echo $m | tr -c 'a-zA-Z0-9_\n-' '_')
  timeout 60 b/spx bench $f --op spgemm --device cuda --precision f64 --peers --format gpu-rows,peer-cusparse-spgemm,peer-cusparse-spgemm-host --resident --param "wide=on;wide=off" --batches 5 > $O/wide-$n.txt 2>&1; echo "$n rc=$?"
  grep -E "^[^ ]+ +(gpu-rows|peer)" $O/wide-$n.txt | cut -c1-150
done
for m in bcsstk28 delaunay_n16; do SPX_SPGEMM_TRACE=1 timeout 60 b/spx spgemm $SPX_MATRICES/$m.mtx --device cuda --format gpu-rows --out /tmp/c.mtx > $O/trace-$m.txt 2>&1; done
echo "end at ${SECONDS}s"
rm -rf $O/small; cd $OUT && tar czf al.tar.gz al && rm -rf al
