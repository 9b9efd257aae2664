#!/usr/bin/env bash
# Device run KB (4 GPUs): the solvers' dots as one launch (spx__cuda_vdots: k dots side by side,
# the last block sums the block sums in block order, results written into pinned host memory),
# CG without a preconditioner using r as z (no copy, one dot). Base a1bd5c0, same harness.
# Then why pytest's test_multi_cg_cpu was slow here in run KA (CPU parts, 16 cores).
O=$OUT/kb; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
lscpu | grep -E "^CPU\(s\)|NUMA|Model name" | tee $O/cpu.txt
rm -rf /tmp/base && mkdir -p /tmp/base && tar -C /tmp/base -xzf .devrun/base.tar.gz && cp bench/experiments/msrep/multi_cg.c /tmp/base/bench/experiments/msrep/
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
B=build-kb
{ cmake -S . -B $B $CF && cmake --build $B -j24 --target test_gpu_multi test_gpu_solve test_multi_solve multi_cg; } > $O/build.log 2>&1 &
{ cmake -S /tmp/base -B /tmp/base/b $CF && cmake --build /tmp/base/b -j20 --target multi_cg; } > $O/build-base.log 2>&1 &
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j20; } > $O/build-py.log 2>&1 &
wait
echo "built at ${SECONDS}s"; grep -iE "error" $O/build.log | head -5
(cd tests && timeout 60 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? $(tail -1 $O/test_gpu_solve.txt) at ${SECONDS}s"
timeout 120 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "FAIL|passed|failed" $O/test_gpu_multi.txt | tail -4
EN=$(find $B -name multi_cg -type f | head -1); EB=$(find /tmp/base/b -name multi_cg -type f | head -1)
for round in 1 2; do for spec in lap3d7:200 lap3d27:128; do
  [ $SECONDS -gt 260 ] && break 2
  for who in base new; do E=$EN; [ $who = base ] && E=$EB
    timeout 60 $E $spec --iters 100 --rounds 5 > $O/multi_cg-${spec/:/-}-$who-$round.txt 2>&1; echo "multi_cg $spec $who rc=$? at ${SECONDS}s"; grep -E "^(one|multi|speedup|products)" $O/multi_cg-${spec/:/-}-$who-$round.txt | cut -c1-170
  done; done; done
t0=$SECONDS; timeout 60 $B/tests/test_multi_solve > $O/test_multi_solve.txt 2>&1; echo "test_multi_solve rc=$? $((SECONDS-t0)) s"; tail -1 $O/test_multi_solve.txt
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/
for env in "" "OMP_NUM_THREADS=4" "OMP_WAIT_POLICY=passive"; do
  (cd /tmp/pyspx && env $env timeout 60 python3 -m pytest -q --durations=3 -k "test_multi_cg_cpu and pcsr" $OLDPWD/python/tests) > $O/pytest-cg-cpu.txt 2>&1; echo "pytest [$env] rc=$? at ${SECONDS}s"; tail -5 $O/pytest-cg-cpu.txt
done
(cd /tmp/pyspx && timeout 100 python3 -m pytest -q -rs -k "multi_solve_cuda or cuda_matches or test_cg or bicgstab_non" $OLDPWD/python/tests) > $O/pytest-cuda.txt 2>&1; echo "pytest cuda rc=$? at ${SECONDS}s"; tail -3 $O/pytest-cuda.txt
[ $SECONDS -lt 480 ] && { SPX_TEST_QUICK=1 timeout $((570-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_multi > $O/memcheck.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck.txt | head -2; }
cd $OUT && tar czf kb.tar.gz kb
