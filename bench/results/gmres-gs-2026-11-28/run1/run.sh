#!/bin/bash
# GMRES with classical Gram-Schmidt twice, coefficients on the device (new)
# against modified Gram-Schmidt with a wait per dot (old, 70bd794): both
# trees built here; tests, sanitizers, then timings run alternately.
set -x
R=$OUT/gs; mkdir -p $R
cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 --target spx_cli test_gs test_gpu_solve test_gpu_multi test_solve 2>&1 | tail -1
cmake -S .devrun/old -B /tmp/o -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/o -j16 --target spx_cli 2>&1 | tail -1
T=/tmp/b/tests; cd tests
SPX_TEST_PART=all $T/test_gs > $R/test_gs.txt 2>&1; tail -1 $R/test_gs.txt
$T/test_gpu_solve > $R/test_gpu_solve.txt 2>&1; tail -1 $R/test_gpu_solve.txt; grep gmres $R/test_gpu_solve.txt
SPX_TEST_QUICK=1 $T/test_gpu_multi > $R/test_gpu_multi.txt 2>&1; tail -1 $R/test_gpu_multi.txt
$T/test_solve > $R/test_solve.txt 2>&1; tail -1 $R/test_solve.txt
timeout 240 compute-sanitizer --tool memcheck --leak-check full $T/test_gpu_solve > $R/memcheck_gpu_solve.txt 2>&1; tail -2 $R/memcheck_gpu_solve.txt
SPX_TEST_PART=cuda timeout 150 compute-sanitizer --tool memcheck --leak-check full $T/test_gs > $R/memcheck_gs.txt 2>&1; tail -2 $R/memcheck_gs.txt
SPX_TEST_PART=cuda timeout 200 compute-sanitizer --tool racecheck $T/test_gs > $R/racecheck_gs.txt 2>&1; tail -2 $R/racecheck_gs.txt
SPX_TEST_PART=cuda timeout 150 compute-sanitizer --tool synccheck $T/test_gs > $R/synccheck_gs.txt 2>&1; tail -2 $R/synccheck_gs.txt
cd ..
for rep in 1 2; do for M in gen:lap3d27:64 gen:lap3d7:100 gen:lap3d7:160; do for V in new old; do
  B=/tmp/b/spx; [ $V = old ] && B=/tmp/o/spx
  echo -n "$V cuda $M: "; $B solve $M --method gmres --device cuda --jacobi --rtol 1e-8 --max-iters 300 2>&1 | tail -1
done; done; done > $R/solve_cuda.txt 2>&1
cat $R/solve_cuda.txt
for rep in 1 2; do for V in new old; do
  B=/tmp/b/spx; [ $V = old ] && B=/tmp/o/spx
  echo -n "$V cpu lap3d27:64: "; OMP_NUM_THREADS=16 $B solve gen:lap3d27:64 --method gmres --device cpu --jacobi --rtol 1e-8 --max-iters 300 2>&1 | tail -1
done; done > $R/solve_cpu.txt 2>&1
cat $R/solve_cpu.txt
cd $OUT && tar -czf gs.tgz gs && rm -rf gs
