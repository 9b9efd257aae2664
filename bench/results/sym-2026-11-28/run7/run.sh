#!/bin/bash
# sym and AUTO on scaled copies of the shared symmetric matrices (block
# diagonal, ~20-45M nonzeros) on the 16-core host, fp64, 16 threads.
set -x
R=$OUT/sym5; mkdir -p $R
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
cmake -S . -B /tmp/b -DSPX_CUDA=OFF -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 --target spx_cli 2>&1 | tail -1
B=/tmp/b/spx; D=/tmp/m/matrices
for MC in bcsstk13:400 delaunay_n16:80 dwt_2680:1200 c-62:60 bcsstk21:1200 zenios:1000; do
  M=${MC%%:*}; C=${MC##*:}
  $B bench gen:scale:file=$D/$M.mtx,mode=blockdiag,copies=$C --format csr,sell,sym,auto --precision f64 --threads 16 2>&1 | grep -v "^bench:"
done > $R/bench.txt 2>&1
grep -E "^(scale)|warning|^matrix " $R/bench.txt | awk '{print $1,$2,$5,$6}' | sed 's|scale:file=/tmp/m/matrices/||' | cut -c1-120
cd $OUT && tar -czf sym5.tgz sym5 && rm -rf sym5
