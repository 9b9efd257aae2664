#!/usr/bin/env bash
# Device run AJ (4 GPUs), HEAD 6178932 (merges by events, peer adds in place):
# multi-gpu-check build test, then scale on 4 parts.
O=$OUT/aj; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1
keep() { mkdir -p $O/$1; cp bench/results/msrep-[0-9]gpu-*-2026-11-26*.* $O/$1/ 2>/dev/null; rm -f bench/results/msrep-[0-9]gpu-*-2026-11-26*.*; }
SPX_MULTI_STEPS="build test" bash scripts/multi-gpu-check.sh; echo "build test rc=$? at ${SECONDS}s"; keep test
grep -E "tests passed|\*\*\*|Failed|FAIL|ERROR SUMMARY|graphs over" $O/test/*-log.txt $O/test/*memcheck.log | head -20
SPX_MULTI_STEPS="scale" SPX_MULTI_PARTS=4 SPX_MULTI_DEADLINE=$((480 - SECONDS - 60)) bash scripts/multi-gpu-check.sh; echo "scale rc=$? at ${SECONDS}s"; keep scale4
grep -E "^(pcsr|pcsc|pcoo|rows) |^gen:|skipped|^halo" $O/scale4/*.txt | tail -30
echo "end at ${SECONDS}s"
cd $OUT && tar czf aj.tar.gz aj && rm -rf aj
