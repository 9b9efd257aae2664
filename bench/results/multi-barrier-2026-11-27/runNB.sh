#!/usr/bin/env bash
# Device run NB (4 GPUs): the cost of a barrier across GPUs inside a graph (graph_barrier.cu);
# the multi solvers' fixed cost an iteration at small sizes, replayed and queued.
O=$OUT/nb; mkdir -p $O
nvcc -O2 -arch=sm_90 bench/experiments/msrep/graph_barrier.cu -o /tmp/gb && {
  /tmp/gb 100 20; /tmp/gb 20 50; CUDA_VISIBLE_DEVICES=0,1 /tmp/gb 100 20; } > $O/barrier.txt 2>&1 &
SPX_MULTI_STEPS="build" SPX_MULTI_JOBS=48 bash scripts/multi-gpu-check.sh > $O/check.txt 2>&1
wait; cat $O/barrier.txt
source <(sed -n '/^build_harness()/,/^}/p' scripts/multi-gpu-check.sh); BUILD=build-multi-gpu; build_harness multi_cg
H=build-multi-gpu/msrep_multi_cg
for run in "lap3d7:32 --iters 100 --ab 1" "lap3d7:64 --iters 100 --ab 1" "lap3d7:32 --iters 100 --parts 2" "lap3d7:32 --iters 100 --solver bicgstab"; do
  echo "## multi_cg $run"; timeout 90 $H $run --rounds 3
done > $O/small.txt 2>&1
grep -E "^(##|one GPU|multi|speedup|replayed|products)" $O/small.txt | cut -c1-200
cd $OUT && tar czf nb.tar.gz nb
