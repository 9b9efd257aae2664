#!/usr/bin/env bash
# Run SK (H200): CUDA SpMM against cuSPARSE SpMM on three matrices, as run SE on the H100.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S . -B build-gpu -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=OFF -DSPX_MPI=OFF &&
  cmake --build build-gpu -j16 --target spx_cli; } > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at ${SECONDS}s"
B() {
  echo "== $1 k=$3 $4 at ${SECONDS}s"
  timeout 120 ./build-gpu/spx bench "$2" --op spmm --k "$3" --device cuda --precision "$4" --peers --batches 5 > /tmp/b.txt 2>/dev/null
  cat /tmp/b.txt >> $OUT/bench.txt; grep -E "^(csr|peer)" /tmp/b.txt
}
B lap3d7-128 gen:lap3d7:128 32 f64,f32,f16
B rmat20r "gen:rmat:scale=20,ef=16,sym=1,values=random" 32 f64,f32
B powerlaw1m "gen:powerlaw:n=1000000,avg=16,alpha=2.1" 32 f64,f32
echo "done at ${SECONDS}s"
