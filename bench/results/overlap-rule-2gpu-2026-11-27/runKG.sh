#!/usr/bin/env bash
# Device run KG (2 GPUs): the overlap rule (a row part's own columns first where its halo is at
# least 1/13 of its nonzeros) for pcoo beside pcsr, which alone was swept (4 GPUs, 2026-11-27):
# --overlap on and off alternated, and the rule's default, on R-MAT 21 at 16 and 32 nonzeros a
# row and lap3d7:64.
O=$OUT/kg; mkdir -p $O; B=build-kg
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF && cmake --build $B -j32 --target spx_cli; } > $O/build.log 2>&1 || { cmake --build $B -j32 > $O/build2.log 2>&1; }
echo "built at ${SECONDS}s"; S=$(find $B -name spx -type f -perm -u+x | head -1); echo "cli $S"
ov() { timeout 60 $S bench gen:$3 --multi 2 --device cuda --spread --calls 20 --batches 5 --kind $1 --overlap $2 > $O/$4-$1-$2.txt 2>&1; echo "$4 $1 $2 rc=$? at ${SECONDS}s"; grep -A3 "^kind   halo_ms" $O/$4-$1-$2.txt | grep -E "^$1 " | cut -c1-150; }
for m in "rmat:scale=21,ef=16,sym=1 r21e16" "rmat:scale=21,ef=32,sym=1 r21e32" "lap3d7:64 lap64"; do set -- $m
  for k in pcoo pcsr; do for v in on off auto; do [ $SECONDS -gt 260 ] && break 3; ov $k $v $1 $2; done; done; done
cd $OUT && tar czf kg.tar.gz kg
