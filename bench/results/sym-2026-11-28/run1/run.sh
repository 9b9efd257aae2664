#!/bin/bash
# sym on the GPU host's CPU: build CPU-only, bench sym against csr and sell.
set -x
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA|L3" 
cmake -S . -B /tmp/b -DSPX_CUDA=OFF -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 2>&1 | tail -1
B=/tmp/b/spx
for M in gen:lap3d27:100 gen:lap3d7:200 gen:rmat:scale=20,ef=16,sym=1,values=random; do
  for T in 16 8; do
    $B bench $M --format csr,sell,sym --precision f64,f32 --threads $T --calls 1 2>&1 | grep -v "^\s*$"
  done
done > $OUT/sym1.txt 2>&1
cat $OUT/sym1.txt | cut -c1-140
