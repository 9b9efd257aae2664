#!/usr/bin/env bash
# Device run JF (4 GPUs): spx_multi_cg / spx_multi_bicgstab. Build the tests and the harness;
# test_gpu_multi (its new solver test: every kind, 1-4 parts on GPU 0 and round robin, against one
# CPU part); test_gpu_solve (the one-plan CUDA solvers, whose vector layer changed); then
# bench/experiments/msrep/multi_cg: CG on one GPU against CG over the 4 GPUs, same process;
# memcheck of test_gpu_multi (quick) while time is left.
O=$OUT/jf; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader | tee $O/gpu.txt
B=build-jf
{ cmake -S . -B $B -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON && cmake --build $B -j64 --target test_gpu_multi test_gpu_solve multi_cg; } > $O/build.log 2>&1 || { tail -30 $O/build.log; }
echo "built at ${SECONDS}s"
timeout 90 $B/tests/test_gpu_multi > $O/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? at ${SECONDS}s"; grep -E "GPU|solvers|passed|failed|cg|bicg" $O/test_gpu_multi.txt | tail -8
(cd tests && timeout 40 ../$B/tests/test_gpu_solve) > $O/test_gpu_solve.txt 2>&1; echo "test_gpu_solve rc=$? $(tail -1 $O/test_gpu_solve.txt) at ${SECONDS}s"
E=$(find $B -name multi_cg -type f | head -1)
for spec in lap3d7:200 lap3d27:128; do [ $SECONDS -gt 150 ] && break
  timeout 60 $E $spec --iters 100 --rounds 5 > $O/multi_cg-${spec/:/-}.txt 2>&1; echo "multi_cg $spec rc=$? at ${SECONDS}s"; cat $O/multi_cg-${spec/:/-}.txt | cut -c1-150
done
[ $SECONDS -lt 170 ] && { SPX_TEST_QUICK=1 timeout $((225-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_multi > $O/memcheck.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; grep "ERROR SUMMARY" $O/memcheck.txt | head -2; tail -1 $O/memcheck.txt; }
cd $OUT && tar czf jf.tar.gz jf
