#!/bin/bash
# sym's software prefetch on (256, the default) and off, three rounds, fp64,
# 16 threads, on the stencils and the scaled shared matrices of run 7.
set -x
R=$OUT/sym6; mkdir -p $R
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
cmake -S . -B /tmp/b -DSPX_CUDA=OFF -DSPX_MPI=OFF -DSPX_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build /tmp/b -j16 --target spx_cli 2>&1 | tail -1
B=/tmp/b/spx; D=/tmp/m/matrices
for round in 1 2 3; do
for M in gen:lap3d27:100 gen:lap3d7:200 gen:scale:file=$D/bcsstk13.mtx,mode=blockdiag,copies=400 gen:scale:file=$D/c-62.mtx,mode=blockdiag,copies=60 gen:scale:file=$D/bcsstk21.mtx,mode=blockdiag,copies=1200 gen:scale:file=$D/zenios.mtx,mode=blockdiag,copies=1000 gen:scale:file=$D/dwt_2680.mtx,mode=blockdiag,copies=1200; do
  $B bench $M --format sym,sell --precision f64 --threads 16 --batches 5 2>&1 | grep -E "^(lap|scale)" | awk -v r=$round '{print r, $1, $2, $6}' | sed 's|scale:file=/tmp/m/matrices/||'
done; done > $R/ab.txt 2>&1
cat $R/ab.txt
cd $OUT && tar -czf sym6.tgz sym6 && rm -rf sym6
