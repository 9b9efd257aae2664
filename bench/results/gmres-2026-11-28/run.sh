#!/bin/bash
# GMRES on CUDA plans: build, the GPU solver tests, memcheck, and timings.
set -x
R=$OUT/gmres; mkdir -p $R
cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 --target spx_cli test_gpu_solve test_gpu_multi test_solve test_sym 2>&1 | tail -1
cd /tmp/b/tests 2>/dev/null || cd /tmp/b
T=/tmp/b/tests
$T/test_gpu_solve > $R/test_gpu_solve.txt 2>&1; tail -1 $R/test_gpu_solve.txt; grep gmres $R/test_gpu_solve.txt
SPX_TEST_QUICK=1 $T/test_gpu_multi > $R/test_gpu_multi.txt 2>&1; tail -1 $R/test_gpu_multi.txt
$T/test_solve > $R/test_solve.txt 2>&1; tail -1 $R/test_solve.txt
timeout 300 compute-sanitizer --tool memcheck --leak-check full $T/test_gpu_solve > $R/memcheck_gpu_solve.txt 2>&1; tail -3 $R/memcheck_gpu_solve.txt
cd /work 2>/dev/null; B=/tmp/b/spx
for M in gen:lap3d7:100 gen:lap3d27:64; do
  for D in cpu cuda; do for MT in gmres bicgstab; do
    OMP_NUM_THREADS=16 $B solve $M --method $MT --device $D --jacobi --rtol 1e-8 --max-iters 1000 2>&1 | tail -1
  done; done
done > $R/solve.txt 2>&1
cat $R/solve.txt
cd $OUT && tar -czf gmres.tgz gmres && rm -rf gmres
