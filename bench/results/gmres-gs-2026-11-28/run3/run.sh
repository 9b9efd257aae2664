#!/bin/bash
# Round 3: the committed code (classical Gram-Schmidt on CUDA plans only):
# tests, memcheck, and one more round of timings against old (70bd794),
# with BiCGSTAB beside for the cost per product.
set -x
R=$OUT/gs3; mkdir -p $R
cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 --target spx_cli test_gs test_gpu_solve test_gpu_multi test_solve test_multi_solve 2>&1 | tail -1
[ -x /tmp/o/spx ] || (cmake -S .devrun/old -B /tmp/o -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/o -j16 --target spx_cli 2>&1 | tail -1)
T=/tmp/b/tests; cd tests
for t in test_gs test_gpu_solve test_solve test_multi_solve; do SPX_TEST_PART=all $T/$t > $R/$t.txt 2>&1; echo "$t: $(tail -n 1 $R/$t.txt)"; done
grep gmres $R/test_gpu_solve.txt
SPX_TEST_QUICK=1 $T/test_gpu_multi > $R/test_gpu_multi.txt 2>&1; tail -1 $R/test_gpu_multi.txt
timeout 240 compute-sanitizer --tool memcheck --leak-check full $T/test_gpu_solve > $R/memcheck_gpu_solve.txt 2>&1; tail -2 $R/memcheck_gpu_solve.txt
cd ..
for M in gen:lap3d7:160 gen:lap3d7:100 gen:lap3d27:64; do for V in new old; do
  B=/tmp/b/spx; [ $V = old ] && B=/tmp/o/spx
  echo -n "$V cuda $M gmres: "; $B solve $M --method gmres --device cuda --jacobi --rtol 1e-8 --max-iters 300 2>&1 | tail -1
done
  echo -n "new cuda $M bicgstab: "; /tmp/b/spx solve $M --method bicgstab --device cuda --jacobi --rtol 1e-8 --max-iters 300 2>&1 | tail -1
done > $R/solve_cuda.txt 2>&1
cat $R/solve_cuda.txt
cd $OUT && tar -czf gs3.tgz gs3 && rm -rf gs3
