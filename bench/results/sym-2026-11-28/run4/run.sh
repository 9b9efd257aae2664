#!/bin/bash
# sym with 16-bit distances (cols=16, the default where it fits) against int32
# columns (cols=32), csr, sell and AUTO on the GPU host's 16-core CPU; CG.
set -x
R=$OUT/sym4; mkdir -p $R
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
cmake -S . -B /tmp/b -DSPX_CUDA=OFF -DSPX_MPI=OFF -DSPX_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 2>&1 | tail -1
B=/tmp/b/spx
/tmp/b/tests/test_sym > $R/test_sym.txt 2>&1; tail -1 $R/test_sym.txt
for M in gen:lap3d27:100 gen:lap3d27:128 gen:lap3d7:200 gen:scale:file=/tmp/m/matrices/bcsstk28.mtx,mode=blockdiag,copies=128; do
  for T in 16 8; do
    $B bench $M --format csr,sell,sym,auto --precision f64 --threads $T 2>&1 | grep -v "^bench:"
  done
done > $R/bench.txt 2>&1
grep -E "^(lap|scale|gen)| threads:|warning" $R/bench.txt | awk '{print $1,$2,$4,$6,$7,$8,$12}' | cut -c1-150
for M in gen:lap3d27:100 gen:scale:file=/tmp/m/matrices/bcsstk28.mtx,mode=blockdiag,copies=128; do for F in csr sell sym auto; do
  OMP_NUM_THREADS=16 $B solve $M --format $F --rtol 1e-10 --max-iters 300 2>&1 | tail -1; done
done > $R/solve.txt 2>&1
cat $R/solve.txt
cd $OUT && tar -czf sym4.tgz sym4 && rm -rf sym4
