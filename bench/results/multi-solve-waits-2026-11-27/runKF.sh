#!/usr/bin/env bash
# Device run KF: BiCGSTAB's updates as one pass each (spx__v_axpbypcz: p = r + beta p - beta omega
# v, s = r - alpha v, x += alpha phat + omega shat, r = s - omega t) and phat = p, shat = s without
# a preconditioner, against 707256a (main before) with the same harness, alternated; one GPU and
# every GPU. Then the solver tests on the GPUs and memcheck.
O=$OUT/kf; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
rm -rf /tmp/base && mkdir -p /tmp/base && tar -C /tmp/base -xzf .devrun/base-kf.tar.gz && cp bench/experiments/msrep/multi_cg.c /tmp/base/bench/experiments/msrep/
CF="-DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON"
B=build-kf
{ cmake -S . -B $B $CF && cmake --build $B -j20 --target multi_cg test_gpu_solve test_gpu_multi; } > $O/build.log 2>&1 &
{ cmake -S /tmp/base -B /tmp/base/b $CF && cmake --build /tmp/base/b -j12 --target multi_cg; } > $O/build-base.log 2>&1 &
wait
echo "built at ${SECONDS}s"; tail -1 $O/build.log $O/build-base.log | cut -c1-120
EN=$(find $B -name multi_cg -type f | head -1); EB=$(find /tmp/base/b -name multi_cg -type f | head -1)
for round in 1 2; do for spec in lap3d7:200 lap3d27:128; do
  for who in base new; do E=$EN; [ $who = base ] && E=$EB
    timeout 60 $E $spec --solver bicgstab --iters 50 --rounds 5 > $O/bicgstab-${spec/:/-}-$who-$round.txt 2>&1; echo "bicgstab $spec $who rc=$? at ${SECONDS}s"; grep -E "^(one|multi|products)" $O/bicgstab-${spec/:/-}-$who-$round.txt | cut -c1-170
  done; done; done
(cd tests && timeout 60 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? $(tail -1 $O/test_gpu_solve.txt) at ${SECONDS}s"
timeout 120 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "FAIL" $O/test_gpu_multi.txt | head -5; tail -1 $O/test_gpu_multi.txt
[ $SECONDS -lt 230 ] && { (cd tests && SPX_TEST_QUICK=1 timeout $((300-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 ../$B/tests/test_gpu_solve) > $O/memcheck-solve.txt 2>&1; echo "memcheck test_gpu_solve rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck-solve.txt | head -2; }
cd $OUT && tar czf kf.tar.gz kf
