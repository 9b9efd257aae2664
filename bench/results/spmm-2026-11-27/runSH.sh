#!/usr/bin/env bash
# Run SH (H100): SpMM from Python against cupyx (python/bench/gpu_spmm.py), the package
# built with CUDA as in run SC.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
{ cmake -S python -B build-py -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake --build build-py -j16; } > /tmp/pybuild.log 2>&1 || { tail -20 /tmp/pybuild.log; exit 1; }
echo "built at ${SECONDS}s"
rm -rf /tmp/pyspx && mkdir -p /tmp/pyspx && cp -r python/src/spx /tmp/pyspx/ && cp build-py/_core*.so /tmp/pyspx/spx/
mkdir -p /tmp/m && tar -C /tmp/m -xJf .matrices/matrices.tar.xz
PYTHONPATH=/tmp/pyspx timeout 400 python3 python/bench/gpu_spmm.py --k 8,32,128 gen:lap3d7:128 \
  "gen:rmat:scale=20,ef=16,sym=1,values=random" "gen:powerlaw:n=1000000,avg=16,alpha=2.1" \
  /tmp/m/matrices/NotreDame_www.mtx /tmp/m/matrices/cage11.mtx 2>&1 | tee $OUT/gpu_spmm.txt
echo "done at ${SECONDS}s"
