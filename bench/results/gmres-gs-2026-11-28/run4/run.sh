#!/bin/bash
# Round 4 (2 GPUs): GMRES's Gram-Schmidt on multi-device plans on GPUs
# (classical, the passes on every part, one wait a pass) against old
# (70bd794: modified, a wait a dot). Tests, then bench/experiments/msrep/
# multi_cg --solver gmres from both trees alternately, then memcheck.
R=$OUT/gs4; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/gpu.txt
{ cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON -DSPX_WERROR=OFF -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/b -j32 --target test_gpu_multi test_gpu_solve test_gs multi_cg; } > $R/build.log 2>&1 || tail -20 $R/build.log
{ cmake -S .devrun/old -B /tmp/o -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_EXPERIMENTS=ON -DSPX_WERROR=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/o -j32 --target multi_cg; } > $R/build_old.log 2>&1 || tail -20 $R/build_old.log
echo "built at ${SECONDS}s"
T=/tmp/b/tests; cd tests
timeout 120 $T/test_gpu_multi > $R/test_gpu_multi.txt 2>&1; echo "test_gpu_multi rc=$? $(tail -n 1 $R/test_gpu_multi.txt) at ${SECONDS}s"; grep -E "gmres|GPU" $R/test_gpu_multi.txt | head
timeout 60 $T/test_gpu_solve > $R/test_gpu_solve.txt 2>&1; echo "test_gpu_solve $(tail -n 1 $R/test_gpu_solve.txt)"
SPX_TEST_PART=cuda timeout 60 $T/test_gs > $R/test_gs.txt 2>&1; echo "test_gs $(tail -n 1 $R/test_gs.txt)"
cd ..
N=$(find /tmp/b -name multi_cg -type f | head -1); O=$(find /tmp/o -name multi_cg -type f | head -1)
for spec in lap3d27:64 lap3d7:160; do for V in new old; do [ $SECONDS -gt 330 ] && break
  E=$N; [ $V = old ] && E=$O
  echo "== $V $spec"; timeout 90 $E $spec --solver gmres --iters 120 --rounds 3 2>&1 | cut -c1-160
done; done > $R/multi_gmres.txt 2>&1
cat $R/multi_gmres.txt
[ $SECONDS -lt 360 ] && { SPX_TEST_QUICK=1 timeout $((470-SECONDS)) compute-sanitizer --tool memcheck --leak-check full $T/test_gpu_multi > $R/memcheck_multi.txt 2>&1; echo "memcheck rc=$? at ${SECONDS}s"; tail -n 3 $R/memcheck_multi.txt; }
cd $OUT && tar czf gs4.tgz gs4
