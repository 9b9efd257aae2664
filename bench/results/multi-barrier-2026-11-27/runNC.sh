#!/usr/bin/env bash
# Device run NC (4 GPUs): barrier costs on 2, 3, 4 GPUs (graph_barrier.cu: ring, queued);
# the solver's product without fork and join (solver-product.patch) against head, 4 GPUs.
O=$OUT/nc; mkdir -p $O
nvcc -O2 -arch=sm_90 bench/experiments/msrep/graph_barrier.cu -o /tmp/gb && {
  /tmp/gb 100 20; CUDA_VISIBLE_DEVICES=0,1,2 /tmp/gb 100 20; CUDA_VISIBLE_DEVICES=0,1 /tmp/gb 100 20; CUDA_VISIBLE_DEVICES=0,2 /tmp/gb 100 20; } > $O/barrier.txt 2>&1 &
rm -rf /tmp/new && mkdir /tmp/new && git archive HEAD | tar x -C /tmp/new && (cd /tmp/new && git apply $OLDPWD/bench/results/solve-graph-2026-11-27/solver-product.patch)
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF"
for t in . /tmp/new; do (cd $t && SPX_MULTI_STEPS="build" SPX_MULTI_JOBS=24 bash scripts/multi-gpu-check.sh > /dev/null 2>&1 && source <(sed -n '/^build_harness()/,/^}/p' scripts/multi-gpu-check.sh) && BUILD=build-multi-gpu && build_harness multi_cg) & done
wait; cat $O/barrier.txt
for run in "lap3d7:32 --iters 100" "lap3d7:100 --iters 100" "lap3d7:200 --iters 100"; do
  for t in head new head new; do d=.; [[ $t == new ]] && d=/tmp/new
    echo "## $t multi_cg $run"; timeout 60 $d/build-multi-gpu/msrep_multi_cg $run --rounds 3; done
done > $O/ab.txt 2>&1
grep -E "^(##|multi  )" $O/ab.txt | cut -c1-120
cd $OUT && tar czf nc.tar.gz nc
