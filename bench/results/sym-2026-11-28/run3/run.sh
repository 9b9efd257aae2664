#!/bin/bash
# sym on the GPU host's 16-core CPU: build CPU-only, bench sym against csr, sell
# and AUTO (one process per matrix and thread count), then CG with each format.
set -x
R=$OUT/sym3; mkdir -p $R
lscpu > $R/lscpu.txt
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
cmake -S . -B /tmp/b -DSPX_CUDA=OFF -DSPX_MPI=OFF -DSPX_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 2>&1 | tail -1
B=/tmp/b/spx
/tmp/b/tests/test_sym > $R/test_sym.txt 2>&1; tail -1 $R/test_sym.txt
for M in gen:lap3d27:100 gen:lap3d27:128 gen:lap3d7:200 gen:rmat:scale=20,ef=16,sym=1,values=random /tmp/m/matrices/c-62.mtx; do
  for T in 16 8; do
    $B bench $M --format csr,sell,sym,auto --precision f64,f32 --threads $T --json $R/bench-$(basename $M | tr ':=,' '___')-t$T.json 2>&1 | grep -v "^bench:"
  done
done > $R/bench.txt 2>&1
grep -E "^(lap|rmat|/tmp)| threads:|warning" $R/bench.txt | awk '{print $1,$2,$4,$6,$7,$8}' | head -120
for M in gen:lap3d27:100 gen:lap3d7:200; do for F in csr sell sym auto; do
  OMP_NUM_THREADS=16 $B solve $M --format $F --rtol 1e-12 --max-iters 400 2>&1 | tail -4; done
done > $R/solve.txt 2>&1
cat $R/solve.txt
cd $OUT && tar -czf sym3.tgz sym3 && rm -rf sym3
