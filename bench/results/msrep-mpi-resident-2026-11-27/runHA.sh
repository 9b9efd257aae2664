#!/usr/bin/env bash
# Device run HA (several GPUs): build; the multi-device and MPI tests; memcheck
# of test_gpu_multi and of the MPI test on 2 ranks; `mpirun -np G spx bench M
# --device cuda` (host vectors and vectors resident on the ranks' GPUs); then
# the threaded executor on the same GPUs in the same call (--multi G --spread).
O=$OUT/ha; mkdir -p $O
keep() { mkdir -p $O/$1; cp bench/results/msrep-[0-9]gpu-*-2026-11-2[78]*.* $O/$1/ 2>/dev/null; rm -f bench/results/msrep-[0-9]gpu-*-2026-11-2[78]*.*; }
NGPU=$(nvidia-smi --list-gpus | wc -l)
SPX_MULTI_STEPS="build test mpi" SPX_MULTI_DEADLINE=330 SPX_MULTI_JOBS=64 bash scripts/multi-gpu-check.sh; echo "mpi rc=$? at ${SECONDS}s"; keep mpi
grep -E "^## mpirun|^(pcsr|pcsc|pcoo|rows) " $O/mpi/*[0-9].txt | head -40
if ((SECONDS < 400)); then
SPX_MULTI_STEPS="scale" SPX_MULTI_PARTS=$NGPU SPX_MULTI_DEADLINE=$((520 - SECONDS)) bash scripts/multi-gpu-check.sh; echo "scale rc=$? at ${SECONDS}s"; keep scale
grep -E "^(pcsr|pcsc|pcoo|rows) |^gen:|skipped|resident" $O/scale/*[0-9].txt | tail -40
fi
echo "end at ${SECONDS}s"
cd $OUT && tar czf ha.tar.gz ha && rm -rf ha
