#!/usr/bin/env bash
# Device run NE (4 GPUs): test_gpu_multi on 2 and 3 of the GPUs (flags forced on 2, by default on 3);
# multi-gpu-check.sh's build, test and solve steps with the barrier of flags.
O=$OUT/ne; mkdir -p $O
SPX_MULTI_STEPS="build" SPX_MULTI_JOBS=60 bash scripts/multi-gpu-check.sh > /dev/null 2>&1; echo "built at ${SECONDS}s"
for v in 0,1 0,1,2; do
  CUDA_VISIBLE_DEVICES=$v timeout 150 build-multi-gpu/tests/test_gpu_multi > $O/test_gpu_multi-$v.txt 2>&1; echo "GPUs $v: test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi-$v.txt)"; grep -E "FAIL|barrier" $O/test_gpu_multi-$v.txt | head -5
done
SPX_MULTI_STEPS="test solve" SPX_MULTI_JOBS=60 timeout 400 bash scripts/multi-gpu-check.sh > $O/check.txt 2>&1; echo "multi-gpu-check rc=$? at ${SECONDS}s"
cp bench/results/msrep-4gpu-*2026-11-27*.txt bench/results/msrep-4gpu-*2026-11-27*.log $O/ 2>/dev/null
sed -n '/## solvers/,$p' bench/results/msrep-4gpu-h200-2026-11-27.txt | grep -E "^(##|one GPU|multi|speedup|products)" | cut -c1-200
grep -E "passed|failed|ERROR" bench/results/msrep-4gpu-h200-2026-11-27-log.txt | tail -8
cd $OUT && tar czf ne.tar.gz ne
