#!/usr/bin/env bash
# Device run KC (4 GPUs): the multi solvers' crew (a host thread per GPU issues its parts' vector
# operations; SPX_MULTI_CREW=0 is the solver thread issuing all, as in run KB), alternated in one
# call; team sizes by work (core/threads.h) on this 64-core host: test_multi_solve and pytest's
# CPU multi CG, which timed out in run KB. Then the tests and memcheck.
O=$OUT/kc; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz && export SPX_MATRICES=/tmp/spx-matrices/matrices
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
B=build-kc
{ cmake -S . -B $B $CF && cmake --build $B -j40 --target test_gpu_multi test_gpu_solve test_multi_solve multi_cg; } > $O/build.log 2>&1 &
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j24; } > $O/build-py.log 2>&1 &
wait
echo "built at ${SECONDS}s"; grep -iE " error" $O/build.log | head -5
for env in "" "SPX_MULTI_CREW=1"; do t0=$SECONDS; env $env timeout 60 $B/tests/test_multi_solve > $O/test_multi_solve.txt 2>&1; echo "test_multi_solve [$env] rc=$? $((SECONDS-t0)) s: $(tail -1 $O/test_multi_solve.txt)"; done
E=$(find $B -name multi_cg -type f | head -1)
for round in 1 2; do for spec in lap3d7:200 lap3d27:128; do
  [ $SECONDS -gt 200 ] && break 2
  for crew in 0 default; do
    env $([ $crew = 0 ] && echo SPX_MULTI_CREW=0) timeout 60 $E $spec --iters 100 --rounds 5 > $O/multi_cg-${spec/:/-}-crew-$crew-$round.txt 2>&1; echo "multi_cg $spec crew=$crew rc=$? at ${SECONDS}s"; grep -E "^(one|multi|speedup|products)" $O/multi_cg-${spec/:/-}-crew-$crew-$round.txt | cut -c1-170
  done; done; done
timeout 120 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "FAIL|passed|failed" $O/test_gpu_multi.txt | tail -4
SPX_MULTI_CREW=0 timeout 120 $B/tests/test_gpu_multi > $O/test_gpu_multi-crew0.txt 2>&1; echo "test_gpu_multi crew=0 rc=$? at ${SECONDS}s"; tail -1 $O/test_gpu_multi-crew0.txt
(cd tests && timeout 60 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? $(tail -1 $O/test_gpu_solve.txt) at ${SECONDS}s"
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/
(cd /tmp/pyspx && timeout 150 python3 -m pytest -q -rs --durations=5 $OLDPWD/python/tests) > $O/pytest.txt 2>&1; echo "pytest rc=$? at ${SECONDS}s"; tail -14 $O/pytest.txt
[ $SECONDS -lt 480 ] && { SPX_TEST_QUICK=1 timeout $((570-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_multi > $O/memcheck.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck.txt | head -2; }
cd $OUT && tar czf kc.tar.gz kc
