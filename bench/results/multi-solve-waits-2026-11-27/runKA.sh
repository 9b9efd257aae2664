#!/usr/bin/env bash
# Device run KA (4 GPUs): the multi solvers' waits. New tree: every GPU part's dots queued before
# any is taken, CG's r'r with r'z and BiCGSTAB's t's with t't and r'r with rhat'r taken together
# (spx__v_dots), and a multi product ordered after the parts' vector work by events, not host waits.
# Base: a1bd5c0 (main before) with the same harness. Tests first (test_gpu_multi with the widened
# BiCGSTAB bound, test_gpu_solve), then multi_cg base/new alternated, memcheck quick, Python.
O=$OUT/ka; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
mkdir -p /tmp/spx-matrices && tar -C /tmp/spx-matrices -xJf .matrices/matrices.tar.xz && export SPX_MATRICES=/tmp/spx-matrices/matrices
rm -rf /tmp/base && mkdir -p /tmp/base && tar -C /tmp/base -xzf .devrun/base.tar.gz && cp bench/experiments/msrep/multi_cg.c /tmp/base/bench/experiments/msrep/
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
B=build-ka
{ cmake -S . -B $B $CF && cmake --build $B -j24 --target test_gpu_multi test_gpu_solve multi_cg; } > $O/build.log 2>&1 &
{ cmake -S /tmp/base -B /tmp/base/b $CF && cmake --build /tmp/base/b -j20 --target multi_cg; } > $O/build-base.log 2>&1 &
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j20; } > $O/build-py.log 2>&1 &
wait
echo "built at ${SECONDS}s"; tail -2 $O/build.log $O/build-base.log $O/build-py.log | cut -c1-200
timeout 120 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "FAIL|passed|failed" $O/test_gpu_multi.txt | tail -6
(cd tests && timeout 60 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? $(tail -1 $O/test_gpu_solve.txt) at ${SECONDS}s"
EN=$(find $B -name multi_cg -type f | head -1); EB=$(find /tmp/base/b -name multi_cg -type f | head -1)
for round in 1 2; do for spec in lap3d7:200 lap3d27:128; do
  [ $SECONDS -gt 330 ] && break 2
  for who in base new; do E=$EN; [ $who = base ] && E=$EB
    timeout 60 $E $spec --iters 100 --rounds 5 > $O/multi_cg-${spec/:/-}-$who-$round.txt 2>&1; echo "multi_cg $spec $who rc=$? at ${SECONDS}s"; grep -E "^(one|multi|speedup|products)" $O/multi_cg-${spec/:/-}-$who-$round.txt | cut -c1-160
  done; done; done
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/
(cd /tmp/pyspx && timeout 90 python3 -m pytest -q -rs -k "multi or cg or bicgstab or solve" $OLDPWD/python/tests) > $O/pytest.txt 2>&1; echo "pytest rc=$? at ${SECONDS}s"; tail -4 $O/pytest.txt
[ $SECONDS -lt 460 ] && { SPX_TEST_QUICK=1 timeout $((560-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_multi > $O/memcheck.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck.txt | head -2; tail -1 $O/memcheck.txt; }
cd $OUT && tar czf ka.tar.gz ka
