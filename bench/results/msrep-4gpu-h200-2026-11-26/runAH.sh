#!/usr/bin/env bash
# Device run AH (4 GPUs, warm after AG): MPI one rank per GPU; scaling to 2 parts; a 448M-nonzero stencil on 4.
O=$OUT/ah; mkdir -p $O
keep() { mkdir -p $O/$1; cp bench/results/msrep-[0-9]gpu-*-2026-11-26*.* $O/$1/ 2>/dev/null; rm -f bench/results/msrep-[0-9]gpu-*-2026-11-26*.*; }
SPX_MULTI_STEPS="build mpi" SPX_MULTI_DEADLINE=200 bash scripts/multi-gpu-check.sh; echo "mpi rc=$? at ${SECONDS}s"; keep mpi
grep -E "^## mpirun|^gen:|ms a call|GFLOP" $O/mpi/*[0-9].txt | head -30
SPX_MULTI_STEPS="scale" SPX_MULTI_PARTS=2 SPX_MULTI_DEADLINE=$((420 - SECONDS)) bash scripts/multi-gpu-check.sh; echo "scale2 rc=$? at ${SECONDS}s"; keep scale2
grep -E "^(pcsr|pcsc|pcoo|rows) |^gen:|skipped" $O/scale2/*.txt | tail -30
if ((SECONDS < 420)); then
SPX_MULTI_STEPS="scale" SPX_MULTI_PARTS=4 SPX_MULTI_MATRICES=gen:lap3d7:400 SPX_MULTI_DEADLINE=10 bash scripts/multi-gpu-check.sh; echo "big rc=$? at ${SECONDS}s"; keep big4
grep -E "^(pcsr|pcsc|pcoo|rows) |^gen:|skipped" $O/big4/*.txt | tail -30
fi
echo "end at ${SECONDS}s"
cd $OUT && tar czf ah.tar.gz ah && rm -rf ah
