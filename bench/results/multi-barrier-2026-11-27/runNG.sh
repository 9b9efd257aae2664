#!/usr/bin/env bash
# Device run NG (2+ GPUs): test_gpu_multi with the missing-GPU test (a barrier's timeout), and
# its memcheck; multi_cg lap3d7:200 as a sanity number on every GPU.
O=$OUT/ng; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt; cat $O/gpu.txt
SPX_MULTI_STEPS="build" SPX_MULTI_JOBS=32 bash scripts/multi-gpu-check.sh > /dev/null 2>&1; echo "built at ${SECONDS}s"
timeout 200 build-multi-gpu/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL|barrier|GPUs" $O/test_gpu_multi.txt | head -8
SPX_TEST_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 build-multi-gpu/tests/test_gpu_multi > $O/memcheck.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s: $(grep 'ERROR SUMMARY' $O/memcheck.txt | tail -1) / $(tail -1 $O/memcheck.txt)"
source <(sed -n '/^build_harness()/,/^}/p' scripts/multi-gpu-check.sh); BUILD=build-multi-gpu; build_harness multi_cg
timeout 60 build-multi-gpu/msrep_multi_cg lap3d7:200 --iters 100 --rounds 3 > $O/multi_cg.txt 2>&1; grep -E "^(one GPU|multi|speedup)" $O/multi_cg.txt | cut -c1-110
cd $OUT && tar czf ng.tar.gz ng
