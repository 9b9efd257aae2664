#!/usr/bin/env bash
# Device run ND (4 GPUs): the leads' barrier of flags (multi_barrier.c) against the same code at
# HEAD (0d1021f, events): test_gpu_multi, memcheck, multi_cg and the resident bench, alternated.
O=$OUT/nd; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader > $O/gpu.txt
rm -rf /tmp/base && mkdir /tmp/base && tar xf .devrun/base-nd.tar -C /tmp/base
hb() { source <(sed -n '/^build_harness()/,/^}/p' scripts/multi-gpu-check.sh); BUILD=build-multi-gpu; build_harness multi_cg; }
for t in . /tmp/base; do (cd $t && SPX_MULTI_STEPS="build" SPX_MULTI_JOBS=30 bash scripts/multi-gpu-check.sh > /dev/null 2>&1; hb) & done; wait
ls -la build-multi-gpu/msrep_multi_cg /tmp/base/build-multi-gpu/msrep_multi_cg | cut -c1-80
echo "built at ${SECONDS}s"
timeout 200 build-multi-gpu/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s: $(tail -1 $O/test_gpu_multi.txt)"; grep -E "FAIL|barrier|GPUs" $O/test_gpu_multi.txt | head -12
for run in "lap3d7:32 --iters 100" "lap3d7:100 --iters 100" "lap3d7:250 --iters 100" "lap3d7:200 --iters 50 --solver bicgstab" "lap3d27:128 --iters 100"; do
  for t in new base new base; do d=.; [[ $t == base ]] && d=/tmp/base
    echo "## $t multi_cg $run"; timeout 60 $d/build-multi-gpu/msrep_multi_cg $run --rounds 3; done
  echo "## new SPX_MULTI_BARRIER=events multi_cg $run"; SPX_MULTI_BARRIER=events timeout 60 build-multi-gpu/msrep_multi_cg $run --rounds 3
done > $O/ab.txt 2>&1
grep -E "^(##|one GPU  |multi  |speedup)" $O/ab.txt | cut -c1-110
echo "solves done at ${SECONDS}s"
for t in new base; do d=.; [[ $t == base ]] && d=/tmp/base
  echo "## $t"; timeout 100 $d/build-multi-gpu/spx bench gen:lap3d7:250 --multi 4 --device cuda --spread --calls 20; done > $O/bench.txt 2>&1
cat $O/bench.txt | cut -c1-180 | head -60
SPX_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build-multi-gpu/tests/test_gpu_multi > $O/memcheck.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s: $(tail -1 $O/memcheck.txt)"
cd $OUT && tar czf nd.tar.gz nd
