#!/bin/bash
# Round 5: 32 vectors a launch (SPX__CUDA_GS_CHUNK=32, 1 block an SM at
# least: 158 registers) against the 16 kept, GMRES(30) on one GPU.
set -x
R=$OUT/gs5; mkdir -p $R
cmake -S . -B /tmp/b -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 --target spx_cli 2>&1 | tail -1
cmake -S . -B /tmp/c32 -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DSPX_MPI=OFF -DSPX_BUILD_TESTS=ON -DCMAKE_C_FLAGS=-DSPX__CUDA_GS_CHUNK=32 "-DCMAKE_CUDA_FLAGS=-DSPX__CUDA_GS_CHUNK=32 -DSPX__GS_MIN_BLOCKS=1" -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/c32 -j16 --target spx_cli test_gs 2>&1 | tail -1
(cd tests && SPX_TEST_PART=cuda /tmp/c32/tests/test_gs | tail -1)
for rep in 1 2; do for M in gen:lap3d7:160 gen:lap3d7:100 gen:lap3d27:64; do for V in k16 k32; do
  B=/tmp/b/spx; [ $V = k32 ] && B=/tmp/c32/spx
  echo -n "$V cuda $M: "; $B solve $M --method gmres --device cuda --jacobi --rtol 1e-8 --max-iters 300 2>&1 | tail -1
done; done; done > $R/solve_cuda.txt 2>&1
cat $R/solve_cuda.txt
cd $OUT && tar -czf gs5.tgz gs5 && rm -rf gs5
