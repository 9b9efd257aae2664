#!/bin/bash
# GMRES with Gram-Schmidt twice, dots 4 at a time (new) against modified
# Gram-Schmidt (old, 05ca20e), both trees built here, run alternately.
set -x
R=$OUT/gmres2; mkdir -p $R
cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 --target spx_cli test_gpu_solve test_gpu_multi 2>&1 | tail -1
cmake -S .devrun/old -B /tmp/o -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/o -j16 --target spx_cli 2>&1 | tail -1
/tmp/b/tests/test_gpu_solve > $R/test_gpu_solve.txt 2>&1; tail -1 $R/test_gpu_solve.txt; grep gmres $R/test_gpu_solve.txt
SPX_TEST_QUICK=1 /tmp/b/tests/test_gpu_multi > $R/test_gpu_multi.txt 2>&1; tail -1 $R/test_gpu_multi.txt
timeout 300 compute-sanitizer --tool memcheck --leak-check full /tmp/b/tests/test_gpu_solve > $R/memcheck_gpu_solve.txt 2>&1; tail -2 $R/memcheck_gpu_solve.txt
for M in gen:lap3d27:64 gen:lap3d7:100; do for rep in 1 2; do for T in new old; do
  B=/tmp/b/spx; [ $T = old ] && B=/tmp/o/spx
  echo -n "$T: "; $B solve $M --method gmres --device cuda --jacobi --rtol 1e-8 --max-iters 300 2>&1 | tail -1
done; done; done > $R/solve.txt 2>&1
cat $R/solve.txt
cd $OUT && tar -czf gmres2.tgz gmres2 && rm -rf gmres2
