#!/usr/bin/env bash
# Device run CU (H100 named): AUTO's own degree ordering (src/plan/auto_order.c). GPU tests
# (test_gpu with AUTO on R-MAT 19, test_reorder_cuda, test_gpu_iso); the irregular set with stored
# values, AUTO (no params) against unordered dasp and csr and cuSPARSE CSR, one process a matrix;
# then iso-gpu/run.sh (the pattern set).
mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz
export SPX_MATRICES=/tmp/spx-matrices/matrices
M=$SPX_MATRICES
O=$OUT/cu; mkdir -p $O/irr
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build build-gpu -j16 --target spx_cli test_gpu test_reorder test_gpu_iso test_auto_order; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf cu.tar.gz cu; exit 1; }
echo "built at ${SECONDS}s"
for t in test_gpu test_gpu_iso test_auto_order; do
  timeout 150 build-gpu/tests/$t > $O/$t.log 2>&1; echo "$t rc=$? at ${SECONDS}s"; tail -1 $O/$t.log; grep -m5 -i "FAIL\|auto on" $O/$t.log
done
SPX_TEST_PART=cuda timeout 150 build-gpu/tests/test_reorder > $O/test_reorder_cuda.log 2>&1; echo "test_reorder cuda rc=$? at ${SECONDS}s"; tail -1 $O/test_reorder_cuda.log
n=0
for m in gen:rmat:scale=18,ef=16,sym=1,values=random gen:rmat:scale=20,ef=16,sym=1,values=random gen:rmat:scale=21,ef=16,sym=1,values=random \
         gen:circuit:n=2000000,avg=5,long=20,longlen=200000 gen:powerlaw:n=2000000,avg=16,alpha=2.1 \
         $M/NotreDame_www.mtx gen:scale:file=$M/NotreDame_www.mtx,copies=32 $M/c-62.mtx \
         gen:scale:file=$M/c-62.mtx,copies=20 $M/delaunay_n16.mtx gen:scale:file=$M/rajat01.mtx,copies=256; do
  n=$((n + 1))
  timeout 90 build-gpu/spx bench $m --device cuda --peers --precision f64 --format auto,dasp,csr,peer-cusparse-csr --batches 6 > $O/irr/r$n.txt 2>&1 || true
  echo "$m"; grep -E "^\S+ +(auto|dasp|csr|peer)" $O/irr/r$n.txt | awk '{print "   ", $2, $6, $12}'
done
echo "irregular at ${SECONDS}s"
OUT=$O/iso DEADLINE=200 bash bench/experiments/iso-gpu/run.sh > $O/iso.log 2>&1; echo "iso-gpu rc=$? at ${SECONDS}s"
cat $O/iso/summary.txt
echo "end at ${SECONDS}s"
cd $OUT && tar czf cu.tar.gz cu && rm -rf cu
