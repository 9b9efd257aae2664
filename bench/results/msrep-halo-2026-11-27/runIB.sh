#!/usr/bin/env bash
# Device run IB (4 GPUs): does the overlap pay with a lighter halo pull? Variants of
# PULL_BLOCKS_PER_RANGE (512 = committed, 128, 32), each with and without --overlap, and the
# copy-engine path (SPX_MULTI_PULL=0), pcsr and rows, separate processes alternated:
# spx bench M --multi 4 --device cuda --spread --kind K on lap3d7:250, R-MAT 22, lap3d27:160.
O=$OUT/ib; mkdir -p $O/ab
patch -R -p1 < .devrun/helper.patch > /dev/null && echo "helper patch reversed"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $O/gpu.txt
B=build-ib
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF && cmake --build $B -j64 --target spx_cli; } > $O/build.log 2>&1 || { tail -30 $O/build.log; cd $OUT && tar czf ib.tar.gz ib; exit 1; }
mkdir -p /tmp/b512 && cp -a $B/spx $B/libspx.so* /tmp/b512/
for nb in 128 32; do
  sed -i "s/^#define PULL_BLOCKS_PER_RANGE [0-9]*/#define PULL_BLOCKS_PER_RANGE $nb/" src/cuda/multi/pull.cu
  cmake --build $B -j64 --target spx_cli >> $O/build.log 2>&1 && mkdir -p /tmp/b$nb && cp -a $B/spx $B/libspx.so* /tmp/b$nb/
done
echo "built at ${SECONDS}s"
run() { # $1 variant (b512|b128|b32|copy) $2 ov|noov $3 matrix $4 tag $5 kind
  local d=$1 env="" flag=""; [[ $1 == copy ]] && { d=b512; env=SPX_MULTI_PULL=0; }
  [[ $2 == ov ]] && flag=--overlap
  env $env LD_LIBRARY_PATH=/tmp/$d timeout 60 /tmp/$d/spx bench $3 --multi 4 --device cuda --spread --calls 20 --batches 5 --kind $5 $flag > $O/ab/$4-$5-$1-$2.txt 2>&1
  echo "$4 $5 $1 $2 rc=$? at ${SECONDS}s: $(grep -A3 '^kind   halo_ms' $O/ab/$4-$5-$1-$2.txt | grep -E "^$5 " | cut -c1-100)"
}
for m in "gen:lap3d7:250 lap7" "gen:rmat:scale=22,ef=16,sym=1 rmat22"; do set -- $m
  for k in pcsr rows; do
    for v in b512 b128 b32; do for o in noov ov; do [ $SECONDS -gt 480 ] && break; run $v $o $1 $2 $k; done; done
    [ $SECONDS -gt 480 ] || run copy noov $1 $2 $k
  done
done
for v in b512 copy; do [ $SECONDS -gt 540 ] && break; run $v noov gen:lap3d27:160 lap27 pcsr; done
echo "end at ${SECONDS}s"
cd $OUT && tar czf ib.tar.gz ib && rm -rf ib
