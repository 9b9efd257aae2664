#!/usr/bin/env bash
# MSREP on the one-H100 machine: 1..4 parts on GPU 0 (a stream each) for
# every partition kind, against one plan of the same options on the same GPU,
# on a 14.6M-nonzero stencil (lap3d7:128) and R-MAT scale 20 (~31M nonzeros
# symmetrized). Host vectors on both sides (x copied over, y copied back per
# call). Goal: the multi path's call within 5% of the single plan's at 10M+
# nonzeros. About 1-2 minutes.
#
# Usage, from the repository root after building (cmake -S . -B build-gpu
# -DSPX_CUDA=ON -DSPX_CUDA_ARCHS=90 -DCMAKE_BUILD_TYPE=Release && cmake
# --build build-gpu -j16):
#   bench/experiments/msrep/run.sh [build-dir, default build-gpu]
# Writes bench/results/msrep-gpu-<date>.txt (and to $OUT when set).
set -euo pipefail
build=${1:-build-gpu}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cd "$root"
cuda_lib=$(dirname "$(sed -n 's/^CUDA_cudart_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt")")
bin="$build/msrep_multi_bench"
cc -O2 -fopenmp -Iinclude -Isrc "$here/multi_bench.c" "$build/libspx.a" \
   -L"$cuda_lib" -Wl,-rpath,"$cuda_lib" -lcudart -lstdc++ -lm -lz -o "$bin"
out="bench/results/msrep-gpu-$(date +%F).txt"
{
  echo "# MSREP multi-GPU executor on one GPU: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  echo "# $bin M --device cuda --parts 1,2,3,4 --calls 20 --batches 7"
  for m in gen:lap3d7:128 "gen:rmat:scale=20,ef=16,sym=1,seed=1"; do
    echo
    timeout 150 "$bin" "$m" --device cuda --parts 1,2,3,4 --calls 20 --batches 7
  done
} 2>&1 | tee "$out"
if [ -n "${OUT:-}" ]; then cp "$out" "$OUT/"; fi
