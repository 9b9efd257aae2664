#!/usr/bin/env bash
# Device run NA (4 GPUs): multi-gpu-check.sh's build, test and solve steps at head; the multi
# solvers on 4 GPUs at other sizes (one GPU against 4 and against 2 of them).
O=$OUT/na; mkdir -p $O
SPX_MULTI_STEPS="build test solve" SPX_MULTI_JOBS=48 timeout 420 bash scripts/multi-gpu-check.sh > $O/check.txt 2>&1; echo "multi-gpu-check rc=$? at ${SECONDS}s"
cp bench/results/msrep-*gpu-*.txt bench/results/msrep-*gpu-*memcheck.log $O/ 2>/dev/null
grep -E "^(one GPU|multi|speedup|products|##)" bench/results/msrep-[0-9]gpu-*2026-11-2[78].txt | cut -c1-200
H=build-multi-gpu/msrep_multi_cg
for run in "lap3d7:250 --iters 100" "lap3d7:150 --iters 100" "lap3d7:100 --iters 100" "lap3d7:200 --iters 100 --parts 2" "lap3d7:250 --iters 50 --solver bicgstab"; do
  ((SECONDS > 560)) && { echo "skipped: $run"; continue; }
  echo "## multi_cg $run"; timeout 90 $H $run --rounds 3
done > $O/extra.txt 2>&1
grep -E "^(##|one GPU|multi|speedup)" $O/extra.txt | cut -c1-200
cd $OUT && tar czf na.tar.gz na
