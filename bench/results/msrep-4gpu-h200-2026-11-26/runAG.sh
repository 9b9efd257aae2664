#!/usr/bin/env bash
# Device run AG (4 GPUs), HEAD as committed: multi-gpu-check build test, oversize, scale on 4 parts.
# Builds in the checkout (build-multi-gpu is ignored and kept for the next call on a warm machine).
O=$OUT/ag; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; free -g | head -2; nproc
keep() { mkdir -p $O/$1; cp bench/results/msrep-[0-9]gpu-*-2026-11-26* $O/$1/ 2>/dev/null; rm -f bench/results/msrep-[0-9]gpu-*-2026-11-26*; }
SPX_MULTI_STEPS="build test" bash scripts/multi-gpu-check.sh; echo "build test rc=$? at ${SECONDS}s"; keep test
grep -E "tests passed|\*\*\*|Failed|ERROR SUMMARY" $O/test/*-log.txt $O/test/*memcheck.log | head
SPX_MULTI_STEPS="oversize" bash scripts/multi-gpu-check.sh; echo "oversize rc=$? at ${SECONDS}s"; keep oversize
grep -E "result:|resident vectors:|SPX_ERR|plan SPX" $O/oversize/*.txt
SPX_MULTI_STEPS="scale" SPX_MULTI_PARTS=4 SPX_MULTI_DEADLINE=$((550 - SECONDS - 60)) bash scripts/multi-gpu-check.sh; echo "scale rc=$? at ${SECONDS}s"; keep scale4
grep -E "^(pcsr|pcsc|pcoo|rows) |^gen:|skipped" $O/scale4/*.txt | tail -30
echo "end at ${SECONDS}s"
cd $OUT && tar czf ag.tar.gz ag && rm -rf ag
