#!/usr/bin/env bash
# Device run LD: BiCGSTAB with its scalars in registers, queued ahead, its updates with their dots
# in one pass each (bicgstab_step.cu, vlincomb_dot), and CG as committed (669940e), against
# 9820d05 (the session's start) with the same harness, one GPU, alternated; the solver tests,
# memcheck and racecheck; pytest with CUDA; spx.cg against CuPy.
O=$OUT/ld; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
rm -rf /tmp/base && mkdir -p /tmp/base && tar -C /tmp/base -xzf .devrun/base-la.tar.gz
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
B=build-ld
{ cmake -S . -B $B $CF && cmake --build $B -j8 --target multi_cg test_gpu_solve test_gpu_multi; } > $O/build.log 2>&1 &
{ cmake -S /tmp/base -B /tmp/base/b $CF && cmake --build /tmp/base/b -j4 --target multi_cg; } > $O/build-base.log 2>&1 &
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j4; } > $O/build-py.log 2>&1 &
wait
echo "built at ${SECONDS}s"; for f in $O/build*.log; do echo "$f: $(tail -1 $f | cut -c1-100)"; done
(cd tests && timeout 60 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? $(tail -1 $O/test_gpu_solve.txt) at ${SECONDS}s"; grep -E "FAIL|differs|ahead" $O/test_gpu_solve.txt | head
(cd tests && SPX_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ../$B/tests/test_gpu_solve) > $O/memcheck-solve.txt 2>&1; echo "memcheck test_gpu_solve rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck-solve.txt | head -2
(cd tests && SPX_TEST_QUICK=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 ../$B/tests/test_gpu_solve) > $O/racecheck-solve.txt 2>&1; echo "racecheck test_gpu_solve rc=$? at ${SECONDS}s"; grep "RACECHECK SUMMARY" $O/racecheck-solve.txt | head -2
EN=$(find $B -name multi_cg -type f | head -1); EB=$(find /tmp/base/b -name multi_cg -type f | head -1)
for round in 1 2; do for solver in cg bicgstab; do for spec in lap3d7:200 lap3d7:128 lap3d7:64 lap3d27:128; do
  for who in base new; do E=$EN; [ $who = base ] && E=$EB
    timeout 60 $E $spec --solver $solver --iters $([ $solver = cg ] && echo 100 || echo 50) --rounds 5 > $O/$solver-${spec/:/-}-$who-$round.txt 2>&1; echo "$solver $spec $who rc=$? $(grep -E '^one' $O/$solver-${spec/:/-}-$who-$round.txt | cut -c1-120)"
  done; done; done; done
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/ && cp python/bench/solve.py /tmp/pyspx/ && cp -r python/tests /tmp/pyspx/
for m in 128 200; do (cd /tmp/pyspx && timeout 60 python3 solve.py $m --gpu-only) > $O/solve-py-$m.txt 2>&1; echo "solve.py $m rc=$? at ${SECONDS}s"; tail -3 $O/solve-py-$m.txt | cut -c1-200; done
(cd /tmp/pyspx && timeout 150 python3 -m pytest -q tests) > $O/pytest.txt 2>&1; echo "pytest rc=$? at ${SECONDS}s: $(tail -1 $O/pytest.txt)"
[ $SECONDS -lt 470 ] && { timeout $((570-SECONDS)) $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "FAIL" $O/test_gpu_multi.txt | head -5; tail -1 $O/test_gpu_multi.txt; }
cd $OUT && tar czf ld.tar.gz ld
