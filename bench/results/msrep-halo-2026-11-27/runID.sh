#!/usr/bin/env bash
# Device run ID (4 GPUs): pcsc's merge across GPUs (owner_sum reads the peers' partials in
# place) with fewer thread blocks a run, as the halo pull gained from (run IB): OWNER_SUM_BLOCKS
# 1024 (committed), 256, 128, 64; R-MAT 22 and lap3d7:250, --kind pcsc, separate processes in
# turn; test_gpu_multi on the pick.
O=$OUT/id; mkdir -p $O/ab
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $O/gpu.txt
B=build-id
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j64 --target spx_cli test_gpu_multi; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf id.tar.gz id; exit 1; }
mkdir -p /tmp/o1024 && cp -a $B/spx $B/libspx.so* /tmp/o1024/
for nb in 256 128 64; do
  sed -i "s/^#define OWNER_SUM_BLOCKS [0-9]*/#define OWNER_SUM_BLOCKS $nb/" src/cuda/multi/multi.cu
  cmake --build $B -j64 --target spx_cli >> $O/build.log 2>&1 && mkdir -p /tmp/o$nb && cp -a $B/spx $B/libspx.so* /tmp/o$nb/
done
echo "built at ${SECONDS}s"
cmake --build $B -j64 --target test_gpu_multi >> $O/build.log 2>&1; timeout 100 $B/tests/test_gpu_multi > $O/test_gpu_multi-64.txt 2>&1; echo "test_gpu_multi (64 blocks) rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi-64.txt)"
run() { LD_LIBRARY_PATH=/tmp/$1 timeout 60 /tmp/$1/spx bench $2 --multi 4 --device cuda --spread --calls 20 --batches 5 --kind pcsc > $O/ab/$3-$1-$4.txt 2>&1
  echo "$3 $1 $4 rc=$? at ${SECONDS}s: $(grep -A3 '^kind   halo_ms' $O/ab/$3-$1-$4.txt | grep -E '^pcsc ' | cut -c1-100)"; }
for rep in 1 2; do for v in o1024 o256 o128 o64; do [ $SECONDS -gt 300 ] && break; run $v gen:rmat:scale=22,ef=16,sym=1 rmat22 $rep; done; done
for v in o1024 o256 o128 o64; do [ $SECONDS -gt 380 ] && break; run $v gen:lap3d7:250 lap7 1; done
echo "end at ${SECONDS}s"
cd $OUT && tar czf id.tar.gz id && rm -rf id
