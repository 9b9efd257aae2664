#!/bin/bash
# Round 2: the Gram-Schmidt kernel with each entry loaded once (16-vector
# launches), min blocks 3 (new) and 2 (v2), against modified Gram-Schmidt
# (old, 70bd794); tests and sanitizers on new; ncu of the passes.
set -x
R=$OUT/gs2; mkdir -p $R
cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 --target spx_cli test_gs test_gpu_solve test_gpu_multi 2>&1 | tail -1
cmake -S . -B /tmp/v2 -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_CUDA_FLAGS=-DSPX__GS_MIN_BLOCKS=2 -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/v2 -j16 --target spx_cli 2>&1 | tail -1
[ -x /tmp/o/spx ] || (cmake -S .devrun/old -B /tmp/o -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/o -j16 --target spx_cli 2>&1 | tail -1)
T=/tmp/b/tests; cd tests
SPX_TEST_PART=all $T/test_gs > $R/test_gs.txt 2>&1; tail -1 $R/test_gs.txt
$T/test_gpu_solve > $R/test_gpu_solve.txt 2>&1; tail -1 $R/test_gpu_solve.txt; grep gmres $R/test_gpu_solve.txt
SPX_TEST_QUICK=1 $T/test_gpu_multi > $R/test_gpu_multi.txt 2>&1; tail -1 $R/test_gpu_multi.txt
timeout 240 compute-sanitizer --tool memcheck --leak-check full $T/test_gpu_solve > $R/memcheck_gpu_solve.txt 2>&1; tail -2 $R/memcheck_gpu_solve.txt
SPX_TEST_PART=cuda timeout 150 compute-sanitizer --tool memcheck --leak-check full $T/test_gs > $R/memcheck_gs.txt 2>&1; tail -2 $R/memcheck_gs.txt
SPX_TEST_PART=cuda timeout 200 compute-sanitizer --tool racecheck $T/test_gs > $R/racecheck_gs.txt 2>&1; tail -2 $R/racecheck_gs.txt
cd ..
for rep in 1 2; do for M in gen:lap3d7:160 gen:lap3d7:100 gen:lap3d27:64; do for V in new v2 old; do
  B=/tmp/b/spx; [ $V = old ] && B=/tmp/o/spx; [ $V = v2 ] && B=/tmp/v2/spx
  echo -n "$V cuda $M: "; $B solve $M --method gmres --device cuda --jacobi --rtol 1e-8 --max-iters 300 2>&1 | tail -1
done; done; done > $R/solve_cuda.txt 2>&1
cat $R/solve_cuda.txt
ncu --kernel-name regex:"gs_pass|sell_kernel" --launch-skip 72 --launch-count 16 --section SpeedOfLight --section Occupancy /tmp/b/spx solve gen:lap3d7:160 --method gmres --device cuda --jacobi --max-iters 30 > $R/ncu.txt 2>&1
grep -E "^  [a-z_]|Duration|DRAM Throughput|Achieved Occupancy" $R/ncu.txt | sed 's/(long, gs_launch.*) (/ (/' | head -64
cd $OUT && tar -czf gs2.tgz gs2 && rm -rf gs2
